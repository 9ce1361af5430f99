#pragma once
// The inverse questions: on the scenario's GPUs (gpu_count, or the fewest
// that fit when it is "auto"), how long a context, how large a batch, and
// which weight format fit. Each answer carries the memory at that value.
#include <cstdint>
#include <optional>
#include <vector>

#include "caliper/result.hpp"
#include "caliper/scenario.hpp"

namespace caliper {

struct ContextLimit {
    bool fits = false;              // false: not even one token fits
    std::int64_t tokens = 0;        // inference: prompt + output tokens per sequence; training: seq_len
    bool cappedByModel = false;     // the model's max_context, not memory, is the limit
    MemoryBreakdown memory;         // at `tokens`
};

struct BatchLimit {
    bool fits = false;          // false: batch 1 does not fit
    std::int64_t batch = 0;     // concurrent sequences (inference) or micro-batch per GPU (training)
    bool capped = false;        // reached the search ceiling, memory allows more
    MemoryBreakdown memory;     // at `batch`
};

struct FormatChoice {
    bool found = false;
    WeightFormat format = WeightFormat::Bf16;
    MemoryBreakdown memory;
    std::vector<WeightFormat> tried;  // highest quality first, the ones the engine and GPU allow
};

// Longest context that fits: keeps output_tokens and grows the prompt
// (inference), or grows seq_len (training); capped at the model's max_context.
ContextLimit longestContext(const Scenario& scenario);

// Largest batch that fits, up to kMaxSearchBatch: the request's own upper
// bound on `batch` (request_limits.hpp), so the answer can be sent back as a
// request.
BatchLimit largestBatch(const Scenario& scenario);
constexpr std::int64_t kMaxSearchBatch = 1000000;

// Best weight format for inference that fits, highest quality first:
// bf16/fp16, fp8 (where the GPU runs it), int8 / Q8_0, Q6_K, Q5_K_M, AWQ /
// GPTQ 4-bit or Q4_K_M, NF4, Q3_K_M, Q2_K. GGUF types only with llama.cpp;
// AWQ/GPTQ with vLLM, SGLang, transformers and TensorRT-LLM.
FormatChoice bestWeightFormat(const Scenario& scenario);

// The weight formats an engine can load for inference on a GPU, best first.
std::vector<WeightFormat> weightFormatLadder(const Scenario& scenario);

}  // namespace caliper
