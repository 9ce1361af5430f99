// The 2026 open-weight releases added to the catalog: parameter counts against
// the published figures, KV bytes per token and per-sequence state against
// the arithmetic of their config.json files (as copied in ai-dynamo/aiconfigurator
// aic-core model_configs, commit 095f58a5).
#include <catch2/catch.hpp>

#include <string>
#include <utility>
#include <vector>

#include "caliper/model.hpp"
#include "catalog_fixture.hpp"
#include "hf_config_fixture.hpp"

using caliper::countParams;
using caliper::kvBytesPerToken16;
using caliper::linearStateBytesPerSequence16;
using caliper::ModelSpec;
using caliper::ParamCounts;
using caliper::test::catalogModel;

namespace {

double billions(double n) { return n / 1e9; }

// The input embedding is a lookup, not a matrix a token multiplies through;
// NVIDIA's "active" figures leave it out (the output head stays in).
double activeWithoutInputEmbedding(const ModelSpec& m) {
    return countParams(m).active - static_cast<double>(m.vocabSize) * m.hiddenSize;
}

}  // namespace

TEST_CASE("2026 releases that keep their predecessor's config.json size like it", "[params][kv][catalog]") {
    // zai-org/GLM-5.1 config.json equals GLM-5's (only transformers_version differs);
    // Kimi-K2.6's text_config and vision_config equal Kimi-K2.5's, and Kimi-K2.7-Code's
    // (nvidia/Kimi-K2.7-Code-NVFP4) equal K2.6's apart from generation defaults; MiniMax-M2.7 keeps
    // M2.5's shape and raises max_position_embeddings to 204,800.
    const std::pair<const char*, const char*> pairs[] = {
        {"glm-5.1", "glm-5"}, {"kimi-k2.6", "kimi-k2.5"}, {"kimi-k2.7-code", "kimi-k2.6"},
        {"minimax-m2.7", "minimax-m2.5"}};
    for (const auto& [id, earlier] : pairs) {
        INFO(id);
        const ParamCounts now = countParams(catalogModel(id));
        const ParamCounts before = countParams(catalogModel(earlier));
        CHECK(now.total == before.total);
        CHECK(now.active == before.active);
        CHECK(kvBytesPerToken16(catalogModel(id)) == kvBytesPerToken16(catalogModel(earlier)));
    }
    CHECK(catalogModel("minimax-m2.7").maxContext == 204800);
    // MiniMax-M2.7: 62 layers x 2 (K, V) x 8 KV heads x 128 x 2 B = 253,952 B per token.
    CHECK(kvBytesPerToken16(catalogModel("minimax-m2.7")) == 62 * 2 * 8 * 128 * 2);
    // Kimi-K2.6 (MLA): 61 layers x (kv_lora_rank 512 + qk_rope_head_dim 64) x 2 B = 70,272 B.
    CHECK(kvBytesPerToken16(catalogModel("kimi-k2.6")) == 61 * (512 + 64) * 2);
    // Kimi-K2.6 ships its routed experts in INT4 (W4A16, group 32) like K2.5, and so
    // does K2.7-Code (SGLang cookbook: "the native INT4 checkpoint").
    CHECK(catalogModel("kimi-k2.6").nativeWeights == caliper::WeightFormat::Int4W4a16);
    CHECK(catalogModel("kimi-k2.7-code").nativeWeights == caliper::WeightFormat::Int4W4a16);
}

TEST_CASE("GLM-5.1 matches NVIDIA's published parameter count with its MTP layer", "[params][catalog]") {
    // NVIDIA NIM model card z-ai/glm5.1: 754B parameters. The checkpoint holds the
    // 744B model plus one MTP layer (MLA + indexer + 256 experts, ~9.95B).
    const ParamCounts p = countParams(catalogModel("glm-5.1"));
    CHECK(billions(p.total + p.mtp) == Approx(754).margin(0.5));
    CHECK(billions(p.total) == Approx(744).margin(0.5));  // GLM-5 model card
}

