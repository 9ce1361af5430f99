// The recommend request: a scenario whose model is fixed and whose GPU is
// free ("gpu" absent, "all", one id, or a list), plus "objective"
// (cheapest | fastest | cost_per_token | fewest_gpus | lowest_power, default
// cheapest), "pricing" (cloud | purchase, default cloud), "max_gpus" (64),
// "top" (10), "gpu_filter" (as in the matrix request) and "preset".
// A preset (presets.hpp: speech, lora, sft, pretrain, serving, multimodal)
// fills the keys the request leaves out: task, method, batch, prompt/output
// tokens or seq_len, train_tokens, gradient_checkpointing, objective,
// max_gpus, and, without "model", the catalog model its size band sizes for.
// "options" holds the top N plus the best option of any tier the top N
// misses; "tiers" maps each tier to the ranks of its listed options.
// With an "slo" (task inference) it answers as `caliper serve` does.
#include <algorithm>

#include "caliper/answers/presets.hpp"
#include "caliper/answers/recommend.hpp"
#include "caliper/names.hpp"
#include "json/catalog/gpu_selection.hpp"
#include "json/request/request_limits.hpp"
#include "json/result_json.hpp"
#include "json/request/scenario_json.hpp"
#include "json/answers/views_json.hpp"
#include "caliper/workloads/workloads.hpp"

