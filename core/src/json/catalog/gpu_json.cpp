// Strict reader and writer for one GPU entry (data/README.md, "gpus.json").
#include "json/catalog/gpu_json.hpp"

#include <cctype>

namespace caliper::io {

namespace {

// Ranges that no real accelerator leaves; a value outside is a typo or a unit
// mix-up (MB for GB, MHz for GHz), not a new product.
constexpr double kPositive = 1e-12;          // "greater than zero" for ObjectReader
constexpr double kMaxBandwidthGBps = 100000;  // GB/s
constexpr double kMaxRate = 100000;           // dense TFLOPS / TOPS
constexpr double kMaxTdpW = 5000;
constexpr double kMaxPriceUsd = 10e6;
constexpr double kMaxPriceCny = 100e6;
constexpr double kMaxCloudUsdPerHour = 1000;
constexpr double kMaxCnyPerUsd = 20;  // bounds a CNY hourly price: the USD bound at a generous rate
constexpr std::int64_t kMinYear = 1990;
constexpr std::int64_t kMaxYear = 2030;
constexpr std::int64_t kMaxGpusPerDomain = 1024;

// Nullable keys must still be present, so a misspelt key name is caught by
// finish() and a forgotten one by this check.
const Json* requirePresent(ObjectReader& r, const char* key) {
    const Json* value = r.raw(key);
    if (!value) fail("missing_key", r.pathOf(key), std::string("required key '") + key + "' is missing");
    return value;
}

std::optional<double> nullableNumber(ObjectReader& r, const char* key, double min, double max) {
    requirePresent(r, key);
    return r.optionalNumber(key, min, max);
}

std::string nullableString(ObjectReader& r, const char* key) {
    requirePresent(r, key);
    return r.optionalString(key);
}

int nullableInteger(ObjectReader& r, const char* key, std::int64_t min, std::int64_t max) {
    requirePresent(r, key);
    return static_cast<int>(r.optionalInteger(key, min, max).value_or(0));
}

bool isYearMonth(const std::string& text) {
    if (text.size() != 7 || text[4] != '-') return false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (i != 4 && !std::isdigit(static_cast<unsigned char>(text[i]))) return false;
    }
    const int month = (text[5] - '0') * 10 + (text[6] - '0');
    return month >= 1 && month <= 12;
}

bool isKebabCase(const std::string& id) {
    if (id.empty() || id.front() == '-' || id.back() == '-') return false;
    for (std::size_t i = 0; i < id.size(); ++i) {
        const unsigned char c = static_cast<unsigned char>(id[i]);
        const bool ok = std::islower(c) || std::isdigit(c) || (c == '-' && id[i - 1] != '-');
        if (!ok) return false;
    }
    return true;
}

void readIdentity(ObjectReader& r, GpuSpec& g) {
    g.id = r.requiredString("id");
    if (!isKebabCase(g.id)) {
        fail("invalid_value", r.pathOf("id"), "expected a kebab-case id (a-z, 0-9, single dashes), got " +
                                                  describe(Json(g.id)));
    }
    g.name = r.requiredString("name");
    if (g.name.empty()) fail("invalid_value", r.pathOf("name"), "expected a non-empty name");
    g.aliases = r.stringList("aliases", true);
    for (std::size_t i = 0; i < g.aliases.size(); ++i) {
        if (g.aliases[i].empty()) fail("invalid_value", childPath(r.pathOf("aliases"), i), "expected a non-empty alias");
    }
    g.vendor = r.requiredEnum("vendor", {"nvidia", "amd", "intel", "huawei", "apple", "cambricon", "biren",
                                         "moore-threads", "hygon", "kunlunxin", "metax", "enflame",
                                         "iluvatar"});
    g.gpuClass = r.requiredEnum("class", {"consumer", "workstation", "datacenter"});
    g.market = r.requiredEnum("market", {"global", "china"});
    g.architecture = r.requiredString("architecture");
    g.computeCapability = nullableString(r, "compute_capability");
    g.launchYear = static_cast<int>(r.requiredInteger("launch_year", kMinYear, kMaxYear));
}

void readMemory(ObjectReader& r, GpuSpec& g) {
    g.memoryGb = r.requiredNumber("memory_gb", kPositive, kMaxGpuMemory);
    g.memoryGib = r.requiredNumber("memory_gib", kPositive, kMaxGpuMemory);
    g.memoryType = r.requiredString("memory_type");
    requirePresent(r, "bandwidth_gbps");  // null where no bandwidth is published
    g.bandwidthGBps = r.optionalNumber("bandwidth_gbps", kPositive, kMaxBandwidthGBps).value_or(0);
}

void readRates(ObjectReader& r, GpuSpec& g) {
    g.bf16Tflops = nullableNumber(r, "bf16_tflops", 0, kMaxRate);
    g.fp16Tflops = nullableNumber(r, "fp16_tflops", 0, kMaxRate);
    g.fp16Acc16Tflops = nullableNumber(r, "fp16_acc16_tflops", 0, kMaxRate);
    g.fp8Tflops = nullableNumber(r, "fp8_tflops", 0, kMaxRate);
    g.int8Tops = nullableNumber(r, "int8_tops", 0, kMaxRate);
    g.tf32Tflops = nullableNumber(r, "tf32_tflops", 0, kMaxRate);
    g.fp32Tflops = nullableNumber(r, "fp32_tflops", 0, kMaxRate);
    g.supportsBf16 = r.requiredBool("supports_bf16");
    g.supportsFp8 = r.requiredBool("supports_fp8");
    g.flashAttention2 = r.requiredBool("flash_attention_2");
    g.flashAttention3 = r.requiredBool("flash_attention_3");
    g.ecc = r.requiredBool("ecc");
}

void readInterconnect(ObjectReader& r, GpuSpec& g) {
    g.nvlinkVersion = nullableString(r, "nvlink_version");
    g.nvlinkGBps = r.requiredNumber("nvlink_gbps", 0, kMaxBandwidthGBps);
    g.nvlinkMaxGpus = static_cast<int>(r.requiredInteger("nvlink_max_gpus", 0, kMaxGpusPerDomain));
    g.pcieGen = nullableInteger(r, "pcie_gen", 1, 7);  // null for SoCs and undisclosed host links
    g.formFactor = r.requiredEnum("form_factor", {"sxm", "oam", "pcie", "mxm", "soc", "module"});
    g.gpusPerNode = static_cast<int>(r.requiredInteger("gpus_per_node", 1, kMaxGpusPerDomain));
    requirePresent(r, "tdp_w");  // null where no board power is published
    g.tdpW = r.optionalNumber("tdp_w", kPositive, kMaxTdpW).value_or(0);
}

// Optional list of {provider, region, currency, per_gpu_hour, date, source}:
// the prices of other providers and currencies (absent = none).
void readCloudPrices(ObjectReader& r, GpuSpec& g) {
    const Json* list = r.raw("cloud_prices");
    if (!list) return;
    const std::string path = r.pathOf("cloud_prices");
    if (!list->is_array()) failType("invalid_value", path, "an array", *list);
    for (std::size_t i = 0; i < list->size(); ++i) {
        const Json& item = (*list)[i];
        const std::string itemPath = childPath(path, i);
        if (!item.is_object()) failType("invalid_value", itemPath, "an object", item);
        ObjectReader p(item, itemPath, "invalid_value");
        CloudPrice price;
        price.provider = p.requiredString("provider");
        if (price.provider.empty()) fail("invalid_value", p.pathOf("provider"), "expected a non-empty provider");
        price.region = p.optionalString("region");
        price.currency = p.requiredEnum("currency", {"usd", "cny"});
        const double max = price.currency == "cny" ? kMaxCloudUsdPerHour * kMaxCnyPerUsd : kMaxCloudUsdPerHour;
        price.perGpuHour = p.requiredNumber("per_gpu_hour", kPositive, max);
        price.date = p.requiredString("date");
        if (!isYearMonth(price.date)) {
            fail("invalid_value", p.pathOf("date"), "expected a YYYY-MM month, got " + describe(Json(price.date)));
        }
        price.source = p.requiredString("source");
        if (price.source.empty()) fail("invalid_value", p.pathOf("source"), "expected a non-empty source");
        p.finish();
        g.cloudPrices.push_back(std::move(price));
    }
}

void readCosts(ObjectReader& r, GpuSpec& g) {
    g.priceUsd = nullableNumber(r, "price_usd", kPositive, kMaxPriceUsd);
    g.priceCny = nullableNumber(r, "price_cny", kPositive, kMaxPriceCny);
    g.priceYear = nullableInteger(r, "price_year", kMinYear, kMaxYear);
    g.priceNote = r.requiredString("price_note");
    g.cloudUsdPerHour = nullableNumber(r, "cloud_usd_per_hour", kPositive, kMaxCloudUsdPerHour);
    g.cloudProvider = r.requiredString("cloud_provider");
    g.cloudDate = r.requiredString("cloud_date");
    readCloudPrices(r, g);
}

void readProvenance(ObjectReader& r, GpuSpec& g) {
    g.caveats = r.stringList("caveats", true);
    g.confidence = r.requiredEnum("confidence", {"high", "medium", "low"});
    g.sources = r.stringList("sources", true, 1);
    for (std::size_t i = 0; i < g.sources.size(); ++i) {
        if (g.sources[i].empty()) fail("invalid_value", childPath(r.pathOf("sources"), i), "expected a non-empty source");
    }
    g.notes = r.requiredString("notes");
    g.notesZh = r.optionalString("notes_zh");
}

Json nullable(const std::optional<double>& value) { return value ? Json(*value) : Json(nullptr); }
Json nullableText(const std::string& text) { return text.empty() ? Json(nullptr) : Json(text); }
Json nullableCount(int value) { return value > 0 ? Json(value) : Json(nullptr); }
Json nullablePositive(double value) { return value > 0 ? Json(value) : Json(nullptr); }

Json cloudPricesToJson(const std::vector<CloudPrice>& prices) {
    Json out = Json::array();
    for (const CloudPrice& p : prices) {
        out.push_back({{"provider", p.provider}, {"region", p.region}, {"currency", p.currency},
                       {"per_gpu_hour", p.perGpuHour}, {"date", p.date}, {"source", p.source}});
    }
    return out;
}

}  // namespace

