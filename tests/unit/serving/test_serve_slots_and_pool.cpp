// The serve search's llama.cpp slots, the one start-up KV pool behind
// memory.kv_pool_gib, serving.kv_pool_gib and the fit verdict, and the serve
// and speculative input checks.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "caliper/api.hpp"
#include "property_scenarios.hpp"

using namespace caliper;
using caliper::test::projectCatalog;
using caliper::test::PropertyJson;

namespace {

PropertyJson okJson(const ApiResponse& r) {
    INFO(r.json.substr(0, 600));
    REQUIRE(r.status == 0);
    return PropertyJson::parse(r.json);
}

void refused(const ApiResponse& r, const std::string& code, const std::string& path) {
    INFO(r.json.substr(0, 400));
    REQUIRE(r.status == 2);
    const PropertyJson j = PropertyJson::parse(r.json);
    CHECK(j["error"]["code"] == code);
    CHECK(j["error"]["path"] == path);
}

}  // namespace

TEST_CASE("serve sizes llama.cpp and Ollama replicas with a slot per user, as llama-server -np does",
          "[serving][serve]") {
    // llama-server --parallel N splits one cache of n_ctx cells into N slots
    // of n_ctx / N (tools/server README); Ollama's KvSize is num_ctx x
    // OLLAMA_NUM_PARALLEL. Five users on one H100 are one server with five
    // slots when the single estimate of one H100 at batch 5 fits and meets
    // the SLO; the search must not answer five one-slot replicas.
    for (const char* engine : {"llama.cpp", "ollama"}) {
        INFO(engine);
        const std::string common = std::string(R"("model":"qwen3-30b-a3b","gpu":"h100-sxm5-80gb","engine":")") + engine + "\"";
        const PropertyJson single =
            okJson(estimateJson(projectCatalog(), "{" + common + R"(,"gpu_count":1,"batch":5})"));
        REQUIRE(single["fits"] == true);
        REQUIRE(single["serving"].is_object());
        const double tpotMs = single["serving"]["tpot_ms"].get<double>();
        REQUIRE(tpotMs < 100);  // read from the engine: the premise of the SLO below
        const PropertyJson served =
            okJson(serveJson(projectCatalog(), "{" + common + R"(,"users":5,"slo":{"tpot_ms":100}})"));
        REQUIRE(served["deployments"].size() >= 1);
        const PropertyJson& best = served["deployments"][0];
        CHECK(best["meets_slo"] == true);
        CHECK(best["gpu_count"] == 1);
        CHECK(best["replicas"] == 1);
        // The replica is the estimate's server: five slots, the same TPOT.
        CHECK(best["serving"]["tpot_ms"].get<double>() == Approx(tpotMs).epsilon(1e-4));
    }
}

TEST_CASE("serve splits llama.cpp users over replicas only as the SLO needs", "[serving][serve]") {
    // More users than one server's slots meet the TPOT target with: each of
    // the R replicas carries ceil(users / R) slots and meets it, and the
    // replicas the search gives are the fewest that do (R - 1 would not).
    const PropertyJson served = okJson(serveJson(
        projectCatalog(),
        R"({"model":"llama-3.1-8b","gpu":"rtx-4090","engine":"llama.cpp","users":64,"slo":{"tpot_ms":25},"max_gpus":64})"));
    REQUIRE(served["deployments"].size() >= 1);
    const PropertyJson& best = served["deployments"][0];
    REQUIRE(best["meets_slo"] == true);
    const int replicas = best["replicas"].get<int>();
    const int gpusPerReplica = best["gpu_count"].get<int>() / replicas;
    auto tpotWith = [&](int slots) {
        PropertyJson r = {{"model", "llama-3.1-8b"}, {"gpu", "rtx-4090"}, {"engine", "llama.cpp"},
                          {"gpu_count", gpusPerReplica}, {"batch", slots}};
        const PropertyJson e = okJson(estimateJson(projectCatalog(), r.dump()));
        return e["fits"] == true && e["serving"].is_object() ? e["serving"]["tpot_ms"].get<double>() : HUGE_VAL;
    };
    CHECK(tpotWith(int(std::ceil(64.0 / replicas))) <= 25);
    if (replicas > 1) CHECK(tpotWith(int(std::ceil(64.0 / (replicas - 1)))) > 25);
}

