#include "caliper/gpu.hpp"

#include <algorithm>
#include <cctype>

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

bool unifiedMemory(const GpuSpec& gpu) {
    if (gpu.vendor == "apple") return true;
    std::string type = gpu.memoryType;
    std::transform(type.begin(), type.end(), type.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    if (type.find("unified") != std::string::npos) return true;
    return std::any_of(gpu.caveats.begin(), gpu.caveats.end(),
                       [](const std::string& c) { return c == "apple-unified" || c == "unified-lpddr"; });
}

}  // namespace caliper
