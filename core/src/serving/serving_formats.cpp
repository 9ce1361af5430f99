// The formats a replica is tried with: the request's, and where it left
// them open, FP8 on GPUs that convert FP8 in hardware (`supports_fp8`).
// - KV cache, on a 16-bit cache: vLLM, SGLang and TensorRT-LLM store FP8 KV
//   with `--kv-cache-dtype fp8`: about twice the tokens in the same pool, so
//   more users per replica (vLLM docs, features/quantization/quantized_kvcache:
//   "approximately double the amount of space for KV cache allocation";
//   native conversion on Hopper or later and MI300).
// - Weights, on a 16-bit checkpoint and a GPU with FP8 tensor cores: FP8
//   W8A8 (vLLM `--quantization fp8`, dynamic, no calibration data; vLLM docs,
//   features/quantization/fp8: "2x reduction in model memory requirements
//   and up to a 1.6x improvement in throughput with minimal impact on
//   accuracy"; Ada, Hopper and later): half the weight bytes per step and
//   room for a larger pool.
// - Weights in 4 bits (`caliper serve` only, int4FormatsTried): a 16-bit
//   checkpoint's published AWQ / GPTQ int4 builds (group 128; e.g.
//   Qwen/Qwen2.5-72B-Instruct-AWQ, hugging-quants/Meta-Llama-3.1-70B-
//   Instruct-AWQ-INT4), served weight-only (W4A16): about a quarter of the 16-bit
//   weight bytes (formats.cpp kInt4G128Bits), at some loss of accuracy, so
//   they are tried only on a GPU where the wider formats serve nothing
//   within the SLO, and named in the deployment.
//   - vLLM: AWQ and GPTQ through the Marlin kernels on NVIDIA Ampere, Ada
//     and Hopper and later (docs.vllm.ai features/quantization, "Supported
//     Hardware": Marlin (GPTQ/AWQ/FP8) from Ampere; AWQ and GPTQ not on AMD
//     GPUs); SGLang loads the same checkpoints into the same Marlin kernels
//     (awq_marlin / gptq_marlin).
//   - TensorRT-LLM: W4A16 AWQ made with Model Optimizer, "GPUs: Ampere and
//     Later" (nvidia.github.io/Model-Optimizer, guides/0_support_matrix).
#include "serving/serving_formats.hpp"

#include "speed/efficiency.hpp"  // computeCapability

namespace caliper::serving {

namespace {

// The CUDA capability of Ampere, the first with Marlin and W4A16 AWQ kernels.
constexpr double kInt4KernelsCapability = 8.0;

bool sixteenBit(WeightFormat f) { return f == WeightFormat::Bf16 || f == WeightFormat::Fp16; }

// Where formatsTried also tries an FP8 KV cache.
bool fp8KvTried(const Scenario& s) {
    const bool kv16 = s.kvCache == KvFormat::Bf16 || s.kvCache == KvFormat::Fp16;
    return runtimeOf(s.engine) != Engine::LlamaCpp && s.gpu.supportsFp8 && !s.kvCacheExplicit && kv16;
}

}  // namespace

bool int4Kernels(const Scenario& s) {
    const bool engine = s.engine == Engine::Vllm || s.engine == Engine::Sglang || s.engine == Engine::TensorrtLlm;
    return engine && s.gpu.vendor == "nvidia" && computeCapability(s.gpu) >= kInt4KernelsCapability;
}

std::vector<Formats> int4FormatsTried(const Scenario& s) {
    // A checkpoint released quantized (gpt-oss MXFP4, DeepSeek FP8, NVFP4
    // releases) has its own format, not a published int4 build to fall to.
    const bool sixteenBitCheckpoint = !s.model.nativeWeights && sixteenBit(s.weights);
    if (s.weightsExplicit || !sixteenBitCheckpoint || s.task != Task::Inference || !int4Kernels(s)) return {};
    std::vector<Formats> out{{WeightFormat::AwqInt4, s.kvCache}};
    if (fp8KvTried(s)) out.push_back({WeightFormat::AwqInt4, KvFormat::Fp8});
    return out;
}

std::vector<Formats> formatsTried(const Scenario& s) {
    std::vector<Formats> out{{s.weights, s.kvCache}};
    if (runtimeOf(s.engine) == Engine::LlamaCpp || !s.gpu.supportsFp8) return out;
    const bool kv16 = s.kvCache == KvFormat::Bf16 || s.kvCache == KvFormat::Fp16;
    const bool weights16 = s.weights == WeightFormat::Bf16 || s.weights == WeightFormat::Fp16;
    const bool fp8Kv = !s.kvCacheExplicit && kv16;
    const bool fp8Weights = !s.weightsExplicit && weights16 && s.gpu.fp8Tflops;
    if (fp8Kv) out.push_back({s.weights, KvFormat::Fp8});
    if (fp8Weights) out.push_back({WeightFormat::Fp8, s.kvCache});
    if (fp8Kv && fp8Weights) out.push_back({WeightFormat::Fp8, KvFormat::Fp8});
    return out;
}

}  // namespace caliper::serving
