// Every rejected request answers ok:false with a stable code, a message and
// the JSON pointer of the problem, and status 2 (docs/CONTRACT.md "Rejected input").
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "catalog_fixture.hpp"

using caliper::test::projectCatalog;
using Json = nlohmann::json;

namespace {

struct Rejection {
    const char* request;
    const char* code;
    const char* path;
};

Json estimate(const std::string& request, int expectedStatus) {
    const caliper::ApiResponse response = caliper::estimateJson(projectCatalog(), request);
    INFO(response.json);
    REQUIRE(response.status == expectedStatus);
    return Json::parse(response.json);
}

}  // namespace

TEST_CASE("each kind of bad request gives its own code and JSON pointer", "[api][errors]") {
    const Rejection rejection = GENERATE(values<Rejection>({
        {R"({"model":"H1000","gpu":"h100"})", "unknown_model", "/model"},
        {R"({"model":"llama-3.1-8b","gpu":"H1000"})", "unknown_gpu", "/gpu"},
        {R"({"gpu":"h100"})", "missing_key", "/model"},
        {R"({"model":"llama-3.1-8b"})", "missing_key", "/gpu"},
        {R"({"model":"llama-3.1-8b","gpu":"h100","batch":"four"})", "invalid_value", "/batch"},
        {R"({"model":"llama-3.1-8b","gpu":"h100","batch":0})", "invalid_value", "/batch"},
        {R"({"model":"llama-3.1-8b","gpu":"h100","batch":-1})", "invalid_value", "/batch"},
        {R"({"model":"llama-3.1-8b","gpu":"h100","prompt_tokens":1e18})", "invalid_value", "/prompt_tokens"},
        {R"({"model":"llama-3.1-8b","gpu":"h100","gpu_count":2.5})", "invalid_value", "/gpu_count"},
        {R"({"model":"llama-3.1-8b","gpu":"h100","task":"dance"})", "invalid_value", "/task"},
        {R"({"model":"llama-3.1-8b","gpu":"h100","task":"pretrain","loss_kernel":"chunky"})", "invalid_value", "/loss_kernel"},
        {R"({"model":"llama-3.1-8b","gpu":"h100","weights":"int3"})", "invalid_value", "/weights"},
        {R"({"model":"llama-3.1-8b","gpu":"h100","colour":"blue"})", "unknown_key", "/colour"},
        {R"({"model":"llama-3.1-8b","gpu":"h100","lora":{"rank":0}})", "invalid_value", "/lora/rank"},
        {R"({"model":"llama-3.1-8b","gpu":"h100","lora":{"adapter_dtype":"fp8"}})", "invalid_value",
         "/lora/adapter_dtype"},
        {R"({"model":"llama-3.1-8b","gpu":"h100","lora":{"dropout":1.5}})", "invalid_value", "/lora/dropout"},
        {R"({"model":"llama-3.1-8b","gpu":"h100","lora":{"dropout":"some"}})", "invalid_value", "/lora/dropout"},
        {R"({"model":"llama-3.1-8b","gpu":"h100","task":"finetune","loss_kernel":"shifted"})", "invalid_value",
         "/loss_kernel"},
        {R"({"model":"llama-3.1-8b","gpu":"h100","task":"finetune","method":"qlora","weights":"Q4_K_M"})",
         "incompatible_options", "/weights"},
        {R"({"model":"llama-3.1-8b","gpu":"h100","task":"finetune","engine":"llama.cpp"})", "incompatible_options",
         "/engine"},
        {R"({"model":"llama-3.1-8b","gpu":"V100","weights":"fp8","engine":"transformers"})", "unsupported_format",
         "/weights"},
        {R"({"model":"llama-3.1-8b","gpu":"h100","gpu_count":8,"parallel":{"tp":64}})", "invalid_parallel",
         "/parallel/tp"},
        {R"({"model":"llama-3.1-8b","gpu":"h100","gpu_count":8,"parallel":{"tp":3}})", "invalid_parallel",
         "/parallel/tp"},
        {R"({"model":"llama-3.1-8b","gpu":"h100","gpu_count":2,"parallel":{"tp":2,"pp":2}})", "invalid_parallel",
         "/parallel"},
        // A card given by its figures: the size is reported under the key the user wrote.
        {R"({"model":"llama-3.1-8b","gpu":{"name":"X","memory_gib":-1,"bandwidth_gbps":900,"bf16_tflops":100}})",
         "invalid_value", "/gpu/memory_gib"},
        {R"({"model":"llama-3.1-8b","gpu":{"name":"X","memory_gb":"big","bandwidth_gbps":900,"bf16_tflops":100}})",
         "invalid_value", "/gpu/memory_gb"},
        // A size past the range is reported under the key written, not the other unit derived from it.
        {R"({"model":"llama-3.1-8b","gpu":{"name":"X","memory_gib":1e300,"bandwidth_gbps":900,"bf16_tflops":100}})",
         "invalid_value", "/gpu/memory_gib"},
        {R"({"model":"llama-3.1-8b","gpu":{"name":"X","memory_gb":1e30,"bandwidth_gbps":900,"bf16_tflops":100}})",
         "invalid_value", "/gpu/memory_gb"},
        // A training method on an inference request is a contradiction, not an unknown key.
        {R"({"model":"llama-3.1-8b","gpu":"h100","method":"lora"})", "incompatible_options", "/method"},
        // parallel.nodes divides a stated count into equal servers.
        {R"({"model":"llama-3.1-70b","gpu":"h100","gpu_count":16,"parallel":{"nodes":3}})", "invalid_parallel",
         "/parallel/nodes"},
        {R"({"model":"llama-3.1-70b","gpu":"h100","gpu_count":16,"parallel":{"nodes":2},"interconnect":{"gpus_per_node":4}})",
         "invalid_parallel", "/parallel/nodes"},
        {R"({"model":"llama-3.1-70b","gpu":"h100","gpu_count":"auto","parallel":{"nodes":2}})", "incompatible_options",
         "/parallel/nodes"},
        {R"({"model":"llama-3.1-70b","gpu":"h100","gpu_count":16,"parallel":{"nodes":0}})", "invalid_value",
         "/parallel/nodes"},
        // An SLO is judged on inference only; its targets are positive.
        {R"({"model":"llama-3.1-8b","gpu":"h100","task":"finetune","slo":{"ttft_s":1}})", "invalid_value", "/slo"},
        {R"({"model":"llama-3.1-8b","gpu":"h100","slo":{"ttft_s":-1}})", "invalid_value", "/slo/ttft_s"},
        // A request rate near zero prices each token at an idle deployment's
        // whole cost: infinite below the double range, so it has a floor.
        {R"({"model":"llama-3.1-8b","gpu":"h100","serving":{"request_rate_per_s":1e-320}})", "invalid_value",
         "/serving/request_rate_per_s"},
        {R"({"model":"llama-3.1-8b","gpu":"h100")", "invalid_json", ""},
        {R"([1,2,3])", "invalid_value", ""},
    }));
    const Json result = estimate(rejection.request, 2);
    CHECK(result["ok"] == false);
    CHECK(result["error"]["code"] == rejection.code);
    CHECK(result["error"]["path"] == rejection.path);
    CHECK_FALSE(result["error"]["message"].get<std::string>().empty());
    CHECK(result.size() == 2);  // never a partial result beside the error
}

