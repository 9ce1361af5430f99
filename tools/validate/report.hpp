#pragma once
// `caliper validate FILE.jsonl`: scores the engine against measured rows.
#include <iosfwd>
#include <string>

#include "caliper/catalog.hpp"

namespace caliper::cli {

// Prints the score tables to out (with everyRow, also every scored row,
// worst first); returns the exit status.
int runValidate(const Catalog& catalog, const std::string& path, bool everyRow, std::ostream& out, std::ostream& err);

}  // namespace caliper::cli
