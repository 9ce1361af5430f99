#pragma once
// One entry point per fuzz target: the fuzzer calls it on every generated
// input and aborts on a non-empty answer; the Catch2 replay calls it on the
// committed inputs of tests/fuzz/regressions/<target>/ and corpus/<target>/.
#include <string>
#include <string_view>

#include "caliper/model.hpp"
#include "fuzz_checks.hpp"
#include "json/hf_config/hf_config.hpp"

namespace caliper::fuzz {

// A small valid catalog file: the first `count` entries of the full one.
inline std::string catalogSlice(std::string_view fullText, const char* listKey, std::size_t count) {
    Json root = Json::parse(fullText);
    Json& list = root[listKey];
    if (list.size() > count) list.erase(list.begin() + static_cast<std::ptrdiff_t>(count), list.end());
    return root.dump();
}

struct CatalogSlices {
    std::string gpus;    // gpus.json with two GPUs
    std::string models;  // models.json with two models
};

// A catalog that loads must serve requests: every id finds its own entry,
// and the first model on its first GPUs gives a checked estimate.
inline std::string checkLoadedCatalog(const Catalog& catalog) {
    for (const auto& gpu : catalog.gpus) {
        if (findGpu(catalog, gpu.id) != &gpu) return "GPU id '" + gpu.id + "' does not find its entry";
    }
    for (const auto& model : catalog.models) {
        if (findModel(catalog, model.id) != &model) return "model id '" + model.id + "' does not find its entry";
    }
    if (catalog.models.empty()) return "";
    for (std::size_t g = 0; g < catalog.gpus.size() && g < 3; ++g) {
        for (const char* task : {"inference", "finetune"}) {
            const Json request = {{"model", catalog.models[0].id}, {"gpu", catalog.gpus[g].id},
                                  {"gpu_count", "auto"},            {"task", task}};
            std::string problem = checkEstimateInput(catalog, request.dump());
            if (!problem.empty()) return "on the loaded catalog, " + request.dump() + ": " + problem;
        }
    }
    return "";
}

// The text as gpus.json beside a valid models.json, then as models.json
// beside a valid gpus.json.
inline std::string checkCatalogInput(std::string_view text, const CatalogSlices& slices) {
    for (const bool asModels : {false, true}) {
        Catalog catalog;
        const ApiResponse response = asModels ? loadCatalogJson(slices.gpus, text, catalog)
                                              : loadCatalogJson(text, slices.models, catalog);
        std::string problem = checkResponse(response);
        if (problem.empty() && response.status != 0 && !catalog.gpus.empty()) {
            problem = "a refused catalog was loaded";
        }
        if (problem.empty() && response.status == 0) problem = checkLoadedCatalog(catalog);
        if (!problem.empty()) return (asModels ? "as models.json: " : "as gpus.json: ") + problem;
    }
    return "";
}

// The text as a config.json: read directly (every count finite and
// non-negative, or an invalid_config error under /model), then as the
// model of an estimate request.
inline std::string checkHfConfigInput(const Catalog& catalog, std::string_view text) {
    try {
        const Json config = io::parseJsonText(text, "/model", io::kMaxRequestBytes);
        std::vector<Warning> warnings;
        try {
            const ModelSpec model = io::modelFromHfConfig(config, "/model", &warnings);
            const ParamCounts p = countParams(model);
            for (double v : {p.total, p.active, p.embedding, p.linear, p.expert, p.largestLinear,
                             kvBytesPerToken16(model)}) {
                if (!std::isfinite(v) || v < 0) return "config read into a count of " + std::to_string(v);
            }
            if (p.active > p.total * (1 + 1e-9)) return "more active than total parameters";
        } catch (const InputError& e) {
            if (e.error().code.empty() || e.error().path.rfind("/model", 0) != 0) {
                return "config error without code or /model pointer: " + e.error().path;
            }
        }
    } catch (const InputError&) {
        // Not JSON, or over a limit: the request below must be refused as well.
    } catch (const std::exception& e) {
        return std::string("exception reading a config: ") + e.what();
    }
    const std::string request = R"({"gpu":"h100-sxm5-80gb","model":)" + std::string(text) + "}";
    return checkEstimateInput(catalog, request);
}

// "<call>\n<request>": the request through matrixJson, recommendJson,
// inventoryJson, limitsJson or serveJson (an unknown call name picks one by length).
inline std::string checkEstimatePathsInput(const Catalog& catalog, std::string_view text) {
    using Call = ApiResponse (*)(const Catalog&, std::string_view, bool);
    static const std::pair<std::string_view, Call> kCalls[] = {
        {"matrix", &matrixJson},  {"recommend", &recommendJson}, {"inventory", &inventoryJson},
        {"limits", &limitsJson}, {"serve", &serveJson}};
    const std::size_t newline = text.find('\n');
    const std::string_view name = newline == std::string_view::npos ? std::string_view() : text.substr(0, newline);
    const std::string_view request = newline == std::string_view::npos ? text : text.substr(newline + 1);
    Call call = kCalls[name.size() % (sizeof kCalls / sizeof kCalls[0])].second;
    for (const auto& [known, function] : kCalls) {
        if (name == known) call = function;
    }
    return checkResponse(call(catalog, request, false));
}

}  // namespace caliper::fuzz
