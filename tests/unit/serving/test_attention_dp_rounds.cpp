// Attention data parallelism: each attention group schedules and prefills its
// own requests on its own GPUs, and all groups step together (the experts'
// all-to-all needs every rank each step). A prompt's step is therefore a
// round with one chunk per group, and a request waits only behind the other
// users of its own group.
#include <catch2/catch.hpp>

#include "serving/steady_state.hpp"
#include "step_model_fixture.hpp"

using namespace caliper;
using caliper::test::PropertyJson;

namespace {

caliper::test::StepSetup setupOf(int attentionDp, int users) {
    PropertyJson parallel = {{"tp", 8}, {"ep", 8}};
    if (attentionDp > 1) parallel["attention_dp"] = attentionDp;
    const PropertyJson request = {{"model", "deepseek-v3"},  {"gpu", "h200-sxm-141gb"}, {"engine", "tensorrt-llm"},
                                  {"weights", "fp8"},        {"gpu_count", 8},          {"prompt_tokens", 1024},
                                  {"output_tokens", 1024},   {"batch", users},          {"parallel", parallel}};
    return caliper::test::stepSetupOf(request);
}

}  // namespace

TEST_CASE("serving: under attention DP a prompt's step is a round of one chunk per group",
          "[serving][mechanism][attention-dp]") {
    // DeepSeek-V3 FP8 on 8 H200s, TP 1 x attention DP 8 x EP 8 (the
    // TensorRT-LLM wide-EP layout of aiconfigurator's attention-DP rows).
    const caliper::test::StepSetup adp = setupOf(8, 1);
    REQUIRE(adp.model.layout.attentionDp == 8);
    REQUIRE(adp.model.layout.attentionTp == 1);
    REQUIRE(adp.model.engine.stepTokenBudget >= 1024);
    // One user: its 1024-token prompt fits one step of its group's budget,
    // and the step it runs in is a round in which each of the 8 groups runs
    // a 1024-token chunk (8 x 1024 = 8192 tokens over the replica), its
    // attention and dense layers on its own GPU; context while decoding
    // 1024 + 1024 / 2 = 1536, the prompt's mean context 1024 / 2 = 512.
    const serving::ReplicaState alone = serving::steadyState(adp.scenario, adp.model, 1, 1e9);
    const double roundS = adp.model.stepS(0, 1536, 8 * 1024, 512);
    CHECK(alone.prefillOwnS == Approx(adp.model.engine.prefillTimeFactor * roundS).epsilon(1e-9));
    // Each GPU computes a whole prompt's dense layers in the round, where
    // a prompt spread over the replica gives it an eighth of them: the
    // round's step is longer than one 1024-token prompt's spread step.
    CHECK(roundS > adp.model.stepS(0, 1536, 1024, 512));
}

TEST_CASE("serving: under attention DP a request waits behind its own group's users only",
          "[serving][mechanism][attention-dp]") {
    // 128 users balanced over 8 groups (TensorRT-LLM
    // executor_request_queue.py _balance_requests_across_ranks) are 16 per
    // group: a prompt waits behind the prompts of the 15 others of its group,
    // each a round of the prompt's own prefill, a synchronized share of it
    // (closedLoop: share / 2 per other user), not behind all 127 others;
    // besides, the balance wait (next test) of its decode steps at 128.
    const caliper::test::StepSetup adp = setupOf(8, 128);
    const serving::ReplicaState alone = serving::steadyState(adp.scenario, adp.model, 1, 1e9);
    const serving::ReplicaState full = serving::steadyState(adp.scenario, adp.model, 128, 1e9);
    REQUIRE_FALSE(full.queued);
    const double share = adp.model.engine.synchronizedShare;
    const double waitSteps = adp.model.engine.adpBalanceWaitSteps;
    CHECK(full.prefillWaitS == Approx(15 * share / 2.0 * alone.prefillOwnS + waitSteps * adp.model.stepS(128, 1536, 0, 0))
                                   .epsilon(1e-9));
    // Eight users fill one round, one per group: none waits behind another,
    // only for the balance.
    const serving::ReplicaState oneRound = serving::steadyState(adp.scenario, adp.model, 8, 1e9);
    CHECK(oneRound.prefillWaitS == Approx(waitSteps * adp.model.stepS(8, 1536, 0, 0)).epsilon(1e-9));
    // Without attention DP the same 8 users' prompts queue on one group.
    const caliper::test::StepSetup tp = setupOf(1, 8);
    const serving::ReplicaState tpRound = serving::steadyState(tp.scenario, tp.model, 8, 1e9);
    CHECK(tpRound.prefillWaitS > 0.0);
}

TEST_CASE("serving: TensorRT-LLM under attention DP holds a new prompt until every rank has one",
          "[serving][mechanism][attention-dp]") {
    // TensorRT-LLM's attention_dp_config enable_balance "withholds context
    // for up to attention_dp_config.timeout_iters so all ranks start prefill
    // together" (tensorrt_llm/_torch/pyexecutor/py_executor.py); DeepSeek-R1
    // attention-DP configs set timeout_iters 60. In a closed loop of equal
    // requests the other ranks' next prompts come a cycle apart, so a prompt
    // waits the timeout: 60 decode steps at the running batch (the prior,
    // scaled by the calibration within [0, 240] steps).
    const caliper::test::StepSetup adp = setupOf(8, 64);
    const double waitSteps = adp.model.engine.adpBalanceWaitSteps;
    CHECK(waitSteps > 0.0);
    CHECK(waitSteps <= 240.0);
    // 64 users over 8 groups: 8 per group, each waiting behind share / 2 of
    // the 7 others' rounds, plus the balance wait of 64 users' decode steps
    // at context 1024 + 1024 / 2 = 1536.
    const serving::ReplicaState alone = serving::steadyState(adp.scenario, adp.model, 1, 1e9);
    const serving::ReplicaState r = serving::steadyState(adp.scenario, adp.model, 64, 1e9);
    const double decodeS = adp.model.stepS(64, 1536, 0, 0);
    const double share = adp.model.engine.synchronizedShare;
    CHECK(r.prefillWaitS == Approx(7 * share / 2.0 * alone.prefillOwnS + waitSteps * decodeS).epsilon(1e-9));
    // The same engine without attention DP balances nothing: its wait is
    // the other users' prompts only.
    const caliper::test::StepSetup tp = setupOf(1, 64);
    const serving::ReplicaState tpAlone = serving::steadyState(tp.scenario, tp.model, 1, 1e9);
    const serving::ReplicaState tpR = serving::steadyState(tp.scenario, tp.model, 64, 1e9);
    CHECK(tpR.prefillWaitS == Approx(63 * tp.model.engine.synchronizedShare / 2.0 * tpAlone.prefillOwnS).epsilon(1e-9));
    // vLLM and SGLang hold no prompt for balance.
    PropertyJson vllmRequest = {{"model", "deepseek-v3"},  {"gpu", "h200-sxm-141gb"}, {"engine", "vllm"},
                                {"weights", "fp8"},        {"gpu_count", 8},          {"prompt_tokens", 1024},
                                {"output_tokens", 1024},   {"batch", 64},
                                {"parallel", {{"tp", 8}, {"ep", 8}, {"attention_dp", 8}}}};
    CHECK(caliper::test::stepSetupOf(vllmRequest).model.engine.adpBalanceWaitSteps == 0.0);
}
