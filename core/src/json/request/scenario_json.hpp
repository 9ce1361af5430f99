#pragma once
// Reads a request (docs/CONTRACT.md "Scenario") into a typed Scenario, applying
// the documented defaults per task and engine.
#include <string>
#include <vector>

#include "caliper/catalog.hpp"
#include "caliper/model_reference.hpp"
#include "caliper/names.hpp"
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

// A model by id, alias, Ollama tag or GGUF file name, or a model object. Where
// the name carries a quantization ("...-Q4_K_M.gguf"), `named` receives it for
// the caller to apply; without `named` a warning says it was not applied.
ModelSpec resolveModel(const Catalog& catalog, const Json& value, const std::string& path,
                       std::vector<Warning>& warnings, ModelReference* named = nullptr);
GpuSpec resolveGpu(const Catalog& catalog, const Json& value, const std::string& path);

// A value of E by its name in E's table (caliper/names.hpp), compared
// case-insensitively, or by one of the aliases; throws invalid_value.
template <class E>
E parseEnum(const Json& value, const std::string& path, std::initializer_list<std::pair<const char*, E>> aliases = {}) {
    std::string list;
    for (const auto& n : Names<E>::table) list += (list.empty() ? "" : ", ") + std::string(n.name);
    if (!value.is_string()) failType("invalid_value", path, ("one of " + list).c_str(), value);
    const std::string& got = value.get_ref<const std::string&>();
    if (const auto named = valueNamed<E>(got)) return *named;
    for (const auto& [alias, e] : aliases) {
        if (sameName(got, alias)) return e;
    }
    fail("invalid_value", path, "expected one of " + list + ", got " + describe(value));
}

// Enum names as in docs/CONTRACT.md, case-insensitive; throws invalid_value.
WeightFormat parseWeightFormat(const Json& value, const std::string& path);
Engine parseEngine(const Json& value, const std::string& path);

// max_model_len and the "serving" object (serving_json.cpp).
void readServing(Scenario& s, ObjectReader& r);

}  // namespace caliper::io
