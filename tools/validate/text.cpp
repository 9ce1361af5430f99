#include "validate/text.hpp"

#include <algorithm>
#include <cctype>

#include "validate/text_patterns.hpp"

namespace caliper::io {

namespace {


EnginesNamed readEngines(const std::string& t) {
    EnginesNamed e;
    e.llamaCpp = mentions(t, {"llama.cpp", "llama-bench", "llama_bench", "gguf", "ggml", "ollama", "llamafile"});
    e.tensorrtLlm = mentions(t, {"tensorrt", "trt-llm", "trtllm"});
    // Hugging Face text-generation-inference pre-allocates a paged KV pool the way vLLM does.
    e.vllm = mentions(t, {"vllm", "text-generation-inference", " tgi"});
    e.sglang = mentions(t, {"sglang"});
    e.megatron = mentions(t, {"megatron", "nemo"});
    e.deepspeed = mentions(t, {"deepspeed"});
    e.fsdp = mentions(t, {"fsdp"});
    e.unsloth = mentions(t, {"unsloth"});
    e.peft = mentions(t, {"peft"});
    e.msSwift = mentions(t, {"ms-swift", "swift sft"});
    e.transformers =
        e.unsloth || mentions(t, {"transformers", "peft", "bitsandbytes", "trl ", "sfttrainer", "accelerate", "swift",
                                  "axolotl", "llama-factory", "llamafactory", "hugging face"});
    return e;
}

MeasuredMemory readMeasured(const std::string& t) {
    if (mentions(t, {"model_states", "model states", "params+grads+optimizer"})) return MeasuredMemory::ModelStates;
    if (mentions(t, {"memory_allocated"})) return MeasuredMemory::Allocated;
    if (mentions(t, {"memory_reserved", "reserved"})) return MeasuredMemory::Reserved;
    return MeasuredMemory::Process;
}

void readTokens(const std::string& t, RowSetup& s) {
    static const Patterns benchPrompt = compile({R"(\bpp\s?(\d+)\b)", R"((?:^|\s)-p\s+(\d+))"});
    static const Patterns benchGenerate = compile({R"(\btg\s?(\d+)\b)", R"((?:^|\s)-n\s+(\d+))"});
    static const Patterns prompt = compile(
        {R"(\binput(?: length| tokens| len)?\s*[=:]?\s*(\d+))", R"(\bisl\s*[=:]?\s*(\d+))",
         R"(prompt[^.;]*?~\s*(\d+)\s*tokens)", R"(prompt(?:_tokens| length| len)?\s*[=:]?\s*(\d+))",
         R"((\d+)[- ]token prompt)", R"((\d+)\s+(?:input|prompt) tokens)"});
    static const Patterns output = compile(
        {R"(\boutput(?: length| tokens| len)?\s*[=:]?\s*(\d+))", R"(max_new_tokens\s*[=:]?\s*(\d+))",
         R"(\bosl\s*[=:]?\s*(\d+))", R"(output_tokens\s*[=:]?\s*(\d+))",
         R"((\d+)\s+(?:output|generated|new) tokens)", R"(generat(?:e|es|ing)\s+(\d+)\s+tokens)"});
    static const Patterns seq = compile({R"(max_(?:seq_)?length\s*[=:]?\s*(\d+))", R"(cutoff_len\s*[=:]?\s*(\d+))",
                                         R"(seq(?:uence)?[_ ]?len(?:gth)?\s*[=:]?\s*(\d+))", R"(n_ctx\s*[=:]?\s*(\d+))",
                                         R"(ctx[_-]size\s*[=:]?\s*(\d+))", R"((?:^|\s)-c\s+(\d+))",
                                         R"(sequences of (\d+) tokens)", R"(context(?: length)?\s*[=:]?\s*(\d+))",
                                         // padded to the longest sample of a batch: the peak is the longest one
                                         R"(longest example (\d+) tokens)"});
    static const Patterns seqK = compile({R"((\d+)k[- ]context)", R"(context(?: length)?\s*[=:]?\s*(\d+)k\b)"});
    s.benchPrompt = lastInteger(t, benchPrompt);
    s.benchGenerate = lastInteger(t, benchGenerate);
    s.promptTokens = lastInteger(t, prompt);
    s.outputTokens = lastInteger(t, output);
    s.seqLen = laterInteger(t, seq, seqK);
    s.shortText = mentions(t, {"short prompt", "short text"});
    s.longPromptUncounted = mentions(t, {"long prompt"}) && !s.promptTokens;
    // Lightning Fabric's "bf16-true" precision casts the model to bf16 and
    // keeps no fp32 copy (lightning.fabric precision docs: "true" half precision).
    s.keepsCheckpointDtype = mentions(t, {"bf16-true", "bf16_true"});
    // NeMo's SFT data: packed_sequence=true (GPTSFTPackedDataset).
    s.packed = mentions(t, {"packing", "packed sequences", "fixed-length", "fixed length", "packed_sequence=true"});
    s.autocast = mentions(t, {"autocast"});
}

void readBatch(const std::string& t, RowSetup& s) {
    static const Patterns batch = compile({R"((?:per_device_train_)?batch_size\s*[=:]?\s*(\d+))",
                                           R"(\bbatch(?: size)?\s*[=:]?\s*(\d+))"});
    static const Patterns micro = compile({R"(micro[- _]?batch(?:[- _]size)?\s*[=:]?\s*(\d+))"});
    // llama-bench's "bs=512" is its prompt micro-batch, not concurrent sequences.
    static const Patterns batchBs = compile({R"(\bbs\s*[=:]\s*(\d+))"});
    s.globalBatch = mentions(t, {"global batch", "tokens per batch"});
    if (!s.globalBatch) s.batch = lastInteger(t, batch);
    if (!s.globalBatch && !s.batch && !s.engines.llamaCpp) s.batch = lastInteger(t, batchBs);
    s.microBatch = lastInteger(t, micro);
    static const Patterns steps = compile({R"(gradient_accumulation_steps\s*[=:]?\s*(\d+))"});
    static const Patterns global = compile({R"(global_batch_size\s*[=:]?\s*(\d+))",
                                            R"(minibatch \(global\) size\s*[=:]?\s*(\d+))"});
    s.accumulationSteps = lastInteger(t, steps);
    s.globalBatchSize = lastInteger(t, global);
}

void readLora(const std::string& t, RowSetup& s) {
    static const Patterns rank = compile({R"(lora[_ ]?r(?:ank)?\s*[=:]?\s*(\d+))", R"(\br\s*=\s*(\d+))",
                                          R"(\brank\s*[=:]?\s*(\d+))"});
    static const Patterns all = compile({R"(target[a-z_]*\s*[=:]?\s*all\b)", R"(all[- _]linear)"});
    static const Patterns attention = compile(
        {R"(target[a-z_]*\s*[=:]?\s*(?:default|c_attn|q_proj|query_key_value|w_pack|attn|attention))",
         R"(attention[- ]only)"});
    s.loraRank = lastInteger(t, rank);
    const Hit a = lastHit(t, all);
    const Hit q = lastHit(t, attention);
    if (a.position >= 0 || q.position >= 0) s.loraAllLinear = a.position > q.position;
}

void readSwitches(const std::string& t, RowSetup& s) {
    static const Patterns ckptValued = compile(
        {R"((?:gradient[_ ]checkpointing|grad[_ ]ckpt|activation[_ ]checkpointing))"
         R"(\s*[=:]?\s*(true|false|yes|no|on|off|1|0)\b)"});
    // A bare mention ("bf16, gradient checkpointing, ...") means it was on.
    static const Patterns ckptOn = compile({R"((?:gradient|activation)[_ ]checkpointing)", R"(grad[_ ]ckpt)",
                                            R"(full recompute)", R"(recompute[-_ ]granularity[ =]full)"});
    static const Patterns ckptOff = compile({R"((?:no|without)\s+(?:gradient|activation) checkpointing)",
                                             R"((?:gradient|activation)[_ ]checkpointing\s+disabled)"});
    static const Patterns faValued = compile(
        {R"((?:use_flash_attn|flash_attn|flash[_ -]?attention|\bfa)\s*[=:]?\s*(true|false|yes|no|on|off|1|0)\b)"});
    static const Patterns faOn = compile({R"(flash[ -]?attention)"});
    static const Patterns faOff = compile({R"(eager attention)", R"((?:no|without)\s+(?:flash[ -]?attention|fa)\b)",
                                           R"((?:flash[ -]?attention|\bfa)\s+not\b)"});
    s.gradientCheckpointing = lastSwitch(t, ckptValued, ckptOn, ckptOff);
    s.selectiveRecompute = mentions(t, {"selective recompute", "selective activation recompute",
                                        "recompute-granularity selective", "recompute_granularity=selective",
                                        "recompute_granularity: selective"});
    // "recompute_modules=layernorm,moe_act": Megatron-Core's module names.
    static const Patterns modules = compile({R"(recompute_modules\s*=\s*([a-z_]+(?:,[a-z_]+)*))"});
    const Hit listed = lastHit(t, modules);
    if (listed.position >= 0) {
        std::size_t from = 0;
        while (from <= listed.capture.size()) {
            const std::size_t comma = std::min(listed.capture.find(',', from), listed.capture.size());
            if (comma > from) s.recomputeModules.push_back(listed.capture.substr(from, comma - from));
            from = comma + 1;
        }
    }
    // Unsloth always recomputes activations (its "unsloth" checkpointing mode).
    if (!s.gradientCheckpointing && s.engines.unsloth) s.gradientCheckpointing = true;
    s.flashAttention = lastSwitch(t, faValued, faOn, faOff);
}

void readDistributed(const std::string& t, RowSetup& s) {
    static const Patterns zero = compile(
        {R"(zero[-_ ]?(?:stage)?[-_ =]?\s*([0-3])(?![0-9]))", R"(deepspeed[^.;]*?stage[-_ ]?([0-3])(?![0-9]))"});
    static const Patterns paramsValued = compile({R"(offload_param(?:_device)?\s*[=:]?\s*(cpu|nvme|none)\b)",
                                                  R"(cpu_offload_params\s*[=:]\s*(1|0|true|false))"});
    static const Patterns paramsOn = compile({R"(offload(?:ing)? of param)", R"(param(?:eter)?s? offload)"});
    static const Patterns optimizerValued = compile({R"(offload_optimizer(?:_device)?\s*[=:]?\s*(cpu|nvme|none)\b)",
                                                     R"(cpu_offload\s*[=:]\s*(1|0|true|false))"});
    static const Patterns optimizerOn = compile({R"(offload(?:ing)? of (?:params and )?optimizer)",
                                                 R"(optimizer(?: state)?s? offload)"});
    auto offloaded = [&](const Patterns& valued, const Patterns& on) {
        const Hit v = lastHit(t, valued);
        const Hit yes = lastHit(t, on);
        if (yes.position > v.position) return true;
        return v.position >= 0 && (v.capture == "cpu" || v.capture == "nvme" || switchWord(v.capture) == true);
    };
    s.zeroStage = lastInteger(t, zero);
    s.offloadParameters = offloaded(paramsValued, paramsOn);
    s.offloadOptimizer = s.offloadParameters || offloaded(optimizerValued, optimizerOn);
    s.distributedOptimizer = mentions(t, {"distributed optimizer"});
    // torch.distributed.fsdp.ShardingStrategy (fsdp/api.py): FULL_SHARD
    // shards parameters, gradients and optimizer states (ZeRO-3's layout);
    // SHARD_GRAD_OP keeps the parameters whole between forward and backward
    // (ZeRO-2's); NO_SHARD is DDP.
    static const Patterns sharding = compile({R"(sharding_strategy\s*[=:]?\s*(full_shard|shard_grad_op|no_shard))"});
    const Hit shard = lastHit(t, sharding);
    if (shard.capture == "full_shard") s.fsdpSharding = "fsdp";
    else if (shard.capture == "shard_grad_op") s.fsdpSharding = "zero2";
    else if (shard.capture == "no_shard") s.fsdpSharding = "ddp";
    // FSDP2's reshard_after_forward=False, or the Llama 3 paper's words for
    // it (arXiv 2407.21783 section 3.3.2: "Our use of FSDP for Llama 3 shards
    // optimizer states and gradients, but for model shards we do not reshard
    // after forward computation").
    static const Patterns keepGathered = compile(
        {R"(reshard_after_forward\s*[=:]\s*false)", R"(do not reshard after forward)"});
    if (lastHit(t, keepGathered).position >= 0 && mentions(t, {"fsdp", "fully sharded data parallel"})) {
        s.fsdpSharding = "fsdp";
        s.fsdpKeepsGathered = true;
    }
    s.layerSplit = mentions(t, {"device_map", "layer split", "naive model parallel"}) &&
                   mentions(t, {"split", "across"});
}

void readParallel(const std::string& t, RowSetup& s) {
    static const Patterns tp =
        compile({R"(\btp\s*[=:]?\s*(\d+))", R"(tensor[- _]parallel(?:ism)?(?:[- _]size)?\s*[=:]?\s*(\d+))"});
    static const Patterns pp = compile({R"(\bpp\s*[=:]\s*(\d+))", R"(\bpp\s+(\d+)\b)",
                                        R"(pipeline[- _]parallel(?:ism)?(?:[- _]size)?\s*[=:]?\s*(\d+))"});
    static const Patterns dp =
        compile({R"(\bdp\s*[=:]?\s*(\d+))", R"(data[- ]parallel(?:ism)?(?: size)?\s*[=:]?\s*(\d+))"});
    static const Patterns cp = compile({R"(\bcp\s*[=:]?\s*(\d+))", R"(context parallel(?:ism)?\s*[=:(]?\s*(\d+))"});
    s.tp = lastInteger(t, tp);
    // llama-bench writes prompt lengths as "pp512"; only other texts name pipeline degrees so.
    if (!s.engines.llamaCpp) s.pp = lastInteger(t, pp);
    s.dp = lastInteger(t, dp);
    s.cp = lastInteger(t, cp);
    // NeMo's performance tables: "VP=4", "VP (virtual pipeline) = 1".
    static const Patterns vp = compile({R"(\bvp\s*[=:]\s*(\d+))", R"(\bvp \(virtual pipeline\)\s*=\s*(\d+))"});
    s.vp = lastInteger(t, vp);
    // Megatron-Bridge's archive tables: "FSDP column=8" (> 0: Megatron-FSDP
    // shards weights, gradients and optimizer states over the data-parallel
    // ranks; 0: DDP with the distributed optimizer).
    static const Patterns fsdpColumn = compile({R"(\bfsdp column\s*=\s*(\d+))"});
    s.fsdpColumn = lastInteger(t, fsdpColumn);
}

void readResultWording(const std::string& t, RowSetup& s) {
    // Any talk of a per-GPU figure, even a doubt ("the header does not say
    // per-GPU"), reads per GPU: serving benchmark tables state throughput per
    // GPU, and for one GPU both readings agree.
    s.perGpu = mentions(t, {"per gpu", "per-gpu", "/gpu"});
    s.includesPrefill = mentions(t, {"includes prefill", "prefill time amortised", "prefill time amortized"});
    s.firstTokenLatency = mentions(t, {"1st-token", "first token", "first-token", "ttft"});
    s.kvOnHost = mentions(t, {"-nkvo 1", "nkvo=1", "nkvo 1", "kv cache kept in cpu", "kv cache on cpu",
                              "kv cache in cpu", "kv cache in host"});
    s.lowerBound = mentions(t, {"lower-bound", "lower bound", "absolute minimum"});
    s.mentionsMfu = mentions(t, {"mfu", "model flops utilization", "model flops utilisation"});
    // DeepSpeed's estimate_zero{2,3}_model_states_mem_needs_* print mem / 2**30
    // with the label "GB" (deepspeed/runtime/zero/stage_1_and_2.py, stage3.py).
    s.gibPrintedAsGb = mentions(t, {"estimate_zero"});
}

}  // namespace

std::string lowerCase(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
    return out;
}

RowSetup readSetup(std::string_view text) {
    const std::string t = lowerCase(text);
    RowSetup s;
    s.engines = readEngines(t);
    s.measured = readMeasured(t);
    readTokens(t, s);
    readBatch(t, s);
    readLora(t, s);
    readSwitches(t, s);
    readDistributed(t, s);
    readParallel(t, s);
    readResultWording(t, s);
    s.optimizer = readOptimizer(t);
    s.kvCache = readKvCache(t);
    s.precision = readPrecision(t);
    s.gpuMemoryUtilization = readPoolFraction(t);
    s.shape = readShape(t);
    return s;
}

}  // namespace caliper::io
