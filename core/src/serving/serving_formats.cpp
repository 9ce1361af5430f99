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
#include "serving/serving_formats.hpp"

namespace caliper::serving {

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
