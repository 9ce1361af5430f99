// Parameter counts and KV-cache bytes computed from the catalog's
// architectures, against published exact counts and hand-checked layouts.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "caliper/model.hpp"
#include "caliper/workloads/workloads.hpp"
#include "catalog_fixture.hpp"

using caliper::test::catalogModel;
using caliper::countParams;
using caliper::kvBytesPerToken16;
using caliper::ModelSpec;
using caliper::ParamCounts;

namespace {

double total(const std::string& id) { return countParams(catalogModel(id)).total; }

}  // namespace

TEST_CASE("dense totals equal the published exact counts", "[params]") {
    // meta-llama/Llama-2-7b-hf safetensors: 6,738,415,616 F16 parameters
    // (plus 2,048 F32 rotary buffers, which are not parameters).
    CHECK(total("llama-2-7b") == 6738415616.0);
    // meta-llama/Meta-Llama-3-8B safetensors: 8,030,261,248 BF16 parameters.
    CHECK(total("llama-3-8b") == 8030261248.0);
    // GPT-NeoX-20B paper (Black et al. 2022, arXiv:2204.06745): 20,554,567,680.
    CHECK(total("gpt-neox-20b") == 20554567680.0);
    // BLOOM model card (bigscience/bloom): 176,247,271,424 parameters.
    CHECK(total("bloom-176b") == 176247271424.0);
}

TEST_CASE("DeepSeek-V3 matches its technical report", "[params][moe]") {
    // DeepSeek-V3 technical report (arXiv:2412.19437): 671B total parameters,
    // 37B activated per token; the count here includes the input embedding and
    // the lm_head in the active figure (37.5B), as in the catalog's notes.
    const ParamCounts p = countParams(catalogModel("deepseek-v3"));
    CHECK(p.total == Approx(671.0e9).epsilon(0.003));
    CHECK(p.active == Approx(37.5e9).epsilon(0.003));
    // Routed experts: 58 MoE layers x 256 experts x 3 matrices of 7,168 x 2,048
    // (config.json: first_k_dense_replace 3 of 61 layers, moe_intermediate_size 2048).
    CHECK(p.expert == 58.0 * 256 * 3 * 7168 * 2048);
}

TEST_CASE("ERNIE 4.5, Hunyuan-A13B and Seed-OSS match their published sizes", "[params][moe]") {
    // No exact safetensors counts are published for these; the checks are the
    // routed-expert arithmetic of each config.json and the vendors' rounded sizes.
    // ERNIE 4.5 21B-A3B config: MoE in layers 1-27, 64 experts of 3 x 2,560 x 1,536.
    const ParamCounts ernieSmall = countParams(catalogModel("ernie-4.5-21b-a3b"));
    CHECK(ernieSmall.expert == 27.0 * 64 * 3 * 2560 * 1536);
    // Baidu names it 21B total, 3B active (truncated: the architecture gives 21.8B and 3.35B).
    CHECK(std::floor(ernieSmall.total / 1e9) == 21);
    CHECK(std::floor(ernieSmall.active / 1e9) == 3);
    // ERNIE 4.5 300B-A47B config: MoE in layers 3-53, 64 experts of 3 x 8,192 x 3,584;
    // published 300B total and 47B active (transformers model doc, ERNIE 4.5 release).
    const ParamCounts ernieLarge = countParams(catalogModel("ernie-4.5-300b-a47b"));
    CHECK(ernieLarge.expert == 51.0 * 64 * 3 * 8192 * 3584);
    CHECK(ernieLarge.total == Approx(300e9).epsilon(0.005));
    CHECK(ernieLarge.active == Approx(47e9).epsilon(0.005));
    // Hunyuan-A13B README: 80B total, 13B active; every one of 32 layers has 64 experts of 3 x 4,096 x 3,072.
    const ParamCounts hunyuan = countParams(catalogModel("hunyuan-a13b"));
    CHECK(hunyuan.expert == 32.0 * 64 * 3 * 4096 * 3072);
    CHECK(std::round(hunyuan.total / 1e9) == 80);
    CHECK(std::round(hunyuan.active / 1e9) == 13);
    // Seed-OSS-36B: 36.2B parameters as listed for the Hugging Face release (whatmodel.sh page).
    CHECK(std::round(total("seed-oss-36b") / 1e8) == 362);
}

