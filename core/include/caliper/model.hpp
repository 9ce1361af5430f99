#pragma once
// A model's architecture, with the fields of its config.json that decide
// memory and compute. Parameter counts are computed from these fields
// (countParams) and checked against published exact counts.
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "caliper/weight_format.hpp"
#include "caliper/workload_shape.hpp"

namespace caliper {

enum class AttentionKind { Mha, Gqa, Mqa, Mla };
enum class MlpKind { Gated, Plain };        // SwiGLU/GeGLU (3 matrices) vs GELU (2)
enum class NormKind { RmsNorm, LayerNorm };  // LayerNorm has a bias vector
// Learned adds a max_context x hidden table; Relative is T5's bucketed bias
// (a buckets x heads table per stack, counted in extraParams).
enum class PositionKind { Rope, Alibi, Learned, Relative };

struct MoeSpec {
    int experts = 0;            // routed experts per MoE layer (0 = dense model)
    int expertsPerToken = 0;    // routed experts each token uses
    int sharedExperts = 0;      // always-on experts
    int expertIntermediateSize = 0;
    int denseLayers = 0;        // leading layers with a dense MLP (DeepSeek first_k_dense_replace)
    int layerInterval = 1;      // every n-th layer is MoE (Llama 4 Maverick: 2)
    // Inner size of each always-on expert when it differs from the routed
    // ones (Gemma 4's dense MLP beside its experts); 0 = expertIntermediateSize.
    int sharedExpertIntermediateSize = 0;
    // A learned scalar gate on the shared expert's output, one nn.Linear(h, 1)
    // per MoE layer (transformers' Qwen2MoeSparseMoeBlock.shared_expert_gate):
    // a linear layer that LoRA on all linear layers adapts.
    bool sharedExpertGate = false;
    // PEFT's "all-linear" under transformers v5 leaves the routed experts and
    // the router frozen (moe.peft_all_linear_experts "frozen"): the model type
    // has no MoE conversion that PEFT reads (see scenario.hpp ExpertAdapters).
    bool peftFrozenExperts = false;
};

struct MlaSpec {  // DeepSeek-V2/V3 multi-head latent attention
    int kvLoraRank = 0;
    int qLoraRank = 0;  // 0 = queries not compressed
    int qkNopeHeadDim = 0;
    int qkRopeHeadDim = 0;
    int vHeadDim = 0;
};

// Linear-attention or state-space layers of a hybrid model (Qwen3-Next /
// Qwen3.5 Gated DeltaNet, Mamba-2 in Nemotron-H and Granite 4.0-H, LFM2's
// gated short convolutions). They keep a fixed state per sequence instead of
// a per-token KV cache.
// Mamba-2 maps onto the same widths: key heads = n_groups, key head dim =
// ssm_state_size, value heads = mamba_num_heads, value head dim = mamba_head_dim.
// A short convolution (LFM2) has no heads: value heads = hidden_size channels
// of width 1, no key heads; its state is the last conv_kernel - 1 inputs.
enum class LinearKind { None, GatedDeltaNet, Mamba2, ShortConv };

struct LinearAttentionSpec {
    LinearKind kind = LinearKind::None;
    int layers = 0;         // linear/SSM layers among `layers`
    int ffnOnlyLayers = 0;  // blocks with only an MLP/MoE (Nemotron-H); then mixer blocks carry no MLP
    int keyHeads = 0;
    int valueHeads = 0;
    int keyHeadDim = 0;
    int valueHeadDim = 0;
    int convKernel = 0;
};

// DeepSeek Sparse Attention (DeepSeek-V3.2, GLM-5): a lightning indexer per
// layer that caches one index_head_dim key per token and picks index_topk
// tokens for the main (MLA) attention.
struct SparseAttentionSpec {
    int indexHeads = 0;  // 0 = dense attention
    int indexHeadDim = 0;
    int indexTopk = 0;
    // Layers that carry their own indexer when fewer than the attention layers
    // (GLM-5.2 IndexShare: config.json indexer_types "full"); the "shared" ones
    // reuse the previous indexer's top-k and hold no indexer weights or index
    // keys. 0 = every attention layer.
    int indexLayers = 0;
};

// DeepSeek-V4's compressed attention (config.json compress_ratios, one entry
// per layer): every layer attends over one shared 512-wide K=V vector per
// token (num_key_value_heads 1, head_dim 512) kept for the last `window`
// tokens, and beside it a compressed history of one row per `ratio` tokens:
// CSA layers (ratio 4) with a lightning indexer (sparse_attention, its keys
// compressed by the same ratio) that picks index_topk rows, HCA layers
// (ratio 128) attending to every compressed row; the other layers keep the
// window only. Queries through q_lora_rank, the output through o_groups
// grouped low-rank projections of o_lora_rank; hyper-connections widen the
// residual stream hc_mult times (aiconfigurator deepseek_v4.py, commit 095f58a5).
struct CompressedAttentionSpec {
    int window = 0;  // tokens every layer keeps uncompressed (config sliding_window); 0 = not this layout
    int qLoraRank = 0;
    int oLoraRank = 0;
    int oGroups = 0;
    int csaLayers = 0;  // layers with compress ratio csaRatio and an indexer
    int csaRatio = 0;
    int hcaLayers = 0;  // layers with compress ratio hcaRatio, no indexer
    int hcaRatio = 0;
    int hcMult = 0;      // hyper-connection copies of the residual stream (hc_mult)
    int hashLayers = 0;  // leading MoE layers routed by a token-id table (num_hash_layers)
};

// Global (full-attention) layers of a sliding-window stack with their own
// head width and KV heads (Gemma 4: global_head_dim, num_global_key_value_heads).
// kEqV: keys and values come from one projection (attention_k_eq_v; no v_proj),
// both still cached. headDim 0 = no separate global shape.
struct GlobalAttentionSpec {
    int headDim = 0;
    int kvHeads = 0;
    bool kEqV = false;
};

// The architecture fields of a model: plain values only, so that a matrix
// copies a row's model into each cell's scenario in one block instead of
// moving a dozen strings and vectors in and back (ModelSpec adds the texts
// and the pipeline components).
struct ModelArchitecture {
    // The format the official checkpoint ships in (catalog native_weights),
    // when it is not plain 16-bit: the default `weights` for inference.
    std::optional<WeightFormat> nativeWeights;

