// Two engine settings a deployment fixes: the step token budget
// (serving.max_num_batched_tokens) and vLLM's CUDA-graph batch padding.
#include <catch2/catch.hpp>

#include "caliper/plan/estimate.hpp"
#include "property_scenarios.hpp"
#include "step_model_fixture.hpp"
#include "serving/cuda_graph.hpp"
#include "serving/engine_defaults.hpp"
#include "serving/steady_state.hpp"
#include "serving/step_model.hpp"

using namespace caliper;
using caliper::test::accepted;
using caliper::test::PropertyJson;

namespace {

using Setup = caliper::test::StepSetup;

// Llama-3.1-8B in bf16 on one H100 SXM serving 8192-token prompts
// (aiconfigurator's 8192x1024 samples) at `users` concurrency.
Setup setupOf(const std::string& engine, int users, std::optional<int> budget = std::nullopt) {
    PropertyJson request = {{"model", "llama-3.1-8b"}, {"gpu", "h100-sxm5-80gb"}, {"engine", engine},
                            {"prompt_tokens", 8192},   {"output_tokens", 1024},   {"batch", users}};
    if (budget) request["serving"] = {{"max_num_batched_tokens", *budget}};
    return caliper::test::stepSetupOf(request);
}

}  // namespace

TEST_CASE("serving: the deployment's step token budget replaces the engine's default", "[serving][mechanism]") {
    // vLLM's default on an 80 GB H100 is 8192 tokens a step
    // (vllm/engine/arg_utils.py get_batch_defaults); aiconfigurator's
    // generator sets max_batch_size + isl + 1500 (rule_plugin/vllm.rule):
    // 8 + 8192 + 1500 = 9700 at 8 users.
    const Setup byDefault = setupOf("vllm", 8);
    const Setup generated = setupOf("vllm", 8, 9700);
    CHECK(byDefault.model.engine.stepTokenBudget == 8192);
    CHECK(generated.model.engine.stepTokenBudget == 9700);
    // Alone, the 8192-token prompt runs whole in one step, with no other
    // request decoding in it (prefillOf's lone path).
    const double contextS = 8192 + 1024 / 2.0;
    const serving::ReplicaState alone = serving::steadyState(generated.scenario, generated.model, 1, 1e9);
    CHECK(alone.prefillOwnS == Approx(generated.model.engine.prefillTimeFactor *
                                      generated.model.stepS(0, contextS, 8192, 4096))
                                   .epsilon(1e-9));
    // Beside running decodes the default budget (decodes take theirs first)
    // cuts the prompt in two steps that each carry the decodes; 9700 holds it
    // whole beside all 7 others, so its prefill takes less.
    const serving::ReplicaState cut = serving::steadyState(byDefault.scenario, byDefault.model, 8, 1e9);
    const serving::ReplicaState whole = serving::steadyState(generated.scenario, generated.model, 8, 1e9);
    CHECK(whole.prefillOwnS < cut.prefillOwnS);
    // A budget below the prompt chunks it: 2048 tokens a step is four steps
    // of a quarter of the prompt, each dearer than a quarter of one step.
    const Setup small = setupOf("vllm", 1, 2048);
    const serving::ReplicaState chunked = serving::steadyState(small.scenario, small.model, 1, 1e9);
    CHECK(chunked.prefillOwnS > alone.prefillOwnS);
}

TEST_CASE("serving: a step budget out of range is refused with its pointer", "[serving][mechanism]") {
    PropertyJson request = {{"model", "llama-3.1-8b"}, {"gpu", "h100-sxm5-80gb"}, {"engine", "vllm"},
                            {"serving", {{"max_num_batched_tokens", 0}}}};
    CHECK_FALSE(accepted(request));
    request["serving"]["max_num_batched_tokens"] = 1.5;
    CHECK_FALSE(accepted(request));
}

