#pragma once
// What one forward pass of a model moves and computes: bytes of weights and
// KV cache read per decode step, matmul and attention FLOPs per token.
// Shared by the decode, prefill and training speed models.
#include <cstdint>

#include "caliper/scenario.hpp"

namespace caliper {

struct Workload {
    int layers = 0;
    double hidden = 0;
    // Weights as stored in the scenario's format, bytes.
    double denseWeightBytes = 0;   // read every step: non-expert linear + lm_head + norms
    double expertWeightBytes = 0;  // all routed experts
    double weightCount = 0;        // weights read per step at batch 1 (for unpacking cost)
    int experts = 0;               // routed experts per MoE layer (0 = dense)
    int expertsPerToken = 0;
    // Parameters in matmuls per token.
    double blockMatmulParams = 0;  // active linear-layer parameters in the blocks
    double lmHeadParams = 0;       // vocab x hidden
    double totalParams = 0;
    double expertParams = 0;       // routed experts' parameters, all of them
    double activeParams = 0;
    // Attention.
    double attentionWidth = 0;   // sum over heads of (qk dim + v dim) / 2 (= a x d_h for MHA/GQA)
    double kvBytesPerToken = 0;  // all layers, in the scenario's KV format
    double slidingLayerShare = 0;  // fraction of layers with a sliding window
    double slidingWindow = 0;      // tokens
    // Global (non-sliding) layers shaped apart (Gemma 4): their attention width
    // and KV bytes per token relative to a sliding layer's.
    double globalWidthScale = 1;
    double globalKvScale = 1;
    // DeepSeek-V4 compressed attention (compressedWindow 0 = not this layout):
    // every layer reads its window, the CSA layers index_topk of their
    // compressed rows after the indexer scores all of its keys, the HCA
    // layers every compressed row.
    double compressedWindow = 0;  // tokens
    double csaLayers = 0, csaRatio = 0, hcaLayers = 0, hcaRatio = 0;
    double indexTopk = 0;
    double indexWidth = 0;     // index heads x index head dim (indexer scoring)
    double rowBytes = 0;       // one window or compressed row (head_dim) in the KV format
    double indexKeyBytes = 0;  // one indexer key in the KV format
};

// `counts`, when given, is countParams(scenario.model) worked out by the caller.
Workload makeWorkload(const Scenario& scenario, const ParamCounts* counts = nullptr);

// Routed experts one MoE layer touches when `tokens` tokens are routed
// independently and uniformly: E(1 - (1 - k/E)^tokens) (methodology section 5).
double expertsTouched(int experts, int expertsPerToken, double tokens);

// Weight bytes read in one step over `tokens` tokens (whole model, one GPU).
double weightBytesPerStep(const Workload& work, double tokens);

// KV bytes one sequence reads at context `context` (window-capped layers).
double kvBytesRead(const Workload& work, double context);

// The same split by kind of layer: the full-attention layers' and the
// sliding-window layers' (tensor parallelism shares each by its own KV heads).
struct KvRead {
    double full = 0, sliding = 0;
};
KvRead kvBytesReadByKind(const Workload& work, double context);
// kvBytesPerToken split the same way (every layer's KV of one token).
KvRead kvBytesPerTokenByKind(const Workload& work);

// Share of each kind of layer's KV one of `tp` attention ranks holds and
// reads: KV heads split over the ranks and replicated once the ranks
// outnumber them (kvHeadRankShare, full and sliding layers by their own
// heads); MLA's latent is kept whole on every rank (vLLM MLAAttentionSpec:
// one KV head, not sharded).
struct KvRankShare {
    double full = 1, sliding = 1;
};
KvRankShare kvRankShare(const ModelSpec& model, int tp);
// KV bytes one sequence reads at `context` on one attention rank, all layers
// (a pipeline stage reads its layers' part).
double kvBytesReadOnRank(const Workload& work, const KvRankShare& share, double context);

// Attention FLOPs for one new token attending to `context` earlier tokens.
double attentionFlopsPerToken(const Workload& work, double context);

// Causal attention FLOPs of a whole prompt of `tokens` tokens (QK^T and AV);
// `fullMatrix` counts the masked half too (eager attention computes it).
double promptAttentionFlops(const Workload& work, double tokens, bool fullMatrix);

}  // namespace caliper
