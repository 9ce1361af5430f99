#include "speed/efficiency.hpp"

#include <cstdlib>
#include <string_view>

#include "caliper/model/formats.hpp"
#include "calibration/calibration.hpp"
#include "per_thread.hpp"

namespace caliper {

namespace {

// ---------------------------------------------------------------------------
// Engines built on CUDA graphs and fused kernels (vLLM, SGLang, TensorRT-LLM)
// and eager PyTorch (transformers; DeepSpeed/FSDP/Megatron serve the same way).
// ---------------------------------------------------------------------------
bool graphEngine(Engine engine) {
    return runtimeOf(engine) == Engine::Vllm || runtimeOf(engine) == Engine::Sglang || runtimeOf(engine) == Engine::TensorrtLlm;
}

// gpt-fast README (A100-80GB at 330 W, CUDA graphs via torch.compile):
// Llama-2-7B bf16 1397 GB/s achieved; a fit of its 1-8 GPU tensor-parallel
// rows gives ~0.5 ms of fixed time per token, ~17 us per layer.
constexpr double kGraphBandwidthFraction = 0.80;
constexpr double kGraphLayerOverheadS = 17e-6;
// Eager PyTorch launches every op from Python, one small kernel after
// another. On the GPU those ~50 unfused kernels per layer cost time of their
// own: lmdeploy issue #210 measured 34 ms/token for Llama-2-7B fp16 in
// transformers on an A10 (600 GB/s), ~6 ms above the bandwidth time, i.e.
// ~190 us per layer (a GPU-bound step: the host's time below is shorter).
constexpr double kEagerBandwidthFraction = 0.75;
constexpr double kEagerLayerOverheadS = 190e-6;
// The host issues those kernels ahead of the GPU, so a step takes the longer
// of the host's time and the GPU's (decode.cpp); on fast GPUs the host sets
// it. Host time per layer per step, transformers generate() at batch 1 (one
// CPU core: transformers issue #24524):
// - 16-bit: optimum tests/benchmark/README.md (A100-SXM4-80GB,
//   Llama-2-13B fp16, 40 layers, prompt 512 + 512 new tokens): 36.96 ms per
//   token at batch 1 and 37.35 / 37.89 ms at batch 2 / 4, flat while the
//   bandwidth time is ~17 ms: host-bound, 0.92 ms per layer.
// - GPTQ/AWQ-class 4-bit (exllama kernels, what transformers' GPTQ loading
//   runs): the same benchmark, 33.71 ms at batch 1, 0.84 ms per layer.
// - bitsandbytes 4-bit (fast batch-1 kernels, bitsandbytes 0.41.1): the same
//   benchmark in huggingface/blog overview-quantization-transformers.md,
//   52.00 ms at batch 1, 1.30 ms per layer (dequantization calls per linear).
// - bitsandbytes LLM.int8(): bitsandbytes issue #347 (RTX 3090, LLaMA-7B,
//   transformers) 154.55 ms vs 32.89 ms fp16 per token, 4.7x the 16-bit time
//   (issue #490: ~5x on A100; issue #181: 15% of fp16's speed; "kernels ...
//   designed for training and are not efficient for inference").
constexpr double kEagerHostLayerS16 = 0.92e-3;
constexpr double kEagerHostLayerSInt4 = 0.84e-3;
constexpr double kEagerHostLayerSBnb4 = 1.30e-3;
constexpr double kEagerHostLayerSInt8 = 4.7 * kEagerHostLayerS16;
// Prefill GEMM efficiency. TensorRT-LLM v0.5 first-token latency at 2048
// tokens on A100 (GPT-J 129 ms, Llama-2-7B 133 ms, 70B TP4 377 ms) is
// 0.6-0.65 of 312 TFLOPS; FP8 on H100 (Llama-2-7B 36 ms) ~0.39 of 1979 and
// on L40S (73 ms) ~0.5 of 733. vLLM/SGLang: methodology default 0.5 [E]
// plus chunked-prefill scheduling, 0.55.
constexpr double kTensorrtPrefillFraction = 0.62;
constexpr double kGraphPrefillFraction = 0.55;
constexpr double kGraphFp8PrefillFraction = 0.40;
constexpr double kEagerPrefillFraction = 0.45;

// Weight-only quantized kernels relative to 16-bit streaming at batch 1.
// gpt-fast README: int8 1069 and int4 (g32) 863 GB/s vs 1397 for bf16.
constexpr double kInt8BandwidthFactor = 0.77;
constexpr double kInt4BandwidthFactor = 0.62;
// Marlin README: near-ideal 4x over fp16 up to batch 16-32, so vLLM/SGLang's
// 4-bit kernels stream close to the 16-bit rate.
constexpr double kMarlinBandwidthFactor = 0.90;
// FP8 weight kernels (vLLM / TensorRT-LLM) stream like 16-bit ones.
constexpr double kFp8BandwidthFactor = 0.95;

double formatBandwidthFactor(Engine engine, WeightFormat format) {
    const WeightFormatInfo info = weightFormatInfo(format);
    if (info.fourBit) return graphEngine(engine) ? kMarlinBandwidthFactor : kInt4BandwidthFactor;
    if (format == WeightFormat::Int8 || format == WeightFormat::Int8W8a8) return kInt8BandwidthFactor;
    if (format == WeightFormat::Fp8 || format == WeightFormat::Fp8Block) return kFp8BandwidthFactor;
    return 1.0;
}

bool fp8Weights(WeightFormat format) { return format == WeightFormat::Fp8 || format == WeightFormat::Fp8Block; }

// llama.cpp GGUF types relative to Q4_0 in the same family.
// [M] F16 pp512 runs 1.09x the Q4_0/Q8_0 rate on Metal; [PR] RTX 3090 F16
// pp512 4185 vs Q4_0 3408 t/s = 1.23x on CUDA (cuBLAS FP16 GEMM vs MMQ).
constexpr double kLlamaCppF16PrefillFactorCuda = 1.23;
constexpr double kLlamaCppF16PrefillFactorOther = 1.09;
// K-quants unpack 256-weight super-blocks: M2 Ultra (llama.cpp PR #3084)
// Q4_K_M/Q5_K/Q6_K pp512 at 0.83-0.89 of Q4_0; P40 Q4_K_S 0.93 of Q4_0.
constexpr double kLlamaCppKQuantPrefillFactor = 0.88;

bool kQuant(WeightFormat format) {
    switch (format) {
        case WeightFormat::Q6_K: case WeightFormat::Q5_K_M: case WeightFormat::Q5_K_S:
        case WeightFormat::Q4_K_M: case WeightFormat::Q4_K_S: case WeightFormat::Q3_K_L:
        case WeightFormat::Q3_K_M: case WeightFormat::Q3_K_S: case WeightFormat::Q2_K:
            return true;
        default: return false;
    }
}

bool nvidia(const GpuSpec& gpu) { return gpu.vendor == "nvidia"; }

double rate16(const GpuSpec& gpu, PeakRate& out) {
    if (gpu.supportsBf16 && gpu.bf16Tflops) { out = {*gpu.bf16Tflops, "bf16_tflops"}; return out.tflops; }
    if (gpu.fp16Tflops) { out = {*gpu.fp16Tflops, "fp16_tflops"}; return out.tflops; }
    if (gpu.bf16Tflops) { out = {*gpu.bf16Tflops, "bf16_tflops"}; return out.tflops; }
    if (gpu.fp32Tflops) { out = {*gpu.fp32Tflops, "fp32_tflops"}; return out.tflops; }
    out = {0, "none"};
    return 0;
}

PeakRate llamaCppPeak(const GpuSpec& gpu) {
    PeakRate peak;
    const GpuFamily family = gpuFamily(gpu);
    const bool vectorOnly = family == GpuFamily::NvidiaLegacy || family == GpuFamily::AmdNoMatrix;
    if (vectorOnly && gpu.fp32Tflops) return {*gpu.fp32Tflops, "fp32_tflops"};
    if (nvidia(gpu) && gpu.fp16Acc16Tflops) return {*gpu.fp16Acc16Tflops, "fp16_acc16_tflops"};
    if (gpu.fp16Tflops) return {*gpu.fp16Tflops, "fp16_tflops"};
    rate16(gpu, peak);
    return peak;
}

}  // namespace

// The catalog writes a capability "major.minor" (data/README.md), and
// every candidate plan of a training cell reads it, where atof (strtod)
// cost a tenth of the cell. Such a text is read by hand: its digits as one
// integer over 10^decimals is the correctly rounded double of the decimal,
// which is what strtod returns too. Any other text goes to atof.
double computeCapability(const GpuSpec& gpu) {
    const std::string& text = gpu.computeCapability;
    const std::size_t dot = text.find('.');
    const bool simple = dot != std::string::npos && dot >= 1 && dot <= 3 && text.size() - dot - 1 >= 1 &&
                        text.size() - dot - 1 <= 3;
    if (!simple) return std::atof(text.c_str());
    int digits = 0;
    double scale = 1;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (i == dot) continue;
        if (text[i] < '0' || text[i] > '9') return std::atof(text.c_str());
        digits = digits * 10 + (text[i] - '0');
        if (i > dot) scale *= 10;
    }
    return digits / scale;
}

