// Replays every committed fuzz input through the entry point of its fuzz
// target (tests/fuzz/fuzz_entries.hpp), in every build: the findings kept
// under tests/fuzz/regressions/<target>/ (each once crashed or broke a
// promise) and the seed corpus under tests/fuzz/corpus/<target>/.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>

#include "../fuzz/fuzz_entries.hpp"
#include "catalog_fixture.hpp"

namespace {

namespace fs = std::filesystem;
using caliper::test::projectCatalog;
using caliper::test::readText;

const fs::path kFuzzDir = fs::path(CALIPER_FIXTURES_DIR).parent_path() / "fuzz";

std::vector<fs::path> inputsOf(const char* kind, const std::string& target) {
    std::vector<fs::path> files;
    const fs::path folder = kFuzzDir / kind / target;
    if (!fs::is_directory(folder)) return files;
    for (const auto& entry : fs::directory_iterator(folder)) {
        if (entry.is_regular_file()) files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    return files;
}

const caliper::fuzz::CatalogSlices& slices() {
    static const caliper::fuzz::CatalogSlices value{
        caliper::fuzz::catalogSlice(readText(std::string(CALIPER_DATA_DIR) + "/gpus.json"), "gpus", 2),
        caliper::fuzz::catalogSlice(readText(std::string(CALIPER_DATA_DIR) + "/models.json"), "models", 2)};
    return value;
}

std::string replay(const std::string& target, const std::string& text) {
    if (target == "catalog") return caliper::fuzz::checkCatalogInput(text, slices());
    if (target == "hf_config") return caliper::fuzz::checkHfConfigInput(projectCatalog(), text);
    if (target == "scenario") return caliper::fuzz::checkEstimateInput(projectCatalog(), text);
    return caliper::fuzz::checkEstimatePathsInput(projectCatalog(), text);
}

void replayAll(const char* kind, const std::string& target) {
    for (const fs::path& file : inputsOf(kind, target)) {
        INFO(file.string());
        CHECK(replay(target, readText(file.string())).empty());
    }
}

}  // namespace

TEST_CASE("fuzz findings stay fixed", "[fuzz]") {
    const std::string target = GENERATE(as<std::string>(), "catalog", "hf_config", "scenario", "estimate_paths");
    replayAll("regressions", target);
}

TEST_CASE("the fuzz seed corpus is handled as promised", "[fuzz]") {
    const std::string target = GENERATE(as<std::string>(), "catalog", "hf_config", "scenario", "estimate_paths");
    REQUIRE_FALSE(inputsOf("corpus", target).empty());
    replayAll("corpus", target);
}
