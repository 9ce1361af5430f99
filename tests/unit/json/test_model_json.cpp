// The catalog's model shape: strict catalog entries, request objects with
// defaults, params_b alone with an assumed shape, and the written form.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "caliper/error.hpp"
#include "catalog_fixture.hpp"
#include "json/catalog/model_json.hpp"

using caliper::countParams;
using caliper::ModelSpec;
using caliper::Warning;
using Json = nlohmann::json;

namespace {

Json catalogModels() {
    return Json::parse(caliper::test::readText(std::string(CALIPER_DATA_DIR) + "/models.json")).at("models");
}

Json catalogEntry(const std::string& id) {
    for (const Json& entry : catalogModels()) {
        if (entry.at("id") == id) return entry;
    }
    FAIL("no catalog entry " << id);
    return {};
}

caliper::Error readError(const Json& object, bool catalog) {
    std::vector<Warning> warnings;
    try {
        caliper::io::modelFromJson(object, "/model", &warnings, catalog);
    } catch (const caliper::InputError& e) {
        return e.error();
    }
    FAIL("accepted " << object.dump());
    return {};
}

}  // namespace

TEST_CASE("every catalog entry survives a read and a write unchanged", "[model_json][catalog]") {
    for (const Json& entry : catalogModels()) {
        INFO(entry.at("id").get<std::string>());
        std::vector<Warning> warnings;
        const ModelSpec m = caliper::io::modelFromJson(entry, "/models/0", &warnings, true);
        CHECK(warnings.empty());
        CHECK(caliper::io::modelToJson(m) == entry);
    }
}

TEST_CASE("catalog entries must carry every key and a consistent KV size", "[model_json][errors]") {
    Json entry = catalogEntry("llama-3.1-8b");
    entry.erase("sliding_window");  // nullable, but must be present
    caliper::Error e = readError(entry, true);
    CHECK(e.code == "missing_key");
    CHECK(e.path == "/model/sliding_window");

    entry = catalogEntry("llama-3.1-8b");
    entry["kv_bytes_per_token"] = 131073;  // 2 x 32 x 8 x 128 x 2 = 131,072
    e = readError(entry, true);
    CHECK(e.path == "/model/kv_bytes_per_token");
    CHECK(e.message.find("131072") != std::string::npos);

    entry = catalogEntry("llama-3.1-8b");
    entry["layerz"] = 32;
    CHECK(readError(entry, true).code == "unknown_key");

    entry = catalogEntry("deepseek-v3");
    entry["mla"] = nullptr;  // attention "mla" needs its ranks
    CHECK(readError(entry, true).path == "/model/mla");

    entry = catalogEntry("mixtral-8x7b");
    entry["moe"]["experts_per_token"] = 9;  // more than the 8 experts
    CHECK(readError(entry, true).path == "/model/moe/experts_per_token");

    entry = catalogEntry("llama-3.1-8b");
    entry["id"] = "Llama 3.1";
    CHECK(readError(entry, true).path == "/model/id");
}

TEST_CASE("a request's model object needs only its architecture", "[model_json]") {
    // Llama 3.1 8B's config.json figures in the catalog's key names.
    const Json object = {{"layers", 32},         {"hidden_size", 4096}, {"intermediate_size", 14336},
                         {"heads", 32},          {"kv_heads", 8},       {"vocab_size", 128256}};
    std::vector<Warning> warnings;
    const ModelSpec m = caliper::io::modelFromJson(object, "/model", &warnings);
    CHECK(warnings.empty());
    CHECK(m.id == "custom");
    CHECK(m.headDim == 128);
    CHECK(m.attention == caliper::AttentionKind::Gqa);
    CHECK_FALSE(m.shapeAssumed);
    // meta-llama/Llama-3.1-8B safetensors: 8,030,261,248 parameters.
    CHECK(countParams(m).total == 8030261248.0);
}

TEST_CASE("a listing entry can be passed back as a request's model", "[model_json]") {
    const ModelSpec* qwen = caliper::findModel(caliper::test::projectCatalog(), "qwen3-30b-a3b");
    REQUIRE(qwen);
    Json listing = caliper::io::modelToJson(*qwen);
    std::vector<Warning> warnings;
    const ModelSpec back = caliper::io::modelFromJson(listing, "/model", &warnings, false);
    CHECK(warnings.empty());
    CHECK(countParams(back).total == countParams(*qwen).total);
    CHECK(countParams(back).active == countParams(*qwen).active);
}

