#pragma once
// Achieved fractions of peak: how much of a GPU's memory bandwidth and tensor
// throughput each serving or training engine reaches, by GPU family, weight
// format and engine. The constants, each with its source, live in
// efficiency.cpp (serving engines) and efficiency_llamacpp.cpp (llama.cpp).
#include <string>

#include "caliper/gpu.hpp"
#include "caliper/scenario.hpp"
#include "speed/held_per_gpu.hpp"

namespace caliper {

// GPU families that behave alike under one software stack.
enum class GpuFamily {
    NvidiaLegacy,       // no tensor cores (Pascal and older, cc < 7.0)
    NvidiaGeforce,      // consumer GDDR parts (FP32-accumulate at half rate)
    NvidiaWorkstation,  // GDDR pro / data-center PCIe parts (A6000, L40, A40, RTX 6000 Ada)
    NvidiaHbm,          // HBM data-center parts (V100, A100, A30, H100, H200, B200)
    AmdCdna,            // Instinct MI100 and later (matrix cores, HBM)
    AmdRdna,            // Radeon with WMMA (RDNA 3 and later)
    AmdNoMatrix,        // GCN / Vega / RDNA 1-2: no matrix units
    Apple,              // Apple silicon (Metal)
    Other               // Intel, Huawei, ...
};

GpuFamily gpuFamily(const GpuSpec& gpu);
const char* toString(GpuFamily family);

// CUDA compute capability as a number (8.9), 0 for non-NVIDIA parts.
double computeCapability(const GpuSpec& gpu);
// Whether an NVIDIA GPU's CUDA capability is below 7.0 (Pascal and older),
// where vLLM does not run (compat.cpp) and llama.cpp is the default engine.
bool belowVolta(const GpuSpec& gpu);

// llama.cpp's achieved fractions for the GPU's family (efficiency_llamacpp.cpp).
struct LlamaCppConstants {
    double bandwidthFraction;  // decode: bytes / time over peak bandwidth
    double layerOverheadS;     // decode: fixed time per layer per token
    double prefillFraction;    // pp512 achieved / matmulPeak (quantized weights)
};
LlamaCppConstants llamaCppConstants(const GpuSpec& gpu);

// A peak tensor rate with the name of the figure it came from (for explain).
struct PeakRate {
    double tflops = 0;
    const char* name = "none";  // catalog field: "bf16_tflops", "fp16_acc16_tflops", "fp8_tflops", ...
};

// Peak rate the engine's GEMMs run at for this weight format on this GPU.
PeakRate matmulPeak(Engine engine, WeightFormat format, const GpuSpec& gpu);
// The same peak worked out directly, without taking a held GPU's table
// entry: a pipeline workload reads only the peak, and a held entry works out
// every calibrated rate of its engine and format.
PeakRate matmulPeakDirect(Engine engine, WeightFormat format, const GpuSpec& gpu);

// Decode: fraction of peak bandwidth reached while streaming weights and KV.
double decodeBandwidthFraction(Engine engine, WeightFormat format, const GpuSpec& gpu);

// Decode: fixed time per transformer layer per step (kernel launches,
// synchronisation, host work; eager engines: the GPU's own time of their
// unfused kernels, the host's is eagerHostLayerS), seconds.
double decodeLayerOverheadS(Engine engine, WeightFormat format, const GpuSpec& gpu);
// The sourced prior of the per-layer time, before any calibration (the
// serving step model fits its own scale on it).
double decodeLayerOverheadPriorS(Engine engine, const GpuSpec& gpu);

// Engines that run eager PyTorch (transformers and the frameworks that
// generate the same way): every op is launched from Python, one by one.
bool eagerEngine(Engine engine);
// Eager engines: the host's time per transformer layer per decode step
// (Python and kernel launches), by weight format; the host runs ahead of the
// GPU, so a step takes the longer of the two. Calibrated as
// decode_layer_overhead_s of the eager groups. 0 for other engines.
double eagerHostLayerS(Engine engine, WeightFormat format, const GpuSpec& gpu);
// Its sourced prior, before any calibration.
double eagerHostLayerPriorS(Engine engine, WeightFormat format);

// Prefill: fraction of matmulPeak reached on prompt processing.
double prefillComputeFraction(Engine engine, WeightFormat format, const GpuSpec& gpu);

// Decode at large batch: fraction of matmulPeak reached by the per-step
// GEMMs (a few hundred rows instead of thousands of prompt tokens).
double decodeComputeFraction(Engine engine, WeightFormat format, const GpuSpec& gpu);

// The rates above of one engine and weight format on one GPU, together.
struct EngineRates {
    Engine engine;
    WeightFormat format;
    PeakRate peak;  // matmulPeak
    double bandwidthFraction, layerOverheadS, hostLayerS, prefillFraction;
    // decodeComputeFraction, from the prefill fraction as that function makes it
    double decodeComputeFraction() const;
};
// Read once per estimate (held, below, while a matrix column is worked out).
EngineRates engineRates(Engine engine, WeightFormat format, const GpuSpec& gpu);

// While alive, matmulPeak and the calibrated rates above of `gpu` (that
// very object) are worked out once per engine and weight format and read
// back: the matrix asks them for every model of a GPU column. (Formats of
// one column's models: bf16, fp8, mxfp4, ...; more are not kept.)
using HeldGpuRates = HeldPerGpu<EngineRates, engineRates, 8>;

// Vector work per weight to unpack GGUF blocks during decode (operations per
// weight); it bounds decode on GPUs with little ALU throughput.
double dequantOpsPerWeight(WeightFormat format, const GpuSpec& gpu);

}  // namespace caliper
