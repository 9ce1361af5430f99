// The matrix's users-at-SLO mode: each cell says how many concurrent users
// one replica of its GPUs serves within the latency target, the same figure
// `caliper serve` sizes its replicas by; and recommend with an SLO carries the
// serving figures the page's cards show.
#include <catch2/catch.hpp>

#include "caliper/api.hpp"
#include "property_scenarios.hpp"

using namespace caliper;
using caliper::test::projectCatalog;
using caliper::test::PropertyJson;

namespace {

PropertyJson ok(const ApiResponse& r) {
    INFO(r.json.substr(0, 400));
    REQUIRE(r.status == 0);
    return PropertyJson::parse(r.json);
}

void rejectedMatrix(const std::string& request, const std::string& code, const std::string& pointer) {
    const ApiResponse r = matrixJson(projectCatalog(), request);
    INFO(request << " -> " << r.json.substr(0, 300));
    CHECK(r.status == 2);
    CHECK(r.json.find("\"" + code + "\"") != std::string::npos);
    CHECK(r.json.find("\"" + pointer + "\"") != std::string::npos);
}

}  // namespace

TEST_CASE("matrix users at SLO: a cell's users are what serve fits in one replica of its GPUs", "[serving][matrix]") {
    const PropertyJson slo = {{"ttft_s", 2}, {"min_user_tokens_per_s", 20}};
    const PropertyJson request = {{"model", {"llama-3.1-8b", "qwen2.5-14b", "llama-3.1-70b"}},
                                  {"gpu", {"h100-sxm5-80gb", "a100-sxm4-80gb", "rtx-4090", "l40s"}},
                                  {"prompt_tokens", 1024},
                                  {"output_tokens", 256},
                                  {"slo", slo}};
    const PropertyJson m = ok(matrixJson(projectCatalog(), request.dump()));
    CHECK(m["slo"]["ttft_s"] == 2);
    int compared = 0;
    for (std::size_t i = 0; i < m["models"].size(); ++i) {
        for (std::size_t j = 0; j < m["gpus"].size(); ++j) {
            const PropertyJson& cell = m["cells"][i][j];
            if (cell["users_at_slo"].is_null()) {
                CHECK(cell["status"] == "no");  // every fitting LLM cell on vLLM has a figure
                continue;
            }
            const double users = cell["users_at_slo"].get<double>();
            const int gpus = cell["gpus_needed"].get<int>();
            // The cell keeps the request's KV and weight formats (these
            // checkpoints are 16-bit) or, marked, FP8 in both where the GPU
            // has FP8 and that serves more users; serve, which also tries
            // FP8 for either alone, is held to the cell's.
            const bool fp8 = cell["users_at_slo_fp8"].get<bool>();
            const char* format = fp8 ? "fp8" : "bf16";
            PropertyJson serve = {{"model", m["models"][i]["id"]}, {"gpu", {m["gpus"][j]["id"]}}, {"max_gpus", gpus},
                                  {"prompt_tokens", 1024}, {"output_tokens", 256}, {"slo", slo}, {"kv_cache", format},
                                  {"weights", format}};
            INFO(serve.dump() << " matrix users " << users);
            if (users >= 1) {
                serve["users"] = users;
                const PropertyJson at = ok(serveJson(projectCatalog(), serve.dump()));
                REQUIRE(at["meets_slo"] == true);
                ++compared;
                // In FP8 the model may fit fewer GPUs, and serve then runs
                // replicas of those: the count and replicas are the cell's
                // only in the request's own formats.
                if (fp8) continue;
                CHECK(at["deployments"][0]["replicas"] == 1);
                CHECK(at["deployments"][0]["gpu_count"] == gpus);
            }
            if (fp8) continue;
            // One user more does not fit one replica of these GPUs.
            serve["users"] = users + 1;
            CHECK(ok(serveJson(projectCatalog(), serve.dump()))["meets_slo"] == false);
        }
    }
    CHECK(compared >= 6);
}

