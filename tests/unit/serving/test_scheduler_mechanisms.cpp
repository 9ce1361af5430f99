// The serving engines' scheduling mechanisms, each against the figure its
// source implies: KV admission on demand (vLLM, SGLang) or reserved for the
// whole request (TensorRT-LLM), the prompt's step carrying the running
// decodes where engines mix them, the overlap scheduler's first token one
// step late, and SGLang's own default memory fraction.
#include <catch2/catch.hpp>

#include "caliper/plan/estimate.hpp"
#include "property_scenarios.hpp"
#include "step_model_fixture.hpp"
#include "serving/engine_defaults.hpp"
#include "serving/kv_pool.hpp"
#include "serving/steady_state.hpp"
#include "serving/step_model.hpp"

using namespace caliper;
using caliper::test::accepted;
using caliper::test::PropertyJson;

namespace {

using Setup = caliper::test::StepSetup;

// Llama-3.1-8B in bf16 on one H100 SXM, 1024-token prompts and 8192-token
// outputs (aiconfigurator's 1024x8192 samples), at `users` concurrency.
Setup setupOf(const std::string& engine, int users = 1, bool mixedChunk = false) {
    PropertyJson request = {{"model", "llama-3.1-8b"}, {"gpu", "h100-sxm5-80gb"}, {"engine", engine},
                            {"prompt_tokens", 1024},   {"output_tokens", 8192},   {"batch", users}};
    if (mixedChunk) request["serving"] = {{"mixed_chunk", true}};
    return caliper::test::stepSetupOf(request);
}

// The mean context while decoding: the prompt and half the output.
constexpr double kContext = 1024 + 8192 / 2.0;

// The other users decoding while a prompt runs: their decode share of the
// closed loop's cycle (TTFT + the decode's O - 1 steps at TPOT).
double ridingDecodes(const Setup& s, const serving::ReplicaState& r, int users) {
    const double decodeS = r.tpotS * double(s.scenario.outputTokens - 1);
    return double(users - 1) * decodeS / (r.ttftS + decodeS);
}

}  // namespace

TEST_CASE("serving: vLLM and SGLang hold a request's mean occupancy, TensorRT-LLM reserves the whole request",
          "[serving][mechanism]") {
    // vLLM allocates 16-token blocks as tokens arrive: a steady-state request
    // holds 1024 + 8192 / 2 = 5120 tokens, 320 whole blocks. SGLang's pages
    // are one token: 5120. TensorRT-LLM's GUARANTEED_NO_EVICT admits prompt +
    // max output, 9216 tokens, 288 blocks of 32.
    const Setup vllm = setupOf("vllm");
    const Setup sglang = setupOf("sglang");
    const Setup trtllm = setupOf("tensorrt-llm");
    CHECK(serving::tokensPerRequest(vllm.scenario, vllm.model) == 5120);
    CHECK(serving::tokensPerRequest(sglang.scenario, sglang.model) == 5120);
    CHECK(serving::tokensPerRequest(trtllm.scenario, trtllm.model) == 9216);
    // An odd prompt rounds up to the block: 1000 + 4096 = 5096 -> 319 x 16 = 5104.
    Setup odd = setupOf("vllm");
    odd.scenario.promptTokens = 1000;
    CHECK(serving::tokensPerRequest(odd.scenario, odd.model) == 5104);
}

