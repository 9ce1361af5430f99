#pragma once
// The planner: the plan a practitioner would run for a scenario. It turns
// the knobs the request leaves open (GPU count, data-parallel strategy,
// gradient checkpointing, tensor vs pipeline degrees, the training
// micro-batch when asked) and keeps, among the
// plans that fit, the one the objective prefers: the fewest GPUs, then the
// fastest; at a fixed count, the fastest. estimate() and every matrix cell
// go through it, so a cell and its detail show the same plan.
#include <optional>
#include <string_view>
#include <vector>

#include "caliper/speed/speed.hpp"
#include "caliper/result.hpp"
#include "caliper/scenario.hpp"

namespace caliper::sizing {
struct ModelFigures;
}

namespace caliper::planner {

// plan.why codes: at most a few, kept in place (a vector would allocate
// for every matrix cell).
class WhyCodes {
public:
    void push_back(const char* code) {
        if (size_ < kCapacity) codes_[size_++] = code;
    }
    const char*& back() { return codes_[size_ - 1]; }
    void replace(std::string_view from, const char* to) {
        for (int i = 0; i < size_; ++i) {
            if (from == codes_[i]) codes_[i] = to;
        }
    }
    const char* const* begin() const { return codes_; }
    const char* const* end() const { return codes_ + size_; }

private:
    static constexpr int kCapacity = 7;
    const char* codes_[kCapacity] = {};
    int size_ = 0;
};

struct Choice {
    // Written out so that GCC does not zero the whole choice (424 bytes on
    // every matrix cell) before the members' own initializers.
    Choice() {}
    Plan plan;
    bool gradientCheckpointing = false;  // as resolved (the request's, or the planner's for "auto")
    bool checkpointingForSpeed = false;  // on although off fits: it lets a shallower, faster pipeline fit
    MemoryBreakdown memory;
    bool fits = false;
    std::optional<int> gpusNeeded;  // fewest GPUs that fit under any candidate plan
    std::optional<SpeedEstimate> speed;  // of the chosen plan, when it fits within maxGpus (no explanation)
    WhyCodes why;                   // plan.why codes
    std::optional<LossKernel> lossKernel;  // the loss the planner chose where the request left it "auto"
};

// With gpuCountAuto the count is searched up to kMaxGpus and chosen within
// maxGpus; otherwise the request's count is used. `held`, when given, is
// sizing::modelFigures(scenario.model), worked out once by the caller.
Choice choose(const Scenario& scenario, int maxGpus, const sizing::ModelFigures* held = nullptr);

// The request with the knobs the planner resolved (checkpointing, the
// training micro-batch, the loss kernel, and Ollama's context where an
// "auto" count sets it).
Scenario resolved(const Scenario& request, const Choice& choice);

// Whether Liger Kernel's fused linear cross entropy (loss_kernel
// "fused-linear") runs on the request's engine and strategy.
bool fusedLinearLossRuns(const Scenario& scenario);

// Whether TRL's chunked NLL loss (loss_kernel "chunked-nll") runs on the
// request's engine: every strategy, ZeRO-3 and offloaded parameters too.
bool chunkedNllLossRuns(const Scenario& scenario);

// Whether the request's figures depend on the count the planner chooses
// beyond the plan itself: Ollama's default num_ctx follows the VRAM.
bool contextFollowsCount(const Scenario& request);

}  // namespace caliper::planner