TEST_CASE("GLM-5.2 keeps GLM-5.1's shapes and puts an indexer on 21 of its 78 layers", "[params][kv][catalog]") {
    const ModelSpec& m = catalogModel("glm-5.2");
    const ModelSpec& before = catalogModel("glm-5.1");
    // config.json indexer_types: "full" on layers 0, 1, 2 and every fourth from 6 to 74
    // (18 more) = 21; the 57 "shared" layers reuse the previous indexer's top-k.
    CHECK(m.sparse.indexLayers == 21);
    CHECK(m.maxContext == 1048576);
    // 78 MLA layers x (kv_lora_rank 512 + rope 64) x 2 B + 21 indexer keys x 128 x 2 B
    // = 89,856 + 5,376 = 95,232 B per token (GLM-5.1: 89,856 + 78 x 256 = 109,824).
    CHECK(kvBytesPerToken16(m) == 78 * (512 + 64) * 2 + 21 * 128 * 2);
    CHECK(kvBytesPerToken16(before) == 78 * (512 + 64) * 2 + 78 * 128 * 2);
    // Each shared layer drops one indexer (DeepSeek-V3.2 Indexer): wq_b 2,048 x (32 x 128),
    // wk 6,144 x 128, k_norm weight and bias 2 x 128, weights_proj 6,144 x 32 = 9,371,904;
    // the FP8 export lists indexer modules only on the 21 layers and the MTP layer.
    const double indexer = 2048.0 * 32 * 128 + 6144.0 * 128 + 2 * 128 + 6144.0 * 32;
    const ParamCounts now = countParams(m);
    const ParamCounts was = countParams(before);
    CHECK(was.total - now.total == 57 * indexer);
    CHECK(was.active - now.active == 57 * indexer);
    CHECK(now.mtp == was.mtp);  // the MTP layer keeps its indexer (index_share_for_mtp_iteration)
    // Hugging Face lists zai-org/GLM-5.2 (model + MTP layer) at 753B; vLLM's recipe gives
    // the model as ~743B. Tolerance: half of the last published digit.
    CHECK(billions(now.total + now.mtp) == Approx(753).margin(0.5));
    CHECK(billions(now.total) == Approx(743).margin(0.5));
}

TEST_CASE("a pasted GLM-5.2 config.json counts its IndexShare layers", "[hf_config][catalog]") {
    std::vector<caliper::Warning> warnings;
    const ModelSpec pasted = caliper::test::modelFromFixture("glm-5.2", &warnings);
    CHECK(warnings.empty());
    CHECK(pasted.sparse.indexLayers == 21);  // the "full" entries of indexer_types
    CHECK(kvBytesPerToken16(pasted) == kvBytesPerToken16(catalogModel("glm-5.2")));
    // GLM-5.1's config.json has no indexer_types: every layer keeps its indexer.
    CHECK(catalogModel("glm-5.1").sparse.indexLayers == 0);
}

TEST_CASE("Mistral Large 3 sizes as its card's language model and vision encoder", "[params][kv][catalog]") {
    const ModelSpec& m = catalogModel("mistral-large-3");
    // params.json: DeepSeek-V3's MLA on 61 layers: 61 x (512 + 64) x 2 B = 70,272 B per token.
    CHECK(kvBytesPerToken16(m) == 61 * (512 + 64) * 2);
    CHECK(kvBytesPerToken16(m) == kvBytesPerToken16(catalogModel("deepseek-v3")));
    // 128 experts of 4,096 hold what DeepSeek-V3's 256 of 2,048 do, and 4 per token pass
    // through the same routed width (4 x 4,096 = 8 x 2,048).
    CHECK(m.moe.experts * m.moe.expertIntermediateSize == 256 * 2048);
    CHECK(m.moe.expertsPerToken * m.moe.expertIntermediateSize == 8 * 2048);
    // Card: a 673B language model with 39B active (without the input embedding, as
    // NVIDIA counts), beside a 2.5B vision encoder (extra_params). Tolerance: half of
    // the last published digit.
    const ParamCounts p = countParams(m);
    const double vision = static_cast<double>(m.extraParams);
    CHECK(billions(p.total - vision) == Approx(673).margin(0.5));
    CHECK(billions(activeWithoutInputEmbedding(m) - vision) == Approx(39).margin(0.5));
    // The BF16 repository weighs about 1,352 GB = 676B parameters x 2 B; tolerance: the
    // figure's last digit (0.5 GB) plus the vision encoder's rounding to 0.1B (0.1 GB).
    CHECK(p.total * 2 / 1e9 == Approx(1352).margin(0.6));
}

