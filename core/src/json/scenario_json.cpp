#include "json/scenario_json.hpp"

#include <algorithm>
#include <array>
#include <cctype>

#include "caliper/units.hpp"
#include "json/catalog/gpu_json.hpp"
#include "json/hf_config/hf_config.hpp"
#include "json/catalog/model_json.hpp"
#include "json/workload_request_json.hpp"

namespace caliper::io {

namespace {

// Request bounds: large enough for any real job, small enough that every
// product of them stays finite ("absurd sizes" are rejected, CONTRACT.md).
constexpr std::int64_t kMaxTokens = 100'000'000;  // 1e8 tokens of context
constexpr std::int64_t kMaxBatch = 1'000'000;
constexpr double kMaxTrainTokens = 1e16;  // 10 quadrillion, ~600x Llama 3's 15.6T

std::string lowerText(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
    return text;
}

template <class E, std::size_t N>
E parseEnum(const Json& value, const std::string& path, const std::array<E, N>& all,
            std::initializer_list<std::pair<const char*, E>> aliases = {}) {
    std::string list;
    for (E e : all) list += (list.empty() ? "" : ", ") + std::string(toString(e));
    if (!value.is_string()) failType("invalid_value", path, ("one of " + list).c_str(), value);
    const std::string got = lowerText(value.get<std::string>());
    for (E e : all) {
        if (lowerText(toString(e)) == got) return e;
    }
    for (const auto& [alias, e] : aliases) {
        if (lowerText(alias) == got) return e;
    }
    fail("invalid_value", path, "expected one of " + list + ", got " + describe(value));
}

constexpr std::array<Task, 3> kTasks = {Task::Inference, Task::Finetune, Task::Pretrain};
constexpr std::array<Method, 3> kMethods = {Method::Full, Method::Lora, Method::Qlora};
constexpr std::array<Engine, 8> kEngines = {Engine::Transformers, Engine::Vllm,     Engine::Sglang,
                                            Engine::TensorrtLlm,  Engine::LlamaCpp, Engine::Deepspeed,
                                            Engine::Fsdp,         Engine::Megatron};
constexpr std::array<Optimizer, 6> kOptimizers = {Optimizer::AdamW, Optimizer::AdamW8bit, Optimizer::PagedAdamW8bit,
                                                  Optimizer::Sgd, Optimizer::Adafactor, Optimizer::AdamWBf16};
constexpr std::array<Strategy, 10> kStrategies = {Strategy::Auto,  Strategy::Single, Strategy::Ddp,
                                                  Strategy::Zero1, Strategy::Zero2,  Strategy::Zero3,
                                                  Strategy::Fsdp,  Strategy::Tensor, Strategy::Pipeline,
                                                  Strategy::LayerSplit};
constexpr std::array<Offload, 3> kOffloads = {Offload::None, Offload::Optimizer, Offload::Parameters};
constexpr std::array<KvFormat, 6> kKvFormats = {KvFormat::Fp32, KvFormat::Bf16, KvFormat::Fp16,
                                                KvFormat::Fp8,  KvFormat::Q8_0, KvFormat::Q4_0};


void applyTaskDefaults(Scenario& s, ObjectReader& r, std::vector<Warning>& warnings) {
    const bool training = s.task != Task::Inference;
    s.method = training ? parseEnum(r.raw("method") && !r.raw("method")->is_null() ? *r.raw("method") : Json("lora"),
                                    r.pathOf("method"), kMethods)
                        : Method::Full;
    if (s.task == Task::Pretrain) s.method = Method::Full;

    // Default engine per task: vLLM serves, Hugging Face Trainer/PEFT fine-tunes,
    // Megatron pre-trains (CONTRACT.md: defaults depend on the task).
    Engine engine = s.task == Task::Inference ? Engine::Vllm
                    : s.task == Task::Finetune ? Engine::Transformers
                                               : Engine::Megatron;
    if (r.has("engine")) engine = parseEngine(*r.raw("engine"), r.pathOf("engine"));
    else r.ignore("engine");
    s.engine = engine;

    // Without `weights`, adaptToGpu below picks the checkpoint's native format
    // (defaultWeights: plan.why says which and why).
    s.weightsExplicit = r.has("weights") && !r.raw("weights")->is_null();
    if (s.weightsExplicit) s.weights = parseWeightFormat(*r.raw("weights"), r.pathOf("weights"));
    else r.ignore("weights");

    KvFormat kv = s.gpu.supportsBf16 ? KvFormat::Bf16 : KvFormat::Fp16;
    s.kvCacheExplicit = r.has("kv_cache");
    if (s.kvCacheExplicit) kv = parseEnum(*r.raw("kv_cache"), r.pathOf("kv_cache"), kKvFormats, {{"f16", KvFormat::Fp16}});
    else r.ignore("kv_cache");
    s.kvCache = kv;

    s.batch = r.integerOr("batch", 1, 1, kMaxBatch);
    s.promptTokens = r.integerOr("prompt_tokens", training ? 0 : 2048, 0, kMaxTokens);
    s.outputTokens = r.integerOr("output_tokens", training ? 0 : 512, 0, kMaxTokens);
    s.seqLen = r.integerOr("seq_len", s.task == Task::Pretrain ? 4096 : 2048, 1, kMaxTokens);
    if (!training && s.promptTokens + s.outputTokens == 0) {
        fail("invalid_value", r.pathOf("output_tokens"), "prompt_tokens + output_tokens must be at least 1");
    }
    s.optimizer = r.has("optimizer") ? parseEnum(*r.raw("optimizer"), r.pathOf("optimizer"), kOptimizers,
                                                 {{"adam", Optimizer::AdamW}, {"adamw8bit", Optimizer::AdamW8bit},
                                                  {"paged_adamw_8bit", Optimizer::PagedAdamW8bit}})
                                     : (r.ignore("optimizer"), Optimizer::AdamW);
    // QLoRA recipes always checkpoint (QLoRA paper §2), so that is its default.
    s.gradientCheckpointing = r.boolOr("gradient_checkpointing", s.method == Method::Qlora);
    s.flashAttentionExplicit = r.has("flash_attention");
    s.flashAttention = r.boolOr("flash_attention", true);
    adaptToGpu(s);
    (void)warnings;
}

void readLora(Scenario& s, ObjectReader& r) {
    const Json* lora = r.raw("lora");
    if (!lora || lora->is_null()) return;
    ObjectReader l(*lora, r.pathOf("lora"));
    s.lora.rank = static_cast<int>(l.integerOr("rank", 16, 1, 65536));
    s.lora.allLinear = l.enumOr("targets", "all-linear", {"all-linear", "attention"}) == "all-linear";
    l.ignore("alpha");
    l.finish();
}

void readParallel(Scenario& s, ObjectReader& r) {
    const Json* parallel = r.raw("parallel");
    if (!parallel || parallel->is_null()) return;
    ObjectReader p(*parallel, r.pathOf("parallel"));
    if (p.has("strategy")) s.parallel.strategy = parseEnum(*p.raw("strategy"), p.pathOf("strategy"), kStrategies);
    else p.ignore("strategy");
    s.parallel.tp = static_cast<int>(p.integerOr("tp", 0, 1, 1024));
    s.parallel.pp = static_cast<int>(p.integerOr("pp", 0, 1, 1024));
    s.parallel.ep = static_cast<int>(p.integerOr("ep", 0, 1, 1024));
    s.parallel.attentionDp = static_cast<int>(p.integerOr("attention_dp", 0, 1, 1024));
    s.parallel.dp = static_cast<int>(p.integerOr("dp", 0, 1, 1024));
    if (p.has("offload")) s.parallel.offload = parseEnum(*p.raw("offload"), p.pathOf("offload"), kOffloads);
    else p.ignore("offload");
    p.finish();
}

void readGpuCount(Scenario& s, ObjectReader& r) {
    const Json* count = r.raw("gpu_count");
    if (count && count->is_string() && lowerText(count->get<std::string>()) == "auto") {
        s.gpuCountAuto = true;
        s.gpuCount = 1;
        return;
    }
    if (count && !count->is_null() && !count->is_number()) {
        failType("invalid_value", r.pathOf("gpu_count"), "a number of GPUs or \"auto\"", *count);
    }
    s.gpuCount = static_cast<int>(r.integerOr("gpu_count", 1, 1, 1024));
}

void readPrices(Scenario& s, ObjectReader& r) {
    s.trainTokens = r.optionalNumber("train_tokens", 0, kMaxTrainTokens);
    s.currency = r.enumOr("currency", "usd", {"usd", "cny"});
    s.gpuMemoryUtilization = r.numberOr("gpu_memory_utilization", 0.9, 0.05, 1.0);
    s.usdPerGpuHour = r.optionalNumber("usd_per_gpu_hour", 0, 1e6);
    s.priceUsd = r.optionalNumber("price_usd", 0, 1e9);
    s.cnyPerUsd = r.numberOr("cny_per_usd", s.cnyPerUsd, 0.01, 1000);
}

}  // namespace

WeightFormat parseWeightFormat(const Json& value, const std::string& path) {
    std::string list;
    for (WeightFormat f : kAllWeightFormats) list += (list.empty() ? "" : ", ") + std::string(toString(f));
    if (!value.is_string()) failType("invalid_value", path, ("one of " + list).c_str(), value);
    if (const auto format = weightFormatFromName(value.get<std::string>())) return *format;
    fail("invalid_value", path, "expected one of " + list + ", got " + describe(value));
}

Engine parseEngine(const Json& value, const std::string& path) {
    return parseEnum(value, path, kEngines,
                     {{"llamacpp", Engine::LlamaCpp}, {"llama-cpp", Engine::LlamaCpp}, {"trtllm", Engine::TensorrtLlm},
                      {"tensorrt_llm", Engine::TensorrtLlm}, {"hf", Engine::Transformers}});
}

ModelSpec resolveModel(const Catalog& catalog, const Json& value, const std::string& path,
                       std::vector<Warning>& warnings) {
    if (value.is_string()) {
        const std::string query = value.get<std::string>();
        if (const ModelSpec* model = findModel(catalog, query)) return *model;
        const std::string nearest = nearestModelId(catalog, query);
        fail("unknown_model", path,
             "unknown model '" + query.substr(0, 100) + "'" + (nearest.empty() ? "" : "; did you mean '" + nearest + "'?"));
    }
    if (!value.is_object()) failType("invalid_value", path, "a model id or a model object", value);
    if (looksLikeHfConfig(value)) return modelFromHfConfig(value, path, &warnings);
    return modelFromJson(value, path, &warnings, false);
}

namespace {

// "; did you mean 'A', 'B' or 'C'?" from the closest display names.
std::string didYouMean(const std::vector<std::string>& names) {
    if (names.empty()) return "";
    std::string text = "; did you mean ";
    for (std::size_t i = 0; i < names.size(); ++i) {
        if (i > 0) text += i + 1 == names.size() ? " or " : ", ";
        text += "'" + names[i] + "'";
    }
    return text + "?";
}

}  // namespace

GpuSpec resolveGpu(const Catalog& catalog, const Json& value, const std::string& path) {
    if (value.is_string()) {
        const std::string query = value.get<std::string>();
        if (const GpuSpec* gpu = findGpu(catalog, query)) return *gpu;
        fail("unknown_gpu", path, "unknown GPU '" + query.substr(0, 100) + "'" + didYouMean(nearestGpuNames(catalog, query)));
    }
    if (!value.is_object()) failType("invalid_value", path, "a GPU id or a GPU object", value);
    // A card the catalog lacks: the user gives its figures; everything a
    // datasheet would add is filled in as unknown.
    Json filled = {{"id", "custom-gpu"},        {"name", "Custom GPU"},      {"aliases", Json::array()},
                   {"vendor", "nvidia"},        {"class", "datacenter"},     {"market", "global"},
                   {"architecture", "unknown"}, {"compute_capability", nullptr}, {"launch_year", 2024},
                   {"memory_type", "unknown"},  {"bf16_tflops", nullptr},    {"fp16_tflops", nullptr},
                   {"fp16_acc16_tflops", nullptr}, {"fp8_tflops", nullptr},  {"int8_tops", nullptr},
                   {"tf32_tflops", nullptr},    {"fp32_tflops", nullptr},    {"supports_bf16", true},
                   {"supports_fp8", false},     {"flash_attention_2", true}, {"flash_attention_3", false},
                   {"ecc", false},              {"nvlink_version", nullptr}, {"nvlink_gbps", 0},
                   {"nvlink_max_gpus", 0},      {"pcie_gen", 4},             {"form_factor", "pcie"},
                   {"gpus_per_node", 8},        {"tdp_w", 300},              {"price_usd", nullptr},
                   {"price_cny", nullptr},      {"price_year", nullptr},     {"price_note", ""},
                   {"cloud_usd_per_hour", nullptr}, {"cloud_provider", ""},  {"cloud_date", ""},
                   {"caveats", Json::array()},  {"confidence", "low"},       {"sources", {"user input"}},
                   {"notes", "figures entered by the user"}};
    for (auto it = value.begin(); it != value.end(); ++it) filled[it.key()] = it.value();
    if (!filled.contains("memory_gib") && filled.contains("memory_gb") && filled["memory_gb"].is_number()) {
        filled["memory_gib"] = gbToGiB(filled["memory_gb"].get<double>());
    }
    if (!filled.contains("memory_gb") && filled.contains("memory_gib") && filled["memory_gib"].is_number()) {
        filled["memory_gb"] = filled["memory_gib"].get<double>() * kBytesPerGiB / kBytesPerGB;
    }
    return gpuFromJson(filled, path);
}

Scenario scenarioFromJson(const Catalog& catalog, const Json& request, std::vector<Warning>& warnings,
                          const ScenarioOptions& options) {
    ObjectReader r(request, "");
    Scenario s;
    if (options.resolveModelAndGpu) {
        const Json* model = r.raw("model");
        if (!model || model->is_null()) fail("missing_key", "/model", "required key 'model' is missing");
        s.model = resolveModel(catalog, *model, "/model", warnings);
        const Json* gpu = r.raw("gpu");
        if (!gpu || gpu->is_null()) fail("missing_key", "/gpu", "required key 'gpu' is missing");
        s.gpu = resolveGpu(catalog, *gpu, "/gpu");
    } else {
        r.ignore("model");
        r.ignore("gpu");
    }
    readGpuCount(s, r);
    s.task = r.has("task") ? parseEnum(*r.raw("task"), r.pathOf("task"), kTasks,
                                       {{"training", Task::Pretrain}, {"fine-tune", Task::Finetune},
                                        {"serving", Task::Inference}})
                           : (r.ignore("task"), Task::Inference);
    applyTaskDefaults(s, r, warnings);
    readLora(s, r);
    readParallel(s, r);
    readPrices(s, r);
    readServing(s, r);
    readWorkloadKeys(s, r);
    for (const std::string& key : options.extraKeys) r.ignore(key.c_str());
    r.finish();
    return s;
}

}  // namespace caliper::io
