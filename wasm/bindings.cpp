// The WASM module: strings in, strings out (see API.md). Holds the one
// loaded catalog; every call goes through the core's api layer, which
// catches everything, so nothing throws into JavaScript.
#include <emscripten/bind.h>

#include <optional>
#include <string>

#include "caliper/api.hpp"

namespace {

std::optional<caliper::Catalog> loadedCatalog;

const char* const kNoCatalog =
    R"({"ok":false,"error":{"code":"no_catalog","message":"call loadCatalog first","path":""}})";

std::string loadCatalog(const std::string& gpusJson, const std::string& modelsJson) {
    caliper::Catalog catalog;
    caliper::ApiResponse response = caliper::loadCatalogJson(gpusJson, modelsJson, catalog);
    if (response.status == 0) loadedCatalog = std::move(catalog);
    return response.json;
}

template <caliper::ApiResponse (*Call)(const caliper::Catalog&, std::string_view, bool)>
std::string withRequest(const std::string& request) {
    return loadedCatalog ? Call(*loadedCatalog, request, false).json : kNoCatalog;
}

template <caliper::ApiResponse (*Call)(const caliper::Catalog&, bool)>
std::string listing() {
    return loadedCatalog ? Call(*loadedCatalog, false).json : kNoCatalog;
}

std::string version() { return loadedCatalog ? caliper::versionString(*loadedCatalog) : "caliper (no catalog)"; }

}  // namespace

EMSCRIPTEN_BINDINGS(caliper) {
    emscripten::function("loadCatalog", &loadCatalog);
    emscripten::function("estimate", &withRequest<caliper::estimateJson>);
    emscripten::function("matrix", &withRequest<caliper::matrixJson>);
    emscripten::function("recommend", &withRequest<caliper::recommendJson>);
    emscripten::function("inventory", &withRequest<caliper::inventoryJson>);
    emscripten::function("limits", &withRequest<caliper::limitsJson>);
    emscripten::function("listGpus", &listing<caliper::listGpusJson>);
    emscripten::function("listModels", &listing<caliper::listModelsJson>);
    emscripten::function("caveats", &listing<caliper::caveatsJson>);
    emscripten::function("version", &version);
}
