#include "json/json_read.hpp"

#include <algorithm>
#include <cctype>

namespace caliper::io {

namespace {

// The same letters up to case (ASCII, as std::tolower in the "C" locale),
// compared in place: enum values are read for every catalog entry.
bool equalsIgnoringCase(const std::string& text, const char* expected) {
    std::size_t i = 0;
    for (; i < text.size(); ++i) {
        if (expected[i] == '\0') return false;
        const int a = std::tolower(static_cast<unsigned char>(text[i]));
        const int b = std::tolower(static_cast<unsigned char>(expected[i]));
        if (a != b) return false;
    }
    return expected[i] == '\0';
}

std::string escapePointerToken(const std::string& key) {
    std::string out;
    for (char c : key) {
        if (c == '~') out += "~0";
        else if (c == '/') out += "~1";
        else out += c;
    }
    return out;
}

std::string formatNumber(double value) {
    Json j = value;
    if (std::floor(value) == value && std::fabs(value) < 1e15) j = static_cast<std::int64_t>(value);
    return j.dump();
}

}  // namespace

std::string describe(const Json& value) {
    switch (value.type()) {
        case Json::value_t::null: return "null";
        case Json::value_t::object: return "an object";
        case Json::value_t::array: return "an array";
        case Json::value_t::boolean: return value.get<bool>() ? "true" : "false";
        case Json::value_t::string: {
            std::string s = value.get<std::string>();
            if (s.size() > 40) s = s.substr(0, 40) + "...";
            return Json(s).dump();
        }
        default: return value.dump();
    }
}

std::string childPath(const std::string& path, const std::string& key) { return path + "/" + escapePointerToken(key); }
std::string childPath(const std::string& path, std::size_t index) { return path + "/" + std::to_string(index); }

void failType(const std::string& code, const std::string& path, const char* expected, const Json& got) {
    fail(code, path, std::string("expected ") + expected + ", got " + describe(got));
}

ObjectReader::ObjectReader(const Json& object, std::string path, std::string errorCode)
    : object_(object), path_(std::move(path)), code_(std::move(errorCode)) {
    if (!object_.is_object()) failType(code_, path_.empty() ? "" : path_, "an object", object_);
}

// Keys are looked up as string_views: compared by length and memcmp,
// without a strlen of the key at every node of the object's tree.
bool ObjectReader::has(const char* key) const {
    auto it = object_.find(std::string_view(key));
    return it != object_.end() && !it->is_null();
}

const Json* ObjectReader::raw(const char* key) {
    auto it = object_.find(std::string_view(key));
    if (it == object_.end()) return nullptr;
    used_.push_back(&it.key());
    return &*it;
}

void ObjectReader::failMissing(const char* key) const {
    fail("missing_key", pathOf(key), std::string("required key '") + key + "' is missing");
}

std::string ObjectReader::requiredString(const char* key) {
    const Json* v = raw(key);
    if (!v || v->is_null()) failMissing(key);
    if (!v->is_string()) failType(code_, pathOf(key), "a string", *v);
    return v->get_ref<const std::string&>();
}

std::string ObjectReader::optionalString(const char* key, std::string fallback) {
    const Json* v = raw(key);
    if (!v || v->is_null()) return fallback;
    if (!v->is_string()) failType(code_, pathOf(key), "a string", *v);
    return v->get_ref<const std::string&>();
}

double ObjectReader::checkedNumber(const Json& v, const char* key, double min, double max) const {
    if (!v.is_number()) failType(code_, pathOf(key), "a number", v);
    double x = v.get<double>();
    if (!std::isfinite(x) || x < min || x > max) {
        std::string range = min > 0 ? "a positive number" : (min == 0 ? "a non-negative number" : "a number");
        if (std::isfinite(x) && x > max) range = "a number at most " + formatNumber(max);
        else if (min > 0 && min != 1e-12) range = "a number of at least " + formatNumber(min);
        fail(code_, pathOf(key), "expected " + range + ", got " + formatNumber(x));
    }
    return x;
}

double ObjectReader::requiredNumber(const char* key, double min, double max) {
    const Json* v = raw(key);
    if (!v || v->is_null()) failMissing(key);
    return checkedNumber(*v, key, min, max);
}

std::optional<double> ObjectReader::optionalNumber(const char* key, double min, double max) {
    const Json* v = raw(key);
    if (!v || v->is_null()) return std::nullopt;
    return checkedNumber(*v, key, min, max);
}

double ObjectReader::numberOr(const char* key, double fallback, double min, double max) {
    return optionalNumber(key, min, max).value_or(fallback);
}

std::int64_t ObjectReader::checkedInteger(const Json& v, const char* key, std::int64_t min, std::int64_t max) const {
    if (!v.is_number()) failType(code_, pathOf(key), "an integer", v);
    double x = v.get<double>();
    if (!std::isfinite(x) || std::floor(x) != x) failType(code_, pathOf(key), "an integer", v);
    if (x < static_cast<double>(min) || x > static_cast<double>(max)) {
        fail(code_, pathOf(key),
             "expected an integer from " + std::to_string(min) + " to " + std::to_string(max) + ", got " +
                 formatNumber(x));
    }
    return static_cast<std::int64_t>(x);
}

std::int64_t ObjectReader::requiredInteger(const char* key, std::int64_t min, std::int64_t max) {
    const Json* v = raw(key);
    if (!v || v->is_null()) failMissing(key);
    return checkedInteger(*v, key, min, max);
}

std::optional<std::int64_t> ObjectReader::optionalInteger(const char* key, std::int64_t min, std::int64_t max) {
    const Json* v = raw(key);
    if (!v || v->is_null()) return std::nullopt;
    return checkedInteger(*v, key, min, max);
}

std::int64_t ObjectReader::integerOr(const char* key, std::int64_t fallback, std::int64_t min, std::int64_t max) {
    return optionalInteger(key, min, max).value_or(fallback);
}

bool ObjectReader::boolOr(const char* key, bool fallback) {
    const Json* v = raw(key);
    if (!v || v->is_null()) return fallback;
    if (!v->is_boolean()) failType(code_, pathOf(key), "true or false", *v);
    return v->get<bool>();
}

bool ObjectReader::requiredBool(const char* key) {
    const Json* v = raw(key);
    if (!v || v->is_null()) failMissing(key);
    if (!v->is_boolean()) failType(code_, pathOf(key), "true or false", *v);
    return v->get<bool>();
}

std::vector<std::string> ObjectReader::stringList(const char* key, bool required, std::size_t minCount) {
    const Json* v = raw(key);
    std::vector<std::string> out;
    if (!v || v->is_null()) {
        if (required) failMissing(key);
        return out;
    }
    if (!v->is_array()) failType(code_, pathOf(key), "an array of strings", *v);
    out.reserve(v->size());
    for (std::size_t i = 0; i < v->size(); ++i) {
        const Json& item = (*v)[i];
        if (!item.is_string()) failType(code_, childPath(pathOf(key), i), "a string", item);
        out.push_back(item.get_ref<const std::string&>());
    }
    if (out.size() < minCount) {
        fail(code_, pathOf(key), "expected at least " + std::to_string(minCount) + " entries, got " +
                                     std::to_string(out.size()));
    }
    return out;
}

std::string ObjectReader::checkedEnum(const Json& v, const char* key, std::initializer_list<const char*> allowed) const {
    if (v.is_string()) {
        const std::string& got = v.get_ref<const std::string&>();
        for (const char* a : allowed) {
            if (equalsIgnoringCase(got, a)) return a;
        }
    }
    std::string list;
    for (const char* a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
    if (!v.is_string()) failType(code_, pathOf(key), ("one of " + list).c_str(), v);
    fail(code_, pathOf(key), "expected one of " + list + ", got " + describe(v));
}

std::string ObjectReader::requiredEnum(const char* key, std::initializer_list<const char*> allowed) {
    const Json* v = raw(key);
    if (!v || v->is_null()) failMissing(key);
    return checkedEnum(*v, key, allowed);
}

std::string ObjectReader::enumOr(const char* key, std::string fallback, std::initializer_list<const char*> allowed) {
    const Json* v = raw(key);
    if (!v || v->is_null()) return fallback;
    return checkedEnum(*v, key, allowed);
}

void ObjectReader::finish() {
    for (auto it = object_.begin(); it != object_.end(); ++it) {
        if (std::find(used_.begin(), used_.end(), &it.key()) == used_.end()) {
            fail("unknown_key", childPath(path_, it.key()), "unknown key '" + it.key() + "'");
        }
    }
}

}  // namespace caliper::io

namespace caliper::io {

namespace {

// Deepest nesting of arrays/objects, scanning outside strings.
int nestingDepth(std::string_view text, int limit) {
    int depth = 0;
    int deepest = 0;
    bool inString = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        char c = text[i];
        if (inString) {
            if (c == '\\') ++i;
            else if (c == '"') inString = false;
        } else if (c == '"') {
            inString = true;
        } else if (c == '[' || c == '{') {
            deepest = std::max(deepest, ++depth);
            if (deepest > limit) return deepest;
        } else if (c == ']' || c == '}') {
            --depth;
        }
    }
    return deepest;
}

}  // namespace

Json parseJsonText(std::string_view text, const std::string& path, std::size_t maxBytes) {
    if (text.size() > maxBytes) {
        fail("too_large", path,
             "input of " + std::to_string(text.size()) + " bytes exceeds the limit of " + std::to_string(maxBytes) +
                 " bytes");
    }
    if (nestingDepth(text, kMaxJsonDepth) > kMaxJsonDepth) {
        fail("too_deep", path, "JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
    }
    Json parsed;
    try {
        parsed = Json::parse(text);
    } catch (const Json::parse_error& e) {
        fail("invalid_json", path, "not valid JSON at byte " + std::to_string(e.byte));
    } catch (const Json::out_of_range&) {
        fail("invalid_json", path, "a number in the JSON is beyond the range of a double");
    }
    return parsed;
}

}  // namespace caliper::io
