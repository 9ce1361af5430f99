#pragma once
// Requests over many scenarios: the matrix, recommendations, an owned
// inventory, and the inverse questions (limits).
#include <string>
#include <vector>

#include "caliper/answers/presets.hpp"
#include "caliper/catalog.hpp"
#include "caliper/serving/serve.hpp"
#include "json/json_read.hpp"

namespace caliper::io {

// The matrix as text: thousands of cells are written directly, without a
// JSON object per cell (pretty output goes through nlohmann).
// values: where the caller takes the cells as numbers (cells_layout
// "values"), else nullptr and that layout is refused.
std::string matrixText(const Catalog& catalog, const Json& request, bool pretty, std::vector<double>* values);
Json recommendToJson(const Catalog& catalog, const Json& request);
Json inventoryToJson(const Catalog& catalog, const Json& request);
Json limitsToJson(const Catalog& catalog, const Json& request);
Json serveToJson(const Catalog& catalog, const Json& request);  // serve_json.cpp
Json sloToJson(const Slo& slo);  // serve_json.cpp: every target, null where unset
// The request's "slo" object (serve, recommend, the matrix's users-at-SLO
// mode); empty targets when absent.
Slo readSlo(ObjectReader& request);
// The "slo" of a request that judges plans against it (the matrix's
// users-at-SLO mode, an estimate): absent, or targets on an inference task
// (invalid_value at /slo otherwise). Without a target: missing_key where
// targetRequired (the matrix's mode asks for one), else as if absent (the
// contract's scenario shape lists every target as null).
std::optional<Slo> readPlanSlo(ObjectReader& request, Task task, bool targetRequired);

// The matrix cell's fields, in the order the cells and the "values" layout write them.
Json matrixCellFields();
// The request keys a preset fills (recommend's "preset"), with the catalog
// model it sizes for when the catalog has one.
Json presetRequest(const Catalog& catalog, const Preset& preset);
// The interface's vocabulary (docs/CONTRACT.md "Describe").
Json describeToJson(const Catalog& catalog);

}  // namespace caliper::io
