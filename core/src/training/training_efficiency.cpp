#include "training/training_efficiency.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace caliper {

namespace {

// Base MFU of dense bf16 pre-training at seq 4096 on up to ~1k GPUs, by GPU
// generation (model FLOPs incl. causal attention / dense peak).
// Hopper: Megatron-LM README weak-scaling table (H100, 2B-462B, TP 1-8,
// PP 1-16): 41-49%, median 46% for hidden >= 4096; llm-foundry (FSDP) 7B-70B
// on H100: 40-46%.
constexpr double kMfuHopper = 0.46;
// Ampere, as a hardware-FLOPs fraction (the engine adds recomputed FLOPs to
// the work itself): Megatron-LM README 2022 (A100, selective recomputation,
// HFU 43.7-57.0% for 22B-1T at scale); llm-foundry's A100-80GB table (FSDP,
// 8-64 GPUs, 61 runs of 125M-70B: HFU median 59%, 63% from 1B; that table is
// not among the validation rows, its A100-40GB sibling is).
constexpr double kMfuAmpere = 0.58;
// Volta: Megatron-LM paper (arXiv 1909.08053): 39 TFLOPS on one V100 = 30%
// of 125 TFLOPS, 74% weak-scaling efficiency at 512 GPUs.
constexpr double kMfuVolta = 0.30;
// Blackwell, Ada/Ampere GDDR cards, AMD Instinct, others: no comparable
// published table in the sources [E]; below Hopper because of power caps
// (GDDR cards) and less mature kernels (AMD, others).
constexpr double kMfuBlackwell = 0.40;
constexpr double kMfuGddr = 0.40;
constexpr double kMfuAmd = 0.35;
constexpr double kMfuOther = 0.30;

// Megatron 1.7B (hidden 2048) reached 41% against 46-49% for hidden 4096-6144.
constexpr double kNarrowModelFactor = 0.89;
// Cluster size: Megatron GPT-3 175B 96 -> 4608 GPUs 47% -> 42%; Llama 3 405B
// 8k -> 16k GPUs 430 -> 400 TFLOPS (arXiv 2407.21783 Table 4): ~3% per doubling
// beyond 1024 GPUs.
constexpr double kScaleLossPerDoubling = 0.03;
constexpr double kScaleFreeGpus = 1024;
// Long sequences: llm-foundry 7B on H100 46% at 2k, 37% at 8k, 31% at 32k;
// Llama 3 kept 38% at 131k with context parallelism: -5% per doubling beyond 8k [E].
constexpr double kLongSeqLossPerDoubling = 0.05;
constexpr double kLongSeqStart = 8192;
// Micro-steps under 2048 tokens leave GEMMs too small to fill the GPU [E].
constexpr double kFullTileTokens = 2048;
// Engines: Megatron's tables are the reference; llm-foundry (FSDP) reached
// 0.9-1.0 of Megatron's MFU at the same size; Hugging Face Trainer without
// fused kernels ~0.85 [E].
constexpr double kFsdpFactor = 0.95;
constexpr double kEagerTrainerFactor = 0.85;
// LoRA/QLoRA: many small adapter kernels; methodology section 6 brackets
// LoRA/QLoRA at 0.25-0.35 against 0.35-0.45 for single-node full fine-tuning.
constexpr double kAdapterFactor = 0.75;
// FP8 training: Megatron-Bridge's performance guide (docs/performance-guide.md,
// "Low Precision Training") expects FP8 linear layers to run 1.2-1.5x the
// bf16 step; at the middle, 1.35 x the bf16 rate over a peak twice as high is
// 0.675 of the bf16 fraction (llm-foundry's 3B, a narrow model, reached less:
// 27.7% of the 1979 TFLOPS fp8 peak against ~46% of the bf16 peak).
constexpr double kFp8Factor = 0.675;
// Unsloth README "Performance Benchmarking": QLoRA on all linear layers
// (rank 32, batch 2, Alpaca) runs 2x Hugging Face + FA2 on Llama 3.1 8B and
// Llama 3.3 70B (its Triton LoRA, RoPE, norm and loss kernels). Applied to
// adapter fine-tuning only (the README has no full fine-tuning figure), and
// never above Megatron's reference rate for the same GPU and shape.
constexpr double kUnslothAdapterSpeedup = 2.0;

double generationMfu(const GpuSpec& gpu) {
    const GpuFamily family = gpuFamily(gpu);
    const double cc = std::atof(gpu.computeCapability.c_str());
    switch (family) {
        case GpuFamily::NvidiaHbm:
            if (cc >= 10.0) return kMfuBlackwell;
            if (cc >= 9.0) return kMfuHopper;
            if (cc >= 8.0) return kMfuAmpere;
            return kMfuVolta;
        case GpuFamily::NvidiaGeforce:
        case GpuFamily::NvidiaWorkstation: return kMfuGddr;
        case GpuFamily::AmdCdna: return kMfuAmd;
        default: return kMfuOther;
    }
}

double engineFactor(Engine engine) {
    switch (engine) {
        case Engine::Megatron: return 1.0;
        case Engine::Fsdp:
        case Engine::Torchtune:  // native PyTorch with FSDP2, as the FSDP class [E]
        case Engine::Deepspeed: return kFsdpFactor;
        default: return kEagerTrainerFactor;
    }
}

double widthFactor(double hidden) {
    const double t = std::clamp((hidden - 2048.0) / 2048.0, 0.0, 1.0);
    return kNarrowModelFactor + (1.0 - kNarrowModelFactor) * t;
}

double scaleFactor(int gpus) {
    if (gpus <= kScaleFreeGpus) return 1.0;
    return std::max(0.5, 1.0 - kScaleLossPerDoubling * std::log2(gpus / kScaleFreeGpus));
}

double sequenceFactor(double seqLen) {
    if (seqLen <= kLongSeqStart) return 1.0;
    return std::max(0.7, 1.0 - kLongSeqLossPerDoubling * std::log2(seqLen / kLongSeqStart));
}

bool fp8Training(const Scenario& s) { return (s.weights == WeightFormat::Fp8 || s.weights == WeightFormat::Fp8Block) && s.gpu.supportsFp8 && s.gpu.fp8Tflops; }

}  // namespace

