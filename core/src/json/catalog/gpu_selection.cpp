#include "json/catalog/gpu_selection.hpp"

#include <algorithm>
#include <cctype>
#include <optional>
#include <string>

#include "json/request/scenario_json.hpp"

namespace caliper::io {

namespace {

constexpr std::size_t kMaxListedGpus = 10000;  // as the matrix request

struct GpuFilter {
    std::vector<std::string> classes, groups, vendors, markets;
    std::optional<double> minMemoryGiB, maxPriceUsd;
};

bool listed(const std::vector<std::string>& list, const std::string& value) {
    return list.empty() || std::find(list.begin(), list.end(), value) != list.end();
}

bool accepts(const GpuFilter& f, const GpuSpec& gpu) {
    if (!listed(f.classes, gpu.gpuClass) || !listed(f.groups, gpuGroup(gpu))) return false;
    if (!listed(f.vendors, gpu.vendor) || !listed(f.markets, gpu.market)) return false;
    if (f.minMemoryGiB && gpu.memoryGib < *f.minMemoryGiB) return false;
    if (f.maxPriceUsd && (!gpu.priceUsd || *gpu.priceUsd > *f.maxPriceUsd)) return false;
    return true;
}

// A filter list (lower case, as every value of these vocabularies) whose
// every value some GPU of the catalog or the request carries: a misspelt
// vendor or group would otherwise filter every GPU out in silence.
std::vector<std::string> knownValues(ObjectReader& r, const char* key, const std::vector<const GpuSpec*>& gpus,
                                     std::string (*valueOf)(const GpuSpec&)) {
    std::vector<std::string> list = r.stringList(key);
    std::vector<std::string> known;
    for (const GpuSpec* g : gpus) {
        std::string v = valueOf(*g);
        if (std::find(known.begin(), known.end(), v) == known.end()) known.push_back(std::move(v));
    }
    for (std::size_t i = 0; i < list.size(); ++i) {
        std::string& value = list[i];
        std::transform(value.begin(), value.end(), value.begin(), [](unsigned char c) { return std::tolower(c); });
        if (std::find(known.begin(), known.end(), value) != known.end()) continue;
        std::string names;
        for (const std::string& k : known) names += (names.empty() ? "" : ", ") + k;
        fail("invalid_value", childPath(r.pathOf(key), i),
             "no GPU has " + std::string(key) + " value '" + value.substr(0, 100) + "'; known: " + names);
    }
    return list;
}

GpuFilter readFilter(const Json& request, const std::vector<const GpuSpec*>& gpus) {
    GpuFilter f;
    auto it = request.find("gpu_filter");
    if (it == request.end() || it->is_null()) return f;
    ObjectReader r(*it, "/gpu_filter");
    f.classes = knownValues(r, "classes", gpus, [](const GpuSpec& g) { return g.gpuClass; });
    f.groups = knownValues(r, "groups", gpus, [](const GpuSpec& g) { return gpuGroup(g); });
    f.vendors = knownValues(r, "vendors", gpus, [](const GpuSpec& g) { return g.vendor; });
    f.markets = knownValues(r, "markets", gpus, [](const GpuSpec& g) { return g.market; });
    f.minMemoryGiB = r.optionalNumber("min_memory_gib", 0, 1e6);
    f.maxPriceUsd = r.optionalNumber("max_price_usd", 0, 1e9);
    r.finish();
    return f;
}

std::vector<GpuSpec> requestedGpus(const Catalog& catalog, const Json& request) {
    auto it = request.find("gpu");
    if (it == request.end() || it->is_null() || (it->is_string() && it->get<std::string>() == "all")) {
        return catalog.gpus;
    }
    if (it->is_string() || it->is_object()) return {resolveGpu(catalog, *it, "/gpu")};
    if (!it->is_array()) failType("invalid_value", "/gpu", "\"all\", a GPU id or a list of GPU ids", *it);
    if (it->size() > kMaxListedGpus) fail("too_large", "/gpu", "more than 10000 entries");
    std::vector<GpuSpec> gpus;
    for (std::size_t i = 0; i < it->size(); ++i) {
        GpuSpec gpu = resolveGpu(catalog, (*it)[i], childPath("/gpu", i));
        auto same = [&](const GpuSpec& g) { return g.id == gpu.id; };
        if (std::none_of(gpus.begin(), gpus.end(), same)) gpus.push_back(std::move(gpu));
    }
    return gpus;
}

}  // namespace

std::string gpuGroup(const GpuSpec& gpu) {
    if (gpu.market == "china") return "china";
    if (gpu.vendor != "nvidia") return "other";
    return gpu.gpuClass;
}

std::vector<GpuSpec> selectGpus(const Catalog& catalog, const Json& request) {
    std::vector<GpuSpec> gpus = requestedGpus(catalog, request);
    std::vector<const GpuSpec*> known;
    for (const GpuSpec& g : catalog.gpus) known.push_back(&g);
    for (const GpuSpec& g : gpus) known.push_back(&g);
    const GpuFilter filter = readFilter(request, known);
    gpus.erase(std::remove_if(gpus.begin(), gpus.end(), [&](const GpuSpec& g) { return !accepts(filter, g); }),
               gpus.end());
    return gpus;
}

}  // namespace caliper::io
