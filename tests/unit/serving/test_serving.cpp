// Continuous-batching serving figures and the serve search: properties over
// generated scenarios (seeded by Catch2's --rng-seed), the engine's start-up
// KV pool against a vLLM log, and the serve request's answers and errors.
#include <algorithm>

#include <catch2/catch.hpp>

#include <cmath>

#include "caliper/api.hpp"
#include "caliper/plan/estimate.hpp"
#include "caliper/serving/estimate_serving.hpp"
#include "caliper/serving/serve.hpp"
#include "property_scenarios.hpp"

using namespace caliper;
using caliper::test::accepted;
using caliper::test::projectCatalog;
using caliper::test::PropertyJson;

namespace {

// Figures are compared after tidy() rounding to 6 significant digits.
constexpr double kRounding = 1e-5;

bool notBelow(double later, double earlier) { return later >= earlier * (1 - kRounding); }

PropertyJson servingRequest(std::uint32_t seed) {
    std::mt19937 rng(seed);
    const Catalog& catalog = projectCatalog();
    auto pick = [&](const std::vector<PropertyJson>& v) { return v[rng() % v.size()]; };
    PropertyJson r = {{"model", catalog.models[rng() % catalog.models.size()].id},
                      {"gpu", catalog.gpus[rng() % catalog.gpus.size()].id},
                      {"engine", pick({"vllm", "sglang", "tensorrt-llm"})},
                      {"gpu_count", pick({1, 2, 4, 8})},
                      {"prompt_tokens", pick({128, 1024, 4096, 8192})},
                      {"output_tokens", pick({16, 128, 1024})}};
    if (rng() % 3 == 0) r["serving"] = {{"prefix_cache_hit_rate", pick({0.0, 0.5, 0.9})}};
    if (rng() % 4 == 0) r["serving"]["speculative"] = {{"method", "mtp"}, {"accepted_tokens_per_step", pick({1.5, 2.5})}};
    return r;
}

std::optional<ServingFigures> servingAt(PropertyJson request, int users) {
    request["batch"] = users;
    const std::optional<Scenario> s = accepted(request);
    if (!s) return std::nullopt;
    return estimate(*s, EstimateDetail{false, false, false}).serving;
}

PropertyJson answer(const std::string& request) {
    const ApiResponse r = serveJson(projectCatalog(), request);
    INFO(r.json.substr(0, 400));
    REQUIRE(r.status == 0);
    return PropertyJson::parse(r.json);
}

void rejected(const std::string& request, const std::string& code, const std::string& path) {
    const ApiResponse r = serveJson(projectCatalog(), request);
    INFO(request << " -> " << r.json);
    CHECK(r.status == 2);
    const PropertyJson j = PropertyJson::parse(r.json);
    CHECK(j["ok"] == false);
    CHECK(j["error"]["code"] == code);
    CHECK(j["error"]["path"] == path);
}

}  // namespace

TEST_CASE("serving: TPOT and TTFT never fall as concurrency rises on one deployment", "[serving][properties]") {
    const auto seed = GENERATE(take(120, random(1u, 1u << 30)));
    const PropertyJson request = servingRequest(seed);
    INFO(request.dump());
    std::optional<ServingFigures> last;
    for (int users = 1; users <= 1024; users *= 2) {
        const auto f = servingAt(request, users);
        if (!f) break;  // the model does not fit this deployment at all
        INFO("users " << users << ": ttft " << f->ttftS << " s, tpot " << f->tpotMs << " ms");
        CHECK(std::isfinite(f->ttftS));
        CHECK(f->tpotMs > 0);
        if (last) {
            CHECK(notBelow(f->tpotMs, last->tpotMs));
            CHECK(notBelow(f->ttftS, last->ttftS));
        }
        last = f;
    }
}

TEST_CASE("serving: throughput per GPU never falls until the KV pool is full", "[serving][properties]") {
    const auto seed = GENERATE(take(120, random(1u, 1u << 30)));
    const PropertyJson request = servingRequest(seed);
    INFO(request.dump());
    std::optional<ServingFigures> last;
    for (int users = 1; users <= 1024; users *= 2) {
        const auto f = servingAt(request, users);
        if (!f || f->queued) break;
        INFO("users " << users << ": " << f->outputTokensPerSPerGpu << " tokens/s per GPU");
        if (last) CHECK(notBelow(f->outputTokensPerSPerGpu, last->outputTokensPerSPerGpu));
        last = f;
    }
}

TEST_CASE("serving: beyond the KV pool requests queue and TTFT says so", "[serving]") {
    // Llama-3.1-70B in bf16 on four H100s (tp 4) leaves 0.9 x 79.65 - 32.9 GiB
    // of weights - ~4 GiB of activations and buffers ~ 35 GiB per GPU, at
    // 80 KiB of KV per token per GPU ~ 450k tokens: about 49 requests of
    // 8k+1k tokens, so 64 do not all run at once.
    const PropertyJson base = {{"model", "llama-3.1-70b"}, {"gpu", "h100-sxm5-80gb"}, {"gpu_count", 4},
                               {"prompt_tokens", 8192}, {"output_tokens", 1024}};
    const auto few = servingAt(base, 2);
    const auto many = servingAt(base, 64);
    REQUIRE(few);
    REQUIRE(many);
    CHECK_FALSE(few->queued);
    CHECK(many->queued);
    CHECK(many->runningPerReplica < 64);
    CHECK(many->ttftS > 5 * few->ttftS);
    PropertyJson crowded = base;
    crowded["batch"] = 64;
    const ApiResponse r = estimateJson(projectCatalog(), crowded.dump());
    CHECK(r.json.find("\"requests_queue\"") != std::string::npos);
}