TEST_CASE("serving: where prompts ride with decodes, the prompt's step carries the other running requests",
          "[serving][mechanism]") {
    // vLLM mixes a prompt's chunk into the step of the running decodes: at 32
    // users its own prefill is the step of the other users decoding then and
    // 1024 prompt tokens (the budget, 8192 - 31, holds the prompt whole),
    // times the calibrated prefill factor. The other 31 spend the decode share
    // of their cycle decoding (Little's law); the engine settles that share by
    // a fixed point, so the figures agree to its convergence (0.1%).
    const Setup v = setupOf("vllm", 32);
    const serving::ReplicaState at32 = serving::steadyState(v.scenario, v.model, 32, 1e9);
    CHECK(at32.prefillOwnS ==
          Approx(v.model.engine.prefillTimeFactor * v.model.stepS(ridingDecodes(v, at32, 32), kContext, 1024, 512))
              .epsilon(1e-3));
    CHECK(ridingDecodes(v, at32, 32) < 31);
    CHECK(ridingDecodes(v, at32, 32) > 25);  // 1024 prompt tokens against 128 decode steps: most of the cycle decodes
    // At one user only its own prefill runs, with no other request decoding
    // in its step (its first token is sampled from the prompt's last
    // position): the prompt's step grows with the decodes it carries.
    const serving::ReplicaState at1 = serving::steadyState(v.scenario, v.model, 1, 1e9);
    CHECK(at1.prefillOwnS ==
          Approx(v.model.engine.prefillTimeFactor * v.model.stepS(0, kContext, 1024, 512)).epsilon(1e-9));
    CHECK(at32.prefillOwnS > at1.prefillOwnS);
    // SGLang runs prefill batches apart from the decodes: its own prefill
    // does not depend on how many requests decode.
    const Setup s = setupOf("sglang", 32);
    CHECK(serving::steadyState(s.scenario, s.model, 32, 1e9).prefillOwnS ==
          Approx(serving::steadyState(s.scenario, s.model, 1, 1e9).prefillOwnS).epsilon(1e-12));
}

TEST_CASE("serving: SGLang keeps a closed loop of equal requests in step unless mixed chunks spread it",
          "[serving][mechanism]") {
    // By default SGLang runs every waiting prefill before any decode, so 16
    // users whose equal requests finish together send their prompts
    // together: a prompt waits behind half of the 15 others' prefills (share
    // 1 before calibration; the calibration scales the shares of both regimes
    // alike, 1 and a quarter, never past 1). With --enable-mixed-chunk the
    // running decodes ride in the prefill batch and take their tokens out of
    // its budget, as vLLM's do.
    const Setup apart = setupOf("sglang", 16);
    const Setup mixed = setupOf("sglang", 16, true);
    CHECK_FALSE(apart.model.engine.mixesPrefill);
    CHECK_FALSE(apart.model.engine.budgetCountsDecodes);
    CHECK(mixed.model.engine.mixesPrefill);
    CHECK(mixed.model.engine.budgetCountsDecodes);
    const double share = apart.model.engine.synchronizedShare;
    CHECK(share <= 1.0);
    CHECK(share == Approx(std::min(1.0, 4.0 * mixed.model.engine.synchronizedShare)).epsilon(1e-12));
    const serving::ClosedLoopPrefill prefill = serving::closedLoopPrefill(apart.scenario, apart.model);
    const serving::ReplicaState st = serving::steadyState(apart.scenario, apart.model, 16, 1e9);
    CHECK(st.prefillWaitS == Approx(15 * share / 2 * prefill.ownS).epsilon(1e-12));
    // Mixed: the prompt's own step carries the decodes of the other 15 users
    // decoding then (the budget, 8192 - 15, holds the 1024-token prompt whole).
    const serving::ReplicaState m = serving::steadyState(mixed.scenario, mixed.model, 16, 1e9);
    CHECK(m.prefillOwnS == Approx(mixed.model.engine.prefillTimeFactor *
                                  mixed.model.stepS(ridingDecodes(mixed, m, 16), kContext, 1024, 512))
                               .epsilon(1e-3));
}