TEST_CASE("matrix users at SLO: the low end is where serve's slo_margin turns from meets to tight", "[serving][matrix]") {
    // users_at_slo_low holds the SLO against the slow end of the serving
    // bands, as serve's slo_margin does (docs/CONTRACT.md): serve at the low
    // end says "meets", one user more (up to users_at_slo) says "tight". The
    // request names 16-bit formats, so serve sizes the cell's own replica.
    const PropertyJson slo = {{"ttft_s", 2}, {"min_user_tokens_per_s", 20}};
    const PropertyJson request = {{"model", {"llama-3.1-8b", "qwen2.5-14b"}},
                                  {"gpu", {"h100-sxm5-80gb", "a100-sxm4-80gb", "l40s"}},
                                  {"prompt_tokens", 1024}, {"output_tokens", 256}, {"slo", slo},
                                  {"weights", "bf16"}, {"kv_cache", "bf16"}};
    const PropertyJson m = ok(matrixJson(projectCatalog(), request.dump()));
    int banded = 0;
    for (std::size_t i = 0; i < m["models"].size(); ++i) {
        for (std::size_t j = 0; j < m["gpus"].size(); ++j) {
            const PropertyJson& cell = m["cells"][i][j];
            if (cell["users_at_slo"].is_null() || cell["users_at_slo_low"].is_null()) continue;
            const double users = cell["users_at_slo"].get<double>(), low = cell["users_at_slo_low"].get<double>();
            CHECK(low <= users);
            PropertyJson serve = {{"model", m["models"][i]["id"]}, {"gpu", {m["gpus"][j]["id"]}},
                                  {"max_gpus", cell["gpus_needed"]}, {"prompt_tokens", 1024}, {"output_tokens", 256},
                                  {"slo", slo}, {"kv_cache", "bf16"}, {"weights", "bf16"}};
            INFO(serve.dump() << " users " << users << " low " << low);
            if (low >= 1) {
                serve["users"] = low;
                CHECK(ok(serveJson(projectCatalog(), serve.dump()))["deployments"][0]["slo_margin"] == "meets");
                ++banded;
            }
            if (low < users) {
                serve["users"] = low + 1;
                CHECK(ok(serveJson(projectCatalog(), serve.dump()))["deployments"][0]["slo_margin"] == "tight");
            }
        }
    }
    CHECK(banded >= 3);
}

TEST_CASE("matrix users at SLO: FP8 weights and KV where the GPU has FP8 and the request left them open",
          "[serving][matrix]") {
    // data/gpus.json: the H100 SXM supports FP8 (fp8 tensor rate listed), the
    // A100 does not. Llama 3.1 8B ships 16-bit weights and the request names
    // no format: on the H100 FP8 halves the weight bytes per step and the KV
    // bytes per token, so a replica serves more users within the SLO.
    const std::string base =
        R"({"model":"llama-3.1-8b","gpu":["h100-sxm5-80gb","a100-sxm4-80gb"],"prompt_tokens":1024,)"
        R"("output_tokens":256,"slo":{"ttft_s":2,"min_user_tokens_per_s":20})";
    const PropertyJson open = ok(matrixJson(projectCatalog(), base + "}"));
    const PropertyJson named = ok(matrixJson(projectCatalog(), base + R"(,"weights":"bf16","kv_cache":"bf16"})"));
    REQUIRE(open["gpus"][0]["id"] == "h100-sxm5-80gb");
    const PropertyJson& h100 = open["cells"][0][0];
    CHECK(h100["users_at_slo_fp8"] == true);
    CHECK(h100["users_at_slo"].get<double>() > named["cells"][0][0]["users_at_slo"].get<double>());
    CHECK(h100["gpus_needed"] == named["cells"][0][0]["gpus_needed"]);  // the same GPUs, more users
    // Formats the request names stay as named.
    CHECK(named["cells"][0][0]["users_at_slo_fp8"] == false);
    // No FP8 on the A100: its figure is the 16-bit one either way.
    CHECK(open["cells"][0][1]["users_at_slo_fp8"] == false);
    CHECK(open["cells"][0][1]["users_at_slo"] == named["cells"][0][1]["users_at_slo"]);
}

