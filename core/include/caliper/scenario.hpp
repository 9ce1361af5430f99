#pragma once
// A typed scenario (docs/CONTRACT.md "Scenario"). The JSON reader fills every
// field, applying the defaults that depend on the task and engine.
#include <cstdint>
#include <optional>
#include <string>

#include "caliper/gpu.hpp"
#include "caliper/model.hpp"
#include "caliper/serving/serving.hpp"
#include "caliper/weight_format.hpp"

namespace caliper {

enum class Task { Inference, Finetune, Pretrain };
enum class Method { Full, Lora, Qlora };
// Unsloth and torchtune fine-tune; MLX (Apple) and Ollama serve. Their figures
// follow the runtime named by runtimeOf (below) plus their own mechanisms.
enum class Engine { Transformers, Vllm, Sglang, TensorrtLlm, LlamaCpp, Deepspeed, Fsdp, Megatron, Unsloth, Torchtune, Mlx, Ollama };
// AdamWBf16: pure bf16 training, moments in bf16 and no fp32 master copy
// (what torch.optim.AdamW does on a model loaded in bf16 without autocast).
enum class Optimizer { AdamW, AdamW8bit, PagedAdamW8bit, Sgd, Adafactor, AdamWBf16 };
enum class Strategy { Auto, Single, Ddp, Zero1, Zero2, Zero3, Fsdp, Tensor, Pipeline, LayerSplit };
// Optimizer / Parameters: ZeRO-Offload / ZeRO-Infinity (training). Layers /
// MoeExperts: llama.cpp keeps some layers (-ngl) or some layers' routed
// experts (--n-cpu-moe) in host RAM and runs them on the CPU.
enum class Offload { None, Optimizer, Parameters, Layers, MoeExperts };
// How the training loss over the vocabulary is computed, which sets the
// logits working set (memory/train_activations.cpp): Eager = Hugging Face
// heads (fp32 upcast; transformers >= 4.49), EagerShifted = the same heads
// before transformers 4.49, which also copied the shifted logits, VocabParallel = Megatron's vocab-parallel cross
// entropy (fp32 copy), Fused = a fused cross-entropy kernel on 16-bit logits
// (flash-attn's, as llm-foundry's MPT uses by default), Chunked = cross
// entropy in chunks on the 16-bit logits (LitGPT's fine-tuning scripts),
// FusedLinear = the head's matmul and the loss fused over chunks of tokens,
// the logits never whole (Liger Kernel's LigerFusedLinearCrossEntropy, Hugging
// Face Trainer / TRL `use_liger_kernel=True`), ChunkedNll = TRL SFTTrainer's
// `loss_type="chunked_nll"`: the head's matmul and the loss over
// checkpointed chunks of 256 tokens, lm_head gathered per chunk, so it runs
// under ZeRO-3 where Liger's kernel does not.
enum class LossKernel { Eager, VocabParallel, Fused, Chunked, EagerShifted, FusedLinear, ChunkedNll };
// The fabric between servers (CONTRACT `interconnect.inter_node`).
enum class InterNode { InfinibandXdr, InfinibandNdr, InfinibandHdr, Roce400g, Roce200g, Ethernet100g, Ethernet25g };

// How servers are built and joined: GPUs per node (0 = the GPU's own
// catalog figure) and the inter-node fabric (empty = the default for the GPU
// class, speed/comm.cpp).
struct InterconnectSpec {
    std::optional<InterNode> interNode;
    int gpusPerNode = 0;
};


// The dtype LoRA adapters train in beside a 16-bit base. PEFT (v0.12.0 on,
// get_peft_model(autocast_adapter_dtype=True)) keeps them in fp32 and casts
// each adapted layer's input to fp32 (lora/layer.py Linear.forward:
// `x = self._cast_input_dtype(x, lora_A.weight.dtype)`); Unsloth, torchtune,
// LitGPT and Megatron keep them in the model's dtype. Auto: fp32 for the
// PEFT-based engines (transformers, deepspeed, fsdp).
enum class AdapterDtype { Auto, Fp32, Model };

// How LoRA reaches a MoE model's routed experts (lora.experts).
// Modules: one nn.Linear per expert, each with its own LoRA branch run on the
// tokens routed to it (transformers v4's ModuleList experts under PEFT,
// torchtune, ms-swift of that era). Fused: the experts are 3D parameters
// (transformers v5's `@use_experts_implementation` Qwen3MoeExperts etc.:
// gate_up_proj [E, 2f, h], down_proj [E, h, f]) that PEFT adapts through
// `target_parameters` (lora.ParamWrapper), merging W + B.A into a new tensor of
// every expert at each forward (see train_activations.cpp). Auto: Fused for
// LoRA under transformers, deepspeed and fsdp (transformers v5 with PEFT from
// 0.19 on, whose MoE conversion turns "all-linear" into those parameters), else
// Modules; Frozen in place of Fused for a model whose type PEFT's conversion
// does not know (moe.peft_all_linear_experts "frozen"). Frozen: "all-linear"
// adapts nn.Linear modules only, and the 3D experts and the router are not
// nn.Linear, so they stay frozen (PEFT tuners_utils.py
// _maybe_include_all_linear_layers: `isinstance(module, (nn.Linear, Conv1D))`).
enum class ExpertAdapters { Auto, Modules, Fused, Frozen };

// The linear layers LoRA adapts in each block. QueryValue: q and v only
// (PEFT's default target_modules for Llama-family models, q_proj and v_proj;
// LitGPT's lora_query/lora_value defaults). The frozen layers keep no input
// for a weight gradient (see train_activations.cpp).
enum class LoraTargets { AllLinear, Attention, QueryValue };

struct LoraSpec {
    int rank = 16;
    LoraTargets targets = LoraTargets::AllLinear;
    bool allLinear() const { return targets == LoraTargets::AllLinear; }
    // q, k and v are one linear layer with one LoRA branch and one dropout on
    // its input (LitGPT's LoRAQKVLinear, lora.py: `F.linear(self.lora_dropout(x),
    // self.lora_A)` once for the fused qkv; PEFT on checkpoints whose attention
    // has one qkv matrix: Qwen-1 c_attn, Baichuan W_pack, Falcon and
    // GPT-NeoX query_key_value, Phi-3 qkv_proj).
    bool fusedQkv = false;
    AdapterDtype adapterDtype = AdapterDtype::Auto;
    // Dropout on each adapted layer's input (PEFT LoraConfig lora_dropout,
    // default 0.0; torchtune's and Unsloth's defaults are 0 too; LitGPT's
    // and ms-swift 1.x's 0.05). Above 0 every adapted module saves its own
    // dropped-out copy of its input and the dropout mask.
    double dropout = 0;
    // lm_head quantized with the 4-bit base (Lightning Fabric's
    // BitsandbytesPrecision converts every nn.Linear, lm_head included, in
    // LitGPT's QLoRA); transformers' bitsandbytes loading keeps it 16-bit
    // (get_keys_to_not_convert). Its dequantized 16-bit copy for the matmul
    // is then the largest buffer.
    bool quantizedHead = false;
    // The previous step's 4-bit matmul inputs stay allocated through the next
    // forward: bitsandbytes before 0.43.2 keeps MatMul4Bit's input as a ctx
    // attribute (`ctx.tensors = (A, B)`), which backward does not free, and a
    // loop that keeps the last step's loss bound until the next loss replaces
    // it (LitGPT's fit loop) keeps that graph alive. See train_activations.cpp.
    bool previousStepInputs = false;
    // bitsandbytes before 0.43.2 (June 2024): MatMul4Bit keeps its input for
    // backward (`ctx.tensors = (A, B)`) although the 4-bit weight is frozen;
    // PR #1270 ("fix QLoRA mem bug: delete useless buffered activation") made
    // it `(None, B)`. previous_step_inputs implies it.
    bool kept4bitInputs = false;
    // PEFT's prepare_model_for_kbit_training (peft/utils/other.py, every
    // release since v0.4.0) casts every 16-bit parameter the bitsandbytes
    // base left unquantized (embeddings, lm_head, norms, biases) to fp32:
    // "cast all non INT8 parameters to fp32". Called by PEFT's QLoRA guide,
    // the QLoRA reference script and TRL's SFTTrainer from v0.7 to December
    // 2025 (which from December 2023 under bf16=True casts the embeddings and
    // lm_head back: peft_module_casting_to_bf16); not by LitGPT, ms-swift
    // 1.x, LLaMA-Factory or Unsloth.
    bool upcastUnquantized = false;
    // LitGPT's adapter v2 (litgpt/adapter_v2.py): no LoRA branch; every
    // linear layer, lm_head included, is an AdapterV2Linear returning
    // `adapter_scale * (linear(x) + adapter_bias)` with both vectors trained,
    // and the norms train (mark_only_adapter_v2_as_trainable: norm_1, norm_2,
    // ln_f). The multiply saves each linear's output for adapter_scale's
    // gradient.
    bool outputScale = false;
    ExpertAdapters experts = ExpertAdapters::Auto;
};

struct ParallelSpec {
    Strategy strategy = Strategy::Auto;
    int tp = 0;  // 0 = chosen by the planner
    int pp = 0;
    int ep = 0;           // expert-parallel degree (0 = the engine's default: tp)
    int cp = 0;           // context-parallel degree (training: the sequence split over cp GPUs; 0 = Megatron's search, else 1)
    int vp = 0;           // virtual pipeline stages per GPU (Megatron interleaving; 0 = 1)
    int attentionDp = 0;  // attention data-parallel ranks (0 = 1)
    int dp = 0;           // replicas (0 = as many as the GPUs allow)
    // FSDP: free each unit's gathered parameters after its forward (PyTorch
    // FULL_SHARD, FSDP2 reshard_after_forward=True); false keeps them until
    // its backward (SHARD_GRAD_OP, reshard_after_forward=False).
    bool reshardAfterForward = true;
    Offload offload = Offload::None;
    bool offloadExplicit = false;  // the request set "offload" (Ollama otherwise splits layers as its scheduler does)
    int gpuLayers = -1;     // offload "layers": layers on the GPU(s); -1 = as many as fit
    int cpuMoeLayers = -1;  // offload "moe-experts": layers whose experts stay on the CPU; -1 = as few as fit
};

// The machine around the GPUs (CONTRACT v2 `host`): host RAM for offload,
// its bandwidth for CPU-resident weights, the PCIe link per GPU.
struct HostSpec {
    double ramGib = 0;
    double memoryBandwidthGBps = 0;  // GB/s, peak
    double pcieGBps = 0;             // GB/s per direction per GPU
    double cpuTflops = 0;            // peak FP32 vector FMA rate of the CPU(s) beside the GPUs; 0 = unknown
    bool ramExplicit = false;        // the request gave ram_gib: offload beyond it does not fit
    bool ramPerServer = false;       // the default RAM and bandwidth are a whole server's, shared by its GPUs (hostShare)
    bool ramBinding = false;         // the planner's own offload: bounded by the default RAM as by a stated one
    bool explicitAny = false;        // the request gave a host object (defaults do not follow the GPU)
    const char* basis = "";          // how the defaults were made (explain)
    const char* cpuBasis = "";       // where cpuTflops comes from (explain)
};

// Defaults by platform, stated in explain: Apple unified memory, desktop
// dual-channel DDR5, 8-channel DDR5 servers.
HostSpec hostDefaults(const GpuSpec& gpu);

// The host one node of a plan has: where the request states no RAM and the
// default is a server's (ramPerServer), a plan on k GPUs of a node rents k/8
// of the 8-GPU server, its RAM and its memory bandwidth alike
// (host_share.cpp); else the whole host, as stated or assumed.
struct HostShare {
    double ramGib = 0;
    double memoryBandwidthGBps = 0;
    int gpusOnNode = 1;     // the plan's GPUs on one node
    int gpusPerServer = 1;  // the default server's GPUs, of which the share is taken
    bool rented = false;    // a share of the default server, not its whole
};
struct Scenario;
HostShare hostShare(const Scenario& s, int gpuCount, int nodes);

struct Scenario {
    ModelSpec model;
    GpuSpec gpu;
    int gpuCount = 1;
    bool gpuCountAuto = false;
    int maxGpus = 1024;  // "max_gpus": the limit an "auto" count is chosen within (kMaxGpus)
    Task task = Task::Inference;
    Method method = Method::Full;  // meaningful for finetune
    Engine engine = Engine::Vllm;
    WeightFormat weights = WeightFormat::Bf16;
    KvFormat kvCache = KvFormat::Bf16;
    std::int64_t batch = 1;
    // Training "batch": "auto": the planner searches the micro-batch per GPU
    // (planner.cpp) at the fewest GPUs that fit it at 1; batch then holds the
    // chosen one.
    bool batchAuto = false;
    std::int64_t promptTokens = 2048;
    std::int64_t outputTokens = 512;
    std::int64_t seqLen = 2048;  // training sample length
    Optimizer optimizer = Optimizer::AdamW;
    bool gradientCheckpointing = false;
    // "auto" (the default for training): the planner turns checkpointing on
    // where it is needed to fit (planner.cpp); gradientCheckpointing then
    // holds the chosen value.
    bool gradientCheckpointingAuto = false;
    // gradient_checkpointing "offload": the checkpointed layer inputs live in
    // host RAM between forward and backward (Unsloth's "unsloth" checkpointing,
    // torchtune's enable_activation_offloading with checkpointing).
    bool checkpointOffload = false;
    // gradient_checkpointing "selective": Megatron-Core's selective
    // recomputation (recompute_granularity "selective", its default module
    // core_attn): the attention core is recomputed in backward, so its scores
    // are never kept; every other activation stays saved.
    bool selectiveRecompute = false;
    // recompute_modules "layernorm" / "moe_act": Megatron-Core's output-
    // discarding checkpoints (megatron/core/transformer/transformer_config.py
    // recompute_modules: "layernorm": recompute the input_layernorm and
    // pre_mlp_layernorm; "moe_act": recompute the MoE MLP activation
    // function; both with CheckpointWithoutOutput): the norm outputs and the
    // experts' activation outputs are freed after the next linear layer reads
    // them and recomputed in backward.
    bool recomputeLayernorm = false;
    bool recomputeMoeAct = false;
    std::optional<LossKernel> lossKernel;  // empty = "auto": the engine's own (lossKernelOf)
    // Fine-tuning on sequences packed (or padded) to one length: every step
    // allocates the same blocks, so the caching allocator keeps none of other
    // lengths (no varying-length reserve, memory/overhead.cpp). Pre-training
    // always packs.
    bool packing = false;
    // Training: fp32 weights trained under torch.autocast (bf16 or fp16):
    // mixed precision without a 16-bit copy of the model (Hugging Face
    // Trainer's bf16=True on an fp32 model). The linear layers compute and
    // save 16-bit tensors, the residual stream and the norms stay fp32
    // (memory/train_activations.cpp). Only with fp32 weights.
    bool autocast = false;
    InterconnectSpec interconnect;
    // Full training's gradient buffer in fp32 (Megatron's main grads,
    // grad_reduce_in_fp32) or in the weights' 16 bits; empty = "auto"
    // (fp32GradientsOf).
    std::optional<bool> fp32Gradients;
    // Full training with FP8 weights: the model stores its linear layers'
    // weights in FP8 (Transformer Engine's fp8_model_init: NeMo's
    // `fp8_params`, Megatron-LM's --fp8-param-gather), so the optimizer
    // keeps the master copy in its state dtype (training_bytes.cpp
    // masterCopyBytes). Only with `weights` fp8 or fp8-block.
    bool fp8Params = false;
    // Training: sequences per optimizer step over all replicas (0 = the
    // default: ~4M tokens for pre-training, one micro-batch per replica for
    // fine-tuning); sets the micro-batches a pipeline runs per step.
    std::int64_t globalBatch = 0;
    bool flashAttention = true;
    // Training: k and v repeated to every query head before attention, so
    // attention saves them at the query heads' width (LitGPT's
    // CausalSelfAttention: `k.expand(...)` and `v.expand(...)` then reshape,
    // "training: flash attention requires it", litgpt/model.py). Off: the
    // grouped k and v are saved as they are.
    bool kvHeadsRepeated = false;
    // The output head is its own copy of a tied embedding table (LitGPT's GPT
    // has separate wte and lm_head; convert_hf_checkpoint.py copies the table
    // into lm_head.weight), so memory holds the table twice.
    bool untiedHead = false;
    LoraSpec lora;
    ParallelSpec parallel;
    HostSpec host;
    std::optional<double> trainTokens;
    std::string currency = "usd";  // usd | cny
    double gpuMemoryUtilization = 0.9;  // vLLM / SGLang pool fraction
    bool gpuMemoryUtilizationStated = false;  // the request set it (else SGLang takes its own default)
    std::optional<std::int64_t> maxModelLen;  // engine context limit per request; empty = prompt + output
    ServingRequest serving;                   // continuous-batching options (CONTRACT v2 "serving")
    std::optional<double> usdPerGpuHour;  // user override of the catalog price
    std::optional<double> priceUsd;       // user override of the purchase price
    double cnyPerUsd = 7.1;               // exchange rate used for CNY figures
    WorkloadRequest workloadRequest;      // audio seconds, image size, steps, frames