TEST_CASE("serve: users waiting for room in the KV pool are not served at any speed", "[serving][serve]") {
    // The deployment above (Llama-3.1-70B bf16, four H100s, 8k+1k tokens)
    // runs about 49 requests at once, so 64 users queue. Their decode speed
    // per running request says nothing of the waiting ones: with only a
    // speed target a queued deployment fails, and every deployment serve
    // calls meeting it runs all 64 users at once.
    const auto queued = servingAt({{"model", "llama-3.1-70b"}, {"gpu", "h100-sxm5-80gb"}, {"gpu_count", 4},
                                   {"prompt_tokens", 8192}, {"output_tokens", 1024}},
                                  64);
    REQUIRE(queued);
    REQUIRE(queued->queued);
    Slo speedOnly;
    speedOnly.minUserTokensPerS = 1;
    CHECK(queued->userTokensPerS > 1);
    CHECK_FALSE(meetsSlo(*queued, speedOnly));
    Slo withWait = speedOnly;  // a first-token limit the wait meets judges the queue instead
    withWait.ttftS = queued->ttftS * 2;
    CHECK(meetsSlo(*queued, withWait));

    const PropertyJson a = answer(R"({"model":"llama-3.1-70b","users":64,"prompt_tokens":8192,"output_tokens":1024,)"
                                  R"("slo":{"min_user_tokens_per_s":1},"gpu":"h100-sxm5-80gb"})");
    REQUIRE(a["deployments"].size() > 0);
    for (const auto& d : a["deployments"]) {
        if (d["meets_slo"] == true) CHECK(d.dump().find("requests_queue_for_kv_pool") == std::string::npos);
    }
}

TEST_CASE("serving: the KV pool as vLLM computes it at start-up", "[serving]") {
    // vLLM 0.19 on one H100 80GB, Qwen2.5-7B-Instruct, gpu_memory_utilization
    // 0.95, max_model_len 8192 (llm-d-planner accuracy logs, public-v2.jsonl):
    // "GPU KV cache size: 1,096,000 tokens", "Maximum concurrency for 8,192
    // tokens per request: 133.79x". The goal for KV tokens is 3%.
    const PropertyJson request = {{"model", "qwen2.5-7b"}, {"gpu", "h100-sxm5-80gb"}, {"gpu_memory_utilization", 0.95},
                                  {"max_model_len", 8192}, {"prompt_tokens", 8191}, {"output_tokens", 1}};
    const auto f = servingAt(request, 1);
    REQUIRE(f);
    REQUIRE(f->kvCacheTokens);
    CHECK(*f->kvCacheTokens == Approx(1096000).epsilon(0.03));
    CHECK(*f->maxConcurrency == Approx(133.79).epsilon(0.03));
}

TEST_CASE("serving: llama.cpp's cache for a sliding-window model holds the context it was sized for", "[serving]") {
    // gpt-oss-20b (24 layers, 12 of them on a 128-token window) with an 8k
    // prompt on one RTX 4090: llama.cpp allocates n_ctx = 8448 cells on the
    // 12 full layers and window + ubatch cells on the sliding ones, so the
    // request fits its own cache. Counting every layer's KV per token
    // (49,152 B) would make that cache hold ~4,600 tokens, under one request.
    const PropertyJson request = {{"model", "gpt-oss-20b"}, {"gpu", "rtx-4090"}, {"engine", "llama.cpp"},
                                  {"prompt_tokens", 8192}, {"output_tokens", 256}};
    const auto f = servingAt(request, 1);
    REQUIRE(f);
    REQUIRE(f->kvCacheTokens);
    CHECK(*f->kvCacheTokens >= 8192 + 256);
    CHECK(*f->maxConcurrency >= 1);
    CHECK(f->tpotMs > 0);
}

TEST_CASE("serving: prefix-cache hits and speculative decoding help where they should", "[serving]") {
    const PropertyJson base = {{"model", "llama-3.1-8b"}, {"gpu", "h100-sxm5-80gb"}, {"prompt_tokens", 4096},
                               {"output_tokens", 256}};
    const auto plain = servingAt(base, 32);
    PropertyJson cached = base;
    cached["serving"] = {{"prefix_cache_hit_rate", 0.9}};
    PropertyJson speculative = base;
    speculative["serving"] = {{"speculative", {{"method", "eagle"}, {"accepted_tokens_per_step", 2.5}}}};
    const auto hit = servingAt(cached, 32);
    const auto spec = servingAt(speculative, 32);
    REQUIRE(plain);
    REQUIRE(hit);
    REQUIRE(spec);
    CHECK(hit->ttftS < plain->ttftS);
    CHECK(spec->tpotMs < plain->tpotMs);
}

TEST_CASE("serve: every deployment that meets the SLO meets it when estimated alone", "[serving][serve]") {
    const std::string request = GENERATE(
        std::string(R"({"model":"llama-3.1-70b","users":200,"prompt_tokens":1024,"output_tokens":256,)"
                    R"("slo":{"ttft_s":2,"min_user_tokens_per_s":20},"top":8})"),
        std::string(R"({"model":"qwen2.5-7b","users":50,"engine":"sglang","slo":{"tpot_ms":40},"top":8})"),
        std::string(R"({"model":"llama-3.1-8b","request_rate_per_s":5,"slo":{"ttft_s":1,"tpot_ms":50},"top":8})"));
    const PropertyJson a = answer(request);
    const PropertyJson in = PropertyJson::parse(request);
    REQUIRE(a["deployments"].size() > 0);
    CHECK(a["meets_slo"] == true);
    for (const PropertyJson& d : a["deployments"]) {
        REQUIRE(d["meets_slo"] == true);
        PropertyJson alone = {{"model", in["model"]}, {"gpu", d["gpu"]}, {"gpu_count", d["gpu_count"]},
                              {"parallel", {{"tp", d["plan"]["tp"]}, {"pp", d["plan"]["pp"]}}}};
        for (const char* key : {"prompt_tokens", "output_tokens", "engine"}) {
            if (in.contains(key)) alone[key] = in[key];
        }
        alone["kv_cache"] = d["kv_cache"];  // the deployment's, FP8 where the search chose it
        alone["weights"] = d["weights"];    // likewise
        if (in.contains("users")) alone["batch"] = in["users"];
        else alone["serving"] = {{"request_rate_per_s", in["request_rate_per_s"]}};
        const ApiResponse r = estimateJson(projectCatalog(), alone.dump());
        INFO(alone.dump() << " -> " << r.json.substr(0, 300));
        REQUIRE(r.status == 0);
        const PropertyJson s = PropertyJson::parse(r.json)["serving"];
        REQUIRE(s.is_object());
        const PropertyJson& slo = in["slo"];
        if (slo.contains("ttft_s")) CHECK(s["ttft_s"].get<double>() <= slo["ttft_s"].get<double>() * (1 + kRounding));
        if (slo.contains("tpot_ms")) CHECK(s["tpot_ms"].get<double>() <= slo["tpot_ms"].get<double>() * (1 + kRounding));
        if (slo.contains("min_user_tokens_per_s")) {
            CHECK(s["user_tokens_per_s"].get<double>() >= slo["min_user_tokens_per_s"].get<double>() * (1 - kRounding));
        }
        CHECK(s["output_tokens_per_s_per_gpu"] == d["serving"]["output_tokens_per_s_per_gpu"]);
    }
    CHECK(a["curve"].size() > 1);
}

