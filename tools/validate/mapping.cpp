// Builds the request for one validation row from its structured fields and
// the setup its free text describes (validation_text.cpp).
#include "validate/mapping.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

#include "caliper/plan/plan.hpp"
#include "validate/engine_conventions.hpp"
#include "json/request/request_limits.hpp"
#include "validate/benchmark_models.hpp"
#include "validate/names.hpp"
#include "validate/row.hpp"
#include "validate/serving_instance.hpp"
#include "validate/text.hpp"

namespace caliper::io {

namespace {

// "Short prompt" / "short texts" with no count: a sentence or a tweet. At
// this length KV cache and activations are a small share of memory, so the
// exact count barely moves the total.
constexpr std::int64_t kShortTextTokens = 64;
// Speed rows that give no token count: llama-bench's defaults (tg128, pp512),
// the usual way single-stream decode and prompt speeds are quoted.
constexpr std::int64_t kDefaultGeneratedTokens = 128;
constexpr std::int64_t kDefaultPromptTokens = 512;

std::string taskOf(RowKind kind, const std::string& method) {
    if (isInferenceKind(kind)) return "inference";
    if (method == "pretrain" || method == "pre-train" || method == "pretraining") return "pretrain";
    if (kind == RowKind::Fits && (method.empty() || method == "inference")) return "inference";
    if (kind == RowKind::TrainThroughput && (method.empty() || method == "inference")) return "pretrain";
    return "finetune";
}

// `layoutSplit`: the row states tensor or pipeline degrees above 1. The
// `fsdp` engine is PyTorch FSDP over Hugging Face modules, data parallel
// only; a 4D layout whose data-parallel part is FSDP (Llama 3's TP x CP x
// PP x FSDP, arXiv 2407.21783 section 3.3.2) names the data-parallel scheme
// (parallel.strategy), not the modules, which are the pre-training default's.
std::string engineFor(const EnginesNamed& e, const std::string& task, bool layoutSplit) {
    if (task == "inference") {
        if (e.llamaCpp) return "llama.cpp";
        if (e.tensorrtLlm) return "tensorrt-llm";
        if (e.sglang) return "sglang";
        if (e.vllm) return "vllm";
        if (e.transformers) return "transformers";
        return "";
    }
    if (e.megatron) return "megatron";
    if (e.deepspeed) return "deepspeed";
    if (e.fsdp && !layoutSplit) return "fsdp";
    if (e.transformers) return "transformers";
    return "";
}

// The contract's weight format for the row's `quant` words, empty for none.
std::string weightFormat(const std::string& q) {
    if (q.empty()) return "";
    if ((q[0] == 'q' || q.rfind("iq", 0) == 0) && q.find('_') != std::string::npos) return q;  // GGUF types
    if (q.rfind("bf16", 0) == 0) return "bf16";
    if (q.rfind("fp16", 0) == 0 || q.rfind("f16", 0) == 0 || q == "float16" || q == "half") return "fp16";
    if (q.rfind("fp32", 0) == 0 || q.rfind("f32", 0) == 0 || q == "float32") return "fp32";
    // Megatron-Bridge's FP8 recipes (current scaling "fp8-cs", MXFP8 "fp8-mx"
    // / "mxfp8" with 1x32 block scales) all train the linear layers in FP8.
    if (q.rfind("fp8", 0) == 0 || contains(q, "e4m3") || contains(q, "mxfp8")) return "fp8";
    if (contains(q, "mxfp4")) return "mxfp4";
    if (q == "fp4" || q == "nvfp4") return "nvfp4";  // aiconfigurator's fp4 (gpt-oss: MXFP4, buildMapping)
    if (contains(q, "nf4") || contains(q, "bnb-4bit") || contains(q, "4bit") || contains(q, "4-bit")) {
        return contains(q, "double") || contains(q, "-dq") ? "nf4-dq" : "nf4";
    }
    if (contains(q, "awq")) return "awq-int4";
    if (contains(q, "gptq") && !contains(q, "8")) return "gptq-int4";  // GPTQ is 4-bit unless it says 8
    if (contains(q, "int8") || contains(q, "8bit") || contains(q, "8-bit")) return "int8";
    if (contains(q, "int4")) return "int4";
    throw Unexpressible{"weight format '" + q + "' is not one the engine knows"};
}

Json modelRequest(const Catalog& catalog, const RowFacts& f, const RowSetup& setup) {
    if (const ModelSpec* model = findRowModel(catalog, f.model, f.paramsB)) return model->id;
    if (std::optional<Json> benchmark = benchmarkModel(f.model)) return *benchmark;
    Json object = Json::object();
    const ModelShapeText& s = setup.shape;
    if (s.hidden) object["hidden_size"] = *s.hidden;
    if (s.layers) object["layers"] = *s.layers;
    if (s.heads) object["heads"] = *s.heads;
    if (s.kvHeads) object["kv_heads"] = *s.kvHeads;
    else if (s.multiQuery) object["kv_heads"] = 1;
    if (s.vocab) object["vocab_size"] = *s.vocab;
    if (s.intermediate) object["intermediate_size"] = *s.intermediate;
    const bool fullShape = s.hidden && s.layers && s.heads && s.vocab && s.intermediate;
    if (f.paramsB && *f.paramsB > 0) object["params_b"] = *f.paramsB;
    else if (!fullShape) throw Unexpressible{"model '" + f.model + "' is not in the catalog and the row gives no size"};
    return object;
}

// A count from a number field: rounded, and bounded so that absurd values
// stay integers for the request reader to reject.
std::int64_t countOf(double value) { return std::llround(std::clamp(value, 0.0, 1e12)); }

void setGpu(const Catalog& catalog, const RowFacts& f, RowKind kind, RowMapping& m) {
    if (namesNoGpu(f.gpu)) {
        const GpuSpec* any = largestGpu(catalog);
        if (!isMemoryKind(kind) || !any) throw Unexpressible{"the row names no GPU"};
        m.request["gpu"] = any->id;  // per-GPU memory does not depend on the card
        m.gpuStated = false;
    } else {
        const GpuSpec* gpu = findRowGpu(catalog, f.gpu);
        if (!gpu) throw Unexpressible{"GPU '" + f.gpu + "' is not in the catalog"};
        m.request["gpu"] = gpu->id;
        // The run happened on these GPUs, so the setup fitted them.
        if (kind != RowKind::Fits && f.measuredRun) m.expectFits = true;
    }
    if (f.gpuCount && *f.gpuCount >= 1) m.request["gpu_count"] = countOf(*f.gpuCount);
    else if (const auto named = countInGpuName(f.gpu)) m.request["gpu_count"] = *named;
    else if (kind == RowKind::TrainThroughput) m.request["gpu_count"] = "auto";
}

void setInferenceTokens(RowKind kind, const RowFacts& f, const RowSetup& s, Json& req) {
    const bool bench = s.engines.llamaCpp;
    const std::optional<std::int64_t> seq =
        f.seqLen ? std::optional<std::int64_t>(countOf(*f.seqLen)) : std::nullopt;
    if (kind == RowKind::Decode) {
        // llama-bench tgN generates N tokens from an empty context.
        const auto out = bench && s.benchGenerate ? s.benchGenerate : s.outputTokens ? s.outputTokens : seq;
        req["prompt_tokens"] = bench && s.benchGenerate ? 0 : s.promptTokens.value_or(0);
        req["output_tokens"] = out.value_or(kDefaultGeneratedTokens);
    } else if (kind == RowKind::Prefill) {
        const auto prompt = bench && s.benchPrompt ? s.benchPrompt : s.promptTokens ? s.promptTokens : seq;
        req["prompt_tokens"] = prompt.value_or(kDefaultPromptTokens);
        req["output_tokens"] = 0;
    } else if (kind == RowKind::InferenceMemory) {
        if (s.longPromptUncounted) throw Unexpressible{"the long prompt's length is not stated"};
        const auto prompt = s.promptTokens ? s.promptTokens
                            : s.shortText  ? std::optional<std::int64_t>(kShortTextTokens)
                                           : seq;
        if (!prompt) throw Unexpressible{"the prompt length is not stated"};
        req["prompt_tokens"] = *prompt;
        req["output_tokens"] = s.outputTokens.value_or(0);
    } else if (s.promptTokens || s.outputTokens) {
        if (s.promptTokens) req["prompt_tokens"] = *s.promptTokens;
        if (s.outputTokens) req["output_tokens"] = *s.outputTokens;
    }
    if (f.batch && *f.batch >= 1) req["batch"] = countOf(*f.batch);
    else if (s.batch) req["batch"] = *s.batch;
}

// A fine-tuning config that accumulates gradients over micro-batches keeps
// them alive through the next forward (memory/train_activations.cpp): its
// global batch is the stated global_batch_size, or the micro-batch times
// gradient_accumulation_steps.
void setAccumulation(const RowSetup& s, Json& req) {
    if (req.contains("global_batch") || req.value("task", std::string()) != "finetune") return;
    const std::int64_t batch = req.contains("batch") && req["batch"].is_number_integer() ? req["batch"].get<std::int64_t>() : 1;
    if (s.globalBatchSize && *s.globalBatchSize > batch) req["global_batch"] = *s.globalBatchSize;
    else if (s.accumulationSteps && *s.accumulationSteps > 1) req["global_batch"] = batch * *s.accumulationSteps;
}

void setTraining(const RowFacts& f, const RowSetup& s, Json& req) {
    if (f.seqLen && *f.seqLen >= 1) req["seq_len"] = countOf(*f.seqLen);
    else if (s.seqLen) req["seq_len"] = *s.seqLen;
    else if (s.shortText) req["seq_len"] = kShortTextTokens;
    // Runs described by a global batch reach it by gradient accumulation; the
    // per-GPU micro-batch is what memory and step shape depend on.
    if (f.globalBatch && *f.globalBatch >= 1) req["global_batch"] = countOf(*f.globalBatch);
    // A row whose text calls its batch the global one (the Megatron-LM
    // README's weak-scaling table) states the step's sequences: the
    // micro-batches a pipeline runs follow from it.
    else if (s.globalBatch && f.method == "pretrain" && f.batch && *f.batch >= 1) req["global_batch"] = countOf(*f.batch);
    if (s.microBatch) req["batch"] = *s.microBatch;
    else if (s.globalBatch) req["batch"] = 1;
    else if (f.batch && *f.batch >= 1) req["batch"] = countOf(*f.batch);
    else if (s.batch) req["batch"] = *s.batch;
    // A measured run is scored at one micro-batch, not the planner's search:
    // where the row states none, one sequence (the rows' constants were
    // fitted so).
    else req["batch"] = 1;
    if (f.method == "lora" || f.method == "qlora") {
        Json lora = Json::object();
        if (s.loraRank) lora["rank"] = *s.loraRank;
        // PEFT's default target modules are the attention projections.
        if (s.loraAllLinear) lora["targets"] = *s.loraAllLinear ? "all-linear" : "attention";
        else if (s.engines.peft) lora["targets"] = "attention";
        if (!lora.empty()) req["lora"] = lora;
    }
    if (!s.optimizer.empty()) req["optimizer"] = s.optimizer;
    if (s.packed) req["packing"] = true;
    // fp32 weights under torch.autocast: the engine applies it to fp32 training only.
    if (s.autocast) req["autocast"] = true;
    // A Megatron run on several GPUs whose row states no TP or PP ran a layout
    // its authors chose for memory (NeMo's long-sequence table: "the most
    // performant model- and data-parallel configurations ... given the memory
    // capacity constraint"): the layout and its recomputation are the planner's.
    const bool layoutUnstated = !s.tp && !s.pp && req.value("engine", std::string()) == "megatron" &&
                                req.contains("gpu_count") && req["gpu_count"].is_number() &&
                                req["gpu_count"].get<std::int64_t>() > 1;
    if (s.gradientCheckpointing) req["gradient_checkpointing"] = *s.gradientCheckpointing;
    else if (s.selectiveRecompute) req["gradient_checkpointing"] = "selective";
    // A measured run is scored under its own setup: where the text does not
    // turn checkpointing on, the frameworks' default (off) ran, not the
    // planner's choice. QLoRA keeps its recipe default (on).
    else if (f.method != "qlora" && !layoutUnstated) req["gradient_checkpointing"] = false;
    if (!s.recomputeModules.empty()) req["recompute_modules"] = s.recomputeModules;
}

void setParallel(const RowSetup& s, bool training, Json& req) {
    // Context parallelism exists for long sequences: without the length the
    // stage ran, its ring traffic and memory cannot be placed.
    if (training && s.cp && *s.cp > 1 && !req.contains("seq_len")) {
        throw Unexpressible{"context parallelism (CP " + std::to_string(*s.cp) + ") at a sequence length the row does not state"};
    }
    if (s.kvOnHost) throw Unexpressible{"a KV cache kept in host memory is not modelled"};
    const bool multi =
        req.contains("gpu_count") && req["gpu_count"].is_number() && req["gpu_count"].get<std::int64_t>() > 1;
    Json parallel = Json::object();
    if (multi && s.tp) parallel["tp"] = *s.tp;
    if (multi && s.pp) parallel["pp"] = *s.pp;
    // A stated CP of 1 is the run's own (no sequence split), not the planner's choice.
    if (multi && training && s.cp && *s.cp >= 1) parallel["cp"] = *s.cp;
    if (multi && training && s.ep && *s.ep > 1) parallel["ep"] = *s.ep;
    // A stated VP of 1 is the plain 1F1B schedule, not the planner's choice.
    if (multi && training && s.vp && *s.vp >= 1 && s.pp && *s.pp > 1) parallel["vp"] = *s.vp;
    const bool splitByDegrees = (s.tp && *s.tp > 1) || (s.pp && *s.pp > 1);
    if (s.zeroStage) parallel["strategy"] = *s.zeroStage == 0 ? "ddp" : "zero" + std::to_string(*s.zeroStage);
    else if (multi && s.layerSplit) parallel["strategy"] = training ? "pipeline" : "layer-split";
    else if (multi && training && s.fsdpColumn && *s.fsdpColumn > 0) parallel["strategy"] = "fsdp";
    // The run's own FSDP sharding strategy (llm-foundry's tables:
    // "sharding_strategy=FULL_SHARD"), not the planner's choice.
    else if (multi && training && !s.fsdpSharding.empty()) parallel["strategy"] = s.fsdpSharding;
    else if (multi && training && s.distributedOptimizer && !splitByDegrees) parallel["strategy"] = "zero1";
    if (multi && training && s.fsdpKeepsGathered && parallel.value("strategy", std::string()) == "fsdp") {
        parallel["reshard_after_forward"] = false;
    }
    if (s.offloadParameters) parallel["offload"] = "parameters";
    else if (s.offloadOptimizer) parallel["offload"] = "optimizer";
    // A training run that names no offload kept its states on the GPUs: the
    // planner's ZeRO-Offload (weighed where no GPU-only plan fits) is not
    // what it measured.
    else if (training) parallel["offload"] = "none";
    if (!parallel.empty()) req["parallel"] = parallel;
}

// A stated cluster may hold up to kMaxGpuCount GPUs (the request's limit).
// A per-GPU training rate at stated tensor and pipeline degrees barely
// depends on how many data-parallel replicas run beside it, so a larger run
// is scored on as many replicas as fit.
void keepWithinGpuLimit(const RowSetup& s, RowMapping& m) {
    constexpr std::int64_t kMaxGpus = static_cast<std::int64_t>(kMaxGpuCount);
    const auto count = m.request.find("gpu_count");
    if (count == m.request.end() || !count->is_number_integer() || count->get<std::int64_t>() <= kMaxGpus) return;
    const bool perGpuRate = m.compared == Compared::TrainTflops || m.compared == Compared::TrainMfu;
    const std::int64_t group = s.tp && s.pp ? *s.tp * *s.pp : 0;
    if (!perGpuRate || group < 1 || group > kMaxGpus) {
        throw Unexpressible{std::to_string(count->get<std::int64_t>()) + " GPUs exceed the engine's " +
                            std::to_string(kMaxGpus) +
                            "-GPU limit, and no per-GPU rate at stated TP x PP allows fewer"};
    }
    *count = group * (kMaxGpus / group);
}

// Settings an engine implies without the text naming them, by engine (never
// by row): ms-swift loads the model in its --dtype and trains it as is, so a
// 16-bit full fine-tune keeps no fp32 master copy and its AdamW moments are
// 16-bit (torch.optim.AdamW state follows the parameter dtype), and so does
// Lightning's "bf16-true" precision (LitGPT); TensorRT-LLM's
// FP8 and NVFP4 checkpoints quantize the KV cache to FP8 too (its
// quantization recipes pair FP8 weights with an FP8 KV cache; ModelOpt's
// NVFP4 exports write kv_cache_quant_algo FP8 in hf_quant_config.json, and
// aiconfigurator, whose rows these are, models an FP8 KV cache for fp8 and
// nvfp4 checkpoints: sdk/models/helpers.py _infer_quant_modes_from_raw_config).
void applyEngineConventions(const RowSetup& setup, const std::string& task, const std::string& method, Json& req) {
    const std::string weights = req.value("weights", std::string());
    const bool sixteenBit = weights == "bf16" || weights == "fp16";
    const bool plainAdamW = setup.optimizer.empty() || setup.optimizer == "adamw";
    const bool keepsDtype = (setup.engines.msSwift && method == "full") || setup.keepsCheckpointDtype;
    if (keepsDtype && task == "finetune" && sixteenBit && plainAdamW) {
        req["optimizer"] = "adamw-bf16";
    }
    if (setup.engines.tensorrtLlm && (weights == "fp8" || weights == "nvfp4") && setup.kvCache.empty()) {
        req["kv_cache"] = "fp8";
    }
    // Megatron-Bridge's performance runs reduce gradients in bf16
    // (scripts/performance/utils/helpers.py set_basic_perf_overrides:
    // grad_reduce_in_fp32 = False).
    if (setup.engines.megatronBridgePerf && task != "inference") req["fp32_gradients"] = false;
    // Its GPT-OSS 120B presets for H100, B200 and GB200 recompute the norms
    // and the experts' activation (scripts/performance/configs/gpt_oss/
    // workload_base_configs.py at the 25.11 container's recipes, commit
    // e59a573: recompute_modules=["layernorm", "moe_act"]; perf_recipes/
    // gpt_oss/h100/gpt_oss.py today); GB300's preset does not.
    const auto model = req.find("model");
    const auto gpuKey = req.find("gpu");
    const std::string modelId = model != req.end() && model->is_string() ? model->get<std::string>() : "";
    const std::string gpu = gpuKey != req.end() && gpuKey->is_string() ? gpuKey->get<std::string>() : "";
    if (setup.engines.megatronBridgePerf && task != "inference" && modelId.rfind("gpt-oss-120b", 0) == 0 &&
        (gpu.find("h100") != std::string::npos || gpu.find("b200") != std::string::npos)) {
        req["recompute_modules"] = Json::array({"layernorm", "moe_act"});
    }
    // NeMo 24.07's performance summary ran the NeMo-Framework-Launcher's H100
    // example scripts, which reduce gradients in bf16 too
    // (examples/training/{gpt,llama}/h100/*_fp8*.sh:
    // +training.model.optim.grad_sync_dtype=bf16).
    if (setup.engines.nemoLauncherPerf && task != "inference") req["fp32_gradients"] = false;
    // Its fine-tuning rows ran the launcher's SFT examples
    // (examples/peft/llama/h100/*.sh at the 24.07 tag: peft=llama/sft,
    // ++peft.model.fp8_params=true), whose config keeps Apex's distributed
    // Adam states in bf16 (launcher_scripts/conf/peft/llama/sft.yaml:
    // optim.name distributed_fused_adam, optim.dtype bf16); with FP8 weights
    // NeMo stores the master copy in that dtype (megatron_base_model.py:
    // store_params=True when fp8_params).
    if (setup.engines.nemoLauncherPerf && task == "finetune" && method == "full") {
        req["optimizer"] = "adamw-bf16";
        if (req.value("weights", std::string()) == "fp8") req["fp8_params"] = true;
    }
    // llm-foundry's MPT trains with flash-attn's fused cross entropy (its
    // default loss_fn, llmfoundry/models/mpt/modeling_mpt.py).
    if (setup.engines.llmFoundry && task != "inference") req["loss_kernel"] = "fused";
}

// llm-foundry's README (scripts/train/benchmarking): flops_per_seq = 2 x
// n_params x seq_len, attn_flops_per_seq = n_layers x 4 x d_model x
// seq_len^2, model FLOPs = 3 x (both): per token 6 n_params + 12 n_layers
// d_model seq_len (non-causal attention, embeddings counted).
std::optional<double> foundryFlopsPerToken(const RowFacts& f, const Json& req) {
    const auto model = req.find("model");
    if (!f.paramsB || model == req.end() || !model->is_object() || !f.seqLen) return std::nullopt;
    const double layers = model->value("layers", 0.0), hidden = model->value("hidden_size", 0.0);
    if (layers <= 0 || hidden <= 0) return std::nullopt;
    return 6.0 * *f.paramsB * 1e9 + 12.0 * layers * hidden * *f.seqLen;
}

std::optional<std::int64_t> countKey(const std::optional<double>& value) {
    return value ? std::optional<std::int64_t>(countOf(*value)) : std::nullopt;
}

// The row's structured keys (v2 rows) win over what its free text says; the
// text only fills the keys a row leaves out. Returns the engine the row names,
// empty when it names none the contract has.
std::string applyStructuredKeys(const RowFacts& f, RowSetup& s) {
    if (f.tp) s.tp = countKey(f.tp);
    if (f.ep) s.ep = countKey(f.ep);
    if (f.pp) s.pp = countKey(f.pp);
    if (f.cp) s.cp = countKey(f.cp);
    if (f.vp) s.vp = countKey(f.vp);
    if (f.isl) s.promptTokens = countKey(f.isl);
    if (f.osl) s.outputTokens = countKey(f.osl);
    if (f.gpuMemoryUtilization) s.gpuMemoryUtilization = *f.gpuMemoryUtilization;
    const std::string engine = contractEngine(f.engine);
    // Engine conventions and llama-bench token counts follow the named engine.
    if (engine == "llama.cpp") s.engines.llamaCpp = true;
    if (engine == "tensorrt-llm") s.engines.tensorrtLlm = true;
    if (lowerCase(f.engine) == "llm-foundry") s.engines.llmFoundry = true;
    if (contains(lowerCase(f.source), "megatron-bridge")) s.engines.megatronBridgePerf = true;
    if (contains(lowerCase(f.source), "nemo docs/source/performance/performance_summary")) s.engines.nemoLauncherPerf = true;
    return engine;
}

// Attention data-parallel ranks as aiconfigurator rows state them in `extra`
// ("attention_dp_size=8"; "empty(=1)" or absent: 1).
std::int64_t attentionDpOf(const std::string& extra) {
    const std::string key = "attention_dp_size=";
    const std::size_t at = extra.find(key);
    if (at == std::string::npos) return 1;
    std::int64_t value = 0;
    for (std::size_t i = at + key.size(); i < extra.size() && std::isdigit(static_cast<unsigned char>(extra[i])); ++i) {
        value = std::min<std::int64_t>(value * 10 + (extra[i] - '0'), 1 << 20);
    }
    return value > 0 ? value : 1;
}

// aiconfigurator measures SGLang through the deployments its generator
// writes, whose aggregated SGLang rule passes --enable-mixed-chunk since
// ai-dynamo/aiconfigurator pull 257 (fa895ffb1, 2026-01-19:
// generator/rule_plugin/sglang.rule "agg enable_mixed_chunk = true"). Its
// SGLang data moved from 0.5.1.post1 (pull 84, 2025-11-05) to 0.5.6.post2
// (pull 228, 2026-01-13); the 0.5.9 rows state 2026-03-25. So rows of SGLang
// 0.5.6 on ran mixed chunks and the 0.5.1 rows SGLang's default.
bool aiconfiguratorMixedChunk(const RowFacts& f) {
    if (lowerCase(f.engine) != "sglang" || !contains(lowerCase(f.source), "aiconfigurator")) return false;
    int major = 0, minor = 0, patch = 0;
    if (std::sscanf(f.engineVersion.c_str(), "%d.%d.%d", &major, &minor, &patch) != 3) return false;
    return major > 0 || minor > 5 || (minor == 5 && patch >= 6);
}

// The step token budget of the deployments aiconfigurator's generator
// writes for aggregated serving: max_batch_size + isl + 1500 tokens, so a
// whole prompt fits beside every running decode. TensorRT-LLM since the
// generator's first standalone release (ai-dynamo/aiconfigurator 84ee71ebc,
// 2025-09-30: generator/backends/trtllm.py "max_num_tokens heuristic",
// agg_cfg["bs"] + isl + 1500; today rule_plugin/benchmark/trtllm.rule);
// vLLM's --max-num-batched-tokens since 2cecd6596 (2026-01-08:
// rule_plugin/vllm.rule "agg max_num_tokens = max_batch_size + isl + 1500"),
// so the vLLM rows of releases after it (0.16 on, measured from 2026-03) and
// not the earlier ones, which kept vLLM's default. max_batch_size is the
// row's concurrency (the benchmark rule's agg_decode max_batch_size).
std::optional<std::int64_t> aiconfiguratorStepBudget(const RowFacts& f) {
    if (!contains(lowerCase(f.source), "aiconfigurator") || !f.batch || !f.isl) return std::nullopt;
    const std::string engine = contractEngine(f.engine);
    bool generated = engine == "tensorrt-llm";
    if (engine == "vllm") {
        int major = 0, minor = 0;
        generated = std::sscanf(f.engineVersion.c_str(), "%d.%d", &major, &minor) == 2 && (major > 0 || minor >= 16);
    }
    if (!generated) return std::nullopt;
    return countOf(*f.batch) + countOf(*f.isl) + 1500;
}

// A positive whole number under `key` of the row, or `fallback`.
std::int64_t rowCount(const Json& row, const char* key, std::int64_t fallback) {
    const auto it = row.find(key);
    if (it == row.end() || !it->is_number()) return fallback;
    const double v = it->get<double>();
    if (!(v >= 1) || v > 1e6 || v != std::floor(v)) throw Unexpressible{std::string(key) + " is not a positive whole number"};
    return std::int64_t(v);
}

// A disaggregated serving row (`disaggregated`: true) states both pools in
// structured keys: `prefill_workers` and `decode_workers` engine instances,
// each of `<pool>_tp` x `<pool>_pp` x `<pool>_attention_dp` GPUs with experts
// over `<pool>_ep`; `gpu_count` is all of them, `batch` the deployment's
// concurrency. The request is one decode replica (gpu_count, parallel) with
// serving.disaggregated holding the split and the prefill degrees.
void applyDisaggregatedSetup(const RowFacts& f, const Json& row, Json& req) {
    struct Pool { std::int64_t workers, tp, pp, adp, ep; };
    auto pool = [&](const std::string& name) {
        const auto key = [&](const char* k) { return name + "_" + k; };
        return Pool{rowCount(row, key("workers").c_str(), 0), rowCount(row, key("tp").c_str(), 1),
                    rowCount(row, key("pp").c_str(), 1), rowCount(row, key("attention_dp").c_str(), 1),
                    rowCount(row, key("ep").c_str(), 1)};
    };
    const Pool p = pool("prefill"), d = pool("decode");
    if (p.workers <= 0 || d.workers <= 0) throw Unexpressible{"a disaggregated row needs prefill_workers and decode_workers"};
    const std::int64_t prefillGpus = p.tp * p.pp * p.adp, decodeGpus = d.tp * d.pp * d.adp;
    const std::int64_t gpus = p.workers * prefillGpus + d.workers * decodeGpus;
    if (f.gpuCount && countOf(*f.gpuCount) != gpus) {
        throw Unexpressible{"gpu_count " + std::to_string(countOf(*f.gpuCount)) +
                            " is not the prefill and decode workers' GPUs " + std::to_string(gpus)};
    }
    req["gpu_count"] = decodeGpus;
    // Attention-DP ranks run the expert layers with the tensor-parallel
    // ones: a replica spans tp x adp GPUs (as applyServingSetup).
    Json parallel = {{"tp", d.tp * d.adp}};
    if (d.adp > 1) parallel["attention_dp"] = d.adp;
    if (d.ep > 1) parallel["ep"] = d.ep;
    if (d.pp > 1) parallel["pp"] = d.pp;
    req["parallel"] = parallel;
    Json prefill = {{"tp", p.tp * p.adp}};
    if (p.adp > 1) prefill["attention_dp"] = p.adp;
    if (p.ep > 1) prefill["ep"] = p.ep;
    if (p.pp > 1) prefill["pp"] = p.pp;
    req["serving"]["disaggregated"] = {{"prefill_replicas", p.workers}, {"decode_replicas", d.workers},
                                       {"prefill_parallel", prefill}};
    if (const std::int64_t batch = rowCount(row, "prefill_batch", 0); batch > 0) {
        req["serving"]["disaggregated"]["prefill_max_batch"] = batch;
    }
    // The benchmark run the row measured: requests per user, every user
    // starting at once (validation/README.md `benchmark_rounds`).
    if (const std::int64_t rounds = rowCount(row, "benchmark_rounds", 0); rounds > 0) {
        req["serving"]["disaggregated"]["benchmark_rounds"] = rounds;
    }
}

// aiconfigurator's generator gives a disaggregated TensorRT-LLM prefill
// worker max_num_tokens = isl + 1500 rounded up to whole 32-token blocks, so
// a prompt runs in one step (rule_plugin/benchmark/trtllm.rule "prefill
// max_num_tokens", commit 095f58a5); decode workers run no prompts.
std::optional<std::int64_t> aiconfiguratorPrefillBudget(const RowFacts& f) {
    if (!contains(lowerCase(f.source), "aiconfigurator") || !f.isl) return std::nullopt;
    if (contractEngine(f.engine) != "tensorrt-llm") return std::nullopt;
    return (countOf(*f.isl) + 1500 + 31) / 32 * 32;
}

// Serving rows state their setup in structured keys: the engine instance's
// parallel degrees (gpu_count = tp x pp x attention-DP ranks), the request
// lengths and the concurrency; start-up memory rows the context limit and
// the pool fraction (validation/README.md).
void applyServingSetup(RowKind kind, const RowFacts& f, const std::string& extra, Json& req) {
    const std::int64_t tp = f.tp ? std::max<std::int64_t>(1, countOf(*f.tp)) : 1;
    const std::int64_t pp = f.pp ? std::max<std::int64_t>(1, countOf(*f.pp)) : 1;
    Json parallel = Json::object();
    if (kind == RowKind::Serving) {
        if (!f.isl || !f.osl || !f.batch) throw Unexpressible{"a serving row needs isl, osl and batch"};
        const std::int64_t statedEp = f.ep ? std::max<std::int64_t>(1, countOf(*f.ep)) : 1;
        const ServingInstance instance = contains(lowerCase(f.source), "aiconfigurator")
                                             ? servingInstanceOf(tp, statedEp, extra)
                                             : ServingInstance{tp, attentionDpOf(extra), statedEp, false};
        const std::int64_t adp = instance.attentionDp;
        const std::int64_t gpus = instance.tp * pp * adp;
        // A restated instance's gpu_count repeats the columns' product.
        if (f.gpuCount && !instance.restated && countOf(*f.gpuCount) != gpus) {
            throw Unexpressible{"gpu_count " + std::to_string(countOf(*f.gpuCount)) + " is not tp x pp x attention-DP " +
                                std::to_string(gpus)};
        }
        req["gpu_count"] = gpus;
        req["prompt_tokens"] = countOf(*f.isl);
        req["output_tokens"] = countOf(*f.osl);
        req["batch"] = countOf(*f.batch);
        // Attention-DP ranks run the expert layers with the tensor-parallel
        // ones: the replica spans tp x adp GPUs.
        parallel["tp"] = instance.tp * adp;
        if (adp > 1) parallel["attention_dp"] = adp;
        if (instance.ep > 1) parallel["ep"] = instance.ep;
    } else {
        if (!f.maxModelLen) throw Unexpressible{"a start-up memory row needs max_model_len"};
        const std::int64_t length = std::max<std::int64_t>(2, countOf(*f.maxModelLen));
        req["gpu_count"] = tp * pp;
        req["max_model_len"] = length;
        req["prompt_tokens"] = length - 1;
        req["output_tokens"] = 1;
        req["batch"] = 1;
        if (f.gpuMemoryUtilization) req["gpu_memory_utilization"] = *f.gpuMemoryUtilization;
        parallel["tp"] = tp;
    }
    if (pp > 1) parallel["pp"] = pp;
    req["parallel"] = parallel;
}

RowMapping buildMapping(const Catalog& catalog, const Json& row) {
    const RowFacts f = readFacts(row);
    const RowKind kind = kindOf(f.kind);
    // The model's name may say how it was run ("-GGUF", "-AWQ"); its
    // uploader does not ("unsloth/Mistral-7B-v0.2" is not an Unsloth run).
    RowSetup setup = readSetup(withoutOrganisations(f.model) + " \n " + rowText(row, "extra") + " \n " +
                               rowText(row, "optimizer"));
    const std::string rowEngine = applyStructuredKeys(f, setup);
    const std::string extra = lowerCase(rowText(row, "extra"));
    applyFrameworkSetup(f, kind, extra, setup);
    const std::string task = taskOf(kind, f.method);
    RowMapping m;
    m.request = Json::object();
    m.request["model"] = modelRequest(catalog, f, setup);
    setGpu(catalog, f, kind, m);
    m.request["task"] = task;
    if (task == "finetune" && (f.method == "lora" || f.method == "qlora" || f.method == "full")) {
        m.request["method"] = f.method;
    }
    const bool layoutSplit = (setup.tp && *setup.tp > 1) || (setup.pp && *setup.pp > 1) ||
                             (f.tp && *f.tp > 1) || (f.pp && *f.pp > 1);
    const std::string engine = rowEngine.empty() ? engineFor(setup.engines, task, layoutSplit) : rowEngine;
    if (!engine.empty()) m.request["engine"] = engine;
    std::string weights = weightFormat(f.quant.empty() ? setup.precision : f.quant);
    // gpt-oss ships MXFP4 weights; aiconfigurator names every 4-bit float "fp4".
    if (weights == "nvfp4" && contains(lowerCase(f.model), "gpt-oss")) weights = "mxfp4";
    // 4-bit training recipes (Megatron-Bridge's NVFP4) run their GEMMs at
    // the FP4 tensor rate, which the catalog does not hold.
    if (task != "inference" && (weights == "nvfp4" || weights == "mxfp4")) {
        throw Unexpressible{"training in 4-bit floating point (" + f.quant + "): the catalog has no FP4 dense rate"};
    }
    if (!weights.empty()) m.request["weights"] = weights;
    // Ollama's library tags without a quantization suffix ("llama3.2:3b")
    // pull 4-bit K-quants (the library pages list Q4_K_M for the default
    // tag), not the 16-bit checkpoint.
    if (weights.empty() && lowerCase(f.engine) == "ollama") m.request["weights"] = "Q4_K_M";
    // Tags ending in "mlx" run on Ollama's MLX runner, not llama.cpp.
    if (lowerCase(f.engine) == "ollama" && lowerCase(f.model).find("mlx") != std::string::npos) {
        throw Unexpressible{"Ollama's MLX runner (model tag '" + f.model + "'): the engine has no MLX engine yet"};
    }
    if (!setup.kvCache.empty()) m.request["kv_cache"] = setup.kvCache;
    if (setup.gpuMemoryUtilization) m.request["gpu_memory_utilization"] = *setup.gpuMemoryUtilization;
    if (setup.flashAttention) m.request["flash_attention"] = *setup.flashAttention;
    if (task == "inference") setInferenceTokens(kind, f, setup, m.request);
    else {
        setTraining(f, setup, m.request);
        setAccumulation(setup, m.request);
    }
    applyEngineConventions(setup, task, f.method, m.request);
    setParallel(setup, task != "inference", m.request);
    applyFrameworkRequest(f, setup, extra, task, m.request);
    checkFrameworkStateFloor(catalog, f, m.request);
    const bool disaggregated = row.contains("disaggregated") && row["disaggregated"] == true;
    if (disaggregated && kind != RowKind::Serving) throw Unexpressible{"disaggregated is for serving rows"};
    if (disaggregated) {
        if (!f.isl || !f.osl || !f.batch) throw Unexpressible{"a serving row needs isl, osl and batch"};
        m.request["prompt_tokens"] = countOf(*f.isl);
        m.request["output_tokens"] = countOf(*f.osl);
        m.request["batch"] = countOf(*f.batch);
        applyDisaggregatedSetup(f, row, m.request);
        if (const auto budget = aiconfiguratorPrefillBudget(f)) m.request["serving"]["max_num_batched_tokens"] = *budget;
        m.expectFits.reset();
    } else if (kind == RowKind::Serving || kind == RowKind::EngineMemory) {
        applyServingSetup(kind, f, rowText(row, "extra"), m.request);
        if (kind == RowKind::Serving && aiconfiguratorMixedChunk(f)) m.request["serving"]["mixed_chunk"] = true;
        if (kind == RowKind::Serving) {
            if (const auto budget = aiconfiguratorStepBudget(f)) m.request["serving"]["max_num_batched_tokens"] = *budget;
        }
        m.expectFits.reset();  // more concurrent requests than the pool holds queue; they do not fail
    }
    setComparison(kind, f, setup, m);
    if (setup.engines.llmFoundry) m.sourceFlopsPerToken = foundryFlopsPerToken(f, m.request);
    keepWithinGpuLimit(setup, m);
    if (m.lowerBound) m.expectFits.reset();
    return m;
}

}  // namespace

MappingOutcome mapValidationRow(const Catalog& catalog, const Json& row) {
    if (!row.is_object()) return {std::nullopt, "the line is not a JSON object"};
    try {
        return {buildMapping(catalog, row), ""};
    } catch (const Unexpressible& u) {
        return {std::nullopt, u.reason};
    } catch (const std::exception& e) {
        return {std::nullopt, std::string("unreadable row: ") + e.what()};
    }
}

std::string rowRequestLine(const Catalog& catalog, const std::string& text) {
    Json out = Json::object();
    Json row;
    try {
        row = Json::parse(text);
    } catch (const std::exception&) {
        out["unexpressible"] = "the line is not JSON";
        return out.dump();
    }
    out["id"] = rowText(row, "id");
    const MappingOutcome outcome = mapValidationRow(catalog, row);
    if (outcome.mapping) out["request"] = outcome.mapping->request;
    else out["unexpressible"] = outcome.reason;
    return out.dump();
}

}  // namespace caliper::io
