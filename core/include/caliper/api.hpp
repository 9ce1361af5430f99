#pragma once
// Text in, text out: the one interface the command line, the WASM module and
// the tests share, so every door gives byte-identical JSON. Nothing here
// throws; rejected input comes back as {"ok":false,"error":{...}}.
#include <string>
#include <string_view>
#include <vector>

#include "caliper/catalog.hpp"

namespace caliper {

struct ApiResponse {
    std::string json;
    int status = 0;  // 0 ok, 2 input rejected, 1 internal failure (CLI exit status)
    std::vector<double> values;  // matrixValues: the cells as numbers (the text says how to read them)
};

// Reads data/gpus.json and data/models.json texts. Throws InputError whose
// path is prefixed by the file ("/gpus/12/bandwidth_gbps").
Catalog parseCatalog(std::string_view gpusJson, std::string_view modelsJson);

// Parses both catalog files into `catalog` and answers {"ok":true,"gpus":N,
// "models":M}; on bad data answers ok:false and leaves `catalog` unchanged.
ApiResponse loadCatalogJson(std::string_view gpusJson, std::string_view modelsJson, Catalog& catalog);

ApiResponse estimateJson(const Catalog& catalog, std::string_view requestJson, bool pretty = false);
ApiResponse matrixJson(const Catalog& catalog, std::string_view requestJson, bool pretty = false);
// The same matrix; with cells_layout "values" (only here) the cells come as
// numbers in `values`, described by the answer's "cell_values".
ApiResponse matrixValues(const Catalog& catalog, std::string_view requestJson);
ApiResponse recommendJson(const Catalog& catalog, std::string_view requestJson, bool pretty = false);
// Deployments that serve "users" (or "request_rate_per_s") within an "slo",
// ranked by price, with the frontier ("curve") of the first (CONTRACT v2).
ApiResponse serveJson(const Catalog& catalog, std::string_view requestJson, bool pretty = false);
ApiResponse inventoryJson(const Catalog& catalog, std::string_view requestJson, bool pretty = false);
ApiResponse limitsJson(const Catalog& catalog, std::string_view requestJson, bool pretty = false);
ApiResponse listGpusJson(const Catalog& catalog, bool pretty = false);
ApiResponse listModelsJson(const Catalog& catalog, bool pretty = false);
ApiResponse caveatsJson(const Catalog& catalog, bool pretty = false);
// The interface's vocabulary: enum names, defaults per task, limits, presets,
// matrix cell fields, warning and error codes (docs/CONTRACT.md "Describe").
ApiResponse describeJson(const Catalog& catalog, bool pretty = false);

std::string versionString(const Catalog& catalog);

}  // namespace caliper