TEST_CASE("serve: an FP8 KV cache is tried where the request leaves the cache open and the GPU converts FP8",
          "[serving][serve]") {
    // Llama-3.1-8B at 8,192 + 1,024 tokens per user: a 16-bit KV cache takes
    // 32 layers x 8 KV heads x 128 x 2 (K, V) x 2 B = 128 KiB per token, FP8
    // half that, so one 24 GB RTX 4090's pool (~7 GiB after the 15 GiB of
    // weights) holds about 6 users' contexts in 16 bits and 12 in FP8:
    // the KV pool, not the step time, sets the users per replica.
    const std::string load = R"("model":"llama-3.1-8b","users":400,"prompt_tokens":8192,"output_tokens":1024,)"
                             R"("slo":{"ttft_s":5,"min_user_tokens_per_s":15},"max_gpus":64,"top":20)";
    const PropertyJson open = answer("{" + load + R"(,"gpu":["rtx-4090"]})");
    REQUIRE(open["deployments"].size() > 0);
    const PropertyJson& best = open["deployments"][0];
    CHECK(best["kv_cache"] == "fp8");
    bool said = false;
    for (const auto& why : best["why"]) said = said || why == "fp8_kv_cache_more_users";
    CHECK(said);
    const PropertyJson sixteen = answer("{" + load + R"(,"gpu":["rtx-4090"],"kv_cache":"bf16"})");
    REQUIRE(sixteen["deployments"].size() > 0);
    for (const auto& d : sixteen["deployments"]) CHECK(d["kv_cache"] == "bf16");
    // Twice the tokens in the pool: fewer GPUs carry the same 400 users.
    CHECK(best["gpu_count"].get<int>() < sixteen["deployments"][0]["gpu_count"].get<int>());
    // The A100 has no FP8 conversion in hardware: its deployments keep 16 bits.
    const PropertyJson ampere = answer("{" + load + R"(,"gpu":["a100-sxm4-80gb"]})");
    for (const auto& d : ampere["deployments"]) CHECK(d["kv_cache"] == "bf16");
}

TEST_CASE("serve: FP8 weights are tried where the request leaves them open on a 16-bit checkpoint and FP8 tensor cores",
          "[serving][serve]") {
    // Qwen2.5-72B (72.7B parameters) for 50 users at 2,048 + 512 tokens on
    // H100s: 16-bit weights take ~136 GiB, 4 GPUs with the users' KV; FP8
    // W8A8 (vLLM --quantization fp8) halves them to ~68 GiB, so 2 H100s hold
    // weights and KV, and each decode step reads half the weight bytes.
    const std::string load = R"("model":"qwen2.5-72b","users":50,"prompt_tokens":2048,"output_tokens":512,)"
                             R"("slo":{"ttft_s":2,"min_user_tokens_per_s":20})";
    const PropertyJson open = answer("{" + load + R"(,"gpu":["h100-sxm5-80gb"]})");
    REQUIRE(open["deployments"].size() > 0);
    const PropertyJson& best = open["deployments"][0];
    CHECK(best["weights"] == "fp8");
    CHECK(best["gpu_count"].get<int>() < 4);
    bool said = false;
    for (const auto& why : best["why"]) said = said || why == "fp8_weights_more_users";
    CHECK(said);
    // Weights the request names are kept, and GPUs without FP8 tensor cores
    // (A100: no FP8 conversion) and checkpoints already quantized keep theirs.
    for (const char* request : {R"(,"gpu":["h100-sxm5-80gb"],"weights":"bf16"})", R"(,"gpu":["a100-sxm4-80gb"]})"}) {
        const PropertyJson kept = answer("{" + load + request);
        REQUIRE(kept["deployments"].size() > 0);
        for (const auto& d : kept["deployments"]) CHECK(d["weights"] == "bf16");
    }
    const PropertyJson native = answer(R"({"model":"gpt-oss-120b","users":50,"gpu":["h100-sxm5-80gb"],)"
                                       R"("slo":{"ttft_s":2,"min_user_tokens_per_s":20}})");
    REQUIRE(native["deployments"].size() > 0);
    for (const auto& d : native["deployments"]) CHECK(d["weights"] == "mxfp4");
}

TEST_CASE("serve: at the same price and GPUs the request's own KV format is kept", "[serving][serve]") {
    // Qwen2.5-72B in 16 bits for 50 users at 2,048 + 512 tokens: 4 H100s
    // hold the weights (~136 GiB) and 50 users' 16-bit KV (50 x 2,560 x
    // 320 KiB = 39 GiB), so FP8 KV buys no GPU and the 16-bit deployment is listed.
    const PropertyJson a = answer(R"({"model":"qwen2.5-72b","gpu":["h100-sxm5-80gb"],"users":50,"prompt_tokens":2048,)"
                                  R"("output_tokens":512,"weights":"bf16","slo":{"ttft_s":2,"min_user_tokens_per_s":20}})");
    REQUIRE(a["deployments"].size() > 0);
    CHECK(a["deployments"][0]["gpu_count"] == 4);
    CHECK(a["deployments"][0]["kv_cache"] == "bf16");
    // One line per GPU and layout.
    for (std::size_t i = 0; i < a["deployments"].size(); ++i) {
        for (std::size_t j = i + 1; j < a["deployments"].size(); ++j) {
            const auto &x = a["deployments"][i], &y = a["deployments"][j];
            CHECK_FALSE((x["gpu_count"] == y["gpu_count"] && x["replicas"] == y["replicas"] &&
                         x["plan"]["tp"] == y["plan"]["tp"] && x["plan"]["pp"] == y["plan"]["pp"]));
        }
    }
}

