// validateRows: every row goes through estimateJson, the public door, and
// its measured value is compared with the result field it measures.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "caliper/api.hpp"
#include "caliper/error.hpp"
#include "validate/validation.hpp"
#include "json/json_read.hpp"
#include "validate/mapping.hpp"
#include "validate/text.hpp"

namespace caliper {

namespace {

using io::Compared;
using io::Json;
using io::RowMapping;

struct Prediction {
    std::optional<double> value;
    std::string missing;  // the result field that was null
};

// A member object of a result, or an empty object when it has none.
const Json& part(const Json& object, const char* key) {
    static const Json kEmpty = Json::object();
    const auto it = object.find(key);
    return it != object.end() && it->is_object() ? *it : kEmpty;
}

double number(const Json& object, const char* key) {
    const auto it = object.find(key);
    return it != object.end() && it->is_number() ? it->get<double>() : 0.0;
}

std::optional<double> optionalNumber(const Json& object, const char* key) {
    const auto it = object.find(key);
    if (it == object.end() || !it->is_number()) return std::nullopt;
    return it->get<double>();
}

// The dense tensor peak MFU is measured against, in the run's precision.
double densePeakTflops(const GpuSpec& gpu, const std::string& weights) {
    if (weights == "fp8" && gpu.fp8Tflops) return *gpu.fp8Tflops;
    if (weights == "fp16" && gpu.fp16Tflops) return *gpu.fp16Tflops;
    return denseTensorTflops16(gpu);
}

// Output tokens over the time to prefill every prompt and generate every token.
std::optional<double> endToEndOutputRate(const Json& result) {
    const Json& s = part(result, "scenario");
    const double batch = number(s, "batch"), prompt = number(s, "prompt_tokens"), output = number(s, "output_tokens");
    const auto decode = optionalNumber(result, "decode_tokens_per_s");
    const auto prefill = optionalNumber(result, "prefill_tokens_per_s");
    if (!decode || *decode <= 0 || (prompt > 0 && (!prefill || *prefill <= 0))) return std::nullopt;
    const double seconds = batch * output / *decode + (prompt > 0 ? batch * prompt / *prefill : 0.0);
    return seconds > 0 ? std::optional<double>(batch * output / seconds) : std::nullopt;
}

std::optional<double> firstTokenRate(const Json& result) {
    const Json& s = part(result, "scenario");
    const auto ttft = optionalNumber(result, "time_to_first_token_s");
    if (!ttft || *ttft <= 0) return std::nullopt;
    return number(s, "prompt_tokens") * std::max(1.0, number(s, "batch")) / *ttft;
}

// Model TFLOP/s per GPU as the row's source counts model FLOPs: the
// engine's tokens/s per GPU times the source's FLOPs per token, or the
// engine's own figure where the row names no definition.
std::optional<double> modelTflopsPerGpu(const Json& result, const RowMapping& m) {
    if (!m.sourceFlopsPerToken) return optionalNumber(result, "train_tflops_per_gpu");
    const auto tokens = optionalNumber(result, "train_tokens_per_s");
    if (!tokens) return std::nullopt;
    return *tokens / std::max(1.0, number(result, "gpu_count")) * *m.sourceFlopsPerToken / 1e12;
}

std::optional<double> mfu(const Catalog& catalog, const Json& result, const RowMapping& m) {
    const auto tflops = modelTflopsPerGpu(result, m);
    const GpuSpec* gpu = findGpu(catalog, part(result, "gpu").value("id", ""));
    if (!tflops || !gpu) return std::nullopt;
    const double peak = densePeakTflops(*gpu, part(result, "scenario").value("weights", ""));
    return peak > 0 ? std::optional<double>(*tflops / peak) : std::nullopt;
}

// Memory outside PyTorch's allocator, as the result's explain itemizes it:
// the CUDA context and NCCL's own buffers; with allocatedOnly, also what the
// caching allocator keeps reserved beyond live tensors: its fragmentation
// reserve and the cached blocks of earlier steps of other lengths
// (torch.cuda.max_memory_allocated counts live tensors only,
// max_memory_reserved counts the cache too).
double outsideTorch(const Json& result, bool allocatedOnly) {
    const Json& parts = part(part(result, "memory"), "overhead_parts");
    double gib = number(parts, "cuda_context_gib") + number(parts, "nccl_buffers_gib");
    if (allocatedOnly) gib += number(parts, "allocator_reserve_gib") + number(parts, "varying_length_reserve_gib");
    return gib;
}

Prediction memoryPrediction(const Json& result, Compared compared) {
    const Json& m = part(result, "memory");
    switch (compared) {
        case Compared::AllocatedMemory: return {number(m, "total_gib") - outsideTorch(result, true), ""};
        case Compared::ReservedMemory: return {number(m, "total_gib") - outsideTorch(result, false), ""};
        case Compared::ModelStates:
            return {number(m, "weights_gib") + number(m, "gradients_gib") + number(m, "optimizer_gib") +
                        number(m, "adapter_gib"),
                    ""};
        case Compared::Weights: return {number(m, "weights_gib"), ""};
        default: return {number(m, "total_gib"), ""};
    }
}

// A figure of the result's serving object (null when the engine gave none).
Prediction servingFigure(const Json& result, const char* key, double scale) {
    const auto it = result.find("serving");
    if (it == result.end() || !it->is_object()) return {std::nullopt, "serving"};
    const std::optional<double> v = optionalNumber(*it, key);
    return v ? Prediction{*v * scale, ""} : Prediction{std::nullopt, std::string("serving.") + key};
}

Prediction predict(const Catalog& catalog, const Json& result, const RowMapping& m) {
    const double perGpu = m.perGpu ? std::max(1.0, number(result, "gpu_count")) : 1.0;
    auto rate = [&](const std::optional<double>& v, const char* field) {
        return v ? Prediction{*v / perGpu, ""} : Prediction{std::nullopt, field};
    };
    switch (m.compared) {
        case Compared::Decode: return rate(optionalNumber(result, "decode_tokens_per_s"), "decode_tokens_per_s");
        case Compared::DecodeWithPrefill: return rate(endToEndOutputRate(result), "decode_tokens_per_s");
        case Compared::Prefill: return rate(optionalNumber(result, "prefill_tokens_per_s"), "prefill_tokens_per_s");
        case Compared::FirstToken: return rate(firstTokenRate(result), "time_to_first_token_s");
        case Compared::TrainTokens: return rate(optionalNumber(result, "train_tokens_per_s"), "train_tokens_per_s");
        case Compared::TrainTflops: return rate(modelTflopsPerGpu(result, m), "train_tflops_per_gpu");
        case Compared::TrainMfu: return {mfu(catalog, result, m), "train_tflops_per_gpu"};
        case Compared::Fits: return {number(part(result, "memory"), "total_gib"), ""};
        case Compared::ServingTpotMs: return servingFigure(result, "tpot_ms", 1.0);
        case Compared::ServingTtftMs: return servingFigure(result, "ttft_s", 1e3);
        case Compared::ServingTpsPerGpu: return servingFigure(result, "output_tokens_per_s_per_gpu", 1.0);
        case Compared::KvCacheTokens: return servingFigure(result, "kv_cache_tokens", 1.0);
        case Compared::MaxConcurrency: return servingFigure(result, "max_concurrency", 1.0);
        case Compared::KvPoolGib: return servingFigure(result, "kv_pool_gib", 1.0);
        case Compared::NonTorchGib: return servingFigure(result, "non_torch_gib", 1.0);
        case Compared::ActivationsGib: return {number(part(result, "memory"), "activations_gib"), ""};
        default: return memoryPrediction(result, m.compared);
    }
}

std::string formatFamily(const std::string& weights) {
    if (weights.size() > 1 && (weights[0] == 'Q' || weights[0] == 'q') &&
        std::isdigit(static_cast<unsigned char>(weights[1]))) {
        return std::string("gguf-q") + weights[1];
    }
    if (weights == "bf16" || weights == "fp16") return "16-bit";
    if (weights == "nf4" || weights == "nf4-dq") return "nf4";
    if (weights == "gptq-int4" || weights == "awq-int4") return "int4";
    return weights;
}

// "nvidia-ampere", "amd-rdna-3", "apple-m2": the vendor and the architecture
// without its die notes ("Ampere (GA102)") or a trailing "GPU".
std::string gpuFamily(const GpuSpec& gpu) {
    std::string arch = io::lowerCase(gpu.architecture.substr(0, gpu.architecture.find('(')));
    std::string family = gpu.vendor;
    std::string word;
    std::istringstream words(arch);
    while (words >> word) {
        if (word != gpu.vendor && word != "gpu") family += "-" + word;
    }
    return family;
}

std::string groupOf(const Catalog& catalog, const std::string& kind, const Json& result, const RowMapping& m) {
    const Json& s = part(result, "scenario");
    const GpuSpec* gpu = m.gpuStated ? findGpu(catalog, part(result, "gpu").value("id", "")) : nullptr;
    return kind + " / " + s.value("engine", "?") + " / " + formatFamily(s.value("weights", "?")) + " / " +
           (gpu ? gpuFamily(*gpu) : "any-gpu");
}

std::string noFigureReason(const Json& result, const std::string& field) {
    std::string reason = "no prediction: the engine gives no " + field;
    if (result.value("fits", true) == false) {
        char text[96];
        std::snprintf(text, sizeof text, " (it says the setup does not fit: %.1f GiB per GPU)",
                      number(part(result, "memory"), "total_gib"));
        reason += text;
    }
    return reason;
}

std::string rejectionReason(const Json& result) {
    const Json& e = part(result, "error");
    return "the engine rejected the request: " + e.value("code", std::string("?")) + " at '" +
           e.value("path", std::string()) + "': " + e.value("message", std::string());
}

void scoreRow(const Catalog& catalog, const Json& row, const std::string& id, ValidationReport& report) {
    const std::string kind = io::rowText(row, "kind");
    const io::MappingOutcome outcome = io::mapValidationRow(catalog, row);
    if (!outcome.mapping) return report.unscored.push_back({id, kind, outcome.reason});
    const RowMapping& m = *outcome.mapping;
    const ApiResponse response = estimateJson(catalog, m.request.dump());
    const Json result = Json::parse(response.json, nullptr, false);
    if (response.status != 0 || result.is_discarded())
        return report.unscored.push_back({id, kind, rejectionReason(result)});
    ValidationRowScore score;
    score.id = id;
    score.kind = kind;
    score.trust = io::rowText(row, "trust");
    score.group = groupOf(catalog, kind, result, m);
    score.measured = m.measured;
    if (m.expectFits) score.fitCorrect = result.value("fits", false) == *m.expectFits;
    const Prediction p = predict(catalog, result, m);
    if (!p.value) {
        report.unscored.push_back({id, kind, noFigureReason(result, p.missing)});
        score.hasPrediction = false;  // kept only for its fit check
        if (score.fitCorrect) report.scores.push_back(score);
        return;
    }
    score.predicted = *p.value;
    score.lowerBound = m.lowerBound;
    score.boundMet = m.lowerBound && score.predicted >= score.measured;
    score.hasError = m.compared != Compared::Fits && !m.lowerBound && m.measured > 0;
    if (score.hasError) {
        score.errorPct = (score.predicted - score.measured) / score.measured * 100.0;
        score.absErrorPct = std::fabs(score.errorPct);
    }
    report.scores.push_back(score);
}

void countRowsPerKind(ValidationReport& report) {
    auto statsFor = [&](const std::string& kind) -> ValidationStats& {
        for (ValidationStats& k : report.kinds) {
            if (k.name == kind) return k;
        }
        report.kinds.emplace_back();
        report.kinds.back().name = kind;
        return report.kinds.back();
    };
    for (const auto& s : report.scores) {
        if (s.hasPrediction) ++statsFor(s.kind).rows;
    }
    for (const auto& u : report.unscored) ++statsFor(u.kind.empty() ? "(unreadable)" : u.kind).rows;
}

void scoreRows(const Catalog& catalog, const ValidationSource& source, ValidationReport& report) {
    const std::string_view jsonlText = source.text;
    std::size_t start = 0;
    for (int lineNumber = 1; start <= jsonlText.size(); ++lineNumber) {
        std::size_t end = jsonlText.find('\n', start);
        if (end == std::string_view::npos) end = jsonlText.size();
        const std::string_view line = jsonlText.substr(start, end - start);
        start = end + 1;
        if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
        ++report.rowsRead;
        const std::string fallbackId =
            (source.name.empty() ? "" : source.name + " ") + "line " + std::to_string(lineNumber);
        Json row;
        try {  // the request limits on size and nesting apply to rows too
            row = io::parseJsonText(line, "", io::kMaxRequestBytes);
        } catch (const InputError& e) {
            report.unscored.push_back({fallbackId, "", "not valid JSON: " + e.error().message});
            continue;
        }
        if (!row.is_object()) {
            report.unscored.push_back({fallbackId, "", "the line is not a JSON object"});
            continue;
        }
        const std::string id = io::rowText(row, "id").empty() ? fallbackId : io::rowText(row, "id");
        try {
            scoreRow(catalog, row, id, report);
        } catch (const std::exception& e) {  // a result shaped unlike the contract: report, never stop
            report.unscored.push_back({id, io::rowText(row, "kind"), std::string("unexpected result: ") + e.what()});
        }
    }
}

}  // namespace

ValidationReport validateRows(const Catalog& catalog, const std::vector<ValidationSource>& sources) {
    ValidationReport report;
    for (const ValidationSource& source : sources) scoreRows(catalog, source, report);
    report.kinds = statsBy(report.scores, false);
    report.groups = statsBy(report.scores, true);
    countRowsPerKind(report);
    return report;
}

ValidationReport validateRows(const Catalog& catalog, std::string_view jsonlText) {
    return validateRows(catalog, {ValidationSource{"", jsonlText}});
}

}  // namespace caliper
