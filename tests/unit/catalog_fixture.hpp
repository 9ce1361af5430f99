#pragma once
// The project's own catalog, read once for all tests from data/.
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "caliper/api.hpp"

namespace caliper::test {

inline std::string readText(const std::string& path) {
    std::ifstream file(path, std::ios::binary);
    std::ostringstream text;
    text << file.rdbuf();
    return text.str();
}

inline const Catalog& projectCatalog() {
    static const Catalog catalog = parseCatalog(readText(std::string(CALIPER_DATA_DIR) + "/gpus.json"),
                                                readText(std::string(CALIPER_DATA_DIR) + "/models.json"));
    return catalog;
}

// A catalog entry by id; a missing one fails the test that asked for it.
inline const ModelSpec& catalogModel(const std::string& id) {
    const ModelSpec* model = findModel(projectCatalog(), id);
    if (!model) throw std::runtime_error("model not in catalog: " + id);
    return *model;
}

inline const GpuSpec& catalogGpu(const std::string& id) {
    const GpuSpec* gpu = findGpu(projectCatalog(), id);
    if (!gpu) throw std::runtime_error("GPU not in catalog: " + id);
    return *gpu;
}

}  // namespace caliper::test
