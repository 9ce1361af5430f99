// libFuzzer target: the catalog loader (parseCatalog through loadCatalogJson),
// with the input as gpus.json and as models.json.
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace caliper;
    static const fuzz::CatalogSlices slices{fuzz::catalogSlice(embeddedGpusJson(), "gpus", 2),
                                            fuzz::catalogSlice(embeddedModelsJson(), "models", 2)};
    return fuzz::reportFinding(fuzz::checkCatalogInput(fuzz::inputText(data, size), slices));
}
