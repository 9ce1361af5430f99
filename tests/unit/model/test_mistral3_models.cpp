// Mistral3ForConditionalGeneration releases of late 2025 (Ministral 3,
// Devstral Small 2) and LFM2 2.6B: parameter counts against the model cards,
// KV bytes against config.json arithmetic, the Pixtral encoder counted from
// vision_config, and the names people type.
#include <catch2/catch.hpp>

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "caliper/model.hpp"
#include "catalog_fixture.hpp"
#include "hf_config_fixture.hpp"

using caliper::test::catalogModel;
using caliper::countParams;
using caliper::kvBytesPerToken16;
using caliper::linearStateBytesPerSequence16;
using caliper::ModelSpec;
using Json = nlohmann::json;

namespace {

ModelSpec fromConfig(const std::string& name) {
    std::vector<caliper::Warning> warnings;
    ModelSpec m = caliper::test::modelFromFixture(name, &warnings);
    CHECK(warnings.empty());
    return m;
}

// The Pixtral encoder of Mistral3ForConditionalGeneration (PixtralVisionModel +
// Mistral3MultiModalProjector, no biases): hidden 1,024, 24 layers of q/k/v/o
// and a gated MLP of 4,096 with two RMSNorms, a 14 x 14 conv patch embedding
// and ln_pre; the projector's RMSNorm, a 2 x 2 patch merger and 1,024 -> text
// -> text linears.
double pixtral(double text) {
    const double tower = 24.0 * (4 * 1024.0 * 1024 + 3 * 1024.0 * 4096 + 2 * 1024) + 3 * 14 * 14 * 1024.0 + 1024;
    return tower + 1024 + 4 * 1024.0 * 1024 + 1024 * text + text * text;
}

}  // namespace

TEST_CASE("Ministral 3 language models match the model cards", "[params][catalog][ministral3]") {
    // Megatron-Bridge Ministral3ModelProvider3B/8B/14B: hidden 3,072 / 4,096 /
    // 5,120, ffn 9,216 / 14,336 / 16,384, 26 / 34 / 40 layers, 32 heads, 8 KV
    // heads of 128, vocabulary 131,072; only the 3B ties its embeddings.
    // Per layer: q and o (hidden x 4,096 each), k and v (hidden x 1,024 each),
    // the gated MLP (3 x hidden x ffn) and two norms.
    const double lm3 = 26.0 * (2 * 3072 * 4096.0 + 2 * 3072 * 1024.0 + 3 * 3072 * 9216.0 + 2 * 3072) + 131072.0 * 3072 + 3072;
    const double lm8 = 34.0 * (2 * 4096 * 4096.0 + 2 * 4096 * 1024.0 + 3 * 4096 * 14336.0 + 2 * 4096) + 2 * 131072.0 * 4096 + 4096;
    const double lm14 = 40.0 * (2 * 5120 * 4096.0 + 2 * 5120 * 1024.0 + 3 * 5120 * 16384.0 + 2 * 5120) + 2 * 131072.0 * 5120 + 5120;
    CHECK(lm3 == 3429006336.0);
    CHECK(countParams(catalogModel("ministral-3-3b")).total == lm3 + pixtral(3072));
    CHECK(countParams(catalogModel("ministral-3-8b")).total == lm8 + pixtral(4096));
    CHECK(countParams(catalogModel("ministral-3-14b")).total == lm14 + pixtral(5120));
    // Model cards: 3.4B, 8.4B and 13.5B language models (truncated to one
    // decimal), each with a 0.4B vision encoder.
    CHECK(lm3 / 1e8 == Approx(34.29).margin(0.01));
    CHECK(lm8 / 1e8 == Approx(84.90).margin(0.01));
    CHECK(lm14 / 1e8 == Approx(135.06).margin(0.01));
    for (const double text : {3072.0, 4096.0, 5120.0}) CHECK(pixtral(text) / 1e9 == Approx(0.4).margin(0.05));
    // Devstral Small 2: the Mistral Small 3 text layers (as Devstral Small 2507) plus the same encoder.
    CHECK(countParams(catalogModel("devstral-small-2")).total ==
          countParams(catalogModel("devstral-small-2507")).total + pixtral(5120));
}