    int layers = 0;
    int hiddenSize = 0;
    int intermediateSize = 0;  // dense MLP inner size
    int heads = 0;
    int kvHeads = 0;
    int headDim = 0;
    // Value head width when it differs from the query/key width (MiMo-V2-Flash
    // v_head_dim 128 beside head_dim 192); 0 = headDim.
    int vHeadDim = 0;
    int vocabSize = 0;
    std::int64_t maxContext = 0;

    AttentionKind attention = AttentionKind::Gqa;
    MlpKind mlp = MlpKind::Gated;
    NormKind norm = NormKind::RmsNorm;
    PositionKind position = PositionKind::Rope;
    bool qkvBias = false;
    bool attnOutBias = false;
    bool mlpBias = false;
    bool qkNorm = false;           // per-head q/k RMSNorm (Qwen3, Gemma 3)
    bool tiedEmbeddings = false;
    bool parallelBlock = false;    // attention and MLP share one input norm (Falcon, GPT-J)
    int normsPerLayer = 2;
    bool embeddingNorm = false;    // BLOOM word_embeddings_layernorm
    int slidingWindow = 0;         // tokens; 0 = none
    int slidingLayers = 0;         // layers that use the window
    // KV heads of the sliding-window layers when they differ from kvHeads,
    // which then holds the full-attention layers' count (MiMo-V2-Flash
    // swa_num_key_value_heads 8 beside num_key_value_heads 4); 0 = kvHeads.
    int swaKvHeads = 0;
    GlobalAttentionSpec global;    // the other attention layers, when shaped differently
    MoeSpec moe;
    MlaSpec mla;
    LinearAttentionSpec linear;
    SparseAttentionSpec sparse;
    CompressedAttentionSpec compressed;  // DeepSeek-V4 (window > 0)
    bool attnOutputGate = false;  // q_proj also yields a sigmoid output gate (Qwen3-Next, Qwen3.5)
    int mtpLayers = 0;            // multi-token-prediction layers shipped beside the model (not in the total)
    bool mtpDense = false;        // MTP layers with a dense MLP of intermediateSize, not the experts (MiMo-V2-Flash)
    // Cross-attention. Decoder-only models (encoderLayers == 0, Llama 3.2
    // Vision) interleave dedicated cross-attention layers that count in
    // `layers` and cache no per-token KV. Encoder-decoder models (Whisper, T5)
    // put one cross-attention block (q/k/v/o + one norm) inside each of
    // crossAttentionLayers decoder layers, beside self-attention.
    int crossAttentionLayers = 0;
    int crossAttentionTokens = 0;  // encoder tokens each cross-attention layer caches
    int encoderLayers = 0;         // encoder layers shaped like decoder self-attention layers
    // Parameters the formula does not cover, so totals match published counts:
    // vision towers, Whisper's conv stem, router bias vectors, attention sinks.
    std::int64_t extraParams = 0;

    // Non-LLM workloads (ASR, embeddings, diffusion): the kind and, for ASR
    // and diffusion, the pipeline the figures are computed from
    // (ModelSpec::workloadShape).
    WorkloadKind workload = WorkloadKind::Llm;