TrainingFlops trainingFlops(const Scenario& s, const Workload& work) {
    const double matmul = work.blockMatmulParams + work.lmHeadParams;
    // Causal attention forward = 2 L s d_attn per token, x3 with backward
    // (Megatron's current count halves PaLM's non-causal 12 L s d_attn),
    // over the layers that attend: a hybrid stack's Mamba-2 or linear-attention
    // layers have no s x s product (Megatron-LM training.py counts attention
    // only for the hybrid model's attention layers), and a sliding-window
    // layer attends to at most its window (promptAttentionFlops).
    Workload attending = work;
    attending.layers = fullAttentionLayers(s.model);
    const double seq = double(std::max<std::int64_t>(1, s.seqLen));
    const double attention = 3.0 * promptAttentionFlops(attending, seq, false) / seq;
    const bool adapters = s.task == Task::Finetune && s.method != Method::Full;
    TrainingFlops f;
    // LoRA: forward 2N plus activation gradients 2N; frozen weights get no gradient.
    f.modelPerToken = (adapters ? 4.0 : 6.0) * matmul + attention;
    f.hardwarePerToken = f.modelPerToken;
    // Full recomputation runs each layer's forward again; selective
    // recomputation only the attention core's (Korthikanti et al. 2205.05198
    // Table 4: 2.7% more FLOPs than none for GPT-3 175B at s 2048).
    const bool recomputeAttention = s.gradientCheckpointing || s.selectiveRecompute;
    if (s.gradientCheckpointing) f.hardwarePerToken += 2.0 * matmul;
    if (recomputeAttention) f.hardwarePerToken += attention / 3.0;
    f.attentionShare = f.hardwarePerToken > 0 ? attention * (recomputeAttention ? 4.0 / 3.0 : 1.0) / f.hardwarePerToken : 0;
    f.formula = std::string(adapters ? "4N" : "6N") + " (N = matmul params incl. lm_head) + 6 L s d_attn (causal)" +
                (s.gradientCheckpointing ? "; hardware adds one forward (full recomputation)"
                 : s.selectiveRecompute  ? "; hardware adds the attention core's forward (selective recomputation)"
                                         : "");
    return f;
}

PeakRate trainingPeak(const Scenario& s) {
    const GpuSpec& gpu = s.gpu;
    if (fp8Training(s)) return {*gpu.fp8Tflops, "fp8_tflops"};
    if (gpu.supportsBf16 && gpu.bf16Tflops) return {*gpu.bf16Tflops, "bf16_tflops"};
    if (gpu.fp16Tflops) return {*gpu.fp16Tflops, "fp16_tflops"};
    if (gpu.bf16Tflops) return {*gpu.bf16Tflops, "bf16_tflops"};
    if (gpu.fp32Tflops) return {*gpu.fp32Tflops, "fp32_tflops"};
    return {0, "none"};
}

double trainingMfu(const Scenario& s, const Plan& plan, const Workload& work) {
    double mfu = generationMfu(s.gpu) * engineFactor(s.engine) * widthFactor(work.hidden) *
                 scaleFactor(std::max(1, plan.gpuCount)) * sequenceFactor(double(s.seqLen));
    const double microTokens = double(std::max<std::int64_t>(1, s.batch)) * double(std::max<std::int64_t>(1, s.seqLen));
    if (microTokens < kFullTileTokens) mfu *= 0.6 + 0.4 * microTokens / kFullTileTokens;
    if (s.task == Task::Finetune && s.method != Method::Full) {
        mfu *= kAdapterFactor;
        if (s.engine == Engine::Unsloth) mfu = std::min(mfu * kUnslothAdapterSpeedup, mfu / (kEagerTrainerFactor * kAdapterFactor));
    }
    if (fp8Training(s)) mfu *= kFp8Factor;
    return mfu;
}

std::string trainingMfuFormula(const Scenario& s, const Plan& plan) {
    return std::string("MFU of ") + toString(gpuFamily(s.gpu)) + " x engine " + toString(s.engine) +
           " x width x cluster size (" + std::to_string(plan.gpuCount) + " GPUs) x sequence length" +
           (s.task == Task::Finetune && s.method != Method::Full ? " x adapters 0.75" : "") +
           (s.task == Task::Finetune && s.method != Method::Full && s.engine == Engine::Unsloth
                ? " x Unsloth 2 (README, QLoRA vs HF + FA2), capped at the Megatron reference"
                : "");
}

}  // namespace caliper
