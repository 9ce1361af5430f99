#include "validate.hpp"

#include <ostream>

namespace caliper::cli {

int runValidate(const Catalog&, const std::string&, std::ostream&, std::ostream& err) {
    err << "caliper: validate is not available in this build\n";
    return 1;
}

}  // namespace caliper::cli
