#include "tune/tuner_schedule.hpp"

#include "ktune/core/device.hpp"
#include "ktune/tune/tuner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <set>
#include <thread>

namespace ktune::tune {

std::vector<int> parse_gpus(const std::string& text, const device_query& q) {
    const int count = static_cast<int>(q.devices.size());
    if (count == 0)
        throw error(error_kind::no_device,
                    fmt::format("--gpus {}: no CUDA GPU ({})", text, q.no_device_reason));
    std::vector<int> out;
    if (text == "all") {
        for (int i = 0; i < count; ++i)
            out.push_back(i);
    } else {
        std::size_t pos = 0;
        while (pos <= text.size()) {
            const std::size_t end = std::min(text.find(',', pos), text.size());
            const std::string item = text.substr(pos, end - pos);
            if (item.empty() || item.find_first_not_of("0123456789") != std::string::npos ||
                item.size() > 6)
                throw error(error_kind::usage,
                            fmt::format("--gpus {}: '{}' is not a GPU ordinal (give \"all\" or "
                                        "ordinals such as 0,1)",
                                        text, item));
            const int g = std::stoi(item);
            if (g >= count)
                throw error(error_kind::usage,
                            fmt::format("--gpus {}: there is no GPU {} (this machine has {}: "
                                        "0..{}; `ktune device` lists them)",
                                        text, g, count, count - 1));
            if (std::find(out.begin(), out.end(), g) != out.end())
                throw error(error_kind::usage,
                            fmt::format("--gpus {}: GPU {} is named twice", text, g));
            out.push_back(g);
            pos = end + 1;
        }
    }
    const device_info& first = q.devices[static_cast<std::size_t>(out.front())];
    for (int g : out) {
        const device_info& d = q.devices[static_cast<std::size_t>(g)];
        if (d.name != first.name || d.arch() != first.arch())
            throw error(error_kind::usage,
                        fmt::format("--gpus {}: GPU {} ({}, {}) and GPU {} ({}, {}) are of "
                                    "different kinds, which are never pooled in one decision: "
                                    "tune each kind with its own --gpus",
                                    text, out.front(), first.name, first.arch(), g, d.name,
                                    d.arch()));
    }
    return out;
}

namespace detail {

bool loses_gpu(const error& e) noexcept {
    return e.kind() == error_kind::cuda || e.kind() == error_kind::no_device ||
           e.kind() == error_kind::timeout;
}

std::vector<plan_outcome>
run_on_slots(std::size_t n, std::size_t slots,
             const std::function<plan_outcome(std::size_t slot, std::size_t i)>& run) {
    std::vector<plan_outcome> out(n);
    std::vector<bool> has(n, false);
    std::deque<std::size_t> queue;
    for (std::size_t i = 0; i < n; ++i)
        queue.push_back(i);
    std::mutex mu;
    std::condition_variable changed;
    // A slot with an empty queue waits while tunes are in flight elsewhere: a lost GPU hands
    // its tune back, and someone must be there to take it.
    std::size_t in_flight = 0;
    std::string last_loss;
    std::vector<std::size_t> moved(n, 0);
    const auto loop = [&](std::size_t slot) {
        for (;;) {
            std::size_t i = 0;
            {
                std::unique_lock lock(mu);
                changed.wait(lock, [&] { return !queue.empty() || in_flight == 0; });
                if (queue.empty()) return;
                i = queue.front();
                queue.pop_front();
                ++in_flight;
            }
            plan_outcome o;
            try {
                o = run(slot, i);
            } catch (const error& e) {
                if (loses_gpu(e)) {
                    std::lock_guard lock(mu);
                    queue.push_front(i); // the next free GPU takes it first
                    ++moved[i];
                    --in_flight;
                    last_loss = fmt::format("GPU slot {} lost: {}", slot, e.what());
                    changed.notify_all();
                    return;
                }
                o.ok = false;
                o.error = fmt::format("{} error: {}", to_string(e.kind()), e.what());
            } catch (const std::exception& e) {
                o.ok = false;
                o.error = fmt::format("internal error: {}", e.what());
            }
            o.gpu = static_cast<int>(slot);
            std::lock_guard lock(mu);
            o.moved = moved[i];
            out[i] = std::move(o);
            has[i] = true;
            --in_flight;
            changed.notify_all();
        }
    };
    std::vector<std::thread> threads;
    for (std::size_t s = 0; s < slots; ++s)
        threads.emplace_back(loop, s);
    for (auto& t : threads)
        t.join();
    for (std::size_t i = 0; i < n; ++i)
        if (!has[i]) {
            out[i].ok = false;
            out[i].moved = moved[i];
            out[i].error = fmt::format("no GPU left to run it ({})", last_loss);
        }
    return out;
}

} // namespace detail
} // namespace ktune::tune
