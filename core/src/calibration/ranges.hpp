#pragma once
// The bands on a result's figures and its three-way fit verdict.
#include "caliper/result.hpp"
#include "caliper/scenario.hpp"

#include <optional>

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

}  // namespace caliper
