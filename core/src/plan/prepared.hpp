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
    // The probed count the scan first found to fit, where fewer GPUs in the
    // gap below it fit too (the answer, `fit`, is then one of those): most
    // often a whole number of servers, which an "auto" count rounds up to.
    std::optional<CountFit> above;

    // Whether planFor at `count` is known not to fit.
    bool ruledOut(int count) const {
        return count < lowest || (count >= 0 && count <= kMaxGpus && missed[std::size_t(count)]);
    }
};
CountSearch searchGpuCounts(const sizing::Inputs& in);

// A count search shared between the GPU columns of one matrix row (the
// matrix works out the columns in groups of GPUs the search cannot tell
// apart). What the search reads of a GPU: its memory (usable memory,
// Ollama's context, the serving chunk size), whether its name says A100
// (vLLM's chunk size there), FP8 support (Transformer Engine's FP8
// activations), and its server and NVLink domain sizes (layouts and node
// counts of plans above one GPU); of the allocator reserve scales, which
// read the GPU's group, the prepared values. The matrix groups columns by
// the first three (`gpuClass`), and within a group by the sizes; the sizes,
// and everything else the scenario takes from the GPU (engine, formats,
// flash attention where the memory model reads it,
// sizing::memoryReadsFlashAttention; fp16 and bf16 alike: both 2 bytes),
// are compared here,
// cell by cell, with the prepared figures that follow from the GPU. Used
// only for the cell's request itself (`request`), never for a planner's
// variant of it.
struct CountShare {
    const Scenario* request = nullptr;  // the matrix's cell scenario
    int gpuClass = -1;                  // the column's group, set by the matrix per column
    int heldClass = -1;                 // the group `search` was worked out for (-1: none)
    Engine engine = Engine::Transformers;
    WeightFormat weights = WeightFormat::Bf16;
    KvFormat kvCache = KvFormat::Bf16;
    bool flashAttention = false;
    double memoryGib = 0, usableGiB = 0, allocatorReserve = 0, lossCopies = 0, generateReserve = 0;
    int gpusPerNode = 0, nvlinkMaxGpus = 0;
    bool supportsFp8 = false;
    CountSearch search;

    // Whether `search` was worked out for a cell the search cannot tell from `in`'s.
    bool holds(const sizing::Inputs& in) const;
    // Marks `search`, just worked out for `in`, as held for `in`'s cell.
    void keep(const sizing::Inputs& in);
};

// searchGpuCounts without a copy: the search shared through
// `in.countShare` where it applies, else worked out into `scratch`.
const CountSearch& searchGpuCounts(const sizing::Inputs& in, CountSearch& scratch);
// The search shared through `in.countShare` (worked out there if it does
// not hold yet), or null where none applies: a caller then makes its own
// (a CountSearch zero-fills its counts' bitset, so is made only then).
const CountSearch* sharedCountSearch(const sizing::Inputs& in);

// Per-GPU memory under `plan`, with the explanation when asked.
MemoryEstimate estimateMemory(const sizing::Inputs& in, const Plan& plan, bool withExplain);

}  // namespace caliper