TEST_CASE("InternVL3 1B's vision tower matches InternViT-300M's published size", "[params]") {
    // OpenGVLab's InternVL collection lists InternViT-300M-448px at 304M parameters; the
    // catalog's extra_params holds that tower plus the printed mlp1 projector:
    // LayerNorm(4,096) + Linear(4,096 -> 896) + Linear(896 -> 896), with biases.
    const double projector = 2.0 * 4096 + (4096.0 * 896 + 896) + (896.0 * 896 + 896);
    CHECK(std::round((static_cast<double>(catalogModel("internvl3-1b").extraParams) - projector) / 1e6) == 304);
}

TEST_CASE("Kimi-VL, InternVL3 38B / 78B and the Granite 4.0 hybrids match their published sizes", "[params]") {
    // Kimi-VL-A3B's seven bf16 safetensors shards hold 4.99 + 5 + 5 + 5 + 5 + 5 + 2.84 GB
    // (Hugging Face file listing) = 16.4B parameters; the text model alone is the
    // 16B Moonlight shape, the rest is the MoonViT tower and projector in extra_params.
    CHECK(std::round(total("kimi-vl-a3b-instruct") / 1e8) == 164);
    CHECK(catalogModel("kimi-vl-a3b-instruct").extraParams > 400000000LL);
    // InternVL3 report (arXiv:2504.10479): 38.4B and 78.4B with the InternViT-6B tower.
    CHECK(std::round(total("internvl3-38b") / 1e8) == 384);
    CHECK(std::round(total("internvl3-78b") / 1e8) == 784);
    // IBM Granite 4.0 docs: H Small 32B total / 9B activated, H Tiny 7B total.
    CHECK(std::round(total("granite-4.0-h-small") / 1e9) == 32);
    CHECK(std::round(countParams(catalogModel("granite-4.0-h-small")).active / 1e9) == 9);
    CHECK(std::round(total("granite-4.0-h-tiny") / 1e9) == 7);
    // KV only on the attention layers: 4 of Granite 4.0 H Small's 40 (2 x 4 x 8 x 128 x 2 B),
    // 5 of Nemotron-H 47B's 98 blocks; Kimi-VL caches MLA latents (27 x (512 + 64) x 2 B).
    CHECK(kvBytesPerToken16(catalogModel("granite-4.0-h-small")) == 16384);
    CHECK(kvBytesPerToken16(catalogModel("nemotron-h-47b")) == 20480);
    CHECK(kvBytesPerToken16(catalogModel("kimi-vl-a3b-instruct")) == 31104);
}

TEST_CASE("KV bytes per token of the added 2025 families follow their configs", "[params][kv]") {
    CHECK(kvBytesPerToken16(catalogModel("ernie-4.5-0.3b")) == 18432);        // 2 x 18 x 2 x 128 x 2
    CHECK(kvBytesPerToken16(catalogModel("ernie-4.5-21b-a3b")) == 57344);     // 2 x 28 x 4 x 128 x 2
    CHECK(kvBytesPerToken16(catalogModel("ernie-4.5-300b-a47b")) == 221184);  // 2 x 54 x 8 x 128 x 2
    CHECK(kvBytesPerToken16(catalogModel("hunyuan-a13b")) == 131072);         // 2 x 32 x 8 x 128 x 2
    CHECK(kvBytesPerToken16(catalogModel("seed-oss-36b")) == 262144);         // 2 x 64 x 8 x 128 x 2
    CHECK(kvBytesPerToken16(catalogModel("internvl3-1b")) == 12288);          // 2 x 24 x 2 x 64 x 2
    // MiniMax-M2: the architecture gallery's 248 KiB per token = 2 x 62 x 8 x 128 x 2 bytes.
    CHECK(kvBytesPerToken16(catalogModel("minimax-m2")) == 248 * 1024);
}

