#pragma once
// One workload over many models and GPUs: the recommendation matrix.
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "caliper/result.hpp"
#include "caliper/scenario.hpp"

namespace caliper {

enum class CellStatus { Fits, FitsMulti, MultiNode, No };
const char* toString(CellStatus status);

// A cell's figure that may be missing, in 8 bytes where
// std::optional<double> takes 16: a missing figure is kept as NaN, which no
// figure ever is (docs/CONTRACT.md: every figure is finite; the matrix's
// JSON writes a non-finite value as null either way). It reads like
// std::optional<double> and converts to and from it.
class CellFigure {
public:
    CellFigure() = default;
    CellFigure(std::nullopt_t) {}
    CellFigure(double value) : value_(value) {}
    CellFigure(const std::optional<double>& value) : value_(value ? *value : kMissing) {}
    bool has_value() const { return !std::isnan(value_); }
    explicit operator bool() const { return has_value(); }
    double operator*() const { return value_; }
    double value_or(double fallback) const { return has_value() ? value_ : fallback; }
    operator std::optional<double>() const { return has_value() ? std::optional<double>(value_) : std::nullopt; }

private:
    static constexpr double kMissing = std::numeric_limits<double>::quiet_NaN();
    double value_ = kMissing;
};

// The small fields come first and the figures take 8 bytes each: a cell
// is 104 bytes (184 with std::optional figures in declaration order), and a
// whole-catalog matrix writes 36,000 of them into fresh memory, a page
// fault every 4 KiB.
struct MatrixCell {
    std::optional<int> gpusNeeded;
    // The GPUs of the cell's plan, those its figures are for: the objective
    // may choose more than gpusNeeded within the limit (TP 8 where PP 7 fits
    // on 7). Empty where the cell is `no`.
    std::optional<int> gpuCount;
    CellStatus status = CellStatus::No;
    Strategy strategy = Strategy::Single;
    int nodes = 1;
    bool fitsOne = false;
    bool needsNvlink = false;  // the plan splits layers across GPUs every step (tensor parallel)
    // Fits by the estimate but not by its 80% memory band: the estimate's
    // fit "tight" (calibration/ranges.hpp), so the cell and the detail agree.
    bool tight = false;
    // The users-at-SLO figure is with FP8 weights and/or KV cache where the
    // request left a 16-bit format open and the GPU has FP8 (more users).
    bool usersAtSloFp8 = false;
    double totalGiB = 0;  // per GPU, at gpusNeeded (or one GPU when none fits)
    CellFigure decodeTokensPerS;
    CellFigure prefillTokensPerS;
    CellFigure trainTokensPerS;
    CellFigure trainHours;
    CellFigure usdPerHour;
    CellFigure usdPerMillionTokens;
    CellFigure costUsd;
    // A non-LLM model's own figure (workloadCellFigure: audio seconds/s,
    // tokens/s, images/s or seconds per video); empty for LLMs.
    CellFigure workloadFigure;
    // With an SLO (the matrix's users-at-SLO mode): the concurrent users one
    // replica of gpusNeeded GPUs serves within it, as `caliper serve` sizes a
    // replica (0: one user already misses it); empty without an SLO or where
    // the engine does not batch continuously or the model does not fit. As
    // `caliper serve` does, it also tries FP8 in every format the request
    // left open at 16 bits (usersAtSloFp8 says when that served more).
    CellFigure usersAtSlo;
    // The users at the slow end of the serving bands (the highest TTFT and
    // TPOT, the lowest tokens/s per user of their 80% bands), as `caliper
    // serve`'s slo_margin holds the SLO: usersAtSlo's low end. Below
    // usersAtSlo, that many users meet the SLO by the estimate only
    // ("tight"); empty where usersAtSlo is or the calibration has no band.
    CellFigure usersAtSloLow;
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

// The same into `cells`, whose rows' memory is reused: a caller that works
// out matrix after matrix (a server, the bench) keeps one buffer, where
// fresh memory for tens of thousands of cells costs a page fault every 4 KiB
// (a tenth of a whole-catalog pass natively).
void computeMatrix(const Scenario& workload, const std::vector<const ModelSpec*>& models,
                   const std::vector<const GpuSpec*>& gpus, int maxGpus, const Slo* slo,
                   std::vector<std::vector<MatrixCell>>& cells);

}  // namespace caliper
