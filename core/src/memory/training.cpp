// Training states per GPU (methodology §4.1, §4.3): weights, gradients and
// optimizer states for full training, adapters for LoRA/QLoRA, and how DDP,
// ZeRO (DeepSpeed's own accounting), FSDP, Megatron's distributed optimizer
// and CPU offload divide them.
#include <algorithm>

#include "caliper/units.hpp"
#include "memory/sizing.hpp"
#include "memory/training_bytes.hpp"

namespace caliper::sizing {

namespace {

struct Shares {
    double params = 0;   // trainable parameters on this GPU (before ZeRO/FSDP sharding)
    double baseBytes = 0;  // frozen base weights on this GPU (LoRA), stored bytes
    double layerBytes = 0;  // one gathered layer (what ZeRO-3/FSDP fetch per step)
    double fp8Params = 0;   // of params, those stored in FP8 (Scenario::fp8Params)
};

// Bytes of the trainable weights on this GPU: 16-bit, except the linears'
// one-byte FP8 storage under fp8_params.
double trainableWeightBytes(const Scenario& s, const Shares& sh) {
    const double wb = weightBytesPerParam(s);
    return wb * sh.params - (wb - 1) * sh.fp8Params;
}

Shares sharesOf(const Inputs& in, const Layout& layout, const Stage& stage) {
    Shares sh;
    const double stageShare = stage.layers / in.shape().stackLayers;
    if (in.lora) {
        sh.params = in.adapterParams * stageShare / layout.tp;
        // Frozen routed experts are split over the expert-parallel ranks as
        // trained ones are (Megatron-Bridge's PEFT keeps the model's
        // parallel layout: each EP rank holds experts / ep of every MoE layer).
        const double experts = layout.ep > 1 ? expertWeightBytes(in) * stageShare : 0;
        sh.baseBytes = (stageWeightBytes(in, stage) - experts) / layout.tp + experts / layout.ep;
        sh.layerBytes = in.weights().layerBytes / layout.tp;
    } else {
        // Routed experts are split over the expert-parallel ranks, not over
        // tensor parallelism (Megatron-Core MoE parallel folding: expert
        // tensor parallel size 1 by default when EP is set).
        const double experts = layout.ep > 1 ? in.shape().groups.expert * stageShare : 0;
        sh.params = (stageParams(in, stage) - experts) / layout.tp + experts / layout.ep;
        sh.layerBytes = in.shape().layerParams * weightBytesPerParam(*in.scenario) / layout.tp;
        sh.fp8Params = fp8StoredParams(in, layout, stageShare);
    }
    return sh;
}

// ZeRO stages 1-2 and 3 with DeepSpeed's accounting (stage_1_and_2.py and
// stage3.py estimate_*_model_states_mem_needs): 16-bit weights and gradients,
// an fp32 gradient partition, fp32 master weights and the optimizer moments
// partitioned over the data-parallel GPUs; ZeRO-3 also partitions the 16-bit
// weights and keeps the largest layer's weights and gradients live (4 x LL).
TrainingStates zeroStates(const Inputs& in, const Layout& layout, const Shares& sh) {
    const Scenario& s = *in.scenario;
    const double n = layout.dp;
    const double wb = weightBytesPerParam(s);
    const double fp32Grad = wb < 4 ? kFp32Bytes : 0;
    const double opt = masterCopyBytes(in) + optimizerStateBytes(in, false);
    const double largest = in.shape().largestModule / layout.tp;
    const bool stage3 = layout.strategy == Strategy::Zero3;
    TrainingStates t;
    if (stage3) {
        // 18 bytes/param over N in all (2 weights + 4 gradients + 12 optimizer).
        t.weights = wb * sh.params / n + wb * largest;
        t.gradients = (wb < 4 ? fp32Grad : wb) * sh.params / n + wb * largest;
    } else {
        t.weights = trainableWeightBytes(s, sh);
        t.gradients = wb * sh.params + fp32Grad * sh.params / n;
    }
    t.optimizer = opt * sh.params / n;
    if (s.parallel.offload == Offload::None) return t;
    // ZeRO-Offload: gradients and the optimizer step move to the CPU;
    // DeepSpeed sizes host memory with additional_buffer_factor 1.5.
    const double totalParams = sh.params * layout.tp * layout.pp;
    t.optimizer = 0;
    t.gradients = stage3 ? wb * largest : 0;
    if (!stage3) {
        t.hostBytes = totalParams * std::max(kFp32Bytes * layout.count, 4 * kFp32Bytes) * kDeepSpeedCpuBufferFactor;
    } else if (s.parallel.offload == Offload::Optimizer) {
        t.hostBytes = totalParams * (kFp32Bytes + opt) * kDeepSpeedCpuBufferFactor;  // 16 P x 1.5
    } else {
        t.weights = wb * largest;
        t.hostBytes = totalParams * (wb + kFp32Bytes + opt) * kDeepSpeedCpuBufferFactor;  // 18 P x 1.5
    }
    return t;
}

// FSDP full shard with MixedPrecision: flat fp32 parameters, fp32 gradients
// and the optimizer moments sharded (16 bytes / N with AdamW); the current
// and the prefetched unit are gathered in bf16, with the current unit's
// unsharded gradients (PyTorch FSDP docs, backward_prefetch=BACKWARD_PRE).
// Without resharding after forward (SHARD_GRAD_OP; FSDP2
// reshard_after_forward=False, torchtitan's default under pipeline
// parallelism, and Llama 3's: arXiv 2407.21783 section 3.3.2, "Our use of
// FSDP for Llama 3 shards optimizer states and gradients, but for model
// shards we do not reshard after forward computation") every unit's 16-bit
// parameters stay gathered from its forward to its backward, so the step
// peaks with the whole stage gathered beside the fp32 shard.
TrainingStates fsdpStates(const Inputs& in, const Layout& layout, const Shares& sh) {
    const Scenario& s = *in.scenario;
    const double n = fsdpShardGroup(layout);
    const double compute = weightBytesPerParam(s);
    TrainingStates t;
    const double gathered = s.parallel.reshardAfterForward ? kFsdpLiveUnits * sh.layerBytes : compute * sh.params;
    t.weights = kFp32Bytes * sh.params / n + gathered;
    t.gradients = kFp32Bytes * sh.params / n + sh.layerBytes;
    t.optimizer = optimizerStateBytes(in, false) * sh.params / n;
    if (s.parallel.offload != Offload::None) {  // CPUOffload(offload_params=True) moves all three
        t.hostBytes = (t.weights + t.gradients + t.optimizer - gathered - sh.layerBytes) * n *
                      layout.tp * layout.pp;
        t.weights = gathered;
        t.gradients = sh.layerBytes;
        t.optimizer = 0;
    }
    return t;
}

// Replicated states (single GPU, DDP, tensor/pipeline splits): 16-bit weights
// and gradients, fp32 master weights and moments (ZeRO paper: 2 + 2 + 12
// bytes per parameter with AdamW). Megatron keeps fp32 main gradients and, with
// the distributed optimizer, shards master weights and moments over dp
// (Megatron-LM distrib_optimizer docs: 6 + 12/d bytes with bf16).
TrainingStates replicatedStates(const Inputs& in, const Layout& layout, const Shares& sh) {
    const Scenario& s = *in.scenario;
    const double wb = weightBytesPerParam(s);
    const bool megatron = runtimeOf(s.engine) == Engine::Megatron;
    const bool fp32Grads = fp32GradientsOf(s);
    const double opt = masterCopyBytes(in) + optimizerStateBytes(in, false);
    TrainingStates t;
    t.weights = trainableWeightBytes(s, sh);
    t.gradients = (fp32Grads && wb < 4 ? kFp32Bytes : wb) * sh.params;
    // Megatron's distributed optimizer shards over the data-parallel group,
    // which takes in the context-parallel ranks (parallel_state's dp-cp group).
    t.optimizer = opt * sh.params / (megatron ? layout.dp * layout.cp : 1);
    if (s.parallel.offload != Offload::None) {
        t.hostBytes = t.optimizer * layout.count;
        t.optimizer = 0;
    }
    return t;
}

// LoRA/QLoRA: the frozen base keeps its stored format; the adapters carry
// gradients and optimizer states, in fp32 where PEFT upcasts them
// (autocast_adapter_dtype=True, its default since v0.12), else in the
// model's dtype (adapterBytesPerParam).
TrainingStates adapterStates(const Inputs& in, const Layout& layout, const Shares& sh) {
    const Scenario& s = *in.scenario;
    const bool sharded = layout.shardedStates && layout.dp > 1;
    const bool zero = layout.strategy == Strategy::Zero1 || layout.strategy == Strategy::Zero2 || sharded;
    const double n = layout.dp;
    // ZeRO-3 shards and gathers frozen parameters module by module, as it
    // does trainable ones (zeroStates: the largest module live; its prefetch
    // and parameter cache are in the communication buffers), so the frozen
    // base costs no more gathered bytes than a fully trained one would.
    // FSDP gathers its wrapping units (decoder layers) either way.
    const double gathered = layout.strategy == Strategy::Zero3
                                ? in.shape().largestModule * weightBytesPerParam(s) / layout.tp
                                : kFsdpLiveUnits * sh.layerBytes;
    TrainingStates t;
    t.weights = sharded ? sh.baseBytes / n + gathered : sh.baseBytes;
    t.adapter = in.adapterBytesPerParam * sh.params / (sharded ? n : 1);
    t.gradients = in.adapterBytesPerParam * sh.params / (sharded ? n : 1);
    t.optimizer = optimizerStateBytes(in, true) * sh.params / (zero ? n : 1);
    if (s.parallel.offload == Offload::Parameters && layout.shardedStates) {
        t.hostBytes = (sh.baseBytes + (2 * in.adapterBytesPerParam + optimizerStateBytes(in, true)) * sh.params) * layout.tp * layout.pp;
        // What the GPU keeps of the base is what either strategy gathers,
        // the same with the shards in host RAM as on the GPUs (`gathered`
        // above): ZeRO-3 fetches module by module, the largest module whole,
        // however large (with a big vocabulary the embedding or lm_head;
        // DeepSpeed's estimators keep "largest layer" params for the same
        // reason; its prefetch is in the communication buffers), as
        // zeroStates counts a fully trained model's with offload_param;
        // FSDP gathers its wrapping units (decoder layers). Two whole decoder
        // layers under ZeRO-3 made a LoRA of GLM-5 (two 17.7 GiB MoE layers)
        // keep 35 GiB where its full fine-tune keeps 1.8.
        t.weights = gathered;
        t.adapter = t.gradients = t.optimizer = 0;
    } else if (s.parallel.offload != Offload::None) {
        t.hostBytes = t.optimizer * layout.count;
        t.optimizer = 0;
    }
    return t;
}

}  // namespace

TrainingStates trainingStates(const Inputs& in, const Layout& layout, const Stage& stage, const Explain& ex) {
    const Shares sh = sharesOf(in, layout, stage);
    TrainingStates t;
    const bool zero = layout.strategy == Strategy::Zero1 || layout.strategy == Strategy::Zero2 ||
                      layout.strategy == Strategy::Zero3;
    if (in.lora) t = adapterStates(in, layout, sh);
    else if (zero) t = zeroStates(in, layout, sh);
    else if (layout.strategy == Strategy::Fsdp) t = fsdpStates(in, layout, sh);
    else t = replicatedStates(in, layout, sh);
    t.buffers = communicationBuffers(in, layout, sh.params);
    if (ex.on()) explainStates(in, layout, sh.params, t, ex);
    return t;
}

}  // namespace caliper::sizing
