#include "serving/kv_transfer.hpp"

#include <algorithm>

#include "speed/comm.hpp"

namespace caliper::serving {

double kvTransferS(const Scenario& s, const StepModel& prefill, int prefillGpus, int decodeGpus) {
    const int gpus = std::max(1, prefillGpus) + std::max(1, decodeGpus);
    const Link link = groupLink(s, gpus, gpus > std::max(1, s.gpu.gpusPerNode));
    const double bytesPerGpu = double(std::max<std::int64_t>(0, s.promptTokens)) * prefill.kvBytesPerTokenOnRank() /
                               std::max(1, prefill.layout.pp);
    return sendS(bytesPerGpu, link);
}

}  // namespace caliper::serving
