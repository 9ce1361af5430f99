// Hybrid linear/full attention, DeepSeek Sparse Attention and the 2025-2026
// releases: KV bytes per token and fixed per-sequence state against the
// arithmetic of their config.json files, parameter counts against the
// published figures, and the catalog errors of the new fields.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "caliper/model.hpp"
#include "catalog_fixture.hpp"
#include "caliper/error.hpp"
#include "hf_config_fixture.hpp"

using caliper::test::catalogModel;
using caliper::countParams;
using caliper::kvBytesPerToken16;
using caliper::linearStateBytesPerSequence16;
using caliper::ModelSpec;
using Json = nlohmann::json;
using caliper::test::readText;

namespace {

double billions(const std::string& id) { return countParams(catalogModel(id)).total / 1e9; }

caliper::Error fixtureError(const std::string& name) {
    const std::string gpus = readText(std::string(CALIPER_DATA_DIR) + "/gpus.json");
    const std::string models = readText(std::string(CALIPER_FIXTURES_DIR) + "/bad_catalog/" + name);
    try {
        caliper::parseCatalog(gpus, models);
    } catch (const caliper::InputError& e) {
        return e.error();
    }
    FAIL(name << " was accepted");
    return {};
}

}  // namespace

TEST_CASE("hybrid linear-attention models cache KV only on their full-attention layers", "[params][kv][hybrid]") {
    // Qwen/Qwen3.5-397B-A17B config.json: 60 layers, full_attention_interval 4
    // -> 15 full-attention layers with 2 KV heads of head_dim 256:
    // 2 (K, V) x 15 x 2 x 256 x 2 B = 30,720 B per token.
    CHECK(kvBytesPerToken16(catalogModel("qwen3.5-397b-a17b")) == 30720);
    // Qwen3.5-27B: 64 layers / 4 = 16 full layers, 4 KV heads x 256: 2 x 16 x 4 x 256 x 2 = 65,536.
    CHECK(kvBytesPerToken16(catalogModel("qwen3.5-27b")) == 65536);
    // Qwen3.5-9B: 32 layers / 4 = 8 full layers of 4 KV heads x 256: 2 x 8 x 4 x 256 x 2 = 32 KiB;
    // its 24 Gated DeltaNet layers keep 32 value heads x 128 x 128 plus 3 inputs over
    // 2 x 16 x 128 + 32 x 128 = 8,192 conv channels: 24 x (524,288 + 24,576) x 2 B.
    CHECK(kvBytesPerToken16(catalogModel("qwen3.5-9b")) == 32768);
    CHECK(linearStateBytesPerSequence16(catalogModel("qwen3.5-9b")) == 24.0 * (524288 + 24576) * 2);
    // Qwen3.5-2B (shapes read off its safetensors header): 6 full layers of 2 KV heads x 256:
    // 2 x 6 x 2 x 256 x 2 B = 12 KiB; its 18 Gated DeltaNet layers keep 16 value heads x 128 x 128
    // plus 3 inputs over 2 x 16 x 128 + 16 x 128 = 6,144 conv channels: 18 x (262,144 + 18,432) x 2 B.
    CHECK(kvBytesPerToken16(catalogModel("qwen3.5-2b")) == 12288);
    CHECK(linearStateBytesPerSequence16(catalogModel("qwen3.5-2b")) == 18.0 * (262144 + 18432) * 2);
    // Qwen3.5-0.8B official config: the 2B's attention shape (6 full layers, 2 KV heads of 256) at width 1,024.
    CHECK(kvBytesPerToken16(catalogModel("qwen3.5-0.8b")) == 12288);
    // Qwen3.5-4B official config: 8 full layers of 4 KV heads x 256 = 32 KiB; 24 Gated DeltaNet layers with
    // 32 value heads x 128 x 128 and 2 x 16 x 128 + 32 x 128 = 8,192 conv channels, as in the 9B.
    CHECK(kvBytesPerToken16(catalogModel("qwen3.5-4b")) == 32768);
    CHECK(linearStateBytesPerSequence16(catalogModel("qwen3.5-4b")) == 24.0 * (524288 + 24576) * 2);
    // The 45 Gated DeltaNet layers keep a fixed state per sequence: the recurrent
    // state 64 value heads x 128 key dim x 128 value dim = 1,048,576 elements, plus
    // the convolution's last 3 inputs (linear_conv_kernel_dim 4) over
    // 2 x 16 x 128 (q, k) + 64 x 128 (v) = 12,288 channels = 36,864 elements;
    // 45 x 1,085,440 x 2 B = 97,689,600 B.
    CHECK(linearStateBytesPerSequence16(catalogModel("qwen3.5-397b-a17b")) == 97689600);
}

