// The kv seam over hiredis (the only file that includes it). Blocking calls with a socket
// timeout: every connect and command returns or fails within the caller's bound.
#include "cache/hiredis_api.hpp"
#include "cache/kv_client.hpp"

#include "ktune/core/error.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <csignal>
#include <memory>
#include <pthread.h>
#include <sys/time.h>

namespace ktune::cache::detail {
namespace {

struct context_free {
    void operator()(redisContext* c) const noexcept { hiredis().redisFree(c); }
};
struct reply_free {
    void operator()(redisReply* r) const noexcept { hiredis().freeReplyObject(r); }
};
using context_ptr = std::unique_ptr<redisContext, context_free>;
using reply_ptr = std::unique_ptr<redisReply, reply_free>;

// hiredis writes with write(): a server that died makes the kernel raise SIGPIPE, whose default
// action would kill the host program. SIGPIPE is blocked in this thread for the call and a
// SIGPIPE it raised is consumed, so the failure arrives as EPIPE (a kv_failure) instead.
class sigpipe_guard {
public:
    sigpipe_guard() {
        sigemptyset(&pipe_);
        sigaddset(&pipe_, SIGPIPE);
        sigset_t pending;
        sigpending(&pending);
        was_pending_ = sigismember(&pending, SIGPIPE) == 1;
        pthread_sigmask(SIG_BLOCK, &pipe_, &old_);
    }
    ~sigpipe_guard() {
        sigset_t pending;
        sigpending(&pending);
        if (!was_pending_ && sigismember(&pending, SIGPIPE) == 1) {
            const timespec zero{};
            while (sigtimedwait(&pipe_, nullptr, &zero) < 0 && errno == EINTR) {
            }
        }
        pthread_sigmask(SIG_SETMASK, &old_, nullptr);
    }
    sigpipe_guard(const sigpipe_guard&) = delete;
    sigpipe_guard& operator=(const sigpipe_guard&) = delete;

private:
    sigset_t pipe_{}, old_{};
    bool was_pending_ = false;
};

timeval to_timeval(std::chrono::milliseconds t) {
    timeval tv{};
    tv.tv_sec = static_cast<time_t>(t.count() / 1000);
    tv.tv_usec = static_cast<suseconds_t>((t.count() % 1000) * 1000);
    return tv;
}

class hiredis_client final : public kv_client {
public:
    explicit hiredis_client(context_ptr c) : c_(std::move(c)) {}

    reply_ptr command(const std::vector<std::string>& args) {
        const sigpipe_guard guard;
        auto [argv, lens] = split(args);
        reply_ptr r(static_cast<redisReply*>(hiredis().redisCommandArgv(
            c_.get(), static_cast<int>(argv.size()), argv.data(), lens.data())));
        return checked(std::move(r));
    }

    std::vector<std::optional<std::string>> get(const std::vector<std::string>& keys) override {
        std::vector<std::optional<std::string>> out;
        if (keys.empty()) return out;
        std::vector<std::string> args{"MGET"};
        args.insert(args.end(), keys.begin(), keys.end());
        const reply_ptr r = command(args);
        if (r->type != REDIS_REPLY_ARRAY || r->elements != keys.size())
            throw kv_failure("unexpected reply to MGET");
        for (std::size_t i = 0; i < r->elements; ++i) {
            const redisReply* e = r->element[i];
            if (e->type == REDIS_REPLY_STRING)
                out.emplace_back(std::string(e->str, e->len));
            else
                out.emplace_back(std::nullopt);
        }
        return out;
    }

    void set(const std::vector<std::pair<std::string, std::string>>& kvs,
             std::chrono::seconds ttl) override {
        const sigpipe_guard guard;
        const std::string ex = std::to_string(ttl.count());
        for (const auto& [k, v] : kvs) {
            const std::vector<std::string> args{"SET", k, v, "EX", ex};
            auto [argv, lens] = split(args);
            if (hiredis().redisAppendCommandArgv(c_.get(), static_cast<int>(argv.size()),
                                                 argv.data(), lens.data()) != REDIS_OK)
                fail();
        }
        for (std::size_t i = 0; i < kvs.size(); ++i) {
            void* raw = nullptr;
            if (hiredis().redisGetReply(c_.get(), &raw) != REDIS_OK) fail();
            checked(reply_ptr(static_cast<redisReply*>(raw)));
        }
    }

    std::vector<std::string> keys(const std::string& pattern) override {
        std::vector<std::string> out;
        std::string cursor = "0";
        do {
            const reply_ptr r = command({"SCAN", cursor, "MATCH", pattern, "COUNT", "1000"});
            if (r->type != REDIS_REPLY_ARRAY || r->elements != 2 ||
                r->element[0]->type != REDIS_REPLY_STRING ||
                r->element[1]->type != REDIS_REPLY_ARRAY)
                throw kv_failure("unexpected reply to SCAN");
            cursor.assign(r->element[0]->str, r->element[0]->len);
            const redisReply* page = r->element[1];
            for (std::size_t i = 0; i < page->elements; ++i)
                out.emplace_back(page->element[i]->str, page->element[i]->len);
        } while (cursor != "0");
        return out;
    }

private:
    static std::pair<std::vector<const char*>, std::vector<std::size_t>>
    split(const std::vector<std::string>& args) {
        std::vector<const char*> argv;
        std::vector<std::size_t> lens;
        for (const auto& a : args) {
            argv.push_back(a.data());
            lens.push_back(a.size());
        }
        return {std::move(argv), std::move(lens)};
    }
    [[noreturn]] void fail() const {
        throw kv_failure(c_->err ? std::string(c_->errstr) : std::string("no reply"));
    }
    reply_ptr checked(reply_ptr r) const {
        if (!r) fail();
        if (r->type == REDIS_REPLY_ERROR) throw kv_failure(std::string(r->str, r->len));
        return r;
    }

    context_ptr c_;
};

} // namespace

bool kv_supported() noexcept {
    try {
        (void)hiredis();
        return true;
    } catch (const error&) { // kv_connect then says which library is missing and how to get it
        return false;
    }
}

std::unique_ptr<kv_client> kv_connect(const kv_endpoint& where, std::chrono::milliseconds timeout) {
    const timeval tv = to_timeval(timeout);
    context_ptr c(where.socket.empty()
                      ? hiredis().redisConnectWithTimeout(where.host.c_str(), where.port, tv)
                      : hiredis().redisConnectUnixWithTimeout(where.socket.c_str(), tv));
    if (!c) throw kv_failure("cannot allocate a Redis context");
    if (c->err) throw kv_failure(c->errstr);
    if (hiredis().redisSetTimeout(c.get(), tv) != REDIS_OK) throw kv_failure(c->errstr);
    auto client = std::make_unique<hiredis_client>(std::move(c));
    if (where.db != 0) client->command({"SELECT", std::to_string(where.db)});
    return client;
}

} // namespace ktune::cache::detail
