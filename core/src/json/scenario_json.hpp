#pragma once
// Reads a request (CONTRACT.md "Scenario") into a typed Scenario, applying
// the documented defaults per task and engine.
#include <string>
#include <vector>

#include "caliper/catalog.hpp"
#include "caliper/result.hpp"
#include "caliper/scenario.hpp"
#include "json/json_read.hpp"

namespace caliper::io {

struct ScenarioOptions {
    bool resolveModelAndGpu = true;  // false for matrix/recommend requests, whose model/gpu are lists
    std::vector<std::string> extraKeys;  // keys the caller reads itself
};

Scenario scenarioFromJson(const Catalog& catalog, const Json& request, std::vector<Warning>& warnings,
                          const ScenarioOptions& options = {});

ModelSpec resolveModel(const Catalog& catalog, const Json& value, const std::string& path,
                       std::vector<Warning>& warnings);
GpuSpec resolveGpu(const Catalog& catalog, const Json& value, const std::string& path);

// Enum names as in CONTRACT.md, case-insensitive; throws invalid_value.
WeightFormat parseWeightFormat(const Json& value, const std::string& path);
Engine parseEngine(const Json& value, const std::string& path);

// max_model_len and the "serving" object (serving_json.cpp).
void readServing(Scenario& s, ObjectReader& r);

}  // namespace caliper::io