TEST_CASE("hybrid Mamba-2 models cache KV only on their attention blocks", "[params][kv][hybrid]") {
    // nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16 config.json hybrid_override_pattern
    // has 6 '*' (attention) of 52 blocks; 2 KV heads x head_dim 128:
    // 2 x 6 x 2 x 128 x 2 B = 6,144 B per token.
    CHECK(kvBytesPerToken16(catalogModel("nemotron-3-nano-30b-a3b")) == 6144);
    // 23 'M' blocks: SSM state 64 heads x 64 head dim x 128 state = 524,288, plus
    // conv_kernel - 1 = 3 inputs of 64 x 64 + 2 x 8 groups x 128 = 6,144 channels
    // = 18,432; 23 x 542,720 x 2 B = 24,965,120 B per sequence.
    CHECK(linearStateBytesPerSequence16(catalogModel("nemotron-3-nano-30b-a3b")) == 24965120);
    // Nemotron-H-56B: 10 attention blocks of 118, 8 KV heads x 128: 2 x 10 x 8 x 128 x 2 = 40,960.
    CHECK(kvBytesPerToken16(catalogModel("nemotron-h-56b")) == 40960);
}

TEST_CASE("sparse-attention models add the indexer's key to the MLA cache", "[params][kv][sparse]") {
    // deepseek-ai/DeepSeek-V3.2 config.json: 61 layers x (kv_lora_rank 512 +
    // qk_rope_head_dim 64) x 2 B = 70,272 B, plus the lightning indexer's
    // 128-wide key (index_head_dim) per layer: 61 x 128 x 2 B = 15,616 B.
    CHECK(kvBytesPerToken16(catalogModel("deepseek-v3.2")) == 70272 + 15616);
    // zai-org/GLM-5 config.json: 78 layers x (512 + 64) x 2 B = 89,856 B plus 78 x 128 x 2 B = 19,968 B.
    CHECK(kvBytesPerToken16(catalogModel("glm-5")) == 89856 + 19968);
    // DeepSeek-V3.1 keeps dense MLA: 61 x 576 x 2 B.
    CHECK(kvBytesPerToken16(catalogModel("deepseek-v3.1")) == 70272);
}

TEST_CASE("new families match their published parameter counts", "[params][catalog]") {
    // Published figures are rounded; the tolerance is half of the last digit.
    // Qwen3.5-397B-A17B model card: 397B total, 17B activated.
    CHECK(billions("qwen3.5-397b-a17b") == Approx(397).margin(0.5));
    // Qwen3.5-2B-Base safetensors header (summed tensor shapes): text tower 1,881,825,088
    // and vision tower 331,416,576; the 60,828,160-parameter MTP block is counted apart.
    CHECK(countParams(catalogModel("qwen3.5-2b")).total == 1881825088.0 + 331416576.0);
    CHECK(countParams(catalogModel("qwen3.5-2b")).mtp == 60828160.0);
    // Qwen3.5-0.8B without its vision tower is published as a 0.75B model (huggingface.co/Larxel/Qwen3.5-0.75B,
    // "about 100 million parameters smaller"); the tower here is 100,592,896.
    const ModelSpec& small = catalogModel("qwen3.5-0.8b");
    CHECK((countParams(small).total - small.extraParams) / 1e9 == Approx(0.75).margin(0.005));
    CHECK(small.extraParams == 100592896);
    // Qwen3-Coder-480B-A35B-Instruct model card: 480B total, 35B activated.
    CHECK(billions("qwen3-coder-480b-a35b") == Approx(480).margin(0.5));
    CHECK(countParams(catalogModel("qwen3-coder-480b-a35b")).active / 1e9 == Approx(35).margin(0.5));
    // GLM-5 model card: 744B total parameters.
    CHECK(billions("glm-5") == Approx(744).margin(0.5));
    // NVIDIA Nemotron 3 Nano 30B-A3B: 31.6B parameters (model card of the BF16 checkpoint).
    CHECK(billions("nemotron-3-nano-30b-a3b") == Approx(31.6).margin(0.05));
    // DeepSeek-V3.2 on the hub: 685B = the 671B model + the MTP module with its
    // own copies of the embedding and output head (DeepSeek-V3 report, sec. 2.2).
    const caliper::ParamCounts v32 = countParams(catalogModel("deepseek-v3.2"));
    const ModelSpec& m = catalogModel("deepseek-v3.2");
    const double embedAndHead = 2.0 * m.vocabSize * m.hiddenSize;
    CHECK((v32.total + v32.mtp + embedAndHead) / 1e9 == Approx(685).margin(0.5));
}

