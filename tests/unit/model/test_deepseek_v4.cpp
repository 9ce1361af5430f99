// DeepSeek-V4 compressed attention. Expected figures from the arithmetic of
// the config.json files (deepseek-ai/DeepSeek-V4-Flash and -Pro, as copied in
// ai-dynamo/aiconfigurator aic-core model_configs, commit 095f58a5):
// head_dim 512 (one shared K=V head), sliding_window 128, index_head_dim 128,
// compress_ratios per layer.
//   Flash, 43 layers: layers 0-1 ratio 0 (window only), even layers 2-42
//   ratio 4 (21 CSA layers, with an indexer), odd layers 3-41 ratio 128 (20).
//   Per token at 16 bits: CSA 21 x (512 + 128) x 2 / 4 = 6,720, HCA
//   20 x 512 x 2 / 128 = 160: 6,880 bytes. Per sequence: a window of
//   43 x 128 x 512 x 2 = 5,636,096 bytes and the compressors' FP32 state
//   (aiconfigurator deepseek_v4.py: 2 buffers x ratio x coff x width x 4 B):
//   21 x (2 x 4 x 2 x 512 + 2 x 4 x 2 x 128) x 4 + 20 x 2 x 128 x 512 x 4
//   = 860,160 + 10,485,760 = 11,345,920 bytes.
//   Pro, 61 layers: layers 0-1 and odd layers 3-59 ratio 128 (31), even
//   layers 2-60 ratio 4 (30): 30 x 640 x 2 / 4 + 31 x 512 x 2 / 128
//   = 9,600 + 248 = 9,848 bytes per token.
#include <functional>
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include <nlohmann/json.hpp>

#include "caliper/error.hpp"
#include "caliper/model.hpp"
#include "catalog_fixture.hpp"
#include "json/catalog/model_json.hpp"
#include "json/hf_config/hf_config.hpp"
#include "plan/workload.hpp"
#include "sizing_fixture.hpp"

using namespace caliper;
using namespace caliper::test;
using Json = nlohmann::json;

namespace {

constexpr double kFlashWindowBytes = 43.0 * 128 * 512 * 2;
constexpr double kFlashCompressorBytes = 21.0 * (2 * 4 * 2 * 512 + 2 * 4 * 2 * 128) * 4 + 20.0 * 2 * 128 * 512 * 4;

Json catalogEntry(const std::string& id) {
    const Json root = Json::parse(readText(std::string(CALIPER_DATA_DIR) + "/models.json"));
    for (const Json& entry : root.at("models")) {
        if (entry.at("id") == id) return entry;
    }
    FAIL("no catalog entry " << id);
    return {};
}

Error readError(const Json& object) {
    try {
        io::modelFromJson(object, "/model", nullptr, true);
    } catch (const InputError& e) {
        return e.error();
    }
    FAIL("accepted " << object.dump());
    return {};
}

MemoryEstimate sglangMemory(const std::string& id, std::int64_t context, int tp) {
    Scenario s = serving(id, "h200-sxm-141gb", Engine::Sglang);
    s.batch = 1;
    s.promptTokens = context;
    s.outputTokens = 0;
    Plan p;
    p.strategy = tp > 1 ? Strategy::Tensor : p.strategy;
    p.gpuCount = tp;
    p.tp = tp;
    return estimateMemory(s, tp > 1 ? p : makePlan(s, 1));
}

}  // namespace

TEST_CASE("DeepSeek-V4 KV bytes per token count the compressed rows and indexer keys", "[params][kv][dsv4]") {
    CHECK(kvBytesPerToken16(catalogModel("deepseek-v4-flash")) == 6880);
    CHECK(kvBytesPerToken16(catalogModel("deepseek-v4-pro")) == 9848);
    // Forced into one MQA head of 512 on every layer (K and V), Flash would
    // show 43 x (512 + 512) x 2 = 88,064 bytes per token: 12.8 times as much.
    CHECK(88064.0 / kvBytesPerToken16(catalogModel("deepseek-v4-flash")) == Approx(12.8).epsilon(0.001));
    CHECK(compressorStateBytesPerSequence(catalogModel("deepseek-v4-flash")) == kFlashCompressorBytes);
    CHECK(kFlashCompressorBytes == 11345920);
}

