#pragma once
// The project's own catalog, read once for all tests from data/.
#include <fstream>
#include <sstream>
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

}  // namespace caliper::test
