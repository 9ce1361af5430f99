#pragma once
// A typed scenario (CONTRACT.md "Scenario"). The JSON reader fills every
// field, applying the defaults that depend on the task and engine.
#include <cstdint>
#include <optional>
#include <string>

#include "caliper/gpu.hpp"
#include "caliper/model.hpp"

namespace caliper {

enum class Task { Inference, Finetune, Pretrain };
enum class Method { Full, Lora, Qlora };
enum class Engine { Transformers, Vllm, Sglang, TensorrtLlm, LlamaCpp, Deepspeed, Fsdp, Megatron };
// AdamWBf16: pure bf16 training, moments in bf16 and no fp32 master copy
// (what torch.optim.AdamW does on a model loaded in bf16 without autocast).
enum class Optimizer { AdamW, AdamW8bit, PagedAdamW8bit, Sgd, Adafactor, AdamWBf16 };
enum class Strategy { Auto, Single, Ddp, Zero1, Zero2, Zero3, Fsdp, Tensor, Pipeline, LayerSplit };
enum class Offload { None, Optimizer, Parameters };

enum class WeightFormat {
    Fp32, Bf16, Fp16, Fp8, Int8, Nf4, Nf4Dq, GptqInt4, AwqInt4, Mxfp4,
    Q8_0, Q6_K, Q5_K_M, Q5_K_S, Q5_0, Q4_K_M, Q4_K_S, Q4_0, Q4_1, Q3_K_L, Q3_K_M, Q3_K_S, Q2_K
};
enum class KvFormat { Fp32, Bf16, Fp16, Fp8, Q8_0, Q4_0 };

struct LoraSpec {
    int rank = 16;
    bool allLinear = true;  // false = attention projections only (q,k,v,o)
};

struct ParallelSpec {
    Strategy strategy = Strategy::Auto;
    int tp = 0;  // 0 = chosen by the planner
    int pp = 0;
    Offload offload = Offload::None;
};

struct Scenario {
    ModelSpec model;
    GpuSpec gpu;
    int gpuCount = 1;
    bool gpuCountAuto = false;
    Task task = Task::Inference;
    Method method = Method::Full;  // meaningful for finetune
    Engine engine = Engine::Vllm;
    WeightFormat weights = WeightFormat::Bf16;
    KvFormat kvCache = KvFormat::Bf16;
    std::int64_t batch = 1;
    std::int64_t promptTokens = 2048;
    std::int64_t outputTokens = 512;
    std::int64_t seqLen = 2048;  // training sample length
    Optimizer optimizer = Optimizer::AdamW;
    bool gradientCheckpointing = false;
    bool flashAttention = true;
    LoraSpec lora;
    ParallelSpec parallel;
    std::optional<double> trainTokens;
    std::string currency = "usd";  // usd | cny
    double gpuMemoryUtilization = 0.9;  // vLLM / SGLang pool fraction
    std::optional<double> usdPerGpuHour;  // user override of the catalog price
    std::optional<double> priceUsd;       // user override of the purchase price
    double cnyPerUsd = 7.1;               // exchange rate used for CNY figures
    WorkloadRequest workloadRequest;      // audio seconds, image size, steps, frames

    // Which defaults the request set itself; the others follow the GPU
    // (bf16 from Ampere on, fp16 before; FlashAttention-2 where supported).
    bool weightsExplicit = false;
    bool kvCacheExplicit = false;
    bool flashAttentionExplicit = false;
};

// Re-derive the GPU-dependent defaults after the GPU changed (matrix cells,
// recommendations): weights and KV dtype, FlashAttention.
void adaptToGpu(Scenario& scenario);

// Names as they appear in JSON (lowercase, CONTRACT.md).
const char* toString(Task);
const char* toString(Method);
const char* toString(Engine);
const char* toString(Optimizer);
const char* toString(Strategy);
const char* toString(Offload);
const char* toString(WeightFormat);
const char* toString(KvFormat);

}  // namespace caliper