TEST_CASE("every catalog entry has a release date in its release year", "[catalog]") {
    for (const ModelSpec& m : caliper::test::projectCatalog().models) {
        INFO(m.id);
        REQUIRE(m.releaseDate.size() >= 7);
        CHECK(std::stoi(m.releaseDate.substr(0, 4)) == m.releaseYear);
    }
}

TEST_CASE("bad entries for the new model fields give their own error and pointer", "[catalog][errors]") {
    struct Case {
        const char* file;
        const char* code;
        const char* path;
        const char* messagePart;
    };
    const Case c = GENERATE(values<Case>({
        {"models_bad_release_date.json", "invalid_value", "/models/0/release_date", "YYYY-MM-DD or YYYY-MM"},
        {"models_release_date_other_year.json", "invalid_value", "/models/0/release_date", "in release_year 2026"},
        {"models_missing_release_date.json", "missing_key", "/models/0/release_date", "release_date"},
        {"models_bad_linear_kind.json", "invalid_value", "/models/0/linear_attention/kind", "rwkv7"},
        {"models_linear_too_many_layers.json", "invalid_value", "/models/0/linear_attention/layers", "exceed"},
        {"models_linear_missing_key.json", "", "/models/0/linear_attention/conv_kernel", "conv_kernel"},
        {"models_bad_sparse_attention.json", "invalid_value", "/models/0/sparse_attention/index_heads", "expected"},
        // qwen3.5-27b has 16 full-attention layers beside its 48 linear ones.
        {"models_too_many_index_layers.json", "invalid_value", "/models/0/sparse_attention/index_layers",
         "more indexer layers than the 16 attention layers"},
        {"models_negative_mtp_layers.json", "invalid_value", "/models/0/mtp_layers", "expected"},
        {"models_string_output_gate.json", "", "/models/0/attn_output_gate", "true or false"},
        {"models_hybrid_kv_mismatch.json", "invalid_value", "/models/0/kv_bytes_per_token", "(65536)"},
    }));
    INFO(c.file);
    const caliper::Error error = fixtureError(c.file);
    INFO(error.code << " " << error.path << ": " << error.message);
    if (*c.code) CHECK(error.code == c.code);
    CHECK(error.path == c.path);
    CHECK(error.message.find(c.messagePart) != std::string::npos);
}

TEST_CASE("the valid hybrid fixture loads", "[catalog]") {
    const std::string gpus = readText(std::string(CALIPER_DATA_DIR) + "/gpus.json");
    const std::string models = readText(std::string(CALIPER_FIXTURES_DIR) + "/bad_catalog/models_valid.json");
    const caliper::Catalog catalog = caliper::parseCatalog(gpus, models);
    REQUIRE(catalog.models.size() == 1);
    CHECK(catalog.models[0].linear.layers == 48);
    CHECK(catalog.models[0].attnOutputGate);
}

namespace {

caliper::ModelSpec configFixture(const std::string& name, std::vector<caliper::Warning>* warnings) {
    const Json config = caliper::test::fixtureConfig(name);
    return caliper::io::modelFromHfConfig(config, "/model", warnings);
}

}  // namespace

