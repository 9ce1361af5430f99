#pragma once
// Fitting the calibrated constants: scales on the engine's priors, by
// mechanism (decode: bandwidth fraction and per-layer time; prefill: compute
// fraction) and group, from the most general group to the most specific:
//   engine class -> engine x format -> engine x format x GPU family
//   -> engine x format x GPU group.
// A group is fitted only when it has enough rows of its own; otherwise it
// keeps the scale of the group above it (its fallback).
#include <string>
#include <vector>

#include "calibration_rows.hpp"

namespace caliper::calibrate {

enum class Level { Engine, Format, Family, Group };
const char* toString(Level level);

struct FittedConstant {
    CalibratedConstant constant;
    Level level;
    EngineClass engine;
    int format = -1;  // FormatClass, -1 any
    int family = -1;  // GPU family index, -1 any
    int group = -1;   // GpuGroup, -1 any
    double scale = 1;
    std::vector<std::string> rowIds;  // the rows it rests on
    std::vector<std::string> sources;
    double medianAbsLogBefore = 0;  // the group's rows before and after its own fit
    double medianAbsLogAfter = 0;
};

// Serving constants: by serving engine, then engine x GPU generation, then
// engine x GPU generation x weight format (-1: any).
enum class ServingLevel { Engine, Generation, Format };
const char* toString(ServingLevel level);

struct FittedServingConstant {
    ServingConstant constant;
    ServingLevel level;
    int engine = 0;       // ServingEngine
    int generation = -1;  // GpuGeneration, -1 any
    int format = -1;      // FormatClass, -1 any
    double scale = 1;
    std::vector<std::string> rowIds;
    std::vector<std::string> sources;
    double medianAbsLogBefore = 0;
    double medianAbsLogAfter = 0;
};

// Host-side serving constants (per step, per request, per running request)
// and the request latency's factors: the same on any GPU the engine runs.
bool gpuIndependent(ServingConstant c);

// A training constant, fitted by value inside its physical bounds on one
// mechanism group of training speed rows (every engine and GPU; the
// constants are the GEMMs' and kernels', not a framework's): the FP8 GEMM
// speed-up on the dense FP8 rows (the rows FP8 alone moves), then the fixed
// time per local expert on the MoE rows (over the speed-up just fitted).
// Fitted, like an engine-level group, where the group has kRowsPerParameter
// rows and two setups (from one source or more: a fold that leaves out one
// of the two FP8 sources still fits on the other); otherwise the code's
// prior stays.
struct FittedTrainingConstant {
    TrainingConstant constant;
    double value = 0;
    double low = 0, high = 0;  // the physical bounds searched
    std::vector<std::string> rowIds;
    std::vector<std::string> sources;
    double medianAbsLogBefore = 0;  // at the prior, and at the fitted value
    double medianAbsLogAfter = 0;
};

struct FitResult {
    std::vector<FittedConstant> constants;
    std::vector<FittedTrainingConstant> training;
    std::vector<FittedServingConstant> serving;
    CalibrationTable table;  // the constants applied (bands empty)
};

// Fits on the rows whose index is in `use` (all fitted rows when empty).
// withServing false leaves the serving constants at their priors (a fold
// whose left-out rows have no serving figure does not read them).
FitResult fitConstants(const std::vector<CalibrationRow>& rows, const std::vector<int>& use, bool withServing = true);

// Refits only the serving constants on the rows in `use`, over `base`
// (whose speed constants stay): the serving cross-validation's folds.
FitResult fitServingConstants(const std::vector<CalibrationRow>& rows, const std::vector<int>& use,
                              const CalibrationTable& base);

// Lowest rows a group needs per fitted parameter, and how many distinct
// setups (model x format x batch) among them.
constexpr int kRowsPerParameter = 3;
constexpr int kMinDistinctSetups = 2;
constexpr int kMinSourcesBelowEngine = 2;
// A serving group below the engine rests on two GPU systems and two models at
// least: one deployment's or one model's quirks are not its group's. The
// engine level is the family every group without rows of its own falls back
// to (an unseen GPU, a left-out one): it rests on all the engine's rows, from
// one GPU system or more, and two models. Its scales are on GPU-independent
// forms (fractions of a peak, ratios, host times; the layer time's prior
// carries the GPU), so they carry to any GPU; from one GPU system it fits
// only the constants that do not depend on the GPU (gpuIndependent). The
// band of a GPU that falls back to it is widened by the factor
// cross_validation.hpp measures (servingBandWidening).
constexpr int kMinServingSystems = 2;
constexpr int kMinServingFamilySystems = 1;
constexpr int kMinServingModels = 2;

}  // namespace caliper::calibrate
