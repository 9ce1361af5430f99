#pragma once
// A request through the JSON text API that must succeed, parsed.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "caliper/api.hpp"
#include "catalog_fixture.hpp"

namespace caliper::test {

inline nlohmann::json estimateOk(const std::string& request) {
    const ApiResponse response = estimateJson(projectCatalog(), request);
    INFO(request << " -> " << response.json.substr(0, 3000));
    REQUIRE(response.status == 0);
    return nlohmann::json::parse(response.json);
}

}  // namespace caliper::test
