#pragma once
// The GPU and model catalogs as typed data, and lookup by id or alias.
#include <string>
#include <string_view>
#include <vector>

#include "caliper/gpu.hpp"
#include "caliper/model.hpp"

namespace caliper {

struct Caveat {  // a warning that belongs to catalog entries, in both languages
    std::string id;
    std::string en;
    std::string zh;
};

struct Catalog {
    std::string version;  // catalog_version of data/gpus.json
    std::vector<GpuSpec> gpus;
    std::vector<ModelSpec> models;
    std::vector<Caveat> caveats;
};

// Case-insensitive match on id, name or alias, ignoring spaces, dashes,
// underscores and a leading vendor word ("NVIDIA GeForce RTX 4090" = "4090");
// "48G" reads as "48GB", and a known name followed by its memory size
// ("L40S 48GB") finds the entry of that size; "魔改" or "modded" anywhere in a
// name finds the modified card the rest names ("2080ti魔改22g").
const GpuSpec* findGpu(const Catalog& catalog, std::string_view query);
const ModelSpec* findModel(const Catalog& catalog, std::string_view query);
const Caveat* findCaveat(const Catalog& catalog, std::string_view id);

// The catalog id closest to a query that matched nothing (for "did you mean").
std::string nearestGpuId(const Catalog& catalog, std::string_view query);
std::string nearestModelId(const Catalog& catalog, std::string_view query);

// The display names of the `count` GPUs (models) closest to a query that matched nothing,
// closest first: what a "did you mean" message shows (people know names, not ids).
std::vector<std::string> nearestGpuNames(const Catalog& catalog, std::string_view query, std::size_t count = 3);
std::vector<std::string> nearestModelNames(const Catalog& catalog, std::string_view query, std::size_t count = 3);

// Lower-case and drop everything but letters and digits: the key that
// findGpu/findModel compare.
std::string normalizeName(std::string_view text);

}  // namespace caliper
