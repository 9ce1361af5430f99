#pragma once
// Scoring the engine against measured rows (validation/public.jsonl format):
// each row becomes a request, runs through estimateJson like any other
// request, and its measured value is compared with the matching result field.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "caliper/catalog.hpp"

namespace caliper {

struct ValidationRowScore {
    std::string id;
    std::string kind;   // as the row names it: decode_tps, finetune_memory, fits, ...
    std::string group;  // kind / engine / weight-format family / GPU vendor and architecture
    std::string trust;  // the row's own trust label
    double measured = 0;   // in the compared unit (GiB, tokens/s, TFLOP/s, MFU fraction)
    double predicted = 0;  // the engine's figure in the same unit
    double errorPct = 0;     // (predicted - measured) / measured x 100; 0 for fits rows
    double absErrorPct = 0;
    bool hasPrediction = true;  // false: the engine gave no figure (the row is listed as unscored)
    bool hasError = false;    // false for fits rows and lower-bound rows (no % error)
    bool lowerBound = false;  // the row is a minimum, not a measurement
    bool boundMet = false;    // lowerBound rows: predicted >= measured
    std::optional<bool> fitCorrect;  // the row says fits/OOM, or it ran on the stated GPUs
};

struct ValidationStats {
    std::string name;  // kind or group
    int rows = 0;      // rows of this kind read, scored or not (kinds only)
    int count = 0;     // rows with a % error
    double medianAbsErrorPct = 0;
    double p90AbsErrorPct = 0;
    double medianErrorPct = 0;  // signed: > 0 means the engine predicts high
    int fitChecks = 0;
    int fitCorrect = 0;
    int boundChecks = 0;
    int boundsMet = 0;
};

struct UnscoredRow {
    std::string id;
    std::string kind;
    std::string reason;
};

struct ValidationReport {
    int rowsRead = 0;  // non-blank lines
    std::vector<ValidationRowScore> scores;
    std::vector<ValidationStats> kinds;   // in first-seen order
    std::vector<ValidationStats> groups;  // sorted by kind, then worst median first
    std::vector<UnscoredRow> unscored;    // rows that could not be expressed or gave no figure
};

// One file of rows: its name (prefixed to "line N" for rows without an id;
// empty for none) and its JSON lines.
struct ValidationSource {
    std::string name;
    std::string_view text;
};

// Never throws on bad rows: each one lands in `unscored` with its reason.
ValidationReport validateRows(const Catalog& catalog, std::string_view jsonlText);
// Several files scored as one set of rows, in the order given.
ValidationReport validateRows(const Catalog& catalog, const std::vector<ValidationSource>& sources);

// Linear interpolation between closest ranks (the common "type 7" quantile):
// fraction 0.5 is the median. Empty input gives 0.
double quantile(std::vector<double> values, double fraction);

// Per-kind and per-group statistics of scored rows.
std::vector<ValidationStats> statsBy(const std::vector<ValidationRowScore>& scores, bool byGroup);

// The families the closing line reports: "memory" (inference, fine-tune and
// training memory), "decode", "prefill", "training", "weights", "fits".
ValidationStats familyStats(const std::vector<ValidationRowScore>& scores, std::string_view family);

}  // namespace caliper
