// The catalog loader rejects bad data with the JSON pointer of the problem;
// each case mutates one field of the real catalog.
#include <catch2/catch.hpp>

#include <functional>
#include <nlohmann/json.hpp>

#include "catalog_fixture.hpp"
#include "caliper/error.hpp"

using Json = nlohmann::json;
using caliper::test::readText;

namespace {

Json dataFile(const char* name) { return Json::parse(readText(std::string(CALIPER_DATA_DIR) + "/" + name)); }

caliper::Error loadError(const Json& gpus, const Json& models) {
    try {
        caliper::parseCatalog(gpus.dump(), models.dump());
    } catch (const caliper::InputError& e) {
        return e.error();
    }
    FAIL("the catalog was accepted");
    return {};
}

struct Mutation {
    const char* what;
    std::function<void(Json& gpus, Json& models)> apply;
    const char* code;
    const char* path;
    const char* messagePart;
};

}  // namespace

TEST_CASE("the project's catalogs load", "[catalog]") {
    const caliper::Catalog& catalog = caliper::test::projectCatalog();
    CHECK(catalog.gpus.size() >= 70);
    CHECK(catalog.models.size() >= 68);
    CHECK_FALSE(catalog.version.empty());
}

TEST_CASE("each kind of bad catalog data gives its own message and pointer", "[catalog][errors]") {
    const Mutation m = GENERATE(values<Mutation>({
        {"negative bandwidth", [](Json& g, Json&) { g["gpus"][12]["bandwidth_gbps"] = -3; }, "invalid_value",
         "/gpus/12/bandwidth_gbps", "expected a positive number, got -3"},
        {"string memory", [](Json& g, Json&) { g["gpus"][0]["memory_gib"] = "80"; }, "invalid_value",
         "/gpus/0/memory_gib", "expected a number"},
        {"unknown key", [](Json& g, Json&) { g["gpus"][2]["bandwdith_gbps"] = 1; }, "unknown_key",
         "/gpus/2/bandwdith_gbps", "unknown key"},
        {"duplicate GPU id", [](Json& g, Json&) { g["gpus"][1]["id"] = g["gpus"][0]["id"]; }, "duplicate_id",
         "/gpus/1/id", "appears twice"},
        {"alias naming two GPUs", [](Json& g, Json&) { g["gpus"][5]["aliases"].push_back(g["gpus"][4]["id"]); },
         "duplicate_alias", "", "also names"},
        {"unknown caveat", [](Json& g, Json&) { g["gpus"][0]["caveats"] = {"no-such-caveat"}; }, "unknown_caveat",
         "/gpus/0/caveats/0", "no-such-caveat"},
        {"schema version", [](Json& g, Json&) { g["schema_version"] = 2; }, "invalid_catalog", "/schema_version",
         "expected an integer"},
        {"unknown top-level key", [](Json& g, Json&) { g["extra"] = true; }, "unknown_key", "/extra", "unknown key"},
        {"model with zero layers", [](Json&, Json& m) { m["models"][3]["layers"] = 0; }, "invalid_value",
         "/models/3/layers", "expected"},
        {"duplicate model id", [](Json&, Json& m) { m["models"][2]["id"] = m["models"][1]["id"]; }, "duplicate_id",
         "/models/2/id", "appears twice"},
        {"model without sources", [](Json&, Json& m) { m["models"][0]["sources"] = Json::array(); }, "",
         "/models/0/sources", "at least 1"},
    }));
    INFO(m.what);
    Json gpus = dataFile("gpus.json");
    Json models = dataFile("models.json");
    m.apply(gpus, models);
    const caliper::Error error = loadError(gpus, models);
    INFO(error.path << ": " << error.message);
    if (*m.code) CHECK(error.code == m.code);
    if (*m.path) CHECK(error.path == m.path);
    CHECK(error.message.find(m.messagePart) != std::string::npos);
}

TEST_CASE("lookups ignore case, spaces, punctuation and vendor words", "[catalog]") {
    const caliper::Catalog& catalog = caliper::test::projectCatalog();
    const caliper::GpuSpec* rtx4090 = caliper::findGpu(catalog, "rtx-4090");
    REQUIRE(rtx4090);
    for (const char* query : {"RTX 4090", "4090", "NVIDIA GeForce RTX 4090", "geforce rtx4090", "rtx_4090"}) {
        INFO(query);
        CHECK(caliper::findGpu(catalog, query) == rtx4090);
    }
    CHECK(caliper::findGpu(catalog, "H1000") == nullptr);
    CHECK(caliper::findGpu(catalog, "") == nullptr);
    CHECK(caliper::nearestGpuId(catalog, "H1000").rfind("h100", 0) == 0);
    const caliper::ModelSpec* llama = caliper::findModel(catalog, "meta-llama/Llama-3.1-8B");
    REQUIRE(llama);
    CHECK(llama->id == "llama-3.1-8b");
}

TEST_CASE("model names as Chinese users and Ollama tags write them resolve", "[catalog]") {
    const caliper::Catalog& catalog = caliper::test::projectCatalog();
    auto idOf = [&](const char* query) {
        const caliper::ModelSpec* model = caliper::findModel(catalog, query);
        return model ? model->id : std::string("(none)");
    };
    // 通义千问 / 千问 is Alibaba's Chinese name for Qwen, 深度求索 DeepSeek's
    // company name.
    CHECK(idOf("千问3-32B") == "qwen3-32b");
    CHECK(idOf("通义千问2.5-14B") == "qwen2.5-14b");
    CHECK(idOf("深度求索R1") == "deepseek-r1");
    // The parameter count after the name, as Ollama tags it (deepseek-r1:671b)
    // and as DeepSeek-R1 is commonly written: the catalog entry counts 671B.
    CHECK(idOf("DeepSeek-R1-671B") == "deepseek-r1");
    CHECK(idOf("deepseek-r1:671b") == "deepseek-r1");
    // A count that is not the entry's (8B is not 70B's) names no model, and
    // the nearest name is offered instead of a silent pick.
    CHECK(idOf("llama-3.1-70b-8b") == "(none)");
    CHECK(caliper::nearestModelId(catalog, "千问3-32B-Instruct-XYZ").rfind("qwen3-32b", 0) == 0);
}
