#pragma once
// What the libFuzzer executables share: the catalog built into the binary
// (the same data/*.json the tests read) and the way a finding is reported.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "embedded_catalog.hpp"
#include "fuzz_entries.hpp"

namespace caliper::fuzz {

inline const Catalog& embeddedCatalog() {
    static const Catalog catalog = parseCatalog(embeddedGpusJson(), embeddedModelsJson());
    return catalog;
}

inline std::string_view inputText(const std::uint8_t* data, std::size_t size) {
    return {reinterpret_cast<const char*>(data), size};
}

// A broken promise is a crash to libFuzzer: it saves the input as crash-*.
inline int reportFinding(const std::string& problem) {
    if (problem.empty()) return 0;
    std::fprintf(stderr, "caliper fuzz finding: %s\n", problem.c_str());
    std::abort();
}

}  // namespace caliper::fuzz
