// libFuzzer target: a Hugging Face config.json, read by io::modelFromHfConfig
// and sent as the model of an estimate request.
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace caliper;
    return fuzz::reportFinding(fuzz::checkHfConfigInput(fuzz::embeddedCatalog(), fuzz::inputText(data, size)));
}
