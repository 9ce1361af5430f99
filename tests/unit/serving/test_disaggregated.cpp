// An estimate of a disaggregated deployment the request states
// (serving.disaggregated): the KV transfer between the pools, TPOT without
// prompt chunks, throughput per GPU over both pools, and bad input.
#include <catch2/catch.hpp>

#include <string>

#include "caliper/api.hpp"
#include "caliper/plan/estimate.hpp"
#include "property_scenarios.hpp"

using namespace caliper;
using caliper::test::accepted;
using caliper::test::projectCatalog;
using caliper::test::PropertyJson;

namespace {

PropertyJson split(const std::string& model, const std::string& gpu, int decodeTp, PropertyJson prefillParallel,
                   int prompt, int users) {
    PropertyJson r = {{"model", model}, {"gpu", gpu}, {"engine", "tensorrt-llm"}, {"task", "inference"},
                      {"gpu_count", decodeTp}, {"parallel", {{"tp", decodeTp}}}, {"prompt_tokens", prompt},
                      {"output_tokens", 256}, {"batch", users}};
    r["serving"]["disaggregated"] = {{"prefill_replicas", 1}, {"decode_replicas", 1},
                                     {"prefill_parallel", prefillParallel}};
    return r;
}

double term(const EstimateResult& r, const std::string& name) {
    for (const ExplainTerm& t : r.explain) {
        if (t.term == name) return t.value;
    }
    FAIL("no explain term " << name);
    return 0;
}

EstimateResult estimated(const PropertyJson& request) {
    const std::optional<Scenario> s = accepted(request);
    INFO(request.dump());
    REQUIRE(s);
    return estimate(*s);
}

}  // namespace

TEST_CASE("disaggregated: each prefill GPU sends the KV it holds", "[serving][disaggregated]") {
    // Llama 3.1 70B keeps 80 layers x 8 KV heads x 128 x (K, V) x 2 bytes =
    // 327,680 bytes of bf16 KV per token, split over the attention ranks. A
    // 4,096-token prompt on a TP-4 prefill replica: 335,544,320 bytes per GPU.
    // Prefill TP 4 + decode TP 4 fit one 8-GPU H200 server, so NVLink at
    // 900 / 2 GB/s per direction x 0.8 (comm.cpp kNvlinkEfficiency) plus
    // 20 us: 335,544,320 / 360e9 s + 20 us = 0.9521 ms.
    const EstimateResult tp4 =
        estimated(split("llama-3.1-70b", "h200-sxm-141gb", 4, {{"tp", 4}}, 4096, 8));
    REQUIRE(tp4.serving);
    CHECK(term(tp4, "serving_kv_transfer_ms") == Approx(0.9521).epsilon(0.01));
    // Half the ranks hold twice the share: TP 2 sends 671,088,640 bytes per
    // GPU, 1.8841 ms (6 GPUs, still one server).
    const EstimateResult tp2 =
        estimated(split("llama-3.1-70b", "h200-sxm-141gb", 4, {{"tp", 2}}, 4096, 8));
    CHECK(term(tp2, "serving_kv_transfer_ms") == Approx(1.8841).epsilon(0.01));
    // MLA's latent is whole on every attention rank (DeepSeek-V3: one 576-wide
    // latent per layer), so attention data parallelism over the same 8 GPUs
    // sends what tensor parallelism sends: each GPU holds a request's whole KV.
    const EstimateResult mlaTp = estimated(split("deepseek-v3", "h200-sxm-141gb", 8, {{"tp", 8}}, 4096, 8));
    const EstimateResult mlaDp =
        estimated(split("deepseek-v3", "h200-sxm-141gb", 8, {{"tp", 8}, {"attention_dp", 8}}, 4096, 8));
    REQUIRE(mlaTp.serving);
    REQUIRE(mlaDp.serving);
    CHECK(term(mlaTp, "serving_kv_transfer_ms") == Approx(term(mlaDp, "serving_kv_transfer_ms")).epsilon(1e-9));
}