TEST_CASE("GLM-4.5-Air's config.json reads as the 106B mixture of experts", "[hf_config][moe]") {
    // zai-org/GLM-4.5-Air model card: 106B total, 12B active parameters. The
    // card leaves out the 151,552 x 4,096 input and output tables (2 x 0.62B)
    // in the active figure; the count here has them: 106.85B total, 13.42B active.
    std::vector<caliper::Warning> warnings;
    const caliper::ModelSpec m = configFixture("glm-4.5-air.json", &warnings);
    const caliper::ParamCounts known = countParams(m);
    CHECK(warnings.empty());
    CHECK(known.total / 1e9 == Approx(106).margin(1.0));
    CHECK((known.active - known.embedding) / 1e9 == Approx(12).margin(0.5));
    CHECK(m.mtpLayers == 1);  // num_nextn_predict_layers: the 47th layer of the checkpoint
}

TEST_CASE("an unknown model_type with expert keys reads as a mixture of experts, with a warning", "[hf_config][moe]") {
    // The GLM-4.5-Air config under a model_type no reader knows: the expert keys
    // (n_routed_experts, moe_intermediate_size, n_shared_experts,
    // first_k_dense_replace) still give 106B total, not a 12.4B dense model.
    std::vector<caliper::Warning> warnings;
    const caliper::ModelSpec m = configFixture("custom-unknown-moe.json", &warnings);
    CHECK(m.moe.experts == 128);
    CHECK(m.moe.expertsPerToken == 8);
    CHECK(m.moe.sharedExperts == 1);
    CHECK(m.moe.denseLayers == 1);
    CHECK(countParams(m).total / 1e9 == Approx(106).margin(1.0));
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0].code == "unknown_model_type");
    CHECK(warnings[0].message.find("my-lab/GLM-4.5-Air-continued") != std::string::npos);  // the user's name for it
    CHECK(warnings[0].message.find("128 experts") != std::string::npos);
}

TEST_CASE("hybrid and sparse-attention config.json files read their new fields", "[hf_config][hybrid]") {
    std::vector<caliper::Warning> warnings;
    const caliper::ModelSpec qwen = configFixture("qwen3.5-397b-a17b.json", &warnings);
    CHECK(qwen.linear.layers == 45);  // layer_types: 45 linear_attention, 15 full_attention
    CHECK(qwen.attnOutputGate);
    CHECK(qwen.mtpLayers == 1);
    const caliper::ModelSpec nano = configFixture("nemotron-3-nano-30b-a3b.json", &warnings);
    CHECK(nano.linear.layers == 23);
    CHECK(nano.linear.ffnOnlyLayers == 23);
    const caliper::ModelSpec dsa = configFixture("deepseek-v3.2.json", &warnings);
    CHECK(dsa.sparse.indexHeads == 64);
    CHECK(dsa.sparse.indexTopk == 2048);
    CHECK(warnings.empty());
}

TEST_CASE("the fixed linear-attention state is held per sequence in serving memory", "[memory][hybrid]") {
    // Qwen3.5-27B on one H200 in vLLM (state in the model's 16-bit dtype): 48
    // Gated DeltaNet layers x (48 value heads x 128 x 128 + 3 x (2 x 16 x 128 +
    // 48 x 128)) = 48 x 817,152 elements x 2 B = 78,446,592 B per sequence;
    // 8 sequences = 627,572,736 B = 0.58447 GiB, whatever the context length.
    for (const int prompt : {1024, 32768}) {
        const std::string request = R"({"model":"qwen3.5-27b","gpu":"h200-sxm-141gb","gpu_count":1,"engine":"vllm","batch":8,"prompt_tokens":)" +
                                    std::to_string(prompt) + R"(,"output_tokens":256})";
        const caliper::ApiResponse response = caliper::estimateJson(caliper::test::projectCatalog(), request);
        INFO(response.json.substr(0, 400));
        REQUIRE(response.status == 0);
        const Json result = Json::parse(response.json);
        double stateGib = -1;
        for (const Json& term : result.at("explain")) {
            if (term.at("term") == "linear_state_gib") stateGib = term.at("value").get<double>();
        }
        CHECK(stateGib == Approx(627572736.0 / 1073741824.0).epsilon(1e-3));
    }
}

