// The serve search's 4-bit builds: a 16-bit checkpoint's AWQ int4 build is
// tried only on a GPU where the request's formats and FP8 serve nothing
// within the SLO, only on GPUs and engines with 4-bit kernels, never where
// the request states its weights, and the deployment names it.
#include <catch2/catch.hpp>

#include <string>

#include "caliper/api.hpp"
#include "caliper/model/formats.hpp"
#include "property_scenarios.hpp"
#include "serve_fixture.hpp"
#include "serving/serving_formats.hpp"
#include "sizing_fixture.hpp"

using namespace caliper;
using caliper::test::projectCatalog;
using caliper::test::PropertyJson;
using caliper::test::served;

namespace {

bool says(const PropertyJson& d, const char* code) {
    for (const auto& why : d["why"]) {
        if (why == code) return true;
    }
    return false;
}

Scenario adapted(const std::string& model, const std::string& gpu, Engine engine = Engine::Vllm) {
    Scenario s = test::serving(model, gpu, engine);
    s.weightsExplicit = false;
    adaptToGpu(s);
    return s;
}

// Qwen2.5-72B for 10 users at 1,024 + 256 tokens, 10 tokens/s each and the
// first token within 5 s.
const std::string kQwen72b = R"("model":"qwen2.5-72b","users":10,"prompt_tokens":1024,"output_tokens":256,)"
                             R"("slo":{"ttft_s":5,"min_user_tokens_per_s":10})";

}  // namespace

TEST_CASE("serve: 4-bit builds are tried only where the engine has 4-bit kernels on the GPU", "[serving][serve][int4]") {
    // vLLM's supported-hardware table: Marlin (GPTQ/AWQ) from Ampere (cc 8.0)
    // on NVIDIA, AWQ/GPTQ not on AMD GPUs; TensorRT-LLM's W4A16 AWQ from
    // Ampere (Model Optimizer support matrix).
    for (const Engine engine : {Engine::Vllm, Engine::Sglang, Engine::TensorrtLlm}) {
        const std::vector<serving::Formats> a6000 = serving::int4FormatsTried(adapted("qwen2.5-72b", "rtx-a6000", engine));
        // The RTX A6000 (Ampere, cc 8.6) has no FP8: one 4-bit entry, with the request's 16-bit KV.
        REQUIRE(a6000.size() == 1);
        CHECK(a6000[0].weights == WeightFormat::AwqInt4);
        CHECK(a6000[0].kv == KvFormat::Bf16);
        // An RTX 4090 (Ada) converts FP8: 4-bit weights with 16-bit KV, then with FP8 KV.
        const std::vector<serving::Formats> ada = serving::int4FormatsTried(adapted("qwen2.5-72b", "rtx-4090", engine));
        REQUIRE(ada.size() == 2);
        CHECK(ada[1].kv == KvFormat::Fp8);
    }
    // Volta (V100, cc 7.0) and Turing (T4, cc 7.5) have no Marlin kernels; MI300X none for AWQ.
    for (const char* gpu : {"v100-sxm2-32gb", "t4", "mi300x"}) {
        INFO(gpu);
        CHECK(serving::int4FormatsTried(adapted("qwen2.5-72b", gpu)).empty());
    }
    // A stated format is the request's; a checkpoint that ships quantized
    // (gpt-oss: MXFP4, DeepSeek-R1: block FP8) is served in its own format.
    Scenario stated = adapted("qwen2.5-72b", "rtx-a6000");
    stated.weightsExplicit = true;
    CHECK(serving::int4FormatsTried(stated).empty());
    CHECK(serving::int4FormatsTried(adapted("gpt-oss-120b", "rtx-a6000")).empty());
    CHECK(serving::int4FormatsTried(adapted("deepseek-r1", "h100-sxm5-80gb")).empty());
    // Nor where such a checkpoint falls back to 16 bits: DeepSeek-R1 under
    // TensorRT-LLM on an A100 (no FP8, no Marlin) loads dequantized, and no
    // AWQ build of it is assumed.
    const Scenario dequantized = adapted("deepseek-r1", "a100-sxm4-80gb", Engine::TensorrtLlm);
    CHECK(dequantized.weights == WeightFormat::Bf16);
    CHECK(serving::int4FormatsTried(dequantized).empty());
    // llama.cpp serves GGUF files of its own quant types.
    CHECK(serving::int4FormatsTried(adapted("qwen2.5-72b", "rtx-a6000", Engine::LlamaCpp)).empty());
}

