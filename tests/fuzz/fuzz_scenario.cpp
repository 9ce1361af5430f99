// libFuzzer target: any text as an estimate request (estimateJson and the
// typed engine path it wraps).
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace caliper;
    return fuzz::reportFinding(fuzz::checkEstimateInput(fuzz::embeddedCatalog(), fuzz::inputText(data, size)));
}
