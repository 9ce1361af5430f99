// Parameter counts of the vision encoders that multimodal configs describe in
// vision_config, following the transformers implementations.
#include "json/hf_config/config_view.hpp"

namespace caliper::io {

// SigLIP (Gemma 3): conv patch embedding with bias, a learned position per
// patch, encoder layers with biased q/k/v/o and MLP and two LayerNorms, a
// post LayerNorm; Gemma 3's projector adds a vision x text matrix and an
// RMSNorm over the vision width. Defaults are SiglipVisionConfig's.
std::int64_t siglipTowerParams(ConfigView v, int textHidden) {
    const std::int64_t w = v.integerOr({"hidden_size"}, 768, 1, kHfMaxHidden);
    const std::int64_t inner = v.integerOr({"intermediate_size"}, 3072, 1, kHfMaxIntermediate);
    const std::int64_t layers = v.integerOr({"num_hidden_layers"}, 12, 1, kHfMaxLayers);
    const std::int64_t image = v.integerOr({"image_size"}, 224, 1, kHfMaxHidden);
    const std::int64_t patch = v.integerOr({"patch_size"}, 16, 1, kHfMaxHidden);
    const std::int64_t channels = v.integerOr({"num_channels"}, 3, 1, 64);
    const std::int64_t patches = (image / patch) * (image / patch);
    const std::int64_t embeddings = channels * patch * patch * w + w + patches * w;
    const std::int64_t layer = 4 * (w * w + w) + (w * inner + inner) + (inner * w + w) + 4 * w;
    const std::int64_t projector = w * textHidden + w;
    return embeddings + layers * layer + 2 * w + projector;
}

// Llama 4 vision encoder: unfold patch embedding without bias, class token,
// learned positions, pre/post LayerNorms, biased encoder layers; a
// pixel-shuffle MLP (intermediate -> projector_input -> projector_output, no
// bias) and a projector from vision_output_dim to the text width (no bias).
std::int64_t llama4VisionParams(ConfigView v, int textHidden) {
    const std::int64_t w = v.integerOr({"hidden_size"}, 768, 1, kHfMaxHidden);
    const std::int64_t inner = v.integerOr({"intermediate_size"}, 3072, 1, kHfMaxIntermediate);
    const std::int64_t layers = v.integerOr({"num_hidden_layers"}, 34, 1, kHfMaxLayers);
    const std::int64_t image = v.integerOr({"image_size"}, 448, 1, kHfMaxHidden);
    const std::int64_t patch = v.integerOr({"patch_size"}, 14, 1, kHfMaxHidden);
    const std::int64_t channels = v.integerOr({"num_channels"}, 3, 1, 64);
    const std::int64_t projectorIn = v.integerOr({"projector_input_dim"}, 4096, 1, kHfMaxIntermediate);
    const std::int64_t projectorOut = v.integerOr({"projector_output_dim"}, 4096, 1, kHfMaxIntermediate);
    const std::int64_t outputDim = v.integerOr({"vision_output_dim"}, 7680, 1, kHfMaxIntermediate);
    const std::int64_t patches = (image / patch) * (image / patch);
    const std::int64_t embeddings = channels * patch * patch * w + w + (patches + 1) * w + 4 * w;
    const std::int64_t layer = 4 * (w * w + w) + (w * inner + inner) + (inner * w + w) + 4 * w;
    const std::int64_t adapter = inner * projectorIn + projectorOut * projectorOut;
    return embeddings + layers * layer + adapter + outputDim * textHidden;
}

// Pixtral (Mistral Small 3.x, Ministral 3, Devstral Small 2): conv patch
// embedding without bias, an RMSNorm before the layers, layers with q/k/v/o
// and a gated MLP without biases and two RMSNorms (positions are 2-D RoPE, no
// table). Mistral3MultiModalProjector: an RMSNorm over the vision width, the
// patch merger (spatial_merge_size^2 x width -> width) and two linears to the
// text width, biased when multimodal_projector_bias. Defaults are
// PixtralVisionConfig's and Mistral3Config's.
std::int64_t pixtralVisionParams(ConfigView v, int textHidden, int mergeSize, bool projectorBias) {
    const std::int64_t w = v.integerOr({"hidden_size"}, 1024, 1, kHfMaxHidden);
    const std::int64_t inner = v.integerOr({"intermediate_size"}, 4096, 1, kHfMaxIntermediate);
    const std::int64_t layers = v.integerOr({"num_hidden_layers"}, 24, 1, kHfMaxLayers);
    const std::int64_t patch = v.integerOr({"patch_size"}, 16, 1, kHfMaxHidden);
    const std::int64_t channels = v.integerOr({"num_channels"}, 3, 1, 64);
    const std::int64_t text = textHidden;
    const std::int64_t tower = channels * patch * patch * w + w + layers * (4 * w * w + 3 * w * inner + 2 * w);
    const std::int64_t merger = std::int64_t(mergeSize) * mergeSize * w * w;
    const std::int64_t projector = w + merger + w * text + text * text + (projectorBias ? 2 * text : 0);
    return tower + projector;
}

// Gemma 4 (Gemma4VisionModel + Gemma4MultimodalEmbedder): a linear patch
// embedding without bias, a 2-D learned position table (2 x
// position_embedding_size rows), layers of q/k/v/o and a gated MLP without
// biases with per-head q/k norms and four RMSNorms, the standardize bias and
// scale, and a vision x text projection. Defaults are Gemma4VisionConfig's.
std::int64_t gemma4VisionParams(ConfigView v, int textHidden) {
    const std::int64_t w = v.integerOr({"hidden_size"}, 768, 1, kHfMaxHidden);
    const std::int64_t inner = v.integerOr({"intermediate_size"}, 3072, 1, kHfMaxIntermediate);
    const std::int64_t layers = v.integerOr({"num_hidden_layers"}, 16, 1, kHfMaxLayers);
    const std::int64_t heads = v.integerOr({"num_attention_heads"}, 12, 1, kHfMaxHeads);
    const std::int64_t kvHeads = v.integerOr({"num_key_value_heads"}, heads, 1, kHfMaxHeads);
    const std::int64_t headDim = v.integerOr({"head_dim"}, 64, 1, kHfMaxHidden);
    const std::int64_t patch = v.integerOr({"patch_size"}, 16, 1, kHfMaxHidden);
    const std::int64_t positions = v.integerOr({"position_embedding_size"}, 10240, 1, kHfMaxPositions);
    const std::int64_t attention = w * heads * headDim * 2 + w * kvHeads * headDim * 2;
    const std::int64_t layer = attention + 3 * w * inner + 2 * headDim + 4 * w;
    const std::int64_t embeddings = 3 * patch * patch * w + 2 * positions * w;
    const std::int64_t standardize = v.flag("standardize", false) ? 2 * w : 0;
    return embeddings + layers * layer + standardize + w * textHidden;
}

namespace {

int mllamaPatchTokens(ConfigView& v) {  // patches of one tile plus the class token
    const std::int64_t image = v.integerOr({"image_size"}, 560, 1, kHfMaxHidden);
    const std::int64_t patch = v.integerOr({"patch_size"}, 14, 1, kHfMaxHidden);
    return static_cast<int>((image / patch) * (image / patch) + 1);
}

}  // namespace

// Mllama vision tower: conv patch embedding without bias, class token, gated
// position and tile embeddings per aspect-ratio id, local and gated global
// encoder layers (q/k/v/o without bias, biased MLP, two LayerNorms), pre/post
// LayerNorms, and a biased projector from vision_output_dim to the text width.
std::int64_t mllamaVisionParams(ConfigView v, int textHidden) {
    const std::int64_t w = v.integerOr({"hidden_size"}, 1280, 1, kHfMaxHidden);
    const std::int64_t inner = v.integerOr({"intermediate_size"}, 5120, 1, kHfMaxIntermediate);
    const std::int64_t layers = v.integerOr({"num_hidden_layers"}, 32, 1, kHfMaxLayers);
    const std::int64_t globalLayers = v.integerOr({"num_global_layers"}, 8, 0, kHfMaxLayers);
    const std::int64_t patch = v.integerOr({"patch_size"}, 14, 1, kHfMaxHidden);
    const std::int64_t channels = v.integerOr({"num_channels"}, 3, 1, 64);
    const std::int64_t tiles = v.integerOr({"max_num_tiles"}, 4, 1, 64);
    const std::int64_t outputDim = v.integerOr({"vision_output_dim"}, 7680, 1, kHfMaxIntermediate);
    auto ratios = v.json().find("supported_aspect_ratios");
    const std::int64_t ratioIds = 1 + (ratios != v.json().end() && ratios->is_array() ? std::int64_t(ratios->size()) : 8);
    const std::int64_t tokens = mllamaPatchTokens(v);
    const std::int64_t embeddings = channels * patch * patch * w + w + 1 + tokens * w + ratioIds * tiles * tokens * w +
                                    2 * (ratioIds * tiles * w + 1) + 4 * w;
    const std::int64_t layer = 4 * w * w + (w * inner + inner) + (inner * w + w) + 4 * w;
    const std::int64_t projector = outputDim * textHidden + textHidden;
    return embeddings + layers * layer + globalLayers * (layer + 2) + projector;
}

int mllamaImageTokens(ConfigView v) {
    const std::int64_t tiles = v.integerOr({"max_num_tiles"}, 4, 1, 64);
    return static_cast<int>(tiles * mllamaPatchTokens(v));
}

}  // namespace caliper::io
