#pragma once
// data/calibration.json (written by tools/calibrate) -> CalibrationTable.
#include <string_view>

#include "calibration/calibration.hpp"

namespace caliper::io {

// Throws std::runtime_error naming the bad entry. Entries apply from the
// least to the most specific group, so a group's own fit overrides the
// family's and the engine's it falls back to.
CalibrationTable parseCalibrationTable(std::string_view text);

}  // namespace caliper::io