TEST_CASE("serve: more users than max_gpus can carry lists the closest deployments, not 'does not fit'",
          "[serving][serve]") {
    // Llama-3.3-70B holds on 2 H100s (~131 GiB of bf16 weights), so 8 GPUs
    // run it; 1,000 users at 50 ms TPOT need several 8-GPU replicas, more
    // than max_gpus 8 allows. The answer is those 8 GPUs' figures under the
    // whole load, marked as missing the SLO.
    const PropertyJson a = answer(R"({"model":"llama-3.3-70b","gpu":"h100-sxm5-80gb","users":1000,"prompt_tokens":1000,)"
                                  R"("output_tokens":1000,"slo":{"tpot_ms":50,"ttft_s":1},"max_gpus":8})");
    CHECK(a["meets_slo"] == false);
    REQUIRE(a["deployments"].size() > 0);
    for (const auto& d : a["deployments"]) {
        CHECK(d["meets_slo"] == false);
        CHECK(d["gpu_count"].get<int>() <= 8);
    }
    CHECK(a.dump().find("holds the model within max_gpus") == std::string::npos);
}

TEST_CASE("serve: a replica of one 8-GPU server is tried when the fewest GPUs are not a power of two",
          "[serving][serve]") {
    // DeepSeek-V3 in its FP8 checkpoint is ~640 GiB: 6 H200s (141 GB) hold
    // it as tensor 2 x pipeline 3, and its doublings are 12, 24, 48. The
    // deployment everyone runs, one 8 x H200 server at tensor 8 (SGLang's and
    // vLLM's DeepSeek-V3 recipes), must be among the candidates, and for a
    // light load it is the cheapest that meets the SLO.
    const PropertyJson a = answer(R"({"model":"deepseek-v3","gpu":"h200-sxm-141gb","users":32,"prompt_tokens":2048,)"
                                  R"("output_tokens":512,"slo":{"ttft_s":3,"min_user_tokens_per_s":15},"max_gpus":16})");
    REQUIRE(a["meets_slo"] == true);
    bool server = false;
    for (const auto& d : a["deployments"]) server = server || (d["gpu_count"] == 8 && d["plan"]["tp"] == 8);
    CHECK(server);
}

TEST_CASE("serve: a deployment's plan names expert parallelism only where the estimate does", "[serving][serve]") {
    // Qwen3-32B is dense: tensor parallelism over 2+ GPUs splits its layers,
    // there are no experts to spread (ep 1, as `caliper estimate` answers for
    // the same plan). A MoE model under plain tensor parallelism shards each
    // expert over the ranks (vLLM without --enable-expert-parallel): ep 1 too.
    for (const char* model : {"qwen3-32b", "qwen3-30b-a3b"}) {
        const PropertyJson a = answer(std::string(R"({"model":")") + model +
                                      R"(","gpu":["h100-sxm5-80gb"],"users":100,"prompt_tokens":2048,)"
                                      R"("output_tokens":512,"slo":{"ttft_s":2,"min_user_tokens_per_s":20}})");
        REQUIRE(a["deployments"].size() > 0);
        for (const auto& d : a["deployments"]) {
            INFO(model << " " << d["plan"].dump());
            CHECK(d["plan"]["ep"] == 1);
        }
    }
}

TEST_CASE("serve: a deployment's why names the layout of its replicas", "[serving][serve]") {
    // Qwen3-235B-A22B held in bf16 is 235.1B x 2 bytes = 438 GiB of weights
    // (its config.json): 7 H100s (80 GB) hold it only as a pipeline of 7
    // stages (tensor parallelism must divide its 64 attention heads), and the
    // closest deployments include that replica. Its why must say so, not
    // "one GPU per replica".
    const PropertyJson a = answer(R"({"model":"qwen3-235b-a22b","gpu":"h100-sxm5-80gb","users":500,"weights":"bf16",)"
                                  R"("slo":{"ttft_s":2},"max_gpus":8})");
    REQUIRE(a["deployments"].size() > 0);
    bool pipeline = false;
    for (const auto& d : a["deployments"]) {
        INFO(d["plan"].dump() << " " << d["why"].dump());
        const auto& why = d["why"];
        const auto has = [&](const char* code) { return std::find(why.begin(), why.end(), code) != why.end(); };
        const int gpusPerReplica = d["gpu_count"].get<int>() / d["replicas"].get<int>();
        CHECK(has("one_gpu_per_replica") == (gpusPerReplica == 1));
        if (d["plan"]["tp"] == 1 && d["plan"]["pp"].get<int>() > 1) {
            pipeline = true;
            CHECK(has("pipeline_parallel_in_replica"));
        }
    }
    CHECK(pipeline);
}

