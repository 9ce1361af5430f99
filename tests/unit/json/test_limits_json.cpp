// The limits request: each limit it reports fits through the estimate door,
// and the next step past it does not.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "catalog_fixture.hpp"

using caliper::test::projectCatalog;
using Json = nlohmann::json;

namespace {

Json call(const std::string& request, int expectedStatus = 0) {
    const caliper::ApiResponse response = caliper::limitsJson(projectCatalog(), request);
    INFO(request << "\n" << response.json.substr(0, 2000));
    REQUIRE(response.status == expectedStatus);
    return Json::parse(response.json);
}

bool fits(const std::string& request) {
    const caliper::ApiResponse response = caliper::estimateJson(projectCatalog(), request);
    INFO(request << "\n" << response.json.substr(0, 1000));
    REQUIRE(response.status == 0);
    return Json::parse(response.json)["fits"].get<bool>();
}

const std::string kBase = R"("model":"llama-3.1-8b","gpu":"rtx-4090","engine":"transformers")";

}  // namespace

TEST_CASE("the longest context and largest batch fit, one step more does not", "[limits]") {
    const Json result = call("{" + kBase + "}");
    const std::int64_t context = result["max_context_tokens"].get<std::int64_t>();
    const std::int64_t prompt = result["context"]["prompt_tokens"].get<std::int64_t>();
    const std::int64_t output = result["context"]["output_tokens"].get<std::int64_t>();
    CHECK(prompt + output == context);
    CHECK(output == 512);  // the request's default generation length is kept
    CHECK(fits("{" + kBase + R"(,"prompt_tokens":)" + std::to_string(prompt) + "}"));
    if (!result["context"]["capped_by_model"].get<bool>()) {
        CHECK_FALSE(fits("{" + kBase + R"(,"prompt_tokens":)" + std::to_string(prompt + 1) + "}"));
    }
    const std::int64_t batch = result["max_batch"].get<std::int64_t>();
    CHECK(fits("{" + kBase + R"(,"batch":)" + std::to_string(batch) + "}"));
    CHECK_FALSE(fits("{" + kBase + R"(,"batch":)" + std::to_string(batch + 1) + "}"));
    // Each limit carries the memory at that value, within the card.
    CHECK(result["context"]["memory"]["total_gib"].get<double>() <= result["gpu"]["memory_gib"].get<double>());
    CHECK(result["batch"]["memory"]["total_gib"].get<double>() <= result["gpu"]["memory_gib"].get<double>());
}

TEST_CASE("the best weight format is the first of the ladder that fits", "[limits]") {
    // 8B in bf16 (16 GB) fits a 24 GB card: nothing to give up.
    CHECK(call("{" + kBase + "}")["best_weights"] == "bf16");
    // 70B in bf16 (141 GB) does not fit 2 x 24 GB, nor does 8-bit (70 GB);
    // a 4-bit format (35 GB) does, and the limits in it are reported.
    const Json result = call(R"({"model":"llama-3.1-70b","gpu":"rtx-4090","gpu_count":2})");
    CHECK(result["max_context_tokens"].is_null());
    const std::string best = result["best_weights"];
    CHECK((best == "awq-int4" || best == "gptq-int4"));
    CHECK(result["weights"]["tried"][0] == "bf16");
    CHECK(result["with_best_weights"]["weights"] == best);
    CHECK(result["with_best_weights"]["max_context_tokens"].get<std::int64_t>() > 0);
}

TEST_CASE("training limits grow seq_len and the micro-batch; weights are not searched", "[limits]") {
    const Json result = call("{" + kBase + R"(,"task":"finetune","method":"qlora"})");
    const std::int64_t seqLen = result["max_context_tokens"].get<std::int64_t>();
    CHECK(seqLen > 0);
    CHECK(fits("{" + kBase + R"(,"task":"finetune","method":"qlora","seq_len":)" + std::to_string(seqLen) + "}"));
    CHECK(result["best_weights"].is_null());
}

TEST_CASE("bad limits requests are rejected like estimates", "[limits][errors]") {
    CHECK(call(R"({"model":"llama-3.1-8b"})", 2)["error"]["path"] == "/gpu");
    CHECK(call(R"({"model":"llama-3.1-8b","gpu":"H1000"})", 2)["error"]["code"] == "unknown_gpu");
    CHECK(call(R"({"model":"llama-3.1-8b","gpu":"t4","weights":"fp8","engine":"transformers"})", 2)["error"]["code"] ==
          "unsupported_format");
}