TEST_CASE("serve sizes llama.cpp slots for a request rate by Little's law", "[serving][serve]") {
    // Half a request a second of 512 prompt and 256 output tokens to Llama
    // 3.1 8B on RTX 4090s. Little's law (Little 1961): the requests in
    // flight are the rate times a request's latency, L = lambda x W with
    // W = TTFT + 255 x TPOT. One GPU decodes a few sequences at ~19 ms a
    // token (read from the engine below), so W ~ 4.9 s and L ~ 2.4: one
    // replica of ceil(L) = 3 slots carries the rate within a 100 ms TPOT,
    // not three one-slot replicas.
    const PropertyJson served = okJson(serveJson(
        projectCatalog(), R"({"model":"llama-3.1-8b","gpu":"rtx-4090","engine":"llama.cpp","request_rate_per_s":0.5,)"
                          R"("prompt_tokens":512,"output_tokens":256,"slo":{"tpot_ms":100}})"));
    REQUIRE(served["deployments"].size() >= 1);
    const PropertyJson& best = served["deployments"][0];
    REQUIRE(best["meets_slo"] == true);
    CHECK(best["replicas"] == 1);
    CHECK(best["gpu_count"] == 1);
    const PropertyJson& f = best["serving"];
    const double latencyS = f["ttft_s"].get<double>() + 255 * f["tpot_ms"].get<double>() / 1e3;
    const double inFlight = 0.5 * latencyS;
    // The fixed point: the slots cover the requests in flight, and no more
    // than the next whole number of them.
    CHECK(f["max_concurrency"].get<double>() == std::ceil(inFlight - 1e-9));
    CHECK(f["max_concurrency"].get<double>() > 1);
    // The open loop's requests in flight obey the same law.
    CHECK(best["concurrency_per_replica"].get<double>() == Approx(inFlight).epsilon(0.01));
    CHECK(f["requests_per_s"].get<double>() == Approx(0.5));
}

TEST_CASE("one start-up KV pool: memory and serving agree, and a plan whose engine refuses to start does not fit",
          "[serving][memory]") {
    // memory.kv_pool_gib and serving.kv_pool_gib are one computation
    // (gpu_memory_utilization x memory - weights - activation peak -
    // non-torch memory for vLLM; mem_fraction_static x memory - weights -
    // non-torch for SGLang; TensorRT-LLM's 0.9 of what is left): they agree to
    // the JSON's rounding. A plan that fits has serving figures wherever the
    // engine's pool holds one request (the engine starts), and one whose pool
    // does not is not a fit.
    const char* models[] = {"qwen3-30b-a3b", "llama-3.2-11b-vision", "llama-3.1-70b", "llama-3.1-8b", "deepseek-v3"};
    const char* gpus[] = {"b200", "h100-sxm5-80gb", "rtx-4060", "rtx-4090", "a100-sxm4-40gb", "l4"};
    const char* engines[] = {"vllm", "sglang", "tensorrt-llm"};
    int compared = 0;
    for (const char* model : models) {
        for (const char* gpu : gpus) {
            for (const char* engine : engines) {
                for (const PropertyJson& count : {PropertyJson("auto"), PropertyJson(1), PropertyJson(4)}) {
                    const PropertyJson request = {{"model", model}, {"gpu", gpu}, {"engine", engine},
                                                  {"gpu_count", count}, {"batch", 8}};
                    const ApiResponse r = estimateJson(projectCatalog(), request.dump());
                    if (r.status != 0) continue;
                    const PropertyJson e = PropertyJson::parse(r.json);
                    INFO(request.dump() << " -> fits " << e["fits"] << ", memory pool " << e["memory"]["kv_pool_gib"]
                                        << ", serving " << e["serving"].dump().substr(0, 200));
                    if (std::string(engine) != "tensorrt-llm" && e["fits"] == true) CHECK(e["serving"].is_object());
                    if (e["serving"].is_object() && e["memory"]["kv_pool_gib"].is_number()) {
                        CHECK(e["memory"]["kv_pool_gib"].get<double>() ==
                              Approx(e["serving"]["kv_pool_gib"].get<double>()).epsilon(1e-4).margin(1e-3));
                        ++compared;
                    }
                }
            }
        }
    }
    CHECK(compared > 20);
}

TEST_CASE("serve refuses an empty GPU list and fractional users", "[serving][serve][input]") {
    refused(serveJson(projectCatalog(), R"({"model":"llama-3.1-8b","gpu":[],"users":5})"), "invalid_value", "/gpu");
    refused(serveJson(projectCatalog(), R"({"model":"llama-3.1-8b","gpu":"h100-sxm5-80gb","users":5.5})"),
            "invalid_value", "/users");
    // A request rate is a mean: fractional is fine.
    okJson(serveJson(projectCatalog(), R"({"model":"llama-3.1-8b","gpu":"h100-sxm5-80gb","request_rate_per_s":2.5})"));
}

TEST_CASE("speculative method mtp needs a model with multi-token-prediction layers", "[serving][input]") {
    // Llama-3.1-70B ships no MTP layers (its config has no
    // num_nextn_predict_layers); DeepSeek-V3 ships one.
    const std::string spec = R"("serving":{"speculative":{"method":"mtp","accepted_tokens_per_step":2}})";
    refused(estimateJson(projectCatalog(), R"({"model":"llama-3.1-70b","gpu":"h100-sxm5-80gb","engine":"vllm",)" + spec + "}"),
            "incompatible_options", "/serving/speculative/method");
    refused(serveJson(projectCatalog(), R"({"model":"llama-3.1-70b","gpu":"h100-sxm5-80gb","users":4,)" + spec + "}"),
            "incompatible_options", "/serving/speculative/method");
    okJson(estimateJson(projectCatalog(), R"({"model":"deepseek-v3","gpu":"h200-sxm-141gb","engine":"vllm",)" + spec + "}"));
    okJson(estimateJson(projectCatalog(),
                        R"({"model":"llama-3.1-70b","gpu":"h100-sxm5-80gb","engine":"vllm","serving":{"speculative":{"method":"eagle","accepted_tokens_per_step":2}}})"));
}