TEST_CASE("Ministral 3, Devstral Small 2 and LFM2 2.6B cache KV as their configs say", "[params][kv][ministral3][lfm2]") {
    // 2 (K and V) x layers x 8 KV heads x 128 x 2 bytes; no sliding window (sliding_window null).
    CHECK(kvBytesPerToken16(catalogModel("ministral-3-3b")) == 2 * 26 * 8 * 128 * 2);
    CHECK(kvBytesPerToken16(catalogModel("ministral-3-8b")) == 2 * 34 * 8 * 128 * 2);
    CHECK(kvBytesPerToken16(catalogModel("ministral-3-14b")) == 2 * 40 * 8 * 128 * 2);
    CHECK(kvBytesPerToken16(catalogModel("devstral-small-2")) == 163840);
    // LFM2-2.6B: 8 attention layers of 30 (model card), 8 KV heads of 64; the
    // 22 conv layers keep conv_L_cache - 1 = 2 inputs of 2,048 channels.
    const ModelSpec& lfm = catalogModel("lfm2-2.6b");
    CHECK(kvBytesPerToken16(lfm) == 2 * 8 * 8 * 64 * 2);
    CHECK(linearStateBytesPerSequence16(lfm) == 22 * 2 * 2048 * 2);
    // Model card: 2,569,272,320 parameters (embedding 65,536 x 2,048 tied, 30
    // SwiGLU MLPs of 10,752, 22 conv and 8 attention mixers).
    CHECK(countParams(lfm).total == 2569272320.0);
}

TEST_CASE("mistral3 and ministral3 config.json files read their decoder and Pixtral encoder", "[hf_config][ministral3]") {
    // mistralai/Mistral-Small-3.1-24B-Instruct-2503 config.json: the Pixtral
    // encoder computed from vision_config matches the catalog entry's extra_params.
    const ModelSpec small = fromConfig("mistral-small-3.1-24b");
    CHECK(small.extraParams == pixtral(5120));
    CHECK(small.extraParams == catalogModel("mistral-small-3.1-24b").extraParams);
    CHECK(small.modality == "vision");
    // A Ministral3ForCausalLM of the 3B shape (ERNIE-Image's prompt enhancer,
    // pe/config.json): tie_word_embeddings true, so the catalog's language model.
    const ModelSpec three = fromConfig("custom-ministral-3-3b-text");
    CHECK(three.tiedEmbeddings);
    CHECK(countParams(three).total == countParams(catalogModel("ministral-3-3b")).total - pixtral(3072));
    CHECK(kvBytesPerToken16(three) == kvBytesPerToken16(catalogModel("ministral-3-3b")));
    // Devstral Small 2's text config: ministral3, FP8 per-tensor (no weight_block_size).
    const ModelSpec devstral = fromConfig("custom-devstral-small-2-text");
    CHECK(devstral.nativeWeights == caliper::WeightFormat::Fp8);
    CHECK(devstral.nativeDtype == catalogModel("devstral-small-2").nativeDtype);
    CHECK(countParams(devstral).total == countParams(catalogModel("devstral-small-2")).total - pixtral(5120));
    CHECK(devstral.maxContext == 393216);  // YaRN 48 x 8,192; the catalog keeps the cards' 256k
}

TEST_CASE("Ministral 3, Devstral Small 2, LFM2 2.6B and MiniMax-M2.1 resolve by the names people type", "[catalog][names]") {
    const caliper::Catalog& catalog = caliper::test::projectCatalog();
    const std::vector<std::pair<std::string, std::string>> names = {
        {"mistralai/Ministral-3-3B-Instruct-2512", "ministral-3-3b"},
        {"ministral-3:8b", "ministral-3-8b"},
        {"mistralai/Ministral-3-14B-Reasoning-2512", "ministral-3-14b"},
        {"mistralai/Devstral-Small-2-24B-Instruct-2512", "devstral-small-2"},
        {"LiquidAI/LFM2-2.6B", "lfm2-2.6b"},
        {"ministral-8b", "ministral-8b-2410"},  // the 2024 Ministral keeps its name
        {"MiniMaxAI/MiniMax-M2.1", "minimax-m2"},  // same config.json shape as M2
    };
    for (const auto& [name, id] : names) {
        INFO(name);
        const ModelSpec* m = caliper::findModel(catalog, name);
        REQUIRE(m != nullptr);
        CHECK(m->id == id);
    }
}
