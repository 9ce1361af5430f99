#include "json/request/scenario_json.hpp"

#include <algorithm>
#include <array>
#include <cctype>

#include "caliper/names.hpp"
#include "caliper/units.hpp"
#include "json/catalog/gpu_json.hpp"
#include "json/catalog/model_json.hpp"
#include "json/hf_config/hf_config.hpp"
#include "json/request/request_limits.hpp"
#include "json/request/workload_request_json.hpp"

namespace caliper::io {

namespace {

std::string lowerText(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
    return text;
}

// An integer request key within its range in kRequestLimits.
std::int64_t integerWithin(ObjectReader& r, const char* key, std::string_view limitKey, std::int64_t fallback) {
    const RequestLimit limit = limitOf(limitKey);
    return r.integerOr(key, fallback, limit.minInteger(), limit.maxInteger());
}

void applyTaskDefaults(Scenario& s, ObjectReader& r, std::vector<Warning>& warnings) {
    const bool training = s.task != Task::Inference;
    // Inference runs the whole model: `method` (null in the contract's
    // example request) names a training method only.
    if (!training && r.has("method")) {
        fail("incompatible_options", r.pathOf("method"),
             "method (full, lora, qlora) applies to task finetune or pretrain; inference runs the whole model");
    }
    s.method = training ? parseEnum<Method>(r.raw("method") && !r.raw("method")->is_null() ? *r.raw("method") : Json("lora"),
                                    r.pathOf("method"))
                        : (r.ignore("method"), Method::Full);
    if (s.task == Task::Pretrain) s.method = Method::Full;

    // Default engine per task: vLLM serves, Hugging Face Trainer/PEFT fine-tunes,
    // Megatron pre-trains (docs/CONTRACT.md: defaults depend on the task).
    // Apple and other unified-memory machines run llama.cpp (Metal), not vLLM.
    const bool unified = unifiedMemory(s.gpu);
    Engine engine = s.task == Task::Inference ? (unified ? Engine::LlamaCpp : Engine::Vllm)
                    : s.task == Task::Finetune ? Engine::Transformers
                                               : Engine::Megatron;
    s.engineExplicit = r.has("engine");
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
    if (s.kvCacheExplicit) kv = parseEnum<KvFormat>(*r.raw("kv_cache"), r.pathOf("kv_cache"), {{"f16", KvFormat::Fp16}});
    else r.ignore("kv_cache");
    s.kvCache = kv;

    // Training without a batch searches the micro-batch ("auto"), as
    // practitioners raise it until memory or speed stops them; a number is
    // kept as given.
    const Json* batch = r.raw("batch");
    const bool batchAuto = batch && batch->is_string() && lowerText(batch->get<std::string>()) == "auto";
    if (batchAuto || (training && (!batch || batch->is_null()))) {
        if (!training) failType("invalid_value", r.pathOf("batch"), "a number (\"auto\" is the training micro-batch)", *batch);
        s.batchAuto = true;
        s.batch = 1;
        r.ignore("batch");
    } else {
        s.batch = integerWithin(r, "batch", "batch", 1);
    }
    s.promptTokens = integerWithin(r, "prompt_tokens", "prompt_tokens", training ? 0 : 2048);
    s.outputTokens = integerWithin(r, "output_tokens", "output_tokens", training ? 0 : 512);
    s.seqLen = integerWithin(r, "seq_len", "seq_len", s.task == Task::Pretrain ? 4096 : 2048);
    if (!training && s.promptTokens + s.outputTokens == 0) {
        fail("invalid_value", r.pathOf("output_tokens"), "prompt_tokens + output_tokens must be at least 1");
    }
    s.optimizer = r.has("optimizer") ? parseEnum<Optimizer>(*r.raw("optimizer"), r.pathOf("optimizer"),
                                                 {{"adam", Optimizer::AdamW}, {"adamw8bit", Optimizer::AdamW8bit},
                                                  {"paged_adamw_8bit", Optimizer::PagedAdamW8bit}})
                                     : (r.ignore("optimizer"), Optimizer::AdamW);
    // QLoRA recipes always checkpoint (QLoRA paper §2), so that is its default;
    // otherwise "auto" lets the planner turn it on where it is needed to fit.
    // Engines with their own default: Unsloth's get_peft_model examples pass
    // use_gradient_checkpointing="unsloth" (README quick start: layer inputs
    // offloaded to RAM); torchtune's recipes set
    // enable_activation_checkpointing: True, enable_activation_offloading:
    // False (recipes/configs/llama3_1/8B_lora_single_device.yaml).
    const bool unsloth = s.engine == Engine::Unsloth, torchtune = s.engine == Engine::Torchtune;
    const Json* ckpt = r.raw("gradient_checkpointing");
    const std::string ckptText = ckpt && ckpt->is_string() ? lowerText(ckpt->get<std::string>()) : "";
    if (ckptText == "auto") {
        s.gradientCheckpointingAuto = training;
        s.gradientCheckpointing = false;
        r.ignore("gradient_checkpointing");
    } else if (ckptText == "offload") {
        s.gradientCheckpointing = training;
        s.checkpointOffload = training;
        r.ignore("gradient_checkpointing");
    } else if (ckptText == "selective") {
        s.gradientCheckpointing = false;
        s.selectiveRecompute = training;
        r.ignore("gradient_checkpointing");
    } else if (ckpt && !ckpt->is_null() && !ckpt->is_boolean()) {
        failType("invalid_value", r.pathOf("gradient_checkpointing"),
                 "true, false, \"auto\", \"offload\" or \"selective\"", *ckpt);
    } else if (training && (unsloth || torchtune) && !(ckpt && ckpt->is_boolean())) {
        s.gradientCheckpointing = true;
        s.checkpointOffload = unsloth;
        r.ignore("gradient_checkpointing");
    } else {
        const bool given = ckpt && ckpt->is_boolean();
        s.gradientCheckpointing = r.boolOr("gradient_checkpointing", s.method == Method::Qlora);
        s.gradientCheckpointingAuto = training && !given && s.method != Method::Qlora;
    }
    // Megatron-Core's recompute_modules (transformer_config.py): "core_attn"
    // is the selective recomputation above; "layernorm" and "moe_act" discard
    // those outputs and recompute them in backward.
    for (const std::string& module : r.stringList("recompute_modules")) {
        const std::string m = lowerText(module);
        if (m == "core_attn") s.selectiveRecompute = training;
        else if (m == "layernorm") s.recomputeLayernorm = training;
        else if (m == "moe_act") s.recomputeMoeAct = training;
        else failType("invalid_value", r.pathOf("recompute_modules"), "\"core_attn\", \"layernorm\" or \"moe_act\"", Json(module));
    }
    const Json* grads = r.raw("fp32_gradients");
    if (grads && grads->is_string() && lowerText(grads->get<std::string>()) == "auto") r.ignore("fp32_gradients");
    else if (grads && !grads->is_null() && !grads->is_boolean())
        failType("invalid_value", r.pathOf("fp32_gradients"), "true, false or \"auto\"", *grads);
    else if (grads && grads->is_boolean()) s.fp32Gradients = r.boolOr("fp32_gradients", false);
    else r.ignore("fp32_gradients");
    const Json* loss = r.raw("loss_kernel");
    if (loss && loss->is_string() && lowerText(loss->get<std::string>()) == "auto") r.ignore("loss_kernel");
    else if (loss && !loss->is_null()) s.lossKernel = parseEnum<LossKernel>(*loss, r.pathOf("loss_kernel"));
    else r.ignore("loss_kernel");
    s.packing = r.boolOr("packing", false);
    s.flashAttentionExplicit = r.has("flash_attention");
    s.flashAttention = r.boolOr("flash_attention", true);
    s.kvHeadsRepeated = r.boolOr("kv_heads_repeated", false);
    s.untiedHead = r.boolOr("untied_head", false);
    adaptToGpu(s);
    // FP8-stored weights only exist where the linears train in FP8.
    const bool fp8Weights = s.weights == WeightFormat::Fp8 || s.weights == WeightFormat::Fp8Block;
    s.fp8Params = r.boolOr("fp8_params", false) && training && s.method == Method::Full && fp8Weights;
    // autocast only changes an fp32 model's training (the 16-bit formats
    // compute in their own dtype already).
    s.autocast = r.boolOr("autocast", false) && s.task != Task::Inference && s.weights == WeightFormat::Fp32;
    (void)warnings;
}

void readLora(Scenario& s, ObjectReader& r) {
    const Json* lora = r.raw("lora");
    if (!lora || lora->is_null()) return;
    ObjectReader l(*lora, r.pathOf("lora"));
    s.lora.rank = static_cast<int>(integerWithin(l, "rank", "lora.rank", 16));
    if (l.has("targets")) s.lora.targets = parseEnum<LoraTargets>(*l.raw("targets"), l.pathOf("targets"));
    else l.ignore("targets");
    s.lora.fusedQkv = l.boolOr("fused_qkv", false);
    const std::string dtype = l.enumOr("adapter_dtype", "auto", {"auto", "fp32", "model"});
    s.lora.adapterDtype = dtype == "fp32" ? AdapterDtype::Fp32 : dtype == "model" ? AdapterDtype::Model : AdapterDtype::Auto;
    s.lora.dropout = l.numberOr("dropout", 0.0, 0.0, 1.0);
    s.lora.quantizedHead = l.boolOr("quantized_head", false);
    s.lora.previousStepInputs = l.boolOr("previous_step_inputs", false);
    s.lora.upcastUnquantized = l.boolOr("upcast_unquantized", false);
    s.lora.kept4bitInputs = l.boolOr("kept_4bit_inputs", false);
    s.lora.outputScale = l.boolOr("output_scale", false);
    const std::string experts = l.enumOr("experts", "auto", {"auto", "modules", "fused", "frozen"});
    s.lora.experts = experts == "modules"  ? ExpertAdapters::Modules
                     : experts == "fused"  ? ExpertAdapters::Fused
                     : experts == "frozen" ? ExpertAdapters::Frozen
                                           : ExpertAdapters::Auto;
    l.ignore("alpha");
    l.finish();
}

// Returns parallel.nodes (0 when not given), applied once the interconnect is read.
int readParallel(Scenario& s, ObjectReader& r) {
    const Json* parallel = r.raw("parallel");
    if (!parallel || parallel->is_null()) return 0;
    ObjectReader p(*parallel, r.pathOf("parallel"));
    if (p.has("strategy")) s.parallel.strategy = parseEnum<Strategy>(*p.raw("strategy"), p.pathOf("strategy"));
    else p.ignore("strategy");
    s.parallel.tp = static_cast<int>(integerWithin(p, "tp", "parallel.tp", 0));
    s.parallel.pp = static_cast<int>(integerWithin(p, "pp", "parallel.pp", 0));
    s.parallel.ep = static_cast<int>(integerWithin(p, "ep", "parallel.ep", 0));
    s.parallel.cp = static_cast<int>(integerWithin(p, "cp", "parallel.cp", 0));
    s.parallel.vp = static_cast<int>(integerWithin(p, "vp", "parallel.vp", 0));
    s.parallel.attentionDp = static_cast<int>(integerWithin(p, "attention_dp", "parallel.attention_dp", 0));
    s.parallel.dp = static_cast<int>(integerWithin(p, "dp", "parallel.dp", 0));
    s.parallel.reshardAfterForward = p.boolOr("reshard_after_forward", true);
    const int nodes = static_cast<int>(integerWithin(p, "nodes", "parallel.nodes", 0));
    if (p.has("offload")) {
        s.parallel.offload = parseEnum<Offload>(*p.raw("offload"), p.pathOf("offload"));
        s.parallel.offloadExplicit = true;
    } else {
        p.ignore("offload");
    }
    // llama.cpp -ngl and --n-cpu-moe; null = chosen by the planner (checkScenario bounds them by the model).
    s.parallel.gpuLayers = static_cast<int>(p.optionalInteger("gpu_layers", 0, 100000).value_or(-1));
    s.parallel.cpuMoeLayers = static_cast<int>(p.optionalInteger("cpu_moe_layers", 0, 100000).value_or(-1));
    p.finish();
    return nodes;
}

// The machine around the GPUs; defaults by platform (hostDefaults), each
// given key replaces its default.
void readHost(Scenario& s, ObjectReader& r) {
    s.host = hostDefaults(s.gpu);
    const Json* host = r.raw("host");
    if (!host || host->is_null()) {
        r.ignore("host");
        return;
    }
    ObjectReader h(*host, r.pathOf("host"));
    s.host.explicitAny = true;
    auto positive = [&](const char* key, double max) -> std::optional<double> {
        const auto value = h.optionalNumber(key, 0, max);
        if (value && *value <= 0) fail("invalid_value", h.pathOf(key), std::string("host.") + key + " must be above 0");
        return value;
    };
    if (const auto ram = positive("ram_gib", 1e7)) {
        s.host.ramGib = *ram;
        s.host.ramExplicit = true;
    }
    if (const auto bandwidth = positive("memory_bandwidth_gbps", 1e5)) s.host.memoryBandwidthGBps = *bandwidth;
    if (const auto pcie = positive("pcie_gbps", 1e4)) s.host.pcieGBps = *pcie;
    if (const auto cpu = positive("cpu_tflops", 1e4)) {
        s.host.cpuTflops = *cpu;
        s.host.cpuBasis = "as given";
    }
    // Apple: the GPU's share of unified memory is macOS's wired limit
    // (default ~2/3 of RAM up to 36 GB, 3/4 above; raised with
    // `sudo sysctl iogpu.wired_limit_mb`).
    if (const auto wired = positive("gpu_wired_limit_gib", 1e7)) {
        if (s.gpu.vendor != "apple") {
            fail("incompatible_options", h.pathOf("gpu_wired_limit_gib"), "the wired limit applies to unified-memory (Apple) GPUs");
        }
        if (*wired > s.host.ramGib) {
            fail("invalid_value", h.pathOf("gpu_wired_limit_gib"), "the GPU cannot wire more than the machine's RAM");
        }
        s.gpu.memoryGib = *wired;
    }
    h.finish();
}

// The servers around the GPUs: GPUs per node and the fabric between nodes.
void readInterconnect(Scenario& s, ObjectReader& r) {
    const Json* ic = r.raw("interconnect");
    if (!ic || ic->is_null()) {
        r.ignore("interconnect");
        return;
    }
    ObjectReader i(*ic, r.pathOf("interconnect"));
    if (i.has("inter_node")) s.interconnect.interNode = parseEnum<InterNode>(*i.raw("inter_node"), i.pathOf("inter_node"));
    else i.ignore("inter_node");
    s.interconnect.gpusPerNode = static_cast<int>(integerWithin(i, "gpus_per_node", "interconnect.gpus_per_node", 0));
    i.finish();
    if (s.interconnect.gpusPerNode > 0) s.gpu.gpusPerNode = s.interconnect.gpusPerNode;
}

// parallel.nodes: the servers a stated count of GPUs is spread over, equally
// (gpus per node = gpu_count / nodes), which must agree with
// interconnect.gpus_per_node where both are given.
void applyNodes(Scenario& s, int nodes, bool statedCount) {
    if (nodes <= 0) return;
    const std::string path = "/parallel/nodes";
    if (!statedCount) {
        fail("incompatible_options", path,
             "parallel.nodes spreads a stated gpu_count; here the count is chosen (\"auto\", a matrix, a search)");
    }
    if (nodes > s.gpuCount || s.gpuCount % nodes != 0) {
        fail("invalid_parallel", path, "parallel.nodes (" + std::to_string(nodes) + ") must divide gpu_count (" +
                                           std::to_string(s.gpuCount) + ") into equal servers");
    }
    const int perNode = s.gpuCount / nodes;
    if (perNode > limitOf("interconnect.gpus_per_node").maxInteger()) {
        fail("invalid_parallel", path, std::to_string(perNode) + " GPUs per node is more than one server or NVLink domain holds (" +
                                           std::to_string(limitOf("interconnect.gpus_per_node").maxInteger()) + ")");
    }
    if (s.interconnect.gpusPerNode > 0 && s.interconnect.gpusPerNode != perNode) {
        fail("invalid_parallel", path, std::to_string(s.gpuCount) + " GPUs over " + std::to_string(nodes) +
                                           " nodes are " + std::to_string(perNode) + " per node; interconnect.gpus_per_node says " +
                                           std::to_string(s.interconnect.gpusPerNode));
    }
    s.interconnect.gpusPerNode = perNode;  // adaptToGpu keeps it
    s.gpu.gpusPerNode = perNode;
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
    s.gpuCount = static_cast<int>(integerWithin(r, "gpu_count", "gpu_count", 1));
}

void readPrices(Scenario& s, ObjectReader& r) {
    auto optional = [&r](const char* key) {
        const RequestLimit limit = limitOf(key);
        return r.optionalNumber(key, limit.min, limit.max);
    };
    auto numberOr = [&r](const char* key, double fallback) {
        const RequestLimit limit = limitOf(key);
        return r.numberOr(key, fallback, limit.min, limit.max);
    };
    s.trainTokens = optional("train_tokens");
    s.currency = r.enumOr("currency", "usd", {kCurrencyNames[0], kCurrencyNames[1]});
    s.gpuMemoryUtilizationStated = r.has("gpu_memory_utilization");
    s.gpuMemoryUtilization = numberOr("gpu_memory_utilization", 0.9);
    s.usdPerGpuHour = optional("usd_per_gpu_hour");
    s.priceUsd = optional("price_usd");
    s.cnyPerUsd = numberOr("cny_per_usd", s.cnyPerUsd);
}

// The quantization a model name carries ("qwen2.5:7b-instruct-q4_K_M",
// "...-Q4_K_M.gguf") is the weights' format unless `weights` says otherwise;
// one Caliper does not know leaves the default, with a warning.
void applyNamedWeights(Scenario& s, const ModelReference& named, std::vector<Warning>& warnings) {
    if (named.formatName.empty()) return;
    if (!named.weights) {
        warnings.push_back({"model_name_format_unknown",
                            "the model name's quantization '" + named.formatName +
                                "' is not a weight format Caliper knows; sized with " +
                                (s.weightsExplicit ? "the stated 'weights'" : "the default weights") +
                                " (set 'weights' to a known format, e.g. Q4_K_M)"});
        return;
    }
    // GGUF types (from Q8_0 on, weight_format.hpp) are llama.cpp inference formats: a
    // fine-tune of the model a GGUF file names trains its 16-bit checkpoint.
    if (s.task != Task::Inference && *named.weights >= WeightFormat::Q8_0) {
        warnings.push_back({"model_name_format_ignored",
                            "the model name's GGUF quantization '" + named.formatName +
                                "' is for llama.cpp inference; training sizes the checkpoint's weights"});
        return;
    }
    if (!s.weightsExplicit) {
        s.weights = *named.weights;
        s.weightsExplicit = true;
    } else if (s.weights != *named.weights) {
        warnings.push_back({"weights_differ_from_model_name",
                            std::string("'weights' (") + toString(s.weights) + ") differs from the model name's '" +
                                named.formatName + "'; sized with 'weights'"});
    }
}

}  // namespace

WeightFormat parseWeightFormat(const Json& value, const std::string& path) {
    std::string list;
    for (const auto& n : Names<WeightFormat>::table) list += (list.empty() ? "" : ", ") + std::string(n.name);
    if (!value.is_string()) failType("invalid_value", path, ("one of " + list).c_str(), value);
    if (const auto format = weightFormatFromName(value.get<std::string>())) return *format;
    fail("invalid_value", path, "expected one of " + list + ", got " + describe(value));
}

Engine parseEngine(const Json& value, const std::string& path) {
    return parseEnum<Engine>(value, path,
                     {{"llamacpp", Engine::LlamaCpp}, {"llama-cpp", Engine::LlamaCpp}, {"trtllm", Engine::TensorrtLlm},
                      {"tensorrt_llm", Engine::TensorrtLlm}, {"hf", Engine::Transformers}, {"mlx-lm", Engine::Mlx}});
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

ModelSpec resolveModel(const Catalog& catalog, const Json& value, const std::string& path,
                       std::vector<Warning>& warnings, ModelReference* named) {
    if (value.is_string()) {
        const std::string query = value.get<std::string>();
        const ModelReference ref = findModelReference(catalog, query);
        if (ref.model) {
            if (named) *named = ref;
            else if (!ref.formatName.empty()) {
                warnings.push_back({"model_name_format_ignored",
                                    "the quantization in the model name ('" + ref.formatName +
                                        "') is not applied here; set 'weights' to size that format"});
            }
            return *ref.model;
        }
        fail("unknown_model", path, "unknown model '" + query.substr(0, 100) + "'" + didYouMean(nearestModelNames(catalog, query)));
    }
    if (!value.is_object()) failType("invalid_value", path, "a model id or a model object", value);
    if (looksLikeHfConfig(value)) return modelFromHfConfig(value, path, &warnings);
    return modelFromJson(value, path, &warnings, false);
}

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
    // The size the user gave is checked as given: a bad memory_gib must not
    // be reported as the memory_gb derived from it (or the other way round).
    for (const char* key : {"memory_gib", "memory_gb"}) {
        const auto given = value.find(key);
        if (given != value.end() && !(given->is_number() && given->get<double>() > 0)) {
            failType("invalid_value", path + "/" + key, "a positive number", *given);
        }
        // Checked before the other unit is derived from it, so the error
        // names the key the user wrote.
        if (given != value.end() && given->get<double>() > kMaxGpuMemory) {
            failType("invalid_value", path + "/" + key, "a number at most 2048", *given);
        }
    }
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
    ModelReference named;  // the quantization a model name carries ("...-Q4_K_M.gguf")
    if (options.resolveModelAndGpu) {
        const Json* model = r.raw("model");
        if (!model || model->is_null()) fail("missing_key", "/model", "required key 'model' is missing");
        s.model = resolveModel(catalog, *model, "/model", warnings, &named);
        const Json* gpu = r.raw("gpu");
        if (!gpu || gpu->is_null()) fail("missing_key", "/gpu", "required key 'gpu' is missing");
        s.gpu = resolveGpu(catalog, *gpu, "/gpu");
    } else {
        r.ignore("model");
        r.ignore("gpu");
    }
    readGpuCount(s, r);
    s.task = r.has("task") ? parseEnum<Task>(*r.raw("task"), r.pathOf("task"),
                                       {{"training", Task::Pretrain}, {"fine-tune", Task::Finetune},
                                        {"serving", Task::Inference}})
                           : (r.ignore("task"), Task::Inference);
    applyTaskDefaults(s, r, warnings);
    applyNamedWeights(s, named, warnings);
    readLora(s, r);
    const int nodes = readParallel(s, r);
    readPrices(s, r);
    readHost(s, r);
    readInterconnect(s, r);
    applyNodes(s, nodes, options.resolveModelAndGpu && !s.gpuCountAuto);
    s.globalBatch = integerWithin(r, "global_batch", "global_batch", 0);
    // The limit an "auto" count is chosen within (the matrix's max_gpus).
    s.maxGpus = static_cast<int>(r.integerOr("max_gpus", 1024, 1, 1024));
    readServing(s, r);
    readWorkloadKeys(s, r);
    for (const std::string& key : options.extraKeys) r.ignore(key.c_str());
    r.finish();
    return s;
}

}  // namespace caliper::io
