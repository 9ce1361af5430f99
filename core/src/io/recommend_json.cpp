#include "io/views_json.hpp"

namespace caliper::io {

Json recommendToJson(const Catalog&, const Json&) {
    fail("not_available", "", "recommendations are not available in this build");
}

}  // namespace caliper::io
