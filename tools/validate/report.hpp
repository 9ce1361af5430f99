#pragma once
// `caliper validate FILE.jsonl...`: scores the engine against measured rows.
#include <iosfwd>
#include <string>
#include <vector>

#include "caliper/catalog.hpp"

namespace caliper::cli {

// Scores the rows of every file as one set and prints the score tables to out (with everyRow, also every scored row,
// worst first); returns the exit status.
int runValidate(const Catalog& catalog, const std::vector<std::string>& paths, bool everyRow, std::ostream& out, std::ostream& err);

// Prints, for every row of the files, one JSON line: {"id", "request"} with the request that reproduces the row's
// setup, or {"id", "unexpressible"} with the reason; returns the exit status.
int printRowRequests(const Catalog& catalog, const std::vector<std::string>& paths, std::ostream& out, std::ostream& err);

}  // namespace caliper::cli
