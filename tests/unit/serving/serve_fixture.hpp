// A serve answer from the project's catalog, parsed; the request must be
// accepted (the answer is shown when it is not).
#pragma once

#include <catch2/catch.hpp>

#include <string>

#include "caliper/api.hpp"
#include "property_scenarios.hpp"

namespace caliper::test {

inline PropertyJson served(const std::string& request) {
    const ApiResponse r = serveJson(projectCatalog(), request);
    INFO(r.json.substr(0, 600));
    REQUIRE(r.status == 0);
    return PropertyJson::parse(r.json);
}

}  // namespace caliper::test