TEST_CASE("an unknown GPU or model suggests catalog names, not ids", "[api][errors]") {
    // "H1000" is one edit from the alias "H100" of the H100 SXM5; the message
    // names the card as people know it, not by its catalog id.
    const Json gpu = estimate(R"({"model":"llama-3.1-8b","gpu":"H1000"})", 2);
    CHECK(gpu["error"]["message"].get<std::string>().find("did you mean 'NVIDIA H100 SXM5 80GB'") != std::string::npos);
    CHECK(gpu["error"]["message"].get<std::string>().find("h100-sxm5-80gb") == std::string::npos);
    // "llama-3.1-8bb" is one edit from the id llama-3.1-8b, whose name leads.
    const Json model = estimate(R"({"model":"llama-3.1-8bb","gpu":"h100"})", 2);
    CHECK(model["error"]["message"].get<std::string>().find("did you mean 'Llama 3.1 8B'") != std::string::npos);
    CHECK(model["error"]["message"].get<std::string>().find("'llama-3.1-8b'") == std::string::npos);
}

TEST_CASE("oversized and deeply nested requests are refused before parsing", "[api][errors][limits]") {
    const std::string huge(50u << 20, ' ');
    CHECK(estimate(huge, 2)["error"]["code"] == "too_large");
    const std::string deep(100000, '[');
    CHECK(estimate(deep, 2)["error"]["code"] == "too_deep");
}

