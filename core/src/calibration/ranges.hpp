#pragma once
// The bands on a result's figures and its three-way fit verdict.
#include "caliper/result.hpp"
#include "caliper/scenario.hpp"

namespace caliper {

// Fills r.ranges for every speed and memory figure the result has, from
// the calibration's band for the figure's kind on this engine and GPU
// family, and r.fitVerdict: "no" when the estimate does not fit, "tight"
// when it fits but the top of its memory band does not, else "fits".
void applyCalibrationBands(const Scenario& scenario, EstimateResult& r);

}  // namespace caliper