TEST_CASE("DeepSeek-V4-Flash KV cache at 1K, 64K and 1M tokens: rows, window and compressor state",
          "[memory][kv][dsv4]") {
    // SGLang keeps exact lengths; 16-bit cache on the H200. A context of c
    // tokens (multiples of 128) holds c x 6,880 bytes of rows and keys, the
    // full window (c >= 128) and the compressor state.
    for (const std::int64_t c : {1024LL, 65536LL, 1048576LL}) {
        INFO("context " << c);
        const MemoryEstimate m = sglangMemory("deepseek-v4-flash", c, 1);
        const double bytes = double(c) * 6880 + kFlashWindowBytes + kFlashCompressorBytes;
        CHECK(m.memory.kvCacheGiB * 1073741824.0 == Approx(bytes).epsilon(1e-9));
    }
    // 1,048,576 tokens: 7,214,202,880 + 5,636,096 + 11,345,920 = 7,231,184,896 B
    // (6.73 GiB), where 88,064 B per token would be 86 GiB.
    CHECK(1048576.0 * 6880 + kFlashWindowBytes + kFlashCompressorBytes == 7231184896.0);
    // Below the window a layer keeps only the tokens there are: 64 tokens.
    const MemoryEstimate shortOne = sglangMemory("deepseek-v4-flash", 64, 1);
    CHECK(shortOne.memory.kvCacheGiB * 1073741824.0 ==
          Approx(64.0 * 6880 + 43.0 * 64 * 512 * 2 + kFlashCompressorBytes).epsilon(1e-9));
}

TEST_CASE("DeepSeek-V4 keeps its one shared KV head on every tensor-parallel rank", "[memory][kv][dsv4][tp]") {
    const double one = sglangMemory("deepseek-v4-pro", 131072, 1).memory.kvCacheGiB;
    const double eight = sglangMemory("deepseek-v4-pro", 131072, 8).memory.kvCacheGiB;
    CHECK(eight == Approx(one).epsilon(1e-12));
    // Pro: 131,072 x 9,848 + 61 x 128 x 512 x 2 + 30 x 40,960 + 31 x 524,288 bytes.
    const double bytes = 131072.0 * 9848 + 61.0 * 128 * 512 * 2 + 30.0 * 40960 + 31.0 * 524288;
    CHECK(one * 1073741824.0 == Approx(bytes).epsilon(1e-9));
}

TEST_CASE("DeepSeek-V4 decode reads the window, the top-k rows and every indexer key", "[speed][dsv4]") {
    Scenario s = serving("deepseek-v4-flash", "h200-sxm-141gb", Engine::Sglang);
    const Workload work = makeWorkload(s);
    // At 1,048,576 tokens, 16-bit: every layer its 128-token window
    // (43 x 128 x 1,024 B), each CSA layer its top-512 rows (x 1,024 B) and
    // 262,144 indexer keys (x 256 B), each HCA layer 8,192 rows (x 1,024 B).
    const double c = 1048576;
    const double expected = 43.0 * 128 * 1024 + 21.0 * (512 * 1024 + 262144.0 * 256) + 20.0 * 8192 * 1024;
    CHECK(kvBytesRead(work, c) == Approx(expected).epsilon(1e-12));
    // Short of 4 x 512 tokens a CSA layer reads every row it has: 1,024 tokens.
    const double shortRead = 43.0 * 128 * 1024 + 21.0 * (256 * 1024 + 256.0 * 256) + 20.0 * 8 * 1024;
    CHECK(kvBytesRead(work, 1024) == Approx(shortRead).epsilon(1e-12));
    // Attention FLOPs per token: 4 x 64 heads x 512 per attended row, plus
    // the indexer's 2 x 64 x 128 per key.
    const double rows = 43.0 * 128 + 21.0 * 512 + 20.0 * 8192;
    CHECK(attentionFlopsPerToken(work, c) == Approx(4.0 * 64 * 512 * rows + 2.0 * 64 * 128 * 21 * 262144).epsilon(1e-12));
    // A 4,096-token prompt: per CSA layer sum of min(i / 4, 512) = 4 x 512^2 / 2
    // + 512 x 2,048; per window layer 128 x 4,096 - 128^2 / 2; per HCA layer
    // 4,096^2 / 256; indexer keys 4,096^2 / 8.
    const double t = 4096;
    const double prompt = 4.0 * 64 * 512 *
                              (43.0 * (128 * t - 128.0 * 128 / 2) + 21.0 * (4.0 * 512 * 512 / 2 + 512 * (t - 2048)) +
                               20.0 * t * t / 256) +
                          2.0 * 64 * 128 * 21 * t * t / 8;
    CHECK(promptAttentionFlops(work, t, false) == Approx(prompt).epsilon(1e-12));
}

