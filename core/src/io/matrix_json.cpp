// The matrix request: a scenario whose model and gpu are lists (or "all"),
// with filters; the result holds cells[model_index][gpu_index].
#include <algorithm>
#include <cctype>
#include <cmath>
#include <deque>

#include "caliper/engine/matrix.hpp"
#include "io/gpu_selection.hpp"
#include "io/result_json.hpp"
#include "io/scenario_json.hpp"
#include "io/views_json.hpp"

namespace caliper::io {

namespace {

// Default GPU count limit of a matrix: one 8-GPU node, as the source
// documents' tables assume; the page lets users raise it.
constexpr int kDefaultMatrixMaxGpus = 8;

bool containsText(const std::string& haystack, const std::string& needle) {
    return normalizeName(haystack).find(normalizeName(needle)) != std::string::npos;
}

template <class Entry, class Resolve>
std::vector<const Entry*> pickEntries(const std::vector<Entry>& all, const Json* value, const std::string& path,
                                      Resolve resolve) {
    std::vector<const Entry*> picked;
    if (!value || value->is_null() || (value->is_string() && value->get<std::string>() == "all")) {
        for (const auto& e : all) picked.push_back(&e);
        return picked;
    }
    if (value->is_string() || value->is_object()) {
        picked.push_back(resolve(*value, path));
        return picked;
    }
    if (!value->is_array()) failType("invalid_value", path, "\"all\", an id, or a list of ids and objects", *value);
    if (value->size() > 10000) fail("too_large", path, "more than 10000 entries");
    for (std::size_t i = 0; i < value->size(); ++i) picked.push_back(resolve((*value)[i], childPath(path, i)));
    return picked;
}

struct ModelFilter {
    std::vector<std::string> families;
    std::optional<double> minParamsB, maxParamsB;
    std::string search;
    bool accepts(const ModelSpec& model) const {
        if (!families.empty() && std::find(families.begin(), families.end(), model.family) == families.end()) {
            return false;
        }
        const double paramsB = countParams(model).total / 1e9;
        if ((minParamsB && paramsB < *minParamsB) || (maxParamsB && paramsB > *maxParamsB)) return false;
        if (search.empty()) return true;
        if (containsText(model.id, search) || containsText(model.name, search) || containsText(model.hfId, search)) {
            return true;
        }
        return std::any_of(model.aliases.begin(), model.aliases.end(),
                           [&](const std::string& a) { return containsText(a, search); });
    }
};

ModelFilter readModelFilter(const Json& request) {
    ModelFilter f;
    auto it = request.find("model_filter");
    if (it == request.end() || it->is_null()) return f;
    ObjectReader r(*it, "/model_filter");
    f.families = r.stringList("families");
    f.minParamsB = r.optionalNumber("min_params_b", 0, 1e6);
    f.maxParamsB = r.optionalNumber("max_params_b", 0, 1e6);
    f.search = r.optionalString("search").substr(0, 200);
    r.finish();
    return f;
}

Json modelHeader(const ModelSpec& m) {
    const ParamCounts p = countParams(m);
    return {{"id", m.id},          {"name", m.name},     {"family", m.family}, {"params_b", tidy(p.total / 1e9)},
            {"active_params_b", tidy(p.active / 1e9)}, {"modality", m.modality}};
}

Json gpuHeader(const GpuSpec& g) {
    auto opt = [](const std::optional<double>& v) { return tidyOrNull(v); };
    return {{"id", g.id},
            {"name", g.name},
            {"class", g.gpuClass},
            {"vendor", g.vendor},
            {"market", g.market},
            {"group", gpuGroup(g)},
            {"memory_gib", tidy(g.memoryGib)},
            {"price_usd", opt(g.priceUsd)},
            {"price_cny", opt(g.priceCny)},
            {"cloud_usd_per_hour", opt(g.cloudUsdPerHour)},
            {"nvlink_gbps", tidy(g.nvlinkGbps)}};
}

// A figure as tidyOrNull(v).dump() writes it (nlohmann's shortest
// round-trip digits), without building a JSON value for it.
void appendNumber(std::string& out, const std::optional<double>& v) {
    if (!v || !std::isfinite(*v)) {
        out += "null";
        return;
    }
    char text[64];
    const char* end = nlohmann::detail::to_chars(text, text + sizeof text, tidy(*v));
    out.append(text, static_cast<std::size_t>(end - text));
}

void appendQuoted(std::string& out, const char* name) {
    out += '"';
    out += name;
    out += '"';
}

// A cell's fields, in key order (the order of nlohmann's objects), each with
// how its value is written. Both layouts write the cells from this table.
struct CellField {
    const char* key;
    void (*write)(std::string& out, const MatrixCell& c);
};

const CellField kCellFields[] = {
    {"cost_usd", [](std::string& o, const MatrixCell& c) { appendNumber(o, c.costUsd); }},
    {"decode_tokens_per_s", [](std::string& o, const MatrixCell& c) { appendNumber(o, c.decodeTokensPerS); }},
    {"fits_one", [](std::string& o, const MatrixCell& c) { o += c.fitsOne ? "true" : "false"; }},
    {"gpus_needed", [](std::string& o, const MatrixCell& c) { o += c.gpusNeeded ? std::to_string(*c.gpusNeeded) : "null"; }},
    {"needs_nvlink", [](std::string& o, const MatrixCell& c) { o += c.needsNvlink ? "true" : "false"; }},
    {"nodes", [](std::string& o, const MatrixCell& c) { o += std::to_string(c.nodes); }},
    {"prefill_tokens_per_s", [](std::string& o, const MatrixCell& c) { appendNumber(o, c.prefillTokensPerS); }},
    {"status", [](std::string& o, const MatrixCell& c) { appendQuoted(o, toString(c.status)); }},
    {"strategy", [](std::string& o, const MatrixCell& c) { appendQuoted(o, toString(c.strategy)); }},
    {"total_gib", [](std::string& o, const MatrixCell& c) { appendNumber(o, c.totalGiB); }},
    {"train_hours", [](std::string& o, const MatrixCell& c) { appendNumber(o, c.trainHours); }},
    {"train_tokens_per_s", [](std::string& o, const MatrixCell& c) { appendNumber(o, c.trainTokensPerS); }},
    {"usd_per_hour", [](std::string& o, const MatrixCell& c) { appendNumber(o, c.usdPerHour); }},
    {"usd_per_million_tokens", [](std::string& o, const MatrixCell& c) { appendNumber(o, c.usdPerMillionTokens); }},
};

// cells[model][gpu] as objects.
std::string cellsText(const std::vector<std::vector<MatrixCell>>& cells) {
    std::string out = "[";
    out.reserve(cells.size() * (cells.empty() ? 0 : cells[0].size()) * 330);
    for (std::size_t m = 0; m < cells.size(); ++m) {
        out += m ? ",[" : "[";
        for (std::size_t g = 0; g < cells[m].size(); ++g) {
            if (g) out += ',';
            char separator = '{';
            for (const CellField& f : kCellFields) {
                out += separator;
                separator = ',';
                appendQuoted(out, f.key);
                out += ':';
                f.write(out, cells[m][g]);
            }
            out += '}';
        }
        out += ']';
    }
    out += ']';
    return out;
}

// The cells as one array per field, each in row-major order (model by
// model, GPU by GPU): the same values as the cell objects in a third of
// the text, for callers that read many cells (the page).
std::string cellColumnsText(const std::vector<std::vector<MatrixCell>>& cells) {
    std::string out = "{";
    out.reserve(cells.size() * (cells.empty() ? 0 : cells[0].size()) * 110 + 400);
    for (const CellField& f : kCellFields) {
        if (out.size() > 1) out += ',';
        appendQuoted(out, f.key);
        out += ":[";
        bool first = true;
        for (const auto& row : cells) {
            for (const MatrixCell& c : row) {
                if (!first) out += ',';
                first = false;
                f.write(out, c);
            }
        }
        out += ']';
    }
    out += '}';
    return out;
}

}  // namespace

std::string matrixText(const Catalog& catalog, const Json& request, bool pretty) {
    std::vector<Warning> warnings;
    ScenarioOptions options;
    options.resolveModelAndGpu = false;
    options.extraKeys = {"max_gpus", "gpu_filter", "model_filter", "cells_layout"};
    const Scenario workload = scenarioFromJson(catalog, request, warnings, options);
    ObjectReader r(request, "");
    const int maxGpus = static_cast<int>(r.integerOr("max_gpus", kDefaultMatrixMaxGpus, 1, 1024));
    // "rows" (default): cells[model][gpu] objects; "columns": cell_columns,
    // one array per field in row-major order.
    const bool columns = r.enumOr("cells_layout", "rows", {"rows", "columns"}) == "columns";

    // Entries are catalog ids or, for a model the catalog lacks, objects (a
    // config.json, the catalog's shape); those live here.
    std::deque<ModelSpec> customModels;
    auto modelById = [&](const Json& v, const std::string& path) -> const ModelSpec* {
        if (v.is_string()) {
            if (const ModelSpec* m = findModel(catalog, v.get<std::string>())) return m;
        }
        customModels.push_back(resolveModel(catalog, v, path, warnings));  // or throws unknown_model
        return &customModels.back();
    };
    const auto modelFilter = readModelFilter(request);
    std::vector<const ModelSpec*> models;
    for (const ModelSpec* m : pickEntries(catalog.models, r.raw("model"), "/model", modelById)) {
        if (modelFilter.accepts(*m)) models.push_back(m);
    }
    r.ignore("gpu");
    const std::vector<GpuSpec> selectedGpus = selectGpus(catalog, request);
    std::vector<const GpuSpec*> gpus;
    for (const GpuSpec& g : selectedGpus) gpus.push_back(&g);

    Json out = {{"ok", true}, {"max_gpus", maxGpus}, {"cny_per_usd", tidy(workload.cnyPerUsd)}};
    Json modelList = Json::array();
    for (const ModelSpec* m : models) modelList.push_back(modelHeader(*m));
    Json gpuList = Json::array();
    for (const GpuSpec* g : gpus) gpuList.push_back(gpuHeader(*g));
    const auto cells = computeMatrix(workload, models, gpus, maxGpus);
    out["models"] = std::move(modelList);
    out["gpus"] = std::move(gpuList);
    out["warnings"] = warningsToJson(warnings);
    // The cells go last, written straight into the text; --pretty indents
    // that same text.
    std::string text = out.dump(-1, ' ', false, Json::error_handler_t::replace);
    text.pop_back();  // the closing brace
    text += columns ? ",\"cell_columns\":" + cellColumnsText(cells) + "}" : ",\"cells\":" + cellsText(cells) + "}";
    return pretty ? Json::parse(text).dump(2, ' ', false, Json::error_handler_t::replace) : text;
}

}  // namespace caliper::io
