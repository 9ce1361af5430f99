#include "json/catalog/gpu_selection.hpp"

#include <algorithm>
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

GpuFilter readFilter(const Json& request) {
    GpuFilter f;
    auto it = request.find("gpu_filter");
    if (it == request.end() || it->is_null()) return f;
    ObjectReader r(*it, "/gpu_filter");
    f.classes = r.stringList("classes");
    f.groups = r.stringList("groups");
    f.vendors = r.stringList("vendors");
    f.markets = r.stringList("markets");
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
    const GpuFilter filter = readFilter(request);
    std::vector<GpuSpec> gpus = requestedGpus(catalog, request);
    gpus.erase(std::remove_if(gpus.begin(), gpus.end(), [&](const GpuSpec& g) { return !accepts(filter, g); }),
               gpus.end());
    return gpus;
}

}  // namespace caliper::io
