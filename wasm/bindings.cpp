// The WASM module: strings in, strings out, or the same as UTF-8 bytes in
// its memory (see API.md). Holds the one loaded catalog; every call goes
// through the core's api layer, which catches everything, so nothing throws
// into JavaScript.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "caliper/api.hpp"

namespace {

std::optional<caliper::Catalog> loadedCatalog;

const char* const kNoCatalog =
    R"({"ok":false,"error":{"code":"no_catalog","message":"call loadCatalog first","path":""}})";

// The inputs of a call: a request, or the two catalog texts.
struct Inputs {
    const std::string& first;
    const std::string& second;
};

std::vector<double> lastValues;  // a matrix's cells as numbers (cells_layout "values")

std::string loadCatalog(const Inputs& in) {
    caliper::Catalog catalog;
    caliper::ApiResponse response = caliper::loadCatalogJson(in.first, in.second, catalog);
    if (response.status == 0) loadedCatalog = std::move(catalog);
    return response.json;
}

template <caliper::ApiResponse (*Call)(const caliper::Catalog&, std::string_view, bool)>
std::string withRequest(const Inputs& in) {
    return loadedCatalog ? Call(*loadedCatalog, in.first, false).json : kNoCatalog;
}

template <caliper::ApiResponse (*Call)(const caliper::Catalog&, bool)>
std::string listing(const Inputs&) {
    return loadedCatalog ? Call(*loadedCatalog, false).json : kNoCatalog;
}

// The matrix through the byte door: cells_layout "values" leaves the
// numbers for cellValues().
std::string matrixWithValues(const Inputs& in) {
    if (!loadedCatalog) return kNoCatalog;
    caliper::ApiResponse response = caliper::matrixValues(*loadedCatalog, in.first);
    lastValues = std::move(response.values);
    return std::move(response.json);
}

// Every call, once: its name, how many texts it takes, and what the string
// door and the byte door run (the byte door's matrix also takes numbers).
struct Call {
    const char* name;
    int texts;
    std::string (*run)(const Inputs&);
    std::string (*runBytes)(const Inputs&);
};

constexpr Call kCalls[] = {
    {"loadCatalog", 2, &loadCatalog, &loadCatalog},
    {"estimate", 1, &withRequest<caliper::estimateJson>, &withRequest<caliper::estimateJson>},
    {"matrix", 1, &withRequest<caliper::matrixJson>, &matrixWithValues},
    {"recommend", 1, &withRequest<caliper::recommendJson>, &withRequest<caliper::recommendJson>},
    {"serve", 1, &withRequest<caliper::serveJson>, &withRequest<caliper::serveJson>},
    {"inventory", 1, &withRequest<caliper::inventoryJson>, &withRequest<caliper::inventoryJson>},
    {"limits", 1, &withRequest<caliper::limitsJson>, &withRequest<caliper::limitsJson>},
    {"listGpus", 0, &listing<caliper::listGpusJson>, &listing<caliper::listGpusJson>},
    {"listModels", 0, &listing<caliper::listModelsJson>, &listing<caliper::listModelsJson>},
    {"caveats", 0, &listing<caliper::caveatsJson>, &listing<caliper::caveatsJson>},
    {"describe", 0, &listing<caliper::describeJson>, &listing<caliper::describeJson>},
};

// The string door: engine.estimate(text), engine.loadCatalog(gpus, models), ...
template <std::size_t I>
std::string stringCall0() {
    const std::string none;
    return kCalls[I].run({none, none});
}
template <std::size_t I>
std::string stringCall1(const std::string& first) {
    const std::string none;
    return kCalls[I].run({first, none});
}
template <std::size_t I>
std::string stringCall2(const std::string& first, const std::string& second) {
    return kCalls[I].run({first, second});
}

template <std::size_t I>
void registerCall() {
    if constexpr (I < std::size(kCalls)) {
        switch (kCalls[I].texts) {
            case 0: emscripten::function(kCalls[I].name, &stringCall0<I>); break;
            case 1: emscripten::function(kCalls[I].name, &stringCall1<I>); break;
            default: emscripten::function(kCalls[I].name, &stringCall2<I>); break;
        }
        registerCall<I + 1>();
    }
}

std::string version() { return loadedCatalog ? caliper::versionString(*loadedCatalog) : "caliper (no catalog)"; }

// The byte door (API.md): the same calls with their texts passed as UTF-8
// bytes in the module's memory. Embind's std::string conversion walks every
// byte in JavaScript (twice on the way out): tens of milliseconds for the
// catalog (370 KB) or a whole-catalog matrix (870 KB) before the browser has
// optimised that code. The page encodes and decodes with TextEncoder and
// TextDecoder instead, natively.
std::string textInputs[2];  // the request, or the two catalog texts
std::string lastAnswer;     // valid until the next call

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
    for (const Call& call : kCalls) {
        if (name == call.name) return call.runBytes({textInputs[0], textInputs[1]});
    }
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
    registerCall<0>();
    emscripten::function("version", &version);
    emscripten::function("textInput", &textInput);
    emscripten::function("callText", &callText);
    emscripten::function("cellValues", &cellValues);
}
