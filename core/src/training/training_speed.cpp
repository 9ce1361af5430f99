// Training throughput: model FLOPs per token (6N + causal attention, 4N for
// LoRA/QLoRA) at a model-FLOPs utilisation taken from published tables, plus
// the communication, offload and dequantisation time the tables do not cover.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "caliper/model/formats.hpp"
#include "caliper/units.hpp"
#include "memory/sizing.hpp"
#include "speed/efficiency.hpp"
#include "speed/speed_parts.hpp"
#include "training/moe_step.hpp"
#include "training/training_efficiency.hpp"

namespace caliper {

namespace {

constexpr double kGradientBytes = 2.0;  // bf16 gradients on the wire
// Communication hidden under the backward pass [E, methodology section 7].
constexpr double kOverlap = 0.8;
// Backward = 2/3 of a training step's FLOPs (forward 2N, backward 4N).
constexpr double kBackwardShare = 2.0 / 3.0;
// The published MFU tables ran tensor parallelism over NVLink (H100, ~360
// GB/s busbw): only time beyond that reference is charged.
const Link kReferenceTpLink{360.0, 20e-6, "NVLink reference"};
// ZeRO-Offload's CPU Adam (DeepSpeed csrc/adam/cpu_adam_impl.cpp, Step_AVX)
// streams each parameter once: it reads the fp32 master weight, both fp32
// moments and the fp32 gradient the offload accumulates on the host (16 B),
// writes the weight and both moments back (12 B) and the 16-bit copy that
// goes back to the GPU (2 B): 30 bytes, with a few FLOPs each, so the host's
// memory bandwidth bounds it (Ren et al., arXiv 2101.06840, section 5.1:
// CPU-Adam vectorised with AVX SIMD and tiled over OpenMP threads, 5-7x
// PyTorch's CPU Adam, DeepSpeed's ZeRO-Offload tutorial).
constexpr double kCpuAdamBytesPerParam = 30.0;
// Sustained share of the host's peak memory bandwidth a streaming kernel
// reaches: the same 3/4 the llama.cpp host reads measure (speed/speed.cpp,
// kHostBandwidthFraction: llama.cpp PR #1642, issue #11744).
constexpr double kCpuAdamBandwidthFraction = 0.75;
// QLoRA: bitsandbytes dequantizes each 4-bit weight to 16 bits before every
// GEMM: read 0.5 B, write 2 B, GEMM reads 2 B again (methodology 4.3).
constexpr double kDequantBytesPerWeight = 4.5;
// The dequantize kernel streams at about the 16-bit decode rate (0.8 of peak).
constexpr double kDequantBandwidthFraction = 0.8;
// LoRA over an LLM.int8 base (bitsandbytes load_in_8bit, MatMul8bitLt): the
// forward multiplies int8 by int8, but the backward's input gradient first
// restores a 16-bit weight (bitsandbytes/autograd/_functions.py,
// MatMul8bitLt.backward: `CB = state.CB.to(ctx.dtype_A, copy=True).mul_(
// state.SCB.unsqueeze(1).mul(1.0 / 127.0))`, then `torch.matmul(grad_output,
// CB)`): read 1 B, write 2 B; scale: read 2 B, write 2 B; the GEMM reads the
// 2 B copy: 9 B per weight, once per backward. The int8 forward's own
// activation quantization (double_quant, mm_dequant) is not counted.
constexpr double kInt8BackwardDequantBytesPerWeight = 9;
// Micro-batches per optimizer step. Pre-training accumulates to a global
// batch of ~4M tokens (Llama 2 and 3: 4M; GPT-3 175B: 3.2M; the Megatron
// README runs 0.8-12.6M); fine-tuning steps every micro-batch (Hugging Face
// gradient_accumulation_steps = 1). Fine-tuning pipelines keep >= 4
// micro-batches per stage (Narayanan et al. 2021: m >> p keeps the bubble
// small).
constexpr double kPretrainBatchTokens = 4.0e6;
constexpr int kMicrobatchesPerStage = 4;
// Share of parameter streaming (ZeRO-Infinity) hidden by prefetch [E].
constexpr double kPrefetchOverlap = 0.5;
constexpr double kAttentionShareOfBlock = 0.33;
// q and v of the four attention projections (MHA: 2h^2 of a Llama block's 14.5h^2 = 0.14).
constexpr double kQueryValueShareOfBlock = kAttentionShareOfBlock / 2;

// Expert-parallel all-to-all: dispatch and combine in forward and again in
// backward (Megatron-Core token dispatcher), 16-bit hidden states of each
// routed token copy; Megatron overlaps none of it by default [E: the EP
// overlap options of 2025 releases are off by default].
constexpr double kAllToAllPerLayer = 4.0;
// Context parallelism: ring attention passes each rank's K and V around the
// ring in forward and K, V and their gradients in backward (Megatron-Core
// context_parallel docs: the ring is overlapped with attention compute), so
// only time beyond the attention's own compute is charged.
constexpr double kRingPassesKvForwardBackward = 3.0;

struct StepTimes {
    double computeS = 0, bubbleS = 0, pipelineSendS = 0, tpExtraS = 0, dataParallelS = 0, expertS = 0, contextS = 0,
           offloadS = 0, dequantS = 0, moeTokenS = 0;
    double totalS() const {
        return computeS + bubbleS + pipelineSendS + tpExtraS + dataParallelS + expertS + contextS + offloadS + dequantS +
               moeTokenS;
    }
};

bool adapterMethod(const Scenario& s) { return s.task == Task::Finetune && s.method != Method::Full; }

double trainableParams(const Scenario& s, const Workload& work) {
    if (!adapterMethod(s)) return work.totalParams;
    // LoRA: r x (d_in + d_out) per adapted matrix, about 2r/h of its weights.
    // Attention projections alone hold ~0.3 of a Llama-style block
    // (MHA: 4h^2 of 4h^2 + 3 x 3.5h^2 = 0.28).
    const double share = s.lora.allLinear()                           ? 1.0
                         : s.lora.targets == LoraTargets::QueryValue ? kQueryValueShareOfBlock
                                                                     : kAttentionShareOfBlock;
    return work.blockMatmulParams * share * 2.0 * s.lora.rank / std::max(1.0, work.hidden);
}

double microTokens(const Scenario& s) {
    return double(std::max<std::int64_t>(1, s.batch)) * double(std::max<std::int64_t>(1, s.seqLen));
}

// Stages that run one at a time: a layer split, and a "pipeline" under
// transformers, whose Trainer runs no pipeline schedule: a model spread over
// the GPUs (from_pretrained device_map="auto", accelerate's big-model
// dispatch) passes each batch through them in turn, one GPU busy at a time
// (accelerate's "Big Model Inference" guide: device_map="auto" dispatches
// each layer's weights over the devices, and hooks move the activations
// from one to the next as the forward reaches them).
bool sequential(const Scenario& s, const Plan& plan) {
    return plan.strategy == Strategy::LayerSplit || (plan.strategy == Strategy::Pipeline && s.engine == Engine::Transformers);
}

double microbatchesPerStep(const Scenario& s, const Plan& plan) {
    const int pp = std::max(1, plan.pp), dp = std::max(1, plan.dp);
    // A stated global batch fixes the accumulation: sequences per step over
    // the replicas' micro-batches (Megatron: global = micro x dp x m).
    if (s.globalBatch > 0) return sizing::statedMicrobatches(s, dp);
    // Pre-training accumulates to ~4M tokens, and a pipeline runs at least
    // one micro-batch per stage so that every stage fills: Llama 3 405B on
    // 16,384 H100s ran PP 16 at 16 micro-batches per step (arXiv 2407.21783,
    // Table 4: batch size per DP 16, 16M tokens). A deeper pipeline then pays
    // a larger bubble for the same batch rather than growing the batch.
    if (s.task == Task::Pretrain) return std::max(double(pp), std::ceil(kPretrainBatchTokens / (microTokens(s) * dp)));
    // A sequential split fills no pipeline: it steps every micro-batch too.
    return pp > 1 && !sequential(s, plan) ? double(kMicrobatchesPerStage * pp) : 1.0;
}

// Tokens one optimizer step trains. A stated global batch is the step's
// sequences (Megatron: global = micro x dp x m): replicas beyond
// global / micro have no sequence and sit idle through the step, as do the
// slots of a last round of micro-batches the batch does not fill. NeMo's
// long-sequence table runs 4 sequences of 1M tokens on 1,024 H100s: without
// context parallelism at most 4 replicas work, whatever the layout
// (docs/source/performance/performance_long_sequence.md).
double tokensPerStepOf(const Scenario& s, const Plan& plan) {
    const double slots = microTokens(s) * microbatchesPerStep(s, plan) * std::max(1, plan.dp);
    if (s.globalBatch <= 0) return slots;
    return std::min(slots, double(s.globalBatch) * double(std::max<std::int64_t>(1, s.seqLen)));
}

// The plan's degrees as the memory model resolves them, and the step's shape.
struct Layout : sizing::Layout {
    double micro = 0;         // tokens per micro-batch per replica
    double microbatches = 1;  // per optimizer step
    int modelParallel() const { return tp * pp * cp; }  // GPUs of one replica
};

Layout layoutOf(const Scenario& s, const Plan& plan) {
    Layout l;
    static_cast<sizing::Layout&>(l) = sizing::layoutOf(plan);
    l.layerSplit = sequential(s, plan);
    l.micro = microTokens(s);
    l.microbatches = microbatchesPerStep(s, plan);
    return l;
}

// 1F1B pipelines idle (p - 1) micro-batch slots per step, interleaving
// divides that by the virtual stages v (Narayanan et al. 2104.04473,
// section 2.2: bubble fraction (p - 1) / (v m)). A layer split runs its
// stages one after another (sequential()): each GPU idles while the other
// p - 1 work, whatever the micro-batches.
double pipelineBubbleS(const Layout& l, double computeS) {
    if (l.pp <= 1) return 0;
    if (l.layerSplit) return computeS * double(l.pp - 1);
    return computeS * double(l.pp - 1) / (double(l.vp) * l.microbatches);
}

// Activations forward and their gradients backward cross every stage
// boundary: each micro-batch leaves each of a GPU's vp chunks twice, a
// micro-batch x hidden 16-bit tensor (sequence parallelism splits it over
// tp). Megatron overlaps the sends with the next chunk's compute
// (overlap_p2p_comm), so only time beyond the compute shows.
double pipelineSendExposedS(const Scenario& s, const Workload& work, const Layout& l, double computeS) {
    if (l.pp <= 1) return 0;
    const Link link = groupLink(s, 2, l.modelParallel() > std::max(1, s.gpu.gpusPerNode));
    if (link.busGBps <= 0) return 0;
    const double bytes = l.micro / l.cp * work.hidden * kGradientBytes / l.tp;
    const double perSendS = link.latencyS + bytes / (link.busGBps * kBytesPerGB);
    // A layer split waits on each of its p - 1 boundaries forward and
    // backward, with nothing to overlap them.
    if (l.layerSplit) return 2.0 * (l.pp - 1) * l.microbatches * perSendS;
    const double sends = 2.0 * l.vp * l.microbatches;
    return std::max(0.0, sends * perSendS - computeS);
}

// MoE token dispatch and combine between the expert-parallel ranks, over
// NVLink inside a node and the network beyond it.
double expertAllToAllS(const Scenario& s, const Workload& work, const Layout& l, bool& acrossNodes) {
    if (l.ep <= 1 || work.experts <= 0) return 0;
    const int perNode = std::max(1, s.gpu.gpusPerNode);
    acrossNodes = l.ep > perNode;
    const double tokensPerGpu = l.micro / (l.tp * l.cp);
    const double copies = tokensPerGpu * work.hidden * std::max(1, work.expertsPerToken) * kGradientBytes;
    // Balanced routing sends each routed copy to any of the ep ranks alike:
    // (local - 1) / ep of them to the GPUs of the same node over NVLink,
    // (ep - local) / ep over the network. NCCL's all-to-all posts every
    // pair's send and receive in one group (ncclGroupStart/End), so the two
    // links carry their shares at the same time.
    const int local = std::min(l.ep, perNode);
    const Link nvlink = groupLink(s, local, false);
    double linkS = 0, latencyS = 0;
    if (local > 1 && nvlink.busGBps > 0) {
        linkS = copies * (local - 1) / l.ep / (nvlink.busGBps * kBytesPerGB);
        latencyS = nvlink.latencyS;
    }
    if (acrossNodes) {
        const Link network = groupLink(s, l.ep, true);
        if (network.busGBps <= 0) return 0;
        linkS = std::max(linkS, copies * (l.ep - local) / l.ep / (network.busGBps * kBytesPerGB));
        latencyS = std::max(latencyS, network.latencyS);
    }
    // The busiest rank receives moeLoadImbalance() x the mean share.
    const double perLayer = kAllToAllPerLayer * (latencyS + linkS * moeLoadImbalance(s, work, l.ep));
    const ModelSpec& m = s.model;
    const int moeLayers = std::max(0, (m.layers - std::max(0, m.moe.denseLayers)) / std::max(1, m.moe.layerInterval));
    return moeAllToAllExposedShare() * perLayer * moeLayers / l.pp * l.microbatches;
}

// Ring attention between the context-parallel ranks, beyond the attention
// compute it hides under.
double contextRingS(const Scenario& s, const Workload& work, const Layout& l, double attentionComputeS) {
    if (l.cp <= 1) return 0;
    const Link link = groupLink(s, l.cp, l.cp * l.tp > std::max(1, s.gpu.gpusPerNode));
    if (link.busGBps <= 0) return 0;
    // K and V of one layer for this rank's tokens (the KV cache's bytes per token and layer).
    const double kvBytes = work.kvBytesPerToken / std::max(1, work.layers) * l.micro / l.cp / l.tp;
    const double perLayer = kRingPassesKvForwardBackward * (l.cp - 1) * (link.latencyS + kvBytes / (link.busGBps * kBytesPerGB));
    return std::max(0.0, perLayer * work.layers / l.pp * l.microbatches - attentionComputeS);
}

// Megatron's tensor-parallel all-reduces (2 forward, 2 backward per layer,
// 2 more when recomputing), charged only beyond the NVLink reference.
double tensorParallelExtraS(const Scenario& s, const Workload& work, const Layout& l) {
    if (l.tp <= 1) return 0;
    const Link link = groupLink(s, l.tp, l.tp > std::max(1, s.gpu.gpusPerNode));
    const double message = l.micro * work.hidden * kGradientBytes;
    const double calls = (s.gradientCheckpointing ? 6.0 : 4.0) * work.layers / l.pp * l.microbatches;
    return std::max(0.0, calls * (allReduceS(message, l.tp, link) - allReduceS(message, l.tp, kReferenceTpLink)));
}

// The collectives that carry one replica rank's gradients: how many a step
// issues and the bytes of each.
struct GradientBuckets {
    double calls = 1;
    double bytesEach = 0;
    bool allReduce = true;  // else reduce-scatters and all-gathers (FSDP, ZeRO-3)
};

// Gradients reduce in buckets as the backward produces them, one collective
// each: Megatron-Core's DDP max(40M, 1M x dp) parameters a bucket
// (distributed_data_parallel_config.py: "larger DP sizes need larger buckets
// to ensure collectives do not become latency-bound"); DeepSpeed ZeRO-1/2
// reduce_bucket_size 5e8 elements; PyTorch DDP bucket_cap_mb 25 MiB; FSDP
// and ZeRO-3 one reduce-scatter and two all-gathers per wrapped layer.
GradientBuckets gradientBuckets(const Scenario& s, const Plan& plan, const Workload& work, const Layout& l,
                                double gradientParams) {
    constexpr double kMegatronMinBucketParams = 40e6, kMegatronBucketParamsPerRank = 1e6;
    constexpr double kDeepspeedBucketParams = 5e8;
    constexpr double kTorchDdpBucketBytes = 25.0 * 1024 * 1024;
    GradientBuckets b;
    const double bytes = kGradientBytes * gradientParams;
    if (plan.strategy == Strategy::Zero3 || plan.strategy == Strategy::Fsdp) {
        const double layers = std::max(1.0, double(work.layers) / l.pp);
        b.calls = 3.0 * layers;
        b.bytesEach = bytes / layers;
        b.allReduce = false;
        return b;
    }
    double bucketBytes = kTorchDdpBucketBytes;
    if (runtimeOf(s.engine) == Engine::Megatron) {
        bucketBytes = kGradientBytes * std::max(kMegatronMinBucketParams, kMegatronBucketParamsPerRank * l.dp);
    } else if (runtimeOf(s.engine) == Engine::Deepspeed) {
        bucketBytes = kGradientBytes * kDeepspeedBucketParams;
    }
    b.calls = std::max(1.0, std::ceil(bytes / bucketBytes));
    b.bytesEach = bytes / b.calls;
    return b;
}

// Gradient all-reduce (DDP, ZeRO-1/2) plus ZeRO-3/FSDP parameter gathers in
// forward and backward, beyond what hides under the backward pass.
double dataParallelExposedS(const Scenario& s, const Plan& plan, const Workload& work, const Layout& l,
                            double computeS) {
    if (l.dp <= 1) return 0;
    const bool crossesNodes = plan.nodes > 1 && l.modelParallel() < plan.gpuCount;
    const Link link = groupLink(s, l.dp, crossesNodes);
    const double shard = 1.0 / (l.tp * l.pp);  // each replica rank's share (context-parallel ranks hold whole copies)
    // Routed experts are sharded over the expert-parallel ranks, as the
    // memory model holds them (memory/training.cpp): each GPU reduces only its
    // own experts' gradients, among the ranks that hold the same experts
    // (Megatron-Core's expert data-parallel group, world / (ep x pp)).
    const bool expertShards = l.ep > 1 && work.expertParams > 0 && !adapterMethod(s);
    const double expertParams = expertShards ? work.expertParams : 0.0;
    const double expertShard = 1.0 / (double(l.ep) * l.pp);
    const int expertDp = std::max(1, plan.gpuCount / (l.ep * l.pp));
    const double denseParams = (trainableParams(s, work) - expertParams) * shard;
    double commS = allReduceS(kGradientBytes * denseParams, l.dp, link) +
                   allReduceS(kGradientBytes * expertParams * expertShard, expertDp, link);
    if (plan.strategy == Strategy::Zero3 || plan.strategy == Strategy::Fsdp) {
        const double storedBytes = weightFormatInfo(s.weights).linearBits / 8.0;
        // Without resharding after forward the backward needs no second
        // all-gather (FSDP2 reshard_after_forward=False; torchtitan: "to
        // avoid per-microbatch all-gathers" under pipeline parallelism).
        const double gathers =
            plan.strategy == Strategy::Fsdp && !s.parallel.reshardAfterForward ? 1.0 : 2.0;
        commS += gathers * allGatherS(storedBytes * (work.totalParams - expertParams) * shard, l.dp, link) +
                 gathers * allGatherS(storedBytes * expertParams * expertShard, expertDp, link);
    }
    // Across servers every bucket's collective pays NCCL's latency, which
    // grows with the data-parallel ranks (ncclLatencyS), and the last
    // bucket reduces after the backward has ended, with nothing left to hide
    // under (Megatron-Core, PyTorch DDP and FSDP all launch it from the last
    // gradient's hook): that share is never overlapped. FSDP and ZeRO-3 run
    // a layer's collectives in every micro-batch, and each is a wait for that
    // layer's compute (its forward and backward need the gathered
    // parameters; FSDP's limit_all_gathers keeps two in flight): the
    // prefetch hides the bytes, not the ring's hop-by-hop latency. Checked
    // against llm-foundry's FSDP rows on A100 40GB (8 to 128 GPUs, 1,600 Gb/s
    // a node): per-GPU throughput at 128 GPUs over 8 falls by 9% (125M), 7%
    // (350M), 4% (760M), 3% (1B), 5% (3B), 1.5% (7B), 1% (13B); NCCL's
    // latency over their layers' collectives gives 5%, 6%, 5%, 4%, 4%,
    // 0.5%, 0.4%.
    double tailS = 0, latencyExposedS = 0;
    if (crossesNodes) {
        const int nodes = std::min(plan.nodes, l.dp);
        const bool nvlink = s.gpu.nvlinkGBps > 0;
        const GradientBuckets b = gradientBuckets(s, plan, work, l, denseParams);
        const double latencyS = ncclLatencyS(l.dp, nodes, nvlink, b.allReduce);
        if (b.allReduce) commS += b.calls * latencyS;
        else latencyExposedS = l.microbatches * b.calls * latencyS;
        tailS = latencyS + (b.allReduce ? 2.0 : 1.0) * (l.dp - 1) / l.dp * b.bytesEach / (link.busGBps * kBytesPerGB);
    }
    return std::max(0.0, commS - tailS - kOverlap * kBackwardShare * computeS) + tailS + latencyExposedS;
}

// CPU offload, as DeepSpeed's ZeRO-2 with offload_optimizer runs it
// (Ren et al., arXiv 2101.06840, section 4.1, figure 5; DeepSpeed
// stage_1_and_2.py): each micro-batch's 16-bit gradients go to host RAM over
// PCIe bucket by bucket while its backward runs (overlap_comm), accumulated
// there in fp32; once per optimizer step the CPU runs Adam over the
// parameters every GPU of the node owns, sharing the host's memory
// bandwidth, and the 16-bit parameters come back over PCIe before the next
// forward. The one-step delayed update (DPU) that hides the CPU step is not
// assumed (the paper turns it on only after the first few thousand steps).
// Everything once per step is amortised over the step's micro-batches.
double offloadS(const Scenario& s, const Plan& plan, const Workload& work, const Layout& l, double computeS) {
    const double pcie = hostLink(s.gpu).busGBps * kBytesPerGB;
    if (pcie <= 0) return 0;
    double checkpointS = 0;
    if (s.gradientCheckpointing && s.checkpointOffload) {
        // Each layer's 16-bit input goes to host RAM in forward and back in
        // backward with non-blocking copies that overlap compute
        // (Unsloth_Offloaded_Gradient_Checkpointer: "we mask the movement via
        // non blocking calls"): only what outlasts the compute shows.
        const double bytes = 2.0 * kGradientBytes * work.hidden * l.micro / (l.tp * l.cp) * work.layers / l.pp * l.microbatches;
        checkpointS = std::max(0.0, bytes / pcie - computeS);
    }
    if (s.parallel.offload == Offload::None) return checkpointS;
    const double ownParams = trainableParams(s, work) / (double(l.tp) * l.pp * l.dp);
    // Gradients down, each micro-batch, beyond the backward they overlap.
    const double gradientS = kGradientBytes * ownParams / pcie;
    const double backwardS = kBackwardShare * computeS / std::max(1.0, l.microbatches);
    const double gradientExposedS = l.microbatches * std::max(0.0, gradientS - kOverlap * backwardS);
    // CPU Adam over the node's GPUs' shards, at the host's memory bandwidth:
    // the plan's share of a server where the host is the default (hostShare).
    const HostShare host = hostShare(s, plan.gpuCount, plan.nodes);
    const double hostGBps = host.memoryBandwidthGBps > 0 ? host.memoryBandwidthGBps : 0.0;
    const int gpusOnHost = host.gpusOnNode;
    const double adamS = hostGBps > 0 ? ownParams * gpusOnHost * kCpuAdamBytesPerParam /
                                            (kCpuAdamBandwidthFraction * hostGBps * kBytesPerGB)
                                      : 0.0;
    // Updated 16-bit parameters up, after the step; with the parameters
    // offloaded (ZeRO-3 offload_param) they stay in host RAM and are
    // fetched instead, pass by pass: each GPU copies its own 1/dp partition
    // over its PCIe link and ZeRO-3's all-gather (dataParallelExposedS)
    // spreads it (DeepSpeed partitioned_param_swapper / stage3 fetch;
    // Rajbhandari et al., ZeRO-Infinity, arXiv 2104.07857, section 6.1
    // bandwidth-centric partitioning), in the forward, in the backward and,
    // with checkpointing, in the recomputed forward, every micro-batch,
    // half hidden by the prefetch.
    const bool paramsOffloaded = s.parallel.offload == Offload::Parameters;
    const double parameterS = paramsOffloaded ? 0.0 : kGradientBytes * ownParams / pcie;
    double t = gradientExposedS + adamS + parameterS;
    if (paramsOffloaded) {
        const double passes = s.gradientCheckpointing ? 3.0 : 2.0;
        const double shardParams = work.totalParams / (double(l.tp) * l.pp * l.dp);
        const double streamedS = l.microbatches * passes * kGradientBytes * shardParams / pcie;
        t += std::max(0.0, streamedS - kPrefetchOverlap * computeS);
    }
    return t + checkpointS;
}

double qloraDequantS(const Scenario& s, const Workload& work, const Layout& l) {
    if (s.task != Task::Finetune) return 0;
    const bool int8Base = s.method == Method::Lora && s.weights == WeightFormat::Int8;
    if (s.method != Method::Qlora && !int8Base) return 0;
    // NF4 dequantizes in every pass (forward, backward, recomputed forward);
    // LLM.int8 only in the backward.
    const double passes = int8Base ? 1.0 : s.gradientCheckpointing ? 3.0 : 2.0;
    const double bytesPerWeight = int8Base ? kInt8BackwardDequantBytesPerWeight : kDequantBytesPerWeight;
    const double bandwidth = kDequantBandwidthFraction * s.gpu.bandwidthGBps * kBytesPerGB;
    if (bandwidth <= 0) return 0;
    return l.microbatches * passes * work.blockMatmulParams * bytesPerWeight / (l.tp * l.pp) / bandwidth;
}

StepTimes stepTimes(const Scenario& s, const Plan& plan, const Workload& work, const TrainingFlops& flops,
                    double mfu, double peakFlops) {
    const Layout l = layoutOf(s, plan);
    StepTimes t;
    t.computeS = l.micro * l.microbatches * flops.hardwarePerToken / l.modelParallel() / (mfu * peakFlops);
    t.bubbleS = pipelineBubbleS(l, t.computeS);
    t.pipelineSendS = pipelineSendExposedS(s, work, l, t.computeS);
    bool expertAcrossNodes = false;
    t.expertS = expertAllToAllS(s, work, l, expertAcrossNodes);
    t.moeTokenS = moeTokenWorkS(s, plan, work, l.micro) * l.microbatches;
    t.contextS = contextRingS(s, work, l, t.computeS * flops.attentionShare);
    t.tpExtraS = tensorParallelExtraS(s, work, l);
    t.dataParallelS = dataParallelExposedS(s, plan, work, l, t.computeS);
    t.offloadS = offloadS(s, plan, work, l, t.computeS);
    t.dequantS = qloraDequantS(s, work, l);
    return t;
}

// Each parallel group's link and its effective bandwidth, for explain:
// "tp 8 over NVLink 360 GB/s; dp 64 over InfiniBand NDR 400 Gb/s per GPU 44 GB/s".
std::string linksUsed(const Scenario& s, const Plan& plan, const Layout& l, double& slowestGBps) {
    std::string text;
    slowestGBps = 0;
    auto add = [&](const char* group, int degree, const Link& link) {
        if (degree <= 1) return;
        char part[160];
        std::snprintf(part, sizeof part, "%s%s %d over %s %.0f GB/s", text.empty() ? "" : "; ", group, degree, link.name,
                      link.busGBps);
        text += part;
        if (slowestGBps == 0 || link.busGBps < slowestGBps) slowestGBps = link.busGBps;
    };
    const int perNode = std::max(1, s.gpu.gpusPerNode);
    add("tp", l.tp, groupLink(s, l.tp, l.tp > perNode));
    add("cp", l.cp, groupLink(s, l.cp, l.cp * l.tp > perNode));
    add("ep", l.ep, groupLink(s, l.ep, l.ep > perNode));
    add("pp", l.pp, groupLink(s, 2, l.tp * l.cp * l.pp > perNode));
    add("dp", l.dp, groupLink(s, l.dp, plan.nodes > 1 && l.modelParallel() < plan.gpuCount));
    return text;
}

}  // namespace

void estimateTraining(const Scenario& s, const Plan& plan, const Workload& work, bool withExplain, SpeedEstimate& out,
                      bool withWarnings) {
    const PeakRate peak = trainingPeak(s);
    if (peak.tflops <= 0) return;
    const TrainingFlops flops = trainingFlops(s, work);
    const double mfu = trainingMfu(s, plan, work, flops.attentionShare);
    const StepTimes t = stepTimes(s, plan, work, flops, mfu, peak.tflops * kFlopsPerTflop);
    const double stepS = t.totalS();
    if (!(stepS > 0) || !std::isfinite(stepS)) return;
    const double tokensPerStep = tokensPerStepOf(s, plan);
    const int gpus = std::max(1, plan.gpuCount);
    out.trainTokensPerS = tokensPerStep / stepS;
    out.trainTflopsPerGpu = *out.trainTokensPerS / gpus * flops.modelPerToken / kFlopsPerTflop;
    // MFU as PaLM defines it (Chowdhery et al. 2022, appendix B): model FLOPs
    // achieved over the peak, recomputation not counted. The explain term
    // train_mfu is the efficiency on the hardware FLOPs (recomputation in).
    out.trainMfu = *out.trainTflopsPerGpu / peak.tflops;
    if (withWarnings && t.dataParallelS > 0.25 * stepS) {
        out.warnings.push_back({"communication_bound", "gradient communication takes over a quarter of each step"});
    }
    if (!withExplain) return;

    out.explain.push_back({"train_model_flops_per_token", trainingFlopsFormula(s), flops.modelPerToken});
    out.explain.push_back({"train_mfu", trainingMfuFormula(s, plan), mfu});
    out.explain.push_back({"train_peak_tflops", std::string("dense tensor rate per GPU: ") + peak.name, peak.tflops});
    out.explain.push_back({"train_model_flops_fraction",
                           "train_tflops_per_gpu / train_peak_tflops: the result's train_mfu (PaLM's MFU: model FLOPs, "
                           "recomputation not counted; communication, bubbles and dequantization included)",
                           *out.trainMfu});
    out.explain.push_back({"train_step_compute_s", "tokens per step x hardware FLOPs / (tp x pp x cp) / (MFU x peak)", t.computeS});
    const Layout l = layoutOf(s, plan);
    double slowestGBps = 0;
    const std::string links = linksUsed(s, plan, l, slowestGBps);
    if (!links.empty()) out.explain.push_back({"train_links_gbps", links + " (value: the slowest, GB/s)", slowestGBps});
    if (t.bubbleS > 0 && l.layerSplit) {
        out.explain.push_back({"train_pipeline_bubble_s",
                               "compute x (pp - 1): the " + std::to_string(l.pp) +
                                   " stages run one after another (a layer split), each GPU idle while the others work",
                               t.bubbleS});
    } else if (t.bubbleS > 0) {
        out.explain.push_back({"train_pipeline_bubble_s",
                               "compute x (pp - 1) / (vp x micro-batches per step) = " + std::to_string(l.pp - 1) + " / (" +
                                   std::to_string(l.vp) + " x " + std::to_string(static_cast<long long>(l.microbatches)) + ")",
                               t.bubbleS});
    }
    if (t.pipelineSendS > 0) {
        out.explain.push_back({"train_pp_send_exposed_s", "stage-boundary activations and gradients beyond the compute they overlap",
                               t.pipelineSendS});
    }
    if (t.expertS > 0) out.explain.push_back({"train_ep_all_to_all_s", "MoE dispatch + combine, forward and backward, per MoE layer", t.expertS});
    if (t.moeTokenS > 0) {
        out.explain.push_back({"train_moe_token_work_s",
                               "MoE token permute/unpermute and gated activation (forward and backward, at 0.8 x HBM "
                               "bandwidth) plus a fixed time per local expert's GEMMs per MoE layer and micro-batch",
                               t.moeTokenS});
    }
    if (t.contextS > 0) out.explain.push_back({"train_cp_ring_exposed_s", "ring-attention K/V passes beyond the attention compute", t.contextS});
    if (t.tpExtraS > 0) out.explain.push_back({"train_tp_comm_extra_s", "tensor-parallel all-reduces beyond NVLink speed", t.tpExtraS});
    if (t.dataParallelS > 0) {
        out.explain.push_back({"train_dp_comm_exposed_s", "gradient all-reduce / ZeRO-3 gathers not hidden by 0.8 x backward; across servers each bucket also pays "
                               "NCCL's ring/tree latency over the data-parallel ranks, and the last bucket is never hidden",
                               t.dataParallelS});
    }
    if (t.offloadS > 0 && s.parallel.offload == Offload::Parameters) {
        out.explain.push_back({"train_offload_s", "ZeRO-3 with parameters and optimizer in host RAM: each GPU's 16-bit parameter partition over PCIe in every forward, backward and recomputed forward (half hidden by the prefetch), its 16-bit gradients to host, CPU Adam (30 B per parameter at 0.75 x host memory bandwidth, shared by the node's GPUs; a rented share of a server gets its share of the bandwidth)", t.offloadS});
    } else if (t.offloadS > 0) out.explain.push_back({"train_offload_s", "ZeRO-Offload: 16-bit gradients to host over PCIe beyond the backward they overlap, CPU Adam (30 B per parameter at 0.75 x host memory bandwidth, shared by the node's GPUs; a rented share of a server gets its share of the bandwidth), 16-bit parameters back over PCIe", t.offloadS});
    if (t.dequantS > 0) out.explain.push_back({"train_dequant_s",
                                   s.method == Method::Lora && s.weights == WeightFormat::Int8 ? "LLM.int8 -> 16-bit weight restored for each backward"
                                                                   : "NF4 -> bf16 dequantization per pass",
                                   t.dequantS});
    out.explain.push_back({"train_tokens_per_s", "data-parallel replicas x tokens per step / step time", *out.trainTokensPerS});
}

}  // namespace caliper
