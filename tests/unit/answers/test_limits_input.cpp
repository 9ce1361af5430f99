// Hostile input is refused with a clear error before it can exhaust memory or
// the stack: text over the size limits (io::kMaxRequestBytes, 4 MiB;
// io::kMaxCatalogBytes, 16 MiB), nesting over io::kMaxJsonDepth (64), catalogs
// over 100,000 entries, numbers beyond a double, and answers that would grow
// without bound with the request. Nothing here times anything: each case
// asserts the error code and JSON pointer the API promises.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "catalog_fixture.hpp"
#include "json/json_read.hpp"

using caliper::test::projectCatalog;
using caliper::test::readText;
using Json = nlohmann::json;

namespace {

using Call = caliper::ApiResponse (*)(const caliper::Catalog&, std::string_view, bool);

struct Door {
    const char* name;
    Call call;
};

const Door kDoors[] = {{"estimate", &caliper::estimateJson},   {"matrix", &caliper::matrixJson},
                       {"recommend", &caliper::recommendJson}, {"inventory", &caliper::inventoryJson},
                       {"limits", &caliper::limitsJson}};

Json rejected(const caliper::ApiResponse& response) {
    INFO(response.json.substr(0, 300));
    REQUIRE(response.status == 2);
    const Json out = Json::parse(response.json);
    REQUIRE(out["ok"] == false);
    CHECK_FALSE(out["error"]["message"].get<std::string>().empty());
    CHECK(out["error"]["message"].get<std::string>().size() < 400);  // an error never echoes the input
    return out["error"];
}

std::string nested(const std::string& open, const std::string& close, int depth, const std::string& inner) {
    std::string text;
    for (int i = 0; i < depth; ++i) text += open;
    text += inner;
    for (int i = 0; i < depth; ++i) text += close;
    return text;
}

std::string gpusText() { return readText(std::string(CALIPER_DATA_DIR) + "/gpus.json"); }
std::string modelsText() { return readText(std::string(CALIPER_DATA_DIR) + "/models.json"); }

}  // namespace

TEST_CASE("a 50 MB request is refused as too_large by every door", "[limits][input]") {
    const std::string huge(50u << 20, ' ');
    for (const Door& door : kDoors) {
        INFO(door.name);
        const Json error = rejected(door.call(projectCatalog(), huge, false));
        CHECK(error["code"] == "too_large");
        CHECK(error["path"] == "");
    }
}

TEST_CASE("a request just over the 4 MiB limit is refused, one inside it is parsed", "[limits][input]") {
    // A string value padded to the limit: the size check, not the parser, decides.
    auto padded = [](std::size_t total) {
        const std::string head = R"({"model":")";
        const std::string tail = R"(","gpu":"h100"})";
        return head + std::string(total - head.size() - tail.size(), 'x') + tail;
    };
    CHECK(rejected(caliper::estimateJson(projectCatalog(), padded(caliper::io::kMaxRequestBytes + 1)))["code"] ==
          "too_large");
    const Json inside = rejected(caliper::estimateJson(projectCatalog(), padded(caliper::io::kMaxRequestBytes)));
    CHECK(inside["code"] == "unknown_model");
    CHECK(inside["path"] == "/model");
}

TEST_CASE("nesting 100,000 deep is refused as too_deep by every door", "[limits][input]") {
    const std::string shapes[] = {
        std::string(100000, '['),                                      // unterminated arrays
        nested("[", "]", 100000, "1"),                                 // well-formed arrays
        nested(R"({"a":)", "}", 100000, "1"),                          // well-formed objects
        R"({"model":)" + nested("[{\"x\":", "}]", 50000, "0") + R"(,"gpu":"h100"})",  // inside a key
        std::string(100, ']') + std::string(100000, '['),             // closers first do not hide it
    };
    for (const std::string& text : shapes) {
        for (const Door& door : kDoors) {
            INFO(door.name << ": " << text.substr(0, 40));
            const Json error = rejected(door.call(projectCatalog(), text, false));
            CHECK(error["code"] == "too_deep");
            CHECK(error["path"] == "");
        }
    }
}

