#include "caliper/scenario.hpp"

namespace caliper {

void adaptToGpu(Scenario& s) {
    const bool bf16 = s.gpu.supportsBf16;
    if (!s.weightsExplicit && s.method != Method::Qlora) s.weights = bf16 ? WeightFormat::Bf16 : WeightFormat::Fp16;
    if (!s.kvCacheExplicit) s.kvCache = bf16 ? KvFormat::Bf16 : KvFormat::Fp16;
    // FlashAttention-2 needs Ampere or newer on NVIDIA; other vendors ship
    // their own fused attention (ROCm CK, Metal), so it stays on there.
    if (!s.flashAttentionExplicit) s.flashAttention = s.gpu.flashAttention2 || s.gpu.vendor != "nvidia";
}

const char* toString(Task v) {
    switch (v) {
        case Task::Inference: return "inference";
        case Task::Finetune: return "finetune";
        case Task::Pretrain: return "pretrain";
    }
    return "";
}

const char* toString(Method v) {
    switch (v) {
        case Method::Full: return "full";
        case Method::Lora: return "lora";
        case Method::Qlora: return "qlora";
    }
    return "";
}

const char* toString(Engine v) {
    switch (v) {
        case Engine::Transformers: return "transformers";
        case Engine::Vllm: return "vllm";
        case Engine::Sglang: return "sglang";
        case Engine::TensorrtLlm: return "tensorrt-llm";
        case Engine::LlamaCpp: return "llama.cpp";
        case Engine::Deepspeed: return "deepspeed";
        case Engine::Fsdp: return "fsdp";
        case Engine::Megatron: return "megatron";
    }
    return "";
}

const char* toString(Optimizer v) {
    switch (v) {
        case Optimizer::AdamW: return "adamw";
        case Optimizer::AdamW8bit: return "adamw-8bit";
        case Optimizer::PagedAdamW8bit: return "paged-adamw-8bit";
        case Optimizer::Sgd: return "sgd";
        case Optimizer::Adafactor: return "adafactor";
        case Optimizer::AdamWBf16: return "adamw-bf16";
    }
    return "";
}

const char* toString(Strategy v) {
    switch (v) {
        case Strategy::Auto: return "auto";
        case Strategy::Single: return "single";
        case Strategy::Ddp: return "ddp";
        case Strategy::Zero1: return "zero1";
        case Strategy::Zero2: return "zero2";
        case Strategy::Zero3: return "zero3";
        case Strategy::Fsdp: return "fsdp";
        case Strategy::Tensor: return "tensor";
        case Strategy::Pipeline: return "pipeline";
        case Strategy::LayerSplit: return "layer-split";
    }
    return "";
}

const char* toString(Offload v) {
    switch (v) {
        case Offload::None: return "none";
        case Offload::Optimizer: return "optimizer";
        case Offload::Parameters: return "parameters";
    }
    return "";
}

const char* toString(WeightFormat v) {
    switch (v) {
        case WeightFormat::Fp32: return "fp32";
        case WeightFormat::Bf16: return "bf16";
        case WeightFormat::Fp16: return "fp16";
        case WeightFormat::Fp8: return "fp8";
        case WeightFormat::Int8: return "int8";
        case WeightFormat::Nf4: return "nf4";
        case WeightFormat::Nf4Dq: return "nf4-dq";
        case WeightFormat::GptqInt4: return "gptq-int4";
        case WeightFormat::AwqInt4: return "awq-int4";
        case WeightFormat::Mxfp4: return "mxfp4";
        case WeightFormat::Q8_0: return "Q8_0";
        case WeightFormat::Q6_K: return "Q6_K";
        case WeightFormat::Q5_K_M: return "Q5_K_M";
        case WeightFormat::Q5_K_S: return "Q5_K_S";
        case WeightFormat::Q5_0: return "Q5_0";
        case WeightFormat::Q4_K_M: return "Q4_K_M";
        case WeightFormat::Q4_K_S: return "Q4_K_S";
        case WeightFormat::Q4_0: return "Q4_0";
        case WeightFormat::Q4_1: return "Q4_1";
        case WeightFormat::Q3_K_L: return "Q3_K_L";
        case WeightFormat::Q3_K_M: return "Q3_K_M";
        case WeightFormat::Q3_K_S: return "Q3_K_S";
        case WeightFormat::Q2_K: return "Q2_K";
    }
    return "";
}

const char* toString(KvFormat v) {
    switch (v) {
        case KvFormat::Fp32: return "fp32";
        case KvFormat::Bf16: return "bf16";
        case KvFormat::Fp16: return "fp16";
        case KvFormat::Fp8: return "fp8";
        case KvFormat::Q8_0: return "q8_0";
        case KvFormat::Q4_0: return "q4_0";
    }
    return "";
}

}  // namespace caliper
