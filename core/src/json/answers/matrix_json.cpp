// The matrix request: a scenario whose model and gpu are lists (or "all"),
// with filters; the result holds cells[model_index][gpu_index].
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>
#include <deque>
#include <iterator>
#include <limits>
#include <string_view>

#include "caliper/answers/matrix.hpp"
#include "caliper/names.hpp"
#include "json/catalog/gpu_selection.hpp"
#include "json/request/request_limits.hpp"
#include "json/result_json.hpp"
#include "json/request/scenario_json.hpp"
#include "json/answers/views_json.hpp"
#include "caliper/workloads/workloads.hpp"

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
    const double total = hasPipeline(m) ? pipelineParams(m) : p.total;
    const double active = hasPipeline(m) ? total : p.active;
    return {{"id", m.id},          {"name", m.name},     {"family", m.family}, {"params_b", tidy(total / 1e9)},
            {"active_params_b", tidy(active / 1e9)}, {"modality", m.modality},
            {"release_date", m.releaseDate.empty() ? Json(nullptr) : Json(m.releaseDate)},
            {"workload", toString(m.workload)},
            {"workload_unit", m.workload == WorkloadKind::Llm ? Json(nullptr) : Json(workloadCellFigure(m, {}).unit)}};
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
            {"nvlink_gbps", tidy(g.nvlinkGBps)}};
}

// The cells' text, gathered in a fixed block and appended to the output a
// block at a time: the matrix writes millions of characters, and appending
// them one by one to a std::string costs a call each in the WebAssembly build.
class TextWriter {
public:
    explicit TextWriter(std::string& out) : out_(out) {}
    TextWriter(const TextWriter&) = delete;
    TextWriter& operator=(const TextWriter&) = delete;

    void put(char c) {
        if (used_ == kBlockChars) flush();
        block_[used_++] = c;
    }
    void put(std::string_view text) {
        if (text.size() > kBlockChars - used_) flush();
        if (text.size() > kBlockChars) {
            out_.append(text.data(), text.size());
            return;
        }
        std::memcpy(block_ + used_, text.data(), text.size());
        used_ += text.size();
    }
    // A figure as tidyOrNull(v).dump() writes it (nlohmann's shortest
    // round-trip digits), without building a JSON value for it.
    void number(const std::optional<double>& v) {
        if (!v || !std::isfinite(*v)) {
            put("null");
            return;
        }
        char* at = room(kMaxNumberChars);
        used_ = static_cast<std::size_t>(nlohmann::detail::to_chars(at, at + kMaxNumberChars, tidy(*v)) - block_);
    }
    void integer(int v) {  // as std::to_string writes it
        char* at = room(kMaxNumberChars);
        used_ = static_cast<std::size_t>(std::to_chars(at, at + kMaxNumberChars, v).ptr - block_);
    }
    void quoted(std::string_view text) {
        put('"');
        put(text);
        put('"');
    }
    void flush() {  // call once at the end: the block is not written on destruction
        out_.append(block_, used_);
        used_ = 0;
    }

private:
    // Large enough that appends are rare, small enough for the stack.
    static constexpr std::size_t kBlockChars = 8192;
    // nlohmann's to_chars needs at most 25 characters for a double
    // ("-1.2345678901234567e+308"), std::to_chars 11 for an int.
    static constexpr std::size_t kMaxNumberChars = 32;

    char* room(std::size_t chars) {
        if (chars > kBlockChars - used_) flush();
        return block_ + used_;
    }

    std::string& out_;
    char block_[kBlockChars];
    std::size_t used_ = 0;
};

// A cell's fields, in key order (the order of nlohmann's objects), each with
// how its value is written. Both layouts write the cells from this table.
struct CellField {
    std::string_view key;
    void (*write)(TextWriter& out, const MatrixCell& c);
    double (*value)(const MatrixCell& c);  // the "values" layout: see writeCellValues
};

constexpr double kNoValue = std::numeric_limits<double>::quiet_NaN();  // null in the "values" layout

