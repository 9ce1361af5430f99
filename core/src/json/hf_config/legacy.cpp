// Older decoder families and encoder-decoders, with their own key names.
#include "json/hf_config/config_view.hpp"

namespace caliper::io {

namespace {

// GELU MLPs of this era are 4x the hidden size when the config gives none.
constexpr int kClassicMlpRatio = 4;

void classicLayerNormModel(ModelSpec& m) {
    m.norm = NormKind::LayerNorm;
    m.mlp = MlpKind::Plain;
}

}  // namespace

// GPT-NeoX: parallel residual with two LayerNorms per layer, biases
// everywhere, untied input and output embeddings.
void readGptNeox(ConfigView& c, ModelSpec& m) {
    readDecoder(c, m);
    classicLayerNormModel(m);
    m.parallelBlock = c.flag("use_parallel_residual", true);
    m.qkvBias = m.attnOutBias = c.flag("attention_bias", true);
    m.mlpBias = true;
}

// BLOOM: ALiBi, LayerNorm after the embedding, tied embeddings.
void readBloom(ConfigView& c, ModelSpec& m) {
    DecoderKeys keys;
    keys.hidden = {"hidden_size", "n_embed"};
    keys.layers = {"n_layer", "num_hidden_layers"};
    keys.heads = {"n_head", "num_attention_heads"};
    keys.intermediateRequired = false;
    keys.positions = {"seq_length"};
    keys.tiedByDefault = true;
    readDecoder(c, m, keys);
    m.intermediateSize = kClassicMlpRatio * m.hiddenSize;
    if (m.maxContext == 0) m.maxContext = 2048;  // BLOOM model card: trained on 2,048-token sequences
    classicLayerNormModel(m);
    m.position = PositionKind::Alibi;
    m.embeddingNorm = true;
    m.qkvBias = m.attnOutBias = m.mlpBias = true;
}

// Falcon: parallel attention and MLP. new_decoder_architecture (40B, 180B)
// has KV groups and two input norms; the 7B has one K/V head and one norm.
void readFalcon(ConfigView& c, ModelSpec& m) {
    DecoderKeys keys;
    keys.hidden = {"hidden_size", "n_embed"};
    keys.layers = {"num_hidden_layers", "n_layer"};
    keys.heads = {"num_attention_heads", "n_head"};
    keys.kvHeads = {"num_kv_heads", "n_head_kv"};
    keys.intermediateRequired = false;
    keys.tiedByDefault = true;
    readDecoder(c, m, keys);
    m.intermediateSize = c.integerOr({"ffn_hidden_size"}, kClassicMlpRatio * m.hiddenSize, 1, kHfMaxIntermediate);
    if (m.maxContext == 0) m.maxContext = 2048;  // FalconConfig default max_position_embeddings
    classicLayerNormModel(m);
    const bool newArchitecture = c.flag("new_decoder_architecture", m.family == "refinedweb");
    m.parallelBlock = c.flag("parallel_attn", true);
    if (newArchitecture) {
        m.normsPerLayer = c.integerOr({"num_ln_in_parallel_attn"}, 2, 1, 2);
    } else {
        if (c.flag("multi_query", true)) m.kvHeads = 1;
        m.normsPerLayer = m.parallelBlock ? 1 : 2;
    }
    m.qkvBias = m.attnOutBias = m.mlpBias = c.flag("bias", false);
    if (c.flag("alibi", false)) m.position = PositionKind::Alibi;
    setAttentionKind(m);
}

// GPT-J: parallel block with one LayerNorm, no attention biases, an lm_head
// with a bias vector (extraParams).
void readGptJ(ConfigView& c, ModelSpec& m) {
    DecoderKeys keys;
    keys.hidden = {"n_embd"};
    keys.layers = {"n_layer"};
    keys.heads = {"n_head"};
    keys.intermediateRequired = false;
    keys.positions = {"n_positions"};
    readDecoder(c, m, keys);
    m.intermediateSize = c.integerOr({"n_inner"}, kClassicMlpRatio * m.hiddenSize, 1, kHfMaxIntermediate);
    classicLayerNormModel(m);
    m.parallelBlock = true;
    m.normsPerLayer = 1;
    m.mlpBias = true;
    m.extraParams += m.vocabSize;
}

// GPTBigCode (StarCoder): multi-query attention, learned positions, biases.
void readGptBigCode(ConfigView& c, ModelSpec& m) {
    DecoderKeys keys;
    keys.hidden = {"n_embd"};
    keys.layers = {"n_layer"};
    keys.heads = {"n_head"};
    keys.intermediateRequired = false;
    keys.positions = {"n_positions"};
    keys.tiedByDefault = true;
    readDecoder(c, m, keys);
    m.intermediateSize = c.integerOr({"n_inner"}, kClassicMlpRatio * m.hiddenSize, 1, kHfMaxIntermediate);
    classicLayerNormModel(m);
    if (c.flag("multi_query", true)) m.kvHeads = 1;
    m.position = PositionKind::Learned;
    m.qkvBias = m.attnOutBias = m.mlpBias = true;
    setAttentionKind(m);
}

// ChatGLM / GLM-4 remote code: num_layers, ffn_hidden_size, kv_channels,
// multi_query_group_num KV groups, padded_vocab_size, seq_length.
void readChatGlm(ConfigView& c, ModelSpec& m) {
    DecoderKeys keys;
    keys.layers = {"num_layers", "num_hidden_layers"};
    keys.intermediate = {"ffn_hidden_size", "intermediate_size"};
    keys.vocab = {"padded_vocab_size", "vocab_size"};
    keys.positions = {"seq_length", "max_position_embeddings"};
    readDecoder(c, m, keys);
    if (c.flag("multi_query_attention", false)) {
        m.kvHeads = c.integerOr({"multi_query_group_num"}, 1, 1, kHfMaxHeads);
    }
    m.headDim = c.integerOr({"kv_channels"}, m.headDim, 1, kHfMaxHidden);
    m.qkvBias = c.flag("add_qkv_bias", false);
    m.attnOutBias = m.mlpBias = c.flag("add_bias_linear", false);
    if (!c.flag("rmsnorm", true)) m.norm = NormKind::LayerNorm;
    setAttentionKind(m);
}

// Qwen (first generation): fused c_attn with bias; intermediate_size is the
// sum of the two SwiGLU input projections, so each is half of it.
void readQwenV1(ConfigView& c, ModelSpec& m) {
    DecoderKeys keys;
    keys.positions = {"max_position_embeddings", "seq_length"};
    readDecoder(c, m, keys);
    m.intermediateSize = std::max(1, m.intermediateSize / 2);
    m.headDim = c.integerOr({"kv_channels"}, m.headDim, 1, kHfMaxHidden);
    m.qkvBias = true;
}

// Baichuan / Baichuan 2: Llama layers with a fused W_pack; the 13B models use
// ALiBi and their configs carry model_max_length instead of
// max_position_embeddings.
void readBaichuan(ConfigView& c, ModelSpec& m) {
    DecoderKeys keys;
    keys.positions = {"max_position_embeddings", "model_max_length"};
    readDecoder(c, m, keys);
    if (!c.has("max_position_embeddings")) m.position = PositionKind::Alibi;
}

// T5 / mT5: decoder layers as `layers`, encoder layers of the same shape,
// one cross-attention block per decoder layer; relative position buckets
// (buckets x heads per stack) and the encoder's final norm in extraParams.
void readT5(ConfigView& c, ModelSpec& m) {
    DecoderKeys keys;
    keys.hidden = {"d_model"};
    keys.layers = {"num_decoder_layers", "num_layers"};
    keys.heads = {"num_heads"};
    keys.intermediate = {"d_ff"};
    keys.positions = {"n_positions"};
    keys.tiedByDefault = true;
    readDecoder(c, m, keys);
    m.encoderLayers = c.integerOr({"num_layers"}, m.layers, 0, kHfMaxLayers);
    m.crossAttentionLayers = m.layers;
    m.headDim = c.integerOr({"d_kv"}, m.headDim, 1, kHfMaxHidden);
    const std::string activation = c.text("feed_forward_proj");
    m.mlp = activation.rfind("gated", 0) == 0 ? MlpKind::Gated : MlpKind::Plain;
    m.position = PositionKind::Relative;
    if (m.maxContext == 0) m.maxContext = 512;  // T5Config default n_positions
    m.crossAttentionTokens = static_cast<int>(m.maxContext);
    const int buckets = c.integerOr({"relative_attention_num_buckets"}, 32, 0, kHfMaxPositions);
    m.extraParams += 2LL * buckets * m.heads + m.hiddenSize;
}

// Whisper: decoder as `layers`, encoder_layers of the same shape, a
// cross-attention block per decoder layer; extraParams holds the conv stem,
// the encoder position table and final LayerNorm, and the q/v projection
// biases (Whisper's k projection has none, so qkv_bias stays false).
void readWhisper(ConfigView& c, ModelSpec& m) {
    DecoderKeys keys;
    keys.hidden = {"d_model"};
    keys.layers = {"decoder_layers"};
    keys.heads = {"decoder_attention_heads"};
    keys.intermediate = {"decoder_ffn_dim"};
    keys.positions = {"max_target_positions"};
    keys.tiedByDefault = true;
    readDecoder(c, m, keys);
    m.encoderLayers = c.need({"encoder_layers"}, kHfMaxLayers);
    c.throwIfMissing();
    classicLayerNormModel(m);
    m.attnOutBias = m.mlpBias = true;
    m.position = PositionKind::Learned;
    m.crossAttentionLayers = m.layers;
    m.modality = "speech";
    const std::int64_t h = m.hiddenSize;
    const std::int64_t mels = c.integerOr({"num_mel_bins"}, 80, 1, kHfMaxHidden);
    const std::int64_t frames = c.integerOr({"max_source_positions"}, 1500, 1, kHfMaxPositions);
    m.crossAttentionTokens = static_cast<int>(frames);
    const std::int64_t encoderFfn = c.integerOr({"encoder_ffn_dim"}, m.intermediateSize, 1, kHfMaxIntermediate);
    const std::int64_t attentionBlocks = m.encoderLayers + 2LL * m.layers;
    m.extraParams += (mels * h * 3 + h) + (h * h * 3 + h)  // two conv layers with bias
                     + frames * h + 2 * h                   // encoder positions, final LayerNorm
                     + attentionBlocks * 2 * h              // q and v biases
                     + m.encoderLayers * (2 * h + 1) * (encoderFfn - m.intermediateSize);
}

}  // namespace caliper::io
