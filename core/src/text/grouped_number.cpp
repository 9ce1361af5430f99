#include "text/grouped_number.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace caliper {

std::string groupedNumber(double value, int decimals) {
    char text[64];
    std::snprintf(text, sizeof text, "%.*f", decimals, std::fabs(value));
    std::string digits = text;
    const std::size_t point = std::min(digits.find('.'), digits.size());
    for (std::size_t at = point; at > 3; at -= 3) digits.insert(at - 3, ",");
    return (value < 0 ? "-" : "") + digits;
}

}  // namespace caliper
