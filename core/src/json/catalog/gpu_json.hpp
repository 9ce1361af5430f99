#pragma once
// One GPU entry of data/gpus.json <-> GpuSpec. Every key of data/README.md is
// read strictly (type, range, enum); an unknown key is an error, so a typo in
// the catalog cannot silently drop a figure.
#include <string>

#include "caliper/gpu.hpp"
#include "json/json_read.hpp"

namespace caliper::io {

constexpr double kMaxGpuMemory = 2048;  // memory_gib / memory_gb of one device

// Throws InputError naming the JSON pointer under `path` ("/gpus/3/tdp_w").
GpuSpec gpuFromJson(const Json& object, const std::string& path);

// The catalog keys of data/README.md (unknown figures as null); also the
// listing keys of docs/CONTRACT.md, which use the same names.
Json gpuToJson(const GpuSpec& gpu);

}  // namespace caliper::io
