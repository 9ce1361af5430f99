// Strict reader and writer for one model (data/README.md, "models.json").
#include "json/catalog/model_json.hpp"

#include <cctype>
#include <cmath>

#include "model/assumed_shape.hpp"
#include "json/catalog/workload_shape_json.hpp"

namespace caliper::io {

namespace {

// Ranges no published model leaves; a value outside is a typo or a unit mix-up.
constexpr std::int64_t kMaxLayers = 10000;
constexpr std::int64_t kMaxHidden = 1000000;
constexpr std::int64_t kMaxIntermediate = 10000000;
constexpr std::int64_t kMaxHeads = 100000;
constexpr std::int64_t kMaxVocab = 10000000;
constexpr std::int64_t kMaxContext = 1000000000;  // tokens
constexpr std::int64_t kMaxCount = 100000000;      // tokens, experts, ... in one field
constexpr std::int64_t kMaxExtraParams = 100000000000000;  // 1e14
constexpr double kMaxParamsB = 100000;                     // 100 trillion parameters
constexpr double kPositive = 1e-12;
// A request's params_b further than this from what its architecture gives is
// reported (the architecture wins).
constexpr double kParamsMismatchShare = 0.05;

const char* const kCatalogKeys[] = {
    "id", "name", "hf_id", "family", "aliases", "modality", "release_year", "license", "native_dtype",
    "params_b", "active_params_b", "params_exact", "layers", "hidden_size", "intermediate_size", "heads",
    "kv_heads", "head_dim", "vocab_size", "max_context", "attention", "mlp", "norm", "position", "qkv_bias",
    "attn_out_bias", "mlp_bias", "qk_norm", "tied_embeddings", "parallel_block", "embedding_norm",
    "norms_per_layer", "sliding_window", "sliding_window_layers", "moe", "mla", "cross_attention_layers",
    "cross_attention_tokens", "encoder_layers", "extra_params", "kv_bytes_per_token", "confidence", "sources",
    "notes", "release_date", "linear_attention", "sparse_attention", "attn_output_gate", "mtp_layers"};

// Reads required keys strictly for catalog entries and optional keys with
// defaults for request objects; the checks on present values are the same.
struct ModelReader {
    ObjectReader r;
    bool catalog;

