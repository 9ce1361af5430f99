// How serving engines treat a batch whose KV cache exceeds their pool:
// vLLM and SGLang start where the pool holds one request of max_model_len
// and admit the others as blocks free (the rest queue); TensorRT-LLM's
// GUARANTEED_NO_EVICT scheduler reserves every admitted request's whole
// length, so the figures keep needing the batch's KV.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "api_fixture.hpp"
#include "caliper/api.hpp"
#include "catalog_fixture.hpp"
#include "result_fixture.hpp"

using caliper::test::hasWarning;
using caliper::test::estimateOk;
using Json = nlohmann::json;

namespace {

// Llama 3.1 8B caches 32 layers x 8 KV heads x 128 x 2 (K and V) x 2 bytes
// = 128 KiB per token; a request of 8,000 + 2,000 tokens (625 whole 16-token
// blocks) is 10,000 x 128 KiB = 1.22 GiB, and 512 of them 625 GiB, far
// above the ~54 GiB an H100's pool holds beside 15 GiB of bf16 weights
// (0.9 x 79.6 GiB budget less weights, profile activations and overhead).
std::string longBatch(const char* engine) {
    return std::string(R"({"model":"llama-3.1-8b","gpu":"H100 SXM5","batch":512,"prompt_tokens":8000,"output_tokens":2000,"engine":")") +
           engine + "\"}";
}

}  // namespace

TEST_CASE("vLLM and SGLang start with a batch larger than their KV pool and queue what it cannot hold",
          "[memory][serving][kv]") {
    for (const char* engine : {"vllm", "sglang"}) {
        INFO(engine);
        const Json r = estimateOk(longBatch(engine));
        CHECK(r["fits"] == true);
        CHECK(r["gpus_needed"] == 1);
        const double pool = r["memory"]["kv_pool_gib"].get<double>();
        CHECK(pool > 40);
        CHECK(pool < 60);
        // The pool is full with the requests that run; nothing is left over.
        CHECK(r["memory"]["kv_cache_gib"].get<double>() == Approx(pool).epsilon(1e-9));
        // The engine's own start-up figure: its pool holds pool / 1.2207 GiB requests at a time.
        const double concurrency = r["serving"]["max_concurrency"].get<double>();
        CHECK(concurrency == Approx(r["serving"]["kv_pool_gib"].get<double>() / 1.2207).epsilon(0.01));
        CHECK(concurrency < 512);
        CHECK(hasWarning(r, "kv_pool_too_small"));
        CHECK(hasWarning(r, "requests_queue"));
        CHECK_FALSE(hasWarning(r, "does_not_fit"));
    }
}

TEST_CASE("TensorRT-LLM's guaranteed-no-evict scheduler keeps needing the whole batch's KV", "[memory][serving][kv]") {
    const Json r = estimateOk(longBatch("tensorrt-llm"));
    CHECK(r["fits"] == false);
    CHECK(r["gpus_needed"].get<int>() > 1);
}

TEST_CASE("vLLM refuses a max_model_len whose one request the pool cannot hold, whatever the batch",
          "[memory][serving][kv]") {
    // Llama 3.1 8B in bf16 on a 24 GB RTX 4090: 15 GiB of weights in a
    // 0.9 x 24 GiB budget leave a pool of a few GiB. One request of 131,072
    // tokens needs 131,072 x 128 KiB = 16 GiB of it: vLLM stops at start-up
    // (check_enough_kv_cache_memory), although the request's 1,200 tokens
    // (0.15 GiB) would fit.
    const std::string base = R"({"model":"llama-3.1-8b","gpu":"4090","engine":"vllm","prompt_tokens":1000,"output_tokens":200)";
    CHECK(estimateOk(base + "}")["fits"] == true);
    const Json longest = estimateOk(base + R"(,"max_model_len":131072})");
    CHECK(longest["fits"] == false);
    CHECK(hasWarning(longest, "kv_pool_too_small"));
    // What one request of max_model_len needs beside the rest: above the budget.
    CHECK(longest["memory"]["total_gib"].get<double>() > 0.9 * 23.99);
}

TEST_CASE("the largest batch a limit reports is the one the vLLM pool holds at once, not the queue's",
          "[memory][serving][kv][limits]") {
    // The estimate above fits 512 requests by queueing them; the limit stays
    // the batch whose KV the ~54 GiB pool holds together: 53.9 / 1.2207 =
    // 44 requests of 10,000 tokens (the pool's whole 16-token blocks).
    const Json limits = Json::parse(caliper::limitsJson(
        caliper::test::projectCatalog(),
        R"({"model":"llama-3.1-8b","gpu":"H100 SXM5","engine":"vllm","prompt_tokens":8000,"output_tokens":2000})")
            .json);
    CHECK(limits["batch"]["fits"] == true);
    CHECK(limits["batch"]["capped"] == false);
    const double pool = limits["batch"]["memory"]["kv_pool_gib"].get<double>();
    CHECK(limits["batch"]["batch"].get<int>() == int(pool / 1.2207));
}
