#pragma once
// Serving under continuous batching (CONTRACT v2 "serving"): what `batch`
// concurrent requests of prompt_tokens in / output_tokens out get from a
// vLLM, SGLang, TensorRT-LLM or llama.cpp server in its steady state: time to
// the first token, time per output token, tokens/s per user and per GPU, and
// the KV pool the engine allocates at start-up.
#include <optional>
#include <string>

namespace caliper {

struct SpeculativeSpec {
    std::string method = "mtp";           // mtp | eagle | draft
    double acceptedTokensPerStep = 1.0;   // tokens each sequence keeps per verification step (>= 1)
};

// A disaggregated deployment the request states (serving.disaggregated):
// prefill replicas that only run prompts and send each request's KV cache
// to decode replicas that only decode. The request's gpu_count and parallel
// are one decode replica's; `batch` is the whole deployment's concurrency.
struct DisaggregatedServing {
    int prefillReplicas = 1;
    int decodeReplicas = 1;
    // One prefill replica's degrees (0: the decode replica's).
    int prefillTp = 0;
    int prefillPp = 0;
    int prefillEp = 0;
    int prefillAttentionDp = 0;
    // Requests one prefill replica runs at once (TensorRT-LLM max_batch_size,
    // SGLang max_running_requests); 0: the engine's default.
    int prefillMaxBatch = 0;
    // The closed-loop benchmark the figures stand for: `batch` users all
    // start at once and send batch x benchmarkRounds requests, TTFT their
    // mean (benchmark_serving --max-concurrency, --num-prompts,
    // --request-rate inf); 0: the steady state alone.
    int benchmarkRounds = 0;
};

// The request's "serving" object (all optional).
struct ServingRequest {
    double prefixCacheHitRate = 0;  // share of each prompt found in the prefix cache (0..1)
    std::optional<SpeculativeSpec> speculative;
    std::optional<double> requestRatePerS;  // open-loop arrivals instead of `batch` users in a closed loop
    bool mixedChunk = false;  // SGLang --enable-mixed-chunk: prefill chunks ride in decode batches
    // Tokens one engine step may carry, where the deployment sets it (vLLM
    // --max-num-batched-tokens, TensorRT-LLM max_num_tokens, SGLang
    // --chunked-prefill-size); unset: the engine's default.
    std::optional<double> maxNumBatchedTokens;
    std::optional<DisaggregatedServing> disaggregated;
};

// The result's "serving" object.
struct ServingFigures {
    double concurrency = 0;  // requests in flight on the whole deployment
    double ttftS = 0;
    double tpotMs = 0;
    double userTokensPerS = 0;
    double outputTokensPerS = 0;
    double outputTokensPerSPerGpu = 0;
    double requestsPerS = 0;
    std::optional<double> kvCacheTokens;   // per replica, as the engine logs it
    std::optional<double> maxConcurrency;  // requests of max_model_len the pool holds
    std::optional<double> usdPerMillionOutputTokens;
    std::optional<double> joulesPerOutputToken;
    // The engine's start-up accounting per GPU: the KV pool it allocates and
    // the memory outside PyTorch its profile subtracts (vLLM's log lines).
    double kvPoolGiB = 0;
    double nonTorchGiB = 0;
    // Not in the JSON object; they feed warnings and explain.
    double runningPerReplica = 0;  // requests the KV pool lets run at once
    double prefillOwnS = 0;        // TTFT parts (explain): own prefill, work queued ahead
    double prefillWaitS = 0;
    bool queued = false;           // concurrency above what the pool holds: requests wait
    bool saturated = false;        // request rate above what the deployment completes
};

}  // namespace caliper