TEST_CASE("params_b alone gives an assumed shape of that size, with a warning", "[model_json]") {
    std::vector<Warning> warnings;
    const ModelSpec m = caliper::io::modelFromJson(Json{{"params_b", 7}}, "/model", &warnings);
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0].code == "model_shape_assumed");
    CHECK(warnings[0].message.find("Llama 3.1 8B") != std::string::npos);  // the 8B row of the size table
    CHECK(m.shapeAssumed);
    CHECK(m.confidence == "low");
    CHECK(countParams(m).total == Approx(7e9).epsilon(1e-9));
    CHECK(m.hiddenSize == 4096);
    CHECK(caliper::io::modelToJson(m).value("shape_assumed", false));

    for (double size : {0.1, 0.5, 1.5, 3.0, 13.0, 34.0, 70.0, 180.0, 1000.0}) {
        INFO(size);
        std::vector<Warning> w;
        const ModelSpec s = caliper::io::modelFromJson(Json{{"params_b", size}}, "/model", &w);
        CHECK(s.layers >= 1);
        CHECK(countParams(s).total >= size * 1e9 * 0.999);
        CHECK(caliper::kvBytesPerToken16(s) > 0);
    }
}

TEST_CASE("params_b with a smaller active_params_b assumes a mixture of experts", "[model_json]") {
    // Mixtral 8x7B's published sizes: 46.7B total, 12.9B active.
    std::vector<Warning> warnings;
    const ModelSpec m =
        caliper::io::modelFromJson(Json{{"params_b", 46.7}, {"active_params_b", 12.9}}, "/model", &warnings);
    REQUIRE(warnings.size() == 1);
    CHECK(m.moe.experts > m.moe.expertsPerToken);
    const caliper::ParamCounts p = countParams(m);
    CHECK(p.total == Approx(46.7e9).epsilon(1e-6));
    CHECK(p.active == Approx(12.9e9).epsilon(0.05));
}

TEST_CASE("given fields are kept when the rest of the shape is assumed", "[model_json]") {
    std::vector<Warning> warnings;
    const ModelSpec m = caliper::io::modelFromJson(
        Json{{"id", "my-13b"}, {"params_b", 13}, {"vocab_size", 32000}, {"kv_heads", 40}, {"heads", 40}}, "/model",
        &warnings);
    CHECK(m.id == "my-13b");
    CHECK(m.vocabSize == 32000);
    CHECK(m.kvHeads == 40);
    CHECK(m.attention == caliper::AttentionKind::Mha);
    CHECK(countParams(m).total == Approx(13e9).epsilon(1e-9));
}

TEST_CASE("bad request model objects are rejected with a pointer", "[model_json][errors]") {
    caliper::Error e = readError(Json{{"name", "mine"}}, false);
    CHECK(e.code == "missing_key");
    CHECK(e.path == "/model/params_b");
    CHECK(e.message.find("layers") != std::string::npos);

    e = readError(Json{{"params_b", -7}}, false);
    CHECK(e.path == "/model/params_b");

    e = readError(Json{{"params_b", 7}, {"paramz_b", 7}}, false);
    CHECK(e.code == "unknown_key");
    CHECK(e.path == "/model/paramz_b");

    e = readError(Json{{"layers", 32}, {"hidden_size", 4096}, {"intermediate_size", 11008}, {"heads", 32},
                       {"kv_heads", 64}, {"vocab_size", 32000}},
                  false);
    CHECK(e.path == "/model/kv_heads");

    e = readError(Json{{"params_b", 7}, {"attention", "sparse"}}, false);
    CHECK(e.path == "/model/attention");
}

TEST_CASE("a params_b far from the architecture is reported", "[model_json]") {
    std::vector<Warning> warnings;
    const Json object = {{"layers", 32}, {"hidden_size", 4096}, {"intermediate_size", 11008},
                         {"heads", 32},  {"vocab_size", 32000}, {"params_b", 13}};
    caliper::io::modelFromJson(object, "/model", &warnings);
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0].code == "params_b_mismatch");
    CHECK(warnings[0].message.find("6.74") != std::string::npos);  // Llama 2 7B's shape
}
