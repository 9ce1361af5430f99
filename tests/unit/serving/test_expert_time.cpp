// The serving engines' MoE kernels run one grouped-GEMM problem per expert a
// rank holds, reached by a token or not (TensorRT-LLM's CUTLASS MoE, vLLM's
// fused_moe): a fixed time per local expert per MoE layer and step. Tensor
// parallelism gives every rank a slice of every expert, expert parallelism
// spreads whole experts over the ranks.
#include <catch2/catch.hpp>

#include "step_model_fixture.hpp"

using namespace caliper;
using caliper::test::PropertyJson;

namespace {

serving::StepModel modelOf(const char* model, const char* engine, int gpus, int ep) {
    PropertyJson parallel = {{"tp", gpus}};
    if (ep > 1) parallel["ep"] = ep;
    const PropertyJson request = {{"model", model},        {"gpu", "h200-sxm-141gb"}, {"engine", engine},
                                  {"weights", "fp8"},      {"gpu_count", gpus},       {"prompt_tokens", 1024},
                                  {"output_tokens", 1024}, {"batch", 4},              {"parallel", parallel}};
    return caliper::test::stepSetupOf(request).model;
}

// The step's time with the expert term taken out.
double withoutExpertTime(serving::StepModel m, double decodes, double context) {
    m.expertTimeS = 0;
    return m.stepS(decodes, context, 0, 0);
}

}  // namespace

TEST_CASE("serving step: MoE layers pay a fixed time per expert a rank holds", "[serving][step][moe]") {
    // DeepSeek-V3 (config.json): 61 layers, first_k_dense_replace 3, so 58
    // MoE layers of 256 routed experts. MoE TP 8 (tp 8, ep 1): every rank
    // holds a slice of all 256; EP 8: 256 / 8 = 32 whole experts per rank.
    const serving::StepModel tp = modelOf("deepseek-v3", "tensorrt-llm", 8, 1);
    const serving::StepModel ep = modelOf("deepseek-v3", "tensorrt-llm", 8, 8);
    CHECK(tp.moeLayers == 58);
    CHECK(tp.localExperts == 256);
    CHECK(ep.localExperts == 32);
    // Prior 0.2 us per expert problem, the fit's scale within 1/4-4x.
    REQUIRE(tp.expertTimeS > 0);
    CHECK(tp.expertTimeS >= 0.2e-6 / 4 * (1 - 1e-9));
    CHECK(tp.expertTimeS <= 0.2e-6 * 4 * (1 + 1e-9));
    // The term adds 58 x 256 x t to a TP 8 step and 58 x 32 x t to an EP 8
    // one (at 0.2 us: 2.97 ms against 0.37 ms), whatever the batch, since
    // every local expert's problem runs (no host time hides it at 4 requests).
    const double context = 1536;  // 1024 prompt tokens + half of 1024 output tokens
    for (double decodes : {4.0, 64.0}) {
        CHECK(tp.stepS(decodes, context, 0, 0) - withoutExpertTime(tp, decodes, context) ==
              Approx(58.0 * 256.0 * tp.expertTimeS).epsilon(1e-6));
        CHECK(ep.stepS(decodes, context, 0, 0) - withoutExpertTime(ep, decodes, context) ==
              Approx(58.0 * 32.0 * ep.expertTimeS).epsilon(1e-6));
    }
}

TEST_CASE("serving step: a dense model and llama.cpp take no expert time", "[serving][step][moe]") {
    const serving::StepModel dense = modelOf("llama-3.1-70b", "vllm", 4, 1);
    CHECK(dense.localExperts == 0);
    CHECK(dense.stepS(4, 1536, 0, 0) == withoutExpertTime(dense, 4, 1536));
    // llama.cpp's mul_mat_id runs only the experts its tokens reached, whose
    // reads the weights' bytes already count.
    const PropertyJson request = {{"model", "qwen3-30b-a3b"}, {"gpu", "rtx-4090"}, {"engine", "llama.cpp"},
                                  {"weights", "Q4_K_M"},      {"prompt_tokens", 512}, {"output_tokens", 128}};
    const serving::StepModel gguf = caliper::test::stepSetupOf(request).model;
    CHECK(gguf.localExperts > 0);
    CHECK(gguf.expertTimeS == 0);
}