TEST_CASE("serve: disaggregated prefill and decode where a tight TTFT meets long prompts", "[serving][serve]") {
    // Llama-3.1-70B in 16 bits for 1,000 users at 4,096 + 512 tokens, TTFT
    // <= 1 s and TPOT <= 30 ms on H100s: about 60 requests/s, 250k prompt
    // tokens/s, 2 x 70e9 x 250e3 = 35 PFLOP/s of prefill. Aggregated replicas must keep
    // every prompt's chunks inside 30 ms decode steps; split, the decode
    // replicas carry no prompt and the prefill replicas no decode
    // (DistServe, OSDI 2024), so fewer GPUs meet both targets.
    const std::string load = R"("model":"llama-3.1-70b","gpu":["h100-sxm5-80gb"],"users":1000,"prompt_tokens":4096,)"
                             R"("output_tokens":512,"weights":"bf16","slo":{"ttft_s":1,"tpot_ms":30},"max_gpus":256,"top":20)";
    const PropertyJson any = answer("{" + load + R"(,"disaggregated":"auto"})");
    REQUIRE(any["deployments"].size() > 0);
    const PropertyJson& best = any["deployments"][0];
    REQUIRE(best["disaggregated"].is_object());
    const PropertyJson& split = best["disaggregated"];
    CHECK(best["gpu_count"] == split["prefill_replicas"].get<int>() * split["prefill_gpus_per_replica"].get<int>() +
                                   split["decode_replicas"].get<int>() * split["decode_gpus_per_replica"].get<int>());
    CHECK(best["serving"]["ttft_s"].get<double>() <= 1.0);
    CHECK(best["serving"]["tpot_ms"].get<double>() <= 30.0);
    const PropertyJson together = answer("{" + load + "}");  // not tried by default
    REQUIRE(together["deployments"].size() > 0);
    for (const auto& d : together["deployments"]) CHECK(d["disaggregated"].is_null());
    // Only the answer that did not try the split says so.
    auto warns = [](const PropertyJson& a) {
        for (const auto& w : a["warnings"]) if (w["code"] == "disaggregated_not_searched") return true;
        return false;
    };
    CHECK(warns(together));
    CHECK_FALSE(warns(any));
    CHECK(best["gpu_count"].get<int>() < together["deployments"][0]["gpu_count"].get<int>());
    const PropertyJson only = answer("{" + load + R"(,"disaggregated":true})");
    for (const auto& d : only["deployments"]) CHECK(d["disaggregated"].is_object());
    // The prompt's KV, 4,096 tokens x 320 KiB (80 layers x 8 KV heads x 128
    // x 2 x 2 B in 16 bits), leaves each prefill GPU in one send: a few ms
    // at most over NVLink or a 400 Gb/s NIC (1.34 GB / 4 GPUs / 50 GB/s = 6.7 ms).
    for (const auto& d : any["deployments"]) {
        if (!d["disaggregated"].is_object()) continue;
        CHECK(d["disaggregated"]["kv_transfer_ms"].get<double>() > 0);
        CHECK(d["disaggregated"]["kv_transfer_ms"].get<double>() < 15);
    }
    rejected("{" + load + R"(,"disaggregated":"maybe"})", "invalid_value", "/disaggregated");
}

TEST_CASE("serve: a disaggregated deployment's TPOT is its decode step alone", "[serving][serve]") {
    // With no prompt chunks in its steps, a decode replica running c requests
    // is no slower per token than an aggregated replica of the same GPUs at
    // the same c, whose steps also carry the prompts.
    const PropertyJson split = answer(R"({"model":"llama-3.1-8b","gpu":["h100-sxm5-80gb"],"users":300,)"
                                      R"("prompt_tokens":2048,"output_tokens":256,"slo":{"ttft_s":2,"tpot_ms":40},)"
                                      R"("disaggregated":true,"kv_cache":"bf16","top":1})");
    REQUIRE(split["deployments"].size() == 1);
    const PropertyJson& d = split["deployments"][0];
    const double perReplica = d["concurrency_per_replica"].get<double>();
    const int gpus = d["disaggregated"]["decode_gpus_per_replica"].get<int>();
    PropertyJson alone = {{"model", "llama-3.1-8b"}, {"gpu", "h100-sxm5-80gb"}, {"gpu_count", gpus},
                          {"parallel", {{"tp", gpus}}}, {"prompt_tokens", 2048}, {"output_tokens", 256},
                          {"kv_cache", "bf16"}, {"batch", std::max(1, int(perReplica))}};
    const ApiResponse r = estimateJson(projectCatalog(), alone.dump());
    REQUIRE(r.status == 0);
    const PropertyJson together = PropertyJson::parse(r.json)["serving"];
    CHECK(d["serving"]["tpot_ms"].get<double>() <= together["tpot_ms"].get<double>() * (1 + kRounding));
}

TEST_CASE("serve: a request rate near zero is refused, not priced at infinity", "[serving][serve]") {
    // 1e-320 requests/s (a subnormal double): an H100's hourly price over it
    // overflows to infinity per token, which JSON cannot carry. The floor is
    // about one request a day (request_limits.hpp).
    rejected(R"({"model":"llama-3.1-8b","gpu":"h100-sxm5-80gb","request_rate_per_s":1e-320,"slo":{"ttft_s":1}})",
             "invalid_value", "/request_rate_per_s");
    const PropertyJson a = answer(R"({"model":"llama-3.1-8b","gpu":"h100-sxm5-80gb","request_rate_per_s":1e-5,)"
                                  R"("slo":{"ttft_s":1}})");
    REQUIRE(a["deployments"].size() > 0);
    CHECK(a["deployments"][0]["usd_per_million_output_tokens"].is_number());
}

TEST_CASE("serve: an SLO nobody meets answers the closest deployments, not an error", "[serving][serve]") {
    const PropertyJson a = answer(R"({"model":"llama-3.1-70b","users":10,"slo":{"ttft_s":0.0001},"gpu":["h100-sxm5-80gb","rtx-4090"]})");
    CHECK(a["meets_slo"] == false);
    REQUIRE(a["deployments"].size() > 0);
    CHECK(a["deployments"][0]["meets_slo"] == false);
    CHECK(a.dump().find("slo_not_met") != std::string::npos);
}

