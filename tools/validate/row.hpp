#pragma once
// A validation row's structured fields and what it measured: its kind, the
// value in the unit of the result field it is compared with, and that field.
#include <optional>
#include <string>

#include "io/json_read.hpp"
#include "io/validation_mapping.hpp"
#include "io/validation_text.hpp"

namespace caliper::io {

// Thrown while a row is mapped; mapValidationRow turns it into the reason.
struct Unexpressible {
    std::string reason;
};

enum class RowKind { Decode, Prefill, InferenceMemory, FinetuneMemory, TrainMemory, TrainThroughput, Weights, Fits };

struct RowFacts {
    std::string id, kind, model, quant, method, gpu, unit, trust;
    std::optional<double> paramsB, gpuCount, batch, seqLen;
    Json value;
    bool measuredRun = true;  // the row reports a run, not a formula or a vendor figure
};

RowFacts readFacts(const Json& row);
RowKind kindOf(const std::string& kind);  // throws Unexpressible for an unknown kind
bool isInferenceKind(RowKind kind);
bool isMemoryKind(RowKind kind);
bool contains(const std::string& text, const char* word);

// Sets compared, measured, perGpu and lowerBound, and expectFits for fits
// rows. Throws Unexpressible for a value or unit it cannot read.
void setComparison(RowKind kind, const RowFacts& f, const RowSetup& s, RowMapping& m);

}  // namespace caliper::io
