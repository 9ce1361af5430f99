// describe (docs/CONTRACT.md "Describe"): the interface's vocabulary, read
// from the tables the request readers and the writers use: enum names
// (caliper/names.hpp), ranges (request_limits.hpp), the defaults an empty
// request resolves to, the presets (answers/presets.cpp) and the matrix
// cell's fields (matrix_json.cpp).
#include <cmath>

#include "caliper/names.hpp"
#include "json/request/request_limits.hpp"
#include "json/request/scenario_json.hpp"
#include "json/answers/views_json.hpp"

namespace caliper::io {

namespace {

constexpr const char* kContractVersion = "2";

// The codes of the `warnings`, and of recommend's `reasons`, `watch` and
// `notes` entries the engine writes (the page translates by code). A test
// (tests/unit/json/test_describe.cpp) finds every code in core/src and
// checks it is listed here.
constexpr const char* kWarningCodes[] = {
    "cheapest",          "communication_bound",     "context_exceeds_model", "does_not_fit",
    "fastest",           "fewest_gpus",             "fits",                  "fp4_weight_only",
    "fp8_weight_only",   "kv_pool_too_small",       "layer_split_no_speedup", "limited_nvlink",
    "liquid_cooling",    "lowest_cost_per_token",   "lowest_power",          "mixed_inventory",
    "model_shape_assumed", "multi_node", "gpus_idle",            "no_bf16",               "no_ecc",
    "no_flash_attention_2", "no_fp8",               "no_gpus",               "no_nvlink",
    "no_power",          "no_price",                "no_speed",              "no_tensor_rate",
    "nothing_fits",      "nvlink",                  "ollama_context_truncated", "params_b_mismatch", "partial_nvlink",
    "purchase_cards_only", "purchase_cost_per_token", "rack_power",          "scaled_out",
    "single_gpu",        "software_ecosystem",      "speed_unknown",         "tp_across_nodes",
    "tp_over_pcie",      "unpriced_last",
    // serve and the workloads room
    "disaggregated_not_searched", "request_rate_above_capacity", "requests_queue", "slo_not_met", "slo_not_judged",
    "unknown_compute_rate", "workload_trained_as_transformer",
    // the planner's host offload and board power
    "cpu_offload_slow", "cpu_offload_pcie_bound", "ollama_layers_on_cpu", "cpu_offload_compute_bound", "host_ram_too_small",
    "host_ram_assumed", "power_unknown",
    // an "auto" count above max_gpus; tensor parallelism asked for at a count it cannot split
    "over_max_gpus", "tensor_parallel_impossible",
    // a quantization in the model's name (Ollama tag, GGUF file name)
    "model_name_format_unknown", "model_name_format_ignored", "weights_differ_from_model_name"};

// The codes of {"ok":false,"error":{"code",...}}: the engine's, and the
// WebAssembly module's own (no_catalog, unknown_function).
constexpr const char* kErrorCodes[] = {
    "duplicate_alias", "duplicate_id",  "incompatible_options", "internal_error", "invalid_catalog",
    "invalid_config",  "invalid_json",  "invalid_parallel",     "invalid_value",  "missing_key",
    "no_catalog",      "out_of_memory", "too_deep",             "too_large",      "unknown_caveat",
    "unknown_function", "unknown_gpu",  "unknown_key",          "unknown_model",  "unsupported_format"};

template <class E>
Json namesOf() {
    Json names = Json::array();
    for (const auto& n : Names<E>::table) names.push_back(n.name);
    return names;
}

template <class List>
Json listOf(const List& list) {
    Json out = Json::array();
    for (const char* name : list) out.push_back(name);
    return out;
}

// A bound as an integer where it is one (1000000, not 1000000.0).
Json bound(double v) {
    if (std::floor(v) == v && std::fabs(v) < 9e15) return static_cast<std::int64_t>(v);
    return v;
}

Json orNull(const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); }

// The request keys an empty request of `task` resolves to. Keys that follow
// the model and the GPU (weights, kv_cache, flash_attention) are left out.
Json taskDefaults(const Catalog& catalog, Task task) {
    std::vector<Warning> warnings;
    ScenarioOptions options;
    options.resolveModelAndGpu = false;
    const Scenario s = scenarioFromJson(catalog, Json{{"task", toString(task)}}, warnings, options);
    return {{"task", toString(s.task)},
            // Inference runs the whole model: no method (CONTRACT `method`),
            // as the estimate's scenario echo says.
            {"method", task == Task::Inference ? Json(nullptr) : Json(toString(s.method))},
            {"engine", toString(s.engine)},
            {"gpu_count", s.gpuCount},
            {"batch", s.batchAuto ? Json("auto") : Json(s.batch)},
            {"prompt_tokens", s.promptTokens},
            {"output_tokens", s.outputTokens},
            {"seq_len", s.seqLen},
            {"optimizer", toString(s.optimizer)},
            {"gradient_checkpointing", s.gradientCheckpointingAuto ? Json("auto")
                                       : s.selectiveRecompute     ? Json("selective")
                                                                  : Json(s.gradientCheckpointing)},
            {"packing", s.packing},
            {"autocast", s.autocast},
            {"kv_heads_repeated", s.kvHeadsRepeated},
            {"untied_head", s.untiedHead},
            {"fp8_params", s.fp8Params},
            {"lora", {{"rank", s.lora.rank}, {"targets", toString(s.lora.targets)}, {"fused_qkv", s.lora.fusedQkv}, {"adapter_dtype", "auto"},
                      {"quantized_head", s.lora.quantizedHead}, {"previous_step_inputs", s.lora.previousStepInputs},
                      {"upcast_unquantized", s.lora.upcastUnquantized}, {"kept_4bit_inputs", s.lora.kept4bitInputs},
                      {"output_scale", s.lora.outputScale}, {"experts", "auto"}}},
            {"parallel",
             {{"strategy", toString(s.parallel.strategy)},
              {"tp", s.parallel.tp > 0 ? Json(s.parallel.tp) : Json(nullptr)},
              {"pp", s.parallel.pp > 0 ? Json(s.parallel.pp) : Json(nullptr)},
              {"offload", toString(s.parallel.offload)}}},
            {"train_tokens", orNull(s.trainTokens)},
            {"currency", s.currency},
            {"gpu_memory_utilization", s.gpuMemoryUtilization},
            {"usd_per_gpu_hour", orNull(s.usdPerGpuHour)},
            {"price_usd", orNull(s.priceUsd)},
            {"cny_per_usd", s.cnyPerUsd}};
}

}  // namespace

