// libFuzzer target: the many-scenario entry points (matrixJson,
// recommendJson, inventoryJson, limitsJson) on "<call>\n<request>" inputs,
// mutated mostly by request_mutator (structure-aware), sometimes byte-wise.
#include <cstring>
#include <random>

#include "fuzz_support.hpp"
#include "request_mutator.hpp"

extern "C" std::size_t LLVMFuzzerMutate(std::uint8_t* data, std::size_t size, std::size_t maxSize);

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace caliper;
    return fuzz::reportFinding(fuzz::checkEstimatePathsInput(fuzz::embeddedCatalog(), fuzz::inputText(data, size)));
}

extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size, std::size_t maxSize,
                                               unsigned int seed) {
    using namespace caliper;
    std::mt19937 rng(seed);
    if (rng() % 8 != 0) {
        const std::string mutated = fuzz::mutateRequest(fuzz::embeddedCatalog(), fuzz::inputText(data, size), rng);
        if (!mutated.empty() && mutated.size() <= maxSize) {
            std::memcpy(data, mutated.data(), mutated.size());
            return mutated.size();
        }
    }
    return LLVMFuzzerMutate(data, size, maxSize);
}
