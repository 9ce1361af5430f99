// purchase_cny is the catalog's own CNY price wherever the answer prints it:
// a card sold in China (H20: CNY 110,000 per card from Chinese distributors,
// February 2024, the catalog's TOJOY_H20 source) is not its USD estimate
// ($12,500, SemiAnalysis) at the exchange rate (CNY 88,750), and the
// estimate's explain already said CNY 220,000 for two while purchase_cny
// said 177,500.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "api_fixture.hpp"
#include "caliper/api.hpp"
#include "catalog_fixture.hpp"

using namespace caliper;
using caliper::test::projectCatalog;

namespace {

const GpuSpec& h20() {
    for (const GpuSpec& g : projectCatalog().gpus) {
        if (g.id == "h20-96gb") return g;
    }
    FAIL("no h20-96gb in the catalog");
    throw;
}

nlohmann::json ok(ApiResponse response) {
    INFO(response.json.substr(0, 2000));
    REQUIRE(response.status == 0);
    return nlohmann::json::parse(response.json);
}

}  // namespace

TEST_CASE("purchase_cny is the catalog's CNY price in estimate, recommend and serve", "[cost][json]") {
    const GpuSpec& gpu = h20();
    REQUIRE(gpu.priceCny);
    REQUIRE(gpu.priceUsd);
    const double perCard = *gpu.priceCny;  // 110,000 (TOJOY_H20)
    // The two prices disagree at the default rate (7.1): the bug showed only then.
    REQUIRE(std::fabs(*gpu.priceUsd * 7.1 - perCard) > 1000);

    const nlohmann::json e = caliper::test::estimateOk(
        R"({"model":"qwen2.5-72b","gpu":"h20-96gb","gpu_count":2,"currency":"cny"})");
    CHECK(e["purchase_cny"].get<double>() == Approx(2 * perCard));
    CHECK(e["purchase_usd"].get<double>() == Approx(2 * *gpu.priceUsd));
    for (const auto& term : e["explain"]) {
        if (term["term"] == "purchase_cny") CHECK(term["value"].get<double>() == Approx(e["purchase_cny"].get<double>()));
    }

    const nlohmann::json r = ok(recommendJson(
        projectCatalog(),
        R"({"model":"qwen2.5-72b","gpu_filter":{"markets":["china"]},"currency":"cny","objective":"cheapest","pricing":"purchase","top":50})"));
    bool seen = false;
    for (const auto& o : r["options"]) {
        if (o["gpu_id"] != "h20-96gb") continue;
        seen = true;
        CHECK(o["purchase_cny"].get<double>() == Approx(o["gpu_count"].get<double>() * perCard));
    }
    CHECK(seen);

    const nlohmann::json v = ok(serveJson(
        projectCatalog(),
        R"({"model":"qwen2.5-72b","gpu":"h20-96gb","users":8,"prompt_tokens":1024,"output_tokens":256,"currency":"cny"})"));
    REQUIRE_FALSE(v["deployments"].empty());
    const nlohmann::json& d = v["deployments"][0];
    const double cards = d["gpu_count"].get<double>() * perCard;
    CHECK(d["purchase_cny"].get<double>() == Approx(cards));
    // Per million output tokens: the cards' CNY price over the same write-off
    // as the USD figure, so the two keep the prices' own ratio.
    CHECK(d["purchase_cny_per_million_output_tokens"].get<double>() /
              d["purchase_usd_per_million_output_tokens"].get<double>() ==
          Approx(perCard / *gpu.priceUsd).epsilon(1e-4));
}
