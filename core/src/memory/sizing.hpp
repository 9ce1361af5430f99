#pragma once
#include <memory>
#include <algorithm>
#include <cmath>
#include <type_traits>
// Internal interface of the memory model. A scenario is prepared once
// (parameter counts, tensor groups, weight bytes by placement); each plan is
// then evaluated per pipeline stage with plain arithmetic, so the GPU-count
// and limit searches stay cheap. Explanation strings are only built when a
// sink is given.
#include <optional>
#include <string>
#include <vector>

#include "caliper/model.hpp"
#include "caliper/result.hpp"
#include "caliper/scenario.hpp"
#include "plan/workload.hpp"

namespace caliper {
struct CountShare;  // plan/prepared.hpp
}

namespace caliper::sizing {

// printf-style formatting for explanation formulas.
std::string fmt(const char* format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

// Collects explanation terms; without a sink nothing is formatted: a
// formula given as a callable runs only when someone reads it (the GPU-count
// search and the matrix evaluate thousands of plans without explanations).
class Explain {
public:
    explicit Explain(std::vector<ExplainTerm>* sink = nullptr) : sink_(sink) {}
    bool on() const { return sink_ != nullptr; }
    template <class Formula>
    void add(const char* term, Formula&& formula, double value) const {
        if (!sink_) return;
        if constexpr (std::is_invocable_v<Formula>) {
            sink_->push_back(ExplainTerm{term, formula(), value});
        } else {
            sink_->push_back(ExplainTerm{term, std::string(std::forward<Formula>(formula)), value});
        }
    }

private:
    std::vector<ExplainTerm>* sink_;
};

// Whole-model weights of the block linear layers, by the tensor groups that
// llama.cpp quantizes differently.
struct LinearGroups {
    double q = 0, k = 0, v = 0, o = 0;  // attention projections (MLA: q_b, -, kv_b, o)
    double gate = 0, up = 0, down = 0;  // MLP and expert matrices
    double other = 0;                   // MLA down-projections, cross-attention, encoder
    double expert = 0;                  // the routed-expert part of gate+up+down
    double total() const { return q + k + v + o + gate + up + down + other; }
};

// Architecture figures the memory terms use.
struct ModelShape {
    double hidden = 0, vocab = 0, headDim = 0;
    double qDim = 0, kvDim = 0;  // widths of the q and of each of the k, v projections
    int layers = 1;              // decoder layers
    int stackLayers = 1;         // layers a pipeline splits (decoder + encoder)
    int heads = 1, kvHeads = 1;
    double ffn = 0;        // dense MLP inner size
    double expertFfn = 0;  // routed-expert inner size
    double sharedExpertFfn = 0;  // always-on expert inner size (= expertFfn unless set apart)
    int experts = 0, topK = 0, sharedExperts = 0;
    int moeLayers = 0;     // layers with routed experts
    bool gated = true;
    LinearGroups groups;
    double loraDimsAllLinear = 0;   // sum of (d_in + d_out) over every block linear layer
    double loraDimsDenseMlp = 0;       // the same over the dense MLPs (not MoE layers')
    double loraDimsRoutedExperts = 0;  // the same over the routed experts, one module each
    double loraDimsSharedExperts = 0;  // the same over the shared experts and their gate
    double loraDimsAttention = 0;   // the same over q, k, v, o only
    double loraDimsQueryValue = 0;  // the same over q and v only
    double layerParams = 0;         // parameters of one decoder layer (an FSDP unit)
    double largestModule = 0;       // largest single module (DeepSpeed's largest layer)
    double largestLinear = 0;
    double otherParams = 0;         // norms, biases, routers, towers (not embeddings, not linear)
};

ModelShape modelShape(const ModelSpec& model, const ParamCounts& counts);
// The DeepSeek-V2 architecture of transformers (models/deepseek_v2), read by
// catalog family: its router's fp32 weights and its latent KV cache.
bool deepseekV2Architecture(const ModelSpec& m);

// Stored bytes of the weights, by where a split puts them.
struct WeightParts {
    double layerBytes = 0;  // one block, on average
    double embedBytes = 0;  // input table (+ learned positions): the first stage
    double headBytes = 0;   // lm_head, or llama.cpp's output copy: the last stage
    double tiedHeadBytes = 0;  // copy of a tied table the last stage needs when split
    double extraBytes = 0;     // towers and encoders outside the blocks: the first stage
    double hostBytes = 0;      // kept in host RAM by the engine (llama.cpp token_embd)
    double mmprojBytes = 0;    // llama.cpp: a VLM's vision tower, in a file loaded only with --mmproj
    double linearBits = 16;    // effective bits of the block linear layers (explain)
    double total(int layers) const { return layers * layerBytes + embedBytes + headBytes + extraBytes; }
};

WeightParts weightParts(const Scenario& s, const ModelShape& shape, const ParamCounts& counts);

// What weightParts() reads of the engine: 0 = not llama.cpp's runtime, 1 = it
// runs as llama.cpp (Ollama, MLX), 2 = llama.cpp itself, which also leaves a
// vision model's tower in the mmproj file.
// lm_head reads the input table itself (one tensor in memory): a tied model,
// unless the framework keeps the head as its own copy (untied_head).
inline bool headSharesTable(const Scenario& s) { return s.model.tiedEmbeddings && !s.untiedHead; }

// lm_head stored in the base's 4-bit bitsandbytes format (lora.quantized_head).
inline bool quantizedHead(const Scenario& s) {
    return s.lora.quantizedHead && s.method == Method::Qlora &&
           (s.weights == WeightFormat::Nf4 || s.weights == WeightFormat::Nf4Dq);
}

inline int weightsEngineKind(Engine engine) {
    if (engine == Engine::LlamaCpp) return 2;
    return runtimeOf(engine) == Engine::LlamaCpp ? 1 : 0;
}

// The base's unquantized parameters cast to fp32 by PEFT's
// prepare_model_for_kbit_training (lora.upcast_unquantized): LoRA over a
// bitsandbytes base only; PEFT skips the cast for GPTQ, AQLM, EETQ, HQQ and
// torchao bases.
inline bool upcastUnquantized(const Scenario& s) {
    return s.lora.upcastUnquantized && (s.method == Method::Lora || s.method == Method::Qlora) &&
           (s.weights == WeightFormat::Int8 || s.weights == WeightFormat::Nf4 || s.weights == WeightFormat::Nf4Dq);
}

// transformers v5 stores an MoE's routed experts as 3D nn.Parameter tensors
// (Qwen3MoeExperts.gate_up_proj and down_proj, bitsandbytes issue #1849),
// and its bitsandbytes loading replaces nn.Linear and Conv1D modules only
// (integrations/bitsandbytes.py _replace_with_bnb_linear: `isinstance(module,
// (nn.Linear, Conv1D))`), so LoRA over a k-bit base keeps those experts in
// 16 bits. A stated lora.experts "fused" or "frozen" stands for that layout
// (its auto default keeps the quantized one-module-per-expert layout for k-bit
// bases).
inline bool bnbSkipsFusedExperts(const Scenario& s) {
    if (s.model.moe.experts <= 0 || (s.method != Method::Lora && s.method != Method::Qlora)) return false;
    if (s.weights != WeightFormat::Int8 && s.weights != WeightFormat::Nf4 && s.weights != WeightFormat::Nf4Dq) return false;
    return s.lora.experts == ExpertAdapters::Fused || s.lora.experts == ExpertAdapters::Frozen;
}

// What the held weight figures depend on besides the format: the engine kind,
// the fp32 upcast (4) and 16-bit fused experts (8).
inline int weightsKind(const Scenario& s) {
    return weightsEngineKind(s.engine) + (upcastUnquantized(s) ? 4 : 0) + (bnbSkipsFusedExperts(s) ? 8 : 0);
}

// The KV cache's terms that no plan changes (kv_cache.cpp), worked out once
// per scenario: the GPU-count search evaluates many plans of one scenario.
struct KvTerms {
    double layerTokenBytes = 0;  // cached elements per layer and token x bytes per element
    bool shardable = true;       // tensor parallelism splits them (MLA's latent it does not)
    // Full layers (x their KV width relative to a sliding layer) x cached
    // tokens, and sliding layers x window-capped tokens; each kind's KV heads
    // (tensor parallelism splits or replicates each kind by its own count).
    double fullTokenLayers = 0;
    double slidingTokenLayers = 0;
    int fullKvHeads = 1;
    int slidingKvHeads = 1;
    double crossLayers = 0;      // layers caching encoder (or image) tokens
    double elementBytes = 0;
    double indexerBytesPerToken = 0;  // sparse-attention indexer keys, all layers
    double fullTokens = 0;            // cached tokens of a full-attention layer, all sequences
    // One sequence of max_model_len tokens, as the token-layers above and
    // fullTokens count them (vLLM and SGLang: the pool must hold one to start
    // or to admit a request; oneSequenceBytes).
    double oneFullTokenLayers = 0;
    double oneSlidingTokenLayers = 0;
    double oneFullTokens = 0;
};

KvTerms kvTerms(const Scenario& s, const ModelShape& shape);

// Everything a plan evaluation reads, prepared once per scenario.
struct Inputs {
    // The model's and format's parts: read in place from a matrix row's
    // held figures (which outlive the cell's inputs and do not change while
    // it is worked out), or kept by the inputs where worked out afresh
    // (`own`, shared by copies). Copying them into every cell's inputs cost
    // a kilobyte per matrix cell.
    struct Parts {
        ParamCounts counts;
        ModelShape shape;
        WeightParts weights;
        KvTerms kv;
    };
    Inputs() = delete;
    Inputs(const Scenario* s, std::shared_ptr<const Parts> own) : scenario(s), own_(std::move(own)) { point(*own_); }
    Inputs(const Scenario* s, const ParamCounts& c, const ModelShape& sh, const WeightParts& w, const KvTerms& k)
        : scenario(s), counts_(&c), shape_(&sh), weights_(&w), kv_(&k) {}

    const ParamCounts& counts() const { return *counts_; }
    const ModelShape& shape() const { return *shape_; }
    const WeightParts& weights() const { return *weights_; }
    const KvTerms& kv() const { return *kv_; }

    const Scenario* scenario = nullptr;
    bool training = false;
    bool qlora = false;
    bool lora = false;       // lora or qlora
    double trainableParams = 0;  // all parameters (full) or adapter parameters
    double adapterParams = 0;
    // Training: the caching allocator's calibrated reserve fraction and
    // loss-block copies (memory/overhead.cpp), read once here rather than
    // for every plan probed.
    double allocatorReserve = 0;
    double lossCopies = 0;
    // transformers' generate(): the calibrated share of the prefill's
    // transient bytes the caching allocator keeps reserved (overhead.cpp).
    double generateReserve = 0;
    // Training: the adapters' bytes per parameter (adapterBytesPerParam) and
    // the bytes per token of one layer that the adapters' input copies, eager
    // norms, autocast casts and a fused qkv output add (layerCopyBytesPerToken). They read the
    // format, the engine and the adapters, which no search changes, and every
    // plan probed reads them.
    double adapterBytesPerParam = 2;
    double layerCopyBytesPerToken = 0;
    // The speed models' workload of the scenario, when a matrix row holds it
    // (ModelFigures); null otherwise (makeWorkload then works it out).
    const Workload* work = nullptr;
    // usableMemoryGiB(*scenario), read by every fit test of a count search
    // (it reads only the GPU, the task and the engine, which no search changes).
    double usableGiB = 0;
    // Where a matrix shares GPU-count searches between columns (ModelFigures).
    CountShare* countShare = nullptr;
    // vllmLargeSampler(*scenario) for vLLM inference (else false), read by
    // every fit test's last stage.
    bool vllmLargeSampler = false;

private:
    void point(const Parts& p) {
        counts_ = &p.counts;
        shape_ = &p.shape;
        weights_ = &p.weights;
        kv_ = &p.kv;
    }
    std::shared_ptr<const Parts> own_;
    const ParamCounts* counts_ = nullptr;
    const ModelShape* shape_ = nullptr;
    const WeightParts* weights_ = nullptr;
    const KvTerms* kv_ = nullptr;
};

Inputs prepare(const Scenario& s);
// Whether vLLM profiles its sampler on 1,024 rows on this GPU rather than
// 256 (memory/activations.cpp); it reads the GPU alone.
bool vllmLargeSampler(const Scenario& s);
// Whether the memory model reads the scenario's flash attention: llama.cpp's
// compute buffer (Ollama's and MLX's too), transformers' eager scores at
// inference, and training activations (memory/activations.cpp,
// train_activations.cpp). The serving engines' profile runs do not.
bool memoryReadsFlashAttention(const Scenario& s);
// Sets the caching allocator's reserve scales of `in` (memory/overhead.cpp):
// training's, or transformers generate()'s.
void prepareOverhead(const Scenario& s, Inputs& in);

// What prepare() works out from the model alone; a matrix works it out once
// per model row instead of once per cell.
struct ModelFigures {
    ParamCounts counts;
    ModelShape shape;
    // The weights' bytes as last worked out for this model (a matrix row
    // meets one or two formats and engine kinds): weightParts() reads only
    // the model, the format and weightsKind(scenario): the engine kind and lora.upcast_unquantized.
    WeightParts weights;
    WeightFormat weightsFormat = WeightFormat::Bf16;
    int weightsEngineKind = 0;
    bool weightsKnown = false;
    // The KV cache's terms the same way: kvTerms() reads the model, the
    // batch, the tokens, the cache format and the engine; Ollama's context
    // also reads the GPU, so it is never kept.
    KvTerms kv;
    KvFormat kvFormat = KvFormat::Bf16;
    Engine kvEngine = Engine::Vllm;
    std::int64_t kvBatch = 0, kvPromptTokens = 0, kvOutputTokens = 0;
    std::optional<std::int64_t> kvMaxModelLen;
    bool kvKnown = false;
    // The speed models' workload the same way: makeWorkload() reads the
    // model, the weight format and the KV cache format.
    Workload work;
    WeightFormat workWeights = WeightFormat::Bf16;
    KvFormat workKv = KvFormat::Bf16;
    bool workKnown = false;
    // A matrix row's count search shared with the other GPU columns the
    // search cannot tell apart (plan/prepared.hpp); set by the matrix for
    // each cell, null elsewhere. prepare() hands it on to the inputs.
    CountShare* countShare = nullptr;
    bool holdsWork(const Scenario& s) const { return workKnown && workWeights == s.weights && workKv == s.kvCache; }
    bool holdsKv(const Scenario& s) const {
        return kvKnown && s.engine != Engine::Ollama && kvFormat == s.kvCache && kvEngine == s.engine &&
               kvBatch == s.batch && kvPromptTokens == s.promptTokens && kvOutputTokens == s.outputTokens &&
               kvMaxModelLen == s.maxModelLen;
    }
};
// Sets `figures`' weights, KV terms and workload for the scenario (figures
// must be modelFigures(s.model)).
void holdWeights(const Scenario& s, ModelFigures& figures);
ModelFigures modelFigures(const ModelSpec& model);
// prepare() with the scenario's model figures already worked out (`held`
// must be modelFigures(s.model); null works them out).
Inputs prepare(const Scenario& s, const ModelFigures* held);

// One GPU's share of the model: a pipeline stage (or the whole model).
struct Stage {
    double layers = 0;  // decoder+encoder layers on this GPU
    bool first = true;  // holds the input embedding
    bool last = true;   // holds lm_head, the logits and the loss
    double inFlight = 1;  // micro-batches whose activations it holds (1F1B: pp on the first stage)
};

// How a plan spreads work, resolved from Plan.
struct Layout {
    Strategy strategy = Strategy::Single;
    int count = 1, tp = 1, pp = 1, dp = 1, nodes = 1;
    int ep = 1, cp = 1;  // expert-parallel degree (routed experts / ep), context parallel (sequence / cp)
    int vp = 1;          // virtual pipeline stages per GPU
    bool layerSplit = false;  // llama.cpp split or naive model parallel (one micro-batch in flight)
    bool shardedStates = false;  // ZeRO-3 / FSDP: parameters sharded over dp
    int gpuLayers = -1;          // llama.cpp offload "layers": layers on the GPUs (-1 = all)
    int cpuMoeLayers = 0;        // llama.cpp offload "moe-experts": layers whose experts stay in host RAM
};

// Stored bytes of all routed experts, and of one MoE layer's (offload "moe-experts").
double expertWeightBytes(const Inputs& in);
double expertLayerBytes(const Inputs& in);
// Weights a llama.cpp offload keeps in host RAM (whole model).
double offloadedWeightBytes(const Inputs& in, const Layout& layout);

// The layout of a plan and its first and last stage (equal when pp = 1),
// defined here: every plan a search probes goes through them, and inlined
// they cost a few instructions instead of a call and a full Layout.
inline Layout layoutOf(const Plan& plan) {
    Layout l;
    l.strategy = plan.strategy;
    l.count = std::max(1, plan.gpuCount);
    l.tp = std::max(1, plan.tp);
    l.pp = std::max(1, plan.pp);
    l.dp = std::max(1, plan.dp);
    l.nodes = std::max(1, plan.nodes);
    l.ep = std::max(1, plan.ep);
    l.cp = std::max(1, plan.cp);
    l.vp = std::max(1, plan.vp);
    l.layerSplit = plan.strategy == Strategy::LayerSplit;
    l.shardedStates = plan.strategy == Strategy::Zero3 || plan.strategy == Strategy::Fsdp;
    l.gpuLayers = plan.gpuLayers;
    l.cpuMoeLayers = std::max(0, plan.cpuMoeLayers);
    return l;
}

// FSDP shards over the data-parallel ranks and the context-parallel ones,
// which hold the same parameters (torchtitan's "dp_shard_cp" mesh: "HSDP/FSDP
// is applied across (dp_replicate, dp_shard_cp) where dp_shard_cp is obtained
// by flattening the dp_shard and cp axes").
inline int fsdpShardGroup(const Layout& layout) { return std::max(1, layout.dp) * std::max(1, layout.cp); }

// Micro-batches in a stated global batch, over all replicas; 0 when the
// request states none.
inline double globalMicrobatches(const Scenario& s) {
    if (s.globalBatch <= 0) return 0;
    return double(s.globalBatch) / double(std::max<std::int64_t>(1, s.batch));
}

// Micro-batches per optimizer step on each replica when the request states a
// global batch (Megatron: global = micro x dp x m); 0 when it does not.
inline double statedMicrobatches(const Scenario& s, int dp) {
    if (s.globalBatch <= 0) return 0;
    return std::max(1.0, std::ceil(globalMicrobatches(s) / std::max(1, dp)));
}

// Stages get ceil(L/p) layers first and floor(L/p) at the end (llama.cpp's
// even split of equal GPUs; Megatron's uniform split).
// With llama.cpp's -ngl below the layer count only the last gpu_layers
// layers sit on the GPUs; the output layer stays on the CPU with the rest.
inline int gpuStackLayers(const Inputs& in, const Layout& layout) {
    const int layers = in.shape().stackLayers;
    return layout.gpuLayers >= 0 ? std::min(layers, layout.gpuLayers) : layers;
}

inline Stage firstStage(const Inputs& in, const Layout& layout) {
    Stage st;
    const int layers = gpuStackLayers(in, layout);
    const bool allOnGpu = layers == in.shape().stackLayers;
    const int perStage = (layers + layout.pp - 1) / layout.pp;
    st.layers = layout.pp > 1 ? std::min(layers, perStage) : layers;
    st.first = true;
    st.last = layout.pp == 1 && allOnGpu;
    // 1F1B: the first stage holds pp micro-batches in flight; a naive split
    // (llama.cpp, device_map) runs one at a time. Megatron's interleaved
    // schedule with v virtual stages holds 1 + (p - 1) / (p v) times more
    // (Korthikanti et al. 2205.05198, section 4.2.3).
    const double interleave = layout.vp > 1 && layout.pp > 1 ? 1.0 + double(layout.pp - 1) / (layout.pp * layout.vp) : 1.0;
    st.inFlight = layout.layerSplit ? 1 : layout.pp * interleave;
    // A step of m micro-batches holds at most m: Megatron's 1F1B warms up
    // min(p - rank - 1, m) of them, its interleaved schedule runs every
    // forward first when m = p (schedules.py: all_warmup_microbatches), and
    // megatron/training/theoretical_memory_usage.py discounts the first
    // stage by min(1, m / p). Llama 3 405B ran PP 16 at 16 micro-batches per
    // step on 16,384 GPUs (arXiv 2407.21783, Table 4).
    const double m = statedMicrobatches(*in.scenario, layout.dp);
    if (m > 0 && layout.pp > 1) st.inFlight = std::min(st.inFlight, m);
    return st;
}

inline Stage lastStage(const Inputs& in, const Layout& layout) {
    if (layout.pp == 1) return firstStage(in, layout);
    Stage st;
    const int layers = gpuStackLayers(in, layout);
    st.layers = layers / layout.pp;
    st.first = false;
    st.last = layers == in.shape().stackLayers;
    st.inFlight = 1;
    return st;
}

// Per-GPU terms, in bytes.
double stageWeightBytes(const Inputs& in, const Stage& stage);  // whole stage, before tensor parallel
double stageParams(const Inputs& in, const Stage& stage);       // parameters of a stage
double weightBytes(const Inputs& in, const Layout& layout, const Stage& stage, const Explain& ex);
double kvBytes(const Inputs& in, const Layout& layout, const Stage& stage, const Explain& ex);
// KV bytes on one GPU of a single request of max_model_len tokens (vLLM,
// SGLang; 0 for other engines): what the pool must hold to serve any.
double oneSequenceBytes(const Inputs& in, const Layout& layout, const Stage& stage);
// Whether a vLLM/SGLang plan runs fewer requests at once than the batch:
// its pool holds one request of max_model_len but not the batch's KV, so
// the others wait for free blocks (memory.cpp admitByBlocks).
bool kvQueued(const Inputs& in, const Plan& plan);
double inferenceActivationBytes(const Inputs& in, const Layout& layout, const Stage& stage, const Explain& ex);
// Bytes per token of one layer that a training scenario's adapter input
// copies, eager norms and autocast casts add to the saved activations
// (train_activations.cpp); prepare() keeps it in Inputs.
double layerCopyBytesPerToken(const Inputs& in);
// Saved activations at the step's peak. freedGradientBytes: the gradients
// that backward writes while it frees the activations (gradientsFreedEachStep);
// the result is then what the peak holds beyond those gradients.
double trainingActivationBytes(const Inputs& in, const Layout& layout, const Stage& stage, const Explain& ex,
                               double freedGradientBytes = 0);
// Whether the gradients are allocated during backward and freed after each
// optimizer step, so that they and the saved activations never peak together.
bool gradientsFreedEachStep(const Inputs& in, const Layout& layout);
// Checkpointed layer inputs kept in host RAM (gradient_checkpointing "offload").
double offloadedCheckpointBytes(const Inputs& in, const Layout& layout, const Stage& stage);
// Peak bytes of the logits and the cross-entropy loss over the vocabulary for
// one micro-batch on the GPU that holds lm_head (memory/train_activations.cpp).
double lossWorkingSetBytes(const Inputs& in, const Layout& layout);
// Of that working set, the blocks whose size follows the sequence length
// (what the caching allocator cannot reuse when lengths vary): all of it,
// except TRL's chunked NLL, whose fp32 head copies and 256-token chunks are
// the same size every step.
double lossLengthBlocksBytes(const Inputs& in, const Layout& layout);
// Whether TRL's chunked NLL loss holds at least the bytes of `s`'s own loss
// (its kernel unset) at the request's leanest micro-batch (one sequence
// where the planner chooses it), with no tensor or context parallelism. The
// loss enters the memory only through its working set (and a reserve capped
// at the memory left free), and a plan that fits at some micro-batch fits at
// the leanest: there the chunked loss fits on no fewer GPUs, and the planner
// need not weigh it (at 2,048 tokens, most models: its fp32 head copies,
// 8 x vocabulary x hidden bytes, outweigh one sequence's logits).
bool chunkedNllNoLighter(const Scenario& s, const ModelShape& shape);
// Tokens per chunk of Liger's fused linear cross entropy over `tokens` tokens.
std::int64_t fusedLinearChunkTokens(std::int64_t tokens, double vocab, double hidden);

struct TrainingStates {  // per GPU, bytes
    double weights = 0, gradients = 0, optimizer = 0, adapter = 0;
    double buffers = 0;   // gathered parameters, communication buckets
    double hostBytes = 0; // offloaded to CPU RAM (whole job)
};
TrainingStates trainingStates(const Inputs& in, const Layout& layout, const Stage& stage, const Explain& ex);

// KV bytes per token over all layers, for one GPU of the layout (limits, explain).
double kvBytesPerTokenPerGpu(const Inputs& in, const Layout& layout, const Stage& stage);

// Evaluates a plan: the fullest GPU's breakdown. `warnings` may be null.
MemoryBreakdown evaluate(const Inputs& in, const Plan& plan, const Explain& ex, std::vector<Warning>* warnings);

// Rounding a total may exceed the usable memory by and still fit.
constexpr double kFitToleranceGiB = 1e-9;

// Whether a breakdown fits the scenario's GPU.
bool fits(const Scenario& s, const MemoryBreakdown& memory);
// The same for a prepared scenario.
inline bool fits(const Inputs& in, const MemoryBreakdown& memory) { return memory.totalGiB <= in.usableGiB + kFitToleranceGiB; }

// evaluate() without explanation where the plan fits, else empty; it stops
// at the first pipeline stage when that alone overflows (searches probe
// many counts that do not fit).
std::optional<MemoryBreakdown> evaluateIfFits(const Inputs& in, const Plan& plan);
// evaluateIfFits' first test: whether `bytes` that a stage holds whatever
// else it holds (its weights, or training states) and the overheads every
// GPU holds (`fixedBytes`: fixedOverhead) exceed the usable memory by more
// than rounding. A stage that fails it fits no plan.
bool floorOverflows(const Inputs& in, double bytes, double fixedBytes);
// Its next: whether the stage's whole memory (weights, KV cache,
// activations, overheads, a serving engine's pool) fits. A plan fits only
// where its first stage does.
bool stageFits(const Inputs& in, const Layout& layout, const Stage& stage);

// The plan for a GPU count (plan.cpp), and whether the resolved strategy can
// use that count at all (a tensor degree must divide the heads, stages cannot
// outnumber layers, a single-GPU strategy takes one GPU).
Plan planFor(const Inputs& in, int gpuCount);
// The same with a given strategy (the planner weighs several).
Plan planWith(const Inputs& in, int gpuCount, Strategy strategy);
bool countUsable(const Inputs& in, const Plan& plan);
// A count above which planFor makes no usable plan (kMaxGpus where no
// bound is known): the GPU-count search stops there.
int usableCountLimit(const Inputs& in);
// The largest tensor-parallel degree the scenario's strategy may use.
int maxTensorDegree(const Inputs& in);
// Whether tensor parallelism of degree `tp` splits the model's heads (and
// its KV heads, or replicates them).
bool validTensorDegree(const ModelSpec& model, int tp);
// The largest context-parallel degree a plan of `count` GPUs may use (the
// stated one, or Megatron's search at long sequences; else 1).
int maxContextDegree(const Inputs& in, int count);
// Evaluates without explanation: does the plan fit?
bool planFits(const Inputs& in, const Plan& plan);

}  // namespace caliper::sizing
