// Hugging Face config.json files, as published, give the same architecture
// as the catalog entry of that model; broken ones are rejected with the key.
#include <catch2/catch.hpp>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "caliper/error.hpp"
#include "catalog_fixture.hpp"
#include "json/hf_config/hf_config.hpp"

using caliper::countParams;
using caliper::kvBytesPerToken16;
using caliper::ModelSpec;
using Json = nlohmann::json;

namespace {

const std::string kConfigs = std::string(CALIPER_FIXTURES_DIR) + "/hf_configs";
const std::string kBadConfigs = std::string(CALIPER_FIXTURES_DIR) + "/hf_configs_bad";

Json readJson(const std::string& path) { return Json::parse(caliper::test::readText(path)); }

ModelSpec fromConfig(const std::string& file, std::vector<caliper::Warning>* warnings = nullptr) {
    std::vector<caliper::Warning> ignored;
    return caliper::io::modelFromHfConfig(readJson(file), "/model", warnings ? warnings : &ignored);
}

caliper::Error configError(const std::string& file) {
    try {
        fromConfig(file);
    } catch (const caliper::InputError& e) {
        return e.error();
    }
    FAIL("accepted " << file);
    return {};
}

void checkSameArchitecture(const ModelSpec& got, const ModelSpec& want) {
    CHECK(got.layers == want.layers);
    CHECK(got.hiddenSize == want.hiddenSize);
    CHECK(got.intermediateSize == want.intermediateSize);
    CHECK(got.heads == want.heads);
    CHECK(got.kvHeads == want.kvHeads);
    CHECK(got.headDim == want.headDim);
    CHECK(got.vocabSize == want.vocabSize);
    CHECK(got.maxContext == want.maxContext);
    CHECK(got.attention == want.attention);
    CHECK(got.moe.experts == want.moe.experts);
    CHECK(got.moe.expertsPerToken == want.moe.expertsPerToken);
    CHECK(got.slidingWindow == want.slidingWindow);
    CHECK(got.slidingLayers == want.slidingLayers);
    CHECK(got.crossAttentionTokens == want.crossAttentionTokens);
    CHECK(got.modality == want.modality);
    const caliper::ParamCounts a = countParams(got);
    const caliper::ParamCounts b = countParams(want);
    CHECK(a.total == b.total);
    CHECK(a.active == b.active);
    CHECK(a.linear == b.linear);
    CHECK(a.expert == b.expert);
    CHECK(a.embedding == b.embedding);
    CHECK(kvBytesPerToken16(got) == kvBytesPerToken16(want));
}

}  // namespace

TEST_CASE("each config.json fixture reads as its catalog entry", "[hf_config]") {
    int compared = 0;
    for (const auto& file : std::filesystem::directory_iterator(kConfigs)) {
        const std::string id = file.path().stem().string();
        if (id.rfind("custom-", 0) == 0) continue;  // not in the catalog; tested below
        INFO(file.path().string());
        const ModelSpec* want = caliper::findModel(caliper::test::projectCatalog(), id);
        REQUIRE(want != nullptr);  // fixtures are named after catalog ids
        REQUIRE(want->id == id);
        std::vector<caliper::Warning> warnings;
        const ModelSpec got = fromConfig(file.path().string(), &warnings);
        CHECK(warnings.empty());
        checkSameArchitecture(got, *want);
        ++compared;
    }
    CHECK(compared >= 18);
}

TEST_CASE("config.json fixtures with a published exact count reproduce it", "[hf_config]") {
    // Exact totals from the Hugging Face safetensors metadata (sources in data/models.json).
    CHECK(countParams(fromConfig(kConfigs + "/llama-2-7b.json")).total == 6738415616.0);
    CHECK(countParams(fromConfig(kConfigs + "/llama-3.1-8b.json")).total == 8030261248.0);
    CHECK(countParams(fromConfig(kConfigs + "/qwen2.5-7b.json")).total == 7615616512.0);
    CHECK(countParams(fromConfig(kConfigs + "/gemma-3-27b.json")).total == 27432406640.0);
    CHECK(countParams(fromConfig(kConfigs + "/llama-4-scout.json")).total == 108641793536.0);
    CHECK(countParams(fromConfig(kConfigs + "/whisper-large-v3.json")).total == 1543490560.0);
    CHECK(countParams(fromConfig(kConfigs + "/llama-3.2-11b-vision.json")).total == 10670220835.0);
    CHECK(countParams(fromConfig(kConfigs + "/gpt-oss-20b.json")).total == 20914757184.0);
    // GPT-NeoX-20B paper and BLOOM model card.
    CHECK(countParams(fromConfig(kConfigs + "/gpt-neox-20b.json")).total == 20554567680.0);
    CHECK(countParams(fromConfig(kConfigs + "/bloom-176b.json")).total == 176247271424.0);
}

