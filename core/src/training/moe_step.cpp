#include "training/moe_step.hpp"

#include <algorithm>

#include "caliper/units.hpp"
#include "calibration/calibration.hpp"

namespace caliper {

namespace {

// Dropless routing's busiest expert-parallel rank over the mean: the
// capacity factor of 1.25 that token-dropping MoE runs set so that the
// busiest expert rarely overflows (Fedus et al., Switch Transformer,
// arXiv 2101.03961, section 2.2 and table 1; Megatron-LM's MoE guide uses
// moe_expert_capacity_factor 1.0-1.25 in its examples), bounded by [1, 2].
// The busiest rank sets the step: its grouped GEMMs and the tokens it
// receives in the all-to-all grow by the factor. Kept at its source, not
// fitted (the rows do not tell it from the GEMMs' own efficiency).
constexpr double kDroplessImbalance = 1.25;
constexpr double kMinImbalance = 1.0, kMaxImbalance = 2.0;
// Bytes moved per routed token copy per MoE layer, in 16-bit elements:
// Megatron-Core's alltoall dispatcher permutes each copy before the dispatch
// and unpermutes it after the combine (moe_utils.py permute / unpermute:
// a gather read and write of h each), and the backward runs both again: 8h.
// The gated activation (SwiGLU, bias_swiglu_impl) reads 2f and writes f
// forward, and reads 2f and the f gradient and writes 2f backward: 8f (4f
// for a plain MLP: read f write f, read 2f write f).
constexpr double kPermuteElementsPerHidden = 8.0;
constexpr double kGatedActivationElements = 8.0, kPlainActivationElements = 4.0;
constexpr double kActivationBytes = 2.0;
// Streaming kernels reach ~0.8 of the HBM peak (the decode rate of 16-bit
// weights, as speed/speed.cpp's bandwidth fraction).
constexpr double kShuffleBandwidthFraction = 0.8;

// Fixed GPU time per local expert per MoE layer per micro-batch, forward
// and backward. Transformer Engine's GroupedLinear runs one GEMM per local
// expert (Megatron-LM MoE guide, moe_grouped_gemm: "launch multiple local
// GEMM kernels in multiple CUDA streams"): fc1 and fc2 forward, their data
// and weight gradients backward (6 GEMMs), each with its own launch, tile
// tail and FP8 input quantization, and the splits it needs on the host
// (m_splits: a device-to-host copy of the tokens per expert), outside CUDA
// graphs. The serving step model's 0.2 us per expert problem
// (serving/step_model.cpp) is one fused grouped kernel under a CUDA graph;
// separate launches take ~5 us each [E]: prior 6 x 5 us = 30 us, bounded
// by [0, 1 ms]. Fitted on the MoE pre-training rows as one group
// (validation/public-v2.jsonl: NeMo Megatron-Bridge DGX-H100 Qwen3-30B-A3B,
// Qwen3-235B-A22B, DeepSeek-V3 FP8 and gpt-oss-120b BF16;
// validation/public.jsonl's Megatron Mixtral 8x7B row; 34 rows), jointly
// with kAllToAllOverlap, by the mean |ln(predicted / measured)|: 400 us
// (0.169; 300 us: 0.187, 600 us: 0.181, 30 us: 0.363, none: 0.393, and
// 0.405 before this file). The rows that ran 16 local experts a rank (EP 8
// of 128) are the ones the dense-table MFU overestimated 2-3x; those with
// 4-8 (EP 16-64) it did not. Refitted jointly on a second source, the
// Megatron MoE model zoo's H100 BF16 runs (validation/megatron-moe-zoo.jsonl:
// Qwen3-235B-A22B at EP 8 and 32, Qwen3-Next-80B-A3B; 12 rows, 46 in all):
// 400 us and 0.5 stay the joint minimum (0.175; 350 us: 0.176, 450 us: 0.177,
// 300 us: 0.181, 200 us: 0.212, none: 0.369). Each source alone: Megatron-
// Bridge's rows 450 us at 0.5 (0.161; 400 us: 0.166), the zoo's 300 us at 0.75
// (0.134; none: 0.300-0.321), so both want a fixed cost per local expert of
// 300-450 us; the zoo's rows scored at the other source's fit: 0.191.
// Refitted once FP8's per-GEMM input cast was counted on its own
// (training_efficiency.cpp, kFp8CastBytesPerElement; it was part of this
// fixed time on the FP8 rows) with the FP8 GEMM speed-up refitted to 1.9, on
// the same MoE TFLOP/s and tokens/s rows (53, with Nemotron-4 340B's two
// dense rows 55): 300 us (mean |ln| 0.189;
// 400 us: 0.201, 350 us: 0.194, 250 us: 0.187, 200 us: 0.193, 150 us:
// 0.205; before the cast: 400 us 0.192), the zoo's own optimum above.
// The value in force is now fitted by caliper_calibrate on the MoE training
// rows (TrainingConstant::ExpertGemmFixedS, bounded by [0, 1 ms];
// data/calibration.json's training_constants names the rows and sources);
// this prior of six separate launches stays for a table without it.
constexpr double kExpertGemmFixedPriorS = 30e-6;
// Share of the expert-parallel all-to-all hidden under compute: Megatron-
// Core overlaps one micro-batch's dispatch and combine with another's
// compute (overlap_moe_expert_parallel_comm with delay_wgrad_compute, the
// MoE performance recipes of Megatron-Bridge; DeepSeek-V3's DualPipe,
// arXiv 2412.19437 section 3.2.1, hides all of it). Prior 0.5 [E], bounded
// by [0, 0.9]; fitted with the fixed time per local expert on the same rows: 0.5 (at
// 400 us: 0.75 gives mean |ln error| 0.216; at 200 us: 0.25 0.270, 0 0.339).
constexpr double kAllToAllOverlap = 0.5;

int moeLayers(const ModelSpec& m) {
    return std::max(0, (m.layers - std::max(0, m.moe.denseLayers)) / std::max(1, m.moe.layerInterval));
}

}  // namespace

double moeLoadImbalance(const Scenario& s, const Workload& work, int ep) {
    if (work.experts <= 0 || ep <= 1 || s.model.moe.experts <= 0) return 1.0;
    return std::clamp(kDroplessImbalance, kMinImbalance, kMaxImbalance);
}

double moeAllToAllExposedShare() { return 1.0 - std::clamp(kAllToAllOverlap, 0.0, 0.9); }

double moeTokenWorkS(const Scenario& s, const Plan& plan, const Workload& work, double microTokens) {
    const ModelSpec& m = s.model;
    if (work.experts <= 0 || m.moe.experts <= 0) return 0;
    const double bandwidth = kShuffleBandwidthFraction * s.gpu.bandwidthGBps * kBytesPerGB;
    if (bandwidth <= 0) return 0;
    const double h = work.hidden, f = m.moe.expertIntermediateSize;
    const double activation = (m.mlp == MlpKind::Gated ? kGatedActivationElements : kPlainActivationElements) * f;
    const double bytesPerCopy = kActivationBytes * (kPermuteElementsPerHidden * h + activation);
    // This GPU's routed copies: its tokens (over tp x cp, as the dispatcher
    // holds them) x experts per token, on its 1 / pp of the layers.
    const double copies = microTokens / (std::max(1, plan.tp) * std::max(1, plan.cp)) * std::max(1, work.expertsPerToken);
    const double shuffleS = copies * bytesPerCopy / bandwidth;
    // Local experts: the routed experts over the expert-parallel ranks
    // (tensor parallelism slices each expert: every rank runs a slice of each).
    const double localExperts = double(m.moe.experts) / std::max(1, plan.ep);
    const double fixedS = localExperts * calibratedTraining(TrainingConstant::ExpertGemmFixedS, kExpertGemmFixedPriorS);
    return (shuffleS + fixedS) * moeLayers(m) / std::max(1, plan.pp);
}

}  // namespace caliper