TEST_CASE("serve: a GPU without a memory bandwidth is left out, not given speeds", "[serving][serve]") {
    // data/gpus.json: mlu590 has bandwidth_gbps null (no published figure), so
    // an estimate on it has no decode speed; the H800 has one (3,350 GB/s).
    const PropertyJson a = answer(R"({"model":"qwen3-32b","users":200,"slo":{"min_user_tokens_per_s":20},
                                      "gpu":["mlu590","h800-sxm5-80gb"]})");
    REQUIRE(a["deployments"].size() > 0);
    for (const auto& d : a["deployments"]) CHECK(d["gpu"] == "h800-sxm5-80gb");
    bool warned = false;
    for (const auto& w : a["warnings"]) {
        if (w["code"] == "speed_unknown") warned = w["message"].get<std::string>().find("MLU590") != std::string::npos;
    }
    CHECK(warned);
    CHECK(a["speed_unknown"] == PropertyJson::array({"mlu590"}));
}

TEST_CASE("serve: a GPU without a tensor rate is left out, not given free prefill", "[serving][serve]") {
    // data/gpus.json: ascend-910b has bandwidth (1,600 GB/s) but every tensor
    // rate null (SKUs 910B1-B4 differ). Taking prompt compute as free, the
    // search had 4 cards carry 200 users at 20 tokens/s: 8.3 requests/s x
    // 2,048-token prompts x 2 x 32.8e9 params = 1.1e15 FLOP/s, 280 TFLOPS a
    // card, beside their decode work, while an A800 (312 TFLOPS) needed 12.
    const PropertyJson a = answer(R"({"model":"qwen3-32b","users":200,"slo":{"min_user_tokens_per_s":20},
                                      "gpu":["ascend-910b","a800-sxm4-80gb"],"max_gpus":32})");
    REQUIRE(a["deployments"].size() > 0);
    for (const auto& d : a["deployments"]) CHECK(d["gpu"] == "a800-sxm4-80gb");
    CHECK(a["speed_unknown"] == PropertyJson::array({"ascend-910b"}));
    // An estimate on it gives no serving figures either (nor a TTFT).
    const PropertyJson e = PropertyJson::parse(
        estimateJson(projectCatalog(), R"({"model":"qwen3-32b","gpu":"ascend-910b","gpu_count":4,"batch":64})").json);
    CHECK(e["serving"].is_null());
}

TEST_CASE("serve: deployments stay within their GPUs' compute and bandwidth", "[serving][serve]") {
    // Qwen3-32B (32.76e9 params, 64 layers, 8 KV heads x 128, 16-bit KV:
    // 64 x 8 x 128 x 2 x 2 B = 262,144 B a token) on A800s (312 TFLOPS BF16,
    // 2,039 GB/s). Each request's prompt costs at least 2 x 32.76e9 x 2,048 =
    // 1.342e14 FLOP, so requests/s x that cannot exceed gpu_count x 312e12.
    // A decode step reads at least the weights (2 B x 32.76e9 = 65.5e9 B) and
    // each running request's prompt KV (2,048 x 262,144 B) over the replica's
    // GPUs, so TPOT >= that / (gpus per replica x 2,039e9 B/s).
    const PropertyJson a = answer(R"({"model":"qwen3-32b","users":200,"slo":{"min_user_tokens_per_s":20},
                                      "gpu":"a800-sxm4-80gb","max_gpus":32,"top":10})");
    REQUIRE(a["meets_slo"] == true);
    for (const auto& d : a["deployments"]) {
        INFO(d.dump().substr(0, 300));
        const double gpus = d["gpu_count"].get<double>();
        const double perReplica = gpus / d["replicas"].get<double>();
        const PropertyJson& s = d["serving"];
        CHECK(s["requests_per_s"].get<double>() * 1.342e14 <= gpus * 312e12);
        const double bytes = 65.5e9 + d["concurrency_per_replica"].get<double>() * 2048 * 262144.0;
        CHECK(s["tpot_ms"].get<double>() >= 1e3 * bytes / (perReplica * 2039e9));
    }
}

TEST_CASE("serve: bad input is rejected with its pointer", "[serving][serve]") {
    rejected(R"({"model":"llama-3.1-8b","users":-5})", "invalid_value", "/users");
    rejected(R"({"model":"llama-3.1-8b","users":1e12})", "invalid_value", "/users");
    rejected(R"({"model":"llama-3.1-8b","request_rate_per_s":-1})", "invalid_value", "/request_rate_per_s");
    rejected(R"({"model":"llama-3.1-8b","users":5,"request_rate_per_s":1})", "invalid_value", "/request_rate_per_s");
    rejected(R"({"model":"llama-3.1-8b"})", "missing_key", "/users");
    rejected(R"({"model":"llama-3.1-8b","users":5,"slo":{"ttft_s":0}})", "invalid_value", "/slo/ttft_s");
    rejected(R"({"model":"llama-3.1-8b","users":5,"slo":{"tpot_ms":-3}})", "invalid_value", "/slo/tpot_ms");
    rejected(R"({"model":"llama-3.1-8b","users":5,"slo":{"min_user_tokens_per_s":1e9}})", "invalid_value",
             "/slo/min_user_tokens_per_s");
    rejected(R"({"model":"llama-3.1-8b","users":5,"slo":{"ttfb":1}})", "unknown_key", "/slo/ttfb");
    rejected(R"({"model":"llama-3.1-8b","users":5,"batch":4})", "invalid_value", "/batch");
    PropertyJson many = {{"model", "llama-3.1-8b"}, {"users", 5}, {"gpu", PropertyJson::array()}};
    for (int i = 0; i < 600; ++i) many["gpu"].push_back("h100-sxm5-80gb");
    rejected(many.dump(), "too_large", "/gpu");
    const ApiResponse e = estimateJson(projectCatalog(),
                                       R"({"model":"llama-3.1-8b","gpu":"h100","serving":{"prefix_cache_hit_rate":1.5}})");
    CHECK(e.status == 2);
    CHECK(e.json.find("/serving/prefix_cache_hit_rate") != std::string::npos);
    const ApiResponse sp = estimateJson(
        projectCatalog(), R"({"model":"llama-3.1-8b","gpu":"h100","serving":{"speculative":{"method":"eagle","accepted_tokens_per_step":0.5}}})");
    CHECK(sp.status == 2);
    CHECK(sp.json.find("/serving/speculative/accepted_tokens_per_step") != std::string::npos);
}

