#pragma once
// Requests over many scenarios: the matrix, recommendations, an owned
// inventory, and the inverse questions (limits).
#include "caliper/catalog.hpp"
#include "io/json_read.hpp"

namespace caliper::io {

Json matrixToJson(const Catalog& catalog, const Json& request);
Json recommendToJson(const Catalog& catalog, const Json& request);
Json inventoryToJson(const Catalog& catalog, const Json& request);
Json limitsToJson(const Catalog& catalog, const Json& request);

}  // namespace caliper::io
