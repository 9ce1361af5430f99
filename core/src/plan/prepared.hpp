#pragma once
// Engine steps on a prepared scenario (sizing::Inputs: parameter counts,
// shape and weight bytes worked out once), so that one estimate or one
// matrix cell prepares its scenario once instead of once per step.
#include <bitset>
#include <optional>

#include "caliper/memory/memory.hpp"
#include "caliper/plan/plan.hpp"
#include "memory/sizing.hpp"

namespace caliper {

// The fewest GPUs of the scenario's type that fit, or empty beyond kMaxGpus.
std::optional<int> fewestGpus(const sizing::Inputs& in);

// The same count with the plan and per-GPU memory it fits with.
struct CountFit {
    int count = 0;
    Plan plan;
    MemoryBreakdown memory;
};
std::optional<CountFit> fewestGpusFit(const sizing::Inputs& in);

// The same search with what it learned on the way, so that the planner does
// not evaluate again a plan the search already ruled out: the counts below
// the weights' lower bound, the counts whose plan (planFor) did not fit, and
// the one-GPU plan with its memory when it was evaluated (the breakdown the
// planner shows when nothing fits).
struct CountSearch {
    // Written out so that GCC does not zero the optionals' storage (560
    // bytes on every matrix cell) before the members' own initializers.
    CountSearch() {}
    std::optional<CountFit> fit;
    double lowest = 0;  // no planFor plan below this many GPUs fits (weights spread evenly + CUDA context)
    std::bitset<kMaxGpus + 1> missed;  // counts whose planFor plan was probed and is unusable or does not fit
    std::optional<CountFit> one;       // count 1's plan and its full memory breakdown, when evaluated

    // Whether planFor at `count` is known not to fit.
    bool ruledOut(int count) const {
        return count < lowest || (count >= 0 && count <= kMaxGpus && missed[std::size_t(count)]);
    }
};
CountSearch searchGpuCounts(const sizing::Inputs& in);

// Per-GPU memory under `plan`, with the explanation when asked.
MemoryEstimate estimateMemory(const sizing::Inputs& in, const Plan& plan, bool withExplain);

}  // namespace caliper
