#include "json/result_json.hpp"

#include <algorithm>
#include <cmath>

#include "json/request/workload_request_json.hpp"

namespace caliper::io {

namespace {

// Exact powers of ten: every one up to 1e22 is a double without rounding.
constexpr double kPowersOfTen[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                   1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
constexpr int kSignificantDigits = 6;

}  // namespace

double tidy(double value) {
    if (!std::isfinite(value) || value == 0.0) return 0.0;
    const double magnitude = std::fabs(value);
    // Decimal exponent by comparison with exact powers, not log10, whose last
    // bit may differ between C libraries.
    int exponent = 0;
    if (magnitude >= 1.0) {
        while (exponent < 22 && magnitude >= kPowersOfTen[exponent + 1]) ++exponent;
    } else {
        while (exponent > -22 && magnitude * kPowersOfTen[-exponent] < 1.0) --exponent;
    }
    const int shift = kSignificantDigits - 1 - exponent;  // digits to keep after the point
    if (shift > 22) return 0.0;  // below 1e-17: nothing any figure here can mean
    // IEEE multiply/divide by an exact power of ten and an exact rounding: the
    // same bits on every platform, with no printf/strtod (slow in WebAssembly).
    double rounded = 0.0;
    if (shift >= 0) {
        rounded = std::round(value * kPowersOfTen[shift]) / kPowersOfTen[shift];
    } else {
        const double unit = kPowersOfTen[std::min(-shift, 22)];
        rounded = std::round(value / unit) * unit;
    }
    return rounded == 0.0 ? 0.0 : rounded;  // no "-0"
}

Json tidyOrNull(const std::optional<double>& value) {
    if (!value || !std::isfinite(*value)) return nullptr;
    return tidy(*value);
}

Json warningsToJson(const std::vector<Warning>& warnings) {
    Json list = Json::array();
    for (const auto& w : warnings) list.push_back({{"code", w.code}, {"message", w.message}});
    return list;
}

Json memoryToJson(const MemoryBreakdown& m) {
    return {{"weights_gib", tidy(m.weightsGiB)},         {"kv_cache_gib", tidy(m.kvCacheGiB)},
            {"activations_gib", tidy(m.activationsGiB)}, {"gradients_gib", tidy(m.gradientsGiB)},
            {"optimizer_gib", tidy(m.optimizerGiB)},     {"adapter_gib", tidy(m.adapterGiB)},
            {"overhead_gib", tidy(m.overheadGiB)},       {"total_gib", tidy(m.totalGiB)},
            {"overhead_parts",
             {{"cuda_context_gib", tidy(m.overheadParts.cudaContextGiB)},
              {"cuda_graphs_gib", tidy(m.overheadParts.cudaGraphsGiB)},
              {"nccl_buffers_gib", tidy(m.overheadParts.ncclBuffersGiB)},
              {"comm_buffers_gib", tidy(m.overheadParts.commBuffersGiB)},
              {"allocator_reserve_gib", tidy(m.overheadParts.allocatorReserveGiB)},
              {"varying_length_reserve_gib", tidy(m.overheadParts.varyingLengthReserveGiB)}}},
            {"cpu_offload_gib", tidy(m.cpuOffloadGiB)},
            {"kv_pool_gib", tidyOrNull(m.kvPoolGib)}};
}

namespace {

Json explainToJson(const std::vector<ExplainTerm>& terms) {
    Json list = Json::array();
    for (const auto& t : terms) list.push_back({{"term", t.term}, {"formula", t.formula}, {"value", tidy(t.value)}});
    return list;
}

Json quickRulesToJson(const std::vector<QuickRule>& rules) {
    Json list = Json::array();
    for (const auto& q : rules) {
        list.push_back({{"rule", q.rule}, {"formula", q.formula}, {"value_gib", tidy(q.valueGiB)}});
    }
    return list;
}

Json suggestionsToJson(const std::vector<FitSuggestion>& suggestions) {
    Json list = Json::array();
    for (const auto& s : suggestions) {
        list.push_back({{"change", s.change},
                        {"detail", s.detail},
                        {"total_gib", tidy(s.totalGiB)},
                        {"gpu_count", s.gpuCount},
                        {"fits", s.fits}});
    }
    return list;
}

Json cnyOrNull(const std::optional<double>& usd, double cnyPerUsd) {
    if (!usd) return nullptr;
    return tidy(*usd * cnyPerUsd);
}

}  // namespace

Json servingToJson(const std::optional<ServingFigures>& f) {
    if (!f) return nullptr;
    return {{"concurrency", tidy(f->concurrency)},
            {"ttft_s", tidy(f->ttftS)},
            {"tpot_ms", tidy(f->tpotMs)},
            {"user_tokens_per_s", tidy(f->userTokensPerS)},
            {"output_tokens_per_s", tidy(f->outputTokensPerS)},
            {"output_tokens_per_s_per_gpu", tidy(f->outputTokensPerSPerGpu)},
            {"requests_per_s", tidy(f->requestsPerS)},
            {"kv_cache_tokens", tidyOrNull(f->kvCacheTokens)},
            {"max_concurrency", tidyOrNull(f->maxConcurrency)},
            {"kv_pool_gib", tidy(f->kvPoolGiB)},
            {"non_torch_gib", tidy(f->nonTorchGiB)},
            {"usd_per_million_output_tokens", tidyOrNull(f->usdPerMillionOutputTokens)},
            {"joules_per_output_token", tidyOrNull(f->joulesPerOutputToken)}};
}

namespace {

}  // namespace

Json resultToJson(const EstimateResult& r, const Scenario& s) {
    Json out;
    out["ok"] = true;
    out["model"] = {{"id", r.modelId}, {"name", s.model.name}, {"params_b", tidy(r.paramsB)},
                    {"active_params_b", tidy(r.activeParamsB)}};
    out["gpu"] = {{"id", r.gpuId},
                  {"name", r.gpuName},
                  {"memory_gib", tidy(r.gpuMemoryGiB)},
                  {"caveats", s.gpu.caveats}};
    out["gpu_count"] = r.plan.gpuCount;
    out["strategy"] = toString(r.plan.strategy);
    const bool training = s.task != Task::Inference;
    out["plan"] = {{"strategy", toString(r.plan.strategy)},
                   {"gpu_count", r.plan.gpuCount},
                   {"tp", r.plan.tp},
                   {"pp", r.plan.pp},
                   {"ep", r.plan.ep},
                   {"cp", r.plan.cp},
                   {"vp", r.plan.vp},
                   {"dp", r.plan.dp},
                   {"attention_dp", std::max(1, s.parallel.attentionDp)},
                   {"nodes", r.plan.nodes},
                   {"gpus_per_node", std::max(1, s.gpu.gpusPerNode)},
                   {"gradient_checkpointing", training ? Json(r.plan.gradientCheckpointing) : Json(nullptr)},
                   {"micro_batch", training ? Json(r.plan.microBatch) : Json(nullptr)},
                   {"loss_kernel", r.plan.lossKernel ? Json(toString(*r.plan.lossKernel)) : Json(nullptr)},
                   {"offload", toString(r.plan.layersOnHost   ? Offload::Layers
                                        : r.plan.paramsOnHost ? Offload::Parameters
                                        : r.plan.statesOnHost ? Offload::Optimizer
                                                              : s.parallel.offload)},
                   {"gpu_layers", r.plan.gpuLayers >= 0 ? Json(r.plan.gpuLayers) : Json(nullptr)},
                   {"cpu_moe_layers", s.parallel.offload == Offload::MoeExperts ? Json(r.plan.cpuMoeLayers) : Json(nullptr)},
                   {"weights", toString(r.weights)},
                   {"inter_node", r.interNode ? Json{{"fabric", r.interNode->fabric ? Json(toString(*r.interNode->fabric)) : Json(nullptr)},
                                                     {"name", r.interNode->name},
                                                     {"bus_gbps", tidy(r.interNode->busGBps)}}
                                              : Json(nullptr)},
                   {"why", r.planWhy}};
    out["scenario"] = {{"task", toString(s.task)},
                       {"method", s.task == Task::Inference ? Json(nullptr) : Json(toString(s.method))},
                       {"engine", toString(s.engine)},
                       {"weights", toString(r.weights)},
                       {"kv_cache", toString(s.kvCache)},
                       // "auto" echoes the planner's micro-batch, as checkpointing does.
                       {"batch", training && s.batchAuto ? std::int64_t(r.plan.microBatch) : s.batch},
                       {"prompt_tokens", s.promptTokens},
                       {"output_tokens", s.outputTokens},
                       {"seq_len", s.seqLen},
                       {"optimizer", toString(s.optimizer)},
                       {"gradient_checkpointing", training ? r.plan.gradientCheckpointing : s.gradientCheckpointing},
                       {"flash_attention", s.flashAttention}};
    writeWorkloadKeys(s, out["scenario"]);
    // docs/CONTRACT.md "Result": the engine the figures assume, beside the workload.
    out["engine"] = toString(s.engine);
    out["workload"] = toString(s.model.workload);
    const WorkloadFigures& f = r.workloadFigures;
    out["asr"] = f.asr ? Json{{"audio_seconds_per_s", tidy(f.asr->audioSecondsPerS)},
                              {"realtime_factor", tidy(f.asr->realtimeFactor)}}
                       : Json(nullptr);
    out["embedding"] = f.embedding ? Json{{"tokens_per_s", tidy(f.embedding->tokensPerS)},
                                          {"sequences_per_s", tidy(f.embedding->sequencesPerS)}}
                                   : Json(nullptr);
    out["image"] = f.image ? Json{{"seconds_per_image", tidy(f.image->secondsPerImage)},
                                  {"images_per_s", tidy(f.image->imagesPerS)}}
                           : Json(nullptr);
    out["video"] = f.video ? Json{{"seconds_per_video", tidy(f.video->secondsPerVideo)}} : Json(nullptr);
    out["memory"] = memoryToJson(r.memory);
    out["usable_memory_gib"] = tidy(r.usableMemoryGiB);
    out["fits"] = r.fits;
    out["fit"] = r.fitVerdict;
    out["gpus_needed"] = r.gpusNeeded ? Json(*r.gpusNeeded) : Json(nullptr);
    out["decode_tokens_per_s"] = tidyOrNull(r.decodeTokensPerS);
    out["prefill_tokens_per_s"] = tidyOrNull(r.prefillTokensPerS);
    out["time_to_first_token_s"] = tidyOrNull(r.timeToFirstTokenS);
    out["train_tokens_per_s"] = tidyOrNull(r.trainTokensPerS);
    out["train_tflops_per_gpu"] = tidyOrNull(r.trainTflopsPerGpu);
    out["train_mfu"] = tidyOrNull(r.trainMfu);
    out["train_hours"] = tidyOrNull(r.trainHours);
    out["gpu_hours"] = tidyOrNull(r.gpuHours);
    out["cost_usd"] = tidyOrNull(r.costUsd);
    out["cost_cny"] = cnyOrNull(r.costUsd, s.cnyPerUsd);
    out["usd_per_hour"] = tidyOrNull(r.usdPerHour);
    out["cny_per_hour"] = cnyOrNull(r.usdPerHour, s.cnyPerUsd);
    out["usd_per_million_tokens"] = tidyOrNull(r.usdPerMillionTokens);
    out["purchase_usd"] = tidyOrNull(r.purchaseUsd);
    out["purchase_cny"] = tidyOrNull(r.purchaseCny);
    out["price_year"] = r.priceYear > 0 ? Json(r.priceYear) : Json(nullptr);
    out["cny_per_usd"] = tidy(s.cnyPerUsd);
    out["power_w"] = tidyOrNull(r.powerW);
    out["energy_kwh"] = tidyOrNull(r.energyKwh);
    out["serving"] = servingToJson(r.serving);
    out["ranges"] = Json::object();
    for (const FigureRange& range : r.ranges) out["ranges"][range.key] = {tidy(range.low), tidy(range.high)};
    out["warnings"] = warningsToJson(r.warnings);
    out["explain"] = explainToJson(r.explain);
    out["quick_rules"] = quickRulesToJson(r.quickRules);
    out["suggestions"] = suggestionsToJson(r.suggestions);
    return out;
}

Json errorToJson(const Error& error) {
    return {{"ok", false}, {"error", {{"code", error.code}, {"message", error.message}, {"path", error.path}}}};
}

}  // namespace caliper::io
