// Xiaomi MiMo-V2-Flash: values narrower than keys (head_dim 192, v_head_dim
// 128) and sliding-window layers with more KV heads (8) than the full-attention
// ones (4). Expected figures from the arithmetic of its config
// (transformers MiMoV2FlashConfig defaults, the hub config's swa_* keys):
// 48 layers, full attention on layers 0, 5, 11, ..., 47 (9), sliding on 39;
// hidden 4,096, 64 query heads; layer 0 a dense 16,384 MLP, then 47 layers of
// 256 experts of 2,048 (8 per token); vocabulary 152,576, untied.
#include <catch2/catch.hpp>

#include <string>

#include <nlohmann/json.hpp>

#include "caliper/error.hpp"
#include "caliper/model.hpp"
#include "catalog_fixture.hpp"
#include "json/catalog/model_json.hpp"
#include "json/hf_config/hf_config.hpp"
#include "plan/workload.hpp"
#include "speed_fixtures.hpp"

using caliper::countParams;
using caliper::kvBytesPerToken16;
using caliper::ModelSpec;
using caliper::test::catalogModel;
using Json = nlohmann::json;

namespace {

// One attention layer: q 4,096 x 64 x 192, k 4,096 x kv x 192, v 4,096 x kv x
// 128, o 64 x 128 x 4,096.
constexpr double attentionLayer(double kvHeads) {
    return 4096.0 * 64 * 192 + 4096.0 * kvHeads * 192 + 4096.0 * kvHeads * 128 + 64.0 * 128 * 4096;
}

constexpr double kExpert = 3.0 * 4096 * 2048;  // gate, up, down
constexpr double kTotal = 2.0 * 152576 * 4096                                // embedding + lm_head
                          + 9 * attentionLayer(4) + 39 * attentionLayer(8)   // attention
                          + 2.0 * 4096 * 48 + 4096                           // 2 RMSNorms per layer + final
                          + 3.0 * 4096 * 16384                               // layer 0 dense MLP
                          + 47.0 * 256 * kExpert + 47.0 * 4096 * 256         // experts, routers
                          + 39.0 * 64 + 47.0 * 256;                          // sinks, routing bias
constexpr double kActive = kTotal - 47.0 * (256 - 8) * kExpert;
// One MTP layer (vLLM mimo_v2_mtp.py MiMoV2MTPLayer; model card: 3 layers of
// 0.33B with dense FFNs): sliding-layer attention (8 KV heads), a dense MLP of
// 16,384, eh_proj 2 x 4,096 -> 4,096 and five RMSNorms (enorm, hnorm, input,
// pre-MLP, final); embedding and head shared with the model.
constexpr double kMtpLayer = attentionLayer(8) + 3.0 * 4096 * 16384 + 2.0 * 4096 * 4096 + 5.0 * 4096;

// The hub config.json layout (remote code): swa_* keys, 0/1 per-layer lists.
Json hubConfig() {
    Json pattern = Json::array(), freq = Json::array();
    for (int i = 0; i < 48; ++i) {
        pattern.push_back(i == 0 || (i + 1) % 6 == 0 ? 0 : 1);
        freq.push_back(i == 0 ? 0 : 1);
    }
    return Json{{"model_type", "mimo_v2_flash"}, {"vocab_size", 152576}, {"hidden_size", 4096},
                {"intermediate_size", 16384}, {"num_hidden_layers", 48}, {"num_attention_heads", 64},
                {"num_key_value_heads", 4}, {"head_dim", 192}, {"v_head_dim", 128},
                {"swa_num_attention_heads", 64}, {"swa_num_key_value_heads", 8}, {"swa_head_dim", 192},
                {"swa_v_head_dim", 128}, {"sliding_window", 128}, {"hybrid_layer_pattern", pattern},
                {"moe_layer_freq", freq}, {"add_swa_attention_sink_bias", true},
                {"add_full_attention_sink_bias", false}, {"n_routed_experts", 256}, {"num_experts_per_tok", 8},
                {"moe_intermediate_size", 2048}, {"max_position_embeddings", 262144},
                {"tie_word_embeddings", false}, {"num_nextn_predict_layers", 3}};
}

ModelSpec fromHf(const Json& config) {
    std::vector<caliper::Warning> warnings;
    const ModelSpec m = caliper::io::modelFromHfConfig(config, "/model", &warnings);
    CHECK(warnings.empty());
    return m;
}

caliper::Error hfError(const Json& config) {
    std::vector<caliper::Warning> warnings;
    try {
        caliper::io::modelFromHfConfig(config, "/model", &warnings);
    } catch (const caliper::InputError& e) {
        return e.error();
    }
    FAIL("accepted " << config.dump());
    return {};
}

caliper::Error requestError(const Json& object) {
    std::vector<caliper::Warning> warnings;
    try {
        caliper::io::modelFromJson(object, "/model", &warnings, false);
    } catch (const caliper::InputError& e) {
        return e.error();
    }
    FAIL("accepted " << object.dump());
    return {};
}

// A small request model with a sliding window, for the field checks.
Json smallModel() {
    return Json{{"layers", 6}, {"hidden_size", 1024}, {"intermediate_size", 4096}, {"heads", 16}, {"kv_heads", 2},
                {"head_dim", 96}, {"vocab_size", 32000}, {"sliding_window", 128}, {"sliding_window_layers", 5}};
}

}  // namespace