TEST_CASE("recommend with an SLO runs the serve search", "[serving][serve]") {
    const ApiResponse r = recommendJson(projectCatalog(),
                                        R"({"model":"llama-3.1-8b","batch":40,"slo":{"min_user_tokens_per_s":30},"top":3})");
    INFO(r.json.substr(0, 300));
    REQUIRE(r.status == 0);
    const PropertyJson j = PropertyJson::parse(r.json);
    CHECK(j["objective"] == "slo");
    CHECK(j["users"] == 40);
    REQUIRE(j["deployments"].size() > 0);
    CHECK(j["deployments"][0]["meets_slo"] == true);
}

TEST_CASE("serving: a pipeline-parallel vLLM deployment's KV pool is the smaller stage's at any concurrency",
          "[serving]") {
    // Gemma 3 270M over 2 x 4 RTX 3080 Ti (pp 2): both stages fill vLLM's budget, and the
    // last one also holds the sampler's profile (256 rows x 262,144 vocabulary x 15 bytes,
    // memory/activations.cpp), so its pool is the smaller; vLLM sizes every worker's
    // blocks by the smallest pool. The pool must not grow back when fewer users are asked.
    const PropertyJson request = {{"engine", "vllm"}, {"gpu", "rtx-3080-ti"}, {"gpu_count", 8},
                                  {"model", "gemma-3-270m"}, {"prompt_tokens", 4096}, {"output_tokens", 1024},
                                  {"serving", {{"prefix_cache_hit_rate", 0.9}}}};
    const auto few = servingAt(request, 128);
    const auto many = servingAt(request, 1024);
    REQUIRE(few);
    REQUIRE(many);
    CHECK(few->kvPoolGiB == Approx(many->kvPoolGiB));
    CHECK(notBelow(many->tpotMs, few->tpotMs));
}

TEST_CASE("serve: a context past the model's is warned about, as the estimate warns", "[serving][serve]") {
    // Llama 3 8B's config.json: max_position_embeddings 8192. A prompt of
    // 8192 tokens and 256 out needs 8448; vLLM refuses a max_model_len above
    // the model's (unless VLLM_ALLOW_LONG_MAX_MODEL_LEN), and the estimate
    // warns context_exceeds_model: serve's answer says so too.
    const PropertyJson a = answer(R"({"model":"llama-3-8b","users":5,"prompt_tokens":8192,"output_tokens":256,)"
                                  R"("slo":{"ttft_s":30},"gpu":["h100-sxm5-80gb"]})");
    bool warned = false;
    for (const PropertyJson& w : a["warnings"]) warned = warned || w["code"] == "context_exceeds_model";
    CHECK(warned);
    const PropertyJson within = answer(R"({"model":"llama-3-8b","users":5,"prompt_tokens":4096,"output_tokens":256,)"
                                       R"("slo":{"ttft_s":30},"gpu":["h100-sxm5-80gb"]})");
    for (const PropertyJson& w : within["warnings"]) CHECK(w["code"] != "context_exceeds_model");
}

TEST_CASE("serving: a second user never shortens the first token's wait", "[serving][properties]") {
    // A lone user's prompt runs with no other request decoding in its steps;
    // a second user can only add work to them (its decodes ride along, or its
    // prompt runs first). The lone prefill was sized as if one decode rode
    // with it, so on llama.cpp (prompts mixed into the decode batch, no
    // synchronized wait) TTFT fell from one user to two: 0.437 s -> 0.437 s
    // less 0.2 ms for Llama-3.1-8B Q4_K_M with a 4096-token prompt on a 4090.
    const PropertyJson request = {{"model", "llama-3.1-8b"}, {"gpu", "rtx-4090"}, {"engine", "llama.cpp"},
                                  {"weights", "Q4_K_M"}, {"prompt_tokens", 4096}, {"output_tokens", 128}};
    const std::optional<ServingFigures> one = servingAt(request, 1);
    const std::optional<ServingFigures> two = servingAt(request, 2);
    REQUIRE(one);
    REQUIRE(two);
    CHECK(two->ttftS >= one->ttftS);
    for (const char* engine : {"vllm", "tensorrt-llm"}) {
        PropertyJson r = {{"model", "llama-3.1-8b"}, {"gpu", "h100-sxm5-80gb"}, {"engine", engine},
                          {"prompt_tokens", 4096}, {"output_tokens", 128}};
        const std::optional<ServingFigures> a = servingAt(r, 1);
        const std::optional<ServingFigures> b = servingAt(r, 2);
        REQUIRE(a);
        REQUIRE(b);
        INFO(engine);
        CHECK(b->ttftS >= a->ttftS);
    }
}

TEST_CASE("serving: vLLM on Apple silicon pads no decode batch to a CUDA graph size", "[serving]") {
    // vllm-metal runs MLX eagerly (README: VLLM_METAL_EAGER_MODE default 1,
    // "disable graph compilation"), so 17 running requests compute 17 rows,
    // not the 24 of vLLM's CUDA-graph capture list [1, 2, 4, 8, 16, 24, ...].
    // Qwen2.5-3B at 16-17 requests on an M4 Max is near its compute bound
    // (decode compute 13 ms beside 14 ms of reads), where padding to 24 rows
    // cost 26% of TPOT and made throughput per GPU fall from 16 users to 17.
    const PropertyJson request = {{"model", "qwen2.5-3b"}, {"gpu", "apple-m4-max-40c-64gb"}, {"engine", "vllm"},
                                  {"prompt_tokens", 128}, {"output_tokens", 128}};
    const std::optional<ServingFigures> at16 = servingAt(request, 16);
    const std::optional<ServingFigures> at17 = servingAt(request, 17);
    REQUIRE(at16);
    REQUIRE(at17);
    // One more row: at most 1/16 more compute on a step of reads and compute.
    CHECK(at17->tpotMs < at16->tpotMs * (1 + 1.0 / 16));
    CHECK(at17->outputTokensPerSPerGpu >= at16->outputTokensPerSPerGpu);
}