double valueOf(const std::optional<double>& v) { return v && std::isfinite(*v) ? tidy(*v) : kNoValue; }
double valueOf(bool v) { return v ? 1.0 : 0.0; }

const CellField kCellFields[] = {
    {"cost_usd", [](TextWriter& o, const MatrixCell& c) { o.number(c.costUsd); },
     [](const MatrixCell& c) { return valueOf(c.costUsd); }},
    {"decode_tokens_per_s", [](TextWriter& o, const MatrixCell& c) { o.number(c.decodeTokensPerS); },
     [](const MatrixCell& c) { return valueOf(c.decodeTokensPerS); }},
    {"fits_one", [](TextWriter& o, const MatrixCell& c) { o.put(c.fitsOne ? "true" : "false"); },
     [](const MatrixCell& c) { return valueOf(c.fitsOne); }},
    // The plan's own count (its figures are for it); gpus_needed is the fewest that fit.
    {"gpu_count", [](TextWriter& o, const MatrixCell& c) { c.gpuCount ? o.integer(*c.gpuCount) : o.put("null"); },
     [](const MatrixCell& c) { return c.gpuCount ? static_cast<double>(*c.gpuCount) : kNoValue; }},
    {"gpus_needed", [](TextWriter& o, const MatrixCell& c) { c.gpusNeeded ? o.integer(*c.gpusNeeded) : o.put("null"); },
     [](const MatrixCell& c) { return c.gpusNeeded ? static_cast<double>(*c.gpusNeeded) : kNoValue; }},
    {"needs_nvlink", [](TextWriter& o, const MatrixCell& c) { o.put(c.needsNvlink ? "true" : "false"); },
     [](const MatrixCell& c) { return valueOf(c.needsNvlink); }},
    {"nodes", [](TextWriter& o, const MatrixCell& c) { o.integer(c.nodes); },
     [](const MatrixCell& c) { return static_cast<double>(c.nodes); }},
    {"prefill_tokens_per_s", [](TextWriter& o, const MatrixCell& c) { o.number(c.prefillTokensPerS); },
     [](const MatrixCell& c) { return valueOf(c.prefillTokensPerS); }},
    {"status", [](TextWriter& o, const MatrixCell& c) { o.quoted(toString(c.status)); },
     [](const MatrixCell& c) { return static_cast<double>(c.status); }},
    {"strategy", [](TextWriter& o, const MatrixCell& c) { o.quoted(toString(c.strategy)); },
     [](const MatrixCell& c) { return static_cast<double>(c.strategy); }},
    {"tight", [](TextWriter& o, const MatrixCell& c) { o.put(c.tight ? "true" : "false"); },
     [](const MatrixCell& c) { return valueOf(c.tight); }},
    {"total_gib", [](TextWriter& o, const MatrixCell& c) { o.number(c.totalGiB); },
     [](const MatrixCell& c) { return valueOf(std::optional<double>(c.totalGiB)); }},
    {"train_hours", [](TextWriter& o, const MatrixCell& c) { o.number(c.trainHours); },
     [](const MatrixCell& c) { return valueOf(c.trainHours); }},
    {"train_tokens_per_s", [](TextWriter& o, const MatrixCell& c) { o.number(c.trainTokensPerS); },
     [](const MatrixCell& c) { return valueOf(c.trainTokensPerS); }},
    {"usd_per_hour", [](TextWriter& o, const MatrixCell& c) { o.number(c.usdPerHour); },
     [](const MatrixCell& c) { return valueOf(c.usdPerHour); }},
    {"usd_per_million_tokens", [](TextWriter& o, const MatrixCell& c) { o.number(c.usdPerMillionTokens); },
     [](const MatrixCell& c) { return valueOf(c.usdPerMillionTokens); }},
    // Users-at-SLO mode (the request's "slo"): users one replica serves within it.
    {"users_at_slo", [](TextWriter& o, const MatrixCell& c) { o.number(c.usersAtSlo); },
     [](const MatrixCell& c) { return valueOf(c.usersAtSlo); }},
    // ... with FP8 weights and/or KV cache in the formats the request left open.
    {"users_at_slo_fp8", [](TextWriter& o, const MatrixCell& c) { o.put(c.usersAtSloFp8 ? "true" : "false"); },
     [](const MatrixCell& c) { return valueOf(c.usersAtSloFp8); }},
    // users_at_slo at the slow end of the serving bands (its 80% band's low end).
    {"users_at_slo_low", [](TextWriter& o, const MatrixCell& c) { o.number(c.usersAtSloLow); },
     [](const MatrixCell& c) { return valueOf(c.usersAtSloLow); }},
    // A non-LLM model's own figure, in the unit its model header names.
    {"workload_figure", [](TextWriter& o, const MatrixCell& c) { o.number(c.workloadFigure); },
     [](const MatrixCell& c) { return valueOf(c.workloadFigure); }},
};

