#pragma once
// What the fuzz targets check, shared with the Catch2 replay of committed
// inputs (tests/unit/test_fuzz_regressions.cpp) so a finding replays through
// the very same code. Each check answers an empty string when the input was
// handled as the API promises (a result, or ok:false with code, message and
// JSON pointer) and otherwise says what broke. Sanitizer findings abort by
// themselves.
#include <cmath>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "caliper/api.hpp"
#include "caliper/plan/estimate.hpp"
#include "caliper/plan/plan.hpp"
#include "json/json_read.hpp"
#include "json/request/scenario_json.hpp"

namespace caliper::fuzz {

using Json = nlohmann::json;

inline std::string clip(std::string_view text) { return std::string(text.substr(0, 400)); }

// Any number below zero in a response: every figure the API prints is a
// size, a speed, a price, a count or a ratio. Explanation terms are steps of
// a derivation (a KV pool left after the weights may be negative when the
// model does not fit), so only they are left out.
inline std::string negativeNumber(const Json& value, const std::string& path) {
    if (value.is_number() && value.get<double>() < 0) return path + " = " + value.dump();
    if (value.is_structured()) {
        for (auto it = value.begin(); it != value.end(); ++it) {
            if (value.is_object() && it.key() == "explain") continue;
            const std::string child = value.is_object() ? io::childPath(path, it.key()) : path + "/*";
            std::string found = negativeNumber(it.value(), child);
            if (!found.empty()) return found;
        }
    }
    return "";
}

// ok:true with status 0, or exactly {"ok":false,"error":{code,message,path}}
// with status 2. Status 1 (an exception other than InputError) is a finding.
inline std::string checkResponse(const ApiResponse& response) {
    if (response.status != 0 && response.status != 2) {
        return "status " + std::to_string(response.status) + ": " + clip(response.json);
    }
    const Json out = Json::parse(response.json, nullptr, false);
    if (!out.is_object() || !out.contains("ok") || !out["ok"].is_boolean()) {
        return "response is not an object with a boolean ok: " + clip(response.json);
    }
    if (response.status == 0) {
        if (out["ok"] != true) return "status 0 with ok:false: " + clip(response.json);
        const std::string negative = negativeNumber(out, "");
        return negative.empty() ? "" : "negative figure " + negative;
    }
    const Json error = out.value("error", Json());
    const bool shaped = out["ok"] == false && out.size() == 2 && error.is_object() && error.size() == 3 &&
                        error.value("code", Json()).is_string() && error.value("message", Json()).is_string() &&
                        error.value("path", Json()).is_string();
    if (!shaped) return "rejection is not {ok:false,error:{code,message,path}}: " + clip(response.json);
    const std::string path = error["path"].get<std::string>();
    if (error["code"].get<std::string>().empty() || error["message"].get<std::string>().empty()) {
        return "rejection without code or message: " + clip(response.json);
    }
    if (!path.empty() && path[0] != '/') return "error path is not a JSON pointer: " + clip(response.json);
    return "";
}

// Every figure of a typed result is finite and non-negative (the JSON writer
// would print NaN as 0, so this looks before it).
inline std::string checkFigures(const EstimateResult& r) {
    const MemoryBreakdown& m = r.memory;
    std::vector<std::pair<std::string, double>> figures = {
        {"params_b", r.paramsB},         {"active_params_b", r.activeParamsB},  {"gpu_memory_gib", r.gpuMemoryGiB},
        {"usable_memory_gib", r.usableMemoryGiB}, {"weights_gib", m.weightsGiB}, {"kv_cache_gib", m.kvCacheGiB},
        {"activations_gib", m.activationsGiB},    {"gradients_gib", m.gradientsGiB},
        {"optimizer_gib", m.optimizerGiB},        {"adapter_gib", m.adapterGiB}, {"overhead_gib", m.overheadGiB},
        {"total_gib", m.totalGiB},                {"cpu_offload_gib", m.cpuOffloadGiB}};
    const std::pair<const char*, const std::optional<double>*> optional[] = {
        {"decode_tokens_per_s", &r.decodeTokensPerS}, {"prefill_tokens_per_s", &r.prefillTokensPerS},
        {"time_to_first_token_s", &r.timeToFirstTokenS}, {"train_tokens_per_s", &r.trainTokensPerS},
        {"train_tflops_per_gpu", &r.trainTflopsPerGpu}, {"train_mfu", &r.trainMfu},
        {"train_hours", &r.trainHours},
        {"gpu_hours", &r.gpuHours}, {"cost_usd", &r.costUsd}, {"usd_per_hour", &r.usdPerHour},
        {"usd_per_million_tokens", &r.usdPerMillionTokens}, {"purchase_usd", &r.purchaseUsd},
        {"energy_kwh", &r.energyKwh}, {"power_w", &r.powerW}};
    for (const auto& [name, value] : optional) {
        if (value->has_value()) figures.emplace_back(name, **value);
    }
    for (const auto& rule : r.quickRules) figures.emplace_back("quick rule " + rule.rule, rule.valueGiB);
    for (const auto& s : r.suggestions) figures.emplace_back("suggestion " + s.change, s.totalGiB);
    for (const auto& [name, value] : figures) {
        if (!std::isfinite(value) || value < 0) return name + " = " + std::to_string(value);
    }
    for (const auto& term : r.explain) {
        if (!std::isfinite(term.value) || term.value < 0) return "explain " + term.term + " = " + std::to_string(term.value);
    }
    // A plan that runs draws power: never 0 W (unknown board power is null).
    if (r.fits && r.powerW && *r.powerW <= 0) return "power_w 0 for a running plan";
    if (!r.fits && r.powerW) return "power_w for a plan that does not run";
    const Plan& p = r.plan;
    if (p.gpuCount < 1 || p.tp < 1 || p.pp < 1 || p.dp < 1 || p.nodes < 1) return "plan with a degree below 1";
    if (r.gpusNeeded && (*r.gpusNeeded < 1 || *r.gpusNeeded > kMaxGpus)) return "gpus_needed out of range";
    return "";
}

// estimateJson on any text: a promised response, the same bytes twice, and
// the engine's typed result agreeing with it and holding finite figures.
inline std::string checkEstimateInput(const Catalog& catalog, std::string_view text) {
    const ApiResponse first = estimateJson(catalog, text);
    std::string problem = checkResponse(first);
    if (!problem.empty()) return problem;
    if (estimateJson(catalog, text).json != first.json) return "two runs of one request differ";
    try {
        const Json request = io::parseJsonText(text, "", io::kMaxRequestBytes);
        std::vector<Warning> warnings;
        const Scenario scenario = io::scenarioFromJson(catalog, request, warnings);
        checkScenario(scenario);
        const EstimateResult result = estimate(scenario);
        if (first.status != 0) return "the API rejected what the engine accepts: " + clip(first.json);
        return checkFigures(result);
    } catch (const InputError&) {
        return first.status == 2 ? "" : "the engine rejects what the API accepted";
    } catch (const std::exception& e) {
        return std::string("exception on the typed path: ") + e.what();
    }
}

}  // namespace caliper::fuzz
