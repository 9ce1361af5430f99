// Native checkpoint formats: the new weight formats' storage, their names,
// the default `weights` (the checkpoint's own format where the GPU and
// engine run it) and the kernel path the GPU's support decides.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "caliper/names.hpp"
#include "caliper/api.hpp"
#include "caliper/model/formats.hpp"
#include "api_fixture.hpp"
#include "sizing_fixture.hpp"
#include "result_fixture.hpp"

using caliper::test::hasWarning;
using caliper::test::hasWhy;
using namespace caliper;
using namespace caliper::test;
using Json = nlohmann::json;

namespace {

Scenario inferenceDefaults(const std::string& model, const std::string& gpu, Engine engine = Engine::Vllm) {
    Scenario s = serving(model, gpu, engine);
    s.weightsExplicit = false;
    adaptToGpu(s);
    return s;
}

}  // namespace

TEST_CASE("new weight formats store their scales", "[formats][native]") {
    // NVFP4: 4-bit E2M1 + one 8-bit UE4M3 scale per 16 values = 4 + 8/16.
    CHECK(weightFormatInfo(WeightFormat::Nvfp4).linearBits == Approx(4.5));
    // Block FP8: 8 bits + one FP32 scale per 128 x 128 block = 8 + 32/16384.
    CHECK(weightFormatInfo(WeightFormat::Fp8Block).linearBits == Approx(8.001953125));
    // W4A16 group 128: 4 + fp16 scale/128 + 4-bit zero/128 = 4.15625 (GPTQ layout).
    CHECK(weightFormatInfo(WeightFormat::Int4W4a16).linearBits == Approx(4.15625));
    // W8A8: 8 + one FP32 scale per 4,096-wide output row = 8.0078125.
    CHECK(weightFormatInfo(WeightFormat::Int8W8a8).linearBits == Approx(8.0078125));
    // Quantized checkpoints keep token embeddings and lm_head in 16-bit.
    CHECK(weightFormatInfo(WeightFormat::Nvfp4).embeddingBits == 16);
    CHECK(weightFormatInfo(WeightFormat::Fp8Block).embeddingBits == 16);
}

TEST_CASE("weight format names parse case-insensitively from the serializer's table", "[formats][native]") {
    for (const auto& [f, name] : Names<WeightFormat>::table) {
        const auto parsed = weightFormatFromName(name);
        REQUIRE(parsed);
        CHECK(*parsed == f);
    }
    CHECK(weightFormatFromName("NVFP4") == WeightFormat::Nvfp4);
    CHECK(weightFormatFromName("FP8-Block") == WeightFormat::Fp8Block);
    CHECK(weightFormatFromName("INT4-W4A16") == WeightFormat::Int4W4a16);
    CHECK(weightFormatFromName("w8a8") == WeightFormat::Int8W8a8);
    CHECK_FALSE(weightFormatFromName("fp9"));
}

