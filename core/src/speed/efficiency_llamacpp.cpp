// llama.cpp achieved fractions, one set per GPU family, fitted per group
// (never per row) to llama-bench pp512 / tg128 of Llama-2-7B:
//  [SB]  llama.cpp GitHub discussions #15013 (CUDA/Vulkan scoreboard) and
//        #15021 (ROCm scoreboard), Q4_0, builds of 2025;
//  [M]   llama.cpp discussion #4167 (Apple silicon, F16/Q8_0/Q4_0, build 8e672ef);
//  [PR]  llama.cpp PR #4766 (RTX 3090 and Tesla P40, F16 and K-quants, Jan 2024).
// Decode is bytes / (fraction x bandwidth) + layers x overhead: a straight
// line of step time against bytes per token over one GPU's F16, Q8_0 and
// Q4_0 rows gives the slope (fraction) and the intercept (overhead).
#include <string>

#include "speed/efficiency.hpp"

namespace caliper {

namespace {

// Apple's Ultra chips join two Max dies; only they reach 800 GB/s.
constexpr double kAppleUltraGBps = 800.0;

bool hbm(const GpuSpec& gpu) { return gpu.memoryType.rfind("HBM", 0) == 0; }

bool architectureHas(const GpuSpec& gpu, const char* word) {
    return gpu.architecture.find(word) != std::string::npos;
}

LlamaCppConstants apple(const GpuSpec& gpu) {
    // [M]: intercepts 4-8 ms over 32 layers on every M1-M4 chip; slopes
    // 0.86-0.97 of peak on single dies, 0.74-0.98 (mean 0.85) on the two-die
    // Ultra parts; pp512 Q4_0/Q8_0 at 0.60-0.74 of the fp32 ALU rate (Apple
    // GPUs run fp16 at the fp32 rate).
    return {gpu.bandwidthGBps >= kAppleUltraGBps ? 0.85 : 0.90, 170e-6, 0.67};
}

LlamaCppConstants nvidiaGddr(GpuFamily family, const GpuSpec& gpu) {
    // [SB] Quadro RTX 6000/8000 (Turing, cc 7.5): tg at 0.67 of bandwidth
    // after a 1.3 ms intercept, pp512 at 0.28 of the listed fp16 rate.
    if (computeCapability(gpu) < 8.0) return {0.67, 40e-6, 0.28};
    // [SB] 5090, 4090, 4090 D, 5080, 5070 Ti, 3090 Ti, 3090, 4080 (S),
    // 4070 Ti S, 5070, 5060 Ti, 3060: pp512 at 0.44-0.55 of the FP16-
    // accumulate rate, which ggml's cuBLAS path uses on NVIDIA (ggml-cuda.cu,
    // ggml_cuda_op_mul_mat_cublas: CUBLAS_COMPUTE_16F for F16 and quantized
    // weights); tg intercept ~1 ms.
    if (family == GpuFamily::NvidiaGeforce) return {0.85, 30e-6, 0.50};
    // [SB] RTX A6000, A5000, A40, RTX 6000 Ada, RTX PRO 6000/4000 Blackwell:
    // pp512 at 0.33-0.47 of the listed rate (power-capped pro boards), tg
    // intercept ~1-1.5 ms.
    return {0.85, 40e-6, 0.39};
}

LlamaCppConstants nvidiaHbm(const GpuSpec& gpu) {
    // [SB] V100 0.32, A30 0.22, A100 0.20, H100 0.13-0.17 of the dense fp16
    // rate: llama.cpp's kernels do about the same work per SM and clock on
    // every part, so the fraction falls as the per-SM peak grows. tg: 1.9-3 ms
    // of fixed time per token on these slower-clocked parts.
    const double cc = computeCapability(gpu);
    const double prefill = cc >= 9.0 ? 0.15 : (cc >= 8.0 ? 0.21 : 0.32);
    return {0.80, 80e-6, prefill};
}

LlamaCppConstants nvidiaLegacy(const GpuSpec& gpu) {
    // [SB] P40 (cc 6.1, DP4A int8 dot products): pp512 at 1.0-1.1 x the fp32
    // rate; M40 / K80 (no DP4A) at 0.43-0.54. [SB]/[PR] P40 tg: 0.62 of bandwidth.
    return {0.62, 40e-6, computeCapability(gpu) >= 6.1 ? 1.05 : 0.5};
}

LlamaCppConstants amd(GpuFamily family, const GpuSpec& gpu) {
    switch (family) {
        // [SB] MI100 / MI210: tg at ~0.62 of bandwidth plus ~4.5 ms per token
        // (wave64 kernels tuned for RDNA); pp512 at 0.18-0.19 of the matrix rate.
        case GpuFamily::AmdCdna: return {0.62, 140e-6, 0.19};
        // [SB] pp512 against the catalog's fp16 rate: RDNA 3 7900 XTX 0.38,
        // W7900 0.34; RDNA 4 RX 9070 XT 0.68, R9700 0.61, RX 9070 0.43 (the
        // catalog lists RDNA 4 at half the RDNA 3 per-CU matrix rate).
        case GpuFamily::AmdRdna: return {0.80, 80e-6, architectureHas(gpu, "RDNA 4") ? 0.61 : 0.36};
        // [SB] MI50 / MI60 (Vega, HBM) and V620 (RDNA 2, GDDR): no matrix
        // units, pp512 at 1.0-1.2 x the fp32 rate through int8 dot products;
        // tg like CDNA on HBM and like RDNA on GDDR.
        default: return hbm(gpu) ? LlamaCppConstants{0.60, 150e-6, 1.1} : LlamaCppConstants{0.80, 80e-6, 1.1};
    }
}

}  // namespace

LlamaCppConstants llamaCppConstants(const GpuSpec& gpu) {
    const GpuFamily family = gpuFamily(gpu);
    switch (family) {
        case GpuFamily::Apple: return apple(gpu);
        case GpuFamily::NvidiaGeforce:
        case GpuFamily::NvidiaWorkstation: return nvidiaGddr(family, gpu);
        case GpuFamily::NvidiaHbm: return nvidiaHbm(gpu);
        case GpuFamily::NvidiaLegacy: return nvidiaLegacy(gpu);
        case GpuFamily::AmdCdna:
        case GpuFamily::AmdRdna:
        case GpuFamily::AmdNoMatrix: return amd(family, gpu);
        // [SB] Intel Arc B580 (Vulkan): pp512 at 0.07 of the XMX fp16 rate,
        // tg at 0.7 of bandwidth with a ~2.5 ms intercept.
        case GpuFamily::Other: return {0.70, 80e-6, 0.07};
    }
    return {0.70, 80e-6, 0.07};
}

}  // namespace caliper
