// Entry point for Hugging Face config.json objects: recognise the family,
// read it, check the result.
#include "json/hf_config/hf_config.hpp"

#include <cctype>

#include "json/hf_config/config_view.hpp"

namespace caliper::io {

namespace {

std::string lowerCase(std::string text) {
    for (char& ch : text) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return text;
}

// The model_type, or one derived from architectures[0] for configs that lack
// it (early Falcon "RWForCausalLM", remote-code models).
std::string modelType(const Json& config) {
    auto type = config.find("model_type");
    if (type != config.end() && type->is_string()) return lowerCase(type->get<std::string>());
    auto arch = config.find("architectures");
    if (arch != config.end() && arch->is_array() && !arch->empty() && (*arch)[0].is_string()) {
        std::string name = lowerCase((*arch)[0].get<std::string>());
        for (const char* suffix : {"forcausallm", "forconditionalgeneration", "lmheadmodel", "model"}) {
            const std::string s = suffix;
            if (name.size() > s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0) {
                return name.substr(0, name.size() - s.size());
            }
        }
        return name;
    }
    return "";
}

std::string displayName(const Json& config, const std::string& type) {
    auto name = config.find("_name_or_path");
    if (name != config.end() && name->is_string() && !name->get<std::string>().empty()) {
        return name->get<std::string>().substr(0, 200);
    }
    return type.empty() ? "custom model" : type + " model";
}

void checkShape(const ModelSpec& m, const std::string& path) {
    if (m.kvHeads > m.heads && m.attention != AttentionKind::Mla) {
        fail("invalid_config", path + "/num_key_value_heads", "more KV heads than attention heads");
    }
    if (m.moe.experts > 0 && m.moe.expertsPerToken > m.moe.experts) {
        fail("invalid_config", path + "/num_experts_per_tok", "more experts per token than experts");
    }
    if (m.moe.experts > 0 && m.moe.expertIntermediateSize <= 0) {
        fail("invalid_config", path + "/moe_intermediate_size", "config.json lacks the expert width");
    }
}

}  // namespace

bool looksLikeHfConfig(const Json& object) {
    if (!object.is_object()) return false;
    auto type = object.find("model_type");
    if (type != object.end() && type->is_string()) return true;
    auto arch = object.find("architectures");
    return arch != object.end() && arch->is_array();
}

ModelSpec modelFromHfConfig(const Json& config, const std::string& path, std::vector<Warning>* warnings) {
    if (!config.is_object()) failType("invalid_config", path, "a config.json object", config);
    const std::string type = modelType(config);
    ModelSpec m;
    m.id = "custom";
    m.name = displayName(config, type);
    m.hfId = m.name == type + " model" ? "" : m.name;
    m.family = type;
    m.nativeDtype = nativeDtype(config);
    m.nativeWeights = nativeWeights(config);
    m.confidence = "medium";
    m.sources = {"config.json given in the request"};

    ConfigView view(config, path);
    FamilyReader reader = familyReader(type);
    if (!reader) reader = hybridFamilyReader(type);
    const bool known = reader != nullptr;
    if (!known) reader = familyReader("llama");
    // Multimodal configs of unknown families keep the decoder in text_config.
    const bool nestedText = !view.has("hidden_size") && view.has("text_config") && !known;
    ConfigView decoder = nestedText ? view.nested("text_config") : view;
    reader(decoder, m);
    if (!known) {
        // An unknown family with expert keys is a mixture of experts: read as a
        // dense model it would count one expert's width as the whole MLP.
        const std::string moe = hasMoeKeys(decoder) ? readMoeByKeys(decoder, m) : "";
        if (warnings) {
            warnings->push_back(
                {"unknown_model_type",
                 m.name + ": model_type '" + type.substr(0, 60) + "' is not a known family; read as a Llama-like " +
                     (moe.empty() ? std::string("dense decoder") : "mixture of experts with " + moe) +
                     " from the standard keys (no biases, gated MLP, RMSNorm); check the result against the model card"});
        }
    }
    checkShape(m, path);
    return m;
}

}  // namespace caliper::io
