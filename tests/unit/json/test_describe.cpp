// describe (docs/CONTRACT.md "Describe") against the code it describes: every
// enum value has a name that parses back to it, describe lists every name,
// its defaults are what a request without those keys resolves to, its limits
// are the ones the reader enforces, and every code the core writes is listed.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "caliper/answers/presets.hpp"
#include "caliper/names.hpp"
#include "catalog_fixture.hpp"
#include "json/request/scenario_json.hpp"

using caliper::test::projectCatalog;
using Json = nlohmann::json;

namespace {

Json describe() {
    const caliper::ApiResponse response = caliper::describeJson(projectCatalog());
    REQUIRE(response.status == 0);
    return Json::parse(response.json);
}

bool lists(const Json& list, const std::string& name) {
    return std::find(list.begin(), list.end(), Json(name)) != list.end();
}

// Every value of E has a unique name, the name parses back to the value, and
// describe's enums[key] lists exactly the table's names, in order.
template <class E>
void checkEnum(const Json& d, const char* key) {
    INFO(key);
    std::set<std::string> seen;
    Json expected = Json::array();
    for (const auto& [value, name] : caliper::Names<E>::table) {
        CHECK(std::string(name) != "");
        CHECK(seen.insert(name).second);
        CHECK(std::string(caliper::toString(value)) == name);
        const Json text = name;
        CHECK(caliper::io::parseEnum<E>(text, "/x") == value);
        expected.push_back(name);
    }
    CHECK(d["enums"][key] == expected);
}

}  // namespace

TEST_CASE("describe lists every enum name, each parsing back to its value", "[describe]") {
    const Json d = describe();
    CHECK(d["contract_version"] == "2");
    checkEnum<caliper::Task>(d, "task");
    checkEnum<caliper::Method>(d, "method");
    checkEnum<caliper::Engine>(d, "engine");
    checkEnum<caliper::WeightFormat>(d, "weights");
    checkEnum<caliper::KvFormat>(d, "kv_cache");
    checkEnum<caliper::Optimizer>(d, "optimizer");
    checkEnum<caliper::Strategy>(d, "strategy");
    checkEnum<caliper::Offload>(d, "offload");
    checkEnum<caliper::LossKernel>(d, "loss_kernel");
    checkEnum<caliper::Objective>(d, "objective");
    checkEnum<caliper::Pricing>(d, "pricing");
    checkEnum<caliper::CellStatus>(d, "status");
    CHECK(d["enums"]["currency"] == Json({"usd", "cny"}));
    // The weight formats parse through the catalog's reader too.
    for (const auto& [value, name] : caliper::Names<caliper::WeightFormat>::table) {
        CHECK(caliper::weightFormatFromName(name) == value);
    }
}

TEST_CASE("describe's defaults are what a request without those keys resolves to", "[describe]") {
    const Json d = describe();
    for (const char* task : {"inference", "finetune", "pretrain"}) {
        INFO(task);
        const Json defaults = d["defaults"][task];
        const caliper::ApiResponse response = caliper::estimateJson(
            projectCatalog(), Json{{"model", "llama-3.1-8b"}, {"gpu", "h100-sxm5-80gb"}, {"task", task}}.dump());
        REQUIRE(response.status == 0);
        const Json scenario = Json::parse(response.json)["scenario"];
        for (const char* key : {"task", "engine", "prompt_tokens", "output_tokens", "seq_len", "optimizer"}) {
            INFO(key);
            CHECK(defaults[key] == scenario[key]);
        }
        // "auto" is resolved by the planner, so the echo shows its choice: the
        // default holds when asking for it explicitly answers the same bytes.
        for (const char* key : {"batch", "gradient_checkpointing"}) {
            INFO(key);
            if (defaults[key] == "auto") {
                const caliper::ApiResponse explicitAuto = caliper::estimateJson(
                    projectCatalog(),
                    Json{{"model", "llama-3.1-8b"}, {"gpu", "h100-sxm5-80gb"}, {"task", task}, {key, "auto"}}.dump());
                CHECK(explicitAuto.json == response.json);
            } else {
                CHECK(defaults[key] == scenario[key]);
            }
        }
        // docs/CONTRACT.md `method`: inference takes none, and the echo says null.
        CHECK(defaults["method"] == scenario["method"]);
        CHECK(defaults["gpu_count"] == Json::parse(response.json)["gpu_count"]);
    }
    // From docs/CONTRACT.md "Request": vLLM serves, Transformers fine-tunes
    // with LoRA, Megatron pre-trains at 4,096 tokens.
    CHECK(d["defaults"]["inference"]["engine"] == "vllm");
    CHECK(d["defaults"]["inference"]["batch"] == 1);
    CHECK(d["defaults"]["finetune"]["batch"] == "auto");
    CHECK(d["defaults"]["pretrain"]["batch"] == "auto");
    CHECK(d["defaults"]["finetune"]["method"] == "lora");
    CHECK(d["defaults"]["pretrain"]["seq_len"] == 4096);
}

