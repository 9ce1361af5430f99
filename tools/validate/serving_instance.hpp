#pragma once
// The engine instance an aiconfigurator serving row measured: its GPUs and
// parallel degrees, read from the row's `extra` (validation/README.md).
#include <cstdint>
#include <string>

namespace caliper::io {

struct ServingInstance {
    std::int64_t tp = 1;           // attention tensor-parallel ranks of one attention-DP rank
    std::int64_t attentionDp = 1;  // attention data-parallel ranks
    std::int64_t ep = 1;           // expert-parallel ranks
    bool restated = false;         // the stated degrees were multiplied by the expert degree and are restated here
    std::int64_t gpus() const { return tp * attentionDp; }
};

// `tp` and `ep` are the row's structured keys, `extra` its text as written.
ServingInstance servingInstanceOf(std::int64_t tp, std::int64_t ep, const std::string& extra);

}  // namespace caliper::io
