#include "ktune/measure/compile.hpp"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

namespace ktune::measure {

struct compile_pool::impl {
    std::optional<cubin_cache> cache;
    std::mutex mu;
    std::condition_variable cv;
    struct job {
        std::vector<compile_request> requests;
        std::vector<std::promise<compile_result>> promises;
    };
    std::deque<job> queue;
    bool stopping = false;
    std::vector<std::thread> threads;

    void loop() {
        for (;;) {
            job j;
            {
                std::unique_lock lock(mu);
                cv.wait(lock, [&] { return stopping || !queue.empty(); });
                if (queue.empty()) return; // stopping and drained
                j = std::move(queue.front());
                queue.pop_front();
            }
            const cubin_cache* c = cache ? &*cache : nullptr;
            try {
                if (j.requests.size() == 1) {
                    j.promises[0].set_value(compile_cached(j.requests[0], c));
                    continue;
                }
                auto rs = compile_batch(j.requests, c);
                for (std::size_t i = 0; i < rs.size(); ++i)
                    j.promises[i].set_value(std::move(rs[i]));
            } catch (...) {
                for (auto& p : j.promises) {
                    try {
                        p.set_exception(std::current_exception());
                    } catch (const std::future_error&) {
                        // already satisfied
                    }
                }
            }
        }
    }
};

compile_pool::compile_pool(unsigned threads, std::optional<cubin_cache> cache)
    : impl_(std::make_unique<impl>()) {
    impl_->cache = std::move(cache);
    if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
    for (unsigned i = 0; i < threads; ++i)
        impl_->threads.emplace_back([this] { impl_->loop(); });
}

compile_pool::~compile_pool() {
    {
        std::lock_guard lock(impl_->mu);
        impl_->stopping = true;
    }
    impl_->cv.notify_all();
    for (auto& t : impl_->threads)
        t.join();
}

std::future<compile_result> compile_pool::submit(compile_request r) {
    std::vector<compile_request> one;
    one.push_back(std::move(r));
    return std::move(submit_batch(std::move(one)).front());
}

std::vector<std::future<compile_result>>
compile_pool::submit_batch(std::vector<compile_request> rs) {
    impl::job j;
    std::vector<std::future<compile_result>> fs;
    for (std::size_t i = 0; i < rs.size(); ++i) {
        j.promises.emplace_back();
        fs.push_back(j.promises.back().get_future());
    }
    j.requests = std::move(rs);
    {
        std::lock_guard lock(impl_->mu);
        impl_->queue.push_back(std::move(j));
    }
    impl_->cv.notify_one();
    return fs;
}

unsigned compile_pool::threads() const noexcept {
    return static_cast<unsigned>(impl_->threads.size());
}

} // namespace ktune::measure
