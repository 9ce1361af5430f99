// The serve answer's 80% bands (docs/CONTRACT.md "Serve": ranges,
// slo_margin): they bracket each figure, come from the same calibration band
// a single estimate of the same deployment gives, and the SLO verdict holds
// the target against their slow end.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "caliper/api.hpp"
#include "property_scenarios.hpp"

using namespace caliper;
using caliper::test::projectCatalog;
using caliper::test::PropertyJson;

namespace {

// Figures and bands are each rounded by tidy() to 6 significant digits.
constexpr double kRounding = 1e-5;

PropertyJson answer(const std::string& request) {
    const ApiResponse r = serveJson(projectCatalog(), request);
    INFO(request << " -> " << r.json.substr(0, 400));
    REQUIRE(r.status == 0);
    return PropertyJson::parse(r.json);
}

// Where `ranges` has `key`, low <= value <= high.
void brackets(const PropertyJson& ranges, const std::string& key, const PropertyJson& value) {
    INFO(key);
    REQUIRE(ranges.contains(key));
    REQUIRE(value.is_number());
    const double v = value.get<double>(), low = ranges[key][0].get<double>(), high = ranges[key][1].get<double>();
    CHECK(low > 0);
    CHECK(low <= v * (1 + kRounding));
    CHECK(high >= v * (1 - kRounding));
    CHECK(low < high);
}

double ratio(const PropertyJson& ranges, const std::string& key, double value, int end) {
    return ranges[key][end].get<double>() / value;
}

const std::string kRequests[] = {
    R"({"model":"llama-3.1-70b","users":200,"prompt_tokens":1024,"output_tokens":256,)"
    R"("slo":{"ttft_s":2,"min_user_tokens_per_s":20},"top":8})",
    R"({"model":"qwen2.5-7b","users":50,"engine":"sglang","slo":{"tpot_ms":40},"top":8})",
    R"({"model":"llama-3.1-8b","request_rate_per_s":5,"slo":{"ttft_s":1,"tpot_ms":50},"top":8})"};

}  // namespace

TEST_CASE("serve: each deployment's bands bracket its figures and follow the estimate's band", "[serving][serve][ranges]") {
    const std::string request = GENERATE(from_range(std::begin(kRequests), std::end(kRequests)));
    const PropertyJson a = answer(request);
    const PropertyJson in = PropertyJson::parse(request);
    REQUIRE(a["deployments"].size() > 0);
    for (const PropertyJson& d : a["deployments"]) {
        INFO(d["gpu"] << " x" << d["gpu_count"]);
        const PropertyJson& r = d["ranges"];
        const PropertyJson& s = d["serving"];
        for (const char* key : {"ttft_s", "tpot_ms", "user_tokens_per_s", "output_tokens_per_s", "output_tokens_per_s_per_gpu"}) {
            brackets(r, std::string("serving.") + key, s[key]);
        }
        if (d["usd_per_million_output_tokens"].is_number()) {
            brackets(r, "usd_per_million_output_tokens", d["usd_per_million_output_tokens"]);
            // Cost per million = price / per-GPU throughput: the cost's top
            // per unit is the throughput's bottom per unit, inverted.
            CHECK(ratio(r, "usd_per_million_output_tokens", d["usd_per_million_output_tokens"].get<double>(), 1) ==
                  Approx(1 / ratio(r, "serving.output_tokens_per_s_per_gpu",
                                   s["output_tokens_per_s_per_gpu"].get<double>(), 0)).epsilon(1e-4));
        }
        // Tokens/s per user is 1 / TPOT: its band is TPOT's, inverted.
        CHECK(ratio(r, "serving.user_tokens_per_s", s["user_tokens_per_s"].get<double>(), 0) ==
              Approx(1 / ratio(r, "serving.tpot_ms", s["tpot_ms"].get<double>(), 1)).epsilon(1e-4));

        // The same deployment estimated alone carries the same band per unit.
        PropertyJson alone = {{"model", in["model"]}, {"gpu", d["gpu"]}, {"gpu_count", d["gpu_count"]},
                              {"parallel", {{"tp", d["plan"]["tp"]}, {"pp", d["plan"]["pp"]}}},
                              {"kv_cache", d["kv_cache"]}, {"weights", d["weights"]}};
        for (const char* key : {"prompt_tokens", "output_tokens", "engine"}) {
            if (in.contains(key)) alone[key] = in[key];
        }
        if (in.contains("users")) alone["batch"] = in["users"];
        else alone["serving"] = {{"request_rate_per_s", in["request_rate_per_s"]}};
        const ApiResponse e = estimateJson(projectCatalog(), alone.dump());
        INFO(alone.dump() << " -> " << e.json.substr(0, 300));
        REQUIRE(e.status == 0);
        const PropertyJson est = PropertyJson::parse(e.json);
        for (const char* key : {"ttft_s", "tpot_ms"}) {
            const std::string path = std::string("serving.") + key;
            REQUIRE(est["ranges"].contains(path));
            for (int end : {0, 1}) {
                CHECK(ratio(r, path, s[key].get<double>(), end) ==
                      Approx(ratio(est["ranges"], path, est["serving"][key].get<double>(), end)).epsilon(1e-4));
            }
        }
    }
    for (const PropertyJson& p : a["curve"]) {
        for (const char* key : {"ttft_s", "tpot_ms", "user_tokens_per_s", "output_tokens_per_s_per_gpu"}) brackets(p["ranges"], key, p[key]);
    }
}

TEST_CASE("serve: the SLO margin holds the target against the slow end of the bands", "[serving][serve][ranges]") {
    const std::string request = GENERATE(from_range(std::begin(kRequests), std::end(kRequests)));
    const PropertyJson a = answer(request);
    const PropertyJson slo = PropertyJson::parse(request)["slo"];
    int tight = 0;
    for (const PropertyJson& d : a["deployments"]) {
        INFO(d["gpu"] << " x" << d["gpu_count"] << ": " << d["slo_margin"]);
        if (d["meets_slo"] == false) {
            CHECK(d["slo_margin"] == "misses");
            continue;
        }
        const PropertyJson& r = d["ranges"];
        bool bandMeets = true;
        if (slo.contains("ttft_s")) bandMeets = bandMeets && r["serving.ttft_s"][1].get<double>() <= slo["ttft_s"].get<double>();
        if (slo.contains("tpot_ms")) bandMeets = bandMeets && r["serving.tpot_ms"][1].get<double>() <= slo["tpot_ms"].get<double>();
        if (slo.contains("min_user_tokens_per_s")) {
            bandMeets = bandMeets && r["serving.user_tokens_per_s"][0].get<double>() >= slo["min_user_tokens_per_s"].get<double>();
        }
        CHECK(d["slo_margin"] == (bandMeets ? "meets" : "tight"));
        tight += !bandMeets;
    }
    // The search fills each replica with users until a target binds, so the
    // cheapest deployments sit at their target: the band's slow end passes it.
    CHECK(tight > 0);
}

TEST_CASE("serve: without an SLO target no deployment has a margin", "[serving][serve][ranges]") {
    const PropertyJson a = answer(R"({"model":"llama-3.1-8b","users":20,"top":3})");
    REQUIRE(a["deployments"].size() > 0);
    for (const PropertyJson& d : a["deployments"]) {
        CHECK(d["slo_margin"].is_null());
        CHECK(d["ranges"].contains("serving.tpot_ms"));
    }
}