// Read from the "major.minor" text, a one-digit major under 7: every
// matrix cell's scenario check asks it, where parsing the number cost 2% of
// a pass.
bool belowVolta(const GpuSpec& gpu) {
    const std::string& text = gpu.computeCapability;
    return text.size() >= 3 && text[1] == '.' && text[0] >= '0' && text[0] < '7' &&
           std::string_view(gpu.vendor) == "nvidia";
}

GpuFamily gpuFamily(const GpuSpec& gpu) {
    const std::string& arch = gpu.architecture;
    auto has = [&arch](const char* word) { return arch.find(word) != std::string::npos; };
    if (gpu.vendor == "apple") return GpuFamily::Apple;
    if (gpu.vendor == "amd") {
        if (has("CDNA")) return GpuFamily::AmdCdna;
        if (has("RDNA 3") || has("RDNA3") || has("RDNA 4") || has("RDNA4")) return GpuFamily::AmdRdna;
        return GpuFamily::AmdNoMatrix;
    }
    if (!nvidia(gpu)) return GpuFamily::Other;
    const double cc = computeCapability(gpu);
    if (cc > 0 && cc < 7.0) return GpuFamily::NvidiaLegacy;
    if (gpu.memoryType.rfind("HBM", 0) == 0) return GpuFamily::NvidiaHbm;
    if (gpu.gpuClass == "consumer") return GpuFamily::NvidiaGeforce;
    return GpuFamily::NvidiaWorkstation;
}