TEST_CASE("the depth limit is 64 levels, counted outside strings", "[limits][input]") {
    // The request object is level 1, so 63 arrays in "model" reach level 64.
    auto request = [](int arrays) { return R"({"model":)" + nested("[", "]", arrays, "") + R"(,"gpu":"h100"})"; };
    const Json atLimit = rejected(caliper::estimateJson(projectCatalog(), request(caliper::io::kMaxJsonDepth - 1)));
    CHECK(atLimit["code"] == "invalid_value");
    CHECK(atLimit["path"] == "/model");
    CHECK(rejected(caliper::estimateJson(projectCatalog(), request(caliper::io::kMaxJsonDepth)))["code"] ==
          "too_deep");
    // Brackets inside a string are text, not nesting.
    const std::string inString = R"({"model":")" + std::string(100000, '[') + R"(","gpu":"h100"})";
    const Json unknown = rejected(caliper::estimateJson(projectCatalog(), inString));
    CHECK(unknown["code"] == "unknown_model");
    CHECK(unknown["path"] == "/model");
}

TEST_CASE("numbers beyond a double are invalid JSON, not an internal failure", "[limits][input]") {
    // nlohmann reports these as out_of_range, not parse_error (found by fuzz_scenario,
    // tests/fuzz/regressions/scenario/number-overflow.json).
    for (const char* text : {"6e666", R"({"model":"llama-3.1-8b","gpu":"h100","batch":1e999})",
                             R"({"model":"llama-3.1-8b","gpu":"h100","train_tokens":-1e400})"}) {
        INFO(text);
        const Json error = rejected(caliper::estimateJson(projectCatalog(), text));
        CHECK(error["code"] == "invalid_json");
        CHECK(error["path"] == "");
    }
    caliper::Catalog catalog;
    std::string gpus = gpusText();
    gpus.replace(gpus.find("\"schema_version\": 1"), 19, "\"schema_version\": 1e999");
    const Json error = rejected(caliper::loadCatalogJson(gpus, modelsText(), catalog));
    CHECK(error["code"] == "invalid_json");
}

TEST_CASE("integers past every range are refused with the key's pointer", "[limits][input]") {
    const std::pair<const char*, const char*> cases[] = {
        {R"({"model":"llama-3.1-8b","gpu":"h100","batch":9223372036854775807})", "/batch"},
        {R"({"model":"llama-3.1-8b","gpu":"h100","batch":18446744073709551616})", "/batch"},
        {R"({"model":"llama-3.1-8b","gpu":"h100","gpu_count":2147483648})", "/gpu_count"},
        {R"({"model":"llama-3.1-8b","gpu":"h100","prompt_tokens":1e300})", "/prompt_tokens"},
        {R"({"model":"llama-3.1-8b","gpu":"h100","lora":{"rank":4294967297}})", "/lora/rank"},
        {R"({"model":"llama-3.1-8b","gpu":"h100","parallel":{"tp":-2147483649}})", "/parallel/tp"},
    };
    for (const auto& [text, path] : cases) {
        INFO(text);
        const Json error = rejected(caliper::estimateJson(projectCatalog(), text));
        CHECK(error["code"] == "invalid_value");
        CHECK(error["path"] == path);
    }
}

TEST_CASE("invalid UTF-8 is refused and the answer stays valid JSON", "[limits][input]") {
    const std::string text = "{\"model\":\"\xff\xfe\",\"gpu\":\"h100\"}";
    CHECK(rejected(caliper::estimateJson(projectCatalog(), text))["code"] == "invalid_json");
}