TEST_CASE("config.json details: dtype, names and quantized releases", "[hf_config]") {
    // DeepSeek-V3 ships FP8 weights (quantization_config), gpt-oss MXFP4 experts.
    CHECK(fromConfig(kConfigs + "/deepseek-v3.json").nativeDtype == "fp8");
    CHECK(fromConfig(kConfigs + "/gpt-oss-20b.json").nativeDtype == "mxfp4");
    CHECK(fromConfig(kConfigs + "/llama-2-7b.json").nativeDtype == "fp16");
    const ModelSpec llama = fromConfig(kConfigs + "/llama-2-7b.json");
    CHECK(llama.hfId == "meta-llama/Llama-2-7b-hf");
    CHECK(llama.id == "custom");
    CHECK_FALSE(llama.shapeAssumed);
}

TEST_CASE("an unknown model_type with the standard keys reads as a Llama-like decoder", "[hf_config]") {
    std::vector<caliper::Warning> warnings;
    const ModelSpec m = fromConfig(kConfigs + "/custom-unknown-type.json", &warnings);
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0].code == "unknown_model_type");
    CHECK(warnings[0].message.find("my_decoder") != std::string::npos);
    CHECK(m.layers == 16);
    CHECK(m.kvHeads == 4);
    CHECK(m.attention == caliper::AttentionKind::Gqa);
    // 16 x (q,o 2048^2 + k,v 2048 x 512 + 3 x 2048 x 5632 + 2 norms) + 2 x 32000 x 2048 + final norm
    CHECK(countParams(m).total ==
          16.0 * (2.0 * 2048 * 2048 + 2.0 * 2048 * 512 + 3.0 * 2048 * 5632 + 2 * 2048) + 2.0 * 32000 * 2048 + 2048);
}

TEST_CASE("an unknown multimodal model_type is read from its text_config", "[hf_config]") {
    Json config = readJson(kConfigs + "/llama-3.1-8b.json");
    const Json wrapped = {{"model_type", "future_vlm"}, {"text_config", config}};
    std::vector<caliper::Warning> warnings;
    const ModelSpec m = caliper::io::modelFromHfConfig(wrapped, "/model", &warnings);
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0].code == "unknown_model_type");
    CHECK(countParams(m).total == 8030261248.0);  // Llama 3.1 8B, as in its own config
}

TEST_CASE("broken config.json files name the offending key", "[hf_config][errors]") {
    struct Case {
        const char* file;
        const char* path;
        const char* messagePart;
    };
    const Case c = GENERATE(values<Case>({
        {"missing-hidden-size", "/model/hidden_size", "lacks hidden_size"},
        {"missing-several-keys", "/model/hidden_size", "hidden_size, num_hidden_layers, vocab_size"},
        {"string-hidden-size", "/model/hidden_size", "expected an integer, got \"4096\""},
        {"fractional-intermediate-size", "/model/intermediate_size", "expected an integer"},
        {"absurd-hidden-size", "/model/hidden_size", "sanity limit"},
        {"absurd-layers", "/model/num_hidden_layers", "sanity limit"},
        {"absurd-vocab-size", "/model/vocab_size", "sanity limit"},
        {"negative-heads", "/model/num_attention_heads", "at least 1"},
        {"more-kv-heads-than-heads", "/model/num_key_value_heads", "more KV heads"},
        {"nested-string-layers", "/model/text_config/num_hidden_layers", "expected an integer"},
        {"mla-missing-kv-lora-rank", "/model/kv_lora_rank", "lacks kv_lora_rank"},
    }));
    INFO(c.file);
    const caliper::Error error = configError(kBadConfigs + "/" + c.file + ".json");
    INFO(error.path << ": " << error.message);
    CHECK(error.code == "invalid_config");
    CHECK(error.path == c.path);
    CHECK(error.message.find(c.messagePart) != std::string::npos);
}

TEST_CASE("looksLikeHfConfig tells config.json from the catalog shape", "[hf_config]") {
    CHECK(caliper::io::looksLikeHfConfig(readJson(kConfigs + "/mixtral-8x7b.json")));
    CHECK(caliper::io::looksLikeHfConfig(Json{{"architectures", Json::array({"X"})}}));
    CHECK_FALSE(caliper::io::looksLikeHfConfig(Json{{"params_b", 7}}));
    CHECK_FALSE(caliper::io::looksLikeHfConfig(Json::array()));
    const auto catalog = readJson(std::string(CALIPER_DATA_DIR) + "/models.json");
    CHECK_FALSE(caliper::io::looksLikeHfConfig(catalog.at("models").at(0)));
}

TEST_CASE("a config that is not an object is rejected", "[hf_config][errors]") {
    std::vector<caliper::Warning> warnings;
    CHECK_THROWS_AS(caliper::io::modelFromHfConfig(Json::array(), "/model", &warnings), caliper::InputError);
    try {
        caliper::io::modelFromHfConfig(Json{{"model_type", "llama"}}, "/model", &warnings);
        FAIL("accepted an empty llama config");
    } catch (const caliper::InputError& e) {
        CHECK(e.error().code == "invalid_config");
        CHECK(e.error().message.find("hidden_size") != std::string::npos);
    }
}
