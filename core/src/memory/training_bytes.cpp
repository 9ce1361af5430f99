// Per-parameter byte counts of optimizers and the data-parallel buffers.
#include <algorithm>

#include "caliper/units.hpp"
#include "memory/training_bytes.hpp"

namespace caliper::sizing {

namespace {

// Optimizer moments per trainable parameter (Transformer Math 101; the
// bitsandbytes 8-bit optimizers store each moment in one byte with
// block-wise scales; SGD keeps one fp32 momentum buffer).
constexpr double kAdamWStateBytes = 8;
// Pure bf16 AdamW: both moments in the parameters' 2-byte dtype
// (torch.optim.AdamW allocates state with torch.zeros_like(param)).
constexpr double kAdamWBf16StateBytes = 4;
constexpr double kAdamW8bitStateBytes = 2;
constexpr double kSgdStateBytes = 4;

// DeepSpeed config defaults (docs "ZeRO optimizations"): reduce_bucket_size
// and allgather_bucket_size 5e8 elements; stage3_prefetch_bucket_size 5e7.
constexpr double kDeepSpeedBucketElements = 5e8;
constexpr double kDeepSpeedPrefetchElements = 5e7;
// The Hugging Face DeepSpeed integration sets "auto" buckets from the model:
// reduce_bucket_size = hidden^2, stage3_prefetch_bucket_size = 0.9 hidden^2
// (transformers docs, "DeepSpeed" integration).
constexpr double kHfPrefetchShare = 0.9;
// ZeRO-3 keeps fetched parameters resident up to stage3_max_live_parameters
// = 1e9 elements (DeepSpeed default, also in the Hugging Face sample configs;
// methodology §3): a parameter cache beyond DeepSpeed's model-state estimate.
constexpr double kZero3MaxLiveParameters = 1e9;
// stage3_max_reuse_distance = 1e9 (same defaults): a released parameter that
// will be used again within this many parameters stays on the GPU, so the
// layers around the forward/backward turn and the parameters re-used by
// recomputation add up to another 1e9 beyond the live ones (DeepSpeed docs,
// "ZeRO optimizations": "Do not release a parameter if it will be reused
// within this threshold of parameters"). The PEFT ZeRO-3 CPU-offload rows
// (T0_3B, BLOOMZ-7B1, mT0-XXL in fp32) keep 6-16 GiB of gathered weights.
constexpr double kZero3MaxReuseDistance = 1e9;

}  // namespace

double weightBytesPerParam(const Scenario& s) {
    switch (s.weights) {
        case WeightFormat::Fp32: return 4;
        case WeightFormat::Bf16:
        case WeightFormat::Fp16:
        case WeightFormat::Fp8: return 2;
        default: return 2;  // quantized bases only occur as frozen LoRA weights
    }
}

double adapterBytesPerParam(const Scenario& s) {
    return s.weights == WeightFormat::Fp32 || fp32Adapters(s) ? kFp32Bytes : 2;
}

double optimizerStateBytes(const Inputs& in, bool adapters) {
    switch (in.scenario->optimizer) {
        case Optimizer::AdamW: return kAdamWStateBytes;
        case Optimizer::AdamWBf16: return kAdamWBf16StateBytes;
        case Optimizer::AdamW8bit:
        case Optimizer::PagedAdamW8bit: return kAdamW8bitStateBytes;
        case Optimizer::Sgd: return kSgdStateBytes;
        case Optimizer::Adafactor: {
            // Factored second moment: one fp32 row and one column vector per
            // matrix (Shazeer & Stern 2018); no first moment (beta1 = None).
            if (adapters) return kFp32Bytes * 2.0 / std::max(1, in.scenario->lora.rank);
            const double vectors = in.shape().loraDimsAllLinear + in.shape().vocab + in.shape().hidden;
            return in.counts().total > 0 ? kFp32Bytes * vectors / in.counts().total : 0;
        }
    }
    return kAdamWStateBytes;
}

double masterCopyBytes(const Inputs& in) {
    const Scenario& s = *in.scenario;
    // FP8-stored weights cannot take the update, so the optimizer keeps the
    // master copy in its own state dtype: NeMo sets store_params=True when
    // fp8_params, and Apex's DistributedFusedAdam stores that parameter
    // shard in `dtype` (nemo/collections/nlp/models/language_modeling/
    // megatron_base_model.py setup_optimization, r2.0.0rc1): 2 bytes with
    // bf16 states, 4 with fp32.
    if (s.fp8Params && !in.lora) return s.optimizer == Optimizer::AdamWBf16 ? 2 : kFp32Bytes;
    if (s.optimizer == Optimizer::AdamWBf16 || weightBytesPerParam(s) >= 4) return 0;
    return kFp32Bytes;
}

double fp8StoredParams(const Inputs& in, const Layout& layout, double stageShare) {
    if (!in.scenario->fp8Params || in.lora) return 0;
    // The block linears (Transformer Engine modules) hold FP8 weights; the
    // embedding table, lm_head and norms stay 16-bit. Routed experts split
    // over the expert-parallel ranks, the rest over tensor parallelism.
    const LinearGroups& g = in.shape().groups;
    const double experts = layout.ep > 1 ? g.expert : 0;
    return stageShare * ((g.total() - experts) / layout.tp + experts / layout.ep);
}

double communicationBuffers(const Inputs& in, const Layout& layout, double trainable) {
    const Scenario& s = *in.scenario;
    const double gradBytes = in.lora ? in.adapterBytesPerParam : weightBytesPerParam(s);
    if (layout.strategy == Strategy::Ddp && layout.dp > 1 && runtimeOf(s.engine) != Engine::Megatron) {
        // DDP copies gradients into its buckets unless gradient_as_bucket_view
        // is set (PyTorch DistributedDataParallel docs): one more gradient copy.
        // Megatron-Core's DDP reduces straight from its contiguous main-grad
        // buffer (distributed/param_and_grad_buffer.py): no copy.
        return gradBytes * trainable;
    }
    const bool zero = layout.strategy == Strategy::Zero1 || layout.strategy == Strategy::Zero2 ||
                      layout.strategy == Strategy::Zero3;
    if (!zero) return 0;
    double live = 0;
    const bool offloaded = s.parallel.offload == Offload::Parameters;
    if (layout.strategy == Strategy::Zero3 && (layout.dp > 1 || offloaded)) {
        // Only what is not resident anyway: the other GPUs' shards, or all of
        // it when parameters live in host RAM.
        const double perGpu = in.counts().total / (layout.tp * layout.pp);
        const double remote = offloaded ? perGpu : perGpu * (1 - 1.0 / layout.dp);
        const double params = std::min(kZero3MaxLiveParameters + kZero3MaxReuseDistance, remote);
        live = params * (in.lora ? in.weights().linearBits / 8 : weightBytesPerParam(s));
    }
    const double h2 = in.shape().hidden * in.shape().hidden;
    const bool native = runtimeOf(s.engine) == Engine::Deepspeed;
    const double reduce = native ? kDeepSpeedBucketElements : h2;
    const double second = layout.strategy == Strategy::Zero3 ? (native ? kDeepSpeedPrefetchElements : kHfPrefetchShare * h2)
                                                             : (native ? kDeepSpeedBucketElements : h2);
    return live + gradBytes * (std::min(reduce, trainable) + std::min(second, trainable));
}

namespace {

void explainAdapters(const Inputs& in, double trainable, const TrainingStates& t, const Explain& ex) {
    const Scenario& s = *in.scenario;
    ex.add("lora_params",
           [&] { return fmt("rank %d x sum of (d_in + d_out) over %s matrices = %.0f trainable parameters (%.2f%% of %.3gB)",
               s.lora.rank, s.lora.allLinear()                           ? "all block linear"
               : s.lora.targets == LoraTargets::QueryValue ? "attention q/v"
                                                           : "attention q/k/v/o", in.adapterParams,
               100 * in.adapterParams / std::max(1.0, in.counts().total), in.counts().total / 1e9); },
           in.adapterParams);
    ex.add("adapter_gib", [&] { return fmt("%.0f adapter parameters on this GPU x %.0f bytes (%s)", trainable,
                                                 adapterBytesPerParam(s), adapterBytesPerParam(s) == kFp32Bytes ? "fp32" : "the model's 16-bit dtype"); }, bytesToGiB(t.adapter));
}

const char* splitName(const Scenario& s, Strategy strategy) {
    switch (strategy) {
        case Strategy::Zero3: return "ZeRO-3 (DeepSpeed accounting)";
        case Strategy::Zero1:
        case Strategy::Zero2: return "ZeRO-1/2 (DeepSpeed accounting)";
        case Strategy::Fsdp:
            return s.parallel.reshardAfterForward ? "FSDP full shard"
                                                  : "FSDP without resharding after forward (SHARD_GRAD_OP)";
        default: return runtimeOf(s.engine) == Engine::Megatron ? "Megatron distributed optimizer" : "replicated";
    }
}

}  // namespace

void explainStates(const Inputs& in, const Layout& layout, double trainable, const TrainingStates& t,
                   const Explain& ex) {
    const Scenario& s = *in.scenario;
    const bool mixed = !in.lora && masterCopyBytes(in) > 0;
    const bool zero = layout.strategy == Strategy::Zero1 || layout.strategy == Strategy::Zero2 ||
                      layout.strategy == Strategy::Zero3;
    if (in.lora) explainAdapters(in, trainable, t, ex);
    ex.add("weights_gib",
           [&] { return fmt("%s: %s weights%s, %s", splitName(s, layout.strategy), in.lora ? "frozen base" : "trainable",
               s.fp8Params && !in.lora ? " (block linears stored in FP8, the rest 16-bit)" : "",
               layout.strategy == Strategy::Fsdp && !s.parallel.reshardAfterForward
                   ? fmt("fp32 shard over %d GPUs plus the stage's 16-bit parameters gathered from forward to backward",
                         fsdpShardGroup(layout)).c_str()
               : layout.shardedStates && fsdpShardGroup(layout) > 1
                   ? fmt("sharded over %d GPUs plus gathered layers",
                         layout.strategy == Strategy::Fsdp ? fsdpShardGroup(layout) : layout.dp).c_str()
                   : "held in full"); },
           bytesToGiB(t.weights));
    ex.add("gradients_gib",
           [&] { return fmt("%.0f trainable parameters on this GPU; %s gradients%s", trainable,
               in.lora || (fp32GradientsOf(s) && !zero && !layout.shardedStates) ? "fp32" : "16-bit",
               zero ? " with DeepSpeed's fp32 gradient partition (18 bytes/param in all for ZeRO-3)" : ""); },
           bytesToGiB(t.gradients));
    ex.add("optimizer_gib",
           [&] { return fmt("%s: %.3g bytes of state per trainable parameter%s%s", toString(s.optimizer),
               optimizerStateBytes(in, in.lora) + (mixed ? masterCopyBytes(in) : 0),
               !mixed ? "" : masterCopyBytes(in) < kFp32Bytes ? " incl. the bf16 master copy" : " incl. the fp32 master copy",
               s.parallel.offload != Offload::None ? ", offloaded to CPU RAM" : ""); },
           bytesToGiB(t.optimizer));
    if (t.hostBytes > 0) {
        ex.add("cpu_offload_gib", [&] { return fmt("states moved to host RAM (%s), whole job", toString(s.parallel.offload)); },
               bytesToGiB(t.hostBytes));
    }
}

}  // namespace caliper::sizing