TEST_CASE("DeepSeek-V4 sizes match the published 284B / 13B and 1.6T / 49B", "[params][dsv4]") {
    // The model cards give rounded figures; the activated counts leave out
    // the input embedding (vocabulary 129,280 x hidden).
    const ParamCounts flash = countParams(catalogModel("deepseek-v4-flash"));
    CHECK(std::round(flash.total / 1e9) == 284);
    CHECK(std::round((flash.active - 129280.0 * 4096) / 1e9) == 13);
    const ParamCounts pro = countParams(catalogModel("deepseek-v4-pro"));
    CHECK(std::round(pro.total / 1e11) == 16);
    CHECK(std::round((pro.active - 129280.0 * 7168) / 1e9) == 49);
    // Routed experts: 43 x 256 x 3 x 4,096 x 2,048.
    CHECK(flash.expert == 43.0 * 256 * 3 * 4096 * 2048);
}

TEST_CASE("DeepSeek-V4 native weights: MXFP4 experts beside FP8 blocks", "[memory][dsv4][formats]") {
    Scenario s = serving("deepseek-v4-flash", "h200-sxm-141gb", Engine::Sglang);
    REQUIRE(s.model.nativeWeights.has_value());
    CHECK(*s.model.nativeWeights == WeightFormat::Mxfp4);
    s.weights = *s.model.nativeWeights;
    // Routed experts at 4.25 bits (E2M1 + one E8M0 scale per 32), the other
    // linear layers at 8 + 32 / 16,384 bits (FP8, one FP32 scale per 128 x 128
    // block), embedding, lm_head and the rest at 16: 43 x 256 x 3 x 4,096 x
    // 2,048 = 276.97B experts are 147.1 GB, about 6.2B other linear weights
    // 6.2 GB, 2 x 129,280 x 4,096 embedding rows 2.1 GB; about 155 GB in all,
    // as the published checkpoint (about 158 GB on Hugging Face, per
    // featherless.ai's listing) and unlike FP8 blocks throughout (285 GB).
    const ParamCounts p = countParams(s.model);
    const double bytes = p.expert * 4.25 / 8 + (p.linear - p.expert) * (8.0 + 32.0 / 16384) / 8 + p.embedding * 2 +
                         (p.total - p.linear - p.embedding) * 2;
    CHECK(bytes / 1e9 == Approx(155.5).epsilon(0.01));
    const MemoryEstimate m = estimateMemory(s, makePlan(s, 1));  // one GPU holds all of it
    CHECK(m.memory.weightsGiB * 1073741824.0 == Approx(bytes).epsilon(0.01));
}