TEST_CASE("serving: an overlap scheduler hands the first token out one decode step late", "[serving][mechanism]") {
    // One user: TTFT = request overhead + own prefill + half a decode step
    // (the step in progress) + one decode step where the engine overlaps the
    // host with the GPU (TensorRT-LLM's overlap scheduler docs: "introduces
    // one extra decoding step"); vLLM, serial here, adds no step.
    for (const char* engine : {"tensorrt-llm", "vllm"}) {
        const Setup e = setupOf(engine, 1);
        const serving::ReplicaState st = serving::steadyState(e.scenario, e.model, 1, 1e9);
        const double decodeS = e.model.stepS(1, kContext, 0, 0);
        const double late = e.model.engine.hostOverlapsGpu ? 1.0 : 0.0;
        INFO(engine);
        CHECK(e.model.engine.hostOverlapsGpu == (std::string(engine) == "tensorrt-llm"));
        CHECK(st.ttftS == Approx(e.model.engine.requestOverheadS + st.prefillOwnS + (0.5 + late) * decodeS).epsilon(1e-9));
    }
}

TEST_CASE("serving: SGLang's default mem_fraction_static follows its server_args heuristic", "[serving][mechanism]") {
    // (GPU MiB - reserved) / GPU MiB, reserved = 512 + 1.5 x chunk + 2 x
    // cuda_graph_max_bs + tp x pp / 8 x 1024 MiB, at least 10 GiB above 60 GiB:
    // H100 (79.65 GiB = 81561.6 MiB), tp 1: 512 + 12288 + 512 + 128 = 13440
    //   -> 68121.6 / 81561.6 = 0.835215;
    // H200 (141 GiB = 144384 MiB), tp 8: 512 + 12288 + 1024 + 1024 = 14848
    //   -> 129536 / 144384 = 0.897163;
    // RTX 4090 (23.99 GiB = 24565.76 MiB), tp 1: 512 + 3072 + 48 + 128 = 3760
    //   -> 20805.76 / 24565.76 = 0.846941 (no 10 GiB floor below 60 GiB);
    // B200 (180 GiB = 184320 MiB), tp 1: 512 + 24576 + 1024 + 128 = 26240
    //   -> 158080 / 184320 = 0.857639.
    auto fraction = [](const char* gpu, int tp) {
        const std::optional<Scenario> s =
            accepted({{"model", "llama-3.1-8b"}, {"gpu", gpu}, {"engine", "sglang"}, {"gpu_count", tp}});
        REQUIRE(s);
        return serving::sglangMemFractionStatic(*s, tp, 1);
    };
    CHECK(fraction("h100-sxm5-80gb", 1) == Approx(0.835215).epsilon(1e-5));
    CHECK(fraction("h200-sxm-141gb", 8) == Approx(0.897163).epsilon(1e-5));
    CHECK(fraction("rtx-4090", 1) == Approx(0.846941).epsilon(1e-5));
    CHECK(fraction("b200", 1) == Approx(0.857639).epsilon(1e-5));
}

TEST_CASE("serving: SGLang's KV pool takes its own fraction unless the request sets one", "[serving][mechanism]") {
    // Pool = fraction x capacity - weights - non-torch memory: setting
    // gpu_memory_utilization 0.9 on one H100 adds (0.9 - 0.835215) x 79.65
    // = 5.1602 GiB to the default pool.
    PropertyJson request = {{"model", "llama-3.1-8b"}, {"gpu", "h100-sxm5-80gb"}, {"engine", "sglang"},
                            {"gpu_count", 1},          {"prompt_tokens", 1024},   {"output_tokens", 256}};
    const std::optional<Scenario> byDefault = accepted(request);
    request["gpu_memory_utilization"] = 0.9;
    const std::optional<Scenario> stated = accepted(request);
    REQUIRE(byDefault);
    REQUIRE(stated);
    const auto a = estimate(*byDefault, EstimateDetail{false, false, false}).serving;
    const auto b = estimate(*stated, EstimateDetail{false, false, false}).serving;
    REQUIRE(a);
    REQUIRE(b);
    CHECK(b->kvPoolGiB - a->kvPoolGiB == Approx(5.1602).epsilon(1e-3));
}
