// The matrix's "values" layout (the WebAssembly module's numbers for the
// page) holds exactly the figures of the "columns" text layout, field by
// field: null as NaN, booleans as 1/0, status and strategy as indices into
// the names the answer lists. The text doors refuse it: they have nowhere
// to put numbers.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include <nlohmann/json.hpp>

#include "catalog_fixture.hpp"

using caliper::test::projectCatalog;
using Json = nlohmann::json;

namespace {

// One value of the "values" layout as the "columns" text writes it.
Json asText(double v, const std::string& field, const Json& names) {
    if (std::isnan(v)) return nullptr;
    if (field == "status") return names["status"][static_cast<std::size_t>(v)];
    if (field == "strategy") return names["strategy"][static_cast<std::size_t>(v)];
    if (field == "fits_one" || field == "needs_nvlink" || field == "tight" || field == "users_at_slo_fp8") return v == 1.0;
    return v;
}

void checkSameCells(Json request) {
    request["cells_layout"] = "columns";
    const caliper::ApiResponse text = caliper::matrixJson(projectCatalog(), request.dump());
    request["cells_layout"] = "values";
    const caliper::ApiResponse numbers = caliper::matrixValues(projectCatalog(), request.dump());
    REQUIRE(text.status == 0);
    REQUIRE(numbers.status == 0);
    const Json columns = Json::parse(text.json)["cell_columns"];
    const Json answer = Json::parse(numbers.json);
    const Json described = answer["cell_values"];
    const std::size_t cells = described["cells"];
    REQUIRE(cells == projectCatalog().models.size() * projectCatalog().gpus.size());
    REQUIRE(numbers.values.size() == described["fields"].size() * cells);
    CHECK_FALSE(answer.contains("cell_columns"));
    for (std::size_t f = 0; f < described["fields"].size(); ++f) {
        const std::string field = described["fields"][f];
        REQUIRE(columns.contains(field));
        for (std::size_t i = 0; i < cells; ++i) {
            const Json value = asText(numbers.values[f * cells + i], field, described);
            if (value != columns[field][i]) {
                FAIL_CHECK(field << " of cell " << i << ": " << value.dump() << " vs " << columns[field][i].dump());
                return;
            }
        }
    }
}

}  // namespace

TEST_CASE("matrix values equal the column layout's figures, every cell of the catalog", "[matrix][api]") {
    SECTION("vLLM inference") { checkSameCells({{"model", "all"}, {"gpu", "all"}}); }
    SECTION("LoRA fine-tuning, where training hours and costs are set") {
        checkSameCells({{"model", "all"}, {"gpu", "all"}, {"task", "finetune"}, {"method", "lora"}});
    }
}

TEST_CASE("the text doors refuse the values layout with its pointer", "[matrix][api]") {
    const caliper::ApiResponse response =
        caliper::matrixJson(projectCatalog(), R"({"model":"all","gpu":"all","cells_layout":"values"})");
    REQUIRE(response.status == 2);
    const Json error = Json::parse(response.json)["error"];
    CHECK(error["code"] == "invalid_value");
    CHECK(error["path"] == "/cells_layout");
    CHECK(response.values.empty());
}

TEST_CASE("a rejected values request carries no numbers", "[matrix][api]") {
    const caliper::ApiResponse response =
        caliper::matrixValues(projectCatalog(), R"({"model":"all","gpu":"no-such-gpu","cells_layout":"values"})");
    REQUIRE(response.status == 2);
    CHECK(response.values.empty());
}
