// Training activations per GPU (methodology §4.2): Korthikanti et al.'s
// per-layer accounting with the gated-MLP/GQA correction, FlashAttention,
// full recomputation, tensor/sequence parallelism, pipeline micro-batches in
// flight, the logits of the loss, and the QLoRA dequantization buffer.
#include <algorithm>
#include <cmath>

#include "caliper/units.hpp"
#include "memory/sizing.hpp"
#include "memory/training_bytes.hpp"

namespace caliper::sizing {

namespace {

// Korthikanti et al. (2205.05198) count bytes with 16-bit activations; the
// coefficients below scale by elementBytes / 2 (fp32 training doubles them).
// Attention block, norms and MLP input for a gated/GQA model: sbh(12 + 4g)
// with g = n_kv / a (methodology §4.2, [D]).
constexpr double kAttentionCoeff = 12;
constexpr double kKvCoeff = 4;
// Gated MLP stores gate, up, activation and product: 8 s b f bytes; a plain
// two-matrix MLP stores fc1 output and GeLU output: 4 s b f.
constexpr double kGatedMlpCoeff = 8;
constexpr double kPlainMlpCoeff = 4;
// Without FlashAttention: softmax (2), dropout mask (1) and output (2) per
// score, 5 a s^2 b (Korthikanti Table 2). The ms-swift Qwen-7B runs (flash
// on vs off) differ by 5.1 bytes per score.
constexpr double kEagerScoreCoeff = 5;
// Megatron-Core's fused SwiGLU (megatron/core/fusions/fused_bias_swiglu.py,
// SwiGLUFunction: ctx.save_for_backward(input)) keeps only the fc1 output,
// gate and up together (4 s b f); fc2 keeps its input, the product (2 s b f):
// 6 s b f against the 8 of an unfused gate/up/act/product chain.
constexpr double kGatedMlpCoeffFused = 6;
// FP8 with Transformer Engine: each Linear saves its input for the weight
// gradient as the FP8 cast it multiplied (transformer_engine/pytorch/module/
// linear.py and layernorm_linear.py: `if fp8 and not ...override_linear_
// precision.wgrad: saved_inputmat_t = inputmat_t`), 1 byte instead of 2.
// Per layer that halves the QKV and fc1 inputs (-1 s b h each) and the fc2
// input (-1 s b f); the attention output stays saved in 16 bits for the
// FlashAttention backward and its projection adds its FP8 copy (+1 s b h).
constexpr double kFp8LinearInputSavingCoeff = 1;   // s b h: QKV + fc1 inputs - projection copy
constexpr double kFp8MlpInputSavingCoeff = 1;      // s b f: fc2 input
// Megatron-Core's output-discarding recomputation (recompute_modules,
// megatron/core/transformer/transformer_config.py): "layernorm" frees the
// outputs of input_layernorm and pre_mlp_layernorm, which the QKV and fc1
// linears saved as their inputs (2 per norm, s b h); "moe_act" frees the
// experts' activation output, fc2's saved input (2 s b f over the routed
// experts a token visits). Under FP8 linears those inputs are 1-byte casts.
constexpr double kNormsPerLayer = 2;
// Full recomputation keeps only each layer's input: 2 s b h.
constexpr double kCheckpointCoeff = 2;
// Loss over the vocabulary in 16-bit training. Hugging Face causal-LM heads
// since transformers 4.49 (loss/loss_utils.py ForCausalLMLoss: `logits =
// logits.float()`, the labels padded and shifted instead of the logits, PR
// #35646) hold the 16-bit logits, the fp32 upcast and cross_entropy's saved
// fp32 log-softmax in forward (2 + 4 + 4), and in backward the saved
// log-softmax, its incoming fp32 gradient and the gradient it makes
// (4 + 4 + 4): 12 s b V at the peak. Caliper's H100 runs
// (validation/measured-h100.jsonl, transformers 5.17) agree: the runs whose
// peak is mostly logits (micro-batch 8 x 4,096 tokens, 128-152k vocabularies)
// come to 12.6-14 bytes per logit with every other term included.
constexpr double kLogitsCoeff16 = 12;
// Before 4.49 the heads (LlamaForCausalLM/Qwen2ForCausalLM 4.3x, and the
// first loss_utils.py) also copied the shifted logits (`shift_logits =
// logits[..., :-1, :].contiguous()`): one more fp32 tensor, 16 s b V.
// Methodology §4.2's 10 s b V omits the shifted copy and the saved
// log-softmax, and under-predicted the ms-swift rows (early 2024) of the
// validation set by 10-12% as a group.
constexpr double kLogitsCoeffShifted16 = 16;
// fp32 training: logits, log-softmax and gradient in fp32, 12 s b V.
constexpr double kLogitsCoeff32 = 12;
// Megatron's vocab-parallel cross entropy (megatron/core/tensor_parallel/
// cross_entropy.py, calculate_logits_max: `vocab_parallel_logits.float()`)
// keeps the 16-bit logits and one fp32 copy that it turns into the softmax
// in place and saves for backward, where the gradient overwrites it: 2 + 4
// bytes per logit, over the tensor-parallel ranks' share of the vocabulary.
constexpr double kLogitsCoeffVocabParallel = 6;
// A fused cross-entropy kernel on 16-bit logits (flash-attn's
// ops/triton/cross_entropy.py, llm-foundry's default `fused_crossentropy`
// loss in llmfoundry/models/mpt/modeling_mpt.py) saves the logits and writes
// a gradient of the same dtype: 2 + 2 bytes per logit.
constexpr double kLogitsCoeffFused = 4;
// Chunked cross entropy on the 16-bit logits (LitGPT's fine-tuning scripts:
// model(input_ids, lm_head_chunk_size=128) and chunked_cross_entropy in
// finetune/lora.py, lit_gpt/utils.py at commit 8641822, litgpt/finetune/*.py
// today): the bf16 logits chunks stay referenced until backward (2 bytes) and
// cross_entropy on each bf16 chunk saves its bf16 log-softmax (2 bytes); no
// fp32 upcast, no shifted copy; the gradient is made one chunk at a time.
constexpr double kLogitsCoeffChunked = 4;
// Unsloth's Fast_CrossEntropyLoss (unsloth/kernels/cross_entropy_loss.py)
// saves the 16-bit logits and an fp32 logsumexp per row, and its backward
// writes the gradient into the logits tensor and returns it (`return
// (logits, None, ...)`): 2 bytes per logit.
constexpr double kLogitsCoeffUnslothFused = 2;
// torchtune's CEWithChunkedOutputLoss (torchtune/modules/loss/
// ce_chunked_output_loss.py) upcasts one chunk at a time (`logits.float()`)
// but cross_entropy saves every chunk's fp32 log-softmax for backward, beside
// the 16-bit logit chunks the model returned: 2 + 4 bytes per logit.
constexpr double kLogitsCoeffTorchtuneChunked = 6;
// fp32 LoRA adapters beside a 16-bit base (AdapterDtype in scenario.hpp):
// every adapted linear layer casts its input to fp32 for lora_A, which saves
// that copy for its weight gradient (4 bytes per input element, once per
// adapted module: q, k and v each cast the same input). The frozen 16-bit
// base layers need not keep their inputs, so the 2-byte inputs that only a
// linear layer's weight gradient needed leave the count: the q/k/v input,
// the gate/up input and the down-projection input (the attention output
// stays: FlashAttention saves it for its own backward).
constexpr double kAdapterCopyBytes = 4;
// LoRA dropout (LoraSpec::dropout > 0): each adapted module runs
// lora_A(dropout(x)) (PEFT lora/layer.py Linear.forward; torchtune
// modules/peft/lora.py LoRALinear; LitGPT lora.py), so lora_A saves the
// dropped-out copy for its weight gradient, in the adapters' dtype, and
// native_dropout saves its mask, one bool byte per element, for its own
// backward; dropout does not keep its input, so an fp32 cast feeding it is
// not kept either. Without dropout PEFT's nn.Identity passes x itself.
constexpr double kDropoutMaskBytes = 1;
// LoRA on fused expert parameters (lora.experts "fused", transformers v5 MoE
// under PEFT's target_parameters). lora.ParamWrapper._activate_lora (PEFT
// lora/layer.py) registers `W + delta` as a parametrization of gate_up_proj and
// down_proj for the experts' forward, delta = einsum(B, A) in the adapters'
// fp32, cast to the weight's dtype: a new 16-bit tensor of every expert of the
// layer, which requires grad. The experts' matmuls (transformers
// integrations/moe.py: F.linear on `gate_up_proj[expert_idx]`, or grouped_mm on
// the whole tensor) save that weight, or views of it, for the input's
// gradient, so each MoE layer keeps one 16-bit copy of all its experts until
// its backward: with 128 experts of Qwen3-30B-A3B, 1.125 GiB a layer, 54 GiB
// over 48 layers, against 2.8 GiB for the tokens' own activations at 2,048
// tokens. Caliper's H200 runs (transformers 5.17, PEFT 0.21, bf16 Qwen3-30B-A3B,
// LoRA on all linear layers) run out of 139.8 GiB without checkpointing at
// 1 x 2,048 tokens and fit with it at 8 x 4,096 (130.0 GiB allocated), where
// one layer's copy is live at a time. The same weight requiring grad makes
// the matmuls save their inputs for its gradient: each routed pass keeps its
// gathered 16-bit input (the lora_A fp32 input copies of per-expert modules are
// gone: no branch reads the tokens), and the down projection its input.
constexpr double kMergedExpertCopies = 1;
// Backward of the largest merged tensor (gate_up_proj): its 16-bit gradient
// and that gradient cast back to the fp32 delta (the `.to(dtype)` backward),
// 2 + 4 bytes per element, before einsum's backward reduces it to A's and B's.
constexpr double kMergedExpertGradBytes = 2 + 4;

// Eager RMSNorm (transformers' LlamaRMSNorm and its copies in every RMSNorm
// family, models/llama/modeling_llama.py; torchtune modules/rms_norm.py,
// LitGPT's RMSNorm alike): `hidden_states.to(torch.float32)`, then `pow(2)`
// and the multiply by rsqrt save that fp32 copy for backward, 4 bytes per
// element where the base count has the 16-bit input (2); the final
// `self.weight * hidden_states.to(input_dtype)` saves the normalized 16-bit
// tensor for the weight's gradient, only where the weight trains (autograd
// saves an operand only for an input that requires grad). Qwen3's per-head
// q_norm/k_norm do the same on the q and k projections, whose outputs the
// base count does not hold. Caliper's H100 runs (validation/measured-h100.jsonl)
// agree: LoRA without checkpointing (norms frozen) at 36 + 4g bytes per s b h
// with the fp32 adapter copies, full fine-tuning at 20 + 4g beside 8 s b f.
constexpr double kNormNormalizedCopyElements = 1;

// Mixed precision under torch.autocast with fp32 weights (Scenario::autocast).
// PyTorch's CUDA autocast op lists (torch/csrc/autograd/autocast_mode.cpp,
// "lower_precision_fp": linear, matmul, scaled_dot_product_attention; "fp32":
// the norms, softmax, log_softmax, cross_entropy/nll_loss) make the linear
// layers' and attention's outputs 16-bit, so the MLP and the attention save
// 16-bit tensors as in bf16 training, while the residual stream (fp32
// embedding + the linears' outputs, promoted) stays fp32: the checkpointed
// layer inputs are fp32 and each RMSNorm saves its fp32 input and, where its
// weight trains, its fp32 normalized output (the weight is fp32). autocast
// casts a linear's input anew for every call (cached_cast keeps only leaf
// tensors that require grad, the weights), so q, k and v each save their own
// 16-bit copy of the normed input, and gate and up theirs: 2 more copies of h
// for attention, 1 for a gated MLP, beyond the one the base count has. Each
// linear also saves the 16-bit cast of its weight for the input's gradient:
// 2 bytes per weight of a layer, kept with that layer's activations; with
// checkpointing the autocast cache holds every layer's casts until the
// forward (loss included) leaves autocast. Caliper's H100 runs of fp32
// Llama 3.2 1B/3B, Qwen2.5 0.5B/1.5B and Qwen3 4B under bf16 autocast come to
// within 1-2% of this count without checkpointing.
constexpr double kAutocastElementBytes = 2;
constexpr double kAutocastAttentionCopies = 2;  // k and v cast the normed input again
constexpr double kAutocastGatedMlpCopies = 1;   // up casts it again beside gate
constexpr double kAutocastWeightCastBytes = 2;
// Hugging Face's loss in forward holds the 16-bit logits, their fp32 upcast
// and the saved fp32 log-softmax (2 + 4 + 4 of the 12 bytes it peaks at in
// backward, kLogitsCoeff16): what the autocast cache's peak at the end of the
// forward sits beside.
constexpr double kLogitsForwardShare = 10.0 / 12.0;

// QLoRA dequantizes one weight matrix at a time to bf16 for its matmul.
constexpr double kDequantBytes = 2;

double elementBytes(const Scenario& s) { return s.weights == WeightFormat::Fp32 ? 4 : 2; }

bool autocastTraining(const Scenario& s) { return s.autocast && s.weights == WeightFormat::Fp32; }

// Bytes of the tensors the linear layers and attention save: 16-bit under autocast.
double activationElementBytes(const Scenario& s) { return autocastTraining(s) ? kAutocastElementBytes : elementBytes(s); }

// Megatron-Core builds its layers from Transformer Engine modules and fused
// activations; other runtimes run the unfused Hugging Face modules.
bool teLayers(const Scenario& s) { return runtimeOf(s.engine) == Engine::Megatron; }

bool fp8Linears(const Scenario& s) {
    return teLayers(s) && (s.weights == WeightFormat::Fp8 || s.weights == WeightFormat::Fp8Block) && s.gpu.supportsFp8;
}

// Saved bytes per s b h (attention, norms, linear inputs) and per s b f (MLP).
struct LayerCoeffs {
    double hidden = 0, kv = kKvCoeff, mlp = 0;
};

LayerCoeffs layerCoeffs(const Scenario& s, bool gated) {
    LayerCoeffs c;
    c.hidden = kAttentionCoeff;
    c.mlp = gated ? (teLayers(s) ? kGatedMlpCoeffFused : kGatedMlpCoeff) : kPlainMlpCoeff;
    if (fp8Linears(s)) {
        c.hidden -= kFp8LinearInputSavingCoeff;
        c.mlp -= kFp8MlpInputSavingCoeff;
    }
    return c;
}


// Average MLP inner width a token's activations cover per layer.
double mlpWidth(const ModelShape& sh, const ModelSpec& m) {
    if (sh.experts <= 0) return sh.ffn;
    const int moe = std::max(0, (m.layers - std::max(0, m.moe.denseLayers)) / std::max(1, m.moe.layerInterval));
    const double dense = sh.layers - moe;
    const double routed = double(sh.topK + sh.sharedExperts) * sh.expertFfn + sh.sharedExperts * (sh.sharedExpertFfn - sh.expertFfn);
    return (dense * sh.ffn + moe * routed) / sh.layers;
}

// Routed-expert MLP width per layer, averaged over the stack (moe_act).
double routedWidth(const ModelShape& sh, const ModelSpec& m) {
    if (sh.experts <= 0) return 0;
    const int moe = std::max(0, (m.layers - std::max(0, m.moe.denseLayers)) / std::max(1, m.moe.layerInterval));
    return double(moe) * sh.topK * sh.expertFfn / sh.layers;
}

// Saved 16-bit bytes per token of one layer that recompute_modules frees.
double discardedBytesPerToken(const Scenario& s, const ModelShape& sh) {
    const double linearInputBytes = fp8Linears(s) ? 1 : 2;
    double bytes = 0;
    if (s.recomputeLayernorm) bytes += kNormsPerLayer * linearInputBytes * sh.hidden;
    if (s.recomputeMoeAct) bytes += linearInputBytes * routedWidth(sh, s.model);
    return bytes;
}

// Unsloth's fast_rms_layernorm (unsloth/kernels/rms_layernorm.py) saves its
// 16-bit input and one fp32 r per row; Megatron's Transformer Engine norms are
// fused into the following linear layer.
bool eagerRmsNorm(const Scenario& s) {
    return s.model.norm == NormKind::RmsNorm && !teLayers(s) && s.engine != Engine::Unsloth;
}

// Bytes per token of one layer that the eager RMSNorm adds to the base count
// (see kNormNormalizedCopyElements).
double eagerNormBytesPerToken(const Inputs& in) {
    const Scenario& s = *in.scenario;
    if (!eagerRmsNorm(s)) return 0;
    const ModelShape& sh = in.shape();
    const double eb = activationElementBytes(s);
    const double upcast = kFp32Bytes - eb;  // fp32 copy in place of the 16-bit input (none in fp32 training)
    // The normalized tensor is in the input's dtype: fp32 under autocast.
    // Adapter v2 trains the norms' weights (lora.output_scale).
    const double normalized = in.lora && !s.lora.outputScale ? 0 : kNormNormalizedCopyElements * elementBytes(s);
    double bytes = std::max(1, s.model.normsPerLayer) * sh.hidden * (upcast + normalized);
    if (s.model.qkNorm) bytes += (sh.qDim + sh.kvDim) * (kFp32Bytes + normalized);
    return bytes;
}

// Bytes per token of one layer that autocast's per-call input casts add
// (see kAutocastAttentionCopies).
double autocastCopyBytesPerToken(const Inputs& in) {
    if (!autocastTraining(*in.scenario)) return 0;
    const ModelShape& sh = in.shape();
    return kAutocastElementBytes * sh.hidden * (kAutocastAttentionCopies + (sh.gated ? kAutocastGatedMlpCopies : 0));
}

// 16-bit weight casts one layer's linears save under autocast, bytes per GPU.
double autocastLayerCastBytes(const Inputs& in, const Layout& layout) {
    if (!autocastTraining(*in.scenario)) return 0;
    return kAutocastWeightCastBytes * in.shape().layerParams / layout.tp;
}

// lm_head's 16-bit weight cast under autocast, saved until its backward.
double autocastHeadCastBytes(const Inputs& in, const Layout& layout, const Stage& stage) {
    if (!autocastTraining(*in.scenario) || !stage.last) return 0;
    return kAutocastWeightCastBytes * in.shape().vocab * in.shape().hidden / layout.tp;
}

// bitsandbytes' 4-bit matmul before 0.43.2 (bitsandbytes/autograd/
// _functions.py, MatMul4Bit.forward: `if any(ctx.needs_input_grad[:2]):
// ctx.tensors = (A, B)`) keeps its input whenever that input needs a
// gradient, although the frozen 4-bit weight needs none: a QLoRA base keeps
// every linear layer's input, adapted or not (lora.kept_4bit_inputs, implied
// by lora.previous_step_inputs). From 0.43.2 on (PR #1270) it keeps
// `ctx.tensors = (None, B)`: only the adapters' own saves remain. The LLM.int8 matmul does the same in every
// release (MatMul8bitLt.forward: `if any(ctx.needs_input_grad[:2]):
// ctx.tensors = (CAt, subA, A)`; 0.42.0 to today), so a load_in_8bit base
// keeps its frozen layers' 16-bit inputs too. (Through 0.44.1 it also keeps
// CAt, an int8 transposed copy of the input, from F.double_quant, which 0.45.0
// computes only when the weight needs a gradient: not counted.)
bool frozenLinearsKeepInputs(const Scenario& s) {
    if (s.weights == WeightFormat::Int8) return true;
    return (s.weights == WeightFormat::Nf4 || s.weights == WeightFormat::Nf4Dq) &&
           (s.lora.kept4bitInputs || s.lora.previousStepInputs);
}

// bitsandbytes before 0.43.2 keeps MatMul4Bit's input as an attribute of its
// autograd context (autograd/_functions.py: `ctx.tensors = (A, B)`; removed by
// PR #1270, "fix QLoRA mem bug: delete useless buffered activation", in
// 0.43.2), not through save_for_backward, so backward does not free it:
// autograd releases only saved variables, and the input lives as long as the
// graph's nodes do. LitGPT's fit loop (litgpt/finetune/lora.py at the config
// hub table's commit 00af8b0d, bitsandbytes==0.42.0 pinned in pyproject.toml)
// keeps the last step's `loss` bound until `loss = chunked_cross_entropy(...)`
// of the next step replaces it, after that step's forward, so every 4-bit
// linear layer's input of the previous step stays allocated beside the new
// step's activations (lora.previous_step_inputs). Per token and layer: the
// normed input of q, k and v (h), the attention output read by the
// projection (q width), the MLP's normed input (h; the same tensor where one
// norm feeds attention and MLP in parallel), the down projection's input (f),
// once per expert pass; lm_head's chunks keep the final normed input (h).
// With (reentrant) checkpointing the forward runs without a graph, and the
// recomputed layer's graph ends with its backward: nothing is kept.
double previousStepInputBytes(const Inputs& in, const Layout& layout, const Stage& stage) {
    const Scenario& s = *in.scenario;
    if (!in.lora || !s.lora.previousStepInputs || !frozenLinearsKeepInputs(s) || s.gradientCheckpointing) return 0;
    const ModelShape& sh = in.shape();
    const double passes = sh.experts > 0 ? std::max(1.0, double(sh.topK + sh.sharedExperts)) : 1.0;
    const double mlpInput = s.model.normsPerLayer >= 2 ? sh.hidden : 0.0;
    const double perTokenLayer = sh.hidden + sh.qDim + passes * (mlpInput + mlpWidth(sh, s.model));
    const double tokens = double(s.seqLen) * double(s.batch) / layout.tp / layout.cp;
    const double head = stage.last ? sh.hidden : 0.0;
    return activationElementBytes(s) * tokens * (stage.layers * perTokenLayer + head);
}

// Bytes per token of one layer that LoRA changes in the base count (see
// kAdapterCopyBytes and kDropoutMaskBytes): each adapted module's lora_A
// input (its fp32 cast, or its dropout output and mask), less the inputs
// that only a frozen layer's weight gradient would have needed.
double adapterCopyBytesPerToken(const Inputs& in) {
    if (!in.lora) return 0;
    const Scenario& s = *in.scenario;
    const ModelShape& sh = in.shape();
    const double h = sh.hidden;
    const bool dropout = s.lora.dropout > 0;
    // Without a cast or dropout, lora_A saves x itself, which the base count holds.
    const bool copies = fp32Adapters(s) || dropout;
    const double inputBytes = activationElementBytes(s);
    const double copyBytes = (fp32Adapters(s) ? kAdapterCopyBytes : inputBytes) + (dropout ? kDropoutMaskBytes : 0);
    const bool frozenKeep = frozenLinearsKeepInputs(s);
    // One input tensor of the block, `width` elements per token, read by
    // `adapted` adapted modules; `keptAnyway` where another op saves it too.
    const auto group = [&](double width, double adapted, bool keptAnyway) {
        const bool kept = keptAnyway || frozenKeep || (adapted > 0 && !copies);
        return (copies ? adapted * copyBytes * width : 0) - (kept ? 0 : inputBytes * width);
    };
    // Adapter v2 (lora.output_scale) has no branch reading a layer's input.
    const double branch = s.lora.outputScale ? 0 : 1;
    const bool allLinear = s.lora.allLinear();
    const bool queryValue = s.lora.targets == LoraTargets::QueryValue;
    // q, k, v (q and v only) read the layer's normed input, one module if fused.
    const double qkvModules = s.lora.fusedQkv ? 1 : queryValue ? 2 : 3;
    double bytes = group(h, branch * qkvModules, false);
    // o reads the attention output, which FlashAttention saves for its own backward.
    bytes += group(sh.qDim, queryValue ? 0 : branch, s.flashAttention);
    // Each expert a token visits casts its own gate/up input and down input.
    const double passes = sh.experts > 0 ? std::max(1.0, double(sh.topK + sh.sharedExperts)) : 1.0;
    const double moeShare = double(sh.moeLayers) / std::max(1, sh.layers);
    // The shared expert's scalar gate (Qwen2-MoE), a linear layer on the normed input.
    const double gateModules = s.model.moe.sharedExpertGate && sh.sharedExperts > 0 ? 1 : 0;
    const ExpertAdapters experts = expertAdaptersOf(s);
    if (experts == ExpertAdapters::Fused) {
        // Routed experts adapted through their merged weight (kMergedExpertCopies):
        // each routed pass keeps its gathered 16-bit input, the down projection's
        // input stays as the base count has it. PEFT's conversion leaves the
        // dense and shared MLPs without adapters (allLinearLoraDims in
        // layout.cpp), so their down inputs go; the shared expert's gate keeps
        // its branch. The router's merged weight keeps the normed input.
        const double routedPasses = double(sh.topK) * moeShare;
        bytes += (copies ? branch * moeShare * gateModules * copyBytes * h : 0) + routedPasses * inputBytes * h;
        bytes += group(mlpWidth(sh, s.model) - routedWidth(sh, s.model), 0, false);
        return bytes;
    }
    if (experts == ExpertAdapters::Frozen) {
        // Only nn.Linear modules adapted: the dense MLPs, the shared expert (one
        // module per matrix, as wide as all shared experts) and its gate read
        // the normed input; the routed experts' frozen 3D weights and the
        // frozen router keep no input for a weight gradient, nor do the
        // routed down projections.
        const double mlpModules = sh.gated ? 2 : 1;
        const double sharedModules = sh.sharedExperts > 0 ? mlpModules + gateModules : 0;
        bytes += group(h, branch * ((1 - moeShare) * mlpModules + moeShare * sharedModules), false);
        bytes += group(mlpWidth(sh, s.model) - routedWidth(sh, s.model), branch, false);
        bytes += group(routedWidth(sh, s.model), 0, false);
        return bytes;
    }
    bytes += group(h, allLinear ? branch * passes * (sh.gated ? 2 : 1) : 0, false);
    bytes += group(mlpWidth(sh, s.model), allLinear ? branch : 0, false);
    return bytes;
}

// LitGPT's adapter v2 (lora.output_scale; litgpt/adapter_v2.py, lit_gpt/
// adapter_v2.py at commit 8641822): AdapterV2Linear.forward returns
// `self.adapter_scale * (self.linear(x) + self.adapter_bias)`; adapter_scale
// requires grad, so the multiply saves its other operand, the linear's
// output plus bias, a fresh 16-bit tensor of out_features per token (the add
// saves nothing, the frozen linear no input). Every linear of the block is
// one: the fused qkv (q + k + v widths, LitGPT's n_head + 2 n_query_groups
// heads), the attention projection, fc_1 and fc_2 (gated) or fc, and the MLP
// projection. The adapter prefix of adapter.py (layers from
// adapter_start_layer = 2 on) returns `y + self.gating_factor * ay`, which
// saves ay, one attention output (q width), counted on every layer.
double outputScaleBytesPerToken(const Inputs& in) {
    const Scenario& s = *in.scenario;
    if (!in.lora || !s.lora.outputScale) return 0;
    const ModelShape& sh = in.shape();
    const double outputs = (sh.qDim + 2 * sh.kvDim) + sh.hidden + mlpWidth(sh, s.model) * (sh.gated ? 2 : 1) + sh.hidden;
    const double prefix = sh.qDim;
    return activationElementBytes(s) * (outputs + prefix);
}

// LitGPT's attention (kv_heads_repeated; lit_gpt/model.py
// CausalSelfAttention at commit 8641822, litgpt/model.py today) takes q, k
// and v as views of one qkv output. With as many kv heads as query heads
// nothing repeats k and v, so the v that scaled_dot_product_attention saves
// for its backward is still a view and keeps the whole q|k|v output alive:
// its q and k parts stay saved beside the copies rope makes of them (16-bit
// elements). With GQA the repeat copies v (repeat_interleave today, expand
// and reshape at 8641822), which the count already has at every head.
// A fused LoRA qkv layer (lora.fused_qkv) on some of q, k and v only (LitGPT's
// q/v default) pads the adapters' output into the fused width with
// index_copy (LoRAQKVLinear.zero_pad), and
// PyTorch's derivative of index_copy for `source` (tools/autograd/
// derivatives.yaml: grad.index_select(dim, index).expand_as(source)) saves
// it: the adapted widths per token, in the adapters' dtype. A replay of one
// LitGPT 8641822 block under autograd's saved-tensor hooks shows both (Llama
// 2 7B, LoRA on q and v: a 6h-byte qkv storage behind the saved v, and a
// 4h-byte index_copy source).
double fusedQkvBytesPerToken(const Inputs& in) {
    const Scenario& s = *in.scenario;
    const ModelShape& sh = in.shape();
    if (s.model.attention == AttentionKind::Mla) return 0;
    double bytes = 0;
    if (s.kvHeadsRepeated && sh.kvHeads == sh.heads) bytes += activationElementBytes(s) * (sh.qDim + sh.kvDim);
    if (in.lora && s.lora.fusedQkv && s.lora.targets == LoraTargets::QueryValue) {
        bytes += (fp32Adapters(s) ? kAdapterCopyBytes : activationElementBytes(s)) * (sh.qDim + sh.kvDim);
    }
    return bytes;
}

// Routed experts of this GPU: split over expert-parallel ranks, else over
// tensor parallelism (as training.cpp splits them).
double localExperts(const Layout& layout, double params) { return params / (layout.ep > 1 ? layout.ep : layout.tp); }

// The merged 16-bit expert weights one layer keeps (kMergedExpertCopies),
// averaged over the stack as the other per-layer terms are.
double mergedExpertLayerBytes(const Inputs& in, const Layout& layout) {
    if (!in.lora || !fusedExpertAdapters(*in.scenario)) return 0;
    return kMergedExpertCopies * elementBytes(*in.scenario) * localExperts(layout, in.shape().groups.expert) /
           std::max(1, in.shape().stackLayers);
}

// Backward's working set of the largest merged expert tensor (kMergedExpertGradBytes).
double mergedExpertGradBytes(const Inputs& in, const Layout& layout) {
    if (!in.lora || !fusedExpertAdapters(*in.scenario)) return 0;
    const ModelShape& sh = in.shape();
    const double largest = double(sh.experts) * sh.expertFfn * sh.hidden * (sh.gated ? 2 : 1);
    return kMergedExpertGradBytes * localExperts(layout, largest);
}

struct PerLayer {
    double full = 0;    // every saved activation of one layer
    double stored = 0;  // what stays saved per layer (the checkpoint with recomputation)
};

PerLayer perLayerBytes(const Inputs& in, const Layout& layout) {
    const Scenario& s = *in.scenario;
    const ModelShape& sh = in.shape();
    const double sb = double(s.seqLen) * double(s.batch);
    const double g = s.model.attention == AttentionKind::Mla || s.kvHeadsRepeated ? 1.0 : double(sh.kvHeads) / sh.heads;
    // Sequence parallelism shards all of it over tp; context parallelism
    // gives each GPU 1/cp of every sequence (Megatron-Core context_parallel).
    const double scale = activationElementBytes(s) / 2 / layout.tp / layout.cp;
    const LayerCoeffs c = layerCoeffs(s, sh.gated);
    double full = sb * sh.hidden * (c.hidden + c.kv * g);
    full += sb * mlpWidth(sh, s.model) * c.mlp;
    // Selective recomputation (Korthikanti et al. §4.2, Megatron's core_attn
    // module) recomputes the attention core in backward: its scores are not kept.
    if (!s.flashAttention && !s.selectiveRecompute) full += kEagerScoreCoeff * sh.heads * double(s.seqLen) * sb;
    full -= sb * discardedBytesPerToken(s, sh);
    PerLayer p;
    // The fp32 adapter copies and the eager norms' copies are bytes already, not 16-bit elements.
    p.full = full * scale +
             sb * in.layerCopyBytesPerToken / layout.tp / layout.cp +
             autocastLayerCastBytes(in, layout) + mergedExpertLayerBytes(in, layout);
    // The checkpoint is the layer's input, in the residual stream's dtype
    // (fp32 under autocast).
    p.stored = s.gradientCheckpointing ? kCheckpointCoeff * sb * sh.hidden * elementBytes(s) / 2 / layout.tp / layout.cp
                                       : p.full;
    // FlashAttention's eager fallback keeps a / tp heads' scores of s/cp queries over s keys.
    return p;
}

// Tied input and output embeddings (one leaf weight): autograd holds lm_head's
// gradient in the weight's input buffer until the embedding's arrives at the
// end of backward, then adds the two out of place (torch/csrc/autograd/
// input_buffer.cpp InputBuffer::add: `buffer[pos] = old_var + var` for dense
// gradients): two vocabulary x hidden gradients beyond the one the gradients
// count. Caliper's H100 runs of tied models at micro-batch 1 x 512 (Llama 3.2
// 1B/3B, Qwen2.5 1.5B, Qwen3 4B; full bf16) peak 0.9-1.7 GiB above their
// gradients, two such tensors (4.2-4.7 bytes per vocabulary x hidden
// element); the untied 7-8B models do not. Under autocast lm_head's gradient
// reaches the fp32 weight through the cast's backward, a fresh fp32 tensor
// that the embedding's gradient is added to in place (InputBuffer's in-place
// path for a buffer nothing else holds): one more fp32 tensor, which the
// same runs in mixed precision show (4.2-4.4 bytes per element at 1B-3B).
double tiedEmbeddingSumBytes(const Inputs& in, const Layout& layout) {
    if (in.lora || !headSharesTable(*in.scenario)) return 0;
    const double copies = autocastTraining(*in.scenario) ? 1 : 2;
    return copies * in.shape().vocab * in.shape().hidden * weightBytesPerParam(*in.scenario) / layout.tp;
}

}  // namespace

// Liger Kernel's fused linear cross entropy (src/liger_kernel/ops/
// fused_linear_cross_entropy.py, fused_linear_cross_entropy_forward): the
// head's matmul runs over chunks of C tokens, C = next_power_of_2(ceil(BT /
// ceil(V / H))) (at most BT), so one chunk's logits (C x V, the input's
// dtype) stay near BT x H elements whatever the vocabulary; the loss kernel
// writes each chunk's gradient over its logits in place and the input's
// gradient (BT x H, the input's dtype, grad_input) is made in forward and
// kept for backward, beside an fp32 loss per token. With LoRA the head is
// frozen (no grad_weight); a trained head's gradient is made in forward too
// and is the one the gradients already count.
std::int64_t fusedLinearChunkTokens(std::int64_t tokens, double vocab, double hidden) {
    if (tokens <= 0 || vocab <= 0 || hidden <= 0) return 0;
    const std::int64_t inc = static_cast<std::int64_t>(std::ceil(vocab / hidden));
    const std::int64_t perChunk = (tokens + inc - 1) / inc;
    std::int64_t chunk = 1;
    while (chunk < perChunk) chunk *= 2;
    return std::min(chunk, tokens);
}

namespace {

constexpr double kFusedLinearLossBytesPerToken = 4;  // loss_1d, fp32

double fusedLinearLossBytes(const Inputs& in, const Layout& layout) {
    const Scenario& s = *in.scenario;
    const std::int64_t tokens = std::max<std::int64_t>(1, s.seqLen * s.batch / std::max(1, layout.cp));
    const double chunk = double(fusedLinearChunkTokens(tokens, in.shape().vocab, in.shape().hidden));
    return elementBytes(s) * (double(tokens) * in.shape().hidden + chunk * in.shape().vocab) +
           kFusedLinearLossBytesPerToken * double(tokens);
}

// TRL SFTTrainer's loss_type="chunked_nll" (trl/trainer/sft_trainer.py,
// _chunked_cross_entropy_loss and _chunk; PR #5575, with PEFT since #5676):
// the decoder's last hidden states are packed (`hidden[order]`, a 16-bit
// copy of s*b*h kept as the chunks' checkpoint inputs, whose gradient of
// the same size is built in backward) and the head's matmul and the loss run
// over chunks of _CHUNKED_LM_HEAD_CHUNK_SIZE = 256 tokens, each under
// torch.utils.checkpoint, so only one chunk's logits live at a time. Inside a
// chunk `h.float() @ w.float().t()` makes an fp32 copy of lm_head's weight
// (4 V h bytes; under ZeRO-3 or FSDP2 the weight is gathered first,
// maybe_gather_lm_head_ctx / full_tensor(), which the gathered largest module
// counts already), and the recomputed chunk's backward adds that copy's fp32
// gradient (4 V h) beside the chunk's fp32 logits, log-softmax and their
// gradient (3 x 4 bytes per logit).
constexpr std::int64_t kChunkedNllChunkTokens = 256;
constexpr double kChunkedNllWeightCopies = 2;      // w.float() and its fp32 gradient
constexpr double kChunkedNllBytesPerLogit = 12;    // fp32 logits, log_softmax, gradient
constexpr double kChunkedNllHiddenCopies = 2;      // packed hidden copy and its gradient

double chunkedNllBytes(const Scenario& s, const ModelShape& shape, std::int64_t tokens) {
    const double chunk = double(std::min(tokens, kChunkedNllChunkTokens));
    return kChunkedNllHiddenCopies * elementBytes(s) * double(tokens) * shape.hidden +
           kChunkedNllWeightCopies * kFp32Bytes * shape.vocab * shape.hidden + kChunkedNllBytesPerLogit * chunk * shape.vocab;
}

double chunkedNllLossBytes(const Inputs& in, const Layout& layout) {
    const Scenario& s = *in.scenario;
    const std::int64_t tokens = std::max<std::int64_t>(1, s.seqLen * s.batch / std::max(1, layout.cp));
    return chunkedNllBytes(s, in.shape(), tokens);
}

}  // namespace

double layerCopyBytesPerToken(const Inputs& in) {
    return adapterCopyBytesPerToken(in) + eagerNormBytesPerToken(in) + autocastCopyBytesPerToken(in) +
           fusedQkvBytesPerToken(in) + outputScaleBytesPerToken(in);
}

namespace {

double lossKernelBytesPerLogit(const Scenario& s) {
    if (activationElementBytes(s) == 4) return kLogitsCoeff32;
    switch (lossKernelOf(s)) {
        case LossKernel::VocabParallel: return kLogitsCoeffVocabParallel;
        case LossKernel::Fused: return s.engine == Engine::Unsloth ? kLogitsCoeffUnslothFused : kLogitsCoeffFused;
        case LossKernel::Chunked: return s.engine == Engine::Torchtune ? kLogitsCoeffTorchtuneChunked : kLogitsCoeffChunked;
        case LossKernel::EagerShifted: return kLogitsCoeffShifted16;
        default: return kLogitsCoeff16;
    }
}

}  // namespace

double lossBytesPerLogit(const Scenario& s) {
    // No logits kept (fusedLinearLossBytes, chunkedNllLossBytes).
    if (lossKernelOf(s) == LossKernel::FusedLinear || lossKernelOf(s) == LossKernel::ChunkedNll) return 0;
    // Adapter v2's lm_head is an AdapterV2Linear too: its multiply saves the
    // head's output plus bias beside the logits it returns (see
    // outputScaleBytesPerToken).
    const bool scaledHead = s.lora.outputScale && s.task == Task::Finetune &&
                            (s.method == Method::Lora || s.method == Method::Qlora);
    return lossKernelBytesPerLogit(s) + (scaledHead ? activationElementBytes(s) : 0);
}

bool chunkedNllNoLighter(const Scenario& s, const ModelShape& shape) {
    if (s.parallel.tp > 1 || s.parallel.cp > 1) return false;
    const std::int64_t tokens = std::max<std::int64_t>(1, s.seqLen * (s.batchAuto ? 1 : std::max<std::int64_t>(1, s.batch)));
    return chunkedNllBytes(s, shape, tokens) >= lossBytesPerLogit(s) * double(tokens) * shape.vocab;
}

double lossLengthBlocksBytes(const Inputs& in, const Layout& layout) {
    const Scenario& s = *in.scenario;
    if (lossKernelOf(s) != LossKernel::ChunkedNll) return lossWorkingSetBytes(in, layout);
    const std::int64_t tokens = std::max<std::int64_t>(1, s.seqLen * s.batch / std::max(1, layout.cp));
    return kChunkedNllHiddenCopies * elementBytes(s) * double(tokens) * in.shape().hidden;
}

double lossWorkingSetBytes(const Inputs& in, const Layout& layout) {
    const Scenario& s = *in.scenario;
    if (lossKernelOf(s) == LossKernel::FusedLinear) return fusedLinearLossBytes(in, layout);
    if (lossKernelOf(s) == LossKernel::ChunkedNll) return chunkedNllLossBytes(in, layout);
    return lossBytesPerLogit(s) * double(s.seqLen) * double(s.batch) * in.shape().vocab / layout.tp / layout.cp;
}

double offloadedCheckpointBytes(const Inputs& in, const Layout& layout, const Stage& stage) {
    const Scenario& s = *in.scenario;
    if (!s.gradientCheckpointing || !s.checkpointOffload) return 0;
    return stage.layers * stage.inFlight * perLayerBytes(in, layout).stored;
}

// The gradients of a Hugging Face training step (Trainer, or a loop of
// loss.backward(); optimizer.step(); optimizer.zero_grad()) are allocated by
// autograd as backward reaches each parameter and freed by zero_grad
// (set_to_none=True, torch.optim.Optimizer.zero_grad's default since PyTorch
// 2.0). Backward frees each layer's saved tensors as it writes that layer's
// gradients, so the step peaks either when the loss starts backward (every
// saved activation, no gradient yet) or at the first layer's backward (all
// gradients and that layer's activations). Caliper's H100 runs
// (validation/measured-h100.jsonl, full fine-tuning in bf16 without
// checkpointing) peak at weights + optimizer + the larger of the two, within
// 1%. Megatron's main-grad buffers, DeepSpeed's gradient partitions and
// accumulation over micro-batches keep the gradients alive through the next
// forward.
bool gradientsFreedEachStep(const Inputs& in, const Layout& layout) {
    const Scenario& s = *in.scenario;
    if (!in.training || runtimeOf(s.engine) != Engine::Transformers) return false;
    if (layout.strategy != Strategy::Single && layout.strategy != Strategy::Ddp) return false;
    if (s.parallel.offload != Offload::None) return false;
    return s.globalBatch <= 0 || s.globalBatch <= s.batch * layout.dp;
}

double trainingActivationBytes(const Inputs& in, const Layout& layout, const Stage& stage, const Explain& ex,
                               double freedGradientBytes) {
    const Scenario& s = *in.scenario;
    const PerLayer layer = perLayerBytes(in, layout);
    // Offloaded checkpoints (Unsloth_Offloaded_Gradient_Checkpointer:
    // hidden_states.to("cpu", non_blocking=True) in forward, back to the GPU
    // in backward) leave one layer's input on the GPU at a time.
    const bool offloaded = s.gradientCheckpointing && s.checkpointOffload;
    const double held = offloaded ? layer.stored : stage.layers * stage.inFlight * layer.stored;
    const double recompute = s.gradientCheckpointing ? layer.full : 0;
    const double logitsCoeff = lossBytesPerLogit(s);
    const double logits = stage.last ? lossWorkingSetBytes(in, layout) : 0;
    const bool dequant = in.lora && s.weights != WeightFormat::Bf16 && s.weights != WeightFormat::Fp16 &&
                         s.weights != WeightFormat::Fp32;
    // A quantized lm_head (lora.quantized_head) is dequantized whole for each
    // chunk's matmul and its backward (bitsandbytes MatMul4Bit:
    // F.dequantize_4bit(B, quant_state).to(A.dtype)): vocabulary x hidden.
    const double largestQuantized =
        std::max(in.shape().largestLinear, quantizedHead(s) && stage.last ? in.shape().vocab * in.shape().hidden / layout.tp : 0.0);
    const double workspace = dequant ? largestQuantized * kDequantBytes : 0;
    // The loss's working set is freed before backward reaches the last layer,
    // whose recomputation (with checkpointing) comes after it: the two never
    // peak together. Caliper's H100 LoRA runs with checkpointing peak at
    // checkpoints + the larger of the two (Mistral-7B at 32k tokens: 8 GiB of
    // checkpoints + 12 GiB of logits, a 9 GiB layer, 20.6 GiB measured).
    // Under autocast lm_head's weight cast stays saved through the loss; with
    // checkpointing the autocast cache also holds every layer's casts until
    // the forward (loss included) ends.
    const double headCast = autocastHeadCastBytes(in, layout, stage);
    const double cachedCasts = s.gradientCheckpointing
                                   ? stage.layers * autocastLayerCastBytes(in, layout) + headCast +
                                         (lossKernelOf(s) == LossKernel::Eager ? kLogitsForwardShare : 1.0) * logits
                                   : 0;
    // The previous step's kept 4-bit inputs last until the new loss is bound,
    // after the forward and the loss's forward.
    const double previousStep = previousStepInputBytes(in, layout, stage);
    // A merged expert tensor's gradient (lora.experts "fused") comes with its
    // layer's backward, after the loss's working set is freed.
    const double mergedGrad = mergedExpertGradBytes(in, layout);
    const double forwardPeak = held + previousStep + std::max({logits + headCast, recompute + mergedGrad, cachedCasts});
    // With gradients freed each step: the larger of the loss-time peak and the
    // end of backward (all gradients + the first layer, or the tied embedding's
    // sum), less the gradients.
    const double backwardEnd = std::max(layer.full + mergedGrad, tiedEmbeddingSumBytes(in, layout));
    const double beyondGradients =
        freedGradientBytes > 0 ? std::max(forwardPeak - freedGradientBytes, backwardEnd) : forwardPeak;
    const double bytes = beyondGradients + workspace;
    if (ex.on()) {
        const double g =
            s.model.attention == AttentionKind::Mla || s.kvHeadsRepeated ? 1.0 : double(in.shape().kvHeads) / in.shape().heads;
        const LayerCoeffs c = layerCoeffs(s, in.shape().gated);
        ex.add("activations_gib",
               [&] {
                   const double adapterBytes = adapterCopyBytesPerToken(in);
                   return fmt("per layer s*b*h*(%.0f + %.0f*%.3g) + %.0f*s*b*f%s%s%s with s=%lld, b=%lld, h=%.0f, f=%.0f%s = %.3f GiB; "
                   "%s x %.1f layers x %.2g micro-batch(es) in flight = %.3f GiB%s + %s %.3f GiB%s",
                   c.hidden, c.kv, g, c.mlp,
                   fp8Linears(s) ? " (Transformer Engine: linear inputs saved in FP8)" : "",
                   s.flashAttention ? " (FlashAttention)"
                   : s.selectiveRecompute ? " (eager attention, scores recomputed: selective recomputation)"
                                          : " + 5*a*s^2*b (eager attention)",
                   (adapterBytes == 0 ? std::string()
                    : fmt(" %+.0f bytes per token of LoRA (%s, less the inputs only frozen layers' weight gradients "
                          "needed)", adapterBytes,
                          in.scenario->lora.dropout > 0 ? "adapter input copies and dropout masks"
                          : fp32Adapters(s)               ? "fp32 adapter inputs"
                                                          : "adapters read the base's inputs"))
                       .append(eagerNormBytesPerToken(in) > 0
                                   ? fmt(" + eager RMSNorm copies %.0f bytes per token", eagerNormBytesPerToken(in))
                                   : std::string())
                       .append(fusedQkvBytesPerToken(in) > 0
                                   ? fmt(" + fused qkv kept by its saved views and LoRA's padding %.0f bytes per token",
                                         fusedQkvBytesPerToken(in))
                                   : std::string())
                       .append(autocastTraining(s)
                                   ? fmt(" (autocast: 16-bit activations, + input casts %.0f bytes per token, + 16-bit "
                                         "weight casts %.3f GiB per layer)",
                                         autocastCopyBytesPerToken(in), bytesToGiB(autocastLayerCastBytes(in, layout)))
                                   : std::string())
                       .append(mergedExpertLayerBytes(in, layout) > 0
                                   ? fmt(" + merged 16-bit expert weights W + B.A %.3f GiB per layer (PEFT ParamWrapper "
                                         "on fused experts; %.3f GiB for the largest one's gradient in backward)",
                                         bytesToGiB(mergedExpertLayerBytes(in, layout)), bytesToGiB(mergedGrad))
                                   : std::string())
                       .append(discardedBytesPerToken(s, in.shape()) > 0
                                   ? fmt(" - %.0f bytes per token recomputed (recompute_modules%s%s)",
                                         discardedBytesPerToken(s, in.shape()), s.recomputeLayernorm ? " layernorm" : "",
                                         s.recomputeMoeAct ? " moe_act" : "")
                                   : std::string())
                       .c_str(),
                   static_cast<long long>(s.seqLen), static_cast<long long>(s.batch), in.shape().hidden,
                   mlpWidth(in.shape(), s.model),
                   (layout.tp > 1 ? fmt(", / tensor parallel %d", layout.tp) : std::string()).append(
                       layout.cp > 1 ? fmt(", / context parallel %d", layout.cp) : std::string()).c_str(),
                   bytesToGiB(layer.full),
                   offloaded ? "checkpointed layer inputs 2*s*b*h in host RAM, one on the GPU at a time; of"
                   : s.gradientCheckpointing ? "checkpointed layer inputs 2*s*b*h" : "all layers stored",
                   stage.layers, stage.inFlight, bytesToGiB(held),
                   s.gradientCheckpointing ? fmt(" + one layer recomputed %.3f GiB", bytesToGiB(recompute)).c_str() : "",
                   (lossKernelOf(s) == LossKernel::FusedLinear
                        ? fmt("fused linear cross entropy (Liger: input gradient s*b*h + one chunk of %lld tokens' "
                              "logits, V=%.0f, none kept whole)",
                              static_cast<long long>(fusedLinearChunkTokens(
                                  std::max<std::int64_t>(1, s.seqLen * s.batch / std::max(1, layout.cp)),
                                  in.shape().vocab, in.shape().hidden)),
                              in.shape().vocab)
                    : lossKernelOf(s) == LossKernel::ChunkedNll
                        ? fmt("chunked NLL (TRL chunked_nll: packed hidden states and their gradient 2 x s*b*h, "
                              "lm_head's fp32 copy and its gradient 2 x 4*V*h, one checkpointed chunk of %lld "
                              "tokens' fp32 logits, V=%.0f)",
                              static_cast<long long>(kChunkedNllChunkTokens), in.shape().vocab)
                        : fmt("logits %.0f*s*b*V (V=%.0f, %s loss)", logitsCoeff, in.shape().vocab,
                              toString(lossKernelOf(s))))
                       .c_str(),
                   bytesToGiB(logits),
                   (previousStep > 0 ? fmt(" + the previous step's bitsandbytes matmul inputs %.3f GiB (bitsandbytes' "
                                           "ctx.tensors, kept while the loop holds that step's loss)",
                                           bytesToGiB(previousStep))
                                     : std::string())
                       .append(workspace > 0 ? fmt(" + dequantization buffer %.3f GiB (largest matrix in bf16)",
                                                   bytesToGiB(workspace))
                                             : std::string())
                       .c_str())
                       .append(s.gradientCheckpointing ? "; the recomputed layer and the logits never coexist: the larger counts"
                                                       : "")
                       .append(freedGradientBytes > 0
                                   ? fmt("; backward frees activations as it writes the %.3f GiB of gradients (freed after "
                                         "each step): the step peaks at the larger of %.3f GiB of activations and the "
                                         "gradients + one layer, counted here beyond the gradients",
                                         bytesToGiB(freedGradientBytes), bytesToGiB(forwardPeak))
                                   : ""); },
               bytesToGiB(bytes));
    }
    return bytes;
}

}  // namespace caliper::sizing
