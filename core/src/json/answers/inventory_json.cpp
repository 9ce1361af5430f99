// The inventory request: the GPUs a user owns ("inventory": [{"gpu", "count"}])
// and scenario keys for the workload; the answer lists, per model, which of
// inference, LoRA, QLoRA and full fine-tuning fit and how fast.
//
// One request describes two kinds of job, so its keys are shared out:
// - "task" and "method" are ignored (every task is evaluated);
// - "engine" goes to the kind of job it serves (vLLM, SGLang, TensorRT-LLM,
//   llama.cpp: inference; DeepSpeed, FSDP, Megatron: training; Transformers: both);
// - "weights" applies to inference only (training uses 16-bit, QLoRA NF4);
// - the context is shared: without prompt_tokens/output_tokens, inference
//   splits seq_len into a prompt and up to 512 generated tokens (as the page
//   does); without seq_len, training uses prompt_tokens + output_tokens;
// - "batch" means concurrent sequences for inference and the micro-batch for
//   training: with a "task" it applies to that kind of job only.
#include <algorithm>

#include "caliper/answers/inventory.hpp"
#include "caliper/plan/compat.hpp"
#include "json/request/request_limits.hpp"
#include "json/result_json.hpp"
#include "json/request/scenario_json.hpp"
#include "json/answers/views_json.hpp"

