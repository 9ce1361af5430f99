// The text-in/text-out entry points. Every one catches everything: rejected
// input becomes {"ok":false,...} with status 2, anything else status 1.
#include "caliper/api.hpp"

#include <exception>

#include "caliper/plan/estimate.hpp"
#include "caliper/serving/serve.hpp"
#include "json/catalog/gpu_json.hpp"
#include "json/json_read.hpp"
#include "json/catalog/model_json.hpp"
#include "json/result_json.hpp"
#include "json/request/scenario_json.hpp"
#include "json/answers/views_json.hpp"

namespace caliper {

namespace {

using io::Json;

std::string dump(const Json& json, bool pretty) {
    // Replace invalid UTF-8 from user text instead of throwing.
    return json.dump(pretty ? 2 : -1, ' ', false, Json::error_handler_t::replace);
}

// Text written already (the matrix): moved through, not copied, as it may be megabytes.
std::string dump(std::string text, bool) { return text; }

template <class Body>
ApiResponse guarded(bool pretty, Body&& body) {
    try {
        return ApiResponse{dump(body(), pretty), 0, {}};
    } catch (const InputError& e) {
        return ApiResponse{dump(io::errorToJson(e.error()), pretty), 2, {}};
    } catch (const std::bad_alloc&) {
        return ApiResponse{dump(io::errorToJson({"out_of_memory", "the request needs more memory than available", ""}), pretty), 1, {}};
    } catch (const std::exception& e) {
        return ApiResponse{dump(io::errorToJson({"internal_error", e.what(), ""}), pretty), 1, {}};
    } catch (...) {
        return ApiResponse{dump(io::errorToJson({"internal_error", "unknown failure", ""}), pretty), 1, {}};
    }
}

Json parseRequest(std::string_view text) { return io::parseJsonText(text, "", io::kMaxRequestBytes); }

}  // namespace

ApiResponse loadCatalogJson(std::string_view gpusJson, std::string_view modelsJson, Catalog& catalog) {
    return guarded(false, [&] {
        Catalog loaded = parseCatalog(gpusJson, modelsJson);
        Json summary = {{"ok", true}, {"gpus", loaded.gpus.size()}, {"models", loaded.models.size()},
                        {"catalog_version", loaded.version}};
        catalog = std::move(loaded);
        return summary;
    });
}

ApiResponse estimateJson(const Catalog& catalog, std::string_view requestJson, bool pretty) {
    return guarded(pretty, [&] {
        const Json request = parseRequest(requestJson);
        std::vector<Warning> warnings;
        io::ScenarioOptions options;
        options.extraKeys = {"slo"};
        Scenario scenario = io::scenarioFromJson(catalog, request, warnings, options);
        io::ObjectReader r(request, "");
        const std::optional<Slo> slo = io::readPlanSlo(r, scenario.task, false);
        checkScenario(scenario);
        EstimateResult result = estimate(scenario);
        result.warnings.insert(result.warnings.begin(), warnings.begin(), warnings.end());
        if (slo) {
            if (const std::optional<Warning> judged = sloWarning(result, *slo)) result.warnings.push_back(*judged);
        }
        return io::resultToJson(result, scenario);
    });
}

ApiResponse matrixJson(const Catalog& catalog, std::string_view requestJson, bool pretty) {
    return guarded(pretty, [&] { return io::matrixText(catalog, parseRequest(requestJson), pretty, nullptr); });
}

ApiResponse matrixValues(const Catalog& catalog, std::string_view requestJson) {
    std::vector<double> values;
    ApiResponse response = guarded(false, [&] { return io::matrixText(catalog, parseRequest(requestJson), false, &values); });
    if (response.status == 0) response.values = std::move(values);
    return response;
}

ApiResponse recommendJson(const Catalog& catalog, std::string_view requestJson, bool pretty) {
    return guarded(pretty, [&] { return io::recommendToJson(catalog, parseRequest(requestJson)); });
}

ApiResponse serveJson(const Catalog& catalog, std::string_view requestJson, bool pretty) {
    return guarded(pretty, [&] { return io::serveToJson(catalog, parseRequest(requestJson)); });
}

ApiResponse inventoryJson(const Catalog& catalog, std::string_view requestJson, bool pretty) {
    return guarded(pretty, [&] { return io::inventoryToJson(catalog, parseRequest(requestJson)); });
}

ApiResponse limitsJson(const Catalog& catalog, std::string_view requestJson, bool pretty) {
    return guarded(pretty, [&] { return io::limitsToJson(catalog, parseRequest(requestJson)); });
}

ApiResponse listGpusJson(const Catalog& catalog, bool pretty) {
    return guarded(pretty, [&] {
        Json list = Json::array();
        for (const auto& gpu : catalog.gpus) list.push_back(io::gpuToJson(gpu));
        return list;
    });
}

ApiResponse listModelsJson(const Catalog& catalog, bool pretty) {
    return guarded(pretty, [&] {
        Json list = Json::array();
        for (const auto& model : catalog.models) list.push_back(io::modelToJson(model));
        return list;
    });
}

ApiResponse caveatsJson(const Catalog& catalog, bool pretty) {
    return guarded(pretty, [&] {
        Json list = Json::array();
        for (const auto& c : catalog.caveats) list.push_back({{"id", c.id}, {"en", c.en}, {"zh", c.zh}});
        return list;
    });
}

ApiResponse describeJson(const Catalog& catalog, bool pretty) {
    return guarded(pretty, [&] { return io::describeToJson(catalog); });
}

std::string versionString(const Catalog& catalog) {
    return std::string("caliper ") + CALIPER_VERSION + " (catalog " + catalog.version + ")";
}

}  // namespace caliper
