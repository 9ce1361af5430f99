#include "io/views_json.hpp"

namespace caliper::io {

Json limitsToJson(const Catalog&, const Json&) {
    fail("not_available", "", "limit queries are not available in this build");
}

}  // namespace caliper::io