TEST_CASE("the default weights are the checkpoint's own format where the GPU runs it", "[formats][native]") {
    // gpt-oss ships MXFP4 experts (model card): Hopper has no FP4 tensor
    // cores, so vLLM runs them weight-only (Marlin); Blackwell natively.
    Scenario s = inferenceDefaults("gpt-oss-120b", "h100-sxm5-80gb");
    CHECK(s.weights == WeightFormat::Mxfp4);
    CHECK(std::string(s.weightsWhy) == "weights_native_weight_only");
    CHECK(runsWeightOnly(s));
    s = inferenceDefaults("gpt-oss-120b", "b200");
    CHECK(s.weights == WeightFormat::Mxfp4);
    CHECK(std::string(s.weightsWhy) == "weights_native");
    CHECK_FALSE(runsWeightOnly(s));
    // DeepSeek-R1: block FP8 (config.json weight_block_size [128, 128]).
    s = inferenceDefaults("deepseek-r1", "h200-sxm-141gb");
    CHECK(s.weights == WeightFormat::Fp8Block);
    CHECK(std::string(s.weightsWhy) == "weights_native");
    // A100 (cc 8.0): vLLM's FP8 Marlin kernel, weight-only.
    s = inferenceDefaults("deepseek-r1", "a100-sxm4-80gb");
    CHECK(s.weights == WeightFormat::Fp8Block);
    CHECK(runsWeightOnly(s));
    // V100 (cc 7.0, no bf16): no FP8 path at all, fp16 after conversion.
    s = inferenceDefaults("deepseek-r1", "v100-sxm2-32gb");
    CHECK(s.weights == WeightFormat::Fp16);
    CHECK(std::string(s.weightsWhy) == "weights_native_unsupported");
    // llama.cpp: FP8 checkpoints convert to Q8_0 (same size), MXFP4 stays.
    s = inferenceDefaults("deepseek-r1", "h200-sxm-141gb", Engine::LlamaCpp);
    CHECK(s.weights == WeightFormat::Q8_0);
    s = inferenceDefaults("gpt-oss-20b", "rtx-4090", Engine::LlamaCpp);
    CHECK(s.weights == WeightFormat::Mxfp4);
    // A 16-bit release stays 16-bit.
    s = inferenceDefaults("llama-3.1-8b", "h100-sxm5-80gb");
    CHECK(s.weights == WeightFormat::Bf16);
    CHECK(std::string(s.weightsWhy) == "weights_native_16bit");
    // Fine-tuning loads a quantized release dequantized (OpenAI cookbook:
    // Mxfp4Config(dequantize=True)).
    Scenario t = finetuning("gpt-oss-20b", "h100-sxm5-80gb", Method::Lora);
    t.weightsExplicit = false;
    adaptToGpu(t);
    CHECK(t.weights == WeightFormat::Bf16);
    CHECK(std::string(t.weightsWhy) == "weights_training_16bit");
}

TEST_CASE("gpt-oss-120b fits one H100 in its MXFP4 checkpoint", "[formats][native]") {
    const Json r = estimateOk(R"({"model":"gpt-oss-120b","gpu":"H100 SXM5","gpu_count":"auto"})");
    // 36 layers x 128 experts x 3 x 2880 x 2880 = 114.7e9 expert weights at
    // 4.25 bits = 60.9 GB, plus ~2.2e9 other parameters in bf16 = 4.3 GB:
    // 65.3 GB = 60.8 GiB, within vLLM's 0.9 x 79.6 GiB.
    CHECK(r["gpus_needed"] == 1);
    CHECK(r["fits"] == true);
    CHECK(r["memory"]["weights_gib"].get<double>() == Approx(60.8).margin(1.0));
    CHECK(r["plan"]["weights"] == "mxfp4");
    CHECK(hasWhy(r, "weights_native_weight_only"));
    CHECK(hasWarning(r, "fp4_weight_only"));
    // Weight-only MXFP4 decodes faster than bf16 would on the same GPU: it
    // reads 4.25 instead of 16 bits per expert weight.
    CHECK(r["decode_tokens_per_s"].get<double>() > 0);
}

TEST_CASE("gpt-oss-120b runs its MXFP4 checkpoint on AMD Instinct MI300X under vLLM", "[formats][native]") {
    // vLLM's gpt-oss recipe (vllm-project/recipes OpenAI/GPT-OSS.md): "you
    // can run it on NVIDIA H100, H200, B200 as well as MI300x, MI325x, MI355x
    // and Radeon AI PRO R9700". CDNA 3 has no FP4 matrix instructions, so the
    // experts run weight-only, as on Hopper: the same 60.8 GiB of weights
    // (114.7e9 expert weights at 4.25 bits + ~2.2e9 in bf16), one 192 GB
    // GPU. It was sized in bf16 (217.6 GiB), two MI300X.
    const Json r = estimateOk(R"({"model":"gpt-oss-120b","gpu":"mi300x","gpu_count":"auto"})");
    CHECK(r["gpus_needed"] == 1);
    CHECK(r["plan"]["weights"] == "mxfp4");
    CHECK(hasWhy(r, "weights_native_weight_only"));
    CHECK(r["memory"]["weights_gib"].get<double>() == Approx(60.8).margin(1.0));
    // CDNA 2 (MI250X) is not in the recipe: dequantized to bf16 at load.
    Scenario s = inferenceDefaults("gpt-oss-120b", "mi250x");
    CHECK(s.weights == WeightFormat::Bf16);
    CHECK(std::string(s.weightsWhy) == "weights_native_unsupported");
    s = inferenceDefaults("gpt-oss-20b", "radeon-ai-pro-r9700");
    CHECK(s.weights == WeightFormat::Mxfp4);
}

