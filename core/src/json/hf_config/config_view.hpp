#pragma once
// Typed, range-checked reads from a Hugging Face config.json (internal to
// hf_config*.cpp). Families spell the same field differently (n_embd,
// d_model, hidden_size), so each read takes the accepted names in order.
// Missing required keys are collected and reported together.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "caliper/model.hpp"
#include "caliper/result.hpp"
#include "json/json_read.hpp"

namespace caliper::io {

using KeyNames = std::vector<const char*>;  // accepted spellings, first found wins

// Sanity limits on config values: beyond them a config is a typo or an attack,
// not a model (the largest published models have hidden 18,432, 126 layers
// and a 262,208-token vocabulary).
constexpr std::int64_t kHfMaxHidden = 1000000;
constexpr std::int64_t kHfMaxLayers = 10000;
constexpr std::int64_t kHfMaxVocab = 10000000;
constexpr std::int64_t kHfMaxHeads = 100000;
constexpr std::int64_t kHfMaxIntermediate = 10000000;
constexpr std::int64_t kHfMaxExperts = 100000;
constexpr std::int64_t kHfMaxPositions = 1000000000;

class ConfigView {
public:
    ConfigView(const Json& config, std::string path) : config_(config), path_(std::move(path)) {}

    bool has(const char* key) const;
    const Json* find(const KeyNames& names, std::string* foundName = nullptr) const;
    const Json& json() const { return config_; }
    const std::string& path() const { return path_; }

    // Required integer: the first present name wins; a missing one is recorded
    // under its first name and 0 returned until throwIfMissing().
    int need(const KeyNames& names, std::int64_t max);
    int integerOr(const KeyNames& names, std::int64_t fallback, std::int64_t min, std::int64_t max);
    std::int64_t bigIntegerOr(const KeyNames& names, std::int64_t fallback, std::int64_t max);
    bool flag(const char* key, bool fallback) const;
    std::string text(const char* key) const;
    int countInList(const char* key, const std::string& value) const;  // entries equal to value, -1 without the list
    void throwIfMissing() const;

    // A nested config (text_config, vision_config) or this one when absent.
    ConfigView nested(const char* key) const;

private:
    std::int64_t checked(const Json& value, const std::string& name, std::int64_t min, std::int64_t max) const;

    const Json& config_;
    std::string path_;
    std::vector<std::string> missing_;
};

// Reads shared by the families: hidden, layers, heads, KV heads, head_dim,
// intermediate, vocabulary, positions, dtype and tied embeddings.
struct DecoderKeys {
    KeyNames hidden = {"hidden_size"};
    KeyNames layers = {"num_hidden_layers"};
    KeyNames heads = {"num_attention_heads"};
    KeyNames kvHeads = {"num_key_value_heads"};
    KeyNames intermediate = {"intermediate_size"};
    KeyNames vocab = {"vocab_size"};
    KeyNames positions = {"max_position_embeddings"};
    bool intermediateRequired = true;
    bool tiedByDefault = false;
    std::int64_t vocabDefault = 0;  // > 0: library default when the config omits it
    std::int64_t layersDefault = 0;  // > 0: the count when the config omits it (a per-layer list's length)
};
void readDecoder(ConfigView& c, ModelSpec& m, const DecoderKeys& keys = DecoderKeys());
// DeepSeek multi-head latent attention: the latent ranks and head sizes (all
// required but q_lora_rank, which V2-Lite omits); the value head is the head size.
void readMlaDims(ConfigView& c, ModelSpec& m);
std::string nativeDtype(const Json& config);
std::optional<WeightFormat> nativeWeights(const Json& config);
void setAttentionKind(ModelSpec& m);

// Gemma 3 and 4 text decoders: tied embeddings, four norms and q/k norms per
// layer, and the library's defaults where the config omits them (256-wide
// heads, 131,072 positions, `vocabDefault` embedding rows).
void readGemmaDecoder(ConfigView& c, ModelSpec& m, std::int64_t vocabDefault);
// Families (json/hf_config/families.cpp). Each fills the architecture of `m`.
using FamilyReader = void (*)(ConfigView& c, ModelSpec& m);
FamilyReader familyReader(const std::string& modelType);
// 2025-2026 families (hybrid.cpp): GLM-4.5, Qwen3-Next/3.5, Nemotron-H,
// DeepSeek-V3.2, GLM-5, MiniMax-M2, Qwen3-VL, Kimi K2.5.
FamilyReader hybridFamilyReader(const std::string& modelType);
// Two-shape stacks (mixed_layers.cpp): Gemma 4 and LFM2.
void readGemma4(ConfigView& c, ModelSpec& m);
void readGemma4Text(ConfigView& c, ModelSpec& m);
void readLfm2(ConfigView& c, ModelSpec& m);
void readMiMoV2Flash(ConfigView& c, ModelSpec& m);
// Unknown families: true when the config has mixture-of-experts keys; the
// reader fills m.moe from them and returns what it read, for the warning.
bool hasMoeKeys(const ConfigView& c);
std::string readMoeByKeys(ConfigView& c, ModelSpec& m);

// Older and encoder-decoder families (hf_config_legacy.cpp).
void readGptNeox(ConfigView& c, ModelSpec& m);
void readBloom(ConfigView& c, ModelSpec& m);
void readFalcon(ConfigView& c, ModelSpec& m);
void readGptJ(ConfigView& c, ModelSpec& m);
void readGptBigCode(ConfigView& c, ModelSpec& m);
void readChatGlm(ConfigView& c, ModelSpec& m);
void readQwenV1(ConfigView& c, ModelSpec& m);
void readBaichuan(ConfigView& c, ModelSpec& m);
void readT5(ConfigView& c, ModelSpec& m);
void readWhisper(ConfigView& c, ModelSpec& m);

// Parameters of vision towers that the decoder formula does not cover.
std::int64_t siglipTowerParams(ConfigView vision, int textHidden);
std::int64_t llama4VisionParams(ConfigView vision, int textHidden);
std::int64_t mllamaVisionParams(ConfigView vision, int textHidden);
std::int64_t pixtralVisionParams(ConfigView vision, int textHidden, int mergeSize, bool projectorBias);
std::int64_t gemma4VisionParams(ConfigView vision, int textHidden);
int mllamaImageTokens(ConfigView vision);  // tokens one image puts in the cross-attention cache

}  // namespace caliper::io