namespace caliper::io {

namespace {

constexpr std::size_t kMaxInventoryItems = 64;
constexpr std::int64_t kInferenceOutputTokens = 512;  // generated tokens when only seq_len is given (the page's split)

bool has(const Json& request, const char* key) { return request.contains(key) && !request[key].is_null(); }

std::vector<InventoryGroup> readInventory(const Catalog& catalog, const Json& request) {
    const Json* list = has(request, "inventory") ? &request["inventory"] : nullptr;
    if (!list) fail("missing_key", "/inventory", "required key 'inventory' is missing");
    if (list->is_array() && list->empty()) fail("invalid_value", "/inventory", "the inventory lists no GPUs");
    if (!list->is_array() || list->size() > kMaxInventoryItems) {
        failType("invalid_value", "/inventory", "a list of 1 to 64 {\"gpu\", \"count\"} entries", *list);
    }
    std::vector<InventoryGroup> groups;
    for (std::size_t i = 0; i < list->size(); ++i) {
        const std::string path = childPath("/inventory", i);
        ObjectReader item((*list)[i], path);
        const Json* gpu = item.raw("gpu");
        if (!gpu || gpu->is_null()) fail("missing_key", childPath(path, "gpu"), "required key 'gpu' is missing");
        InventoryGroup group{resolveGpu(catalog, *gpu, childPath(path, "gpu")),
                             static_cast<int>(item.integerOr("count", 1, limitOf("inventory.count").minInteger(),
                                                               limitOf("inventory.count").maxInteger()))};
        item.finish();
        auto same = [&](const InventoryGroup& g) { return g.gpu.id == group.gpu.id; };
        auto found = std::find_if(groups.begin(), groups.end(), same);
        if (found != groups.end()) found->count = std::min(1024, found->count + group.count);
        else groups.push_back(std::move(group));
    }
    return groups;
}

std::vector<ModelSpec> readModels(const Catalog& catalog, const Json& request, std::vector<Warning>& warnings) {
    if (!has(request, "model") || (request["model"].is_string() && request["model"].get<std::string>() == "all")) {
        return catalog.models;
    }
    const Json& value = request["model"];
    if (!value.is_array()) return {resolveModel(catalog, value, "/model", warnings)};
    // Each model is a row of the answer: a list longer than the catalog can
    // only repeat entries, and a repeated catalog id is listed once.
    constexpr std::size_t kMaxInventoryModels = 1000;
    if (value.size() > kMaxInventoryModels) {
        fail("too_large", "/model", "more than " + std::to_string(kMaxInventoryModels) + " models");
    }
    std::vector<ModelSpec> models;
    for (std::size_t i = 0; i < value.size(); ++i) {
        ModelSpec model = resolveModel(catalog, value[i], childPath("/model", i), warnings);
        const bool custom = !value[i].is_string();
        const bool repeated = std::any_of(models.begin(), models.end(),
                                          [&](const ModelSpec& m) { return m.id == model.id; });
        if (custom || !repeated) models.push_back(std::move(model));
    }
    return models;
}

// The request as one kind of job would read it (see the file comment).
Json requestFor(const Json& request, bool inference) {
    Json out = request;
    for (const char* key : {"task", "method", "inventory", "model"}) out.erase(key);
    if (has(request, "engine")) {
        const Engine engine = parseEngine(request["engine"], "/engine");
        if (!engineRunsJob(engine, inference)) out.erase("engine");
    }
    if (has(request, "task")) {
        const bool requestIsInference = request["task"].is_string() && request["task"].get<std::string>() == "inference";
        if (requestIsInference != inference) out.erase("batch");
    }
    if (inference) {
        if (!has(request, "prompt_tokens") && !has(request, "output_tokens") && has(request, "seq_len") &&
            request["seq_len"].is_number_integer()) {
            const std::int64_t context = request["seq_len"].get<std::int64_t>();
            const std::int64_t output = std::min(kInferenceOutputTokens, context / 2);
            out["prompt_tokens"] = context - output;
            out["output_tokens"] = output;
        }
        return out;
    }
    for (const char* key : {"weights", "kv_cache"}) out.erase(key);
    if (!has(request, "seq_len") && (has(request, "prompt_tokens") || has(request, "output_tokens"))) {
        const Json& p = has(request, "prompt_tokens") ? request["prompt_tokens"] : Json(0);
        const Json& o = has(request, "output_tokens") ? request["output_tokens"] : Json(0);
        if (p.is_number_integer() && o.is_number_integer() && p.get<std::int64_t>() + o.get<std::int64_t>() > 0) {
            out["seq_len"] = p.get<std::int64_t>() + o.get<std::int64_t>();
        }
    }
    out["task"] = "finetune";
    return out;
}

Json groupFitToJson(const GroupFit& f, bool inference) {
    Json out = {{"fits", f.fits},
                {"gpu_id", f.gpu ? Json(f.gpu->id) : Json(nullptr)},
                {"gpus_used", f.gpusUsed},
                {"gpus_owned", f.owned},
                {"gpus_needed", f.gpusNeeded ? Json(*f.gpusNeeded) : Json(nullptr)},
                {"total_gib", tidy(f.totalGiB)},
                {"strategy", toString(f.strategy)},
                {"weights", toString(f.weights)}};
    if (inference) {
        out["decode_tokens_per_s"] = tidyOrNull(f.decodeTokensPerS);
    } else {
        out["gradient_checkpointing"] = f.gradientCheckpointing;
        out["train_tokens_per_s"] = tidyOrNull(f.trainTokensPerS);
        out["train_hours"] = tidyOrNull(f.trainHours);
    }
    out["rejection"] = f.rejection.empty() ? Json(nullptr) : Json(f.rejection);
    return out;
}

Json taskFitToJson(const TaskFit& t, bool inference, bool mixed) {
    Json out = groupFitToJson(t.best, inference);
    if (!mixed) return out;
    Json byGpu = Json::array();
    for (const GroupFit& g : t.byGroup) byGpu.push_back(groupFitToJson(g, inference));
    out["by_gpu"] = std::move(byGpu);
    return out;
}

Json rowToJson(const InventoryRow& row, bool mixed) {
    Json tasks = Json::object();
    for (int t = 0; t < kInventoryTaskCount; ++t) {
        const auto task = static_cast<InventoryTask>(t);
        tasks[toString(task)] = taskFitToJson(row.tasks[t], task == InventoryTask::Inference, mixed);
    }
    return {{"model_id", row.model->id},
            {"model_name", row.model->name},
            {"params_b", tidy(row.paramsB)},
            {"tasks", std::move(tasks)}};
}

Json workloadToJson(const InventoryWorkloads& w) {
    return {{"inference",
             {{"engine", toString(w.inference.engine)},
              {"batch", w.inference.batch},
              {"prompt_tokens", w.inference.promptTokens},
              {"output_tokens", w.inference.outputTokens}}},
            {"training",
             {{"engine", toString(w.training.engine)},
              {"batch", w.training.batchAuto ? Json("auto") : Json(w.training.batch)},  // "auto": searched per entry
              {"seq_len", w.training.seqLen},
              {"gradient_checkpointing", w.training.gradientCheckpointing}}}};
}

}  // namespace

Json inventoryToJson(const Catalog& catalog, const Json& request) {
    if (!request.is_object()) failType("invalid_value", "", "a JSON object", request);
    const std::vector<InventoryGroup> groups = readInventory(catalog, request);
    std::vector<Warning> warnings;
    // Both readers see the request's own keys, so errors keep its JSON pointers.
    const ScenarioOptions parse{false, {}};
    const InventoryWorkloads workloads{scenarioFromJson(catalog, requestFor(request, true), warnings, parse),
                                       scenarioFromJson(catalog, requestFor(request, false), warnings, parse),
                                       has(request, "gradient_checkpointing")};
    const std::vector<ModelSpec> models = readModels(catalog, request, warnings);
    std::vector<const ModelSpec*> modelPointers;
    for (const ModelSpec& m : models) modelPointers.push_back(&m);

    const InventoryResult result = evaluateInventory(workloads, groups, modelPointers);
    Json gpus = Json::array();
    for (const InventoryGroup& g : groups) {
        gpus.push_back({{"id", g.gpu.id}, {"name", g.gpu.name}, {"count", g.count}, {"memory_gib", tidy(g.gpu.memoryGib)}});
    }
    Json rows = Json::array();
    for (const InventoryRow& row : result.rows) rows.push_back(rowToJson(row, groups.size() > 1));
    return {{"ok", true},
            {"gpus", std::move(gpus)},
            {"workload", workloadToJson(workloads)},
            {"rows", std::move(rows)},
            {"notes", warningsToJson(result.notes)},
            {"warnings", warningsToJson(warnings)}};
}

}  // namespace caliper::io