TEST_CASE("compressed_attention validates and reports bad entries", "[model_json][dsv4]") {
    const Json good = catalogEntry("deepseek-v4-flash");
    const ModelSpec m = io::modelFromJson(good, "/model", nullptr, true);
    CHECK(m.compressed.window == 128);
    CHECK(m.compressed.csaLayers == 21);
    CHECK(m.compressed.hcaRatio == 128);
    CHECK(m.compressed.hashLayers == 3);
    // The written form reads back the same.
    const ModelSpec again = io::modelFromJson(io::modelToJson(m), "/model", nullptr, false);
    CHECK(kvBytesPerToken16(again) == 6880);
    CHECK(countParams(again).total == countParams(m).total);

    // Each bad entry is refused at the pointer of the field that breaks it.
    struct BadEntry {
        const char* why;
        std::function<void(Json&)> breakIt;
        const char* pointer;
    };
    const std::vector<BadEntry> cases = {
        {"attention other than one shared MQA head",
         [](Json& j) {
             j["attention"] = "gqa";
             j["kv_heads"] = 8;
             j["kv_bytes_per_token"] = 6880;
         },
         "/model/compressed_attention"},
        {"a CSA ratio not below the HCA one", [](Json& j) { j["compressed_attention"]["csa_ratio"] = 256; },
         "/model/compressed_attention/csa_ratio"},
        {"CSA and HCA layers beyond the attention layers", [](Json& j) { j["compressed_attention"]["csa_layers"] = 40; },
         "/model/compressed_attention/csa_layers"},
        {"indexer layers other than the CSA layers", [](Json& j) { j["sparse_attention"]["index_layers"] = 43; },
         "/model/sparse_attention/index_layers"},
        {"a window under one token", [](Json& j) { j["compressed_attention"]["window"] = 0; },
         "/model/compressed_attention/window"},
        {"a misspelt key (o_group for o_groups)", [](Json& j) { j["compressed_attention"]["o_group"] = 8; },
         "/model/compressed_attention/o_group"},
    };
    for (const BadEntry& c : cases) {
        INFO(c.why);
        Json bad = good;
        c.breakIt(bad);
        CHECK(readError(bad).path == c.pointer);
    }
}

TEST_CASE("a pasted DeepSeek-V4-Flash config.json reads as the catalog entry", "[hf_config][dsv4]") {
    // The keys of deepseek-ai/DeepSeek-V4-Flash config.json that shape it.
    Json ratios = Json::array({0, 0});
    for (int layer = 2; layer < 43; ++layer) ratios.push_back(layer % 2 == 0 ? 4 : 128);
    ratios.push_back(0);  // the MTP layer
    const Json config = {{"architectures", {"DeepseekV4ForCausalLM"}}, {"model_type", "deepseek_v4"},
                         {"hidden_size", 4096}, {"num_hidden_layers", 43}, {"num_attention_heads", 64},
                         {"num_key_value_heads", 1}, {"head_dim", 512}, {"qk_rope_head_dim", 64},
                         {"q_lora_rank", 1024}, {"o_lora_rank", 1024}, {"o_groups", 8},
                         {"index_n_heads", 64}, {"index_head_dim", 128}, {"index_topk", 512},
                         {"sliding_window", 128}, {"compress_ratios", ratios}, {"hc_mult", 4},
                         {"moe_intermediate_size", 2048}, {"n_routed_experts", 256}, {"n_shared_experts", 1},
                         {"num_experts_per_tok", 6}, {"num_hash_layers", 3}, {"num_nextn_predict_layers", 1},
                         {"vocab_size", 129280}, {"max_position_embeddings", 1048576},
                         {"tie_word_embeddings", false}, {"expert_dtype", "fp4"},
                         {"quantization_config", {{"quant_method", "fp8"}, {"weight_block_size", {128, 128}}}}};
    std::vector<Warning> warnings;
    const ModelSpec m = io::modelFromHfConfig(config, "/model", &warnings);
    CHECK(warnings.empty());
    CHECK(m.compressed.csaLayers == 21);
    CHECK(m.compressed.csaRatio == 4);
    CHECK(m.compressed.hcaLayers == 20);
    CHECK(m.compressed.hcaRatio == 128);
    CHECK(kvBytesPerToken16(m) == 6880);
    CHECK(countParams(m).total == countParams(catalogModel("deepseek-v4-flash")).total);
    REQUIRE(m.nativeWeights.has_value());
    CHECK(*m.nativeWeights == WeightFormat::Mxfp4);

    Json bad = config;
    bad["compress_ratios"][5] = 16;  // a third ratio
    try {
        io::modelFromHfConfig(bad, "/model", &warnings);
        FAIL("accepted three compress ratios");
    } catch (const InputError& e) {
        CHECK(e.error().path == "/model/compress_ratios");
    }
}
