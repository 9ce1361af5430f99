#pragma once
// Calibrated constants. The engine's free constants (achieved bandwidth and
// compute fractions, fixed times per layer) keep their sourced values in
// code as priors; tools/calibrate fits a scale on each prior by mechanism and
// group (engine x weight format x GPU family) from the measured validation
// rows and writes data/calibration.json, which is built into the engine.
// The file also holds the 10th-90th percentile bands of the engine's
// cross-validated errors, which the results carry as `ranges`.
#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "caliper/gpu.hpp"
#include "caliper/scenario.hpp"

namespace caliper {

// The memory constants scale the caching allocator's reserves
// (memory/overhead.cpp): in training its fragmentation share of allocated
// memory and the copies of the loss working set kept for steps of other
// lengths; in transformers' generate() the share of the prefill's transient
// blocks that later, larger requests cannot reuse.
enum class CalibratedConstant {
    DecodeBandwidthFraction, DecodeLayerOverheadS, PrefillComputeFraction, TrainingAllocatorReserve,
    VaryingLengthLossCopies, GenerateTransientReserve
};
constexpr int kCalibratedConstants = 6;

// The classes constants are grouped by. llama.cpp's constants are per GPU
// across its GGUF types (the format's own factors stay priors in code).
enum class EngineClass { LlamaCpp, GraphServing, TensorrtLlm, Eager };
constexpr int kEngineClasses = 4;
// 4-bit weight-only kernels differ by family: bitsandbytes NF4 dequantizes
// per matmul in eager engines; GPTQ/AWQ-style int4 runs exllama/Marlin-class
// kernels in serving engines and older GPTQ kernels in eager ones.
enum class FormatClass { Bits16, Fp8, Int8, Bnb4, Int4, Gguf };
constexpr int kFormatClasses = 6;
// GPU groups: the engine's GPU families (engine/efficiency.hpp), split where
// the priors already differ inside a family (compute capability, two-die
// Apple parts, RDNA generation).
enum class GpuGroup {
    NvidiaLegacyDp4a, NvidiaLegacy, NvidiaTuring, NvidiaGeforce, NvidiaWorkstation, NvidiaHbmVolta,
    NvidiaHbmAmpere, NvidiaHbmHopper, AmdCdna, AmdRdna3, AmdRdna4, AmdNoMatrixHbm, AmdNoMatrixGddr, Apple,
    AppleUltra, Other
};
constexpr int kGpuGroups = 16;

EngineClass engineClass(Engine engine);
FormatClass formatClass(Engine engine, WeightFormat format);
GpuGroup gpuGroup(const GpuSpec& gpu);
int gpuFamilyIndex(GpuGroup group);  // the GpuFamily the group belongs to, as an int

const char* toString(CalibratedConstant c);
const char* toString(EngineClass c);
const char* toString(FormatClass c);
const char* toString(GpuGroup g);
const char* gpuFamilyName(int family);  // short names used in calibration.json
constexpr int kGpuFamilies = 9;

// Serving constants (the continuous-batching step model, core/src/serving/)
// are grouped by the serving engine, the GPU generation and the weight
// format: engine x GPU generation x format. Their priors sit in
// serving/engine_defaults.cpp and serving/step_model.cpp.
enum class ServingConstant {
    LayerTimeS,          // fixed GPU time per layer per step (CUDA-graph replayed kernels)
    KvReadFraction,      // paged-attention KV reads' bandwidth / the weights' streaming bandwidth
    AllReduceLatencyS,   // one tensor-parallel all-reduce within NVLink (custom one-shot kernels)
    StepOverheadS,       // host work per step (scheduling, sampling, output)
    RequestOverheadS,    // per request before its first token (API server, tokenizer, streaming)
    PrefillTimeFactor,   // a prompt's prefill latency under serving / the step model's
    SynchronizedShare,   // share of the other users' prompts a new prompt waits behind
    PerSequenceOverheadS, // host work per running request per step (inputs, sampling, outputs)
    ExpertTimeS,         // fixed GPU time per expert a rank holds per MoE layer per step (grouped-GEMM problems)
    AdpBalanceWaitSteps  // decode steps a new prompt waits under attention DP for every rank to hold one
};
constexpr int kServingConstants = 10;
enum class ServingEngine { Vllm, Sglang, TensorrtLlm };
constexpr int kServingEngines = 3;
enum class GpuGeneration { Hopper, Blackwell, Other };
constexpr int kGpuGenerations = 3;

int servingEngineIndex(Engine engine);  // -1: no serving constants (llama.cpp, eager engines)
GpuGeneration gpuGeneration(const GpuSpec& gpu);
const char* toString(ServingConstant c);
const char* toString(ServingEngine e);
const char* toString(GpuGeneration g);

// A band: the 10th and 90th percentiles of ln(predicted / measured) over
// left-out rows of one kind, engine class and GPU family (-1 = any), or of
// one kind and mechanism group (bandGroup; engine and family any).
struct CalibrationBand {
    std::string kind;  // decode_tps, prefill_tps, inference_memory, finetune_memory, ...
    int engine = -1;   // EngineClass, -1 any
    int family = -1;   // GpuFamily, -1 any
    double lowLog = 0;
    double highLog = 0;
    int rows = 0;
    std::string group;  // bandGroup's mechanism group; empty: any
    // A GPU family's or a mechanism group's band: the sources its rows come
    // from (0 on engine and kind bands, which are not counted). A band of one
    // source is widened one fallback level (lookupBand): one source's spread
    // says nothing of how far another source's setups sit from it.
    int sources = 0;
};

// Training-speed constants fitted by value (not as a scale on a prior),
// each on its own mechanism group of training rows, inside its physical
// bounds (trainingConstantBounds): the FP8 GEMM's speed over the 16-bit
// one (training/training_efficiency.cpp) and the fixed time per local
// expert per MoE layer (training/moe_step.cpp).
enum class TrainingConstant { Fp8GemmSpeedup, ExpertGemmFixedS };
constexpr int kTrainingConstants = 2;
const char* toString(TrainingConstant c);
// Physical bounds: FP8's dense tensor peak is twice the 16-bit one on every
// FP8 GPU (H100 SXM 1979 / 989 TFLOP/s, NVIDIA H100 datasheet), so its GEMM
// runs between 1x and 2x; a fixed cost per expert of 0 to 1 ms (1 ms is
// ~200 separate kernel launches of ~5 us, more than an expert's GEMMs,
// permute and FP8 casts take).
struct TrainingBounds {
    double low, high;
};
TrainingBounds trainingConstantBounds(TrainingConstant c);

struct CalibrationTable {
    // Scale on each prior, per constant and group, fallbacks already applied.
    std::array<double, kCalibratedConstants * kEngineClasses * kFormatClasses * kGpuGroups> scale;
    std::array<double, kServingConstants * kServingEngines * kGpuGenerations * kFormatClasses> servingScale;
    std::vector<CalibrationBand> bands;
    // Per kind, the widening of a band for each level it falls back, where
    // the cross-validation measured one (the serving kinds); the others take
    // kBandFallbackWidening.
    std::vector<std::pair<std::string, double>> bandWidening;
    // Fitted training constants (trainingConstantBounds); NaN: the code's prior.
    std::array<double, kTrainingConstants> training;
    CalibrationTable() {
        scale.fill(1.0);
        servingScale.fill(1.0);
        training.fill(std::numeric_limits<double>::quiet_NaN());
    }
    static int index(CalibratedConstant c, EngineClass e, FormatClass f, GpuGroup g) {
        return ((int(c) * kEngineClasses + int(e)) * kFormatClasses + int(f)) * kGpuGroups + int(g);
    }
    static int servingIndex(ServingConstant c, int engine, GpuGeneration g, FormatClass f) {
        return ((int(c) * kServingEngines + engine) * kGpuGenerations + int(g)) * kFormatClasses + int(f);
    }
};

// The table in use: data/calibration.json as built in, unless a fit or a
// cross-validation run has set its own (nullptr restores the built-in one).
const CalibrationTable& activeCalibration();
void setCalibrationOverride(const CalibrationTable* table);
const CalibrationTable* calibrationOverride();

// Sets a table for the life of the object, then restores the one before.
class ScopedCalibration {
public:
    explicit ScopedCalibration(const CalibrationTable* table) : previous_(calibrationOverride()) {
        setCalibrationOverride(table);
    }
    ~ScopedCalibration() { setCalibrationOverride(previous_); }
    ScopedCalibration(const ScopedCalibration&) = delete;
    ScopedCalibration& operator=(const ScopedCalibration&) = delete;

private:
    const CalibrationTable* previous_;
};

// prior x the group's fitted scale, kept inside the constant's physical
// bounds (fractions in (0, 1], times >= 0, reserves >= 0).
double calibrated(CalibratedConstant c, Engine engine, WeightFormat format, const GpuSpec& gpu, double prior);

// A training constant: the table's fitted value where it has one, else the
// prior, inside the constant's physical bounds.
double calibratedTraining(TrainingConstant c, double prior);

// A serving constant: prior x its group's fitted scale, inside the
// constant's physical bounds; the prior alone for engines without serving
// constants.
double calibratedServing(ServingConstant c, Engine engine, WeightFormat format, const GpuSpec& gpu, double prior);
// The table cell a scenario's serving constants come from, worked out once
// where one scenario reads several of them (the GPU's generation parses its
// compute capability); engine -1: no serving constants.
struct ServingCell {
    int engine = -1;
    GpuGeneration generation = GpuGeneration::Other;
    FormatClass format{};
};
ServingCell servingCell(Engine engine, WeightFormat format, const GpuSpec& gpu);
double calibratedServing(ServingConstant c, const ServingCell& cell, double prior);

// A band that falls back (a group without enough rows of its own takes its
// engine's or its kind's) is widened about its centre for each level it
// falls back: fewer rows alike, less certainty. The serving kinds' factor is
// measured (CalibrationTable::bandWidening); the others take this one.
constexpr double kBandFallbackWidening = 1.25;

// The mechanism group a band kind's errors spread by, where its setups
// differ in what the estimate cannot know (empty: none). Training speed:
// "moe" (routed experts: routing balance, all-to-all and grouped-GEMM
// sizes) or dense, and "_long" from 32k tokens per sequence (attention,
// quadratic in the context and split by context parallelism, is ~40% of a
// dense 7B model's FLOPs at 32k with causal masking: 6 L s d = 6 x 32 x 4096
// x 32768 = 25.8 GFLOP per token beside 6 N = 40 GFLOP). Fine-tuning
// memory: "packed" (every step allocates the same blocks: no cache of other
// lengths) or "varying_lengths" (the cached blocks of earlier steps of other
// lengths depend on the data set's length mix, which the request does not
// state; memory/overhead.cpp).
std::string bandGroup(const std::string& bandKind, const Scenario& s);
constexpr std::int64_t kLongContextTokens = 32768;

// The band of ln(predicted / measured) for a kind on an engine class and GPU
// family (-1: not known), in a mechanism group (empty: none): the most
// specific one with rows (the group's, then engine x family, engine, kind),
// widened by `widening` per level when it falls back, and one level more
// when that band rests on one source (CalibrationBand::sources); `fell`
// receives the levels. False when the kind has none.
// The index in `bands` of the band lookupBand starts from (-1: none), and its
// rank: 4 the group's, 3 engine x family, 2 engine, 0 the kind's.
int bestBandIndex(const std::vector<CalibrationBand>& bands, const std::string& kind, int engine, int family,
                  const std::string& group, int* rank = nullptr);
bool lookupBand(const std::vector<CalibrationBand>& bands, const std::string& kind, int engine, int family,
                double& lowLog, double& highLog, double widening = kBandFallbackWidening,
                const std::string& group = std::string(), int* fell = nullptr);
// The kind's widening per fallback level in `table`: its measured one, else
// kBandFallbackWidening.
double bandWideningOf(const CalibrationTable& table, const std::string& kind);
bool calibrationBand(const std::string& kind, Engine engine, const GpuSpec& gpu, double& lowLog, double& highLog,
                     const std::string& group = std::string());

}  // namespace caliper