TEST_CASE("describe's limits are the ones the request reader enforces", "[describe]") {
    const Json d = describe();
    CHECK(d["limits"]["batch"] == Json({{"min", 1}, {"max", 1000000}}));
    // Each top-level integer key: its bounds pass, one past them is refused at its path.
    for (const char* key : {"batch", "prompt_tokens", "output_tokens", "seq_len", "gpu_count"}) {
        INFO(key);
        const Json limit = d["limits"][key];
        REQUIRE(limit.is_object());
        Json request = {{"model", "llama-3.1-8b"}, {"gpu", "h100-sxm5-80gb"}, {"prompt_tokens", 16}, {"output_tokens", 16}};
        request[key] = limit["max"].get<std::int64_t>() + 1;
        const Json above = Json::parse(caliper::estimateJson(projectCatalog(), request.dump()).json);
        CHECK(above["ok"] == false);
        CHECK(above["error"]["path"] == std::string("/") + key);
        request[key] = limit["min"].get<std::int64_t>() - 1;
        const Json below = Json::parse(caliper::estimateJson(projectCatalog(), request.dump()).json);
        CHECK(below["ok"] == false);
        CHECK(below["error"]["path"] == std::string("/") + key);
    }
}

TEST_CASE("describe lists the engine's presets with the request each fills", "[describe]") {
    const Json d = describe();
    REQUIRE(d["presets"].size() == caliper::presets().size());
    for (std::size_t i = 0; i < caliper::presets().size(); ++i) {
        const caliper::Preset& p = caliper::presets()[i];
        INFO(p.id);
        CHECK(d["presets"][i]["id"] == p.id);
        CHECK(d["presets"][i]["request"]["task"] == caliper::toString(p.task));
        CHECK(d["presets"][i]["request"]["objective"] == caliper::toString(p.objective));
        // The preset's request, run through recommend, is accepted as it stands.
        const caliper::ApiResponse r = caliper::recommendJson(projectCatalog(), d["presets"][i]["request"].dump());
        CHECK(r.status == 0);
    }
    CHECK(lists(d["matrix_cell_fields"], "status"));
    CHECK(lists(d["matrix_cell_fields"], "gpus_needed"));
}

TEST_CASE("describe lists every warning and error code the core writes", "[describe]") {
    const Json d = describe();
    // The ways core/src writes a code: Warning{"x", ...}, add(out, "x", ...),
    // list.push_back({"x", ...}) for warnings, reasons, watch items and notes;
    // fail("x", ...) and failType("x", ...) for errors.
    const std::regex warning(
        R"re((?:Warning\{|add\(out,\s*|addUnique\(out,\s*\{|(?:warnings|watch|notes|reasons)(?:->|\.)push_back\(\{|return \{)\s*"([a-z0-9_]+)",)re");
    const std::regex error(R"re((?:fail(?:Type)?\(\s*|errorToJson\(\{)"([a-z_]+)")re");
    const std::filesystem::path core = std::filesystem::path(CALIPER_DATA_DIR) / ".." / "core" / "src";
    std::size_t warningsFound = 0, errorsFound = 0;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(core)) {
        if (!entry.is_regular_file()) continue;
        std::ifstream file(entry.path());
        std::stringstream text;
        text << file.rdbuf();
        const std::string source = text.str();
        for (std::sregex_iterator it(source.begin(), source.end(), warning), end; it != end; ++it, ++warningsFound) {
            INFO(entry.path().string());
            CHECK(lists(d["warning_codes"], (*it)[1]));
        }
        for (std::sregex_iterator it(source.begin(), source.end(), error), end; it != end; ++it, ++errorsFound) {
            INFO(entry.path().string());
            CHECK(lists(d["error_codes"], (*it)[1]));
        }
    }
    CHECK(warningsFound > 30);  // the scan still finds the codes (42 distinct when written)
    CHECK(errorsFound > 30);
}
