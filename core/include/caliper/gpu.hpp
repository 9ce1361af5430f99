#pragma once
// One accelerator as the catalog describes it. Unknown figures are empty
// optionals (null in JSON), never guesses.
#include <optional>
#include <string>
#include <vector>

namespace caliper {

// One provider's on-demand price for one GPU-hour, in its own currency
// (data/README.md, "cloud_prices").
struct CloudPrice {
    std::string provider;  // "AutoDL", "Alibaba Cloud"
    std::string region;    // as the provider names it; empty when not stated
    std::string currency;  // usd | cny
    double perGpuHour = 0;
    std::string date;  // YYYY-MM of the price
    std::string source;
};

struct GpuSpec {
    std::string id;    // stable kebab-case, e.g. "h100-sxm5-80gb"
    std::string name;  // "NVIDIA H100 SXM5 80GB"
    std::vector<std::string> aliases;
    std::string vendor;        // nvidia | amd | intel | huawei | apple | ... (data/README.md)
    std::string gpuClass;      // consumer | workstation | datacenter
    std::string market;        // global | china (export-compliant variant)
    std::string architecture;  // "Hopper"
    std::string computeCapability;  // "9.0"; empty for non-NVIDIA parts
    int launchYear = 0;

    double memoryGb = 0;   // as marketed (10^9 bytes)
    double memoryGib = 0;  // usable, as the driver reports it
    std::string memoryType;
    double bandwidthGBps = 0;  // GB/s, peak; 0 where none is published (no speed figures then)

    // Dense tensor-core rates (never 2:4 sparse). bf16/fp16 with FP32 accumulate.
    std::optional<double> bf16Tflops;
    std::optional<double> fp16Tflops;
    std::optional<double> fp16Acc16Tflops;  // GeForce FP16-accumulate rate
    std::optional<double> fp8Tflops;
    std::optional<double> int8Tops;
    std::optional<double> tf32Tflops;
    std::optional<double> fp32Tflops;  // non-tensor

    bool supportsBf16 = false;
    bool supportsFp8 = false;
    bool flashAttention2 = false;
    bool flashAttention3 = false;
    bool ecc = false;

    std::string nvlinkVersion;  // empty when none
    double nvlinkGBps = 0;      // total bidirectional per GPU; 0 = no NVLink
    int nvlinkMaxGpus = 0;      // GPUs one NVLink domain joins (2 for bridges, 8 for NVSwitch boards)
    int pcieGen = 0;
    std::string formFactor;  // sxm | oam | pcie | module | soc | ...
    int gpusPerNode = 8;     // how many fit one server, for node counts
    double tdpW = 0;

    std::optional<double> priceUsd;
    std::optional<double> priceCny;
    int priceYear = 0;
    std::string priceNote;
    std::optional<double> cloudUsdPerHour;
    std::string cloudProvider;
    std::string cloudDate;
    std::vector<CloudPrice> cloudPrices;  // further providers and currencies, beside cloudUsdPerHour

    std::vector<std::string> caveats;  // ids into Catalog::caveats
    std::string confidence;            // high | medium | low
    std::vector<std::string> sources;
    std::string notes;
    std::string notesZh;  // the notes in Chinese (catalog notes_zh), shown to a zh reader
};

// CPU and GPU share one memory (Apple silicon; LPDDR SoCs such as DGX Spark
// and Ryzen AI Max): the catalog's memory_type says "unified", or the GPU
// carries the apple-unified / unified-lpddr caveat.
bool unifiedMemory(const GpuSpec& gpu);

// Best available dense 16-bit tensor rate (bf16, else fp16, else fp32).
double denseTensorTflops16(const GpuSpec& gpu);

}  // namespace caliper
