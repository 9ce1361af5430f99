#pragma once
// One workload over many models and GPUs: the recommendation matrix.
#include <optional>
#include <string>
#include <vector>

#include "caliper/result.hpp"
#include "caliper/scenario.hpp"

namespace caliper {

enum class CellStatus { Fits, FitsMulti, MultiNode, No };
const char* toString(CellStatus status);

struct MatrixCell {
    std::optional<int> gpusNeeded;
    bool fitsOne = false;
    double totalGiB = 0;  // per GPU, at gpusNeeded (or one GPU when none fits)
    std::optional<double> decodeTokensPerS;
    std::optional<double> prefillTokensPerS;
    std::optional<double> trainTokensPerS;
    std::optional<double> trainHours;
    std::optional<double> usdPerHour;
    std::optional<double> usdPerMillionTokens;
    std::optional<double> costUsd;
    CellStatus status = CellStatus::No;
    Strategy strategy = Strategy::Single;
    int nodes = 1;
    bool needsNvlink = false;  // the plan splits layers across GPUs every step (tensor parallel)
    // A non-LLM model's own figure (workloadCellFigure: audio seconds/s,
    // tokens/s, images/s or seconds per video); empty for LLMs.
    std::optional<double> workloadFigure;
    // With an SLO (the matrix's users-at-SLO mode): the concurrent users one
    // replica of gpusNeeded GPUs serves within it, as `caliper serve` sizes a
    // replica (0: one user already misses it); empty without an SLO or where
    // the engine does not batch continuously or the model does not fit.
    std::optional<double> usersAtSlo;
    // Fits by the estimate but not by its 80% memory band: the estimate's
    // fit "tight" (calibration/ranges.hpp), so the cell and the detail agree.
    bool tight = false;
};

struct Slo;

// The scenario's workload on `model` x `gpu`, with at most maxGpus GPUs.
// With `slo`, the cell also carries usersAtSlo.
MatrixCell evaluateCell(const Scenario& workload, const ModelSpec& model, const GpuSpec& gpu, int maxGpus,
                        const Slo* slo = nullptr);

// Every cell, cells[model][gpu]. Walks GPU by GPU with one reused scenario
// and copies of the entries without their descriptive text, so a cell costs
// the arithmetic and little else.
std::vector<std::vector<MatrixCell>> computeMatrix(const Scenario& workload,
                                                   const std::vector<const ModelSpec*>& models,
                                                   const std::vector<const GpuSpec*>& gpus, int maxGpus,
                                                   const Slo* slo = nullptr);

}  // namespace caliper
