// The WASM module: strings in, strings out, or the same as UTF-8 bytes in
// its memory (see API.md). Holds the one loaded catalog; every call goes
// through the core's api layer, which catches everything, so nothing throws
// into JavaScript.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <new>
#include <optional>
#include <string>
#include <vector>

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

// The byte door (API.md): the same calls with their texts passed as UTF-8
// bytes in the module's memory. Embind's std::string conversion walks every
// byte in JavaScript (twice on the way out): tens of milliseconds for the
// catalog (370 KB) or a whole-catalog matrix (870 KB) before the browser has
// optimised that code. The page encodes and decodes with TextEncoder and
// TextDecoder instead, natively.
std::string textInputs[2];      // the request, or the two catalog texts
std::string lastAnswer;         // valid until the next call
std::vector<double> lastValues;  // a matrix's cells as numbers (cells_layout "values")

// Far above the largest text the engine accepts (a 16 MiB catalog), so the
// engine itself reports texts just over its limits; beyond this the door
// refuses to allocate (null) and the page reports too_large.
constexpr std::size_t kMaxTextInputBytes = 64u << 20;

emscripten::val bytesOf(std::string& text) {
    return emscripten::val(
        emscripten::typed_memory_view(text.size(), reinterpret_cast<const unsigned char*>(text.data())));
}

// A buffer of `bytes` bytes for input `slot` (0 or 1), to be filled by the caller.
emscripten::val textInput(int slot, double bytes) {
    if ((slot != 0 && slot != 1) || !(bytes >= 0) || bytes > static_cast<double>(kMaxTextInputBytes)) {
        return emscripten::val::null();
    }
    std::string& buffer = textInputs[slot];
    try {
        buffer.assign(static_cast<std::size_t>(bytes), '\0');
    } catch (const std::bad_alloc&) {  // the memory cannot grow that far
        buffer = std::string();
        return emscripten::val::null();
    }
    return bytesOf(buffer);
}

std::string callByName(const std::string& name) {
    if (name == "loadCatalog") return loadCatalog(textInputs[0], textInputs[1]);
    if (name == "estimate") return withRequest<caliper::estimateJson>(textInputs[0]);
    if (name == "matrix") {
        if (!loadedCatalog) return kNoCatalog;
        caliper::ApiResponse response = caliper::matrixValues(*loadedCatalog, textInputs[0]);
        lastValues = std::move(response.values);
        return std::move(response.json);
    }
    if (name == "recommend") return withRequest<caliper::recommendJson>(textInputs[0]);
    if (name == "serve") return withRequest<caliper::serveJson>(textInputs[0]);
    if (name == "inventory") return withRequest<caliper::inventoryJson>(textInputs[0]);
    if (name == "limits") return withRequest<caliper::limitsJson>(textInputs[0]);
    if (name == "listGpus") return listing<caliper::listGpusJson>();
    if (name == "listModels") return listing<caliper::listModelsJson>();
    if (name == "caveats") return listing<caliper::caveatsJson>();
    return R"({"ok":false,"error":{"code":"unknown_function","message":"no engine function by that name","path":""}})";
}

// Runs `name` on the inputs; the answer's UTF-8 bytes, valid until the next call.
emscripten::val callText(const std::string& name) {
    lastValues.clear();
    lastAnswer = callByName(name);
    return bytesOf(lastAnswer);
}

// The last matrix's cells as numbers (a Float64Array over the module's
// memory, valid until the next call; empty unless it asked for "values").
emscripten::val cellValues() {
    return emscripten::val(emscripten::typed_memory_view(lastValues.size(), lastValues.data()));
}

}  // namespace

EMSCRIPTEN_BINDINGS(caliper) {
    emscripten::function("loadCatalog", &loadCatalog);
    emscripten::function("estimate", &withRequest<caliper::estimateJson>);
    emscripten::function("matrix", &withRequest<caliper::matrixJson>);
    emscripten::function("recommend", &withRequest<caliper::recommendJson>);
    emscripten::function("serve", &withRequest<caliper::serveJson>);
    emscripten::function("inventory", &withRequest<caliper::inventoryJson>);
    emscripten::function("limits", &withRequest<caliper::limitsJson>);
    emscripten::function("listGpus", &listing<caliper::listGpusJson>);
    emscripten::function("listModels", &listing<caliper::listModelsJson>);
    emscripten::function("caveats", &listing<caliper::caveatsJson>);
    emscripten::function("version", &version);
    emscripten::function("textInput", &textInput);
    emscripten::function("callText", &callText);
    emscripten::function("cellValues", &cellValues);
}
