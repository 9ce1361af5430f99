#pragma once
// The ranges of the request's numeric keys (docs/CONTRACT.md "Request"), in
// one table: the request readers check against it and describe lists it.
// Bounds are large enough for any real job and small enough that every
// product of them stays finite ("absurd sizes" are rejected).
#include <cstdint>
#include <string_view>

namespace caliper::io {

struct RequestLimit {
    std::string_view key;  // the request key; "lora.rank" is `rank` inside `lora`
    double min;
    double max;
    std::int64_t minInteger() const { return static_cast<std::int64_t>(min); }
    std::int64_t maxInteger() const { return static_cast<std::int64_t>(max); }
};

constexpr double kMaxTokens = 1e8;        // 1e8 tokens of context
constexpr double kMaxTrainTokens = 1e16;  // 10 quadrillion, ~600x Llama 3's 15.6T
constexpr double kMaxGpus = 1024;        // what an "auto" count, a matrix or a recommendation searches
constexpr double kMaxGpuCount = 100000;  // a stated cluster (Llama 3 405B trained on 16,384 H100s)

constexpr RequestLimit kRequestLimits[] = {
    {"batch", 1, 1e6},
    {"prompt_tokens", 0, kMaxTokens},
    {"output_tokens", 0, kMaxTokens},
    {"seq_len", 1, kMaxTokens},
    {"gpu_count", 1, kMaxGpuCount},
    {"max_gpus", 1, kMaxGpus},
    {"train_tokens", 0, kMaxTrainTokens},
    {"gpu_memory_utilization", 0.05, 1.0},
    {"usd_per_gpu_hour", 0, 1e6},
    {"price_usd", 0, 1e9},
    {"cny_per_usd", 0.01, 1000},
    {"lora.rank", 1, 65536},
    {"parallel.tp", 1, kMaxGpus},
    {"parallel.pp", 1, kMaxGpus},
    {"parallel.ep", 1, kMaxGpus},
    {"parallel.cp", 1, kMaxGpus},
    {"parallel.vp", 1, 1024},
    {"parallel.attention_dp", 1, kMaxGpus},
    {"parallel.dp", 1, kMaxGpuCount},
    {"parallel.nodes", 1, kMaxGpuCount},
    {"global_batch", 1, 1e9},
    // serve's and serving.request_rate_per_s: below about one request a day
    // (1e-5/s x 86,400 s = 0.86) the cost and energy per token grow without
    // bound (an idle deployment, infinite at 0); beyond a million per second
    // no single deployment is described.
    {"request_rate_per_s", 1e-5, 1e6},
    {"interconnect.gpus_per_node", 1, 1024},  // NVL72/NVL576-class domains fit
    {"max_train_days", 0.01, 36500},   // recommend: the longest training run wanted
    {"top", 1, 100},                   // recommend: options answered
    {"inventory.count", 1, kMaxGpus},  // inventory: cards of one kind
};

// The limit of `key`; a key missing from the table is a programming error
// that the request tests catch (its range is empty, so every value fails).
constexpr RequestLimit limitOf(std::string_view key) {
    for (const RequestLimit& l : kRequestLimits) {
        if (l.key == key) return l;
    }
    return {key, 1, 0};
}

}  // namespace caliper::io