TEST_CASE("DeepSeek-R1 fits 8x H200 in block FP8 and is never told to quantize to fp8", "[formats][native]") {
    const Json r = estimateOk(R"({"model":"deepseek-r1","gpu":"h200-sxm-141gb","gpu_count":8})");
    // ~669e9 linear weights at 8.002 bits + 1.85e9 embedding/lm_head
    // parameters in bf16 = ~673 GB = ~627 GiB over 8 GPUs: ~78 GiB each.
    CHECK(r["fits"] == true);
    CHECK(r["plan"]["weights"] == "fp8-block");
    CHECK(r["memory"]["weights_gib"].get<double>() == Approx(78.4).margin(2.5));
    CHECK_FALSE(hasWarning(r, "does_not_fit"));
    for (const Json& s : r["suggestions"]) CHECK(s["detail"] != "weights fp8");
}

TEST_CASE("native_weights is validated by the weights parser and listed", "[formats][native]") {
    const ApiResponse bad = estimateJson(
        projectCatalog(), R"({"model":{"params_b":7,"native_weights":"fp9"},"gpu":"h100"})");
    REQUIRE(bad.status == 2);
    const Json error = Json::parse(bad.json)["error"];
    CHECK(error["code"] == "invalid_value");
    CHECK(error["path"] == "/model/native_weights");

    const Json models = Json::parse(listModelsJson(projectCatalog()).json);
    int quantized = 0;
    for (const Json& m : models) {
        REQUIRE(m.contains("native_weights"));
        if (m["id"] == "deepseek-v3" || m["id"] == "kimi-k2") CHECK(m["native_weights"] == "fp8-block");
        if (m["id"] == "gpt-oss-20b") CHECK(m["native_weights"] == "mxfp4");
        if (m["id"] == "llama-3.1-8b") CHECK(m["native_weights"].is_null());
        if (!m["native_weights"].is_null()) ++quantized;
    }
    CHECK(quantized >= 5);
}

TEST_CASE("MLX keeps gpt-oss's MXFP4 experts, as mlx-lm loads them", "[formats][native][mlx]") {
    // mlx-lm's load_model maps quant_method "mxfp4" onto MLX's MXFP4 mode
    // ({"group_size": 32, "bits": 4, "mode": "mxfp4"}, mlx_lm/utils.py;
    // the mode from ml-explore/mlx #2499, MLX 0.29), and gpt_oss.py's
    // sanitize keeps the experts' _blocks/_scales as shipped: 4.25 bits per
    // expert weight, the rest bf16, as on a GPU that runs MXFP4 weight-only.
    Scenario s = inferenceDefaults("gpt-oss-120b", "apple-m2-max-38c", Engine::Mlx);
    CHECK(s.weights == WeightFormat::Mxfp4);
    CHECK(std::string(s.weightsWhy) == "weights_native");
    // 114.7e9 expert weights at 4.25 bits + ~2.2e9 others in bf16 = 65.3 GB
    // = 60.8 GiB (the H100 case above), against 216.5 GiB when it was
    // upcast to fp16; one 96 GB M2 Max holds it (a published mlx-lm run of
    // the MXFP4 checkpoint on an M2 Max 96GB: MoringLabs/GPT-OSS-120B-MLX-
    // 3.6bit model card, "Original MXFP4", 65 GB).
    const Json r = estimateOk(R"({"model":"gpt-oss-120b","gpu":"apple-m2-max-38c","engine":"mlx","gpu_count":"auto",)"
                              R"("prompt_tokens":1024,"output_tokens":128})");
    CHECK(r["plan"]["weights"] == "mxfp4");
    CHECK(r["gpus_needed"] == 1);
    CHECK(r["fits"] == true);
    CHECK(r["memory"]["weights_gib"].get<double>() == Approx(60.8).margin(1.2));
    // FP8 and NVFP4 checkpoints have no MLX loader: mlx-lm dequantizes them.
    s = inferenceDefaults("deepseek-r1", "apple-m3-ultra-80c", Engine::Mlx);
    CHECK(std::string(s.weightsWhy) == "weights_native_unsupported");
    // A stated format is kept as asked.
    const Json fp16 = estimateOk(R"({"model":"gpt-oss-120b","gpu":"apple-m2-max-38c","engine":"mlx","weights":"fp16"})");
    CHECK(fp16["plan"]["weights"] == "fp16");
}