// The names of an enum's values in its order (caliper/names.hpp): a
// "values" layout cell holds the index into these lists.
template <class Enum>
Json enumNames() {
    Json names = Json::array();
    for (const auto& n : Names<Enum>::table) names.push_back(n.name);
    return names;
}

// The cells as numbers, for the WebAssembly module (cells_layout "values"):
// field by field, each field cell by cell in row-major order, every one a
// double: null as NaN, true/false as 1/0, status and strategy as an index
// into the name lists of the answer's "cell_values". The module hands them
// to the page as one Float64Array: ten thousand cells with no text to
// write, decode and parse. The answer's text says how to read them.
Json writeCellValues(std::vector<double>& values, const std::vector<std::vector<MatrixCell>>& cells) {
    const std::size_t count = cells.size() * (cells.empty() ? 0 : cells[0].size());
    values.clear();
    values.reserve(count * std::size(kCellFields));
    Json fields = Json::array();
    for (const CellField& f : kCellFields) {
        fields.push_back(f.key);
        for (const auto& row : cells) {
            for (const MatrixCell& c : row) values.push_back(f.value(c));
        }
    }
    return {{"fields", std::move(fields)}, {"cells", count},
            {"status", enumNames<CellStatus>()}, {"strategy", enumNames<Strategy>()}};
}

// Characters per cell, a little above what the catalog's matrices write
// (about 296 as objects, 83 as columns), to reserve the text at once.
constexpr std::size_t kRowCellChars = 330;
constexpr std::size_t kColumnCellChars = 110;

// cells[model][gpu] as objects.
void writeCells(TextWriter& out, const std::vector<std::vector<MatrixCell>>& cells) {
    out.put('[');
    for (std::size_t m = 0; m < cells.size(); ++m) {
        out.put(m ? ",[" : "[");
        for (std::size_t g = 0; g < cells[m].size(); ++g) {
            if (g) out.put(',');
            char separator = '{';
            for (const CellField& f : kCellFields) {
                out.put(separator);
                separator = ',';
                out.quoted(f.key);
                out.put(':');
                f.write(out, cells[m][g]);
            }
            out.put('}');
        }
        out.put(']');
    }
    out.put(']');
}

// The cells as one array per field, each in row-major order (model by
// model, GPU by GPU): the same values as the cell objects in a third of
// the text, for callers that read many cells (the page).
void writeCellColumns(TextWriter& out, const std::vector<std::vector<MatrixCell>>& cells) {
    char separator = '{';
    for (const CellField& f : kCellFields) {
        out.put(separator);
        separator = ',';
        out.quoted(f.key);
        out.put(":[");
        bool first = true;
        for (const auto& row : cells) {
            for (const MatrixCell& c : row) {
                if (!first) out.put(',');
                first = false;
                f.write(out, c);
            }
        }
        out.put(']');
    }
    out.put('}');
}

