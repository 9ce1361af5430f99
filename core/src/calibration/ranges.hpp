#pragma once
// The bands on a result's figures and its three-way fit verdict.
#include "caliper/result.hpp"
#include "caliper/scenario.hpp"

#include <optional>
#include <vector>

#include "caliper/serving/serve.hpp"
#include "caliper/serving/serving.hpp"

namespace caliper {

// Fills r.ranges for every speed and memory figure the result has, from
// the calibration's band for the figure's kind on this engine and GPU
// family, and r.fitVerdict: "no" when the estimate does not fit, "tight"
// when it fits but the top of its memory band does not, else "fits".
void applyCalibrationBands(const Scenario& scenario, EstimateResult& r);

// What the top of the memory band multiplies an estimated total by, from
// the calibration's band for the scenario's task, engine and GPU family;
// none where the calibration has no band. The same for every plan of one
// scenario, so the matrix looks it up once per GPU column.
std::optional<double> memoryBandTopFactor(const Scenario& scenario);

// Whether a plan that fits is "tight": the top of its memory band passes the
// usable memory. A pre-allocated KV pool (kvPool) fills the GPU by design
// and has no band, as in applyCalibrationBands.
bool tightFit(double totalGiB, bool kvPool, double usableGiB, const std::optional<double>& topFactor);

// The 80% bands of one deployment's serving figures on `gpu`, from the same
// serving_ttft / serving_tpot bands applyCalibrationBands gives the single
// estimate: "serving.ttft_s" and "serving.tpot_ms" as there, and the figures
// that follow from TPOT (tokens/s per user = 1 / TPOT, per GPU and in all =
// concurrency / TPOT, so the TPOT band inverted) under the names the
// deployment gives them: "serving.user_tokens_per_s",
// "serving.output_tokens_per_s", "serving.output_tokens_per_s_per_gpu".
std::vector<FigureRange> servingRanges(const Scenario& workload, const GpuSpec& gpu, const ServingFigures& f);

// The SLO the estimate must meet for the slow end of those bands (the
// highest TTFT and TPOT, the lowest tokens/s per user) to meet `slo`: each
// band is the estimate times a factor, so each target is divided (TTFT,
// TPOT) or multiplied (tokens/s per user) by its factor. None where the
// calibration has no serving band on this engine and GPU.
std::optional<Slo> sloAtSlowEnd(const Scenario& workload, const GpuSpec& gpu, const Slo& slo);

}  // namespace caliper