TEST_CASE("serve: a 72B model on two 48 GB cards is served from its 4-bit build, named as such", "[serving][serve][int4]") {
    // Qwen2.5-72B (72.7e9 parameters) in bf16 is ~135 GiB of weights: more
    // than two RTX A6000s hold (2 x 48 GB = 89.4 GiB), and the A6000 has no
    // FP8. Its AWQ int4 build stores the block weights at 4.15625 bits
    // (4-bit codes + an fp16 scale and a 4-bit zero per 128) and keeps the
    // 2 x 152,064 x 8,192 embedding and lm_head in bf16 (4.6 GiB):
    // ~70.2e9 x 4.15625 / 8 = 36.5e9 B = 34.0 GiB + 4.6 = ~38.6 GiB, which
    // two A6000s hold with room for 10 users' KV (10 x 1,280 tokens x
    // 320 KiB = 3.9 GiB in bf16). A step on two reads ~19.3 GiB a GPU at
    // 768 GB/s: ~15 tokens/s a user, within the 10 asked.
    const PropertyJson open = served("{" + kQwen72b + R"(,"gpu":["rtx-a6000"],"max_gpus":2})");
    REQUIRE(open["deployments"].size() > 0);
    CHECK(open["meets_slo"] == true);
    const ApiResponse sized = estimateJson(projectCatalog(),
        R"({"model":"qwen2.5-72b","gpu":"rtx-a6000","weights":"awq","gpu_count":2})");
    REQUIRE(sized.status == 0);
    CHECK(PropertyJson::parse(sized.json)["memory"]["weights_gib"].get<double>() == Approx(38.6 / 2).margin(0.3));
    for (const auto& d : open["deployments"]) {
        CHECK(d["weights"] == "awq-int4");
        CHECK(d["gpu_count"].get<int>() <= 2);
        CHECK(says(d, "int4_weights_quality_trade"));
        CHECK_FALSE(says(d, "fp8_weights_more_users"));
    }
    // Weights the request states are kept: in bf16 nothing fits two A6000s.
    const PropertyJson stated = served("{" + kQwen72b + R"(,"gpu":["rtx-a6000"],"max_gpus":2,"weights":"bf16"})");
    CHECK(stated["deployments"].empty());
    // A 4-bit format the request names is its own, not the search's: no quality-trade code.
    const PropertyJson asked = served("{" + kQwen72b + R"(,"gpu":["rtx-a6000"],"max_gpus":2,"weights":"awq"})");
    REQUIRE(asked["deployments"].size() > 0);
    CHECK(asked["deployments"][0]["weights"] == "awq-int4");
    CHECK_FALSE(says(asked["deployments"][0], "int4_weights_quality_trade"));
}

TEST_CASE("serve: no 4-bit build where the model's own format meets the SLO on that GPU", "[serving][serve][int4]") {
    // With up to 64 GPUs, four A6000s hold Qwen2.5-72B in bf16 (4 x 33.9
    // GiB) and replicas of them carry 10 users within the SLO: the 16-bit deployments are the
    // answer and no 4-bit build is tried (nor listed).
    const PropertyJson wide = served("{" + kQwen72b + R"(,"gpu":["rtx-a6000"]})");
    REQUIRE(wide["deployments"].size() > 0);
    CHECK(wide["meets_slo"] == true);
    for (const auto& d : wide["deployments"]) CHECK(d["weights"] == "bf16");
    // On H100s FP8 W8A8 serves it within the SLO: FP8, never 4-bit.
    const PropertyJson hopper = served("{" + kQwen72b + R"(,"gpu":["h100-sxm5-80gb"]})");
    REQUIRE(hopper["deployments"].size() > 0);
    for (const auto& d : hopper["deployments"]) CHECK(d["weights"] != "awq-int4");
}

TEST_CASE("serve: across GPUs a 4-bit deployment is tried only on the GPU where the wider formats miss",
          "[serving][serve][int4]") {
    // Llama-3.3-70B for 10 users within two GPUs of each kind: the H200
    // (141 GB) holds it in bf16 on two (or FP8 on one), the RTX A6000 only in
    // 4 bits. Both kinds are listed, each in its own format.
    const PropertyJson both = served(
        R"({"model":"llama-3.3-70b","users":10,"prompt_tokens":1024,"output_tokens":256,"max_gpus":2,"top":20,)"
        R"("gpu":["h200-sxm-141gb","rtx-a6000"],"slo":{"ttft_s":5,"min_user_tokens_per_s":10}})");
    REQUIRE(both["deployments"].size() > 0);
    bool a6000 = false, h200 = false;
    for (const auto& d : both["deployments"]) {
        if (d["gpu"] == "rtx-a6000") {
            a6000 = true;
            CHECK(d["weights"] == "awq-int4");
        } else {
            h200 = true;
            CHECK(d["weights"] != "awq-int4");
        }
    }
    CHECK(a6000);
    CHECK(h200);
}

TEST_CASE("recommend with an SLO searches the 4-bit builds as serve does", "[serving][serve][int4]") {
    const ApiResponse r = recommendJson(projectCatalog(),
        R"({"model":"qwen2.5-72b","task":"inference","gpu":["rtx-a6000"],"batch":10,"max_gpus":2,)"
        R"("prompt_tokens":1024,"output_tokens":256,"slo":{"ttft_s":5,"min_user_tokens_per_s":10}})");
    INFO(r.json.substr(0, 600));
    REQUIRE(r.status == 0);
    const PropertyJson answer = PropertyJson::parse(r.json);
    REQUIRE(answer["deployments"].size() > 0);
    CHECK(answer["deployments"][0]["weights"] == "awq-int4");
}
