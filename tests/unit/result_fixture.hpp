#pragma once
// Reading a parsed result: its warnings, plan reasons, explanation terms and
// the code lists `make_it_fit` and `plan.why` carry.
#include <nlohmann/json.hpp>
#include <string>

namespace caliper::test {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// A list of codes: bare strings, or objects naming theirs as "code" or
// "change" (make_it_fit's proposals).
inline bool listHasCode(const nlohmann::json& list, const std::string& code) {
    for (const nlohmann::json& item : list) {
        if (item.is_string() && item == code) return true;
        if (item.is_object() && (item.value("code", "") == code || item.value("change", "") == code)) return true;
    }
    return false;
}

inline bool hasWarning(const nlohmann::json& result, const std::string& code) {
    return listHasCode(result["warnings"], code);
}

inline bool hasWhy(const nlohmann::json& result, const std::string& code) {
    return listHasCode(result["plan"]["why"], code);
}

// The value of an explanation term; -1 (no figure is negative) where absent.
inline double explainValue(const nlohmann::json& result, const std::string& term) {
    for (const nlohmann::json& entry : result["explain"]) {
        if (entry["term"] == term) return entry["value"].get<double>();
    }
    return -1;
}

}  // namespace caliper::test
