// Numbers for messages: warnings, reasons and notes read by people.
#pragma once

#include <string>

namespace caliper {

// "1,234", "1,234.5": the value with thousands separators and the given
// number of decimals (no locale, so the text is the same on every machine).
std::string groupedNumber(double value, int decimals);

}  // namespace caliper
