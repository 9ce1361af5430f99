#pragma once
// The GPUs a request asks about: its "gpu" key (absent, "all", one id, or a
// list of ids and GPU objects) narrowed by its "gpu_filter" object, with the
// same filter keys as the matrix request.
#include <string>
#include <vector>

#include "caliper/catalog.hpp"
#include "json/json_read.hpp"

namespace caliper::io {

std::vector<GpuSpec> selectGpus(const Catalog& catalog, const Json& request);

// The page's column group: China-market variants and non-NVIDIA parts form
// groups of their own beside the NVIDIA classes (consumer, workstation, datacenter).
std::string gpuGroup(const GpuSpec& gpu);

}  // namespace caliper::io
