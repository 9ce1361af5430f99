#include "caliper/engine/matrix.hpp"

#include "caliper/engine/estimate.hpp"

namespace caliper {

const char* toString(CellStatus status) {
    switch (status) {
        case CellStatus::Fits: return "fits";
        case CellStatus::FitsMulti: return "fits-multi";
        case CellStatus::MultiNode: return "multi-node";
        case CellStatus::No: return "no";
    }
    return "";
}

namespace {

// The figures of one cell for a scenario whose model and GPU are set.
MatrixCell cellOf(const Scenario& s, int maxGpus) {
    const EstimateResult r = estimate(s, EstimateDetail{false, false, false});
    MatrixCell cell;
    cell.gpusNeeded = r.gpusNeeded;
    cell.fitsOne = r.gpusNeeded && *r.gpusNeeded == 1;
    cell.totalGiB = r.memory.totalGiB;
    cell.strategy = r.plan.strategy;
    cell.nodes = r.plan.nodes;
    cell.needsNvlink = r.plan.tp > 1;
    if (!r.gpusNeeded || *r.gpusNeeded > maxGpus) {
        cell.status = CellStatus::No;
        return cell;
    }
    cell.status = cell.fitsOne ? CellStatus::Fits : r.plan.nodes > 1 ? CellStatus::MultiNode : CellStatus::FitsMulti;
    cell.decodeTokensPerS = r.decodeTokensPerS;
    cell.prefillTokensPerS = r.prefillTokensPerS;
    cell.trainTokensPerS = r.trainTokensPerS;
    cell.trainHours = r.trainHours;
    cell.usdPerHour = r.usdPerHour;
    cell.usdPerMillionTokens = r.usdPerMillionTokens;
    cell.costUsd = r.costUsd;
    return cell;
}

// The engine reads figures only; names, aliases, sources and notes would
// cost an allocation each on every copy.
template <class Entry>
Entry withoutText(const Entry& entry) {
    Entry lean = entry;
    lean.aliases.clear();
    lean.sources.clear();
    lean.notes.clear();
    return lean;
}

}  // namespace

MatrixCell evaluateCell(const Scenario& workload, const ModelSpec& model, const GpuSpec& gpu, int maxGpus) {
    Scenario s = workload;
    s.model = model;
    s.gpu = gpu;
    s.gpuCountAuto = true;
    adaptToGpu(s);
    return cellOf(s, maxGpus);
}

std::vector<std::vector<MatrixCell>> computeMatrix(const Scenario& workload,
                                                   const std::vector<const ModelSpec*>& models,
                                                   const std::vector<const GpuSpec*>& gpus, int maxGpus) {
    std::vector<std::vector<MatrixCell>> cells(models.size(), std::vector<MatrixCell>(gpus.size()));
    std::vector<ModelSpec> leanModels;
    leanModels.reserve(models.size());
    for (const ModelSpec* m : models) leanModels.push_back(withoutText(*m));
    Scenario s = workload;
    s.gpuCountAuto = true;
    for (std::size_t g = 0; g < gpus.size(); ++g) {
        s.gpu = withoutText(*gpus[g]);
        s.gpu.caveats.clear();
        adaptToGpu(s);
        for (std::size_t m = 0; m < leanModels.size(); ++m) {
            s.model = leanModels[m];
            cells[m][g] = cellOf(s, maxGpus);
        }
    }
    return cells;
}

}  // namespace caliper
