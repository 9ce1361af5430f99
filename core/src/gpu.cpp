#include "caliper/gpu.hpp"

namespace caliper {

// The rate a 16-bit matrix multiply (FP32 accumulate) can reach: BF16 where
// the card has it, else FP16 (Volta/Turing tensor cores), else the plain FP32
// rate for cards without tensor units (Pascal, Apple, Vega).
double denseTensorTflops16(const GpuSpec& gpu) {
    if (gpu.bf16Tflops) return *gpu.bf16Tflops;
    if (gpu.fp16Tflops) return *gpu.fp16Tflops;
    if (gpu.fp32Tflops) return *gpu.fp32Tflops;
    return 0;
}

}  // namespace caliper
