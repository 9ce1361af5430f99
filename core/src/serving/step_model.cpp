#include "serving/step_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "calibration/calibration.hpp"
#include "per_thread.hpp"
#include "serving/cuda_graph.hpp"
#include "speed/efficiency.hpp"
#include "speed/gemm_rows.hpp"

namespace caliper::serving {

namespace {

// Activations cross all-reduces, all-to-alls and stage boundaries in 16 bits.
constexpr double kActivationBytes = 2.0;
// Speculative drafting per drafted token, as a share of one target step:
// MTP and EAGLE run one extra decoder layer (DeepSeek-V3 §2.2 MTP module;
// EAGLE-3's draft head), so about 1 / layers of a step; a separate draft model
// is typically 1/10-1/20 of the target's size [E: vLLM speculative decoding
// docs pair 70B targets with 1-8B drafts].
constexpr double kDraftModelShare = 0.08;
// Fixed GPU time per routed expert a rank holds, per MoE layer and step.
// The serving engines' MoE kernels run one grouped-GEMM problem per local
// expert, whether or not a token reached it: TensorRT-LLM's CUTLASS MoE
// computes every local expert's first-token offset and its grouped GEMM's
// tile scheduler walks every expert's problem (cpp/tensorrt_llm/kernels/
// cutlass_kernels/moe_gemm); vLLM's fused_moe aligns each expert's tokens
// to the kernel's M block (moe_align_block_size) and SGLang's the same.
// Where experts are split by tensor parallelism every rank holds a slice of
// every expert (DeepSeek-V3 at MoE TP 8: 256 per rank, against 32 at EP 8),
// so this time grows with the experts per rank, not the tokens. Prior [E]:
// 0.2 us per expert problem (a few hundred cycles of prologue and tile
// scheduling at ~1.8 GHz); scaled per engine x GPU generation x format by
// the calibration (serving_expert_time_s) on the MoE serving rows.
constexpr double kExpertTimePriorS = 0.2e-6;

}  // namespace

ReplicaLayout replicaLayout(const Scenario& s, const Plan& plan) {
    ReplicaLayout l;
    l.pp = std::max(1, plan.pp);
    const int tp = std::max(1, plan.tp);
    // Attention data parallelism splits the replica's tensor-parallel ranks
    // into groups that each run attention on their own requests (DeepSeek
    // deployments: attention DP 8 with expert parallelism 8 on one node).
    const int adp = s.parallel.attentionDp > 1 && tp % s.parallel.attentionDp == 0 ? s.parallel.attentionDp : 1;
    l.attentionDp = adp;
    l.attentionTp = tp / adp;
    l.gpus = tp * l.pp;
    l.replicas = std::max(1, plan.gpuCount / l.gpus);
    const int perNode = std::max(1, s.gpu.gpusPerNode);
    l.tpLink = groupLink(s, l.attentionTp, l.attentionTp > perNode);
    // Without attention data parallelism the experts' group is the attention group.
    l.expertLink = tp == l.attentionTp ? l.tpLink : groupLink(s, tp, tp > perNode);
    // Read only where stages hand over (stepS, pp > 1).
    if (l.pp > 1) l.stageLink = groupLink(s, 2, l.gpus > perNode);
    return l;
}

namespace {

void calibrate(StepModel& m, const Scenario& s, bool requestConstants);

StepModel build(const Scenario& s, const Plan& plan, const Workload& work, bool requestConstants) {
    StepModel m(work);
    m.layout = replicaLayout(s, plan);
    m.tpLatencyPriorS = m.layout.tpLink.latencyS;
    // KV heads split over the attention ranks and are replicated once the
    // ranks outnumber them; MLA's latent is kept whole on every rank. Full
    // and sliding layers each by their own KV heads (MiMo-V2-Flash at tp 8:
    // 1 of 4 heads on a full layer, 1 of 8 on a sliding one).
    const ModelSpec& model = s.model;
    const KvRankShare share = kvRankShare(model, m.layout.attentionTp);
    m.kvShare = share.full;
    m.slidingKvShare = share.sliding;
    // Experts spread over the ranks exchange tokens all-to-all only where
    // attention data parallelism splits the tokens among them. Without it
    // every rank holds the step's tokens after attention's all-reduce, picks
    // those routed to its experts, and the MoE output is all-reduced like a
    // tensor-parallel MLP's (vLLM fused_moe/config.py use_all2all_kernels:
    // dp_size > 1 and use_ep; TensorRT-LLM fused_moe_wide_ep.py
    // select_alltoall_method_type: NotEnabled without enable_attention_dp).
    m.expertParallel = m.work.experts > 0 && m.layout.attentionDp > 1;
    // Experts not spread by expert parallelism are split by tensor
    // parallelism over the replica's ranks (TensorRT-LLM's mapping:
    // moe_tp x moe_ep = tp; vLLM and SGLang without --enable-expert-parallel).
    const int moeTp = std::max(1, plan.tp / std::max(1, plan.ep));
    m.expertReadFactor = expertSplitReadFactor(model.moe.expertIntermediateSize, moeTp);
    if (m.work.experts > 0) {
        // Layers with routed experts: all but the leading dense ones, every
        // layerInterval-th of them (Llama 4 Maverick: every second).
        const int moeSpan = std::max(0, m.work.layers - std::max(0, model.moe.denseLayers));
        m.moeLayers = std::ceil(double(moeSpan) / std::max(1, model.moe.layerInterval));
        // Expert parallelism spreads the experts over its ranks; tensor
        // parallelism gives every rank a slice of each.
        m.localExperts = std::ceil(double(m.work.experts) / std::max(1, plan.ep));
    }
    if (s.serving.speculative) {
        m.draftCostShare = s.serving.speculative->method == "draft" ? kDraftModelShare : 1.0 / m.work.layers;
    }
    calibrate(m, s, requestConstants);
    return m;
}


void calibrate(StepModel& m, const Scenario& s, bool requestConstants) {
    StepConstants own;
    StepConstants* c = HeldStepConstants::lookup(s.engine, s.weights, s.gpu);
    if (!c) {
        own = stepConstants(s.engine, s.weights, s.gpu);
        c = &own;
    }
    m.engine = c->engineDefaults;
    applyServingKnobs(m.engine, s);
    if (requestConstants) addRequestConstants(m.engine, c->cell);
    m.bandwidthBytesPerS = c->bandwidthBytesPerS;
    m.decodeFlopsPerS = c->decodeFlopsPerS;
    m.prefillFlopsPerS = c->prefillFlopsPerS;
    m.layerOverheadS = c->layerOverheadS;
    m.kvReadFraction = c->kvReadFraction;
    m.expertTimeS = m.localExperts > 0 ? c->expertTimeS : 0.0;
    if (c->unpackOpsPerWeight > 0) {
        m.unpackS = m.work.weightCount * c->unpackOpsPerWeight / double(m.layout.gpus) / c->fp32FlopsPerS;
    }
    // Within an NVLink domain the serving engines all-reduce with custom
    // one-shot kernels fused with the residual add and RMSNorm (TensorRT-LLM
    // cpp/tensorrt_llm/thop/allreduceOp.cpp ONESHOT/TWOSHOT; vLLM
    // vllm/compilation/passes/fusion/allreduce_rms_fusion.py; SGLang's
    // custom all-reduce), not NCCL's ring: its fixed time is fitted
    // (serving_allreduce_latency_s) on NCCL's small-message latency as prior.
    if (m.layout.tpLink.name[0] == 'N' && std::strcmp(m.layout.tpLink.name, "NVLink") == 0) {
        if (c->allReducePriorS != m.tpLatencyPriorS) {
            c->allReducePriorS = m.tpLatencyPriorS;
            c->allReduceLatencyS = calibratedServing(ServingConstant::AllReduceLatencyS, c->cell, m.tpLatencyPriorS);
        }
        m.layout.tpLink.latencyS = c->allReduceLatencyS;
    }
}

}  // namespace

StepConstants stepConstants(Engine engine, WeightFormat format, const GpuSpec& gpu) {
    StepConstants c;
    c.engine = engine;
    c.format = format;
    c.cell = servingCell(engine, format, gpu);
    c.engineDefaults = engineSchedulerDefaults(engine, gpu);
    calibrateStepDefaults(c.engineDefaults, c.cell);
    const EngineRates rates = engineRates(engine, format, gpu);  // held per matrix column
    const double peak = rates.peak.tflops * 1e12;
    c.bandwidthBytesPerS = rates.bandwidthFraction * gpu.bandwidthGBps * 1e9;
    c.decodeFlopsPerS = rates.decodeComputeFraction() * peak;
    c.prefillFlopsPerS = rates.prefillFraction * peak;
    // Serving engines replay each step as CUDA graphs, so a layer's fixed
    // time is its kernels' minimum GPU time, not the launches a single
    // stream's decode rows measure: the step model keeps its own scale on the
    // graph engines' sourced prior (serving_layer_time_s). Paged attention
    // reads the KV blocks at its own rate (serving_kv_read_fraction, prior:
    // the weights' rate).
    c.layerOverheadS = c.cell.engine >= 0 ? calibratedServing(ServingConstant::LayerTimeS, c.cell,
                                                              decodeLayerOverheadPriorS(engine, gpu))
                                          : rates.layerOverheadS;
    c.kvReadFraction = calibratedServing(ServingConstant::KvReadFraction, c.cell, 1.0);
    // The serving engines' kernels only: llama.cpp's mul_mat_id runs the
    // experts its tokens reached, which the weights' reads already count.
    c.expertTimeS = c.cell.engine >= 0 ? calibratedServing(ServingConstant::ExpertTimeS, c.cell, kExpertTimePriorS) : 0.0;
    // llama.cpp's 2-3 bit K-quants unpack on the ALUs at a cost that can bind
    // a step before the weights' reads do (efficiency.cpp dequantOpsPerWeight):
    // the same term the single-stream decode takes, so both agree at batch 1.
    const double ops = dequantOpsPerWeight(format, gpu);
    if (ops > 0 && gpu.fp32Tflops && *gpu.fp32Tflops > 0) {
        c.unpackOpsPerWeight = ops;
        c.fp32FlopsPerS = *gpu.fp32Tflops * 1e12;
    }
    return c;
}

StepModel stepModel(const Scenario& s, const Plan& plan) { return build(s, plan, makeWorkload(s), true); }

StepModel stepModel(const Scenario& s, const Plan& plan, const Workload& work) { return build(s, plan, work, true); }

StepModel decodeStepModel(const Scenario& s, const Plan& plan, const Workload& work) {
    return build(s, plan, work, false);
}

void calibrateStepModel(StepModel& m, const Scenario& s) { calibrate(m, s, true); }

double expertSplitReadFactor(double intermediate, int moeTp) {
    if (intermediate <= 0 || moeTp <= 1) return 1.0;
    // Tensor parallelism splits each expert's intermediate size: a rank's
    // gate and up projections keep K = hidden, its down projection (a third
    // of a SwiGLU expert's weights) reduces over intermediate / moeTp only,
    // and a decode-shaped GEMM streams its weights at eta(K) = K / (K + 100)
    // of the bandwidth (speed/gemm_rows.hpp, DeepGEMM's M = 64 and 128 rows).
    // DeepSeek-V3 at MoE TP 8: K = 2048 / 8 = 256, eta 0.719 against 0.953.
    const double slowdown = gemmStreamEfficiency(intermediate) / gemmStreamEfficiency(intermediate / moeTp);
    return 2.0 / 3.0 + slowdown / 3.0;
}

double StepModel::routedExpertSlowdown(double stepTokens) const {
    if (work.experts <= 0 || work.expertsPerToken <= 0 || work.expertParams <= 0 || work.blockMatmulParams <= 0) {
        return 1.0;
    }
    // A prompt's routed experts run grouped GEMMs whose rows are the tokens
    // one expert receives, k / E of the step's tokens (DeepSeek-V3: 8 of
    // 256, so a 1,024-token prompt gives each expert 32 rows), far below
    // the dense layers' rows: they run at eta(M) = M / (M + M_half) against
    // the dense layers' eta (speed/gemm_rows.hpp, DeepGEMM's grouped-GEMM
    // tables), M_half at this step model's achieved FLOPs per byte of expert
    // weight. The same form as the training model's routed experts.
    const double active = work.expertParams * work.expertsPerToken / work.experts;
    const double share = std::clamp(active / work.blockMatmulParams, 0.0, 1.0);
    const double bytesPerWeight = work.expertWeightBytes / work.expertParams;
    const double halfM = gemmHalfM(prefillFlopsPerS / 1e12, bandwidthBytesPerS / 1e9, bytesPerWeight);
    const double rows = std::max(1.0, stepTokens);
    const double expertRows = rows * work.expertsPerToken / work.experts;
    const double slowdown = gemmRowsEfficiency(rows, halfM) / gemmRowsEfficiency(expertRows, halfM);
    return (1.0 - share) + share * slowdown;
}

double StepModel::kvReadOnRank(double context) const {
    return kvBytesReadOnRank(work, {kvShare, slidingKvShare}, context);
}

double StepModel::kvBytesPerTokenOnRank() const {
    const KvRead token = kvBytesPerTokenByKind(work);
    return token.full * kvShare + token.sliding * slidingKvShare;
}

double StepModel::stepS(double decodes, double context, double prefillTokens, double prefillContext) const {
    const ReplicaLayout& l = layout;
    const double tokens = std::max(1.0, decodes + prefillTokens);
    const double tpGpus = double(l.attentionTp) * l.pp;  // GPUs sharing the dense weights
    const double allGpus = double(l.gpus);
    // Bytes per GPU: dense (and attention) weights over the attention ranks,
    // touched experts over every GPU, each attention group's own requests' KV.
    // A rank's KV is its share of the KV heads (kvReadOnRank, already split
    // over the attention ranks) on its stage's layers: over pp only.
    const double expertBytes = weightBytesPerStep(work, tokens) - work.denseWeightBytes;
    const double groupDecodes = decodes / l.attentionDp;
    const double kvRate = std::max(0.05, kvReadFraction);
    const double decodeKvBytes = groupDecodes * kvReadOnRank(context) / l.pp / kvRate;
    const double promptKvBytes = prefillTokens > 0 ? kvReadOnRank(prefillContext) / l.pp / kvRate : 0;
    const double weightBytes =
        work.denseWeightBytes / tpGpus + std::max(0.0, expertBytes) * expertReadFactor / allGpus;
    // Compute per GPU: decode-shaped and prompt-shaped work at their rates.
    const double matmul = 2.0 * work.blockMatmulParams;
    // A pure decode step runs its GEMMs at the CUDA graph's padded batch (per attention group).
    const double gemmDecodes =
        prefillTokens > 0 ? decodes : cudaGraphBatch(engine, groupDecodes) * l.attentionDp;
    const double decodeGemmFlops = gemmDecodes * (matmul + 2.0 * work.lmHeadParams);
    const double prefillGemmFlops =
        prefillTokens > 0 ? prefillTokens * matmul * routedExpertSlowdown(decodes + prefillTokens) : 0.0;
    const double decodeAttentionFlops = decodes * attentionFlopsPerToken(work, context);
    const double prefillAttentionFlops = prefillTokens * attentionFlopsPerToken(work, prefillContext);
    auto computeS = [&](double decodeFlops, double prefillFlops) {
        double t = 0;
        if (decodeFlopsPerS > 0) t += decodeFlops / allGpus / decodeFlopsPerS;
        if (prefillFlopsPerS > 0) t += prefillFlops / allGpus / prefillFlopsPerS;
        return t;
    };
    auto readS = [&](double b) { return bandwidthBytesPerS > 0 ? b / bandwidthBytesPerS : 0; };
    // The linear layers, the prompts' attention and the running requests'
    // attention are separate kernels that run one after the other on the
    // stream, each bound by its own roofline: the linear layers by the
    // weights' reads or their matmuls, each attention by its KV reads or its
    // own FLOPs. So in a step that mixes a prompt with decodes, the running
    // requests' KV reads add to the prompt's compute-bound work instead of
    // hiding under it (TensorRT-LLM's attention op runs a mixed batch's
    // context and generation requests as separate kernels:
    // cpp/tensorrt_llm/common/attentionOp.h enqueueContext, enqueueGeneration).
    const double linearS = std::max({readS(weightBytes), computeS(decodeGemmFlops, prefillGemmFlops), unpackS});
    const double decodeAttentionS = std::max(readS(decodeKvBytes), computeS(decodeAttentionFlops, 0));
    const double promptAttentionS = std::max(readS(promptKvBytes), computeS(0, prefillAttentionFlops));
    const double stageLayers = double(work.layers) / l.pp;
    double stepS = linearS + decodeAttentionS + promptAttentionS + stageLayers * layerOverheadS +
                   moeLayers / l.pp * localExperts * expertTimeS;
    // Communication of the step's tokens: two all-reduces per layer in the
    // attention group; expert parallelism across attention-DP groups adds a
    // dispatch and a combine (all-to-all) per layer across the replica.
    const double message = tokens / l.attentionDp * work.hidden * kActivationBytes;
    if (l.attentionTp > 1) stepS += stageLayers * 2.0 * allReduceS(message, l.attentionTp, l.tpLink);
    if (expertParallel) stepS += stageLayers * 2.0 * allGatherS(message * work.expertsPerToken, l.gpus, l.expertLink);
    // Pipeline stages run one after another for a step's tokens.
    stepS *= l.pp;
    if (l.pp > 1) stepS += (l.pp - 1) * sendS(tokens * work.hidden * kActivationBytes, l.stageLink);
    // Host work of the step: with an overlap scheduler it hides behind the
    // GPU's step until it is the longer of the two (small models at high
    // tensor parallelism and many requests), else it adds to it.
    const double hostS = engine.stepOverheadS + engine.perSequenceOverheadS * decodes;
    return engine.hostOverlapsGpu ? std::max(stepS, hostS) : stepS + hostS;
}

}  // namespace caliper::serving