TEST_CASE("MiMo-V2-Flash caches K and V of their own widths and KV heads", "[kv][params][mimo]") {
    const ModelSpec& m = catalogModel("mimo-v2-flash");
    // 9 full layers x 4 KV heads + 39 sliding layers x 8, each (192 + 128) x 2 B.
    CHECK(kvBytesPerToken16(m) == (9 * 4 + 39 * 8) * (192 + 128) * 2);
    CHECK(kvBytesPerToken16(m) == 222720);
    // A full layer caches 4 x 320, a sliding one 8 x 320: half as wide.
    CHECK(caliper::globalKvScale(m) == 0.5);
    CHECK(caliper::kvScaledLayers(m) == 9);
}

TEST_CASE("MiMo-V2-Flash parameter count follows its layer shapes", "[params][mimo]") {
    const caliper::ParamCounts c = countParams(catalogModel("mimo-v2-flash"));
    CHECK(c.total == kTotal);
    CHECK(c.total == 308778780864.0);
    CHECK(c.active == kActive);
    CHECK(c.expert == 47.0 * 256 * kExpert);
    // Model card: 309B total, 15B active.
    CHECK(c.total / 1e9 == Approx(309).margin(0.5));
    CHECK(c.active / 1e9 == Approx(15).margin(0.5));
    // The 3 MTP layers, counted apart like DeepSeek-V3's: 0.33B each as the card says.
    CHECK(c.mtp == 3 * kMtpLayer);
    CHECK(kMtpLayer / 1e9 == Approx(0.33).margin(0.005));
}

TEST_CASE("MiMo-V2-Flash attention work uses both head widths", "[speed][mimo]") {
    using namespace caliper;
    const Workload work =
        makeWorkload(test::inference(catalogModel("mimo-v2-flash"), test::h100Sxm(), Engine::Vllm, WeightFormat::Bf16));
    // At 4,096 tokens the 9 full layers read all of them (4 x 320 x 2 B each),
    // the 39 sliding ones their 128-token window (8 x 320 x 2 B).
    const double kv = 9.0 * 4 * 320 * 2 * 4096 + 39.0 * 8 * 320 * 2 * 128;
    CHECK(kvBytesRead(work, 4096) == Approx(kv).epsilon(1e-12));
    // QK^T over 192-wide heads and AV over 128-wide ones, 2 FLOPs per
    // multiply-add, 64 heads: 2 x 64 x (192 + 128) per token seen per layer.
    const double flops = 2.0 * 64 * (192 + 128) * (9.0 * 4096 + 39.0 * 128);
    CHECK(attentionFlopsPerToken(work, 4096) == Approx(flops).epsilon(1e-12));
}

TEST_CASE("a MiMo-V2-Flash config.json reads as its catalog entry", "[hf_config][mimo]") {
    const ModelSpec& want = catalogModel("mimo-v2-flash");
    // The hub layout, and the transformers layout (layer_types, mlp_layer_types,
    // no swa_* keys: MiMoV2FlashAttention gives sliding layers twice the KV heads).
    Json native = hubConfig();
    for (const char* key : {"swa_num_attention_heads", "swa_num_key_value_heads", "swa_head_dim", "swa_v_head_dim",
                            "hybrid_layer_pattern", "moe_layer_freq", "add_swa_attention_sink_bias",
                            "add_full_attention_sink_bias"}) {
        native.erase(key);
    }
    native["layer_types"] = Json::array();
    native["mlp_layer_types"] = Json::array();
    for (int i = 0; i < 48; ++i) {
        native["layer_types"].push_back(i == 0 || (i + 1) % 6 == 0 ? "full_attention" : "sliding_attention");
        native["mlp_layer_types"].push_back(i == 0 ? "dense" : "sparse");
    }
    for (const Json& config : {hubConfig(), native}) {
        const ModelSpec got = fromHf(config);
        CHECK(got.vHeadDim == 128);
        CHECK(got.swaKvHeads == 8);
        CHECK(got.slidingLayers == 39);
        CHECK(got.moe.denseLayers == 1);
        CHECK(got.extraParams == want.extraParams);
        CHECK(got.mtpLayers == 3);  // num_nextn_predict_layers
        CHECK(got.mtpDense);
        CHECK(countParams(got).mtp == countParams(want).mtp);
        CHECK(countParams(got).total == countParams(want).total);
        CHECK(countParams(got).active == countParams(want).active);
        CHECK(kvBytesPerToken16(got) == kvBytesPerToken16(want));
    }
}

