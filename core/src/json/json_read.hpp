#pragma once
// Strict readers over nlohmann::json for the JSON boundary: each names the
// JSON pointer of a bad value in the error it throws (InputError), so a user
// sees "/gpus/12/bandwidth_gbps: expected a positive number, got -3".
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string_view>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "caliper/error.hpp"

namespace caliper::io {

using Json = nlohmann::json;

std::string describe(const Json& value);  // short text of a value for messages: "-3", "\"abc\"", "an object"
std::string childPath(const std::string& path, const std::string& key);
std::string childPath(const std::string& path, std::size_t index);

// Reads the keys of one object and remembers which were used, so that
// finish() can reject unknown keys (typos must not hide).
class ObjectReader {
public:
    ObjectReader(const Json& object, std::string path, std::string errorCode = "invalid_value");

    bool has(const char* key) const;  // present and not null
    const Json* raw(const char* key);  // marks used; nullptr when absent
    const std::string& path() const { return path_; }
    std::string pathOf(const char* key) const { return childPath(path_, key); }

    std::string requiredString(const char* key);
    std::string optionalString(const char* key, std::string fallback = "");
    double requiredNumber(const char* key, double min, double max);
    std::optional<double> optionalNumber(const char* key, double min, double max);
    double numberOr(const char* key, double fallback, double min, double max);
    std::int64_t requiredInteger(const char* key, std::int64_t min, std::int64_t max);
    std::int64_t integerOr(const char* key, std::int64_t fallback, std::int64_t min, std::int64_t max);
    std::optional<std::int64_t> optionalInteger(const char* key, std::int64_t min, std::int64_t max);
    bool boolOr(const char* key, bool fallback);
    bool requiredBool(const char* key);
    std::vector<std::string> stringList(const char* key, bool required = false, std::size_t minCount = 0);
    // One of the allowed strings (compared case-insensitively), returned as spelled in allowed.
    std::string requiredEnum(const char* key, std::initializer_list<const char*> allowed);
    std::string enumOr(const char* key, std::string fallback, std::initializer_list<const char*> allowed);

    void ignore(const char* key) { raw(key); }
    void finish();  // throws unknown_key for every key not read

private:
    // The checks behind the typed reads; the key's path is built only when
    // a check fails (catalogs read thousands of values that pass).
    double checkedNumber(const Json& v, const char* key, double min, double max) const;
    std::int64_t checkedInteger(const Json& v, const char* key, std::int64_t min, std::int64_t max) const;
    std::string checkedEnum(const Json& v, const char* key, std::initializer_list<const char*> allowed) const;
    [[noreturn]] void failMissing(const char* key) const;

    const Json& object_;
    std::string path_;
    std::string code_;
    // The object's own key strings that were read (they live as long as
    // object_): finish() compares addresses, with no copy of a key.
    std::vector<const std::string*> used_;
};

[[noreturn]] void failType(const std::string& code, const std::string& path, const char* expected, const Json& got);

}  // namespace caliper::io

namespace caliper::io {

// Limits on untrusted JSON text, checked before parsing so that a hostile
// input fails fast instead of exhausting memory or the stack.
constexpr std::size_t kMaxRequestBytes = 4u << 20;   // a request with a pasted config.json
constexpr std::size_t kMaxCatalogBytes = 16u << 20;  // a whole catalog file
constexpr int kMaxJsonDepth = 64;

// Parses text, throwing InputError code "invalid_json" (bad syntax, with the
// byte offset), "too_large" or "too_deep", with `path` as the pointer.
Json parseJsonText(std::string_view text, const std::string& path, std::size_t maxBytes);

}  // namespace caliper::io