TEST_CASE("more 2024-2026 releases match their published sizes", "[params][catalog]") {
    // transformers docs qwen3_next: Qwen3-Next-80B-A3B has 80B total parameters.
    CHECK(billions("qwen3-next-80b-a3b") == Approx(80).margin(0.5));
    // Phi-4-Mini technical report (arXiv:2503.01743): 3.8B parameters.
    CHECK(billions("phi-4-mini") == Approx(3.8).margin(0.05));
    // Mistral-Small-3.1-24B-Instruct-2503 model card: 24B, text model plus vision encoder.
    CHECK(billions("mistral-small-3.1-24b") == Approx(24).margin(0.5));
    // Gemma 3 270M announcement: 170M embedding parameters and 100M in the transformer blocks.
    const caliper::ParamCounts g = countParams(catalogModel("gemma-3-270m"));
    CHECK(g.embedding / 1e6 == Approx(170).margin(5));
    CHECK((g.total - g.embedding) / 1e6 == Approx(100).margin(5));
    // Qwen2.5-Coder-7B has Qwen2.5-7B's layers (Qwen2.5-Coder report, Table 1):
    // the exact safetensors count of Qwen2.5-7B, 7,615,616,512 (its card: "7.61B").
    CHECK(countParams(catalogModel("qwen2.5-coder-7b")).total == 7615616512.0);
}

TEST_CASE("expert keys at 0 leave an unknown model_type dense", "[hf_config][moe]") {
    // Dense configs often carry "num_local_experts": 0 and "num_experts_per_tok": 0.
    Json config = caliper::test::fixtureConfig("custom-unknown-type.json");
    config["num_local_experts"] = 0;
    config["num_experts_per_tok"] = 0;
    std::vector<caliper::Warning> warnings;
    const caliper::ModelSpec m = caliper::io::modelFromHfConfig(config, "/model", &warnings);
    CHECK(m.moe.experts == 0);
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0].message.find("dense decoder") != std::string::npos);
}

TEST_CASE("Granite 4.0 hybrid config.json reads its Mamba-2 layers", "[hf_config][hybrid]") {
    // layer_types: 28 "mamba", 4 "attention"; 4 KV heads x head_dim 64 (768 / 12):
    // 2 x 4 x 4 x 64 x 2 B = 4,096 B per token.
    std::vector<caliper::Warning> warnings;
    const caliper::ModelSpec m = configFixture("granite-4.0-h-350m.json", &warnings);
    CHECK(warnings.empty());
    CHECK(m.linear.layers == 28);
    CHECK(kvBytesPerToken16(m) == 4096);
}

TEST_CASE("InternLM3, Hunyuan dense, Nemotron Nano 2, Granite 4.0 H 1B and GLM-4.7 match their published sizes", "[params][catalog]") {
    // internlm/internlm3-8b-instruct: bf16 safetensors of 9.93 + 7.68 GB = 17.61 GB, 8.80B parameters.
    CHECK(std::round(billions("internlm3-8b") * 100) == 880);
    // Hugging Face size badges of tencent/Hunyuan-7B-Pretrain ("8B") and Hunyuan-4B-Instruct ("4B").
    CHECK(std::round(billions("hunyuan-7b")) == 8);
    CHECK(std::round(billions("hunyuan-4b")) == 4);
    // nemotron-nano-9b-v2-f16.gguf is 17.8 GB: 8.9B parameters at 2 bytes each.
    CHECK(std::round(billions("nemotron-nano-9b-v2") * 10) == 89);
    // GLM-4.7 keeps GLM-4.5/4.6's layers (config.json: 89 MoE layers of 160 experts of 3 x 5,120 x 1,536);
    // Z.ai names it 355B total, 32B active.
    CHECK(countParams(catalogModel("glm-4.7")).expert == 89.0 * 160 * 3 * 5120 * 1536);
    CHECK(billions("glm-4.7") == Approx(355).epsilon(0.01));
    CHECK(countParams(catalogModel("glm-4.7")).active / 1e9 == Approx(32).epsilon(0.06));
}

