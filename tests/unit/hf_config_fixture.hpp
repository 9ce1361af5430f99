#pragma once
// Model configs saved from Hugging Face repositories (tests/fixtures/hf_configs),
// read as a pasted config.json is.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "caliper/model.hpp"
#include "catalog_fixture.hpp"
#include "json/hf_config/hf_config.hpp"

namespace caliper::test {

inline nlohmann::json fixtureConfig(const std::string& file) {
    return nlohmann::json::parse(readText(std::string(CALIPER_FIXTURES_DIR) + "/hf_configs/" + file));
}

// `name` without its .json; the reader's assumptions go to `warnings`.
inline ModelSpec modelFromFixture(const std::string& name, std::vector<Warning>* warnings) {
    return io::modelFromHfConfig(fixtureConfig(name + ".json"), "/model", warnings);
}

}  // namespace caliper::test