TEST_CASE("a malformed config.json as the model names the missing keys", "[api][errors]") {
    const Json result = estimate(R"({"model":{"model_type":"llama","num_hidden_layers":32},"gpu":"h100"})", 2);
    CHECK(result["error"]["code"] == "invalid_config");
    CHECK(result["error"]["message"].get<std::string>().find("hidden_size") != std::string::npos);
}

TEST_CASE("a valid request answers ok:true with every contract key", "[api]") {
    const Json result = estimate(R"({"model":"llama-3.1-8b","gpu":"h100-sxm5-80gb"})", 0);
    for (const char* key : {"ok", "model", "gpu", "gpu_count", "strategy", "memory", "fits", "gpus_needed",
                            "decode_tokens_per_s", "prefill_tokens_per_s", "time_to_first_token_s",
                            "train_tokens_per_s", "train_hours", "cost_usd", "usd_per_hour", "power_w", "warnings",
                            "explain"}) {
        CHECK(result.contains(key));
    }
    for (const char* key : {"weights_gib", "kv_cache_gib", "activations_gib", "gradients_gib", "optimizer_gib",
                            "adapter_gib", "overhead_gib", "total_gib", "cpu_offload_gib"}) {
        CHECK(result["memory"].contains(key));
    }
    // Contract v2: memory.kv_pool_gib, the pool a serving engine pre-allocates;
    // null where the engine has none (llama.cpp allocates its cache per context).
    CHECK(result["memory"]["kv_pool_gib"].is_number());  // vLLM, the default inference engine
    CHECK(estimate(R"({"model":"llama-3.1-8b","gpu":"h100-sxm5-80gb","engine":"llama.cpp"})", 0)["memory"]["kv_pool_gib"]
              .is_null());
    // The overhead's parts add up to it where no pre-allocated pool leaves slack (a training run).
    const Json training = estimate(
        R"({"model":"llama-3.1-8b","gpu":"h100-sxm5-80gb","task":"finetune","method":"full","gpu_count":8})", 0);
    double parts = 0;
    for (const auto& [key, value] : training["memory"]["overhead_parts"].items()) parts += value.get<double>();
    CHECK(parts == Approx(training["memory"]["overhead_gib"].get<double>()).margin(1e-3));
    CHECK(training["memory"]["overhead_parts"]["nccl_buffers_gib"].get<double>() > 0);  // eight GPUs talk
    // An inference scenario has no training speed (docs/CONTRACT.md: null when it does not apply).
    CHECK(result["train_tokens_per_s"].is_null());
    CHECK(result["decode_tokens_per_s"].is_number());
}

TEST_CASE("a request longer than max_model_len is refused where the engine refuses it", "[api][errors]") {
    // vLLM: "The decoder prompt (length ...) is longer than the maximum model
    // length"; llama-server: "the request exceeds the available context size".
    // The default request is 2,048 prompt + 512 output tokens.
    for (const char* request : {R"({"model":"qwen3-32b","gpu":"h100","max_model_len":100})",
                                R"({"model":"qwen3-32b","gpu":"h100","engine":"llama.cpp","max_model_len":2559})",
                                R"({"model":"qwen3-32b","gpu":"h100","engine":"sglang","max_model_len":2048})"}) {
        INFO(request);
        const Json r = estimate(request, 2);
        CHECK(r["error"]["code"] == "incompatible_options");
        CHECK(r["error"]["path"] == "/max_model_len");
        CHECK(r["error"]["message"].get<std::string>().find("2560") != std::string::npos);
    }
    // Exactly the request's length serves; Ollama truncates the prompt (a warning).
    CHECK(estimate(R"({"model":"qwen3-32b","gpu":"h100","max_model_len":2560})", 0)["ok"] == true);
    const Json ollama = estimate(R"({"model":"qwen3-32b","gpu":"h100","engine":"ollama","max_model_len":100})", 0);
    bool truncated = false;
    for (const Json& w : ollama["warnings"]) truncated = truncated || w["code"] == "ollama_context_truncated";
    CHECK(truncated);
}
