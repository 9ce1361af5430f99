#pragma once
// Reads the free text of a validation row (its `model`, `extra` and
// `optimizer` fields) into the setup facts a request needs: engine, token
// counts, LoRA, checkpointing, ZeRO, parallel degrees, how memory was
// measured. Keyword and "key value" patterns only; when a key appears twice
// ("defaults ... max_length 2048 ... overrides: max_length=512") the last
// mention wins.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace caliper::io {

enum class MeasuredMemory {
    Process,      // what nvidia-smi shows (also when the text does not say)
    Allocated,    // torch.cuda.max_memory_allocated: no CUDA context, no allocator cache
    Reserved,     // torch.cuda.max_memory_reserved: allocator cache included, no CUDA context
    ModelStates,  // parameters + gradients + optimizer states only (DeepSpeed estimators)
};

struct EnginesNamed {  // frameworks the text names
    bool llamaCpp = false, tensorrtLlm = false, vllm = false, sglang = false;
    bool megatron = false, deepspeed = false, fsdp = false, transformers = false, unsloth = false, peft = false;
    bool msSwift = false;
    bool llmFoundry = false;  // the row's engine key names llm-foundry (structured key only)
    bool megatronBridgePerf = false;  // a Megatron-Bridge performance-summary row (its source names it)
    bool nemoLauncherPerf = false;    // a NeMo 24.07 performance-summary row (NeMo-Framework-Launcher runs)
};

struct ModelShapeText {  // architecture numbers the text states
    std::optional<std::int64_t> hidden, layers, heads, kvHeads, vocab, intermediate;
    bool multiQuery = false;
};

struct RowSetup {
    EnginesNamed engines;
    MeasuredMemory measured = MeasuredMemory::Process;
    std::optional<std::int64_t> benchPrompt, benchGenerate;  // llama-bench ppN / tgN
    std::optional<std::int64_t> promptTokens, outputTokens, seqLen, batch, microBatch;
    // Fine-tuning configs that accumulate gradients: HF/ms-swift
    // gradient_accumulation_steps, LitGPT global_batch_size (sequences per step).
    std::optional<std::int64_t> accumulationSteps, globalBatchSize;
    bool globalBatch = false;  // the row's batch counts sequences over all GPUs
    std::optional<std::int64_t> loraRank;
    std::optional<bool> loraAllLinear, gradientCheckpointing, flashAttention;
    bool selectiveRecompute = false;  // Megatron's selective recomputation (attention core)
    // Megatron-Core's --recompute-modules as a row names them
    // ("recompute_modules=layernorm,moe_act"): the request's recompute_modules.
    std::vector<std::string> recomputeModules;
    std::optional<std::int64_t> zeroStage;
    bool offloadParameters = false, offloadOptimizer = false;
    std::optional<std::int64_t> tp, pp, dp, cp, ep, vp;
    std::optional<std::int64_t> fsdpColumn;  // Megatron-Bridge tables' FSDP column (> 0: sharded data parallel)
    bool distributedOptimizer = false;  // Megatron: optimizer states sharded over data parallel
    // PyTorch FSDP's sharding_strategy as a config states it (llm-foundry's
    // fsdp_config): "fsdp" (FULL_SHARD), "zero2" (SHARD_GRAD_OP), "ddp"
    // (NO_SHARD); empty when the text names none.
    std::string fsdpSharding;
    // FSDP that keeps the gathered parameters from forward to backward
    // (FSDP2 reshard_after_forward=False; Llama 3's "we do not reshard after
    // forward computation"): the request's parallel.reshard_after_forward false.
    bool fsdpKeepsGathered = false;
    bool layerSplit = false;            // device_map-style naive split of layers over GPUs
    bool perGpu = false;                // the value is per GPU
    bool includesPrefill = false;       // output tokens/s over prefill + generation time
    bool firstTokenLatency = false;     // value derived from time to first token
    bool kvOnHost = false;              // KV cache kept in host memory
    bool lowerBound = false;            // a stated minimum, not a measurement
    bool mentionsMfu = false;           // a "%" value is a model-FLOPs utilisation
    bool gibPrintedAsGb = false;        // the quoted tool prints 2^30-byte units labelled "GB"
    bool shortText = false;             // "short prompt" / "short texts" with no count
    bool longPromptUncounted = false;   // "long prompt" with no count
    bool packed = false;  // one sequence length every step (packed or fixed-length batches)
    bool autocast = false;  // fp32 weights trained under torch.autocast (mixed precision)
    bool keepsCheckpointDtype = false;  // Lightning "bf16-true": weights, gradients and AdamW states in bf16
    std::string optimizer;              // contract name, or empty when not stated
    std::string kvCache;                // KV-cache type the text names, or empty
    std::string precision;              // weight precision words ("load_in_4bit", "bf16"), or empty
    std::optional<double> gpuMemoryUtilization;  // vLLM / SGLang pool fraction
    ModelShapeText shape;
};

// `text` is any case; the row's model, extra and optimizer joined by spaces.
RowSetup readSetup(std::string_view text);

// Readers of the model and numerics words (validation_text_model.cpp); `t`
// is lower case. Empty results mean "not stated".
std::string readOptimizer(const std::string& t);
std::string readKvCache(const std::string& t);
std::string readPrecision(const std::string& t);
std::optional<double> readPoolFraction(const std::string& t);
ModelShapeText readShape(const std::string& t);

std::string lowerCase(std::string_view text);

}  // namespace caliper::io
