#pragma once
// Honest accuracy: leave-one-source-out. For every source in turn the
// constants are fitted on the rows of all other sources and the left-out
// source's rows are scored; the bands (10th-90th percentile of those
// left-out errors per kind and group) are checked the same way, each
// source's rows against bands made without them.
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "calibration_rows.hpp"
#include "fitter.hpp"

namespace caliper::calibrate {

// The result figure a row kind's band applies to ("decode", "prefill",
// "inference_memory", "finetune_memory", "training_speed", "serving_tpot",
// "serving_ttft"); empty for kinds without a band (fits, weights sizes).
std::string bandKind(const std::string& rowKind);

constexpr int kMinBandRows = 8;

struct KindAccuracy {
    std::string kind;
    bool refitted = false;  // its figure depends on fitted constants
    int rows = 0;           // rows with a % error
    double inMedianPct = 0, inP90Pct = 0;
    double crossMedianPct = 0, crossP90Pct = 0;
    int knownRows = 0;               // rows of setups the engine knows (catalog model, stated GPU, contract engine)
    double knownCrossMedianPct = 0;  // their leave-one-source-out median
    int fitChecks = 0, fitCorrect = 0;
    int bandRows = 0, bandCovered = 0;  // left-out rows with a band, and inside it
    // The same per left-out source (covered, banded), and the mean of the
    // sources' shares: the pooled share leans on the sources with most rows.
    std::map<std::string, std::pair<int, int>> bandBySource;
    double bandSourceMeanPct = 0;
    // The same rows against bands made from every other row, their own
    // source's included (each residual still from the fit without its
    // source): what the bands hold when sources are alike, beside the
    // figure above for a source none of the band's rows came from.
    int rowBandRows = 0, rowBandCovered = 0;
    // Serving kinds: leave-one-(engine x GPU)-out, the serving constants
    // refitted without the row's engine x system.
    int systemRows = 0;
    double systemMedianPct = 0, systemP90Pct = 0;
    // Serving kinds of engines measured on two GPU generations or more:
    // leave-one-(engine x GPU generation)-out.
    int generationRows = 0;
    double generationMedianPct = 0, generationP90Pct = 0;
};

// A serving fold's rows: the indices of every row outside `system` (an
// engine x GPU), so the left-out system's rows enter no level of the fit,
// its engine's family level included.
std::vector<int> rowsOutside(const std::vector<CalibrationRow>& rows, const std::string& system);

// How much wider a serving kind's errors spread when a group's own rows are
// left out and it falls back to its engine's family level: the 10-90%
// width of the leave-one-(engine x GPU)-out residuals over the in-sample
// ones on the same rows (at least 1). A band that falls back a level is
// widened by it (lookupBand), in place of kBandFallbackWidening.
struct BandWidening {
    std::string kind;
    double factor = 1;
    int rows = 0;
};
std::vector<BandWidening> servingBandWidening(const std::vector<CalibrationRow>& rows,
                                              const std::vector<double>& inSampleLog,
                                              const std::vector<double>& systemLog);

// The other band kinds' widening per fallback level, measured like the
// serving kinds' but by leaving each band group out: every row's own band
// (its mechanism group's, else its engine x family's, else its engine's) is
// made without that band's rows, and the row's distance from the centre of
// the band it falls back to, over that band's half width (per level fallen:
// the level-th root), is a scale that band needed. The factor is the 80th
// percentile of those scales (at least 1): the widening at which fallback
// bands hold 80% of the rows of groups they never saw. Kinds with fewer than
// kMinBandRows such rows take kBandFallbackWidening.
std::vector<BandWidening> groupOutWidening(const std::vector<CalibrationRow>& rows, const std::vector<double>& logs,
                                           const std::vector<char>& use);

struct CrossReport {
    FitResult full;                      // fitted on every row
    std::vector<double> inSampleLog;     // ln(pred / measured) per row; NaN where none
    std::vector<double> crossLog;        // the same with the row's source left out of the fit
    std::vector<double> systemLog;       // serving rows: with the row's engine x GPU left out; NaN elsewhere
    std::vector<double> generationLog;   // serving rows: with the row's engine x GPU generation left out; NaN elsewhere
    std::vector<BandWidening> widening;  // per serving kind, then the other band kinds (groupOutWidening)
    // The band each known row was checked against (made without its source): ln(pred / measured) low and high; NaN
    // where none.
    std::vector<double> bandLowLog, bandHighLog;
    std::vector<CalibrationBand> bands;  // from every cross-validated residual
    // The training constants each leave-one-source-out fold fitted (source, constants).
    std::vector<std::pair<std::string, std::vector<FittedTrainingConstant>>> trainingFolds;
    std::vector<KindAccuracy> kinds;
    std::vector<std::pair<std::string, int>> sources;  // source key, rows
    int refits = 0;
    int systemRefits = 0;
    int generationRefits = 0;
    std::vector<std::pair<std::string, std::pair<double, double>>> systemMedians;  // engine x GPU: TPOT, TTFT %
    // Output tokens/s per GPU of the serving rows that give both TTFT and
    // TPOT, by Little's law at their concurrency: C x O / (TTFT + (O-1) TPOT)
    // / GPUs, so its error is the request latency's: in-sample and with the
    // row's engine x GPU left out (median / p90 %).
    int throughputRows = 0;
    double throughputInMedianPct = 0, throughputInP90Pct = 0;
    double throughputSystemMedianPct = 0, throughputSystemP90Pct = 0;
};

CrossReport crossValidate(const RowSet& set);

// The fit/OOM verdict over the rows that state one: fits rows and memory
// rows that ran on their GPUs (training-speed rows, which also ran, are
// left to their own kinds: their plans are the planner's).
std::pair<int, int> fitVerdicts(const CrossReport& report);  // correct, checked

// Bands from residuals (NaN entries skipped) of the rows in `use`.
std::vector<CalibrationBand> makeBands(const std::vector<CalibrationRow>& rows, const std::vector<double>& logs,
                                       const std::vector<char>& use);

double quantileOf(std::vector<double> values, double fraction);

// The quantile a new value falls below with probability `fraction`: with n
// exchangeable residuals a new one lies below the i-th smallest with
// probability i / (n + 1), so the quantile sits at position fraction (n + 1)
// (Hyndman & Fan 1996, type 6). Bands use it because they stand for a row
// not yet seen; the sample quantile above (type 7) narrows small groups'
// tails, and its 10-90% bands held 66% of the left-out decode rows.
double predictionQuantileOf(std::vector<double> values, double fraction);

}  // namespace caliper::calibrate