TEST_CASE("Nemotron 3 Super and Ultra (LatentMoE hybrids) match their published sizes", "[params][kv][hybrid][catalog]") {
    const ModelSpec& super = catalogModel("nemotron-3-super-120b-a12b");
    const ModelSpec& ultra = catalogModel("nemotron-3-ultra-550b-a55b");

    // KV only on the attention blocks ('*' in hybrid_override_pattern / layers_block_type):
    // Super 8 blocks, Ultra 12, each 2 KV heads x 128: 2 (K, V) x blocks x 2 x 128 x 2 B.
    CHECK(kvBytesPerToken16(super) == 2 * 8 * 2 * 128 * 2);
    CHECK(kvBytesPerToken16(ultra) == 2 * 12 * 2 * 128 * 2);

    // Mamba-2 state per block: heads x head_dim 64 x ssm_state 128, plus conv_kernel - 1 = 3
    // inputs of heads x 64 + 2 x 8 groups x 128 channels. Super: 40 blocks of 128 heads
    // (1,048,576 + 3 x 10,240); Ultra: 48 blocks of 256 heads (2,097,152 + 3 x 18,432).
    CHECK(linearStateBytesPerSequence16(super) == 40.0 * (128 * 64 * 128 + 3 * 10240) * 2);
    CHECK(linearStateBytesPerSequence16(ultra) == 48.0 * (256 * 64 * 128 + 3 * 18432) * 2);

    // A latent expert (2 x latent x moe_intermediate) weighs what the stored
    // 4,096- / 8,192-wide expert does: Super 2 x 1,024 x 2,688 = 2 x 4,096 x 672,
    // Ultra 2 x 2,048 x 5,120 = 2 x 8,192 x 1,280.
    CHECK(2.0 * super.hiddenSize * super.moe.expertIntermediateSize == 2.0 * 1024 * 2688);
    CHECK(2.0 * ultra.hiddenSize * ultra.moe.expertIntermediateSize == 2.0 * 2048 * 5120);

    // Super: the BF16 repository lists 124B parameters (model + MTP layer); the card
    // says 12B active. Tolerance: half of the last published digit.
    const ParamCounts s = countParams(super);
    CHECK(billions(s.total + s.mtp) == Approx(124).margin(0.5));
    CHECK(billions(activeWithoutInputEmbedding(super)) == Approx(12).margin(0.5));

    // Ultra: NVIDIA's NVFP4 blog gives the BF16 checkpoint as 1,121 GB = 560.5B
    // parameters at 2 bytes (model + MTP layer); the report says 55B active.
    const ParamCounts u = countParams(ultra);
    CHECK((u.total + u.mtp) * 2 / 1e9 == Approx(1121).margin(0.5));
    CHECK(billions(activeWithoutInputEmbedding(ultra)) == Approx(55).margin(0.5));
}

TEST_CASE("pasted Nemotron 3 Super and Ultra config.json files read their LatentMoE", "[hf_config][hybrid][catalog]") {
    // The Super config spells its blocks in hybrid_override_pattern, the Ultra
    // config in layers_block_type; both carry moe_latent_size. Read as pasted,
    // they size exactly as their catalog entries (which rest on the same files).
    for (const std::string id : {"nemotron-3-super-120b-a12b", "nemotron-3-ultra-550b-a55b"}) {
        INFO(id);
        std::vector<caliper::Warning> warnings;
        const ModelSpec pasted = caliper::test::modelFromFixture(id, &warnings);
        const ModelSpec& listed = catalogModel(id);
        CHECK(warnings.empty());
        CHECK(pasted.linear.layers == listed.linear.layers);
        CHECK(pasted.linear.ffnOnlyLayers == listed.linear.ffnOnlyLayers);
        CHECK(pasted.moe.expertIntermediateSize == listed.moe.expertIntermediateSize);
        CHECK(pasted.moe.sharedExpertIntermediateSize == listed.moe.sharedExpertIntermediateSize);
        CHECK(pasted.mtpLayers == 1);  // num_nextn_predict_layers
        CHECK(countParams(pasted).total == countParams(listed).total);
        CHECK(countParams(pasted).active == countParams(listed).active);
        CHECK(kvBytesPerToken16(pasted) == kvBytesPerToken16(listed));
        CHECK(linearStateBytesPerSequence16(pasted) == linearStateBytesPerSequence16(listed));
    }
}

TEST_CASE("a layers_block_type entry Nemotron-H does not know is a config error", "[hf_config][errors]") {
    nlohmann::json config = caliper::test::fixtureConfig("nemotron-3-ultra-550b-a55b.json");
    config["layers_block_type"][3] = "conv";
    try {
        caliper::io::modelFromHfConfig(config, "/model", nullptr);
        FAIL("accepted");
    } catch (const caliper::InputError& e) {
        CHECK(e.error().code == "invalid_config");
        CHECK(e.error().path == "/model/layers_block_type");
    }
    // Without num_hidden_layers (as Ultra's config.json) the list gives the layer
    // count; with it, the list must have one entry per layer.
    config = caliper::test::fixtureConfig("nemotron-3-ultra-550b-a55b.json");
    CHECK(caliper::io::modelFromHfConfig(config, "/model", nullptr).layers == 108);
    config["num_hidden_layers"] = 108;
    config["layers_block_type"].erase(0);
    try {
        caliper::io::modelFromHfConfig(config, "/model", nullptr);
        FAIL("accepted");
    } catch (const caliper::InputError& e) {
        CHECK(e.error().code == "invalid_config");
        CHECK(e.error().path == "/model/layers_block_type");
    }
}
