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
    std::deque<std::pair<compile_request, std::promise<compile_result>>> queue;
    bool stopping = false;
    std::vector<std::thread> threads;

    void loop() {
        for (;;) {
            std::pair<compile_request, std::promise<compile_result>> job;
            {
                std::unique_lock lock(mu);
                cv.wait(lock, [&] { return stopping || !queue.empty(); });
                if (queue.empty()) return; // stopping and drained
                job = std::move(queue.front());
                queue.pop_front();
            }
            try {
                job.second.set_value(compile_cached(job.first, cache ? &*cache : nullptr));
            } catch (...) {
                job.second.set_exception(std::current_exception());
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
    std::promise<compile_result> p;
    auto f = p.get_future();
    {
        std::lock_guard lock(impl_->mu);
        impl_->queue.emplace_back(std::move(r), std::move(p));
    }
    impl_->cv.notify_one();
    return f;
}

unsigned compile_pool::threads() const noexcept {
    return static_cast<unsigned>(impl_->threads.size());
}

} // namespace ktune::measure
