// The serve request and answer (CONTRACT v2 "caliper serve"):
// {"model", "gpu" (one id, a list, "all" or absent), "slo": {"ttft_s",
// "tpot_ms", "min_user_tokens_per_s"}, "users" | "request_rate_per_s",
// "prompt_tokens", "output_tokens", "max_gpus", "pricing", "top", and any
// scenario key (engine, weights, serving, max_model_len, ...)}
// -> {"deployments": [...], "curve": [...]}.
#include "calibration/ranges.hpp"
#include "caliper/serving/serve.hpp"
#include "caliper/units.hpp"
#include "caliper/workloads/workloads.hpp"
#include "json/catalog/gpu_selection.hpp"
#include "json/result_json.hpp"
#include "json/request/scenario_json.hpp"
#include "json/answers/views_json.hpp"
#include "json/request/request_limits.hpp"

namespace caliper::io {

namespace {

constexpr int kDefaultMaxGpus = 64;
constexpr int kDefaultTop = 5;
// A gpu list longer than any catalog is a mistake, not a question.
constexpr std::size_t kMaxServeGpus = 512;
// More users than the largest public services report per model (tens of
// millions) describes no deployment Caliper can size.
constexpr double kMaxUsers = 1e7;
// Targets beyond an hour to the first token or a minute per token are typos.
constexpr double kMaxTtftS = 3600, kMaxTpotMs = 60000, kMaxUserTokensPerS = 1e5;

Json cny(const std::optional<double>& usd, double rate) { return usd ? Json(tidy(*usd * rate)) : Json(nullptr); }

std::optional<double> perMillion(const std::optional<double>& usdPerHour, double tokensPerS) {
    if (!usdPerHour.has_value() || tokensPerS <= 0) return std::nullopt;
    return usdPerHour.value_or(0) / (tokensPerS * 3600.0) * 1e6;
}

// Purchase cost per million output tokens: the cards written off over three
// years of continuous serving [E: a common straight-line depreciation
// period for servers]; power and hosting are not included.
constexpr double kWriteOffHours = 3 * 8760;

Json disaggregatedToJson(const std::optional<DisaggregatedSplit>& split) {
    if (!split) return nullptr;
    return {{"prefill_replicas", split->prefillReplicas},
            {"prefill_gpus_per_replica", split->prefillGpusPerReplica},
            {"decode_replicas", split->decodeReplicas},
            {"decode_gpus_per_replica", split->decodeGpusPerReplica},
            {"kv_transfer_ms", tidy(split->kvTransferS * 1e3)}};
}

const FigureRange* findRange(const std::vector<FigureRange>& ranges, const std::string& key) {
    for (const FigureRange& r : ranges) {
        if (r.key == key) return &r;
    }
    return nullptr;
}

// The SLO held against the slow end of the deployment's bands (the highest
// TTFT and TPOT, the lowest tokens/s per user), as the estimate's fit verdict
// holds memory against the top of its band: "meets" by the estimate and the
// band, "tight" by the estimate only, "misses"; null without a target.
Json sloMargin(const Deployment& d, const Slo& slo, const std::vector<FigureRange>& ranges) {
    if (!slo.ttftS && !slo.tpotMs && !slo.minUserTokensPerS) return nullptr;
    if (!d.meetsSlo) return "misses";
    ServingFigures slow = d.serving;
    if (const FigureRange* r = findRange(ranges, "serving.ttft_s")) slow.ttftS = r->high;
    if (const FigureRange* r = findRange(ranges, "serving.tpot_ms")) slow.tpotMs = r->high;
    if (const FigureRange* r = findRange(ranges, "serving.user_tokens_per_s")) slow.userTokensPerS = r->low;
    return meetsSlo(slow, slo) ? "meets" : "tight";
}

// The deployment's 80% bands (docs/CONTRACT.md "ranges"); a cost per million
// output tokens is a price over the per-GPU throughput, so its band is the
// throughput band inverted.
Json deploymentRanges(const std::vector<FigureRange>& ranges, const Json& deployment) {
    Json out = Json::object();
    for (const FigureRange& r : ranges) out[r.key] = {tidy(r.low), tidy(r.high)};
    const FigureRange* perGpu = findRange(ranges, "serving.output_tokens_per_s_per_gpu");
    const Json& value = deployment["serving"]["output_tokens_per_s_per_gpu"];
    if (!perGpu || !value.is_number() || !(perGpu->low > 0)) return out;
    const double perGpuValue = value.get<double>();
    for (const char* key : {"usd_per_million_output_tokens", "cny_per_million_output_tokens",
                            "purchase_usd_per_million_output_tokens", "purchase_cny_per_million_output_tokens"}) {
        const Json& cost = deployment[key];
        if (!cost.is_number()) continue;
        const double c = cost.get<double>();
        out[key] = {tidy(c * perGpuValue / perGpu->high), tidy(c * perGpuValue / perGpu->low)};
    }
    return out;
}

Json deploymentToJson(const Deployment& d, const Scenario& s, const Slo& slo) {
    const double tokensPerS = d.serving.outputTokensPerS;
    std::optional<double> purchasePerHour, purchaseCnyPerHour, usdPerMonth;
    if (d.purchaseUsd) purchasePerHour = *d.purchaseUsd / kWriteOffHours;
    if (d.purchaseCny) purchaseCnyPerHour = *d.purchaseCny / kWriteOffHours;
    if (d.usdPerHour) usdPerMonth = *d.usdPerHour * kHoursPerMonth;
    Json plan = {{"strategy", toString(d.plan.strategy)}, {"gpu_count", d.gpuCount}, {"tp", d.plan.tp},
                 {"pp", d.plan.pp}, {"dp", d.replicas}, {"ep", s.parallel.ep > 0 ? s.parallel.ep : d.plan.ep},
                 {"attention_dp", s.parallel.attentionDp > 0 ? s.parallel.attentionDp : 1}, {"nodes", d.plan.nodes}};
    Json out = {{"gpu", d.gpu.id},
            {"gpu_name", d.gpu.name},
            {"gpu_count", d.gpuCount},
            {"plan", std::move(plan)},
            {"replicas", d.replicas},
            {"concurrency_per_replica", tidy(d.concurrencyPerReplica)},
            {"weights", toString(d.weights)},
            {"kv_cache", toString(d.kvCache)},
            {"disaggregated", disaggregatedToJson(d.disaggregated)},
            {"serving", servingToJson(d.serving)},
            {"usd_per_month", tidyOrNull(usdPerMonth)},
            {"cny_per_month", cny(usdPerMonth, s.cnyPerUsd)},
            {"purchase_usd", tidyOrNull(d.purchaseUsd)},
            {"purchase_cny", tidyOrNull(d.purchaseCny)},
            {"usd_per_million_output_tokens", tidyOrNull(perMillion(d.usdPerHour, tokensPerS))},
            {"cny_per_million_output_tokens", cny(perMillion(d.usdPerHour, tokensPerS), s.cnyPerUsd)},
            {"purchase_usd_per_million_output_tokens", tidyOrNull(perMillion(purchasePerHour, tokensPerS))},
            {"purchase_cny_per_million_output_tokens", tidyOrNull(perMillion(purchaseCnyPerHour, tokensPerS))},
            {"joules_per_output_token", tidyOrNull(d.serving.joulesPerOutputToken)},
            {"power_w", d.powerW > 0 ? Json(tidy(d.powerW)) : Json(nullptr)},
            {"meets_slo", d.meetsSlo},
            {"why", d.why}};
    const std::vector<FigureRange> ranges = servingRanges(s, d.gpu, d.serving);
    out["ranges"] = deploymentRanges(ranges, out);
    out["slo_margin"] = sloMargin(d, slo, ranges);
    return out;
}

// The curve is the first deployment's (`gpu`): each point carries its bands
// under the point's own names.
Json curveToJson(const std::vector<CurvePoint>& curve, const Scenario& s, const GpuSpec* gpu) {
    Json list = Json::array();
    for (const CurvePoint& p : curve) {
        Json point = {{"concurrency", tidy(p.concurrency)},
                      {"user_tokens_per_s", tidy(p.userTokensPerS)},
                      {"output_tokens_per_s_per_gpu", tidy(p.outputTokensPerSPerGpu)},
                      {"ttft_s", tidy(p.ttftS)},
                      {"tpot_ms", tidy(p.tpotMs)}};
        Json ranges = Json::object();
        if (gpu) {
            ServingFigures f;
            f.ttftS = p.ttftS;
            f.tpotMs = p.tpotMs;
            f.userTokensPerS = p.userTokensPerS;
            f.outputTokensPerSPerGpu = p.outputTokensPerSPerGpu;
            for (const FigureRange& r : servingRanges(s, *gpu, f)) {
                ranges[r.key.substr(r.key.find('.') + 1)] = {tidy(r.low), tidy(r.high)};
            }
        }
        point["ranges"] = std::move(ranges);
        list.push_back(std::move(point));
    }
    return list;
}

}  // namespace

Json sloToJson(const Slo& slo) {
    return {{"ttft_s", tidyOrNull(slo.ttftS)}, {"tpot_ms", tidyOrNull(slo.tpotMs)},
            {"min_user_tokens_per_s", tidyOrNull(slo.minUserTokensPerS)}};
}

Slo readSlo(ObjectReader& r) {
    Slo slo;
    const Json* value = r.raw("slo");
    if (!value || value->is_null()) return slo;
    if (!value->is_object()) failType("invalid_value", r.pathOf("slo"), "an object", *value);
    ObjectReader o(*value, r.pathOf("slo"));
    slo.ttftS = o.optionalNumber("ttft_s", 0, kMaxTtftS);
    slo.tpotMs = o.optionalNumber("tpot_ms", 0, kMaxTpotMs);
    slo.minUserTokensPerS = o.optionalNumber("min_user_tokens_per_s", 0, kMaxUserTokensPerS);
    o.finish();
    for (const auto& [key, v] : {std::pair{"ttft_s", slo.ttftS}, {"tpot_ms", slo.tpotMs},
                                  {"min_user_tokens_per_s", slo.minUserTokensPerS}}) {
        if (v && *v <= 0) fail("invalid_value", childPath(r.pathOf("slo"), key), std::string(key) + " must be above 0");
    }
    return slo;
}

std::optional<Slo> readPlanSlo(ObjectReader& r, Task task, bool targetRequired) {
    if (!r.has("slo")) {
        r.ignore("slo");
        return std::nullopt;
    }
    const Slo slo = readSlo(r);
    if (!slo.ttftS && !slo.tpotMs && !slo.minUserTokensPerS) {
        if (!targetRequired) return std::nullopt;
        fail("missing_key", "/slo", "slo needs ttft_s, tpot_ms or min_user_tokens_per_s");
    }
    if (task != Task::Inference) fail("invalid_value", "/slo", "an SLO's targets are inference figures");
    return slo;
}

ServeOptions readServeOptions(ObjectReader& r) {
    ServeOptions o;
    o.slo = readSlo(r);
    // No "slo" (or null) ranks by cost with no latency target; an "slo"
    // object without a target is a mistake, refused as the matrix's
    // users-at-SLO mode refuses it (docs/CONTRACT.md "Serve").
    if (const Json* slo = r.raw("slo"); slo && !slo->is_null() && !o.slo.ttftS && !o.slo.tpotMs &&
                                        !o.slo.minUserTokensPerS) {
        fail("missing_key", "/slo", "slo needs ttft_s, tpot_ms or min_user_tokens_per_s");
    }
    // Users are people (or concurrent sessions): whole ones. A request rate
    // is a mean and may be fractional.
    if (const auto users = r.optionalInteger("users", 1, std::int64_t(kMaxUsers))) o.users = double(*users);
    o.requestRatePerS = r.optionalNumber("request_rate_per_s", limitOf("request_rate_per_s").min,
                                         limitOf("request_rate_per_s").max);
    if (o.users && o.requestRatePerS) {
        fail("invalid_value", "/request_rate_per_s", "give either users or request_rate_per_s, not both");
    }
    if (!o.users && !o.requestRatePerS) fail("missing_key", "/users", "serve needs 'users' or 'request_rate_per_s'");
    o.maxGpus = static_cast<int>(r.integerOr("max_gpus", kDefaultMaxGpus, 1, 1024));
    o.purchasePricing = r.enumOr("pricing", "cloud", {"cloud", "purchase"}) == "purchase";
    o.top = static_cast<int>(r.integerOr("top", kDefaultTop, 1, 100));
    if (const Json* v = r.raw("disaggregated"); v && !v->is_null()) {
        if (v->is_boolean()) {
            o.disaggregation = v->get<bool>() ? ServeOptions::Disaggregation::Yes : ServeOptions::Disaggregation::No;
        } else if (v->is_string() && v->get<std::string>() == "auto") {
            o.disaggregation = ServeOptions::Disaggregation::Auto;
        } else {
            failType("invalid_value", r.pathOf("disaggregated"), "true, false or \"auto\"", *v);
        }
    }
    return o;
}

Json serveToJson(const Catalog& catalog, const Json& request) {
    if (!request.is_object()) failType("invalid_value", "", "a JSON object", request);
    if (auto it = request.find("gpu"); it != request.end() && it->is_array() && it->size() > kMaxServeGpus) {
        fail("too_large", "/gpu", "more than 512 GPUs listed");
    }
    if (auto it = request.find("gpu"); it != request.end() && it->is_array() && it->empty()) {
        fail("invalid_value", "/gpu", "an empty GPU list: give GPU ids, \"all\", or leave gpu out");
    }
    if (auto it = request.find("batch"); it != request.end()) {
        fail("invalid_value", "/batch", "serve sizes the concurrency itself: give 'users' or 'request_rate_per_s'");
    }
    std::vector<Warning> warnings;
    const ScenarioOptions scenarioOptions{
        false, {"slo", "users", "request_rate_per_s", "max_gpus", "pricing", "top", "gpu_filter", "disaggregated"}};
    Scenario workload = scenarioFromJson(catalog, request, warnings, scenarioOptions);
    if (workload.task != Task::Inference) fail("invalid_value", "/task", "serve sizes inference deployments");
    const Json* model = request.contains("model") ? &request["model"] : nullptr;
    if (!model || model->is_null()) fail("missing_key", "/model", "required key 'model' is missing");
    workload.model = resolveModel(catalog, *model, "/model", warnings);
    // Speech, embedding and diffusion models run their own pipelines, not a
    // token-serving engine: the estimate gives them no serving figures, and
    // serve has no TTFT or TPOT to hold against an SLO for them.
    if (hasPipeline(workload.model)) {
        fail("incompatible_options", "/model",
             workload.model.id + "'s workload is " + toString(workload.model.workload) +
                 ": serve sizes token-generating deployments (estimate gives its own figures)");
    }
    ObjectReader r(request, "");
    const ServeOptions options = readServeOptions(r);
    const std::vector<GpuSpec> gpus = selectGpus(catalog, request);

    const ServeAnswer answer = serve(workload, gpus, options);
    // Every GPU asked for rejects the engine or format (TensorRT-LLM on an AMD
    // GPU): the request is wrong, as the single estimate says.
    if (answer.firstRejection && answer.rejectedGpus == int(gpus.size())) throw InputError(*answer.firstRejection);
    Json out = {{"ok", true}};
    const ParamCounts params = countParams(workload.model);
    out["model"] = {{"id", workload.model.id}, {"name", workload.model.name}, {"params_b", tidy(params.total / 1e9)}};
    out["engine"] = toString(workload.engine);
    out["slo"] = sloToJson(options.slo);
    out["users"] = tidyOrNull(options.users);
    out["request_rate_per_s"] = tidyOrNull(options.requestRatePerS);
    out["prompt_tokens"] = workload.promptTokens;
    out["output_tokens"] = workload.outputTokens;
    out["pricing"] = options.purchasePricing ? "purchase" : "cloud";
    out["meets_slo"] = answer.anyMeetsSlo;
    Json list = Json::array();
    for (const Deployment& d : answer.deployments) list.push_back(deploymentToJson(d, workload, options.slo));
    out["deployments"] = std::move(list);
    out["curve"] = curveToJson(answer.curve, workload, answer.deployments.empty() ? nullptr : &answer.deployments.front().gpu);
    out["candidates"] = answer.candidates;
    warnings.insert(warnings.end(), answer.warnings.begin(), answer.warnings.end());
    if (!answer.anyMeetsSlo) {
        warnings.push_back({"slo_not_met", answer.deployments.empty()
                                               ? "no GPU in the selection holds the model within max_gpus"
                                               : "no deployment meets the SLO; the closest ones are listed"});
    }
    out["speed_unknown"] = answer.speedUnknownIds;
    if (!answer.speedUnknownNames.empty()) {
        std::string names;
        for (const std::string& n : answer.speedUnknownNames) names += (names.empty() ? "" : ", ") + n;
        warnings.push_back({"speed_unknown", "no memory bandwidth or no tensor rate in the catalog, so no serving estimate; left out: " + names});
    }
    if (options.disaggregation == ServeOptions::Disaggregation::No) {
        warnings.push_back({"disaggregated_not_searched",
                            "prefill/decode disaggregation was not tried (\"disaggregated\": \"auto\" tries it): every "
                            "deployment runs both phases on the same GPUs"});
    }
    out["warnings"] = warningsToJson(warnings);
    out["cny_per_usd"] = tidy(workload.cnyPerUsd);
    return out;
}

}  // namespace caliper::io
