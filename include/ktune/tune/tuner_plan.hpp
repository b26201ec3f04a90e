#pragma once
// Several tunes in one process: a plan (ops x shapes x dtypes from the command line, or a JSON
// file) run on one tune_session, so the worker's GPU context and the compile servers are set up
// once. Every request is checked before any GPU work; a tune that fails is recorded and the
// others go on.
//
//   auto plan = ktune::tune::load_tune_plan("plan.json");        // errors name file and path
//   auto rqs = ktune::tune::plan_requests(plan, base);            // validated requests
//   auto outcomes = ktune::tune::run_plan(rqs);                   // one session for all

#include "ktune/tune/tuner.hpp"

#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace ktune::tune {

/// One tune of a plan. Empty strategy / zero budget: the base request's.
struct plan_entry {
    std::string op;
    std::string shape; ///< "8192x8192"
    std::string dtype; ///< "bf16"
    std::size_t budget = 0;
    std::string strategy;
    std::string where; ///< for messages: "plan.json: /tunes/2" or "--shape 64x64 --dtype fp32"
    bool operator==(const plan_entry&) const = default;
};

/// A plan file: {"schema": "ktune.tune_plan", "version": "1.x", "tunes": [{"op": "softmax",
/// "shape": "8192x8192", "dtype": "bf16", "budget": 200, "strategy": "auto"}, …]} or the bare
/// array. op and shape are required; dtype defaults to fp32. Throws error{input} naming
/// file:line:column for malformed JSON and the file and JSON path for a bad entry.
std::vector<plan_entry> load_tune_plan(const std::filesystem::path& file);
/// The same from text; `source` names it in errors.
std::vector<plan_entry> parse_tune_plan(std::string_view text, const std::string& source);

/// Every op x shape x dtype, in that nesting order (the command line's form).
std::vector<plan_entry> plan_product(const std::vector<std::string>& ops,
                                     const std::vector<std::string>& shapes,
                                     const std::vector<std::string>& dtypes);

/// One request per entry on top of `base` (cache file, seed, policy, …). Checks every op,
/// shape, dtype and strategy first: error{not_found} or error{input} naming the entry.
std::vector<tune_request> plan_requests(const std::vector<plan_entry>& plan,
                                        const tune_request& base);

/// What became of one request of a plan.
struct plan_outcome {
    bool ok = false;    ///< the tune ran (a cache hit counts); the report may still hold no winner
    tune_report report; ///< when ok
    std::string error;  ///< when !ok: why the tune could not run
    int gpu = -1;       ///< the GPU that ran it (tune_request::gpus); -1: CUDA's default device
    std::size_t moved = 0; ///< times it moved to another GPU after its GPU was lost
};

/// Called before each tune: (index into the requests, the request, answered from the cache).
using plan_start = std::function<void(std::size_t, const tune_request&, bool)>;

/// Runs the requests in order. With several GPUs (the first request's gpus) one thread per GPU
/// takes the next tune from one queue, each GPU with its own worker and one compile pool for
/// all; a GPU whose worker is lost hands its tune to the others (tuner_schedule.hpp), and
/// error{no_device} ends only that GPU. Cache hits are answered without a GPU; the first miss
/// starts one tune_session (worker and compile servers of the first missing request's settings)
/// that every later tune shares. A tune that throws is recorded and the rest go on, except
/// error{no_device}, which ends the plan (no later tune could run either).
std::vector<plan_outcome> run_plan(const std::vector<tune_request>& requests,
                                   const plan_start& on_start = {},
                                   const tune_progress& progress = {});

} // namespace ktune::tune
