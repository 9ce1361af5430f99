// Stacks whose layers come in two shapes: Gemma 4 (sliding-window layers
// beside global layers of another head width and KV heads, a dense MLP beside
// the experts) and LFM2 (short-convolution layers beside attention layers).
// KV bytes, fixed state and attention work against the arithmetic of their
// config.json files; parameter counts against the published figures.
#include <catch2/catch.hpp>

#include <string>

#include <nlohmann/json.hpp>

#include "caliper/error.hpp"
#include "caliper/model.hpp"
#include "catalog_fixture.hpp"
#include "hf_config_fixture.hpp"
#include "plan/workload.hpp"
#include "speed_fixtures.hpp"

using caliper::test::catalogModel;
using caliper::countParams;
using caliper::kvBytesPerToken16;
using caliper::linearStateBytesPerSequence16;
using caliper::ModelSpec;
using Json = nlohmann::json;

namespace {

ModelSpec fromConfig(const std::string& name) {
    std::vector<caliper::Warning> warnings;
    return caliper::test::modelFromFixture(name, &warnings);
}

caliper::Workload workloadOf(const ModelSpec& m) {
    using namespace caliper;
    return makeWorkload(test::inference(m, test::h100Sxm(), Engine::Vllm, WeightFormat::Bf16));
}

}  // namespace

TEST_CASE("Gemma 4 global layers cache their own KV width", "[params][kv][gemma4]") {
    // google/gemma-4-31B-it text_config: 50 sliding layers with 16 KV heads of
    // 256 and 10 global layers with 4 KV heads of 512 (attention_k_eq_v: one
    // projection, K and V both cached): (50 x 2 x 16 x 256 + 10 x 2 x 4 x 512) x 2 B.
    CHECK(kvBytesPerToken16(catalogModel("gemma-4-31b")) == (50 * 2 * 16 * 256 + 10 * 2 * 4 * 512) * 2);
    CHECK(kvBytesPerToken16(catalogModel("gemma-4-31b")) == 901120);
    // gemma-4-26B-A4B-it: 25 sliding layers (8 KV heads of 256), 5 global (2 of 512).
    CHECK(kvBytesPerToken16(catalogModel("gemma-4-26b-a4b")) == (25 * 2 * 8 * 256 + 5 * 2 * 2 * 512) * 2);
}

// The Gemma 4 vision encoder (gemma4_vision of the 31B and 26B-A4B: hidden
// 1,152, 27 layers, gated MLP 4,304, 16 heads of 72, patch 16): per layer q/k/v/o,
// the MLP, q/k norms of 72 and four norms; a 768 x 1,152 patch projection, 2 x
// 10,240 position rows and the standardize bias and scale. The extracted
// tower's tensors total 569,550,384 (rnagabh/gemma4-vision-encoder, whose
// vision_config the two Gemma 4 fixtures carry).
constexpr double kGemma4Tower =
    27.0 * (4 * 1152 * 1152 + 3 * 1152 * 4304 + 2 * 72 + 4 * 1152) + 768.0 * 1152 + 2 * 10240.0 * 1152 + 2 * 1152;

TEST_CASE("Gemma 4 counts match the published figures", "[params][gemma4]") {
    CHECK(kGemma4Tower == 569550384.0);
    // 31B: a tally of the checkpoint's language-model tensors gives 30,696,013,824
    // matrix + 1,331,456 norm scalars = 30,697,345,280 (model card: 30.7B); the
    // encoder and its 1,152 x 5,376 projection come on top, as other vision models count theirs.
    const ModelSpec& dense = catalogModel("gemma-4-31b");
    CHECK(countParams(dense).total == 30697345280.0 + kGemma4Tower + 1152.0 * 5376);
    CHECK(dense.extraParams == kGemma4Tower + 1152.0 * 5376);
    // The global layers carry no v_proj: a layer is q 5,376 x 32 x 512, k 5,376 x
    // 4 x 512 and o, against q, k, v and o of 256-wide heads on sliding layers.
    // 26B-A4B model card: 25.2B total, 3.8B active (8 of 128 experts of 704 beside
    // the 2,112-wide dense MLP on each of the 30 layers).
    const caliper::ParamCounts moe = countParams(catalogModel("gemma-4-26b-a4b"));
    const double vision = kGemma4Tower + 1152.0 * 2816;  // projection to the 2,816-wide text stream
    CHECK((moe.total - vision) / 1e9 == Approx(25.2).margin(0.05));
    CHECK((moe.active - vision) / 1e9 == Approx(3.8).margin(0.05));
    // Routed-expert weights: 30 layers x 128 experts x 3 x 2,816 x 704.
    CHECK(moe.expert == 30.0 * 128 * 3 * 2816 * 704);
}