const char* toString(GpuFamily family) {
    switch (family) {
        case GpuFamily::NvidiaLegacy: return "NVIDIA without tensor cores";
        case GpuFamily::NvidiaGeforce: return "NVIDIA GeForce";
        case GpuFamily::NvidiaWorkstation: return "NVIDIA workstation / PCIe data-center (GDDR)";
        case GpuFamily::NvidiaHbm: return "NVIDIA HBM data-center";
        case GpuFamily::AmdCdna: return "AMD Instinct (CDNA)";
        case GpuFamily::AmdRdna: return "AMD Radeon (RDNA 3+)";
        case GpuFamily::AmdNoMatrix: return "AMD without matrix cores";
        case GpuFamily::Apple: return "Apple silicon";
        case GpuFamily::Other: return "other vendor";
    }
    return "";
}

namespace {

const EngineRates* heldRates(Engine engine, WeightFormat format, const GpuSpec& gpu) {
    return HeldGpuRates::lookup(engine, format, gpu);
}

}  // namespace

PeakRate matmulPeak(Engine engine, WeightFormat format, const GpuSpec& gpu) {
    if (const EngineRates* held = heldRates(engine, format, gpu)) return held->peak;
    return matmulPeakDirect(engine, format, gpu);
}

PeakRate matmulPeakDirect(Engine engine, WeightFormat format, const GpuSpec& gpu) {
    if (runtimeOf(engine) == Engine::LlamaCpp) return llamaCppPeak(gpu);
    PeakRate peak;
    if (format == WeightFormat::Fp32 && gpu.fp32Tflops) return {*gpu.fp32Tflops, "fp32_tflops"};
    if (fp8Weights(format) && gpu.supportsFp8 && gpu.fp8Tflops) return {*gpu.fp8Tflops, "fp8_tflops"};
    // W8A8 kernels (vLLM / TensorRT-LLM); transformers' LLM.int8() computes in 16-bit.
    const bool int8 = format == WeightFormat::Int8 || format == WeightFormat::Int8W8a8;
    if (int8 && graphEngine(engine) && gpu.int8Tops) return {*gpu.int8Tops, "int8_tops"};
    // MXFP4/NVFP4 on FP4 tensor cores: the catalog has no FP4 rate, so the FP8
    // rate stands in (Blackwell datasheets give FP4 at 2x FP8: a lower bound).
    // Without FP4 tensor cores they run weight-only at the 16-bit rate below.
    const bool fp4 = format == WeightFormat::Mxfp4 || format == WeightFormat::Nvfp4;
    if (fp4 && nativeFp4(gpu) && gpu.fp8Tflops) return {*gpu.fp8Tflops, "fp8_tflops"};
    rate16(gpu, peak);
    return peak;
}

