#include "io/views_json.hpp"

namespace caliper::io {

Json inventoryToJson(const Catalog&, const Json&) {
    fail("not_available", "", "inventory queries are not available in this build");
}

}  // namespace caliper::io
