#pragma once
// The result of one estimate (docs/CONTRACT.md "Result"). Figures that do not
// apply are empty optionals (null in JSON).
#include <optional>
#include <string>
#include <vector>

#include "caliper/scenario.hpp"

namespace caliper {

// What the runtime overhead is made of, GiB per GPU: what lies outside
// PyTorch's allocator (CUDA context, NCCL) and what the caching allocator
// keeps reserved beyond live tensors, so a reader (or `caliper validate`)
// can compare with nvidia-smi, max_memory_reserved or max_memory_allocated.
struct OverheadParts {
    double cudaContextGiB = 0;
    double cudaGraphsGiB = 0;
    double ncclBuffersGiB = 0;
    double commBuffersGiB = 0;            // DDP / DeepSpeed gradient buckets, ZeRO-3 gathered parameters
    double allocatorReserveGiB = 0;       // caching-allocator reserve: training's fragmentation, generate()'s prefill blocks
    double varyingLengthReserveGiB = 0;   // blocks of earlier fine-tuning steps of other lengths
};

struct MemoryBreakdown {  // per GPU, for the fullest GPU of the plan, GiB
    double weightsGiB = 0;
    double kvCacheGiB = 0;
    double activationsGiB = 0;
    double gradientsGiB = 0;
    double optimizerGiB = 0;
    double adapterGiB = 0;
    double overheadGiB = 0;
    OverheadParts overheadParts;  // overheadGiB's pieces (the unused part of a KV pool is the rest)
    double totalGiB = 0;
    double cpuOffloadGiB = 0;  // host RAM the plan needs (whole job)
    // The KV-cache pool a serving engine pre-allocates on this GPU (vLLM and
    // SGLang: gpu_memory_utilization x capacity minus the rest; TensorRT-LLM:
    // 0.9 of the free memory); empty where the engine allocates no pool.
    std::optional<double> kvPoolGib;
};

struct Warning {
    std::string code;  // stable; the page translates by code
    std::string message;
};

struct ExplainTerm {
    std::string term;     // "kv_cache_gib"
    std::string formula;  // in words and symbols a reader can check by hand
    double value = 0;
};

struct QuickRule {  // the source documents' rules of thumb, beside the estimate
    std::string rule;  // "inference_2_bytes_per_param"
    std::string formula;
    double valueGiB = 0;
};

struct FitSuggestion {  // a computed change that makes the scenario fit
    std::string change;   // stable code: "quantize", "gradient_checkpointing", "zero3", ...
    std::string detail;   // "weights nf4"
    double totalGiB = 0;  // per-GPU memory after the change
    int gpuCount = 0;
    bool fits = false;
};

struct Plan {
    Strategy strategy = Strategy::Single;
    int gpuCount = 1;
    int tp = 1;
    int pp = 1;
    int dp = 1;
    int nodes = 1;
    int ep = 1;  // expert-parallel degree: each GPU holds 1/ep of every MoE layer's routed experts
    int cp = 1;  // context-parallel degree (training): each GPU holds 1/cp of every sequence
    int vp = 1;  // virtual pipeline stages per GPU (Megatron's interleaved schedule)
    // What the planner chose beside the degrees (CONTRACT v2 `plan`).
    bool gradientCheckpointing = false;
    bool layersOnHost = false;  // the planner left layers on the CPU where the request set no offload (Ollama's scheduler)
    bool statesOnHost = false;  // the planner moved the optimizer states to host RAM (ZeRO-Offload) where the request set no offload
    bool paramsOnHost = false;  // and the parameters too, under ZeRO-3 (ZeRO-Infinity's CPU offload)
    int microBatch = 1;    // training: sequences per micro-batch per GPU (the request's batch, or the planner's for "auto")
    int gpuLayers = -1;    // llama.cpp layers on the GPUs with offload "layers" (-1 = all)
    int cpuMoeLayers = 0;  // layers whose routed experts run on the CPU (offload "moe-experts")
    std::optional<LossKernel> lossKernel;  // training: the loss over the vocabulary the figures assume
};

// The fabric between the nodes of a plan that spans several (CONTRACT
// `plan.inter_node`): the request's `interconnect.inter_node`, or the
// default for the GPU's class.
struct InterNodeLink {
    std::optional<InterNode> fabric;  // as requested; empty = the GPU class's default
    std::string name;                 // "InfiniBand NDR 400 Gb/s per GPU"
    double busGBps = 0;               // NCCL bus bandwidth per GPU the figures use, GB/s
};

// A figure's 10th-90th percentile band: `key` is its result key path
// ("decode_tokens_per_s", "memory.total_gib").
struct FigureRange {
    std::string key;
    double low = 0;
    double high = 0;
};

struct EstimateResult {
    std::string modelId;
    double paramsB = 0;
    double activeParamsB = 0;
    std::string gpuId;
    std::string gpuName;
    double gpuMemoryGiB = 0;
    double usableMemoryGiB = 0;

    Plan plan;
    std::vector<std::string> planWhy;  // plan.why: short codes for what the plan chose
    std::optional<InterNodeLink> interNode;  // plan.inter_node: when the plan spans nodes
    WeightFormat weights = WeightFormat::Bf16;  // the format the figures assume (the request's or the default)
    MemoryBreakdown memory;
    bool fits = false;
    std::optional<int> gpusNeeded;

    std::optional<double> decodeTokensPerS;
    std::optional<double> prefillTokensPerS;
    std::optional<double> timeToFirstTokenS;
    std::optional<double> trainTokensPerS;
    std::optional<double> trainTflopsPerGpu;  // achieved model TFLOP/s per GPU
    std::optional<double> trainMfu;           // trainTflopsPerGpu / the dense peak it runs at
    std::optional<double> trainHours;
    std::optional<double> gpuHours;
    std::optional<double> costUsd;              // cloud cost of the run
    std::optional<double> usdPerHour;           // cloud price of the whole plan
    std::optional<double> usdPerMillionTokens;  // serving cost at this batch
    std::optional<double> purchaseUsd;          // count x purchase price
    std::optional<double> purchaseCny;          // the same in CNY (the catalog's CNY price where it has one)
    std::optional<double> powerW;               // GPUs + host share; null when unknown or not running
    std::optional<double> energyKwh;            // for a training run
    int priceYear = 0;
    std::optional<ServingFigures> serving;  // continuous batching (CONTRACT v2 "serving")
    WorkloadFigures workloadFigures;  // the model's own figures when it is not an LLM

    std::vector<Warning> warnings;
    std::vector<ExplainTerm> explain;
    std::vector<QuickRule> quickRules;
    std::vector<FitSuggestion> suggestions;
    // From the cross-validated errors in data/calibration.json (calibration/ranges.cpp).
    std::vector<FigureRange> ranges;
    const char* fitVerdict = "no";  // "fits" | "tight" (fits by the estimate, not by its band) | "no"
};

}  // namespace caliper