namespace {

// The sourced values above are priors; data/calibration.json scales them
// per group (calibration/calibration.hpp, tools/calibrate).
double priorDecodeBandwidthFraction(Engine engine, WeightFormat format, const GpuSpec& gpu) {
    if (runtimeOf(engine) == Engine::LlamaCpp) return llamaCppConstants(gpu).bandwidthFraction;
    const double base = graphEngine(engine) ? kGraphBandwidthFraction : kEagerBandwidthFraction;
    return base * formatBandwidthFactor(engine, format);
}

double priorDecodeLayerOverheadS(Engine engine, const GpuSpec& gpu) {
    if (runtimeOf(engine) == Engine::LlamaCpp) return llamaCppConstants(gpu).layerOverheadS;
    return graphEngine(engine) ? kGraphLayerOverheadS : kEagerLayerOverheadS;
}

double priorEagerHostLayerS(WeightFormat format) {
    if (format == WeightFormat::Nf4 || format == WeightFormat::Nf4Dq) return kEagerHostLayerSBnb4;
    if (format == WeightFormat::Int8) return kEagerHostLayerSInt8;
    if (weightFormatInfo(format).fourBit) return kEagerHostLayerSInt4;
    return kEagerHostLayerS16;
}

double priorPrefillComputeFraction(Engine engine, WeightFormat format, const GpuSpec& gpu) {
    if (runtimeOf(engine) == Engine::LlamaCpp) {
        double fraction = llamaCppConstants(gpu).prefillFraction;
        if (weightFormatInfo(format).floatFormat) {
            fraction *= nvidia(gpu) ? kLlamaCppF16PrefillFactorCuda : kLlamaCppF16PrefillFactorOther;
        } else if (kQuant(format)) {
            fraction *= kLlamaCppKQuantPrefillFactor;
        }
        return fraction;
    }
    if (fp8Weights(format) && gpu.supportsFp8 && gpu.fp8Tflops) return kGraphFp8PrefillFraction;
    if (runtimeOf(engine) == Engine::TensorrtLlm) return kTensorrtPrefillFraction;
    return graphEngine(engine) ? kGraphPrefillFraction : kEagerPrefillFraction;
}

}  // namespace

double decodeBandwidthFraction(Engine engine, WeightFormat format, const GpuSpec& gpu) {
    if (const EngineRates* held = heldRates(engine, format, gpu)) return held->bandwidthFraction;
    return calibrated(CalibratedConstant::DecodeBandwidthFraction, engine, format, gpu,
                      priorDecodeBandwidthFraction(engine, format, gpu));
}

double decodeLayerOverheadPriorS(Engine engine, const GpuSpec& gpu) { return priorDecodeLayerOverheadS(engine, gpu); }