    std::int64_t paramsExact = 0;  // published exact count, 0 when unknown
    bool shapeAssumed = false;     // architecture guessed from params_b alone
};

struct ModelSpec : ModelArchitecture {
    std::string id;  // kebab-case, e.g. "llama-3.1-8b"
    std::string name;
    std::string hfId;
    std::string family;
    std::vector<std::string> aliases;
    std::string modality = "text";  // text | vision | speech
    int releaseYear = 0;
    std::string releaseDate;  // YYYY-MM-DD or YYYY-MM (catalog); empty when unknown
    std::string license;
    std::string nativeDtype = "bf16";

    WorkloadShape workloadShape;  // ASR and diffusion pipelines (workload)

    std::string confidence = "medium";  // high | medium | low, as in the catalog
    std::vector<std::string> sources;
    std::string notes;
    std::string notesZh;  // the notes in Chinese (catalog notes_zh), shown to a zh reader
};
static_assert(std::is_trivially_copyable_v<ModelArchitecture>, "copied per matrix cell as one block");

struct ParamCounts {
    double total = 0;       // every parameter
    double active = 0;      // used per token (MoE: shared + routed experts per token)
    double embedding = 0;   // input embedding (+ lm_head when untied, + a learned position table)
    double linear = 0;      // matrix weights of the blocks (what quantizers convert); no router, lm_head or extraParams
    double expert = 0;      // routed-expert weights (subset of linear)
    double largestLinear = 0;  // biggest single matrix, for dequant buffers
    double mtp = 0;         // multi-token-prediction layers (loaded only for MTP speculative decoding)
};

// Layer roles of hybrid stacks (all equal `layers` for a plain decoder).
int fullAttentionLayers(const ModelSpec& model);  // layers with a per-token KV cache
double indexerLayers(const ModelSpec& model);      // attention layers with their own DSA indexer
int ffnLayers(const ModelSpec& model);            // layers with an MLP or MoE
int moeLayerCount(const ModelSpec& model);        // of those, the MoE ones
// Full-attention layers shaped by `global` (0 without a global shape).
int globalAttentionLayers(const ModelSpec& model);
// KV elements per token of one global layer relative to one sliding layer
// (1 without a global shape or sliding-layer KV heads of their own).
double globalKvScale(const ModelSpec& model);
// Full-attention layers whose KV width differs from the sliding layers'
// (globalAttentionLayers, or the non-sliding layers beside swaKvHeads).
int kvScaledLayers(const ModelSpec& model);
// Value head width (v_head_dim, else head_dim) and the KV heads of the layers
// the KV cache counts in units of (the sliding ones where they have their own).
double valueHeadDim(const ModelSpec& model);
int unitKvHeads(const ModelSpec& model);
// KV heads of one full-attention layer (Gemma 4's global layers: their own)
// and of one sliding-window layer (MiMo-V2-Flash: swa_kv_heads); MHA: heads.
int fullLayerKvHeads(const ModelSpec& model);
int slidingLayerKvHeads(const ModelSpec& model);
// Share of a layer's KV heads one of `tp` tensor-parallel ranks holds: the
// heads are split, and replicated once tp exceeds them (vLLM, SGLang:
// max(1, kv_heads / tp) per rank), so ceil(kv_heads / tp) / kv_heads.
double kvHeadRankShare(int kvHeads, int tp);

ParamCounts countParams(const ModelSpec& model);

// KV-cache bytes per token at 2 bytes per element, over all layers and
// without window caps (the catalog's kv_bytes_per_token).
double kvBytesPerToken16(const ModelSpec& model);

// DeepSeek-V4 compressed attention (compressed.window > 0).
bool hasCompressedAttention(const ModelSpec& model);
// Compressed KV elements one token adds over all layers: one head_dim row per
// ratio tokens on the CSA and HCA layers (the indexer keys apart).
double compressedKvElementsPerToken(const ModelSpec& model);
// Indexer key elements one token adds over all CSA layers (index_head_dim per
// csa_ratio tokens).
double compressedIndexerElementsPerToken(const ModelSpec& model);
// Elements of the uncompressed window every layer keeps for one sequence
// (window x head_dim per layer, fewer below the window), in the KV format.
double compressedWindowElementsPerSequence(const ModelSpec& model, double contextTokens);
// Bytes of the compressors' running FP32 state per sequence (aiconfigurator
// deepseek_v4.py get_kvcache_bytes_per_sequence): kv_state and score_state of
// ratio x coff rows of head_dim (coff 2 on the overlapping CSA compressor, 1
// on HCA), and on CSA layers the indexer compressor's of index_head_dim.
double compressorStateBytesPerSequence(const ModelSpec& model);

// Fixed recurrent state of the linear/SSM layers per sequence at 2 bytes per
// element: recurrent state plus the causal-convolution window.
double linearStateBytesPerSequence16(const ModelSpec& model);
double linearStateElementsPerLayer(const ModelSpec& model);

}  // namespace caliper