    // Which defaults the request set itself; the others follow the GPU
    // (bf16 from Ampere on, fp16 before; FlashAttention-2 where supported).
    bool weightsExplicit = false;
    const char* weightsWhy = "weights_requested";  // plan.why code for the weight format
    bool kvCacheExplicit = false;
    bool engineExplicit = false;
    bool flashAttentionExplicit = false;
};

// Re-derive the GPU-dependent defaults after the GPU changed (matrix cells,
// recommendations): weights and KV dtype, FlashAttention.
void adaptToGpu(Scenario& scenario);

// The default weight format and why (a plan.why code): the checkpoint's own
// format where the GPU and engine run it (weight-only where the GPU lacks its
// tensor cores), else bf16 (fp16 without bf16); QLoRA's nf4; 16-bit for training.
struct WeightsChoice {
    WeightFormat format;
    const char* why;
};
WeightsChoice defaultWeights(const Scenario& scenario);

// Whether the GPU has tensor cores for FP4 (MXFP4/NVFP4) matrix products.
bool nativeFp4(const GpuSpec& gpu);
// Whether the scenario's weights run weight-only (dequantized to 16-bit in the
// GEMM): FP8 without FP8 tensor cores, MXFP4/NVFP4 without FP4 ones.
bool runsWeightOnly(const Scenario& scenario);

// Names as they appear in JSON (lowercase, docs/CONTRACT.md).
const char* toString(Task);
const char* toString(Method);
const char* toString(Engine);
const char* toString(Optimizer);
const char* toString(Strategy);
const char* toString(Offload);
const char* toString(LossKernel);
const char* toString(LoraTargets);
const char* toString(InterNode);

// The runtime whose kernels, memory layout and efficiency constants an
// engine's figures follow: Ollama and MLX run as llama.cpp,
// Unsloth as transformers, torchtune as FSDP; the others are their own.
// Inline: the memory and speed models ask it in every matrix cell.
inline Engine runtimeOf(Engine engine) {
    switch (engine) {
        // Ollama's runner is llama.cpp (ggml) with Ollama's defaults.
        case Engine::Ollama: return Engine::LlamaCpp;
        // MLX: Apple's Metal array framework. Published MLX-vs-llama.cpp
        // comparisons disagree on the sign of the difference (famstack.dev
        // "MLX vs GGUF part 2": within single digits once dtypes match), so
        // MLX takes llama.cpp's Metal figures; mlx-lm's KV cache grows in
        // steps of 256 tokens (mlx_lm/models/cache.py KVCache.step), as
        // llama.cpp pads n_ctx to 256 cells.
        case Engine::Mlx: return Engine::LlamaCpp;
        // Unsloth patches Hugging Face transformers + PEFT models with Triton
        // kernels (unsloth/kernels); its own mechanisms are applied on top.
        case Engine::Unsloth: return Engine::Transformers;
        // torchtune's distributed recipes shard with FSDP2 (fully_shard).
        case Engine::Torchtune: return Engine::Fsdp;
        default: return engine;
    }
}

// Ollama's context per request (num_ctx): max_model_len where given, else
// Ollama's default for the machine's VRAM, within the model's context.
std::int64_t ollamaNumCtx(const Scenario& scenario);
// The same on `gpuCount` GPUs of the scenario's kind (the count it states aside).
std::int64_t ollamaNumCtx(const Scenario& scenario, int gpuCount);
// The context each sequence's cache is sized for: Ollama's num_ctx, else
// prompt + output.
std::int64_t cacheContextTokens(const Scenario& scenario);

// The loss kernel a scenario trains with: the request's, else the engine's
// own (Megatron: vocab-parallel; Unsloth: fused; torchtune: chunked; the
// others: Hugging Face's eager loss).
LossKernel lossKernelOf(const Scenario& scenario);
// Whether LoRA adapters train in fp32 beside a 16-bit base (AdapterDtype).
bool fp32Adapters(const Scenario& scenario);
// LoRA on all linear layers of a MoE model whose routed experts are fused 3D
// parameters adapted by merging (lora.experts, ExpertAdapters::Fused).
bool fusedExpertAdapters(const Scenario& scenario);
// How LoRA on all linear layers reaches a MoE model's routed experts, Auto
// resolved (Modules where the question does not arise).
ExpertAdapters expertAdaptersOf(const Scenario& scenario);
// Whether full training keeps fp32 gradients: the request's choice, else
// Megatron's default (Megatron-LM arguments.py turns on
// accumulate_allreduce_grads_in_fp32 for bf16; NeMo's bf16_mixed sets
// grad_reduce_in_fp32), 16-bit for the other engines.
bool fp32GradientsOf(const Scenario& scenario);

}  // namespace caliper
