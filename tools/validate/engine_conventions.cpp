// Framework conventions the validation rows rely on without stating them.
#include "validate/engine_conventions.hpp"

#include <cstdio>
#include <optional>

#include "caliper/catalog.hpp"
#include "caliper/model.hpp"
#include "caliper/units.hpp"

namespace caliper::io {

namespace {

// LitGPT's `generate` defaults (generate/base.py at commit 8641822, the
// version of its resource tables): prompt "Hello, my name is" (6 tokens with
// the BOS of a Llama-style tokenizer) and max_new_tokens=50; the KV cache is
// sized to prompt + new tokens (model.max_seq_length = max_returned_tokens).
constexpr std::int64_t kLitGptPromptTokens = 6;
constexpr std::int64_t kLitGptNewTokens = 50;

bool isLitGpt(const RowFacts& f) { return f.engine == "litgpt" || f.engine == "lit-gpt"; }

// The config hub yaml's `devices: N`, as the row's text quotes it ("yaml
// (...): precision bf16-true, ..., devices 2, ...").
std::optional<std::int64_t> yamlDevices(const std::string& text) {
    const std::size_t yaml = text.find("yaml");
    if (yaml == std::string::npos) return std::nullopt;
    const std::size_t at = text.find("devices ", yaml);
    if (at == std::string::npos) return std::nullopt;
    long long n = 0;
    if (std::sscanf(text.c_str() + at, "devices %lld", &n) != 1 || n < 1) return std::nullopt;
    return static_cast<std::int64_t>(n);
}

// LitGPT's LoRA scripts (finetune/lora.py at 8641822: lora_dropout = 0.05,
// lora_query = lora_value = True, the other lora_* flags False; the config
// hub's yaml files and litgpt/finetune/lora.py today keep those defaults).
// Its GPT builds q, k and v as one linear layer, adapted by LoRAQKVLinear
// with one dropout on the shared input (litgpt/lora.py).
constexpr double kLitGptLoraDropout = 0.05;

// The adapted layers a config hub yaml lists ("targets [query,value]",
// "targets [query,key,value,projection,mlp,head]"); LitGPT's defaults where
// the row lists none. lora_head's adapter on lm_head is left out (rank x
// (hidden + vocabulary) parameters).
std::string litGptTargets(const std::string& text) {
    const std::size_t at = text.find("targets [");
    if (at == std::string::npos) return "query-value";
    const std::string list = text.substr(at, text.find(']', at) - at);
    if (contains(list, "mlp")) return "all-linear";
    if (contains(list, "key") || contains(list, "projection")) return "attention";
    return "query-value";
}

// LitGPT's finetune/full.py under precision "bf16-true" trains the bf16
// parameters in place with torch.optim.AdamW, whose exp_avg and exp_avg_sq
// follow the parameter dtype: weights 2 + gradients 2 + moments 4 = 8 bytes
// per parameter stay allocated from the first optimizer step on, on one
// device (strategy "auto" when devices == 1: full.py setup()).
constexpr double kBf16TrueAdamWBytesPerParam = 8;

// transformers 4.49 dropped the heads' shifted-logits copy (loss_kernel
// "eager" vs "eager-shifted"); PEFT keeps adapters in fp32 since v0.12.0
// (July 2024). A row ran today's code paths only when it states a
// transformers version from 4.49 on: the other Hugging Face rows (PEFT's
// README tables of 2023, ms-swift's benchmark of early 2024, the Llama 2
// blog of 2023) predate both changes.
bool currentTransformers(const RowFacts& f) {
    if (f.engine != "transformers" || f.engineVersion.empty()) return false;
    int major = 0, minor = 0;
    if (std::sscanf(f.engineVersion.c_str(), "%d.%d", &major, &minor) != 2) return false;
    return major > 4 || (major == 4 && minor >= 49);
}

// transformers v5 fused the MoE experts into 3D parameters, which PEFT adapts
// by merging (lora.experts "fused", the engine's default for transformers); a
// row of an earlier or unstated version ran one nn.Linear per expert.
bool fusedExpertsTransformers(const RowFacts& f) {
    int major = 0;
    return f.engine == "transformers" && std::sscanf(f.engineVersion.c_str(), "%d", &major) == 1 && major >= 5;
}

void expertModulesUnlessV5(const RowFacts& f, Json& request) {
    if (fusedExpertsTransformers(f) || request.value("method", "lora") != "lora") return;
    Json& lora = request["lora"];
    if (!lora.is_object()) lora = Json::object();
    if (!lora.contains("experts")) lora["experts"] = "modules";
}

// bitsandbytes before 0.43.2 (July 2024) keeps every 4-bit matmul's input
// (lora.kept_4bit_inputs): the rows of earlier code paths ran it (ms-swift's
// early-2024 benchmark states 0.41.3; LitGPT pins 0.42.0).
void keptFourBitInputs(Json& request) {
    const std::string weights = request.value("weights", std::string());
    if (weights != "nf4" && weights != "nf4-dq") return;
    Json& lora = request["lora"];
    if (!lora.is_object()) lora = Json::object();
    if (!lora.contains("kept_4bit_inputs")) lora["kept_4bit_inputs"] = true;
}

// Adapters trained in the model's dtype, where the row does not say (a
// request without a method is fine-tuned with LoRA).
void adaptersInModelDtype(Json& request) {
    if (request.value("method", "lora") == "full") return;
    Json& lora = request["lora"];
    if (!lora.is_object()) lora = Json::object();
    if (!lora.contains("adapter_dtype")) lora["adapter_dtype"] = "model";
}

void applyTransformersEra(const RowFacts& f, const std::string& task, Json& request) {
    if (task != "finetune" && task != "train") return;
    // Only the engines whose default loss is the Hugging Face head's.
    const std::string engine = request.value("engine", "transformers");
    if (engine != "transformers" && engine != "deepspeed" && engine != "fsdp") return;
    expertModulesUnlessV5(f, request);
    // A measured run used the head's own loss: the rows name no Liger
    // kernel, which the planner would otherwise weigh where the eager loss
    // does not fit (loss_kernel "auto").
    if (currentTransformers(f)) {
        if (!request.contains("loss_kernel")) request["loss_kernel"] = "eager";
        return;
    }
    if (!request.contains("loss_kernel")) request["loss_kernel"] = "eager-shifted";
    adaptersInModelDtype(request);
    keptFourBitInputs(request);
}

}  // namespace

void applyFrameworkSetup(const RowFacts& f, RowKind kind, const std::string& text, RowSetup& setup) {
    // An OOM of the script that quantizes the checkpoint (it loads the
    // 16-bit model) says nothing about running the quantized one.
    if (kind == RowKind::Fits && contains(text, "quantize script")) {
        throw Unexpressible{"the OOM happened in the quantization script, not while running the model"};
    }
    if (!isLitGpt(f)) return;
    // LitGPT prints "Memory used: torch.cuda.max_memory_allocated() / 1e9 GB"
    // after fine-tuning and generation (finetune/lora.py, finetune/full.py,
    // generate/base.py at 8641822; litgpt/finetune/*.py today): the resource
    // tables' "Max GPU RAM" and the config hub's "Peak memory".
    if (setup.measured == MeasuredMemory::Process) setup.measured = MeasuredMemory::Allocated;
    if (kind == RowKind::InferenceMemory || kind == RowKind::Fits) {
        if (!setup.promptTokens) setup.promptTokens = kLitGptPromptTokens;
        if (!setup.outputTokens) setup.outputTokens = kLitGptNewTokens;
    }
}

void applyFrameworkRequest(const RowFacts& f, const RowSetup& setup, const std::string& text, const std::string& task,
                           Json& request) {
    if (!isLitGpt(f)) applyTransformersEra(f, task, request);
    if (!isLitGpt(f) || task != "finetune") return;
    // The fine-tuning scripts call model(input_ids, lm_head_chunk_size=128)
    // and chunked_cross_entropy on the bf16 logits (loss_kernel "chunked").
    if (!request.contains("loss_kernel")) request["loss_kernel"] = "chunked";
    // LitGPT's own LoRA and adapter layers (lit_gpt/lora.py, adapter.py)
    // train in the model's dtype.
    adaptersInModelDtype(request);
    // Its 4-bit runs (LoRA and adapters) ran bitsandbytes before 0.43.2.
    keptFourBitInputs(request);
    // LitGPT repeats k and v to every query head for training (litgpt/model.py
    // at the config hub table's commit and at 8641822).
    if (!request.contains("kv_heads_repeated")) request["kv_heads_repeated"] = true;
    // Its GPT builds lm_head (nn.Linear) and wte (nn.Embedding) as separate
    // modules and never ties them (litgpt/model.py, lit_gpt/model.py);
    // convert_hf_checkpoint.py copies a tied checkpoint's table into
    // lm_head.weight, so Gemma, Llama 3.2 and Falcon hold it twice. Only a
    // catalog model says whether its checkpoint ties; an assumed shape's
    // parameter count is the row's, table and all.
    const auto model = request.find("model");
    if (model != request.end() && model->is_string() && !request.contains("untied_head")) request["untied_head"] = true;
    if (f.method == "lora" || f.method == "qlora") {
        Json& lora = request["lora"];
        if (!lora.contains("targets")) lora["targets"] = litGptTargets(text);
        if (!lora.contains("dropout")) lora["dropout"] = kLitGptLoraDropout;
        lora["fused_qkv"] = true;
        // --quantize bnb.*: Lightning Fabric's BitsandbytesPrecision swaps
        // every torch.nn.Linear built under fabric.init_module for its 4-bit
        // class, lm_head (LoRALinear's inner nn.Linear) included
        // (lightning/fabric/plugins/precision/bitsandbytes.py
        // module_init_context; LitGPT names no ignore_modules).
        if (f.method == "qlora") lora["quantized_head"] = true;
        // The config hub's runs (litgpt/finetune/lora.py's fit loop, whose
        // `loss` of one step stays bound through the next forward, with
        // bitsandbytes==0.42.0 pinned, whose MatMul4Bit keeps its input on
        // ctx) hold the previous step's 4-bit matmul inputs. LitGPT 8641822's
        // resource tables do not show it: its first step takes the longest
        // sample (get_batch's longest_seq_ix at iter_num 0), so a later,
        // shorter step and the inputs it keeps stay below that step's peak.
        if (f.method == "qlora" && contains(text, "config_hub")) lora["previous_step_inputs"] = true;
    }
    // `litgpt finetune_adapter_v2`: AdapterV2Linear on every linear layer and
    // trained norms (litgpt/adapter_v2.py; lit_gpt/adapter_v2.py at 8641822).
    if (f.method == "adapter" && (contains(text, "adapter_v2") || contains(text, "adapter v2"))) {
        Json& lora = request["lora"];
        if (!lora.contains("output_scale")) lora["output_scale"] = true;
    }
    // The config hub's README: "All runs are single-GPU experiments", whatever
    // the machine had.
    if (contains(text, "single-gpu experiments")) request["gpu_count"] = 1;
    // The config's own `devices` is what `litgpt finetune_* --config` ran
    // (the README's blanket claim aside): phi-2/full.yaml and
    // stablelm-base-alpha-3b/full.yaml say devices: 2, gemma-2b/full.yaml 4.
    if (const auto devices = yamlDevices(text)) request["gpu_count"] = *devices;
    const auto count = request.find("gpu_count");
    const bool multi = count != request.end() && count->is_number_integer() && count->get<std::int64_t>() > 1;
    if (multi) {
        // devices > 1: FSDPStrategy(auto_wrap_policy={Block},
        // activation_checkpointing_policy={Block}) on a model built on the
        // meta device, then fabric.load_raw of the full checkpoint
        // (finetune/lora.py, lit_gpt/utils.py load_checkpoint at 8641822;
        // litgpt/finetune/full.py and litgpt/utils.py today):
        // every GPU holds the whole unsharded model while it loads, 1.4-1.6x
        // the 16-bit weights in the resource tables, far above the sharded,
        // checkpointed training step. The engine sizes the training step.
        throw Unexpressible{"LitGPT's multi-GPU peak is FSDP loading the full checkpoint on every GPU, not the "
                            "training step the engine sizes"};
    }
    // One device: strategy "auto", no activation checkpointing, QLoRA too.
    if (!setup.gradientCheckpointing) request["gradient_checkpointing"] = false;
}

void checkFrameworkStateFloor(const Catalog& catalog, const RowFacts& f, const Json& request) {
    if (!isLitGpt(f) || request.value("method", "") != "full" || request.value("gpu_count", 1) != 1) return;
    if (request.value("optimizer", "") != "adamw-bf16" || !f.value.is_number()) return;
    const auto model = request.find("model");
    if (model == request.end() || !model->is_string()) return;
    const ModelSpec* spec = findModel(catalog, model->get<std::string>());
    if (!spec) return;
    const double floorGiB = bytesToGiB(kBf16TrueAdamWBytesPerParam * countParams(*spec).total);
    if (f.unit != "gb" && f.unit != "gib") return;
    const double measuredGiB = f.unit == "gb" ? gbToGiB(f.value.get<double>()) : f.value.get<double>();
    if (measuredGiB >= floorGiB) return;
    // The config hub table's full fine-tunes of Llama 3.2 1B/3B and Phi-3
    // (added with those models in 2024) report less than this floor, and
    // Phi-3's 30.6 GB floor exceeds the 24 GB A10G they name: the figure is
    // not one device's training step, whatever setup produced it.
    char reason[200];
    std::snprintf(reason, sizeof reason,
                  "the reported peak %.2f GiB is below the %.2f GiB that bf16 weights, gradients and AdamW moments "
                  "hold on one device", measuredGiB, floorGiB);
    throw Unexpressible{reason};
}

}  // namespace caliper::io