TEST_CASE("disaggregated: decode steps carry no prompt, throughput counts both pools", "[serving][disaggregated]") {
    // The same TP-4 replica serving 32 users alone runs their prompts' chunks
    // in its decode steps; split off, its steps decode only (DistServe,
    // Zhong et al., OSDI 2024), so TPOT is lower.
    PropertyJson together = split("llama-3.1-70b", "h200-sxm-141gb", 4, {{"tp", 4}}, 4096, 32);
    together.erase("serving");
    const EstimateResult agg = estimated(together);
    const EstimateResult dis = estimated(split("llama-3.1-70b", "h200-sxm-141gb", 4, {{"tp", 4}}, 4096, 32));
    REQUIRE(agg.serving);
    REQUIRE(dis.serving);
    CHECK(dis.serving->tpotMs < agg.serving->tpotMs);
    // Output tokens per GPU divide by the prefill replica's 4 GPUs too.
    CHECK(dis.serving->outputTokensPerSPerGpu == Approx(dis.serving->outputTokensPerS / 8.0).epsilon(1e-9));
    // The plan and memory are one decode replica's.
    CHECK(dis.plan.gpuCount == 4);
}

TEST_CASE("disaggregated: bad input is a clear error", "[serving][disaggregated]") {
    auto code = [](const PropertyJson& request) {
        const ApiResponse r = estimateJson(projectCatalog(), request.dump());
        INFO(r.json);
        CHECK(r.status == 2);
        return PropertyJson::parse(r.json)["error"];
    };
    PropertyJson r = split("llama-3.1-70b", "h200-sxm-141gb", 4, {{"tp", 4}}, 4096, 8);
    r["serving"]["disaggregated"]["prefill_replicas"] = 0;
    PropertyJson e = code(r);
    CHECK(e["code"] == "invalid_value");
    CHECK(e["path"] == "/serving/disaggregated/prefill_replicas");
    r = split("llama-3.1-70b", "h200-sxm-141gb", 4, {{"tp", 4}, {"attention_dp", 3}}, 4096, 8);
    e = code(r);
    CHECK(e["code"] == "invalid_parallel");
    CHECK(e["path"] == "/serving/disaggregated/prefill_parallel/attention_dp");
    r = split("llama-3.1-70b", "h200-sxm-141gb", 4, {{"tp", 4}}, 4096, 8);
    r["serving"]["disaggregated"]["prefill_workers"] = 2;
    e = code(r);
    CHECK(e["path"] == "/serving/disaggregated/prefill_workers");
    // A benchmark run sends at least one request per user.
    r = split("llama-3.1-70b", "h200-sxm-141gb", 4, {{"tp", 4}}, 4096, 8);
    r["serving"]["disaggregated"]["benchmark_rounds"] = 0;
    e = code(r);
    CHECK(e["code"] == "invalid_value");
    CHECK(e["path"] == "/serving/disaggregated/benchmark_rounds");
}

TEST_CASE("disaggregated: a closed loop cannot outrun one-prompt-at-a-time prefill replicas", "[serving][disaggregated]") {
    // aiconfigurator's generated prefill workers run one prompt at a time
    // per rank (trtllm.rule / sglang.rule "prefill max_batch_size = 1"): on
    // this TP-4 replica (one attention rank) each prompt holds it for its
    // whole prefill D, so N users complete at most
    // 1 / D requests per second on one prefill replica (asymptotic bound of a
    // closed network, R(N) >= N D - Z), and the rest of the cycle is spent
    // waiting for it: TTFT + (output - 1) x TPOT >= N x D.
    PropertyJson one = split("llama-3.1-70b", "h200-sxm-141gb", 4, {{"tp", 4}}, 8192, 1);
    one["serving"]["disaggregated"]["prefill_max_batch"] = 1;
    const double ownS = term(estimated(one), "serving_ttft_own_prefill_s");
    REQUIRE(ownS > 0);
    PropertyJson many = one;
    many["batch"] = 64;
    const EstimateResult r = estimated(many);
    REQUIRE(r.serving);
    CHECK(r.serving->requestsPerS * ownS <= 1.0 + 1e-6);
    CHECK(r.serving->ttftS + 255 * r.serving->tpotMs / 1e3 >= 64 * ownS * (1 - 1e-6));
    // The M/D/1 queue alone let the closed loop run above that rate.
    many["serving"]["disaggregated"].erase("prefill_max_batch");
    const EstimateResult batched = estimated(many);
    REQUIRE(batched.serving);
    CHECK(batched.serving->requestsPerS >= r.serving->requestsPerS);
}

