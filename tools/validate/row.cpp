// The measured side of a validation row: its fields, its unit, and the
// result field its value is compared with.
#include "validate/row.hpp"

#include <cmath>
#include <string_view>

#include "caliper/units.hpp"

namespace caliper::io {

namespace {

std::optional<double> rowNumber(const Json& row, const char* key) {
    const auto it = row.find(key);
    if (it == row.end() || !it->is_number()) return std::nullopt;
    const double v = it->get<double>();
    return std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}

double toGiB(double value, const std::string& unit) {
    if (unit == "gib") return value;
    if (unit == "gb") return gbToGiB(value);
    if (unit == "mib") return value / 1024.0;
    if (unit == "mb") return value * 1e6 / kBytesPerGiB;
    if (unit == "tib") return value * 1024.0;
    if (unit == "tb") return value * 1e12 / kBytesPerGiB;
    throw Unexpressible{"unit '" + unit + "' is not a memory unit"};
}

double measuredNumber(const RowFacts& f) {
    if (!f.value.is_number()) throw Unexpressible{"the value is not a number"};
    const double v = f.value.get<double>();
    if (!std::isfinite(v) || v <= 0) throw Unexpressible{"the value is not a positive number"};
    return v;
}

bool isRateUnit(const std::string& u) {
    return u.rfind("tokens/s", 0) == 0 || u.rfind("token/s", 0) == 0 || u.rfind("tok/s", 0) == 0 ||
           u.rfind("t/s", 0) == 0 || u.rfind("tokens per second", 0) == 0;
}

Compared memoryCompared(MeasuredMemory measured) {
    switch (measured) {
        case MeasuredMemory::Allocated: return Compared::AllocatedMemory;
        case MeasuredMemory::Reserved: return Compared::ReservedMemory;
        case MeasuredMemory::ModelStates: return Compared::ModelStates;
        case MeasuredMemory::Process: break;
    }
    return Compared::TotalMemory;
}

void setThroughputComparison(const RowFacts& f, const RowSetup& s, RowMapping& m) {
    const double v = measuredNumber(f);
    if (contains(f.unit, "mfu") || f.kind == "train_mfu" || ((f.unit == "%" || f.unit == "percent") && s.mentionsMfu)) {
        m.compared = Compared::TrainMfu;
        m.measured = v > 1.5 ? v / 100.0 : v;  // "47" means 47 %
    } else if (contains(f.unit, "tflop")) {
        m.compared = Compared::TrainTflops;
        m.measured = v;
    } else if (isRateUnit(f.unit)) {
        m.compared = Compared::TrainTokens;
        m.measured = v;
        m.perGpu = s.perGpu || contains(f.unit, "/gpu");
    } else {
        throw Unexpressible{"unit '" + f.unit + "' is not a training throughput"};
    }
}

// Serving rows compare with the result's serving object or the engine's
// start-up memory figures, each in the row's own unit.
void setServingComparison(const RowFacts& f, RowMapping& m) {
    const double v = measuredNumber(f);
    m.measured = v;
    if (f.kind == "serving_tpot_ms") m.compared = Compared::ServingTpotMs;
    else if (f.kind == "serving_ttft_ms") m.compared = Compared::ServingTtftMs;
    else if (f.kind == "serving_output_tps_per_gpu") m.compared = Compared::ServingTpsPerGpu;
    else if (f.kind == "kv_cache_tokens") m.compared = Compared::KvCacheTokens;
    else if (f.kind == "max_concurrency") m.compared = Compared::MaxConcurrency;
    else {
        m.measured = toGiB(v, f.unit);
        if (f.kind == "kv_cache_memory") m.compared = Compared::KvPoolGib;
        else if (f.kind == "weights_memory") m.compared = Compared::Weights;
        else if (f.kind == "activation_memory") m.compared = Compared::ActivationsGib;
        else m.compared = Compared::NonTorchGib;
    }
    if ((f.kind == "serving_tpot_ms" || f.kind == "serving_ttft_ms") && f.unit != "ms") {
        throw Unexpressible{"unit '" + f.unit + "' is not ms"};
    }
}

void setFitsComparison(const RowFacts& f, RowMapping& m) {
    m.compared = Compared::Fits;
    std::optional<bool> fits;
    if (f.value.is_boolean()) fits = f.value.get<bool>();
    if (f.value.is_string()) {
        const std::string v = lowerCase(f.value.get<std::string>());
        if (v == "fits" || v == "fit" || v == "yes" || v == "ok" || v == "runs") fits = true;
        if (v == "oom" || v == "no" || v == "does not fit" || v == "out of memory") fits = false;
    }
    if (!fits) throw Unexpressible{"a fits row needs the value \"fits\" or \"OOM\""};
    m.expectFits = fits;
}

}  // namespace

bool contains(const std::string& text, const char* word) { return text.find(word) != std::string::npos; }

RowFacts readFacts(const Json& row) {
    RowFacts f;
    f.id = rowText(row, "id");
    f.kind = rowText(row, "kind");
    f.model = rowText(row, "model");
    f.quant = lowerCase(rowText(row, "quant"));
    f.method = lowerCase(rowText(row, "method"));
    f.gpu = rowText(row, "gpu");
    f.unit = lowerCase(rowText(row, "unit"));
    f.trust = lowerCase(rowText(row, "trust"));
    f.source = rowText(row, "source");
    f.paramsB = rowNumber(row, "params_b");
    f.gpuCount = rowNumber(row, "gpu_count");
    f.batch = rowNumber(row, "batch");
    f.seqLen = rowNumber(row, "seq_len");
    f.engine = lowerCase(rowText(row, "engine"));
    f.engineVersion = rowText(row, "engine_version");
    f.tp = rowNumber(row, "tp");
    f.pp = rowNumber(row, "pp");
    f.ep = rowNumber(row, "ep");
    f.cp = rowNumber(row, "cp");
    f.vp = rowNumber(row, "vp");
    f.globalBatch = rowNumber(row, "global_batch");
    f.isl = rowNumber(row, "isl");
    f.osl = rowNumber(row, "osl");
    f.maxModelLen = rowNumber(row, "max_model_len");
    f.gpuMemoryUtilization = rowNumber(row, "gpu_memory_utilization");
    if (row.contains("value")) f.value = row["value"];
    const bool flaggedNotMeasured =
        row.contains("measured") && row["measured"].is_boolean() && !row["measured"].get<bool>();
    f.measuredRun = !flaggedNotMeasured && f.trust != "estimate";
    return f;
}

namespace {

// The kinds `caliper validate` scores: row kind -> how its value is compared
// (setComparison). v2 renames of a kind share its scorer.
struct KindScorer {
    std::string_view name;
    RowKind kind;
};
constexpr KindScorer kKindScorers[] = {
    {"decode_tps", RowKind::Decode},
    {"prefill_tps", RowKind::Prefill},
    {"inference_memory", RowKind::InferenceMemory},
    {"finetune_memory", RowKind::FinetuneMemory},
    {"train_memory", RowKind::TrainMemory},
    {"train_throughput", RowKind::TrainThroughput},
    {"train_tokens_per_s_per_gpu", RowKind::TrainThroughput},
    {"train_tflops_per_gpu", RowKind::TrainThroughput},
    {"train_mfu", RowKind::TrainThroughput},
    {"weights_size", RowKind::Weights},
    {"fits", RowKind::Fits},
    {"serving_tpot_ms", RowKind::Serving},
    {"serving_ttft_ms", RowKind::Serving},
    {"serving_output_tps_per_gpu", RowKind::Serving},
    {"kv_cache_tokens", RowKind::EngineMemory},
    {"kv_cache_memory", RowKind::EngineMemory},
    {"weights_memory", RowKind::EngineMemory},
    {"activation_memory", RowKind::EngineMemory},
    {"non_torch_memory", RowKind::EngineMemory},
    {"max_concurrency", RowKind::EngineMemory},
};

}  // namespace

RowKind kindOf(const std::string& kind) {
    for (const KindScorer& k : kKindScorers) {
        if (k.name == kind) return k.kind;
    }
    throw Unexpressible{"unknown kind '" + kind + "'"};
}

std::string contractEngine(const std::string& e) {
    if (e.rfind("llama.cpp", 0) == 0 || e == "llama-cpp" || e == "ollama") return "llama.cpp";  // Ollama runs llama.cpp
    if (e == "vllm" || e == "sglang" || e == "transformers" || e == "deepspeed" || e == "fsdp" || e == "megatron")
        return e;
    if (e == "tensorrt-llm" || e == "trtllm" || e == "tensorrt_llm") return "tensorrt-llm";
    if (e == "nemo" || e == "megatron-core" || e == "megatron-bridge") return "megatron";  // NeMo trains with Megatron-Core
    if (e == "llm-foundry") return "fsdp";  // llm-foundry trains with Composer's FSDP
    return "";
}

bool isInferenceKind(RowKind k) {
    return k == RowKind::Decode || k == RowKind::Prefill || k == RowKind::InferenceMemory || k == RowKind::Weights ||
           k == RowKind::Serving || k == RowKind::EngineMemory;
}

bool isMemoryKind(RowKind k) {
    return k == RowKind::InferenceMemory || k == RowKind::FinetuneMemory || k == RowKind::TrainMemory ||
           k == RowKind::Weights;
}
void setComparison(RowKind kind, const RowFacts& f, const RowSetup& s, RowMapping& m) {
    m.lowerBound = s.lowerBound;
    switch (kind) {
        case RowKind::Serving:
        case RowKind::EngineMemory: return setServingComparison(f, m);
        case RowKind::Fits: return setFitsComparison(f, m);
        case RowKind::TrainThroughput: return setThroughputComparison(f, s, m);
        case RowKind::Weights:
            m.compared = Compared::Weights;
            m.measured = toGiB(measuredNumber(f), f.unit);
            return;
        case RowKind::Decode:
        case RowKind::Prefill:
            if (!isRateUnit(f.unit)) throw Unexpressible{"unit '" + f.unit + "' is not tokens/s"};
            m.measured = measuredNumber(f);
            m.perGpu = s.perGpu || contains(f.unit, "gpu");
            if (kind == RowKind::Prefill) m.compared = s.firstTokenLatency ? Compared::FirstToken : Compared::Prefill;
            else m.compared = s.includesPrefill ? Compared::DecodeWithPrefill : Compared::Decode;
            return;
        default:
            m.compared = memoryCompared(s.measured);
            m.measured = toGiB(measuredNumber(f), s.gibPrintedAsGb && f.unit == "gb" ? "gib" : f.unit);
            // A model-states figure is a formula, not a run on the GPU.
            if (m.compared == Compared::ModelStates) m.expectFits.reset();
    }
}

std::string rowText(const Json& row, const char* key) {
    const auto it = row.find(key);
    return it != row.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace caliper::io