namespace caliper::io {

namespace {

constexpr int kDefaultMaxGpus = 64;  // eight 8-GPU servers: past this the answer is "a cluster", not a configuration
constexpr int kDefaultTop = 10;

std::string presetIds() {
    std::string ids;
    for (const Preset& p : presets()) ids += (ids.empty() ? "" : ", ") + p.id;
    return ids;
}

void fillMissing(Json& request, const char* key, const Json& value) {
    if (!request.contains(key) || request[key].is_null()) request[key] = value;
}

const Preset* applyPreset(const Catalog& catalog, Json& request) {
    auto it = request.find("preset");
    if (it == request.end() || it->is_null()) return nullptr;
    if (!it->is_string()) failType("invalid_value", "/preset", "a preset id", *it);
    const Preset* p = findPreset(it->get<std::string>());
    if (!p) {
        fail("invalid_value", "/preset",
             "unknown preset '" + it->get<std::string>().substr(0, 100) + "'; expected one of " + presetIds());
    }
    const Json filled = presetRequest(catalog, *p);
    fillMissing(request, "task", filled["task"]);
    const Json& task = request["task"];
    if (task.is_string() && task.get<std::string>() == "finetune") fillMissing(request, "method", toString(p->method));
    for (auto it = filled.begin(); it != filled.end(); ++it) {
        if (it.key() == "task" || it.key() == "method" || it.key() == "model") continue;
        if (it.key() == "gpu_filter" && request.contains("gpu") && !request["gpu"].is_null()) continue;  // GPUs named
        fillMissing(request, it.key().c_str(), it.value());
    }
    if (!request.contains("model") || request["model"].is_null()) {
        if (!filled.contains("model")) fail("unknown_model", "/preset", "the catalog has no model in the size band of preset " + p->id);
        request["model"] = filled["model"];
    }
    return p;
}

Json cnyOrNull(const std::optional<double>& usd, double cnyPerUsd) {
    return usd ? Json(tidy(*usd * cnyPerUsd)) : Json(nullptr);
}

Json watchToJson(const Catalog& catalog, const std::vector<WatchItem>& watch) {
    Json list = Json::array();
    for (const WatchItem& w : watch) {
        Json item = {{"code", w.code}, {"message", w.message}, {"source", w.fromCatalog ? "catalog" : "engine"}};
        const Caveat* caveat = w.fromCatalog ? findCaveat(catalog, w.code) : nullptr;
        if (caveat) item["message_zh"] = caveat->zh;
        list.push_back(std::move(item));
    }
    return list;
}

Json optionToJson(const Catalog& catalog, const RecommendOption& o, double cnyPerUsd) {
    return {{"rank", o.rank},
            {"gpu_id", o.gpu->id},
            {"gpu_name", o.gpu->name},
            {"gpu_count", o.gpuCount},
            {"nodes", o.nodes},
            {"tier", toString(o.tier)},
            {"strategy", toString(o.plan.strategy)},
            {"plan", {{"tp", o.plan.tp}, {"pp", o.plan.pp}, {"dp", o.plan.dp}}},
            {"weights", toString(o.weights)},
            {"total_gib", tidy(o.totalGiB)},
            {"needed_gib", tidy(o.neededGiB)},
            {"usable_gib", tidy(o.usableGiB)},
            {"decode_tokens_per_s", tidyOrNull(o.decodeTokensPerS)},
            {"prefill_tokens_per_s", tidyOrNull(o.prefillTokensPerS)},
            {"train_tokens_per_s", tidyOrNull(o.trainTokensPerS)},
            {"train_hours", tidyOrNull(o.trainHours)},
            {"usd_per_hour", tidyOrNull(o.usdPerHour)},
            {"cny_per_hour", cnyOrNull(o.usdPerHour, cnyPerUsd)},
            {"purchase_usd", tidyOrNull(o.purchaseUsd)},
            {"purchase_cny", tidyOrNull(o.purchaseCny)},
            {"usd_per_million_tokens", tidyOrNull(o.usdPerMillionTokens)},
            {"cost_usd", tidyOrNull(o.costUsd)},
            {"cost_cny", cnyOrNull(o.costUsd, cnyPerUsd)},
            {"user_tokens_per_s", tidyOrNull(o.userTokensPerS)},
            {"usd_per_month", tidyOrNull(o.usdPerMonth)},
            {"cny_per_month", cnyOrNull(o.usdPerMonth, cnyPerUsd)},
            {"power_w", o.powerW > 0 ? Json(tidy(o.powerW)) : Json(nullptr)},
            {"asr", o.workloadFigures.asr ? Json{{"audio_seconds_per_s", tidy(o.workloadFigures.asr->audioSecondsPerS)},
                                                 {"realtime_factor", tidy(o.workloadFigures.asr->realtimeFactor)}}
                                          : Json(nullptr)},
            {"priced", o.priced},
            {"reasons", warningsToJson(o.reasons)},
            {"watch", watchToJson(catalog, o.watch)}};
}

Json presetToJson(const Preset* p, const std::string& modelId) {
    if (!p) return nullptr;
    return {{"id", p->id},
            {"label_en", p->labelEn},
            {"label_zh", p->labelZh},
            {"model", modelId},
            {"document_picks", p->documentPicks},
            {"document_reason", p->documentReason},
            {"document_pick_gpus", p->documentPickGpus},
            {"document_source", kPresetSource}};
}

Json recommendationToJson(const Catalog& catalog, const Recommendation& rec, const Scenario& s) {
    Json out = {{"ok", true}, {"objective", toString(rec.objective)}, {"pricing", toString(rec.pricing)}};
    out["model"] = {{"id", s.model.id}, {"name", s.model.name}, {"params_b", tidy(pipelineParams(s.model) / 1e9)}};
    out["task"] = toString(s.task);
    out["method"] = s.task == Task::Finetune ? Json(toString(s.method)) : Json(nullptr);
    out["candidates"] = rec.candidates;
    Json options = Json::array();
    for (const auto& o : rec.options) options.push_back(optionToJson(catalog, o, s.cnyPerUsd));
    out["options"] = std::move(options);
    Json tiers = Json::object();
    for (int t = 0; t < kTierCount; ++t) tiers[toString(static_cast<Tier>(t))] = rec.tierRanks[t];
    out["tiers"] = std::move(tiers);
    Json excluded = Json::array();
    for (const auto& e : rec.excluded) {
        excluded.push_back({{"gpu_id", e.gpu->id}, {"code", e.code}, {"message", e.message}});
    }
    out["excluded"] = std::move(excluded);
    out["notes"] = warningsToJson(rec.notes);
    out["cny_per_usd"] = tidy(s.cnyPerUsd);
    return out;
}

}  // namespace

// recommend with an "slo" runs serve's search: `batch` (or "users") concurrent
// users, or "request_rate_per_s", within the latency target. A preset's
// answer adds the document's picks, each GPU's best deployment wherever it
// ranks, as the ranking answer lists them.
Json recommendWithinSlo(const Catalog& catalog, const Json& request, const Preset* preset) {
    Json serve = request;
    if (!serve.contains("users") && !serve.contains("request_rate_per_s")) serve["users"] = serve.value("batch", Json(1));
    for (const char* key : {"batch", "objective", "preset"}) serve.erase(key);
    Json out = serveToJson(catalog, serve);
    out["objective"] = "slo";
    if (!preset) return out;
    out["preset"] = presetToJson(preset, out["model"]["id"].get<std::string>());
    Json picks = serve;
    picks.erase("gpu_filter");
    picks["gpu"] = preset->documentPickGpus;
    picks["top"] = limitOf("top").maxInteger();
    const Json ranked = serveToJson(catalog, picks);
    Json best = Json::array();
    for (const Json& d : ranked["deployments"]) {
        const bool listed = std::any_of(best.begin(), best.end(), [&d](const Json& b) { return b["gpu"] == d["gpu"]; });
        if (!listed) best.push_back(d);
    }
    out["preset"]["document_pick_deployments"] = std::move(best);
    return out;
}

Json presetRequest(const Catalog& catalog, const Preset& p) {
    Json request = {{"task", toString(p.task)}};
    if (p.task == Task::Finetune) request["method"] = toString(p.method);
    request["batch"] = p.batch;
    if (p.audioSeconds) request["audio_seconds"] = *p.audioSeconds;
    if (p.task == Task::Inference) {
        request["prompt_tokens"] = p.promptTokens;
        request["output_tokens"] = p.outputTokens;
    } else {
        request["seq_len"] = p.seqLen;
    }
    if (p.trainTokens) request["train_tokens"] = *p.trainTokens;
    if (p.gradientCheckpointing) request["gradient_checkpointing"] = true;
    request["objective"] = toString(p.objective);
    request["max_gpus"] = p.maxGpus;
    if (p.maxTrainDays) request["max_train_days"] = *p.maxTrainDays;
    if (p.slo) request["slo"] = sloToJson(*p.slo);
    if (!p.gpuClasses.empty()) request["gpu_filter"] = {{"classes", p.gpuClasses}};
    if (const ModelSpec* model = presetModel(catalog, p)) request["model"] = model->id;
    return request;
}

Json recommendToJson(const Catalog& catalog, const Json& request) {
    if (!request.is_object()) failType("invalid_value", "", "a JSON object", request);
    Json filled = request;
    const Preset* preset = applyPreset(catalog, filled);
    if (const auto slo = filled.find("slo"); slo != filled.end() && !slo->is_null()) {
        return recommendWithinSlo(catalog, filled, preset);
    }
    std::vector<Warning> warnings;
    const ScenarioOptions scenarioOptions{false, {"objective", "pricing", "max_gpus", "max_train_days", "top", "gpu_filter", "preset"}};
    Scenario workload = scenarioFromJson(catalog, filled, warnings, scenarioOptions);
    if (!filled.contains("model") || filled["model"].is_null()) {
        fail("missing_key", "/model", "required key 'model' is missing");
    }
    workload.model = resolveModel(catalog, filled["model"], "/model", warnings);

    ObjectReader r(filled, "");
    RecommendOptions options;
    options.objective = r.has("objective") ? parseEnum<Objective>(*r.raw("objective"), r.pathOf("objective"))
                                           : (r.ignore("objective"), Objective::Cheapest);
    options.pricing = r.has("pricing") ? parseEnum<Pricing>(*r.raw("pricing"), r.pathOf("pricing"))
                                       : (r.ignore("pricing"), Pricing::Cloud);
    options.maxGpus = static_cast<int>(r.integerOr("max_gpus", kDefaultMaxGpus, limitOf("max_gpus").minInteger(),
                                                 limitOf("max_gpus").maxInteger()));
    options.maxTrainDays = r.optionalNumber("max_train_days", limitOf("max_train_days").min,
                                            limitOf("max_train_days").max);
    options.top = static_cast<int>(r.integerOr("top", kDefaultTop, limitOf("top").minInteger(), limitOf("top").maxInteger()));
    if (preset) options.alsoList = preset->documentPickGpus;  // ranked beside the engine's own picks
    const std::vector<GpuSpec> gpus = selectGpus(catalog, filled);

    const Recommendation rec = recommend(catalog, workload, gpus, options);
    Json out = recommendationToJson(catalog, rec, workload);
    out["max_gpus"] = options.maxGpus;
    if (options.maxTrainDays) out["max_train_days"] = *options.maxTrainDays;
    out["preset"] = presetToJson(preset, workload.model.id);
    out["warnings"] = warningsToJson(warnings);
    return out;
}

}  // namespace caliper::io