TEST_CASE("disaggregated: a benchmark run's first round queues every user's prompt at once", "[serving][disaggregated]") {
    // benchmark_serving at --request-rate inf under --max-concurrency N sends
    // the first N requests together, so the first round's prompts reach the
    // prefill replica at once: the k-th waits k - 1 prefill services, a mean
    // of (N - 1) / 2 of them, against the steady state's wait w. Over a run of
    // R requests per user the mean TTFT counts that round once:
    // TTFT(R) - TTFT(steady) = ((N - 1) / 2 D - w) / R, so R x the rise is the
    // same for every R, and the rise is below (N - 1) / 2 D. D >= the
    // prompt's own prefill at prefill_max_batch 1 (it holds the replica for
    // the whole prefill); the serving figures state D's bound through the
    // closed loop: a saturated run completes at most 1 / D requests a second.
    PropertyJson steady = split("llama-3.1-70b", "h200-sxm-141gb", 4, {{"tp", 4}}, 8192, 8);
    steady["output_tokens"] = 2048;
    steady["serving"]["disaggregated"]["prefill_max_batch"] = 1;
    const EstimateResult base = estimated(steady);
    REQUIRE(base.serving);
    const double ownS = term(base, "serving_ttft_own_prefill_s");
    const double waitS = term(base, "serving_ttft_wait_s");
    auto rise = [&](int rounds) {
        PropertyJson run = steady;
        run["serving"]["disaggregated"]["benchmark_rounds"] = rounds;
        const EstimateResult r = estimated(run);
        REQUIRE(r.serving);
        // TPOT and throughput are the steady state's.
        CHECK(r.serving->tpotMs == Approx(base.serving->tpotMs).epsilon(1e-12));
        return r.serving->ttftS - base.serving->ttftS;
    };
    const double one = rise(1);
    CHECK(one > 0);
    CHECK(2 * rise(2) == Approx(one).epsilon(1e-9));
    CHECK(8 * rise(8) == Approx(one).epsilon(1e-9));
    // 8 users on one replica: at least (8 - 1) / 2 own prefills less the steady wait.
    CHECK(one + waitS >= 3.5 * ownS * (1 - 1e-9));
    // Two prefill replicas take half the first round each: (4 - 1) / 2 services.
    PropertyJson two = steady;
    two["serving"]["disaggregated"]["prefill_replicas"] = 2;
    const EstimateResult twoBase = estimated(two);
    two["serving"]["disaggregated"]["benchmark_rounds"] = 1;
    const EstimateResult twoRun = estimated(two);
    REQUIRE(twoBase.serving);
    REQUIRE(twoRun.serving);
    const double twoRise = twoRun.serving->ttftS - twoBase.serving->ttftS;
    CHECK(twoRise + term(twoBase, "serving_ttft_wait_s") ==
          Approx((one + waitS) * 1.5 / 3.5).epsilon(1e-9));
    // An open loop has no first round: arrivals are Poisson from the start.
    PropertyJson open = steady;
    open["serving"]["request_rate_per_s"] = 0.5;
    const EstimateResult openBase = estimated(open);
    open["serving"]["disaggregated"]["benchmark_rounds"] = 4;
    const EstimateResult openRun = estimated(open);
    REQUIRE(openBase.serving);
    REQUIRE(openRun.serving);
    CHECK(openRun.serving->ttftS == Approx(openBase.serving->ttftS).epsilon(1e-12));
}
