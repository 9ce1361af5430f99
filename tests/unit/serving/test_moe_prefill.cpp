// A prompt's routed experts run grouped GEMMs at the few rows each expert
// receives (k / E of the step's tokens), slower than the dense layers at
// the step's full rows: eta(M) = M / (M + M_half) (speed/gemm_rows.hpp).
#include <catch2/catch.hpp>

#include "step_model_fixture.hpp"

using namespace caliper;
using caliper::test::PropertyJson;

namespace {

serving::StepModel modelOf(const char* model, const char* weights, int gpus) {
    const PropertyJson request = {{"model", model},         {"gpu", "h200-sxm-141gb"}, {"engine", "tensorrt-llm"},
                                  {"weights", weights},     {"gpu_count", gpus},       {"prompt_tokens", 1024},
                                  {"output_tokens", 1024},  {"batch", 4},              {"parallel", {{"tp", gpus}}}};
    return caliper::test::stepSetupOf(request).model;
}

double eta(double rows, double halfM) { return rows / (rows + halfM); }

}  // namespace

TEST_CASE("serving step: a prompt's routed experts run at the rows one expert receives", "[serving][step][moe]") {
    serving::StepModel m = modelOf("deepseek-v3", "fp8", 8);
    REQUIRE(m.work.experts == 256);        // DeepSeek-V3 config.json: n_routed_experts
    REQUIRE(m.work.expertsPerToken == 8);  // num_experts_per_tok
    // Rates set to DeepGEMM's H800 FP8 fit point (1979 TFLOPS, 3.35 TB/s,
    // 1 byte per FP8 weight), where M_half is 200 rows.
    m.prefillFlopsPerS = 1979e12;
    m.bandwidthBytesPerS = 3.35e12;
    REQUIRE(m.work.expertWeightBytes / m.work.expertParams == Approx(1.0).epsilon(0.01));
    const double share = m.work.expertParams * 8 / 256 / m.work.blockMatmulParams;
    // DeepSeek-V3's routed experts are most of its active linear weights
    // (8 x 3 x 7168 x 2048 x 58 layers = 20.4B of about 37B active).
    REQUIRE(share > 0.5);
    REQUIRE(share < 0.7);
    // 1,024 tokens: 32 rows per expert against 1,024 for the dense layers.
    const double slowdown = eta(1024, 200) / eta(32, 200);  // 0.837 / 0.138 = 6.07
    CHECK(m.routedExpertSlowdown(1024) == Approx((1 - share) + share * slowdown).epsilon(1e-3));
    // More rows per expert close the gap: 16,384 tokens give each expert 512.
    CHECK(m.routedExpertSlowdown(16384) < m.routedExpertSlowdown(1024));
    // From 4,096 rows per expert (131,072 tokens) both run at full rows.
    CHECK(m.routedExpertSlowdown(131072) == Approx(1.0));
}

TEST_CASE("serving step: a dense model's prompt runs its GEMMs at full rows", "[serving][step][moe]") {
    const serving::StepModel m = modelOf("llama-3.1-70b", "fp8", 4);
    REQUIRE(m.work.experts == 0);
    CHECK(m.routedExpertSlowdown(1024) == 1.0);
}
