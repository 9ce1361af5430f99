#pragma once
// A validation row's structured fields and what it measured: its kind, the
// value in the unit of the result field it is compared with, and that field.
#include <optional>
#include <string>

#include "json/json_read.hpp"
#include "validate/mapping.hpp"
#include "validate/text.hpp"

namespace caliper::io {

// Thrown while a row is mapped; mapValidationRow turns it into the reason.
struct Unexpressible {
    std::string reason;
};

enum class RowKind {
    Decode, Prefill, InferenceMemory, FinetuneMemory, TrainMemory, TrainThroughput, Weights, Fits,
    Serving,       // serving_tpot_ms, serving_ttft_ms, serving_output_tps_per_gpu: continuous batching at `batch`
    EngineMemory   // kv_cache_tokens, kv_cache_memory, weights_memory, ...: a serving engine's start-up profile
};

struct RowFacts {
    std::string id, kind, model, quant, method, gpu, unit, trust, source;
    std::optional<double> paramsB, gpuCount, batch, seqLen;
    // Structured setup keys of v2 rows (validation/README.md), read before
    // any free text: the engine as the source names it, parallel degrees,
    // input / output tokens per request, vLLM's pool settings.
    std::string engine, engineVersion;
    std::optional<double> tp, pp, ep, cp, vp, isl, osl, maxModelLen, gpuMemoryUtilization;
    std::optional<double> globalBatch;  // sequences per optimizer step (training rows)
    Json value;
    bool measuredRun = true;  // the row reports a run, not a formula or a vendor figure
};

RowFacts readFacts(const Json& row);
// The kind -> scorer table: throws Unexpressible for a kind with no scorer
// (an unknown kind, or one listed in row.cpp as read but not scored yet).
RowKind kindOf(const std::string& kind);
// The engine request name for a row's `engine` key, empty when the contract
// has no engine for it (the free text then decides, as for v1 rows).
std::string contractEngine(const std::string& rowEngine);
bool isInferenceKind(RowKind kind);
bool isMemoryKind(RowKind kind);
bool contains(const std::string& text, const char* word);

// Sets compared, measured, perGpu and lowerBound, and expectFits for fits
// rows. Throws Unexpressible for a value or unit it cannot read.
void setComparison(RowKind kind, const RowFacts& f, const RowSetup& s, RowMapping& m);

}  // namespace caliper::io