TEST_CASE("matrix users at SLO: the FP8 variant keeps the cell's GPU count where FP8 alone fits fewer",
          "[serving][matrix]") {
    // Llama 3.1 70B: 16-bit weights are 141 GB (70.6e9 x 2 bytes), past one
    // H100's 80 GB, so the cell needs 2 GPUs; in FP8 (70.6 GB) the weights fit
    // one. The cell's users are those of one replica of its gpus_needed GPUs
    // (docs/CONTRACT.md, users at an SLO), so the FP8 variant is tried on the
    // same 2 GPUs, not on its own 1. There, per replica, it has twice the
    // bandwidth per step and more than twice the KV pool left after weights
    // (2 x 80 - 70.6 against 80 - 70.6 GB), so it serves at least as many users
    // as one FP8 GPU does, and more than the 16-bit formats on the same 2 GPUs.
    const std::string base =
        R"({"model":"llama-3.1-70b","gpu":"h100-sxm5-80gb","prompt_tokens":1024,"output_tokens":256,)"
        R"("slo":{"ttft_s":2,"min_user_tokens_per_s":20})";
    const PropertyJson open = ok(matrixJson(projectCatalog(), base + "}"));
    const PropertyJson named16 = ok(matrixJson(projectCatalog(), base + R"(,"weights":"bf16","kv_cache":"bf16"})"));
    const PropertyJson named8 = ok(matrixJson(projectCatalog(), base + R"(,"weights":"fp8","kv_cache":"fp8"})"));
    const PropertyJson& cell = open["cells"][0][0];
    REQUIRE(named16["cells"][0][0]["gpus_needed"] == 2);
    REQUIRE(named8["cells"][0][0]["gpus_needed"] == 1);
    CHECK(cell["gpus_needed"] == 2);
    CHECK(cell["users_at_slo_fp8"] == true);
    CHECK(cell["users_at_slo"].get<double>() > named16["cells"][0][0]["users_at_slo"].get<double>());
    CHECK(cell["users_at_slo"].get<double>() >= named8["cells"][0][0]["users_at_slo"].get<double>());
}

TEST_CASE("matrix users at SLO: none on a GPU without a tensor rate", "[serving][matrix]") {
    // data/gpus.json: ascend-910b lists bandwidth but no tensor rate, so its
    // prompt chunks have no time and no user count can be given; the A800
    // (312 TFLOPS BF16) has one.
    const PropertyJson m = ok(matrixJson(
        projectCatalog(),
        R"({"model":"qwen3-32b","gpu":["ascend-910b","a800-sxm4-80gb"],"slo":{"min_user_tokens_per_s":20}})"));
    REQUIRE(m["gpus"][0]["id"] == "ascend-910b");
    CHECK(m["cells"][0][0]["status"] != "no");
    CHECK(m["cells"][0][0]["users_at_slo"].is_null());
    CHECK(m["cells"][0][1]["users_at_slo"].get<double>() > 0);
}

TEST_CASE("matrix users at SLO: only with an SLO, and bad SLOs are refused at their pointer", "[serving][matrix]") {
    const PropertyJson plain = ok(matrixJson(projectCatalog(), R"({"model":"llama-3.1-8b","gpu":"h100-sxm5-80gb"})"));
    CHECK(plain["cells"][0][0]["users_at_slo"].is_null());
    CHECK_FALSE(plain.contains("slo"));
    rejectedMatrix(R"({"model":"llama-3.1-8b","gpu":"h100","slo":{}})", "missing_key", "/slo");
    rejectedMatrix(R"({"model":"llama-3.1-8b","gpu":"h100","slo":{"ttft_s":0}})", "invalid_value", "/slo/ttft_s");
    rejectedMatrix(R"({"model":"llama-3.1-8b","gpu":"h100","slo":{"ttfb":1}})", "unknown_key", "/slo/ttfb");
    rejectedMatrix(R"({"model":"llama-3.1-8b","gpu":"h100","task":"finetune","slo":{"ttft_s":1}})", "invalid_value",
                   "/slo");
}

TEST_CASE("recommend with an SLO: each option carries per-user speed, monthly cost and cost per million tokens",
          "[serving][serve]") {
    const PropertyJson r = ok(recommendJson(
        projectCatalog(), R"({"model":"llama-3.1-8b","batch":40,"slo":{"min_user_tokens_per_s":30},"gpu":"h100","top":3})"));
    REQUIRE(r["deployments"].size() > 0);
    for (const PropertyJson& d : r["deployments"]) {
        CHECK(d["serving"]["user_tokens_per_s"].get<double>() >= 30 * (1 - 1e-5));
        // H100 SXM has a cloud price in the catalog, so both cost figures are known.
        CHECK(d["usd_per_month"].get<double>() > 0);
        CHECK(d["usd_per_million_output_tokens"].get<double>() > 0);
        CHECK(d["cny_per_million_output_tokens"].get<double>() > 0);
    }
}
