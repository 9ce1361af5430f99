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

MatrixCell evaluateCell(const Scenario& workload, const ModelSpec& model, const GpuSpec& gpu, int maxGpus) {
    Scenario s = workload;
    s.model = model;
    s.gpu = gpu;
    s.gpuCountAuto = true;
    adaptToGpu(s);

    const EstimateResult r = estimate(s, EstimateDetail{false, false});
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

}  // namespace caliper
