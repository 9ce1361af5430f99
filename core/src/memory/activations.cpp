// Inference activation peak per GPU: the transient tensors of one forward
// pass over the tokens the engine processes at once, plus the logits buffer
// and (eager attention) the score matrix. Each engine differs in how many
// tokens one pass holds: vLLM/SGLang profile a full chunked-prefill batch,
// llama.cpp reserves a compute buffer for one micro-batch, transformers runs
// the whole prompt.
#include <algorithm>
#include <cmath>

#include "caliper/units.hpp"
#include "memory/sizing.hpp"

namespace caliper::sizing {

namespace {

// vLLM V1 default max_num_batched_tokens for the OpenAI server: 8192 on GPUs
// with 70 GiB or more, 2048 below (vllm/engine/arg_utils.py); vLLM sizes the
// activation reserve by a profile run of that many tokens. SGLang's
// chunked_prefill_size follows the same split [E].
constexpr double kServingChunkTokensLarge = 8192;
constexpr double kServingChunkTokensSmall = 2048;
constexpr double kLargeGpuGiB = 70;
// vLLM EngineArgs max_num_seqs = 256: the profile's sampler holds that many
// rows of fp32 logits plus their probabilities (8 bytes per vocabulary entry).
constexpr double kServingMaxSeqs = 256;
constexpr double kSamplerBytesPerLogit = 8;
// vLLM V1 profiles the sampler apart from the forward pass, on max_num_seqs
// rows: 1024 on GPUs with >= 70 GiB that are not A100, else 256
// (arg_utils.py get_batch_defaults). Its peak (fp32 logits, probabilities,
// the sorted copy top-p/top-k need) is ~15 bytes per vocabulary entry: vLLM
// 0.19 logs on H100 show a torch peak of 1.89 GiB for Llama-3.1-8B (vocab
// 128,256), 2.21 GiB for Qwen2.5-7B (152,064) and 3.63 GiB for Gemma-7B
// (256,000) at any tp (public-v2.jsonl activation_memory), and the peak is
// the larger of the forward pass and the sampler, not their sum.
constexpr double kVllmMaxSeqsLarge = 1024;
constexpr double kVllmSamplerBytesPerLogit = 15;
// TensorRT-LLM max_num_tokens default (trtllm-build): 8192.
constexpr double kTrtllmMaxTokens = 8192;
// llama.cpp n_ubatch default 512; its compute buffers hold f32 tensors.
constexpr double kLlamaCppUbatch = 512;
constexpr double kF32 = 4;
constexpr double kBf16 = 2;
// transformers' generate() asks the head for the last position's logits
// only (generation/utils.py: `logits_to_keep` = 1 where the model supports
// it, `num_logits_to_keep` since v4.45), in the model's dtype, and takes an
// fp32 copy of them: 2 + 4 bytes per sequence per vocabulary entry. (Heads
// before 4.45 computed every prompt position; Caliper's H200 generate() runs,
// validation/measured-h200.jsonl, show the prompt's logits are not
// held: Llama 3.1 8B, 32 x 4,096-token prompts, 52.4 GiB reserved where
// every position's logits alone would be 94 GiB.)
constexpr double kLastPositionLogitBytes = 6;
// Eager attention keeps bf16 scores and their fp32 softmax for one layer.
constexpr double kEagerScoreBytes = 6;
// bitsandbytes 4-bit dequantizes each weight to fp16 and, with the default
// bnb_4bit_compute_dtype=float32 of transformers, casts it to fp32: 6 bytes
// per element of the largest matrix. LLM.int8 keeps a 16-bit working copy.
constexpr double kBnb4bitInferenceWorkspaceBytes = 6;
constexpr double kInt8WorkspaceBytes = 2;

// Bytes one token's transient tensors take inside a layer (bf16), per
// tensor-parallel rank: the residual stream and norm output, then the larger
// of attention (q, k, v, output) and MLP (gate, up, activation; MoE: the
// routed copies of top-k experts).
double perTokenLayerBytes(const ModelShape& s, int tp, double elementBytes) {
    const double residual = 3 * s.hidden;
    const double attention = (2 * s.qDim + 2 * s.kvDim) / tp;
    const double matrices = s.gated ? 3 : 2;
    double mlp = s.ffn > 0 ? matrices * s.ffn / tp : 0;
    if (s.experts > 0) {
        const double routed = double(s.topK + s.sharedExperts);
        // Always-on experts wider than the routed ones (Gemma 4's dense MLP) add their surplus.
        const double sharedSurplus = s.sharedExperts * matrices * (s.sharedExpertFfn - s.expertFfn) / tp;
        mlp = std::max(mlp, routed * (matrices * s.expertFfn / tp + s.hidden) + s.experts * 2.0 + sharedSurplus);
    }
    return (residual + std::max(attention, mlp)) * elementBytes;
}

// Elements per token the routed experts of transformers 5.x hold at their
// peak, per tensor-parallel rank (integrations/moe.py,
// grouped_mm_experts_forward, the default experts implementation). S = tokens
// x top-k rows; the locals live to the function's end. Up projection: the
// gathered input (S x hidden) + the up output and its masked_fill copy (2 x S x
// up width, up = 2 x expert_ffn gated); the gated activation peaks no higher.
// Down projection: the input copy + the down output (S x hidden) + the routing-
// weighted product + its un-permuted copy (weighted_out[inv_perm]) while the
// product is live: 2 + 2 x routing-weight bytes per hidden element. The router
// gives bf16 weights in Qwen3-MoE (Qwen3MoeTopKRouter.forward casts to the
// logits' dtype) but fp32 in DeepSeek-V2 (the fp32 gate, never cast back), and
// a bf16 x fp32 product is fp32: 4 bytes.
double transformersRoutedExpertElements(const ModelShape& s, int tp, double weightBytes) {
    const double up = (s.gated ? 2.0 : 1.0) * s.expertFfn / tp;
    const double upPhase = s.hidden + 2 * up;
    const double downPhase = s.hidden * (2 + 2 * weightBytes / kBf16);
    return s.topK * std::max(upPhase, downPhase) + s.experts * 2.0;
}


double servingChunkTokens(const Scenario& s) {
    return s.gpu.memoryGib >= kLargeGpuGiB ? kServingChunkTokensLarge : kServingChunkTokensSmall;
}

double llamaCppComputeBytes(const Inputs& in, const Stage& stage, const Explain& ex) {
    const Scenario& s = *in.scenario;
    const ModelShape& sh = in.shape();
    const double context = double(s.batch) * double(cacheContextTokens(s));
    const double nCtx = std::ceil(context / 256) * 256;
    const double ubatch = std::min(kLlamaCppUbatch, nCtx);
    // Per layer: f32 MLP intermediates (or top-k expert copies) and, without
    // FlashAttention, the f32 K*Q score matrix over the whole cache.
    const double mlpWidth =
        sh.experts > 0 ? (sh.topK + sh.sharedExperts) * 3.0 * sh.expertFfn + sh.sharedExperts * 3.0 * (sh.sharedExpertFfn - sh.expertFfn)
                       : 3.0 * sh.ffn;
    double layer = ubatch * kF32 * (mlpWidth + 2 * sh.hidden);
    if (!s.flashAttention) layer += ubatch * kF32 * sh.heads * nCtx;
    // Output: f32 logits for every token of the micro-batch (worst-case graph).
    const double output = stage.last ? ubatch * kF32 * (sh.vocab + sh.hidden) : 0;
    const double bytes = std::max(layer, output);
    if (ex.on()) {
        ex.add("compute_buffer_gib",
               [&] { return fmt("llama.cpp compute buffer for n_ubatch %.0f tokens (f32): max(layer %.3f GiB%s, output logits "
                   "%.0f x %.0f vocabulary %.3f GiB)",
                   ubatch, bytesToGiB(layer), s.flashAttention ? "" : " incl. the K*Q scores over n_ctx",
                   ubatch, sh.vocab, bytesToGiB(output)); },
               bytesToGiB(bytes));
    }
    return bytes;
}

double quantizedWorkspaceBytes(const Inputs& in) {
    const Scenario& s = *in.scenario;
    if (runtimeOf(s.engine) != Engine::Transformers) return 0;  // fused kernels (Marlin, GEMV) dequantize on the fly
    if (s.weights == WeightFormat::Nf4 || s.weights == WeightFormat::Nf4Dq) {
        return in.shape().largestLinear * kBnb4bitInferenceWorkspaceBytes;
    }
    if (s.weights == WeightFormat::Int8) return in.shape().largestLinear * kInt8WorkspaceBytes;
    return 0;
}

}  // namespace

bool vllmLargeSampler(const Scenario& s) {
    return s.gpu.memoryGib >= kLargeGpuGiB && s.gpu.name.find("A100") == std::string::npos;
}

// (Kept beside the reads it names: a count search shared between GPUs of
// other flash attention defaults relies on it.)
bool memoryReadsFlashAttention(const Scenario& s) {
    const Engine runtime = runtimeOf(s.engine);
    return s.task != Task::Inference || runtime == Engine::LlamaCpp || runtime == Engine::Transformers;
}

double inferenceActivationBytes(const Inputs& in, const Layout& layout, const Stage& stage, const Explain& ex) {
    const Scenario& s = *in.scenario;
    const ModelShape& sh = in.shape();
    if (runtimeOf(s.engine) == Engine::LlamaCpp) {
        const double bytes = llamaCppComputeBytes(in, stage, ex);
        ex.add("activations_gib", "the llama.cpp compute buffer above", bytesToGiB(bytes));
        return bytes;
    }
    double perToken = perTokenLayerBytes(sh, layout.tp, kBf16);
    if (runtimeOf(s.engine) == Engine::Transformers && sh.experts > 0) {
        const double routed = transformersRoutedExpertElements(sh, layout.tp, deepseekV2Architecture(s.model) ? kF32 : kBf16);
        perToken = std::max(perToken, (3 * sh.hidden + routed) * kBf16);
    }
    const double prompt = double(std::max<std::int64_t>(s.promptTokens, 1));
    double tokens = 0, logits = 0, scores = 0;
    const char* why = "";
    if (runtimeOf(s.engine) == Engine::Transformers) {
        tokens = double(s.batch) * prompt;
        why = "the whole prompt of every sequence in one forward pass";
        if (stage.last) logits = double(s.batch) * sh.vocab * kLastPositionLogitBytes;
        if (!s.flashAttention) scores = double(s.batch) * sh.heads / layout.tp * prompt * prompt * kEagerScoreBytes;
    } else {
        const bool trt = runtimeOf(s.engine) == Engine::TensorrtLlm;
        tokens = trt ? kTrtllmMaxTokens : servingChunkTokens(s);
        // A deployment that sets its step budget profiles (vLLM) or reserves
        // (TensorRT-LLM) activations for that many tokens.
        if (s.serving.maxNumBatchedTokens) tokens = *s.serving.maxNumBatchedTokens;
        why = trt ? "TensorRT-LLM max_num_tokens" : "the profile run of a chunked-prefill batch";
        if (stage.last) logits = kServingMaxSeqs * sh.vocab * kSamplerBytesPerLogit;
        if (runtimeOf(s.engine) == Engine::Vllm) {
            // (The GPU's name is searched once per prepared scenario: prepare.)
            const double sampler =
                stage.last ? (in.vllmLargeSampler ? kVllmMaxSeqsLarge : kServingMaxSeqs) * sh.vocab * kVllmSamplerBytesPerLogit
                           : 0;
            const double forward = tokens * perToken;
            logits = std::max(0.0, sampler - forward);  // the peak is the larger of the two
            why = "the profile run of a chunked-prefill batch, or the sampler's on max_num_seqs rows if larger";
        }
    }
    const double workspace = quantizedWorkspaceBytes(in);
    const double bytes = tokens * perToken + logits + scores + workspace;
    if (ex.on()) {
        ex.add("activations_gib",
               [&] { return fmt("%.0f tokens (%s) x %.0f bytes of per-layer transients + logits %.3f GiB%s%s", tokens, why,
                   perToken, bytesToGiB(logits),
                   scores > 0 ? fmt(" + eager attention scores %.3f GiB", bytesToGiB(scores)).c_str() : "",
                   workspace > 0 ? fmt(" + dequantization workspace %.3f GiB (largest matrix)", bytesToGiB(workspace)).c_str()
                                 : ""); },
               bytesToGiB(bytes));
    }
    return bytes;
}

}  // namespace caliper::sizing