GpuSpec gpuFromJson(const Json& object, const std::string& path) {
    ObjectReader r(object, path, "invalid_value");
    GpuSpec g;
    readIdentity(r, g);
    readMemory(r, g);
    readRates(r, g);
    readInterconnect(r, g);
    readCosts(r, g);
    readProvenance(r, g);
    r.finish();
    return g;
}

Json gpuToJson(const GpuSpec& g) {
    Json out = Json{{"id", g.id}, {"name", g.name}, {"aliases", g.aliases}, {"vendor", g.vendor},
                {"class", g.gpuClass}, {"market", g.market}, {"architecture", g.architecture},
                {"compute_capability", nullableText(g.computeCapability)}, {"launch_year", g.launchYear},
                {"memory_gb", g.memoryGb}, {"memory_gib", g.memoryGib}, {"memory_type", g.memoryType},
                {"bandwidth_gbps", nullablePositive(g.bandwidthGBps)}, {"bf16_tflops", nullable(g.bf16Tflops)},
                {"fp16_tflops", nullable(g.fp16Tflops)}, {"fp16_acc16_tflops", nullable(g.fp16Acc16Tflops)},
                {"fp8_tflops", nullable(g.fp8Tflops)}, {"int8_tops", nullable(g.int8Tops)},
                {"tf32_tflops", nullable(g.tf32Tflops)}, {"fp32_tflops", nullable(g.fp32Tflops)},
                {"supports_bf16", g.supportsBf16}, {"supports_fp8", g.supportsFp8},
                {"flash_attention_2", g.flashAttention2}, {"flash_attention_3", g.flashAttention3},
                {"ecc", g.ecc}, {"nvlink_version", nullableText(g.nvlinkVersion)}, {"nvlink_gbps", g.nvlinkGBps},
                {"nvlink_max_gpus", g.nvlinkMaxGpus}, {"pcie_gen", nullableCount(g.pcieGen)},
                {"form_factor", g.formFactor}, {"gpus_per_node", g.gpusPerNode}, {"tdp_w", nullablePositive(g.tdpW)},
                {"price_usd", nullable(g.priceUsd)}, {"price_cny", nullable(g.priceCny)},
                {"price_year", nullableCount(g.priceYear)}, {"price_note", g.priceNote},
                {"cloud_usd_per_hour", nullable(g.cloudUsdPerHour)}, {"cloud_provider", g.cloudProvider},
                {"cloud_date", g.cloudDate}, {"caveats", g.caveats}, {"confidence", g.confidence},
                {"sources", g.sources}, {"notes", g.notes}};
    if (!g.notesZh.empty()) out["notes_zh"] = g.notesZh;
    if (!g.cloudPrices.empty()) out["cloud_prices"] = cloudPricesToJson(g.cloudPrices);
    return out;
}

}  // namespace caliper::io
