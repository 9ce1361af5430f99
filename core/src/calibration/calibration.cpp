#include "calibration/calibration.hpp"

#include <algorithm>
#include <cmath>

#include "caliper/model/formats.hpp"
#include "speed/efficiency.hpp"
#include "per_thread.hpp"

namespace caliper {

const CalibrationTable& embeddedCalibrationTable();  // io/calibration_json.cpp

namespace {

const CalibrationTable* gOverride = nullptr;

// Largest physical value of each constant. Achieved fractions cannot pass
// the peak; a per-layer time above 20 ms would be slower than any measured
// eager engine (the slowest, bitsandbytes LLM.int8(): ~4.8 ms per layer of
// host time, bitsandbytes issue #347).
constexpr double kMaxLayerOverheadS = 20e-3;

}  // namespace

EngineClass engineClass(Engine engine) {
    switch (runtimeOf(engine)) {
        case Engine::LlamaCpp: return EngineClass::LlamaCpp;
        case Engine::Vllm: case Engine::Sglang: return EngineClass::GraphServing;
        case Engine::TensorrtLlm: return EngineClass::TensorrtLlm;
        default: return EngineClass::Eager;
    }
}

FormatClass formatClass(Engine engine, WeightFormat format) {
    const WeightFormatInfo info = weightFormatInfo(format);
    if (runtimeOf(engine) == Engine::LlamaCpp || info.gguf) return FormatClass::Gguf;
    if (format == WeightFormat::Nf4 || format == WeightFormat::Nf4Dq) return FormatClass::Bnb4;
    if (info.fourBit) return FormatClass::Int4;
    if (format == WeightFormat::Int8) return FormatClass::Int8;
    if (format == WeightFormat::Fp8) return FormatClass::Fp8;
    return FormatClass::Bits16;
}

GpuGroup gpuGroup(const GpuSpec& gpu) {
    const double cc = computeCapability(gpu);
    auto has = [&gpu](const char* word) { return gpu.architecture.find(word) != std::string::npos; };
    switch (gpuFamily(gpu)) {
        case GpuFamily::NvidiaLegacy: return cc >= 6.1 ? GpuGroup::NvidiaLegacyDp4a : GpuGroup::NvidiaLegacy;
        case GpuFamily::NvidiaGeforce: return cc > 0 && cc < 8.0 ? GpuGroup::NvidiaTuring : GpuGroup::NvidiaGeforce;
        case GpuFamily::NvidiaWorkstation:
            return cc > 0 && cc < 8.0 ? GpuGroup::NvidiaTuring : GpuGroup::NvidiaWorkstation;
        case GpuFamily::NvidiaHbm:
            return cc >= 9.0 ? GpuGroup::NvidiaHbmHopper : (cc >= 8.0 ? GpuGroup::NvidiaHbmAmpere : GpuGroup::NvidiaHbmVolta);
        case GpuFamily::AmdCdna: return GpuGroup::AmdCdna;
        case GpuFamily::AmdRdna: return has("RDNA 4") || has("RDNA4") ? GpuGroup::AmdRdna4 : GpuGroup::AmdRdna3;
        case GpuFamily::AmdNoMatrix:
            return gpu.memoryType.rfind("HBM", 0) == 0 ? GpuGroup::AmdNoMatrixHbm : GpuGroup::AmdNoMatrixGddr;
        case GpuFamily::Apple: return gpu.bandwidthGBps >= 800.0 ? GpuGroup::AppleUltra : GpuGroup::Apple;
        case GpuFamily::Other: return GpuGroup::Other;
    }
    return GpuGroup::Other;
}

int gpuFamilyIndex(GpuGroup group) {
    switch (group) {
        case GpuGroup::NvidiaLegacyDp4a: case GpuGroup::NvidiaLegacy: return int(GpuFamily::NvidiaLegacy);
        case GpuGroup::NvidiaTuring: case GpuGroup::NvidiaGeforce: return int(GpuFamily::NvidiaGeforce);
        case GpuGroup::NvidiaWorkstation: return int(GpuFamily::NvidiaWorkstation);
        case GpuGroup::NvidiaHbmVolta: case GpuGroup::NvidiaHbmAmpere: case GpuGroup::NvidiaHbmHopper:
            return int(GpuFamily::NvidiaHbm);
        case GpuGroup::AmdCdna: return int(GpuFamily::AmdCdna);
        case GpuGroup::AmdRdna3: case GpuGroup::AmdRdna4: return int(GpuFamily::AmdRdna);
        case GpuGroup::AmdNoMatrixHbm: case GpuGroup::AmdNoMatrixGddr: return int(GpuFamily::AmdNoMatrix);
        case GpuGroup::Apple: case GpuGroup::AppleUltra: return int(GpuFamily::Apple);
        case GpuGroup::Other: return int(GpuFamily::Other);
    }
    return int(GpuFamily::Other);
}

const char* toString(CalibratedConstant c) {
    switch (c) {
        case CalibratedConstant::DecodeBandwidthFraction: return "decode_bandwidth_fraction";
        case CalibratedConstant::DecodeLayerOverheadS: return "decode_layer_overhead_s";
        case CalibratedConstant::PrefillComputeFraction: return "prefill_compute_fraction";
        case CalibratedConstant::TrainingAllocatorReserve: return "training_allocator_reserve";
        case CalibratedConstant::VaryingLengthLossCopies: return "varying_length_loss_copies";
        case CalibratedConstant::GenerateTransientReserve: return "generate_transient_reserve";
    }
    return "";
}

const char* toString(EngineClass c) {
    switch (c) {
        case EngineClass::LlamaCpp: return "llama.cpp";
        case EngineClass::GraphServing: return "vllm-sglang";
        case EngineClass::TensorrtLlm: return "tensorrt-llm";
        case EngineClass::Eager: return "eager-pytorch";
    }
    return "";
}

const char* toString(FormatClass c) {
    switch (c) {
        case FormatClass::Bits16: return "16-bit";
        case FormatClass::Fp8: return "fp8";
        case FormatClass::Int8: return "int8";
        case FormatClass::Bnb4: return "bnb-nf4";
        case FormatClass::Int4: return "int4-weight-only";
        case FormatClass::Gguf: return "gguf";
    }
    return "";
}

const char* toString(GpuGroup g) {
    switch (g) {
        case GpuGroup::NvidiaLegacyDp4a: return "nvidia-pascal-dp4a";
        case GpuGroup::NvidiaLegacy: return "nvidia-pre-pascal";
        case GpuGroup::NvidiaTuring: return "nvidia-turing-gddr";
        case GpuGroup::NvidiaGeforce: return "nvidia-geforce";
        case GpuGroup::NvidiaWorkstation: return "nvidia-workstation";
        case GpuGroup::NvidiaHbmVolta: return "nvidia-hbm-volta";
        case GpuGroup::NvidiaHbmAmpere: return "nvidia-hbm-ampere";
        case GpuGroup::NvidiaHbmHopper: return "nvidia-hbm-hopper-plus";
        case GpuGroup::AmdCdna: return "amd-cdna";
        case GpuGroup::AmdRdna3: return "amd-rdna3";
        case GpuGroup::AmdRdna4: return "amd-rdna4";
        case GpuGroup::AmdNoMatrixHbm: return "amd-no-matrix-hbm";
        case GpuGroup::AmdNoMatrixGddr: return "amd-no-matrix-gddr";
        case GpuGroup::Apple: return "apple";
        case GpuGroup::AppleUltra: return "apple-ultra";
        case GpuGroup::Other: return "other";
    }
    return "";
}

const char* gpuFamilyName(int family) {
    switch (GpuFamily(family)) {
        case GpuFamily::NvidiaLegacy: return "nvidia-legacy";
        case GpuFamily::NvidiaGeforce: return "nvidia-geforce";
        case GpuFamily::NvidiaWorkstation: return "nvidia-workstation";
        case GpuFamily::NvidiaHbm: return "nvidia-hbm";
        case GpuFamily::AmdCdna: return "amd-cdna";
        case GpuFamily::AmdRdna: return "amd-rdna";
        case GpuFamily::AmdNoMatrix: return "amd-no-matrix";
        case GpuFamily::Apple: return "apple";
        case GpuFamily::Other: return "other";
    }
    return "";
}

int servingEngineIndex(Engine engine) {
    switch (engine) {
        case Engine::Vllm: return int(ServingEngine::Vllm);
        case Engine::Sglang: return int(ServingEngine::Sglang);
        case Engine::TensorrtLlm: return int(ServingEngine::TensorrtLlm);
        default: return -1;
    }
}

GpuGeneration gpuGeneration(const GpuSpec& gpu) {
    // NVIDIA compute capability 9.x: Hopper (H100, H200, H20); 10.x and
    // 12.x: Blackwell (B200, B300, GB200; RTX PRO / GeForce 50).
    const double cc = computeCapability(gpu);
    if (cc >= 10.0) return GpuGeneration::Blackwell;
    if (cc >= 9.0) return GpuGeneration::Hopper;
    return GpuGeneration::Other;
}

const char* toString(ServingConstant c) {
    switch (c) {
        case ServingConstant::LayerTimeS: return "serving_layer_time_s";
        case ServingConstant::KvReadFraction: return "serving_kv_read_fraction";
        case ServingConstant::AllReduceLatencyS: return "serving_allreduce_latency_s";
        case ServingConstant::StepOverheadS: return "serving_step_overhead_s";
        case ServingConstant::RequestOverheadS: return "serving_request_overhead_s";
        case ServingConstant::PrefillTimeFactor: return "serving_prefill_time_factor";
        case ServingConstant::SynchronizedShare: return "serving_synchronized_share";
        case ServingConstant::PerSequenceOverheadS: return "serving_per_sequence_overhead_s";
        case ServingConstant::ExpertTimeS: return "serving_expert_time_s";
        case ServingConstant::AdpBalanceWaitSteps: return "serving_adp_balance_wait_steps";
    }
    return "";
}

const char* toString(ServingEngine e) {
    switch (e) {
        case ServingEngine::Vllm: return "vllm";
        case ServingEngine::Sglang: return "sglang";
        case ServingEngine::TensorrtLlm: return "tensorrt-llm";
    }
    return "";
}

const char* toString(GpuGeneration g) {
    switch (g) {
        case GpuGeneration::Hopper: return "hopper";
        case GpuGeneration::Blackwell: return "blackwell";
        case GpuGeneration::Other: return "other";
    }
    return "";
}

const CalibrationTable& activeCalibration() { return gOverride ? *gOverride : embeddedCalibrationTable(); }

void setCalibrationOverride(const CalibrationTable* table) { gOverride = table; }

const CalibrationTable* calibrationOverride() { return gOverride; }

namespace {

// The matrix asks for several constants of the same GPU in a row, from the
// request's scenario and from the planner's copy of it (a checkpointing
// variant) in turn: the groups (string searches in the architecture name)
// and generations (the compute capability parsed) of the last two GPU
// objects are kept.
struct GpuClasses {
    GpuGroup group = GpuGroup::Other;
    GpuGeneration generation = GpuGeneration::Other;
};

const GpuClasses& cachedGpuClasses(const GpuSpec& gpu) {
    struct Entry {
        const GpuSpec* gpu = nullptr;
        std::string id;
        double bandwidth = -1;
        GpuClasses classes;
    };
    CALIPER_PER_THREAD static Entry entries[2];
    CALIPER_PER_THREAD static int next = 0;
    for (const Entry& e : entries) {
        if (e.gpu == &gpu && e.bandwidth == gpu.bandwidthGBps && e.id == gpu.id) return e.classes;
    }
    Entry& e = entries[next];
    next = 1 - next;
    e.gpu = &gpu;
    e.id = gpu.id;
    e.bandwidth = gpu.bandwidthGBps;
    e.classes.group = gpuGroup(gpu);
    e.classes.generation = gpuGeneration(gpu);
    return e.classes;
}

}  // namespace

double calibrated(CalibratedConstant c, Engine engine, WeightFormat format, const GpuSpec& gpu, double prior) {
    const double scale = activeCalibration().scale[std::size_t(
        CalibrationTable::index(c, engineClass(engine), formatClass(engine, format), cachedGpuClasses(gpu).group))];
    const double value = prior * scale;
    switch (c) {
        case CalibratedConstant::DecodeLayerOverheadS: return std::clamp(value, 0.0, kMaxLayerOverheadS);
        case CalibratedConstant::DecodeBandwidthFraction: return std::clamp(value, 0.01, 1.0);
        // Vector-only GPUs' llama.cpp prior sits above 1: the fp32 peak it is
        // measured against does not count DP4A int8 dot products.
        case CalibratedConstant::PrefillComputeFraction: return std::clamp(value, 0.01, std::max(1.0, prior));
        // A reserve is never negative; the fit's own bound (4x the prior)
        // keeps it below any physical limit.
        case CalibratedConstant::TrainingAllocatorReserve:
        case CalibratedConstant::VaryingLengthLossCopies:
        case CalibratedConstant::GenerateTransientReserve: return std::max(0.0, value);
    }
    return value;
}

const char* toString(TrainingConstant c) {
    switch (c) {
        case TrainingConstant::Fp8GemmSpeedup: return "fp8_gemm_speedup";
        case TrainingConstant::ExpertGemmFixedS: return "expert_gemm_fixed_s";
    }
    return "";
}

TrainingBounds trainingConstantBounds(TrainingConstant c) {
    switch (c) {
        case TrainingConstant::Fp8GemmSpeedup: return {1.0, 2.0};
        case TrainingConstant::ExpertGemmFixedS: return {0.0, 1e-3};
    }
    return {0.0, 0.0};
}

double calibratedTraining(TrainingConstant c, double prior) {
    const double fitted = activeCalibration().training[std::size_t(c)];
    const TrainingBounds b = trainingConstantBounds(c);
    return std::clamp(std::isfinite(fitted) ? fitted : prior, b.low, b.high);
}

namespace {

// Largest physical value of each serving constant: a per-layer or
// all-reduce time above 1 ms, a step's host work above 50 ms or a request's
// fixed latency above 2 s would be slower than any engine measured; the KV
// reads never beat the weights' streaming rate; a share is at most 1.
constexpr double kMaxServingTimeS = 1e-3;
constexpr double kMaxStepOverheadS = 0.05;
constexpr double kMaxRequestOverheadS = 2.0;
// An attention-DP balance wait ends at the engine's timeout (60 steps in
// TensorRT-LLM's DeepSeek configs); steps that carry the other ranks'
// prompts run longer than the decode step it is counted in, so up to four
// timeouts of decode steps.
constexpr double kMaxAdpBalanceWaitSteps = 240;

}  // namespace

double calibratedServing(ServingConstant c, Engine engine, WeightFormat format, const GpuSpec& gpu, double prior) {
    return calibratedServing(c, servingCell(engine, format, gpu), prior);
}

ServingCell servingCell(Engine engine, WeightFormat format, const GpuSpec& gpu) {
    ServingCell cell;
    cell.engine = servingEngineIndex(engine);
    if (cell.engine < 0) return cell;
    cell.generation = cachedGpuClasses(gpu).generation;
    cell.format = formatClass(engine, format);
    return cell;
}

double calibratedServing(ServingConstant c, const ServingCell& cell, double prior) {
    if (cell.engine < 0) return prior;
    const double scale = activeCalibration().servingScale[std::size_t(
        CalibrationTable::servingIndex(c, cell.engine, cell.generation, cell.format))];
    const double value = prior * scale;
    switch (c) {
        case ServingConstant::LayerTimeS:
        case ServingConstant::AllReduceLatencyS: return std::clamp(value, 0.0, kMaxServingTimeS);
        case ServingConstant::KvReadFraction: return std::clamp(value, 0.05, 1.0);
        case ServingConstant::StepOverheadS: return std::clamp(value, 0.0, kMaxStepOverheadS);
        case ServingConstant::RequestOverheadS: return std::clamp(value, 0.0, kMaxRequestOverheadS);
        case ServingConstant::PrefillTimeFactor: return std::clamp(value, 0.1, 10.0);
        case ServingConstant::SynchronizedShare: return std::clamp(value, 0.0, 1.0);
        case ServingConstant::PerSequenceOverheadS:
        case ServingConstant::ExpertTimeS: return std::clamp(value, 0.0, kMaxServingTimeS);
        // Steps of a balance wait: none up to four timeouts (engine_defaults.cpp).
        case ServingConstant::AdpBalanceWaitSteps: return std::clamp(value, 0.0, kMaxAdpBalanceWaitSteps);
    }
    return value;
}

double bandWideningOf(const CalibrationTable& table, const std::string& kind) {
    for (const auto& [k, factor] : table.bandWidening) {
        if (k == kind) return factor;
    }
    return kBandFallbackWidening;
}

std::string bandGroup(const std::string& kind, const Scenario& s) {
    if (kind == "training_speed") {
        std::string g = s.model.moe.experts > 0 ? "moe" : "dense";
        if (s.seqLen >= kLongContextTokens) g += "_long";
        return g;
    }
    if (kind == "finetune_memory" && s.task != Task::Inference) {
        return s.packing || s.task == Task::Pretrain ? "packed" : "varying_lengths";
    }
    return "";
}

int bestBandIndex(const std::vector<CalibrationBand>& bands, const std::string& kind, int engine, int family,
                  const std::string& group, int* rankOut) {
    int best = -1, bestRank = -1;
    for (std::size_t i = 0; i < bands.size(); ++i) {
        const CalibrationBand& b = bands[i];
        if (b.kind != kind) continue;
        int rank = 0;
        if (!b.group.empty()) {
            // A mechanism group's band ranks above every engine x family one.
            if (b.group != group) continue;
            rank = 4;
        } else {
            if ((b.engine >= 0 && b.engine != engine) || (b.family >= 0 && b.family != family)) continue;
            rank = (b.engine >= 0 ? 2 : 0) + (b.family >= 0 ? 1 : 0);
        }
        if (rank > bestRank) { best = int(i); bestRank = rank; }
    }
    if (rankOut) *rankOut = bestRank;
    return best;
}

bool lookupBand(const std::vector<CalibrationBand>& bands, const std::string& kind, int engine, int family,
                double& lowLog, double& highLog, double widening, const std::string& group, int* fell) {
    int bestRank = -1;
    const int bestIndex = bestBandIndex(bands, kind, engine, family, group, &bestRank);
    const CalibrationBand* best = bestIndex >= 0 ? &bands[std::size_t(bestIndex)] : nullptr;
    if (!best) {
        // A memory kind without a band of its own takes every memory kind's
        // (weights, KV cache, activations and overheads are the same terms),
        // one level wider.
        const std::string suffix = "_memory";
        if (kind.size() <= suffix.size() || kind.compare(kind.size() - suffix.size(), suffix.size(), suffix) != 0)
            return false;
        if (!lookupBand(bands, "memory", engine, family, lowLog, highLog)) return false;
        const double centre = 0.5 * (lowLog + highLog), half = 0.5 * (highLog - lowLog) * kBandFallbackWidening;
        lowLog = centre - half;
        highLog = centre + half;
        if (fell) *fell = 1;
        return true;
    }
    // Levels below the kind-wide band: group 0, then engine x family, engine
    // and kind one level further each (one less where no group is asked for).
    int levels = 0;
    if (bestRank < 4) {
        levels = (bestRank == 3 ? 0 : bestRank == 2 ? 1 : 2) - (family >= 0 ? 0 : 1) + (group.empty() ? 0 : 1);
    }
    levels = std::max(0, levels);
    // A family's or group's band from one source: as far from a new source's
    // setups as a band one level wider is from a group it never saw.
    if (best->sources == 1) ++levels;
    if (fell) *fell = levels;
    const double widen = std::pow(widening, levels);
    const double centre = 0.5 * (best->lowLog + best->highLog);
    const double half = 0.5 * (best->highLog - best->lowLog) * widen;
    lowLog = centre - half;
    highLog = centre + half;
    return true;
}

bool calibrationBand(const std::string& kind, Engine engine, const GpuSpec& gpu, double& lowLog, double& highLog,
                     const std::string& group) {
    const CalibrationTable& table = activeCalibration();
    return lookupBand(table.bands, kind, int(engineClass(engine)), gpuFamilyIndex(gpuGroup(gpu)), lowLog, highLog,
                      bandWideningOf(table, kind), group);
}

}  // namespace caliper