TEST_CASE("serve: a speech, embedding or diffusion model is refused, not served tokens", "[serving][serve]") {
    // FLUX.1-dev makes images and Whisper transcribes: the estimate gives
    // them their own figures and no serving object (CONTRACT "Workloads"),
    // so serve has no TTFT or TPOT to hold against an SLO. It listed FLUX
    // deployments at 70 output tokens/s per user.
    rejected(R"({"model":"flux.1-dev","users":10,"slo":{"ttft_s":2}})", "incompatible_options", "/model");
    rejected(R"({"model":"whisper-large-v3","users":10,"slo":{"ttft_s":2}})", "incompatible_options", "/model");
    rejected(R"({"model":"bge-m3","request_rate_per_s":5,"slo":{"ttft_s":1}})", "incompatible_options", "/model");
    const ApiResponse r = recommendJson(projectCatalog(), R"({"model":"flux.1-dev","batch":4,"slo":{"ttft_s":2}})");
    CHECK(r.status == 2);
}

TEST_CASE("serve: an slo without a target is missing_key at /slo; no slo ranks by cost", "[serving][serve]") {
    // docs/CONTRACT.md "Serve": as the matrix's users-at-SLO mode, an slo
    // object with no target is a mistake; without one every deployment that
    // runs the users meets it.
    const std::string base = R"({"model":"llama-3.1-8b","gpu":"h100-sxm5-80gb","users":4)";
    rejected(base + R"(,"slo":{}})", "missing_key", "/slo");
    rejected(base + R"(,"slo":{"ttft_s":null,"tpot_ms":null}})", "missing_key", "/slo");
    const PropertyJson open = answer(base + "}");
    REQUIRE_FALSE(open["deployments"].empty());
    CHECK(open["deployments"][0]["meets_slo"] == true);
    CHECK(answer(base + R"(,"slo":null})")["deployments"].size() == open["deployments"].size());
}

TEST_CASE("serve: a GPU the estimate rejects for the engine or format is left out", "[serving][serve]") {
    // TensorRT-LLM is built on CUDA (NVIDIA/TensorRT-LLM README, "Supported
    // hardware"); MLX runs on Apple GPUs only (ml-explore/mlx README); FP8
    // weights need cc 8.0+ (Marlin weight-only) in vLLM, and a V100 is cc 7.0.
    // estimate() rejects each of these, so serve must not rank them.
    const PropertyJson trt = answer(R"({"model":"qwen3-30b-a3b","users":5,"engine":"tensorrt-llm",
                                        "gpu":["mi300x","h100-sxm5-80gb"]})");
    REQUIRE(trt["deployments"].size() > 0);
    for (const auto& d : trt["deployments"]) CHECK(d["gpu"] == "h100-sxm5-80gb");
    const PropertyJson fp8 = answer(R"({"model":"llama-3.1-70b","users":5,"weights":"fp8",
                                        "gpu":["v100-sxm2-32gb","a100-sxm4-80gb"]})");
    REQUIRE(fp8["deployments"].size() > 0);
    for (const auto& d : fp8["deployments"]) CHECK(d["gpu"] == "a100-sxm4-80gb");
    const PropertyJson mlx = answer(R"({"model":"qwen3-8b","users":1,"engine":"mlx",
                                        "gpu":["h100-sxm5-80gb","apple-m4-max-40c"]})");
    REQUIRE(mlx["deployments"].size() > 0);
    for (const auto& d : mlx["deployments"]) CHECK(d["gpu"] == "apple-m4-max-40c");
    // Every GPU asked for rejects it: the request is the mistake, as estimate says.
    rejected(R"({"model":"qwen3-30b-a3b","users":5,"engine":"tensorrt-llm","gpu":"mi300x"})", "incompatible_options",
             "/engine");
}

TEST_CASE("serving: a llama.cpp plan that does not fit has no serving figures", "[serving]") {
    // Llama 3.1 70B in Q4_K_M is about 39 GiB of weights (70.55e9 x ~4.8 bits);
    // one 24 GB RTX 4090 cannot load it, and llama.cpp allocates its whole
    // context at load, so nothing is served: no speed, price or energy.
    const PropertyJson e = PropertyJson::parse(
        estimateJson(projectCatalog(),
                     R"({"model":"llama-3.1-70b","gpu":"rtx-4090","engine":"llama.cpp","weights":"Q4_K_M"})")
            .json);
    REQUIRE(e["ok"] == true);
    CHECK(e["fits"] == false);
    CHECK(e["decode_tokens_per_s"].is_null());
    CHECK(e["serving"].is_null());
    // Two cards hold it (about 20 GiB of weights each): served again.
    const PropertyJson two = PropertyJson::parse(
        estimateJson(projectCatalog(), R"({"model":"llama-3.1-70b","gpu":"rtx-4090","gpu_count":2,"engine":"llama.cpp",)"
                                       R"("weights":"Q4_K_M"})")
            .json);
    CHECK(two["fits"] == true);
    CHECK(two["serving"].is_object());
}

TEST_CASE("serving: llama.cpp runs a pure prompt in the cache sized for it", "[serving]") {
    // llama-bench -p 2048 -n 0 on Llama 3.1 8B: the cache is sized for prompt +
    // output = 2,048 cells (a multiple of llama.cpp's 256-cell padding), 32
    // layers x 8 KV heads x 128 x 2 (k, v) x 2 B = 131,072 B a cell: 0.25 GiB.
    // The prompt fills it exactly and no generated token is written, so the
    // server starts and serves it; it does not "refuse to start".
    const PropertyJson e = PropertyJson::parse(
        estimateJson(projectCatalog(), R"({"model":"llama-3.1-8b","gpu":"rtx-5090","engine":"llama.cpp",)"
                                       R"("prompt_tokens":2048,"output_tokens":0})")
            .json);
    REQUIRE(e["ok"] == true);
    CHECK(e["memory"]["kv_cache_gib"].get<double>() == Approx(0.25));
    CHECK(e["serving"].is_object());
    CHECK(e.dump().find("kv_pool_too_small") == std::string::npos);
}