    ModelReader(const Json& object, const std::string& path, bool catalogEntry)
        : r(object, path, "invalid_value"), catalog(catalogEntry) {
        if (!catalog) return;
        for (const char* key : kCatalogKeys) {  // nullable keys too: a forgotten key is a typo
            if (!object.contains(std::string_view(key))) {
                fail("missing_key", r.pathOf(key), std::string("required key '") + key + "' is missing");
            }
        }
    }
    std::string text(const char* key, const std::string& fallback) {
        return catalog ? r.requiredString(key) : r.optionalString(key, fallback);
    }
    std::int64_t integer(const char* key, std::int64_t min, std::int64_t max, std::int64_t fallback) {
        return catalog ? r.requiredInteger(key, min, max) : r.integerOr(key, fallback, min, max);
    }
    int count(const char* key, std::int64_t min, std::int64_t max, std::int64_t fallback = 0) {
        return static_cast<int>(integer(key, min, max, fallback));
    }
    bool flag(const char* key, bool fallback) { return catalog ? r.requiredBool(key) : r.boolOr(key, fallback); }
    std::string choice(const char* key, const std::string& fallback, std::initializer_list<const char*> allowed) {
        return catalog ? r.requiredEnum(key, allowed) : r.enumOr(key, fallback, allowed);
    }
};

bool isModelId(const std::string& id) {
    if (id.empty() || id.size() > 100) return false;
    for (std::size_t i = 0; i < id.size(); ++i) {
        const unsigned char c = static_cast<unsigned char>(id[i]);
        const bool separator = c == '-' || c == '.';
        if (separator && (i == 0 || i + 1 == id.size() || id[i - 1] == '-' || id[i - 1] == '.')) return false;
        if (!separator && !std::islower(c) && !std::isdigit(c)) return false;
    }
    return true;
}

// "2025-07-28" or "2025-07", in the entry's release_year (when one is given).
bool isReleaseDate(const std::string& date, int year) {
    const bool monthOnly = date.size() == 7;
    if (!monthOnly && date.size() != 10) return false;
    for (std::size_t i = 0; i < date.size(); ++i) {
        const bool dash = i == 4 || i == 7;
        if (dash ? date[i] != '-' : !std::isdigit(static_cast<unsigned char>(date[i]))) return false;
    }
    const int y = std::stoi(date.substr(0, 4));
    const int month = std::stoi(date.substr(5, 2));
    const int day = monthOnly ? 1 : std::stoi(date.substr(8, 2));
    return month >= 1 && month <= 12 && day >= 1 && day <= 31 && (year <= 0 || y == year);
}

void readIdentity(ModelReader& in, ModelSpec& m) {
    m.id = in.text("id", "custom");
    if (!isModelId(m.id)) {
        fail("invalid_value", in.r.pathOf("id"),
             "expected a kebab-case id (a-z, 0-9, single '-' or '.'), got " + describe(Json(m.id)));
    }
    m.name = in.text("name", m.id);
    if (m.name.empty()) fail("invalid_value", in.r.pathOf("name"), "expected a non-empty name");
    m.hfId = in.text("hf_id", "");
    m.family = in.text("family", "");
    m.aliases = in.r.stringList("aliases", in.catalog);
    for (std::size_t i = 0; i < m.aliases.size(); ++i) {
        if (m.aliases[i].empty()) fail("invalid_value", childPath(in.r.pathOf("aliases"), i), "expected a non-empty alias");
    }
    m.modality = in.choice("modality", "text", {"text", "vision", "speech"});
    m.releaseYear = in.count("release_year", 1990, 2100);
    m.releaseDate = in.text("release_date", "");
    if ((in.catalog || !m.releaseDate.empty()) && !isReleaseDate(m.releaseDate, m.releaseYear)) {
        fail("invalid_value", in.r.pathOf("release_date"),
             "expected a release date YYYY-MM-DD or YYYY-MM in release_year " + std::to_string(m.releaseYear) +
                 ", got " + describe(Json(m.releaseDate)));
    }
    m.license = in.text("license", "");
    m.nativeDtype = in.choice("native_dtype", "bf16", {"bf16", "fp16", "fp32", "fp8", "mxfp4"});
    // Optional: the checkpoint's quantized format (null = 16-bit), named as a
    // request's `weights` is.
    const Json* native = in.r.raw("native_weights");
    if (native && !native->is_null()) {
        const auto format = native->is_string() ? weightFormatFromName(native->get<std::string>()) : std::nullopt;
        if (!format) fail("invalid_value", in.r.pathOf("native_weights"), "expected a weight format name or null, got " + describe(*native));
        m.nativeWeights = format;
    } else {
        in.r.ignore("native_weights");
    }
}

AttentionKind attentionKind(const std::string& name) {
    if (name == "mha") return AttentionKind::Mha;
    if (name == "mqa") return AttentionKind::Mqa;
    if (name == "mla") return AttentionKind::Mla;
    return AttentionKind::Gqa;
}

PositionKind positionKind(const std::string& name) {
    if (name == "alibi") return PositionKind::Alibi;
    if (name == "learned") return PositionKind::Learned;
    if (name == "relative") return PositionKind::Relative;
    return PositionKind::Rope;
}

// Architecture numbers; in a request a missing one stays 0 until filled by
// completeArchitecture or assumeModelShape.
void readArchitecture(ModelReader& in, ModelSpec& m, std::string& attention) {
    m.layers = in.count("layers", 1, kMaxLayers);
    m.hiddenSize = in.count("hidden_size", 1, kMaxHidden);
    m.intermediateSize = in.count("intermediate_size", 1, kMaxIntermediate);
    m.heads = in.count("heads", 1, kMaxHeads);
    m.kvHeads = in.count("kv_heads", 1, kMaxHeads);
    m.headDim = in.count("head_dim", 1, kMaxHidden);
    m.vocabSize = in.count("vocab_size", 1, kMaxVocab);
    m.maxContext = in.integer("max_context", 1, kMaxContext, 0);
    attention = in.choice("attention", "", {"mha", "gqa", "mqa", "mla"});
    m.mlp = in.choice("mlp", "gated", {"gated", "plain"}) == "plain" ? MlpKind::Plain : MlpKind::Gated;
    m.norm = in.choice("norm", "rmsnorm", {"rmsnorm", "layernorm"}) == "layernorm" ? NormKind::LayerNorm : NormKind::RmsNorm;
    m.position = positionKind(in.choice("position", "rope", {"rope", "alibi", "learned", "relative"}));
    m.qkvBias = in.flag("qkv_bias", false);
    m.attnOutBias = in.flag("attn_out_bias", false);
    m.mlpBias = in.flag("mlp_bias", false);
    m.qkNorm = in.flag("qk_norm", false);
    m.tiedEmbeddings = in.flag("tied_embeddings", false);
    m.parallelBlock = in.flag("parallel_block", false);
    m.embeddingNorm = in.flag("embedding_norm", false);
    m.normsPerLayer = in.count("norms_per_layer", 0, 8, 2);
    m.slidingWindow = static_cast<int>(in.r.optionalInteger("sliding_window", 1, kMaxContext).value_or(0));
    m.slidingLayers = in.count("sliding_window_layers", 0, kMaxLayers, m.slidingWindow > 0 ? m.layers : 0);
    // Optional in the catalog too: only models that set them apart carry them.
    m.vHeadDim = static_cast<int>(in.r.optionalInteger("v_head_dim", 1, kMaxHidden).value_or(0));
    m.swaKvHeads = static_cast<int>(in.r.optionalInteger("swa_kv_heads", 1, kMaxHeads).value_or(0));
}

void readMoe(ModelReader& in, ModelSpec& m) {
    const Json* value = in.r.raw("moe");
    if (!value || value->is_null()) return;
    ObjectReader moe(*value, in.r.pathOf("moe"), "invalid_value");
    const bool all = in.catalog;
    m.moe.experts = static_cast<int>(moe.requiredInteger("experts", 2, kMaxCount));
    m.moe.expertsPerToken = static_cast<int>(moe.requiredInteger("experts_per_token", 1, m.moe.experts));
    m.moe.expertIntermediateSize = static_cast<int>(moe.requiredInteger("expert_intermediate_size", 1, kMaxIntermediate));
    auto optional = [&](const char* key, std::int64_t min, std::int64_t fallback) {
        return static_cast<int>(all ? moe.requiredInteger(key, min, kMaxLayers) : moe.integerOr(key, fallback, min, kMaxLayers));
    };
    m.moe.sharedExperts = optional("shared_experts", 0, 0);
    m.moe.denseLayers = optional("dense_layers", 0, 0);
    m.moe.layerInterval = optional("layer_interval", 1, 1);
    // Optional everywhere: only models whose always-on MLP is sized apart carry it.
    m.moe.sharedExpertIntermediateSize = static_cast<int>(
        moe.optionalInteger("shared_expert_intermediate_size", 1, kMaxIntermediate).value_or(0));
    m.moe.sharedExpertGate = moe.boolOr("shared_expert_gate", false);
    m.moe.peftFrozenExperts = moe.enumOr("peft_all_linear_experts", "fused", {"fused", "frozen"}) == "frozen";
    moe.finish();
}

void readMla(ModelReader& in, ModelSpec& m) {
    const Json* value = in.r.raw("mla");
    if (!value || value->is_null()) return;
    ObjectReader mla(*value, in.r.pathOf("mla"), "invalid_value");
    m.mla.kvLoraRank = static_cast<int>(mla.requiredInteger("kv_lora_rank", 1, kMaxHidden));
    m.mla.qLoraRank = static_cast<int>(in.catalog ? mla.requiredInteger("q_lora_rank", 0, kMaxHidden)
                                                  : mla.integerOr("q_lora_rank", 0, 0, kMaxHidden));
    m.mla.qkNopeHeadDim = static_cast<int>(mla.requiredInteger("qk_nope_head_dim", 1, kMaxHidden));
    m.mla.qkRopeHeadDim = static_cast<int>(mla.requiredInteger("qk_rope_head_dim", 1, kMaxHidden));
    m.mla.vHeadDim = static_cast<int>(mla.requiredInteger("v_head_dim", 1, kMaxHidden));
    mla.finish();
}

// Hybrid stacks: linear-attention / SSM layers with a fixed state.
void readLinearAttention(ModelReader& in, ModelSpec& m) {
    const Json* value = in.r.raw("linear_attention");
    if (!value || value->is_null()) return;
    ObjectReader l(*value, in.r.pathOf("linear_attention"), "invalid_value");
    const std::string kind = l.requiredEnum("kind", {"gated_deltanet", "mamba2", "short_conv"});
    m.linear.kind = kind == "mamba2"       ? LinearKind::Mamba2
                    : kind == "short_conv" ? LinearKind::ShortConv
                                           : LinearKind::GatedDeltaNet;
    m.linear.layers = static_cast<int>(l.requiredInteger("layers", 1, kMaxLayers));
    m.linear.ffnOnlyLayers = static_cast<int>(in.catalog ? l.requiredInteger("ffn_only_layers", 0, kMaxLayers)
                                                         : l.integerOr("ffn_only_layers", 0, 0, kMaxLayers));
    if (m.linear.kind == LinearKind::ShortConv) {
        // One depthwise convolution over the hidden channels: no heads
        // (widths set from hidden_size once the architecture is complete).
        m.linear.convKernel = static_cast<int>(l.requiredInteger("conv_kernel", 2, 64));
        l.finish();
        return;
    }
    m.linear.keyHeads = static_cast<int>(l.requiredInteger("key_heads", 1, kMaxHeads));
    m.linear.valueHeads = static_cast<int>(l.requiredInteger("value_heads", 1, kMaxHeads));
    m.linear.keyHeadDim = static_cast<int>(l.requiredInteger("key_head_dim", 1, kMaxHidden));
    m.linear.valueHeadDim = static_cast<int>(l.requiredInteger("value_head_dim", 1, kMaxHidden));
    m.linear.convKernel = static_cast<int>(l.requiredInteger("conv_kernel", 1, 64));
    l.finish();
}

// Global layers shaped apart from the sliding-window ones (Gemma 4); optional
// in the catalog too, as only such models carry it.
void readGlobalAttention(ModelReader& in, ModelSpec& m) {
    const Json* value = in.r.raw("global_attention");
    if (!value || value->is_null()) return;
    ObjectReader g(*value, in.r.pathOf("global_attention"), "invalid_value");
    m.global.headDim = static_cast<int>(g.requiredInteger("head_dim", 1, kMaxHidden));
    m.global.kvHeads = static_cast<int>(g.requiredInteger("kv_heads", 1, kMaxHeads));
    m.global.kEqV = g.requiredBool("k_eq_v");
    g.finish();
}

// DeepSeek Sparse Attention indexer.
void readSparseAttention(ModelReader& in, ModelSpec& m) {
    const Json* value = in.r.raw("sparse_attention");
    if (!value || value->is_null()) return;
    ObjectReader x(*value, in.r.pathOf("sparse_attention"), "invalid_value");
    m.sparse.indexHeads = static_cast<int>(x.requiredInteger("index_heads", 1, kMaxHeads));
    m.sparse.indexHeadDim = static_cast<int>(x.requiredInteger("index_head_dim", 1, kMaxHidden));
    m.sparse.indexTopk = static_cast<int>(x.requiredInteger("index_topk", 1, kMaxContext));
    m.sparse.indexLayers = static_cast<int>(x.integerOr("index_layers", 0, 1, kMaxLayers));
    x.finish();
}

// DeepSeek-V4 compressed attention (optional key; data/README.md).
void readCompressedAttention(ModelReader& in, ModelSpec& m) {
    const Json* value = in.r.raw("compressed_attention");
    if (!value || value->is_null()) return;
    ObjectReader x(*value, in.r.pathOf("compressed_attention"), "invalid_value");
    CompressedAttentionSpec& c = m.compressed;
    c.window = static_cast<int>(x.requiredInteger("window", 1, kMaxContext));
    c.qLoraRank = static_cast<int>(x.requiredInteger("q_lora_rank", 1, kMaxHidden));
    c.oLoraRank = static_cast<int>(x.requiredInteger("o_lora_rank", 1, kMaxHidden));
    c.oGroups = static_cast<int>(x.requiredInteger("o_groups", 1, kMaxHeads));
    c.csaLayers = static_cast<int>(x.requiredInteger("csa_layers", 0, kMaxLayers));
    c.csaRatio = static_cast<int>(x.requiredInteger("csa_ratio", 2, kMaxContext));
    c.hcaLayers = static_cast<int>(x.requiredInteger("hca_layers", 0, kMaxLayers));
    c.hcaRatio = static_cast<int>(x.requiredInteger("hca_ratio", 2, kMaxContext));
    c.hcMult = static_cast<int>(x.integerOr("hc_mult", 0, 0, 64));
    c.hashLayers = static_cast<int>(x.integerOr("hash_layers", 0, 0, kMaxLayers));
    x.finish();
}

void readEncoderAndExtras(ModelReader& in, ModelSpec& m) {
    m.attnOutputGate = in.flag("attn_output_gate", false);
    m.mtpLayers = in.count("mtp_layers", 0, 64);
    m.mtpDense = in.r.boolOr("mtp_dense", false);  // optional in the catalog too
    m.crossAttentionLayers = in.count("cross_attention_layers", 0, kMaxLayers);
    m.crossAttentionTokens = in.count("cross_attention_tokens", 0, kMaxCount);
    m.encoderLayers = in.count("encoder_layers", 0, kMaxLayers);
    m.extraParams = in.integer("extra_params", 0, kMaxExtraParams, 0);
}

void readProvenance(ModelReader& in, ModelSpec& m) {
    m.paramsExact = in.r.optionalInteger("params_exact", 1, kMaxExtraParams).value_or(0);
    m.confidence = in.choice("confidence", "medium", {"high", "medium", "low"});
    m.sources = in.r.stringList("sources", in.catalog, in.catalog ? 1 : 0);
    for (std::size_t i = 0; i < m.sources.size(); ++i) {
        if (m.sources[i].empty()) fail("invalid_value", childPath(in.r.pathOf("sources"), i), "expected a non-empty source");
    }
    m.notes = in.text("notes", "");
    m.notesZh = in.r.optionalString("notes_zh");  // optional in the catalog too
}

struct Listing {  // keys a listing carries that the engine recomputes
    std::optional<double> paramsB, activeParamsB;
    std::optional<std::int64_t> kvBytesPerToken;
};

Listing readListing(ModelReader& in) {
    Listing l;
    if (in.catalog) {
        l.paramsB = in.r.requiredNumber("params_b", kPositive, kMaxParamsB);
        l.activeParamsB = in.r.requiredNumber("active_params_b", kPositive, kMaxParamsB);
        l.kvBytesPerToken = in.r.requiredInteger("kv_bytes_per_token", 0, kMaxExtraParams);
        return l;
    }
    l.paramsB = in.r.optionalNumber("params_b", kPositive, kMaxParamsB);
    l.activeParamsB = in.r.optionalNumber("active_params_b", kPositive, kMaxParamsB);
    l.kvBytesPerToken = in.r.optionalInteger("kv_bytes_per_token", 0, kMaxExtraParams);
    in.r.boolOr("shape_assumed", false);  // written by modelToJson; recomputed here
    return l;
}

bool hasArchitecture(const ModelSpec& m) {
    return m.layers > 0 && m.hiddenSize > 0 && m.heads > 0 && m.intermediateSize > 0 && m.vocabSize > 0;
}

std::string missingArchitectureKeys(const ModelSpec& m) {
    std::string out;
    auto add = [&](bool missing, const char* key) {
        if (missing) out += (out.empty() ? "" : ", ") + std::string(key);
    };
    add(m.layers <= 0, "layers");
    add(m.hiddenSize <= 0, "hidden_size");
    add(m.heads <= 0, "heads");
    add(m.intermediateSize <= 0, "intermediate_size");
    add(m.vocabSize <= 0, "vocab_size");
    return out;
}

void completeArchitecture(ModelSpec& m, const std::string& attention) {
    if (m.kvHeads <= 0) m.kvHeads = m.heads;
    if (m.headDim <= 0) m.headDim = std::max(1, m.hiddenSize / m.heads);
    if (!attention.empty()) m.attention = attentionKind(attention);
    else if (m.mla.kvLoraRank > 0) m.attention = AttentionKind::Mla;
    else if (m.kvHeads == m.heads) m.attention = AttentionKind::Mha;
    else if (m.kvHeads == 1) m.attention = AttentionKind::Mqa;
    else m.attention = AttentionKind::Gqa;
    if (m.linear.kind == LinearKind::ShortConv) {  // channels = hidden_size, width 1
        m.linear.valueHeads = m.hiddenSize;
        m.linear.valueHeadDim = 1;
    }
}

void checkConsistency(const ModelReader& in, const ModelSpec& m) {
    const ObjectReader& r = in.r;
    if (m.attention != AttentionKind::Mla && m.kvHeads > m.heads) {
        fail("invalid_value", r.pathOf("kv_heads"), "kv_heads " + std::to_string(m.kvHeads) + " exceeds heads " + std::to_string(m.heads));
    }
    if ((m.attention == AttentionKind::Mla) != (m.mla.kvLoraRank > 0)) {
        fail("invalid_value", r.pathOf("mla"), "attention 'mla' and an mla object go together");
    }
    if (m.slidingLayers > m.layers) fail("invalid_value", r.pathOf("sliding_window_layers"), "more sliding-window layers than layers");
    if (m.sparse.indexLayers > fullAttentionLayers(m)) {
        fail("invalid_value", r.pathOf("sparse_attention") + "/index_layers",
             "more indexer layers than the " + std::to_string(fullAttentionLayers(m)) + " attention layers");
    }
    if (m.crossAttentionLayers > m.layers) fail("invalid_value", r.pathOf("cross_attention_layers"), "more cross-attention layers than layers");
    if (m.linear.layers + m.linear.ffnOnlyLayers > m.layers) {
        fail("invalid_value", r.pathOf("linear_attention") + "/layers",
             "linear-attention layers and ffn_only_layers exceed the " + std::to_string(m.layers) + " layers");
    }
    if (m.global.headDim > 0 && (m.slidingWindow <= 0 || m.attention == AttentionKind::Mla)) {
        fail("invalid_value", r.pathOf("global_attention"),
             "global_attention shapes the layers beside sliding-window ones: it needs sliding_window and no MLA");
    }
    if (m.global.kvHeads > m.heads) {
        fail("invalid_value", r.pathOf("global_attention") + "/kv_heads", "kv_heads exceeds heads " + std::to_string(m.heads));
    }
    if (m.vHeadDim > 0 && (m.attention == AttentionKind::Mla || m.global.headDim > 0)) {
        fail("invalid_value", r.pathOf("v_head_dim"),
             "v_head_dim sets the value width of plain attention: MLA keeps it in mla/v_head_dim, and it does not combine with global_attention");
    }
    if (m.swaKvHeads > 0) {
        if (m.slidingWindow <= 0 || m.slidingLayers <= 0 || m.attention == AttentionKind::Mla || m.global.headDim > 0) {
            fail("invalid_value", r.pathOf("swa_kv_heads"),
                 "swa_kv_heads sets the sliding-window layers' KV heads: it needs sliding_window and sliding_window_layers, "
                 "and no MLA or global_attention");
        }
        if (m.swaKvHeads > m.heads) {
            fail("invalid_value", r.pathOf("swa_kv_heads"),
                 "swa_kv_heads " + std::to_string(m.swaKvHeads) + " exceeds heads " + std::to_string(m.heads));
        }
    }
    if (hasCompressedAttention(m)) {
        const std::string at = r.pathOf("compressed_attention");
        const CompressedAttentionSpec& c = m.compressed;
        if (m.attention != AttentionKind::Mqa || m.kvHeads != 1) {
            fail("invalid_value", at, "compressed_attention caches one shared K=V head per token: it needs attention 'mqa' and kv_heads 1");
        }
        if (m.slidingWindow > 0 || m.linear.layers > 0 || m.global.headDim > 0 || m.crossAttentionLayers > 0) {
            fail("invalid_value", at,
                 "compressed_attention keeps its own window on every layer: it does not combine with sliding_window, "
                 "linear_attention, global_attention or cross-attention");
        }
        if (c.csaLayers + c.hcaLayers > fullAttentionLayers(m)) {
            fail("invalid_value", at + "/csa_layers",
                 "csa_layers and hca_layers exceed the " + std::to_string(fullAttentionLayers(m)) + " attention layers");
        }
        if (c.csaRatio >= c.hcaRatio) {
            fail("invalid_value", at + "/csa_ratio", "csa_ratio must be below hca_ratio (DeepSeek-V4: 4 and 128)");
        }
        if (m.sparse.indexHeads > 0 && m.sparse.indexLayers != c.csaLayers) {
            fail("invalid_value", r.pathOf("sparse_attention") + "/index_layers",
                 "with compressed_attention the indexer sits on the csa_layers: index_layers must be " +
                     std::to_string(c.csaLayers));
        }
        if (c.hashLayers > moeLayerCount(m)) {
            fail("invalid_value", at + "/hash_layers", "more hash-routed layers than MoE layers");
        }
    }
    if (m.mtpDense && m.mtpLayers <= 0) {
        fail("invalid_value", r.pathOf("mtp_dense"), "mtp_dense describes the MTP layers: it needs mtp_layers > 0");
    }
    if (m.moe.experts > 0 && m.moe.denseLayers >= ffnLayers(m)) {
        fail("invalid_value", r.pathOf("moe") + "/dense_layers", "dense_layers must leave at least one MoE layer");
    }
}

void checkListing(const ModelReader& in, const ModelSpec& m, const Listing& l, std::vector<Warning>* warnings) {
    const double kvBytes = kvBytesPerToken16(m);
    if (in.catalog && l.kvBytesPerToken && static_cast<double>(*l.kvBytesPerToken) != kvBytes) {
        fail("invalid_value", in.r.pathOf("kv_bytes_per_token"),
             "kv_bytes_per_token " + std::to_string(*l.kvBytesPerToken) + " disagrees with the architecture (" +
                 std::to_string(static_cast<std::int64_t>(kvBytes)) + ")");
    }
    if (in.catalog || !l.paramsB || !warnings) return;
    const double computedB = countParams(m).total / 1e9;
    if (std::fabs(computedB - *l.paramsB) > kParamsMismatchShare * *l.paramsB) {
        warnings->push_back({"params_b_mismatch", "params_b " + Json(*l.paramsB).dump() + " differs from the " +
                                                      Json(std::round(computedB * 100) / 100).dump() +
                                                      "B that the architecture gives; the architecture is used"});
    }
}

}  // namespace

ModelSpec modelFromJson(const Json& object, const std::string& path, std::vector<Warning>* warnings, bool catalogEntry) {
    ModelReader in(object, path, catalogEntry);
    ModelSpec m;
    std::string attention;
    readIdentity(in, m);
    readArchitecture(in, m, attention);
    readMoe(in, m);
    readMla(in, m);
    readLinearAttention(in, m);
    readSparseAttention(in, m);
    readGlobalAttention(in, m);
    readCompressedAttention(in, m);
    readEncoderAndExtras(in, m);
    readProvenance(in, m);
    readWorkload(in.r, m);
    const Listing listing = readListing(in);
    in.r.finish();

    if (!hasArchitecture(m)) {  // only in requests: the catalog requires every key
        if (!listing.paramsB) {
            fail("missing_key", path + "/params_b",
                 "a model object needs params_b or the architecture keys (missing: " + missingArchitectureKeys(m) + ")");
        }
        const std::string assumed = assumeModelShape(m, *listing.paramsB, listing.activeParamsB);
        if (warnings) warnings->push_back({"model_shape_assumed", assumed});
        return m;
    }
    completeArchitecture(m, attention);
    checkConsistency(in, m);
    checkListing(in, m, listing, warnings);
    return m;
}

}  // namespace caliper::io