bool eagerEngine(Engine engine) { return !graphEngine(engine) && runtimeOf(engine) != Engine::LlamaCpp; }

double decodeLayerOverheadS(Engine engine, WeightFormat format, const GpuSpec& gpu) {
    if (const EngineRates* held = heldRates(engine, format, gpu)) return held->layerOverheadS;
    // Eager engines: the GPU's own time per layer stays the sourced prior;
    // their calibrated per-layer constant is the host's time (below).
    if (eagerEngine(engine)) return priorDecodeLayerOverheadS(engine, gpu);
    return calibrated(CalibratedConstant::DecodeLayerOverheadS, engine, format, gpu,
                      priorDecodeLayerOverheadS(engine, gpu));
}

double eagerHostLayerS(Engine engine, WeightFormat format, const GpuSpec& gpu) {
    if (const EngineRates* held = heldRates(engine, format, gpu)) return held->hostLayerS;
    if (!eagerEngine(engine)) return 0;
    return calibrated(CalibratedConstant::DecodeLayerOverheadS, engine, format, gpu, priorEagerHostLayerS(format));
}

double eagerHostLayerPriorS(Engine engine, WeightFormat format) {
    return eagerEngine(engine) ? priorEagerHostLayerS(format) : 0;
}

double prefillComputeFraction(Engine engine, WeightFormat format, const GpuSpec& gpu) {
    if (const EngineRates* held = heldRates(engine, format, gpu)) return held->prefillFraction;
    return calibrated(CalibratedConstant::PrefillComputeFraction, engine, format, gpu,
                      priorPrefillComputeFraction(engine, format, gpu));
}

namespace {

// TensorRT-LLM peak-throughput rows at input/output 128/128 (GPT-J and
// Llama-2-7B, batch 384-1024 on A100 fp16 and H100 fp8) are compute-bound
// in decode and fit 0.8 of the prefill efficiency.
constexpr double kDecodeGemmFactor = 0.8;

}  // namespace

double decodeComputeFraction(Engine engine, WeightFormat format, const GpuSpec& gpu) {
    return kDecodeGemmFactor * prefillComputeFraction(engine, format, gpu);
}

double EngineRates::decodeComputeFraction() const { return kDecodeGemmFactor * prefillFraction; }

EngineRates engineRates(Engine engine, WeightFormat format, const GpuSpec& gpu) {
    if (const EngineRates* held = heldRates(engine, format, gpu)) return *held;
    return {engine, format, matmulPeak(engine, format, gpu), decodeBandwidthFraction(engine, format, gpu),
            decodeLayerOverheadS(engine, format, gpu), eagerHostLayerS(engine, format, gpu),
            prefillComputeFraction(engine, format, gpu)};
}

double dequantOpsPerWeight(WeightFormat format, const GpuSpec& gpu) {
    const WeightFormatInfo info = weightFormatInfo(format);
    if (!info.gguf || info.floatFormat) return 0;
    // [SB] M40 (Maxwell) and K80 (Kepler) lack DP4A and unpack in fp32:
    // Q4_0 tg at 26 and 72 ms per Llama-7B token fit ~27-45 ops per weight.
    if (gpuFamily(gpu) == GpuFamily::NvidiaLegacy && computeCapability(gpu) < 6.1) return 35;
    // [PR]: Q2_K / Q3_K_S decode on the RTX 3090 (35.6 fp32 TFLOPS) and P40
    // (11.8) take 10.8-11.5 ms and 30-32 ms per Llama-7B token, slower than
    // Q4_0 although smaller: both fit ~55-60 ALU operations per weight.
    switch (format) {
        case WeightFormat::Q2_K: case WeightFormat::Q3_K_S: case WeightFormat::Q3_K_M:
        case WeightFormat::Q3_K_L:
            return 55;
        // Simple blocks and the 4-6 bit K-quants stay memory-bound on every
        // family in [SB]/[M]/[PR] (M1 8-core, 2.6 TFLOPS, Q4_0: bandwidth-bound).
        default: return 0;
    }
}

}  // namespace caliper