TEST_CASE("MiMo-V2-Flash configs with shapes the engine cannot keep apart are refused", "[hf_config][errors][mimo]") {
    Json config = hubConfig();
    config["swa_num_key_value_heads"] = 128;
    caliper::Error e = hfError(config);
    CHECK(e.code == "invalid_config");
    CHECK(e.path == "/model/swa_num_key_value_heads");
    CHECK(e.message.find("exceeds num_attention_heads 64") != std::string::npos);

    config = hubConfig();
    config["swa_head_dim"] = 128;  // sliding layers of another key width: not modelled
    e = hfError(config);
    CHECK(e.code == "invalid_config");
    CHECK(e.path == "/model/swa_head_dim");
    CHECK(e.message.find("only swa_num_key_value_heads may differ") != std::string::npos);

    config = hubConfig();
    config["v_head_dim"] = 0;
    e = hfError(config);
    CHECK(e.code == "invalid_config");
    CHECK(e.path == "/model/v_head_dim");
}

TEST_CASE("v_head_dim and swa_kv_heads change only the layers they name", "[params][kv][mimo]") {
    std::vector<caliper::Warning> warnings;
    const ModelSpec plain = caliper::io::modelFromJson(smallModel(), "/model", &warnings, false);
    Json narrow = smallModel();
    narrow["v_head_dim"] = 64;
    narrow["swa_kv_heads"] = 4;
    const ModelSpec m = caliper::io::modelFromJson(narrow, "/model", &warnings, false);
    // KV: 1 full layer x 2 heads + 5 sliding x 4, each (96 + 64) x 2 B, against
    // 6 x 2 x 2 x 96 x 2 B.
    CHECK(kvBytesPerToken16(plain) == 6 * 2 * 2 * 96 * 2);
    CHECK(kvBytesPerToken16(m) == (1 * 2 + 5 * 4) * (96 + 64) * 2);
    // Attention parameters: v_proj 1,024 x kv x 64 and o_proj 16 x 64 x 1,024
    // instead of 96-wide; sliding layers' k_proj and v_proj at 4 KV heads.
    const double plainLayer = 1024.0 * 16 * 96 + 2 * 1024.0 * 2 * 96 + 16.0 * 96 * 1024;
    const auto layer = [](double kv) { return 1024.0 * 16 * 96 + 1024.0 * kv * 96 + 1024.0 * kv * 64 + 16.0 * 64 * 1024; };
    CHECK(countParams(m).total - countParams(plain).total == Approx(1 * layer(2) + 5 * layer(4) - 6 * plainLayer));
    // The written form keeps both fields.
    const Json back = caliper::io::modelToJson(m);
    CHECK(back.at("v_head_dim") == 64);
    CHECK(back.at("swa_kv_heads") == 4);
    CHECK_FALSE(caliper::io::modelToJson(plain).contains("v_head_dim"));
}

TEST_CASE("bad v_head_dim and swa_kv_heads name their field", "[catalog][errors][mimo]") {
    Json object = smallModel();
    object["swa_kv_heads"] = 32;
    caliper::Error e = requestError(object);
    CHECK(e.code == "invalid_value");
    CHECK(e.path == "/model/swa_kv_heads");
    CHECK(e.message == "swa_kv_heads 32 exceeds heads 16");

    object = smallModel();
    object.erase("sliding_window");
    object.erase("sliding_window_layers");
    object["swa_kv_heads"] = 4;
    e = requestError(object);
    CHECK(e.code == "invalid_value");
    CHECK(e.path == "/model/swa_kv_heads");
    CHECK(e.message.find("needs sliding_window") != std::string::npos);

    object = smallModel();
    object["v_head_dim"] = 0;
    e = requestError(object);
    CHECK(e.code == "invalid_value");
    CHECK(e.path == "/model/v_head_dim");

    object = smallModel();
    object["mtp_dense"] = true;  // without MTP layers to describe
    e = requestError(object);
    CHECK(e.code == "invalid_value");
    CHECK(e.path == "/model/mtp_dense");

    object = smallModel();
    object["v_head_dim"] = "128";
    e = requestError(object);
    CHECK(e.path == "/model/v_head_dim");
}