TEST_CASE("catalog files over 16 MiB are refused and the loaded catalog stays", "[limits][input][catalog]") {
    caliper::Catalog catalog = projectCatalog();
    const std::string huge(caliper::io::kMaxCatalogBytes + 1, ' ');
    const Json gpus = rejected(caliper::loadCatalogJson(huge, modelsText(), catalog));
    CHECK(gpus["code"] == "too_large");
    const Json models = rejected(caliper::loadCatalogJson(gpusText(), huge, catalog));
    CHECK(models["code"] == "too_large");
    CHECK(catalog.gpus.size() == projectCatalog().gpus.size());
    CHECK(catalog.models.size() == projectCatalog().models.size());
}

TEST_CASE("a catalog of 10^6 entries is refused by its count", "[limits][input][catalog]") {
    // 10^6 empty entries fit in 3 MB of text, under the byte limit: the
    // 100,000-entry cap must catch them before any entry is read.
    std::string entries = "[";
    for (int i = 0; i < 1000000; ++i) entries += i ? ",{}" : "{}";
    entries += "]";
    caliper::Catalog catalog;
    const Json models = rejected(
        caliper::loadCatalogJson(gpusText(), R"({"schema_version":1,"models":)" + entries + "}", catalog));
    CHECK(models["code"] == "too_large");
    CHECK(models["path"] == "/models");
    const Json gpus = rejected(caliper::loadCatalogJson(
        R"({"schema_version":1,"catalog_version":"x","caveats":[],"gpus":)" + entries + "}", modelsText(), catalog));
    CHECK(gpus["code"] == "too_large");
    CHECK(gpus["path"] == "/gpus");
    CHECK(catalog.gpus.empty());
}

TEST_CASE("a matrix never has more rows or columns than the catalog has entries", "[limits][input][matrix]") {
    // One id repeated 100,000 times is 1.6 MB of request; answered cell by
    // cell it would be 100,000 rows. Refusing the list or merging repeats
    // both keep the answer bounded by the catalog.
    Json ids = Json::array();
    for (int i = 0; i < 100000; ++i) ids.push_back("llama-3.1-8b");
    for (const char* key : {"model", "gpu"}) {
        Json request = {{"model", "llama-3.1-8b"}, {"gpu", "h100-sxm5-80gb"}, {"max_gpus", 1}};
        request[key] = key == std::string("model") ? ids : Json(std::vector<std::string>(100000, "h100-sxm5-80gb"));
        const caliper::ApiResponse response = caliper::matrixJson(projectCatalog(), request.dump());
        INFO(key << ": " << response.json.substr(0, 200));
        if (response.status == 2) {
            const Json error = rejected(response);
            CHECK(error["code"] == "too_large");
            CHECK(error["path"] == std::string("/") + key);
        } else {
            REQUIRE(response.status == 0);
            const Json out = Json::parse(response.json);
            CHECK(out["models"].size() <= projectCatalog().models.size());
            CHECK(out["gpus"].size() <= projectCatalog().gpus.size());
        }
    }
}

TEST_CASE("an inventory answer never has more rows than the catalog has models", "[limits][input][inventory]") {
    // Each listed model is evaluated for four tasks on every owned GPU type
    // (up to 64): 20,000 repeats of one id (0.4 MB) on 64 types would be
    // 5 million estimates. Refusing the list or merging repeats both keep
    // the answer bounded; one GPU type keeps this check itself cheap.
    const Json request = {{"model", std::vector<std::string>(20000, "llama-3.1-8b")},
                          {"inventory", Json::array({{{"gpu", "h100-sxm5-80gb"}, {"count", 8}}})}};
    const caliper::ApiResponse response = caliper::inventoryJson(projectCatalog(), request.dump());
    INFO(response.json.substr(0, 200));
    if (response.status == 2) {
        const Json error = rejected(response);
        CHECK(error["code"] == "too_large");
        CHECK(error["path"] == "/model");
    } else {
        REQUIRE(response.status == 0);
        CHECK(Json::parse(response.json)["rows"].size() <= projectCatalog().models.size());
    }
}
