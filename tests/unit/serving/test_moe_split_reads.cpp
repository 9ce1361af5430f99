// Tensor parallelism over a routed expert splits its intermediate size, so
// a rank's down projection reduces over intermediate / moe_tp only and a
// decode-shaped GEMM streams it at eta(K) = K / (K + 100) of the bandwidth
// (speed/gemm_rows.cpp, DeepGEMM's M = 64 and 128 rows); expert parallelism
// keeps whole experts.
#include <catch2/catch.hpp>

#include "speed/gemm_rows.hpp"
#include "step_model_fixture.hpp"

using namespace caliper;
using caliper::test::PropertyJson;

namespace {

serving::StepModel modelOf(const char* model, int gpus, int ep) {
    PropertyJson parallel = {{"tp", gpus}};
    if (ep > 1) parallel["ep"] = ep;
    const PropertyJson request = {{"model", model},        {"gpu", "h200-sxm-141gb"}, {"engine", "tensorrt-llm"},
                                  {"weights", "fp8"},      {"gpu_count", gpus},       {"prompt_tokens", 1024},
                                  {"output_tokens", 1024}, {"batch", 4},              {"parallel", parallel}};
    return caliper::test::stepSetupOf(request).model;
}

}  // namespace

TEST_CASE("gemm stream efficiency falls with a short reduction", "[serving][step][moe]") {
    // K / (K + 100): 2048 / 2148 = 0.9534, 256 / 356 = 0.7191.
    CHECK(gemmStreamEfficiency(2048) == Approx(0.9534).epsilon(1e-3));
    CHECK(gemmStreamEfficiency(256) == Approx(0.7191).epsilon(1e-3));
}

TEST_CASE("serving step: MoE tensor parallelism reads split experts slower than whole ones", "[serving][step][moe]") {
    // DeepSeek-V3's moe_intermediate_size 2048 over 8 ranks: the down
    // projection (a third of a SwiGLU expert) at 0.9534 / 0.7191 = 1.3259x,
    // gate and up at K = 7168 unchanged: 2/3 + 1.3259/3 = 1.1086.
    CHECK(serving::expertSplitReadFactor(2048, 8) == Approx(1.1086).epsilon(1e-3));
    CHECK(serving::expertSplitReadFactor(2048, 1) == 1.0);
    CHECK(serving::expertSplitReadFactor(0, 8) == 1.0);  // dense: no experts to split

    const serving::StepModel tp = modelOf("deepseek-v3", 8, 1);
    const serving::StepModel ep = modelOf("deepseek-v3", 8, 8);
    CHECK(tp.expertReadFactor == Approx(1.1086).epsilon(1e-3));
    CHECK(ep.expertReadFactor == 1.0);  // moe_tp = tp / ep = 1: whole experts
    // Same weights read per GPU, so the split experts' step takes longer.
    CHECK(tp.stepS(4, 1536, 0, 0) > ep.stepS(4, 1536, 0, 0));
}

TEST_CASE("serving step: a dense model has no expert split", "[serving][step][moe]") {
    CHECK(modelOf("llama-3.1-70b", 4, 1).expertReadFactor == 1.0);
}
