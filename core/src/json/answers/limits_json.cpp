// The limits request: a scenario (model, gpu, gpu_count or "auto") and the
// inverse questions on those GPUs: the longest context, the largest batch and
// the best weight format that fit, each with the memory at that value.
#include "caliper/plan/compat.hpp"
#include "caliper/plan/estimate.hpp"
#include "caliper/answers/limits.hpp"
#include "json/result_json.hpp"
#include "json/request/scenario_json.hpp"
#include "json/answers/views_json.hpp"

namespace caliper::io {

namespace {

Json contextToJson(const ContextLimit& c, const Scenario& s) {
    const bool training = s.task != Task::Inference;
    Json out = {{"fits", c.fits},
                {"tokens", c.fits ? Json(c.tokens) : Json(nullptr)},
                {"capped_by_model", c.cappedByModel},
                {"model_max_context", s.model.maxContext}};
    if (c.fits && !training) {
        // The prompt grows; the generated length stays as requested.
        out["prompt_tokens"] = c.tokens - s.outputTokens;
        out["output_tokens"] = s.outputTokens;
    }
    out["memory"] = c.fits ? memoryToJson(c.memory) : Json(nullptr);
    return out;
}

Json batchToJson(const BatchLimit& b) {
    return {{"fits", b.fits},
            {"batch", b.fits ? Json(b.batch) : Json(nullptr)},
            {"capped", b.capped},
            {"memory", b.fits ? memoryToJson(b.memory) : Json(nullptr)}};
}

Json weightsToJson(const FormatChoice& w) {
    Json tried = Json::array();
    for (WeightFormat f : w.tried) tried.push_back(toString(f));
    return {{"found", w.found},
            {"format", w.found ? Json(toString(w.format)) : Json(nullptr)},
            {"tried", std::move(tried)},
            {"memory", w.found ? memoryToJson(w.memory) : Json(nullptr)}};
}

// When the requested format does not fit but another does, the limits in
// that format: what the user gets by switching.
Json withBestWeights(const Scenario& s, const FormatChoice& weights) {
    if (!weights.found || weights.format == s.weights) return nullptr;
    Scenario switched = s;
    switched.weights = weights.format;
    const ContextLimit context = longestContext(switched);
    const BatchLimit batch = largestBatch(switched);
    return {{"weights", toString(weights.format)},
            {"max_context_tokens", context.fits ? Json(context.tokens) : Json(nullptr)},
            {"max_batch", batch.fits ? Json(batch.batch) : Json(nullptr)},
            {"context", contextToJson(context, switched)},
            {"batch", batchToJson(batch)}};
}

}  // namespace

Json limitsToJson(const Catalog& catalog, const Json& request) {
    std::vector<Warning> warnings;
    const Scenario s = scenarioFromJson(catalog, request, warnings);
    checkScenario(s);
    const int gpuCount = !s.gpuCountAuto ? s.gpuCount : runsOnOneDevice(s) ? 1 : fewestGpus(s).value_or(1);
    const ContextLimit context = longestContext(s);
    const BatchLimit batch = largestBatch(s);

    Json out = {{"ok", true},
                {"model", {{"id", s.model.id}, {"name", s.model.name}}},
                {"gpu", {{"id", s.gpu.id}, {"name", s.gpu.name}, {"memory_gib", tidy(s.gpu.memoryGib)}}},
                {"gpu_count", gpuCount},
                {"task", toString(s.task)},
                {"max_context_tokens", context.fits ? Json(context.tokens) : Json(nullptr)},
                {"max_batch", batch.fits ? Json(batch.batch) : Json(nullptr)},
                {"context", contextToJson(context, s)},
                {"batch", batchToJson(batch)}};
    // Weight formats are an inference choice: training keeps 16-bit weights
    // (QLoRA's NF4 is part of the method).
    if (s.task == Task::Inference) {
        const FormatChoice weights = bestWeightFormat(s);
        out["best_weights"] = weights.found ? Json(toString(weights.format)) : Json(nullptr);
        out["weights"] = weightsToJson(weights);
        out["with_best_weights"] = withBestWeights(s, weights);
    } else {
        out["best_weights"] = nullptr;
        out["weights"] = nullptr;
    }
    out["warnings"] = warningsToJson(warnings);
    return out;
}

}  // namespace caliper::io
