// Inference with `parallel.dp` stated: that many replicas of one
// model-parallel group (plan/replicas.hpp), which must multiply to the count.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <string>

#include "api_fixture.hpp"
#include "caliper/api.hpp"
#include "catalog_fixture.hpp"
#include "result_fixture.hpp"

using caliper::test::estimateOk;
using caliper::test::hasWhy;
using Json = nlohmann::json;

namespace {

const std::string kLlama8 = R"({"model":"llama-3.1-8b","gpu":"H100 SXM5","task":"inference","batch":16,)";

Json rejected(const std::string& request) {
    const caliper::ApiResponse response = caliper::estimateJson(caliper::test::projectCatalog(), request);
    INFO(response.json);
    REQUIRE(response.status == 2);
    return Json::parse(response.json)["error"];
}

}  // namespace

TEST_CASE("a stated dp serves that many replicas of count / dp GPUs", "[planner][replicas]") {
    // 8 H100s with dp 2: two engines of 8 / 2 = 4 GPUs each. The group is
    // planned as a request of its own: Llama 3.1 8B's 32 heads and 8 KV
    // heads take tensor parallelism 4 within the server, one stage. Each
    // replica holds ceil(16 / 2) = 8 of the 16 concurrent requests, so the
    // memory per GPU and a request's latency are those of 4 GPUs at batch 8,
    // and the fleet's decode rate is twice that replica's (to the JSON's
    // six significant digits).
    const Json r = estimateOk(kLlama8 + R"("gpu_count":8,"parallel":{"dp":2}})");
    const Json one = estimateOk(kLlama8 + R"("gpu_count":4,"batch":8})");
    REQUIRE(r["fits"] == true);
    CHECK(r["plan"]["gpu_count"] == 8);
    CHECK(r["plan"]["dp"] == 2);
    CHECK(r["plan"]["tp"] == 4);
    CHECK(r["plan"]["pp"] == 1);
    CHECK(hasWhy(r, "replicas_fill_count"));
    CHECK(r["memory"]["total_gib"].get<double>() == Approx(one["memory"]["total_gib"].get<double>()));
    CHECK(r["decode_tokens_per_s"].get<double>() == Approx(2 * one["decode_tokens_per_s"].get<double>()).epsilon(1e-5));
    // One replica is the fewest that fit, one GPU (16 GB of bf16 weights in
    // 80 GB): two replicas need two.
    CHECK(r["gpus_needed"] == 2);
    // Without dp the count stays one engine over all 8 GPUs (tensor 8).
    const Json whole = estimateOk(kLlama8 + R"("gpu_count":8})");
    CHECK(whole["plan"]["dp"] == 1);
    CHECK(whole["plan"]["tp"] == 8);
}

TEST_CASE("a stated dp with an auto count takes dp times the fewest GPUs of one replica", "[planner][replicas]") {
    // Llama 3.1 70B in bf16 is 141 GB of weights: one replica needs two
    // 80 GB H100s (tensor 2), so four replicas are 4 x 2 = 8 GPUs.
    const Json r = estimateOk(R"({"model":"llama-3.1-70b","gpu":"H100 SXM5","task":"inference","batch":16,)"
                              R"("gpu_count":"auto","parallel":{"dp":4}})");
    REQUIRE(r["fits"] == true);
    CHECK(r["plan"]["gpu_count"] == 8);
    CHECK(r["plan"]["dp"] == 4);
    CHECK(r["plan"]["tp"] == 2);
    CHECK(r["gpus_needed"] == 8);
}

TEST_CASE("a stated dp that does not multiply to the count is refused at /parallel/dp", "[planner][replicas][errors]") {
    // 8 GPUs: 3 replicas do not divide them; tp 2 x pp 2 x dp 4 = 16, not 8;
    // dp 16 is more replicas than GPUs.
    for (const char* parallel : {R"({"tp":2,"dp":3})", R"({"tp":2,"pp":2,"dp":4})", R"({"dp":16})", R"({"dp":3})"}) {
        const Json e = rejected(kLlama8 + R"("gpu_count":8,"parallel":)" + parallel + "}");
        CHECK(e["code"] == "invalid_parallel");
        CHECK(e["path"] == "/parallel/dp");
        CHECK(e["message"].get<std::string>().find("must multiply to the 8 GPUs") != std::string::npos);
    }
    // tp 2 x pp 2 x dp 2 = 8: accepted, as stated.
    const Json ok = estimateOk(kLlama8 + R"("gpu_count":8,"parallel":{"tp":2,"pp":2,"dp":2}})");
    CHECK(ok["plan"]["tp"] == 2);
    CHECK(ok["plan"]["pp"] == 2);
    CHECK(ok["plan"]["dp"] == 2);
}