TEST_CASE("KV bytes per token of InternLM3, Hunyuan dense, Nemotron Nano 2, Granite 4.0 H 1B and GLM-4.7 follow their configs", "[params][kv]") {
    CHECK(kvBytesPerToken16(catalogModel("internlm3-8b")) == 49152);  // 2 x 48 x 2 x 128 x 2
    CHECK(kvBytesPerToken16(catalogModel("hunyuan-7b")) == 131072);   // 2 x 32 x 8 x 128 x 2
    CHECK(kvBytesPerToken16(catalogModel("hunyuan-4b")) == 147456);   // 2 x 36 x 8 x 128 x 2
    // Granite 4.0 H 1B: 4 attention layers of 40 (layer_types), 2 x 4 x 4 x 128 x 2.
    CHECK(kvBytesPerToken16(catalogModel("granite-4.0-h-1b")) == 8192);
    CHECK(catalogModel("granite-4.0-h-1b").linear.layers == 36);
    // Nemotron Nano 9B v2: 4 attention blocks of 56 (hybrid_override_pattern), 2 x 4 x 8 x 128 x 2.
    CHECK(kvBytesPerToken16(catalogModel("nemotron-nano-9b-v2")) == 16384);
    // GLM-4.7: the architecture gallery's 368 KiB per token = 2 x 92 x 8 x 128 x 2 bytes.
    CHECK(kvBytesPerToken16(catalogModel("glm-4.7")) == 368 * 1024);
}

TEST_CASE("the added models resolve by the names people type", "[catalog][names]") {
    const caliper::Catalog& catalog = caliper::test::projectCatalog();
    const std::vector<std::pair<std::string, std::string>> names = {
        {"internlm/internlm3-8b-instruct", "internlm3-8b"}, {"InternLM3", "internlm3-8b"},
        {"tencent/Hunyuan-7B-Instruct", "hunyuan-7b"},      {"混元7B", "hunyuan-7b"},
        {"Hunyuan-4B-Instruct", "hunyuan-4b"},              {"granite4:1b-h", "granite-4.0-h-1b"},
        {"ibm-granite/granite-4.0-h-1b", "granite-4.0-h-1b"}, {"zai-org/GLM-4.7", "glm-4.7"},
        {"GLM 4.7", "glm-4.7"},                             {"nvidia/NVIDIA-Nemotron-Nano-9B-v2", "nemotron-nano-9b-v2"},                             {"GLM-4.7-Flash", "glm-4.7-flash"}};
    for (const auto& [name, id] : names) {
        INFO(name);
        const ModelSpec* m = caliper::findModel(catalog, name);
        REQUIRE(m != nullptr);
        CHECK(m->id == id);
    }
}

TEST_CASE("SmolLM3 3B counts and caches as its config.json says", "[params][kv][catalog]") {
    // HuggingFaceTB/SmolLM3-3B config.json: 36 layers, hidden 2,048, 16 heads / 4 KV
    // heads of 128, SwiGLU 11,008, vocabulary 128,256, tied embeddings, no biases:
    // 128,256 x 2,048 + 36 x (2 x 2,048^2 + 2 x 2,048 x 512 + 3 x 2,048 x 11,008 + 2 x 2,048) + 2,048
    // = 3,075,098,624 (the card's "3.08B").
    CHECK(countParams(catalogModel("smollm3-3b")).total == 3075098624.0);
    // NoPE layers (every 4th) keep their KV: 2 x 36 x 4 x 128 x 2 bytes.
    CHECK(kvBytesPerToken16(catalogModel("smollm3-3b")) == 73728);
    const caliper::Catalog& catalog = caliper::test::projectCatalog();
    for (const char* name : {"HuggingFaceTB/SmolLM3-3B", "SmolLM3-3B", "smollm3:3b"}) {
        INFO(name);
        const ModelSpec* m = caliper::findModel(catalog, name);
        REQUIRE(m != nullptr);
        CHECK(m->id == "smollm3-3b");
    }
}

TEST_CASE("a repository name without its organisation and Ollama's tags find the model", "[catalog][names]") {
    const caliper::Catalog& catalog = caliper::test::projectCatalog();
    const std::vector<std::pair<std::string, std::string>> names = {
        // The catalog lists these as microsoft/... ids: same-shape releases of Phi-4 and Phi-4-mini.
        {"Phi-4-reasoning-plus", "phi-4-reasoning"},
        {"Phi-4-mini-reasoning", "phi-4-mini"},
        {"Qwen3-VL-30B-A3B-Thinking", "qwen3-vl-30b-a3b"},
        // Ollama's library tag: the family name and the total size.
        {"qwen3-next:80b", "qwen3-next-80b-a3b"}};
    for (const auto& [name, id] : names) {
        INFO(name);
        const ModelSpec* m = caliper::findModel(catalog, name);
        REQUIRE(m != nullptr);
        CHECK(m->id == id);
    }
}
