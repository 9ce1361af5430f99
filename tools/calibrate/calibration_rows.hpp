#pragma once
// The measured rows the calibration rests on: each validation row that the
// engine can express, with its request as a typed scenario (for the fit's
// fast path), the compared figure, its source and its calibration group.
#include <array>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "caliper/catalog.hpp"
#include "caliper/result.hpp"
#include "caliper/scenario.hpp"
#include "calibration/calibration.hpp"
#include "serving/evaluator.hpp"

namespace caliper::calibrate {

// How a row's figure is read from a result (the fitted kinds only). Memory:
// a training memory figure that counts the caching allocator's reserves
// (nvidia-smi or max_memory_reserved), linear in their calibrated constants.
// GenerateMemory: the same for an inference memory figure (transformers'
// generate()), linear in its allocator reserve's constant; fitted apart
// from the training reserves. Training: a training speed figure (TFLOP/s,
// tokens/s or MFU per GPU), in proportion to the engine's tokens/s per GPU
// for the row's plan, which the training constants move.
enum class Figure {
    Decode, DecodeWithPrefill, Prefill, FirstToken, Memory, GenerateMemory, ServingTpot, ServingTtft, Training, Other
};

// A serving row's deployment worked out once (plan, memory and the resolved
// scenario do not depend on the serving constants): a fit's trial re-runs
// only the step model and the steady state.
struct ServingProbe {
    Scenario scenario;  // as the planner resolved it
    Plan plan;
    MemoryBreakdown memory;
    std::shared_ptr<serving::Evaluator> evaluator;  // built once, recalibrated per trial
};

struct CalibrationRow {
    std::string id;
    std::string kind;    // as the row names it
    std::string source;  // the source key: the row's `source` up to its first space, no scheme
    double measured = 0;
    Figure figure = Figure::Other;
    bool perGpu = false;
    Scenario scenario;   // Figure::Other rows keep theirs for the band's group only
    std::shared_ptr<const ServingProbe> serving;  // serving figures only
    std::string system;  // serving rows: engine x GPU, the unit left out by the serving cross-validation
    EngineClass engine = EngineClass::Eager;
    FormatClass format = FormatClass::Bits16;
    GpuGroup gpu = GpuGroup::Other;
    bool gpuStated = true;
    std::string bandGroup;  // its band kind's mechanism group (calibration.hpp bandGroup); empty: none
    // Scored, but no constant or band rests on the row when it names its GPU
    // without the variant ("core count not stated": its GPU's figures are a
    // guess) or names an engine the contract has none for (LitGPT: its
    // generate loop is not transformers', so it must not set transformers'),
    // or a model outside the catalog (its shape is assumed from its size:
    // a mixture of experts read as dense is many times too slow).
    bool fitUse = true;
    // Other kinds: the engine's figure through validateRows (their constants
    // are not refitted here, so one evaluation serves in and out of sample).
    std::optional<double> fixedPrediction;
    // Figure::Memory, GenerateMemory: GiB of the figure each calibrated constant's term gave
    // under the priors (scale 1); the figure at other scales adds
    // (scale - 1) x term. Exact while the varying-length and generate()
    // reserves stay under the memory left free (overhead.cpp clamps them there).
    std::array<double, kCalibratedConstants> memoryTermGib{};
    // Figure::Training: the engine's tokens/s per GPU under the priors (the
    // fixed prediction's), and which training constants move it.
    double trainRateAtPriors = 0;
    std::array<bool, kTrainingConstants> readsTraining{};
    std::optional<bool> fitCorrect;  // fits rows and rows that ran on their GPUs
    bool hasError = false;           // a % error applies (not a fits row or a lower bound)
};

struct RowSet {
    std::vector<CalibrationRow> rows;
    std::vector<std::string> files;  // the files read, as given
    int rowsRead = 0;
    int notMeasured = 0;  // "measured": false
    int lowTrust = 0;     // trust low
    std::vector<std::string> notRefitted;  // speed rows whose typed figure disagreed with validateRows
    std::vector<std::pair<std::string, std::string>> unscored;  // id, reason
};

// Reads JSONL texts (file name, text). Never throws on a bad row.
RowSet readCalibrationRows(const Catalog& catalog, const std::vector<std::pair<std::string, std::string>>& files);

// The engine's figure for a fitted row under the active calibration.
std::optional<double> predictFigure(const CalibrationRow& row);

bool fitted(const CalibrationRow& row);  // its figure depends on calibrated constants
bool servingFigure(const CalibrationRow& row);  // a serving figure (fitted by the serving mechanisms)

std::string sourceKey(std::string_view source);

}  // namespace caliper::calibrate
