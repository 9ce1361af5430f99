// ConfigView and the reads every decoder family shares.
#include "json/hf_config/config_view.hpp"

#include <cmath>

namespace caliper::io {

bool ConfigView::has(const char* key) const {
    auto it = config_.find(key);
    return it != config_.end() && !it->is_null();
}

const Json* ConfigView::find(const KeyNames& names, std::string* foundName) const {
    for (const char* name : names) {
        auto it = config_.find(name);
        if (it != config_.end() && !it->is_null()) {
            if (foundName) *foundName = name;
            return &*it;
        }
    }
    return nullptr;
}

std::int64_t ConfigView::checked(const Json& value, const std::string& name, std::int64_t min, std::int64_t max) const {
    const std::string where = childPath(path_, name);
    if (!value.is_number()) failType("invalid_config", where, "an integer", value);
    const double x = value.get<double>();
    if (!std::isfinite(x) || std::floor(x) != x) failType("invalid_config", where, "an integer", value);
    if (x > static_cast<double>(max)) {
        fail("invalid_config", where,
             name + " " + value.dump() + " is beyond the sanity limit of " + std::to_string(max));
    }
    if (x < static_cast<double>(min)) {
        fail("invalid_config", where, "expected " + name + " of at least " + std::to_string(min) + ", got " + value.dump());
    }
    return static_cast<std::int64_t>(x);
}

int ConfigView::need(const KeyNames& names, std::int64_t max) {
    std::string name;
    const Json* value = find(names, &name);
    if (!value) {
        missing_.push_back(names.size() > 0 ? *names.begin() : "?");
        return 0;
    }
    return static_cast<int>(checked(*value, name, 1, max));
}

int ConfigView::integerOr(const KeyNames& names, std::int64_t fallback, std::int64_t min, std::int64_t max) {
    std::string name;
    const Json* value = find(names, &name);
    return static_cast<int>(value ? checked(*value, name, min, max) : fallback);
}

std::int64_t ConfigView::bigIntegerOr(const KeyNames& names, std::int64_t fallback, std::int64_t max) {
    std::string name;
    const Json* value = find(names, &name);
    return value ? checked(*value, name, 1, max) : fallback;
}

bool ConfigView::flag(const char* key, bool fallback) const {
    auto it = config_.find(key);
    if (it == config_.end() || it->is_null()) return fallback;
    if (!it->is_boolean()) failType("invalid_config", childPath(path_, key), "true or false", *it);
    return it->get<bool>();
}

std::string ConfigView::text(const char* key) const {
    auto it = config_.find(key);
    return it != config_.end() && it->is_string() ? it->get<std::string>() : std::string();
}

int ConfigView::countInList(const char* key, const std::string& value) const {
    auto it = config_.find(key);
    if (it == config_.end() || !it->is_array()) return -1;
    int n = 0;
    for (const Json& item : *it) n += item.is_string() && item.get<std::string>() == value ? 1 : 0;
    return n;
}

void ConfigView::throwIfMissing() const {
    if (missing_.empty()) return;
    std::string list;
    for (const std::string& key : missing_) list += (list.empty() ? "" : ", ") + key;
    fail("invalid_config", childPath(path_, missing_.front()),
         "config.json lacks " + list + ", needed to size the model");
}

ConfigView ConfigView::nested(const char* key) const {
    auto it = config_.find(key);
    if (it == config_.end() || it->is_null()) return *this;
    if (!it->is_object()) failType("invalid_config", childPath(path_, key), "an object", *it);
    return ConfigView(*it, childPath(path_, key));
}

void readMlaDims(ConfigView& c, ModelSpec& m) {
    m.mla.kvLoraRank = c.need({"kv_lora_rank"}, kHfMaxHidden);
    m.mla.qkNopeHeadDim = c.need({"qk_nope_head_dim"}, kHfMaxHidden);
    m.mla.qkRopeHeadDim = c.need({"qk_rope_head_dim"}, kHfMaxHidden);
    m.mla.vHeadDim = c.need({"v_head_dim"}, kHfMaxHidden);
    c.throwIfMissing();
    m.mla.qLoraRank = c.integerOr({"q_lora_rank"}, 0, 0, kHfMaxHidden);
    m.headDim = m.mla.vHeadDim;
}

void readDecoder(ConfigView& c, ModelSpec& m, const DecoderKeys& k) {
    m.hiddenSize = c.need(k.hidden, kHfMaxHidden);
    m.layers = k.layersDefault > 0 ? c.integerOr(k.layers, k.layersDefault, 1, kHfMaxLayers) : c.need(k.layers, kHfMaxLayers);
    m.heads = c.need(k.heads, kHfMaxHeads);
    if (k.intermediateRequired) m.intermediateSize = c.need(k.intermediate, kHfMaxIntermediate);
    m.vocabSize = k.vocabDefault > 0 ? c.integerOr(k.vocab, k.vocabDefault, 1, kHfMaxVocab) : c.need(k.vocab, kHfMaxVocab);
    c.throwIfMissing();
    m.kvHeads = c.integerOr(k.kvHeads, m.heads, 1, kHfMaxHeads);  // > heads is rejected by the caller
    m.headDim = c.integerOr({"head_dim"}, m.hiddenSize / m.heads, 1, kHfMaxHidden);
    if (m.headDim == 0) m.headDim = 1;
    m.maxContext = c.bigIntegerOr(k.positions, 0, kHfMaxPositions);
    m.tiedEmbeddings = c.flag("tie_word_embeddings", k.tiedByDefault);
    setAttentionKind(m);
}

// torch_dtype of the release; quantized releases name their format in
// quantization_config (DeepSeek-V3: fp8 blocks, gpt-oss: mxfp4 experts).
std::string nativeDtype(const Json& config) {
    auto quant = config.find("quantization_config");
    if (quant != config.end() && quant->is_object()) {
        auto method = quant->find("quant_method");
        if (method != quant->end() && method->is_string()) {
            const std::string name = method->get<std::string>();
            if (name == "fp8") return "fp8";
            if (name == "mxfp4") return "mxfp4";
        }
    }
    auto dtype = config.find("torch_dtype");
    if (dtype == config.end()) dtype = config.find("dtype");
    const std::string name = dtype != config.end() && dtype->is_string() ? dtype->get<std::string>() : "";
    if (name == "float16") return "fp16";
    if (name == "float32") return "fp32";
    return "bf16";
}

// The checkpoint's quantized format from quantization_config: DeepSeek-V3
// {"quant_method": "fp8", "weight_block_size": [128, 128]} is block FP8,
// gpt-oss "mxfp4", ModelOpt {"quant_method": "modelopt", "quant_algo": "NVFP4"}.
// Mistral's FP8 releases write "weight_block_size": null: per-tensor scales.
std::optional<WeightFormat> nativeWeights(const Json& config) {
    auto quant = config.find("quantization_config");
    if (quant == config.end() || !quant->is_object()) return std::nullopt;
    auto text = [&](const char* key) {
        auto it = quant->find(key);
        return it != quant->end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    const std::string method = text("quant_method");
    if (method == "fp8") {
        // DeepSeek-V4: routed experts packed as MXFP4 beside the FP8 blocks.
        auto experts = config.find("expert_dtype");
        if (experts != config.end() && experts->is_string() && experts->get<std::string>() == "fp4") return WeightFormat::Mxfp4;
        auto block = quant->find("weight_block_size");
        return block != quant->end() && block->is_array() ? WeightFormat::Fp8Block : WeightFormat::Fp8;
    }
    if (method == "mxfp4") return WeightFormat::Mxfp4;
    if (method == "modelopt" && (text("quant_algo") == "NVFP4" || text("quant_algo") == "nvfp4")) return WeightFormat::Nvfp4;
    auto bits = quant->find("bits");
    const bool fourBit = bits == quant->end() || (bits->is_number() && bits->get<double>() == 4);
    if (method == "gptq" && fourBit) return WeightFormat::GptqInt4;
    if (method == "awq" && fourBit) return WeightFormat::AwqInt4;
    return std::nullopt;
}

void setAttentionKind(ModelSpec& m) {
    if (m.mla.kvLoraRank > 0) m.attention = AttentionKind::Mla;
    else if (m.kvHeads == m.heads) m.attention = AttentionKind::Mha;
    else if (m.kvHeads == 1) m.attention = AttentionKind::Mqa;
    else m.attention = AttentionKind::Gqa;
}

}  // namespace caliper::io