Json describeToJson(const Catalog& catalog) {
    Json enums = {{"task", namesOf<Task>()},
                  {"method", namesOf<Method>()},
                  {"engine", namesOf<Engine>()},
                  {"weights", namesOf<WeightFormat>()},
                  {"kv_cache", namesOf<KvFormat>()},
                  {"optimizer", namesOf<Optimizer>()},
                  {"strategy", namesOf<Strategy>()},
                  {"offload", namesOf<Offload>()},
                  {"loss_kernel", namesOf<LossKernel>()},
                  {"lora_targets", namesOf<LoraTargets>()},
                  {"inter_node", namesOf<InterNode>()},
                  {"objective", namesOf<Objective>()},
                  {"pricing", namesOf<Pricing>()},
                  {"currency", listOf(kCurrencyNames)},
                  {"status", namesOf<CellStatus>()}};
    Json defaults = Json::object();
    for (const auto& t : Names<Task>::table) defaults[t.name] = taskDefaults(catalog, t.value);
    Json limits = Json::object();
    for (const RequestLimit& l : kRequestLimits) limits[std::string(l.key)] = {{"min", bound(l.min)}, {"max", bound(l.max)}};
    Json presetList = Json::array();
    for (const Preset& p : presets()) {
        // The size band (and modality) the preset's model comes from, as the
        // matrix request's model_filter reads it.
        Json band = {{"min_params_b", p.minParamsB > 0 ? Json(p.minParamsB) : Json(nullptr)},
                     {"max_params_b", p.maxParamsB > 0 ? Json(p.maxParamsB) : Json(nullptr)},
                     {"modality", p.modality.empty() ? Json(nullptr) : Json(p.modality)}};
        presetList.push_back({{"id", p.id},
                              {"label_en", p.labelEn},
                              {"label_zh", p.labelZh},
                              {"request", presetRequest(catalog, p)},
                              {"model_band", std::move(band)},
                              {"document_picks", p.documentPicks},
                              {"document_reason", p.documentReason},
                              {"document_pick_gpus", p.documentPickGpus},
                              {"document_source", kPresetSource}});
    }
    return {{"contract_version", kContractVersion},
            {"enums", std::move(enums)},
            {"defaults", std::move(defaults)},
            {"limits", std::move(limits)},
            {"presets", std::move(presetList)},
            {"matrix_cell_fields", matrixCellFields()},
            {"warning_codes", listOf(kWarningCodes)},
            {"error_codes", listOf(kErrorCodes)}};
}

}  // namespace caliper::io
