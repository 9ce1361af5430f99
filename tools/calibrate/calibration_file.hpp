#pragma once
// The calibration's files: data/calibration.json (constants and bands, built
// into the engine) and data/calibration-rows.json (the ids of the rows each
// fitted constant rests on, the accuracy per kind they give, rows per source).
#include <iosfwd>
#include <string>
#include <vector>

#include "cross_validation.hpp"

namespace caliper::calibrate {

std::string calibrationJson(const RowSet& set, const CrossReport& report);
std::string calibrationRowsJson(const CrossReport& report);

// The per-kind table `caliper validate --cross` prints: in-sample beside
// leave-one-source-out, with the bands' coverage of left-out rows.
std::string crossValidationTable(const RowSet& set, const CrossReport& report);

// `caliper validate --cross FILE...`: reads the files, fits from the code's
// priors with every source left out in turn, prints the table; exit status.
int runCrossValidation(const Catalog& catalog, const std::vector<std::string>& paths, std::ostream& out,
                       std::ostream& err);

}  // namespace caliper::calibrate
