#pragma once
// One validation row -> the request that reproduces its setup, the result
// field to compare, and the measured value in that field's unit.
#include <optional>
#include <string>

#include "caliper/catalog.hpp"
#include "json/json_read.hpp"

namespace caliper::io {

enum class Compared {
    TotalMemory,         // memory.total_gib: what nvidia-smi shows
    AllocatedMemory,     // total_gib - overhead_gib: torch.cuda.max_memory_allocated
    ReservedMemory,      // total_gib - CUDA context: torch.cuda.max_memory_reserved
    ModelStates,         // weights + gradients + optimizer (+ adapter) GiB
    Weights,             // memory.weights_gib (a weights file size)
    Decode,              // decode_tokens_per_s
    DecodeWithPrefill,   // output tokens over prefill + generation time
    Prefill,             // prefill_tokens_per_s
    FirstToken,          // prompt tokens / time_to_first_token_s
    TrainTflops,         // train_tflops_per_gpu
    TrainMfu,            // train_tflops_per_gpu / the GPU's dense peak
    TrainTokens,         // train_tokens_per_s
    Fits,                // fits
    // Serving rows (CONTRACT v2): the result's serving object and the engine's start-up memory.
    ServingTpotMs,       // serving.tpot_ms
    ServingTtftMs,       // serving.ttft_s x 1000
    ServingTpsPerGpu,    // serving.output_tokens_per_s_per_gpu
    KvCacheTokens,       // serving.kv_cache_tokens
    MaxConcurrency,      // serving.max_concurrency
    KvPoolGib,           // serving.kv_pool_gib: the KV pool per GPU the engine allocates at start-up
    ActivationsGib,      // memory.activations_gib
    NonTorchGib,         // serving.non_torch_gib: memory outside PyTorch its start-up profile subtracts
};

struct RowMapping {
    Json request;            // a scenario for estimateJson
    Compared compared = Compared::TotalMemory;
    double measured = 0;     // GiB, tokens/s, TFLOP/s or an MFU fraction
    bool perGpu = false;     // divide a whole-job rate by the GPU count
    std::optional<bool> expectFits;  // from a fits row, or true when the row ran on the stated GPUs
    bool lowerBound = false;
    bool gpuStated = true;   // false: the row names no GPU and any large card stands in
    // Training rows whose source defines model FLOPs its own way: FLOPs per
    // token by that definition (the engine's tokens/s are converted with it).
    std::optional<double> sourceFlopsPerToken;
};

struct MappingOutcome {
    std::optional<RowMapping> mapping;
    std::string reason;  // why the row cannot be expressed, when mapping is empty
};

// Never throws: a row that cannot be expressed gives a reason instead.
MappingOutcome mapValidationRow(const Catalog& catalog, const Json& row);

// One JSON line for a row's text: {"id", "request"} with the request that reproduces its setup, or
// {"id", "unexpressible"} with the reason (`caliper validate --requests`).
std::string rowRequestLine(const Catalog& catalog, const std::string& rowText);

// Short text fields of a row, empty when absent or not a string.
std::string rowText(const Json& row, const char* key);

}  // namespace caliper::io
