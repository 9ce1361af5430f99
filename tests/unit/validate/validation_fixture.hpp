#pragma once
// Helpers for the validation tests: a row in the format of
// validation/public.jsonl, its mapping and its estimate through the project's
// catalog. core/src/json is built with JSON_DIAGNOSTICS=0 (CMakeLists.txt); the
// Json type the io functions take must have the same ABI, so set it before
// nlohmann.
#ifndef JSON_DIAGNOSTICS
#define JSON_DIAGNOSTICS 0
#endif
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <string>

#include "validate/validation.hpp"
#include "catalog_fixture.hpp"
#include "validate/mapping.hpp"

namespace caliper::test {

// A row with the fields a test sets over a llama.cpp decode row on an RTX 4090.
inline nlohmann::json validationRow(const nlohmann::json& fields) {
    nlohmann::json r = {{"id", "test-row"},
                        {"kind", "decode_tps"},
                        {"model", "meta-llama/Llama-2-7b-hf"},
                        {"params_b", 6.74},
                        {"quant", "Q4_0"},
                        {"method", "inference"},
                        {"gpu", "NVIDIA GeForce RTX 4090"},
                        {"gpu_count", 1},
                        {"batch", nullptr},
                        {"seq_len", nullptr},
                        {"optimizer", nullptr},
                        {"extra", ""},
                        {"value", 100.0},
                        {"unit", "tokens/s"},
                        {"trust", "high"},
                        {"measured", true}};
    for (auto it = fields.begin(); it != fields.end(); ++it) r[it.key()] = it.value();
    return r;
}

inline io::RowMapping mappedRow(const nlohmann::json& row) {
    const io::MappingOutcome outcome = io::mapValidationRow(projectCatalog(), row);
    INFO(outcome.reason);
    REQUIRE(outcome.mapping);
    return *outcome.mapping;
}

inline std::string unexpressedReason(const nlohmann::json& row) {
    const io::MappingOutcome outcome = io::mapValidationRow(projectCatalog(), row);
    REQUIRE_FALSE(outcome.mapping);
    return outcome.reason;
}

inline nlohmann::json estimateResult(const nlohmann::json& request) {
    const ApiResponse response = estimateJson(projectCatalog(), request.dump());
    INFO(response.json);
    REQUIRE(response.status == 0);
    return nlohmann::json::parse(response.json);
}

inline double explainedValue(const nlohmann::json& result, const std::string& term) {
    for (const nlohmann::json& t : result["explain"]) {
        if (t["term"] == term) return t["value"].get<double>();
    }
    return 0.0;
}

inline ValidationReport validateOne(const nlohmann::json& row) { return validateRows(projectCatalog(), row.dump()); }

}  // namespace caliper::test