TEST_CASE("Gemma 4 config.json files read as their catalog entries", "[hf_config][gemma4]") {
    for (const char* id : {"gemma-4-31b", "gemma-4-26b-a4b"}) {
        INFO(id);
        const ModelSpec got = fromConfig(id);
        const ModelSpec& want = catalogModel(id);
        CHECK(got.global.headDim == want.global.headDim);
        CHECK(got.global.kvHeads == want.global.kvHeads);
        CHECK(got.global.kEqV == want.global.kEqV);
        CHECK(got.moe.sharedExpertIntermediateSize == want.moe.sharedExpertIntermediateSize);
        CHECK(countParams(got).total == countParams(want).total);
        CHECK(countParams(got).active == countParams(want).active);
        CHECK(kvBytesPerToken16(got) == kvBytesPerToken16(want));
        CHECK(got.extraParams == want.extraParams);  // the encoder counted from vision_config
    }
}

TEST_CASE("Gemma 4 global layers weigh in attention work and KV reads", "[speed][gemma4]") {
    const caliper::Workload work = workloadOf(catalogModel("gemma-4-31b"));
    // At 4,096 tokens the 10 global layers read all of them (2 x 4 x 512 x 2 B
    // each), the 50 sliding ones their 1,024-token window (2 x 16 x 256 x 2 B).
    const double kv = 10.0 * 8192 * 4096 + 50.0 * 16384 * 1024;
    CHECK(caliper::kvBytesRead(work, 4096) == Approx(kv).epsilon(1e-12));
    // QK^T and AV, 2 FLOPs per multiply-add: 4 x heads x head width x tokens seen
    // per layer: 32 heads of 512 on global layers, of 256 on sliding ones.
    const double flops = 4.0 * (10.0 * 32 * 512 * 4096 + 50.0 * 32 * 256 * 1024);
    CHECK(caliper::attentionFlopsPerToken(work, 4096) == Approx(flops).epsilon(1e-12));
}

TEST_CASE("LFM2 short-convolution layers keep a fixed state and no KV", "[params][kv][lfm2]") {
    const ModelSpec& m = catalogModel("lfm2-1.2b");
    // LiquidAI/LFM2-1.2B config.json: 6 full_attention layers of 16 with 8 KV
    // heads of 2,048 / 32 = 64: 2 x 6 x 8 x 64 x 2 B.
    CHECK(kvBytesPerToken16(m) == 2 * 6 * 8 * 64 * 2);
    // 10 conv layers keep conv_L_cache - 1 = 2 past inputs of 2,048 channels
    // (vLLM ShortConv state): 10 x 2 x 2,048 x 2 B.
    CHECK(linearStateBytesPerSequence16(m) == 10 * 2 * 2048 * 2);
    // Model card: 1,170,340,608 parameters.
    CHECK(countParams(m).total == 1170340608.0);
}

TEST_CASE("an LFM2 config.json shrinks its MLP as Lfm2MLP does", "[hf_config][lfm2]") {
    const ModelSpec got = fromConfig("custom-lfm2-1.2b");
    // block_auto_adjust_ff_dim: int(2 x 12,288 / 3) = 8,192, x 1.0, rounded up to 256.
    CHECK(got.intermediateSize == 8192);
    CHECK(got.linear.kind == caliper::LinearKind::ShortConv);
    CHECK(got.linear.layers == 10);
    CHECK(countParams(got).total == 1170340608.0);
    CHECK(kvBytesPerToken16(got) == kvBytesPerToken16(catalogModel("lfm2-1.2b")));
    CHECK(linearStateBytesPerSequence16(got) == linearStateBytesPerSequence16(catalogModel("lfm2-1.2b")));
}

TEST_CASE("Gemma 4 configs with per-layer embeddings are refused by name", "[hf_config][errors][gemma4]") {
    const std::string path = std::string(CALIPER_FIXTURES_DIR) + "/hf_configs_bad/gemma4-per-layer-embeddings.json";
    std::vector<caliper::Warning> warnings;
    try {
        caliper::io::modelFromHfConfig(Json::parse(caliper::test::readText(path)), "/model", &warnings);
        FAIL("accepted an E2B-style config");
    } catch (const caliper::InputError& e) {
        CHECK(e.error().code == "invalid_config");
        CHECK(e.error().path == "/model/text_config/hidden_size_per_layer_input");
        CHECK(e.error().message.find("not modelled") != std::string::npos);
    }
}

TEST_CASE("global_attention needs the sliding window it stands beside", "[catalog][errors][gemma4]") {
    const std::string gpus = caliper::test::readText(std::string(CALIPER_DATA_DIR) + "/gpus.json");
    const std::string models =
        caliper::test::readText(std::string(CALIPER_FIXTURES_DIR) + "/bad_catalog/models_global_without_window.json");
    try {
        caliper::parseCatalog(gpus, models);
        FAIL("accepted global_attention without a window");
    } catch (const caliper::InputError& e) {
        CHECK(e.error().code == "invalid_value");
        CHECK(e.error().path == "/models/0/global_attention");
    }
}