TEST_CASE("Gemma 3n and Magistral Small match their published sizes", "[params]") {
    // maceip/gemma3n-executorch e2b/README_HF.md: the text-only export of
    // google/gemma-3n-E2B-it (language model and tied lm_head, no vision or
    // audio tower) has 4.46B parameters; the catalog's text stack with the
    // per-layer embeddings, AltUp and LAuReL weights in extra_params gives 4.456B.
    CHECK(std::round(total("gemma-3n-e2b") / 1e7) == 446);
    // The per-layer embedding table alone: 262,144 x layers x 256
    // (ai-edge-torch gemma3n.py: vocab_size_per_layer_input, hidden_size_per_layer_input).
    CHECK(catalogModel("gemma-3n-e2b").extraParams > 262144LL * 30 * 256);
    CHECK(catalogModel("gemma-3n-e4b").extraParams > 262144LL * 35 * 256);
    // Google names E4B '8B raw' with the vision and audio encoders, which the
    // catalog leaves out (not in the sources' counts): the text stack is below it.
    CHECK(total("gemma-3n-e4b") == Approx(6.867e9).epsilon(0.001));
    CHECK(total("gemma-3n-e4b") < 8e9);
    // Magistral Small (Mistral docs: 24B): 2506 is the Mistral Small 3.1 text
    // stack (the shape of Devstral Small 2505), 2509 adds its Pixtral encoder.
    CHECK(total("magistral-small-2506") == total("devstral-small-2505"));
    CHECK(total("magistral-small-2509") == total("mistral-small-3.2-24b"));
    CHECK(std::round(total("magistral-small-2509") / 1e9) == 24);
    // KV per token over all 30 / 35 layers (2 x 2 KV heads x 256 x 2 bytes each);
    // KV sharing of the last 10 / 15 layers is not expressible, so this is an upper bound.
    CHECK(kvBytesPerToken16(catalogModel("gemma-3n-e2b")) == 30 * 2048);
    CHECK(kvBytesPerToken16(catalogModel("gemma-3n-e4b")) == 35 * 2048);
}

TEST_CASE("every catalog model with an exact published count matches it", "[params][catalog]") {
    // Differences the sources explain: Qwen3 0.6B and 1.7B tie their
    // embeddings but their safetensors also store lm_head.weight, so the
    // published count exceeds the unique parameters by vocab x hidden.
    const std::map<std::string, const char*> storedTwice = {{"qwen3-0.6b", "lm_head stored although tied"},
                                                            {"qwen3-1.7b", "lm_head stored although tied"}};
    int checked = 0;
    for (const ModelSpec& m : caliper::test::projectCatalog().models) {
        if (m.paramsExact <= 0) continue;
        INFO(m.id);
        const double computed = countParams(m).total;
        const double exact = static_cast<double>(m.paramsExact);
        if (storedTwice.count(m.id)) {
            CHECK(exact - computed == static_cast<double>(m.vocabSize) * m.hiddenSize);
        } else {
            CHECK(computed == exact);
        }
        ++checked;
    }
    CHECK(checked >= 30);  // data/models.json carries exact counts for 34 models
}

TEST_CASE("catalog params_b, active_params_b and kv_bytes_per_token agree with the architecture",
          "[params][catalog]") {
    const auto root = nlohmann::json::parse(caliper::test::readText(std::string(CALIPER_DATA_DIR) + "/models.json"));
    for (const auto& entry : root.at("models")) {
        const std::string id = entry.at("id").get<std::string>();
        INFO(id);
        const ParamCounts p = countParams(catalogModel(id));
        // the catalog writes billions to three decimals; a speech or diffusion
        // pipeline's size is the sum of its components (workload_shape)
        const bool pipeline = caliper::hasPipeline(catalogModel(id)) && catalogModel(id).workload != caliper::WorkloadKind::Embedding;
        const double total = pipeline ? caliper::pipelineParams(catalogModel(id)) : p.total;
        const double active = pipeline ? total : p.active;
        CHECK(std::fabs(entry.at("params_b").get<double>() * 1e9 - total) <= 0.5e6 + 1);
        CHECK(std::fabs(entry.at("active_params_b").get<double>() * 1e9 - active) <= 0.5e6 + 1);
        CHECK(entry.at("kv_bytes_per_token").get<double>() == kvBytesPerToken16(catalogModel(id)));
        CHECK(p.active <= p.total);
        CHECK(p.linear + p.embedding <= p.total);
        CHECK(p.expert <= p.linear);
    }
}