TEST_CASE("serving: vLLM pads a decode batch up to its next captured CUDA graph", "[serving][mechanism]") {
    // vllm/config/compilation.py: capture sizes [1, 2, 4] + range(8, 256, 8)
    // + range(256, max + 1, 16), max = min(2 x max_num_seqs, 512); vLLM's
    // max_num_seqs on an 80 GB H100 is 1024 (arg_utils.py), so max 512.
    const Setup v = setupOf("vllm", 1);
    const serving::SchedulerDefaults& e = v.model.engine;
    CHECK(e.cudaGraphMaxBatch == 512);
    CHECK(serving::cudaGraphBatch(e, 1) == 1);
    CHECK(serving::cudaGraphBatch(e, 3) == 4);
    CHECK(serving::cudaGraphBatch(e, 8) == 8);
    CHECK(serving::cudaGraphBatch(e, 9) == 16);
    CHECK(serving::cudaGraphBatch(e, 100) == 104);
    CHECK(serving::cudaGraphBatch(e, 257) == 272);
    CHECK(serving::cudaGraphBatch(e, 512) == 512);
    // Above the largest graph the batch runs unpadded.
    CHECK(serving::cudaGraphBatch(e, 600) == 600);
    // Engines whose graph lists are not modelled run the batch as it is.
    const Setup t = setupOf("tensorrt-llm", 1);
    CHECK(serving::cudaGraphBatch(t.model.engine, 9) == 9);
    // The padded rows carry no KV: a pure decode step of 9 costs at least
    // what 9 cost and at most what 16 cost (the 16 read 7 more requests' KV).
    const double context = 8192 + 512;
    CHECK(v.model.stepS(9, context, 0, 0) >= v.model.stepS(8, context, 0, 0));
    CHECK(v.model.stepS(9, context, 0, 0) <= v.model.stepS(16, context, 0, 0));
}

TEST_CASE("serving: expert parallelism without attention DP costs the tensor-parallel all-reduce alone",
          "[serving][mechanism]") {
    // vLLM runs its all-to-all MoE kernels only with data parallelism
    // (fused_moe/config.py use_all2all_kernels: dp_size > 1 and use_ep) and
    // TensorRT-LLM only with attention DP (fused_moe_wide_ep.py
    // select_alltoall_method_type); otherwise each rank keeps the step's
    // tokens and the MoE output is all-reduced as a tensor-parallel MLP's.
    // So Qwen3-235B-A22B on 4 H100s communicates the same with ep 4 as with
    // ep 1 (ep 1 only reads its split experts slower, test_moe_split_reads,
    // and runs a slice of all 128 experts per rank instead of 32 whole ones,
    // test_expert_time), and attention DP 4 (each rank its own requests)
    // adds the all-to-all.
    auto model = [](PropertyJson parallel) {
        PropertyJson request = {{"model", "qwen3-235b-a22b-fp8"}, {"gpu", "h100-sxm5-80gb"}, {"gpu_count", 4},
                                {"engine", "tensorrt-llm"},     {"prompt_tokens", 1024},    {"output_tokens", 128},
                                {"batch", 32},                  {"parallel", parallel}};
        return caliper::test::stepSetupOf(request).model;
    };
    const serving::StepModel tp = model({{"tp", 4}});
    const serving::StepModel ep = model({{"tp", 4}, {"ep", 4}});
    const serving::StepModel adp = model({{"tp", 4}, {"ep", 4}, {"attention_dp", 4}});
    CHECK_FALSE(ep.expertParallel);
    CHECK(adp.expertParallel);
    serving::StepModel tpWholeExperts = tp;
    tpWholeExperts.expertReadFactor = 1.0;
    CHECK(tp.localExperts == 128);
    CHECK(ep.localExperts == 32);
    tpWholeExperts.localExperts = ep.localExperts;
    CHECK(ep.stepS(32, 1088, 0, 0) == Approx(tpWholeExperts.stepS(32, 1088, 0, 0)).epsilon(1e-12));
}