// The cells after the headers' text (which ends before its closing brace).
void appendCells(std::string& text, const std::vector<std::vector<MatrixCell>>& cells, bool columns) {
    const std::size_t count = cells.size() * (cells.empty() ? 0 : cells[0].size());
    text.reserve(text.size() + count * (columns ? kColumnCellChars : kRowCellChars) + 64);
    TextWriter out(text);
    if (columns) {
        out.put(",\"cell_columns\":");
        writeCellColumns(out, cells);
    } else {
        out.put(",\"cells\":");
        writeCells(out, cells);
    }
    out.put('}');
    out.flush();
}

}  // namespace

Json matrixCellFields() {
    Json fields = Json::array();
    for (const CellField& f : kCellFields) fields.push_back(f.key);
    return fields;
}

std::string matrixText(const Catalog& catalog, const Json& request, bool pretty, std::vector<double>* values) {
    std::vector<Warning> warnings;
    ScenarioOptions options;
    options.resolveModelAndGpu = false;
    options.extraKeys = {"max_gpus", "gpu_filter", "model_filter", "cells_layout", "cells_only", "slo"};
    const Scenario workload = scenarioFromJson(catalog, request, warnings, options);
    ObjectReader r(request, "");
    const int maxGpus = static_cast<int>(r.integerOr("max_gpus", kDefaultMatrixMaxGpus, limitOf("max_gpus").minInteger(),
                                                        limitOf("max_gpus").maxInteger()));
    // "rows" (default): cells[model][gpu] objects; "columns": cell_columns,
    // one array per field in row-major order; "values": the same as numbers
    // beside the text (only where the caller takes them: the WebAssembly module).
    const std::string layout = r.enumOr("cells_layout", "rows", {"rows", "columns", "values"});
    // cells_only: the caller holds the model and GPU headers already (the
    // page asks for them once per selection): the answer leaves them out
    // and says its size in model_count and gpu_count.
    const bool cellsOnly = r.boolOr("cells_only", false);
    // Users-at-SLO mode: each cell also says how many concurrent users one
    // replica of its GPUs serves within the latency target.
    const std::optional<Slo> planSlo = readPlanSlo(r, workload.task, true);
    const bool sloMode = planSlo.has_value();
    const Slo slo = planSlo.value_or(Slo{});
    if (layout == "values" && !values) {
        fail("invalid_value", "/cells_layout",
             "\"values\" hands the cells over as numbers, read through the WebAssembly module's byte door; "
             "here the cells come as \"rows\" or \"columns\"");
    }

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
    if (sloMode) out["slo"] = {{"ttft_s", tidyOrNull(slo.ttftS)}, {"tpot_ms", tidyOrNull(slo.tpotMs)},
                               {"min_user_tokens_per_s", tidyOrNull(slo.minUserTokensPerS)}};
    const auto cells = computeMatrix(workload, models, gpus, maxGpus, sloMode ? &slo : nullptr);
    if (cellsOnly) {
        out["model_count"] = models.size();
        out["gpu_count"] = gpus.size();
    } else {
        Json modelList = Json::array();
        for (const ModelSpec* m : models) modelList.push_back(modelHeader(*m));
        Json gpuList = Json::array();
        for (const GpuSpec* g : gpus) gpuList.push_back(gpuHeader(*g));
        out["models"] = std::move(modelList);
        out["gpus"] = std::move(gpuList);
    }
    out["warnings"] = warningsToJson(warnings);
    if (layout == "values") {
        out["cell_values"] = writeCellValues(*values, cells);
        return out.dump(pretty ? 2 : -1, ' ', false, Json::error_handler_t::replace);
    }
    // The cells go last, written straight into the text; --pretty indents
    // that same text.
    std::string text = out.dump(-1, ' ', false, Json::error_handler_t::replace);
    text.pop_back();  // the closing brace
    appendCells(text, cells, layout == "columns");
    if (!pretty) return text;  // moved out; a conditional expression would copy it
    return Json::parse(text).dump(2, ' ', false, Json::error_handler_t::replace);
}

}  // namespace caliper::io