TEST_CASE("KV bytes per token follow the attention layout", "[params][kv]") {
    // Worked values from the model reference (2 x layers x KV heads x head_dim x 2 B):
    CHECK(kvBytesPerToken16(catalogModel("llama-3.1-70b")) == 327680);  // 2 x 80 x 8 x 128 x 2
    CHECK(kvBytesPerToken16(catalogModel("llama-2-7b")) == 524288);     // 2 x 32 x 32 x 128 x 2 (MHA)
    CHECK(kvBytesPerToken16(catalogModel("falcon-7b")) == 8192);        // one K/V head: 2 x 32 x 1 x 64 x 2
    // Gemma 3 27B: every layer counted, the 1,024-token window is not capped here.
    CHECK(kvBytesPerToken16(catalogModel("gemma-3-27b")) == 507904);  // 2 x 62 x 16 x 128 x 2
    // MLA caches one 512-wide latent plus one 64-wide RoPE key per layer.
    CHECK(kvBytesPerToken16(catalogModel("deepseek-v3")) == 70272);      // 61 x (512 + 64) x 2
    CHECK(kvBytesPerToken16(catalogModel("deepseek-v2-lite")) == 31104);  // 27 x (512 + 64) x 2
    CHECK(kvBytesPerToken16(catalogModel("kimi-k2")) == 70272);
    // Llama 3.2 11B Vision: 8 of 40 layers are cross-attention (image tokens).
    CHECK(kvBytesPerToken16(catalogModel("llama-3.2-11b-vision")) == 131072);  // 2 x 32 x 8 x 128 x 2
    // Whisper: decoder self-attention only, all 32 layers.
    CHECK(kvBytesPerToken16(catalogModel("whisper-large-v3")) == 163840);  // 2 x 32 x 20 x 64 x 2
}

TEST_CASE("the breakdown separates embeddings, block weights and experts", "[params]") {
    // Llama 2 7B (config.json: hidden 4096, 32 layers, MLP 11008, vocab 32000, untied).
    const ParamCounts llama = countParams(catalogModel("llama-2-7b"));
    CHECK(llama.embedding == 2.0 * 32000 * 4096);
    CHECK(llama.linear == 32.0 * (4.0 * 4096 * 4096 + 3.0 * 4096 * 11008));
    CHECK(llama.total - llama.linear - llama.embedding == 32.0 * 2 * 4096 + 4096);  // RMSNorm vectors
    CHECK(llama.largestLinear == 4096.0 * 11008);
    CHECK(llama.expert == 0);
    CHECK(llama.active == llama.total);

    // Llama 3.2 1B ties its embeddings: one 128,256 x 2,048 table.
    CHECK(countParams(catalogModel("llama-3.2-1b")).embedding == 128256.0 * 2048);

    // Mixtral 8x7B: 32 layers x 8 experts x 3 x 4,096 x 14,336 expert weights,
    // 2 of 8 used per token; Mistral AI states 46.7B total and 12.9B active.
    const ParamCounts mixtral = countParams(catalogModel("mixtral-8x7b"));
    CHECK(mixtral.expert == 32.0 * 8 * 3 * 4096 * 14336);
    CHECK(mixtral.total == Approx(46.7e9).epsilon(0.001));
    CHECK(mixtral.active == Approx(12.9e9).epsilon(0.002));

    // gpt-oss-20b: the MXFP4 expert tensors hold 19,110,297,600 4-bit values
    // (24 layers x 32 experts x (2,880 x 5,760 + 2,880 x 2,880)).
    CHECK(countParams(catalogModel("gpt-oss-20b")).expert == 19110297600.0);

    // Llama 4 Maverick: only the odd layers are MoE (interleave step 2).
    CHECK(countParams(catalogModel("llama-4-maverick")).expert == 24.0 * 128 * 3 * 5120 * 8192);
}

