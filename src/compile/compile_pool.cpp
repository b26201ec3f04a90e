#include "compile/compile_process.hpp"
#include "core/worker_executable.hpp"
#include "ktune/compile/compile.hpp"
#include "ktune/core/error.hpp"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

namespace ktune::compile {

struct compile_pool::impl {
    std::optional<cubin_cache> cache;
    compile_pool_options opts;
    std::mutex mu;
    std::condition_variable cv;
    struct job {
        std::vector<compile_request> requests;
        std::vector<std::promise<compile_result>> promises;
    };
    std::deque<job> queue;
    bool stopping = false;
    std::vector<std::thread> threads;
    std::atomic<int> started{0}, failures{0}, fallbacks{0};
    std::atomic<bool> start_all{false}; ///< a miss was seen: every slot starts its server

    std::vector<compile_result> in_process(const std::vector<compile_request>& rs) const {
        const cubin_cache* c = cache ? &*cache : nullptr;
        if (rs.size() == 1) return {compile_cached(rs[0], c)};
        return compile_batch(rs, c);
    }

    /// Every request of the job from the cubin cache, or nullopt at the first miss. A slot
    /// answers these itself: a warm tune then starts no compile server at all.
    std::optional<std::vector<compile_result>> all_cached(const std::vector<compile_request>& rs) {
        if (!cache) return std::nullopt;
        std::vector<compile_result> out;
        for (const auto& r : rs) {
            auto hit = cache->get(r);
            if (!hit) return std::nullopt;
            out.push_back(std::move(*hit));
        }
        return out;
    }

    /// One slot: pops jobs in submission order and compiles each here or in its own server.
    void loop() {
        std::optional<detail::compile_process> server;
        int seen = 0;       // servers this slot has spawned, as counted in `started`
        bool tried = false; // this slot's server was started (or failed to start)
        const auto count_spawns = [&] {
            started += server->started() - seen;
            seen = server->started();
        };
        const auto start_server = [&] {
            tried = true;
            const bool up = server->start();
            count_spawns();
            if (!up) {
                server.reset();
                ++fallbacks;
            }
        };
        // Lazy servers start at the pool's first cubin-cache miss, all of them then (misses come
        // in batches), not before: with warm cubins the 16 servers' exec and NVRTC load would
        // only compete with the worker's context creation for cores (the H200's
        // warm set-up is a quarter of a 200-candidate tune), and a cold tune's first compile
        // waits for one server start (~50 ms), which the worker's own set-up (~110 ms) hides.
        if (opts.mode == compile_mode::processes) {
            server.emplace(opts.server_command, opts.batch_timeout);
            if (!opts.lazy_servers) start_server();
        }
        for (;;) {
            job j;
            bool have = false;
            {
                std::unique_lock lock(mu);
                cv.wait(lock, [&] {
                    return stopping || !queue.empty() || (server && !tried && start_all);
                });
                if (!queue.empty()) {
                    j = std::move(queue.front());
                    queue.pop_front();
                    have = true;
                } else if (stopping) {
                    break; // stopping and drained
                }
            }
            if (!have) { // woken to start ahead of the misses to come
                start_server();
                continue;
            }
            try {
                std::optional<std::vector<compile_result>> rs;
                if (server && opts.lazy_servers) rs = all_cached(j.requests);
                if (server && !rs) {
                    bool first = false;
                    {
                        std::lock_guard lock(mu); // no wake-up lost between test and wait
                        first = !start_all.exchange(true);
                    }
                    if (first) cv.notify_all();
                    tried = true;
                    const int failed_before = server->failures();
                    rs = server->compile(j.requests, cache->dir());
                    failures += server->failures() - failed_before;
                    count_spawns();
                    if (!rs) { // a replacement would not start: this slot compiles here now
                        server.reset();
                        ++fallbacks;
                    }
                }
                if (!rs) rs = in_process(j.requests);
                for (std::size_t i = 0; i < rs->size(); ++i)
                    j.promises[i].set_value(std::move((*rs)[i]));
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
    : compile_pool(compile_pool_options{threads, compile_mode::threads, {}, {}}, std::move(cache)) {
}

compile_pool::compile_pool(compile_pool_options o, std::optional<cubin_cache> cache)
    : impl_(std::make_unique<impl>()) {
    impl_->cache = std::move(cache);
    if (o.workers == 0) o.workers = std::max(1u, std::thread::hardware_concurrency());
    // Cubins travel from a server through the cache directory: none, no servers.
    if (!impl_->cache) o.mode = compile_mode::threads;
    if (o.mode == compile_mode::processes && o.server_command.empty()) {
        try {
            o.server_command = ktune::detail::worker_executable_command();
        } catch (const error&) {
            o.mode = compile_mode::threads;
        }
    }
    if (o.batch_timeout.count() <= 0) o.batch_timeout = std::chrono::milliseconds(120000);
    impl_->opts = std::move(o);
    for (unsigned i = 0; i < impl_->opts.workers; ++i)
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

int compile_pool::servers_started() const noexcept {
    return impl_->started.load();
}
int compile_pool::server_failures() const noexcept {
    return impl_->failures.load();
}
int compile_pool::fallback_slots() const noexcept {
    return impl_->fallbacks.load();
}

} // namespace ktune::compile