TEST_CASE("each architecture feature adds its parameters", "[params]") {
    // A toy decoder small enough to count by hand: hidden 8, 2 layers, 2 heads
    // of 4, MLP 16, vocabulary 10, untied.
    ModelSpec m;
    m.layers = 2;
    m.hiddenSize = 8;
    m.intermediateSize = 16;
    m.heads = 2;
    m.kvHeads = 2;
    m.headDim = 4;
    m.vocabSize = 10;
    m.maxContext = 32;
    const double attention = 4 * 8 * 8;  // q, k, v, o
    const double gatedMlp = 3 * 8 * 16;
    const double base = 2 * (attention + gatedMlp + 2 * 8) + 2 * 10 * 8 + 8;
    CHECK(countParams(m).total == base);

    ModelSpec gqa = m;
    gqa.kvHeads = 1;  // k and v shrink to 8 x 4 each
    CHECK(countParams(gqa).total == base - 2 * 2 * (8 * 8 - 8 * 4));

    ModelSpec biases = m;
    biases.qkvBias = biases.attnOutBias = biases.mlpBias = true;
    CHECK(countParams(biases).total == base + 2 * (3 * 8 + 8 + (2 * 16 + 8)));

    ModelSpec layerNorm = m;
    layerNorm.norm = caliper::NormKind::LayerNorm;  // each norm gains a bias vector
    CHECK(countParams(layerNorm).total == base + 2 * 2 * 8 + 8);

    ModelSpec learned = m;
    learned.position = caliper::PositionKind::Learned;
    CHECK(countParams(learned).total == base + 32 * 8);

    ModelSpec tied = m;
    tied.tiedEmbeddings = true;
    CHECK(countParams(tied).total == base - 10 * 8);

    ModelSpec plain = m;
    plain.mlp = caliper::MlpKind::Plain;
    CHECK(countParams(plain).total == base - 2 * 8 * 16);

    ModelSpec qkNorm = m;
    qkNorm.qkNorm = true;
    CHECK(countParams(qkNorm).total == base + 2 * 2 * 4);

    ModelSpec encoderDecoder = m;  // 3 encoder layers, a cross block in both decoder layers
    encoderDecoder.encoderLayers = 3;
    encoderDecoder.crossAttentionLayers = 2;
    CHECK(countParams(encoderDecoder).total == base + 3 * (attention + gatedMlp + 2 * 8) + 2 * (attention + 8));
    CHECK(kvBytesPerToken16(encoderDecoder) == kvBytesPerToken16(m));

    ModelSpec crossOnly = m;  // decoder-only: one of the two layers attends to image tokens
    crossOnly.crossAttentionLayers = 1;
    CHECK(countParams(crossOnly).total == base);
    CHECK(kvBytesPerToken16(crossOnly) == kvBytesPerToken16(m) / 2);

    ModelSpec moe = m;  // layer 0 dense, layer 1 with 4 experts of 6 (2 per token) + 1 shared
    moe.moe = {4, 2, 1, 6, 1, 1};
    const double expert = 3 * 8 * 6;
    const ParamCounts p = countParams(moe);
    CHECK(p.total == base - gatedMlp + 8 * 4 + expert + 4 * expert);
    CHECK(p.expert == 4 * expert);
    CHECK(p.active == p.total - 2 * expert);
}

TEST_CASE("multi-head latent attention counts its low-rank projections", "[params][mla]") {
    // One layer of DeepSeek-V3 attention (config.json: hidden 7168, 128 heads,
    // q_lora_rank 1536, kv_lora_rank 512, qk_nope 128, qk_rope 64, v 128).
    ModelSpec m;
    m.layers = 1;
    m.hiddenSize = 7168;
    m.heads = 128;
    m.kvHeads = 128;
    m.headDim = 128;
    m.intermediateSize = 1;
    m.vocabSize = 1;
    m.attention = caliper::AttentionKind::Mla;
    m.mla = {512, 1536, 128, 64, 128};
    const double attention = 7168.0 * 1536 + 1536 + 1536.0 * 128 * 192  // q_a, q_a_layernorm, q_b
                             + 7168.0 * (512 + 64) + 512                  // kv_a_proj_with_mqa, kv_a_layernorm
                             + 512.0 * 128 * (128 + 128)                  // kv_b
                             + 128.0 * 128 * 7168;                        // o
    const double rest = 3.0 * 7168 + 2 * 7168 + 2 * 7168 + 7168;  // MLP of width 1, 2 norms, embeddings, final norm
    CHECK(countParams(m).total == attention + rest);
    CHECK(kvBytesPerToken16(m) == (512 + 64) * 2);
}
