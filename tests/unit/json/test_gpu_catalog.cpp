// The GPU catalog (data/gpus.json): every entry loads and is sourced, key
// figures match their datasheets, lookups find what people type, and bad GPU
// entries are rejected with a code, a JSON pointer and a readable message.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "caliper/catalog.hpp"
#include "caliper/error.hpp"
#include "catalog_fixture.hpp"
#include "json/catalog/gpu_json.hpp"

using caliper::GpuSpec;
using caliper::test::projectCatalog;
using caliper::test::readText;
using Json = nlohmann::json;

namespace {

const GpuSpec& gpu(const char* id) {
    const GpuSpec* found = caliper::findGpu(projectCatalog(), id);
    INFO("catalog id " << id);
    REQUIRE(found);
    REQUIRE(found->id == id);
    return *found;
}

double value(const std::optional<double>& figure) {
    REQUIRE(figure.has_value());
    return *figure;
}

Json fixture(const std::string& name) {
    return Json::parse(readText(std::string(CALIPER_FIXTURES_DIR) + "/bad_catalog/" + name));
}

// True when the text holds a CJK ideograph (U+4E00..U+9FFF: UTF-8 lead bytes E4..E9).
bool hasChinese(const std::string& text) {
    return std::any_of(text.begin(), text.end(), [](char c) {
        const auto byte = static_cast<unsigned char>(c);
        return byte >= 0xE4 && byte <= 0xE9;
    });
}

caliper::Error gpuError(const Json& entry) {
    try {
        caliper::io::gpuFromJson(entry, "/gpus/0");
    } catch (const caliper::InputError& e) {
        return e.error();
    }
    FAIL("the GPU entry was accepted");
    return {};
}

}  // namespace

TEST_CASE("every GPU entry loads with a source, a confidence and sane units", "[gpus]") {
    const auto& gpus = projectCatalog().gpus;
    // 70 data-centre, workstation and consumer accelerators, the GeForce, AMD,
    // Apple and older cards named by the validation set, and the China-market,
    // memory-modded and unified-memory machines people compare them with.
    CHECK(gpus.size() >= 170);
    for (const GpuSpec& g : gpus) {
        INFO(g.id);
        CHECK_FALSE(g.sources.empty());
        CHECK_FALSE(g.notes.empty());
        CHECK((g.confidence == "high" || g.confidence == "medium" || g.confidence == "low"));
        // Usable memory never exceeds the marketed capacity read as binary GiB.
        CHECK(g.memoryGib <= g.memoryGb + 1e-9);
        // Bandwidth is known, or its absence is flagged (the engine then gives no speed figures).
        const bool unpublished =
            std::find(g.caveats.begin(), g.caveats.end(), "unpublished-bandwidth") != g.caveats.end();
        CHECK((g.bandwidthGBps > 0) != unpublished);
        if (g.fp16Acc16Tflops && g.fp16Tflops) CHECK(*g.fp16Acc16Tflops > *g.fp16Tflops);
        if (g.bf16Tflops) CHECK(g.supportsBf16);
        if (g.fp8Tflops) CHECK(g.supportsFp8);
        if (g.nvlinkGBps > 0) CHECK(g.nvlinkMaxGpus >= 2);
        if (g.nvlinkGBps == 0) CHECK(g.nvlinkVersion.empty());
        // Dense rates: 8-bit math never runs slower than 16-bit on the same units.
        if (g.fp8Tflops && g.bf16Tflops) CHECK(*g.fp8Tflops >= *g.bf16Tflops);
        if (g.int8Tops && g.bf16Tflops) CHECK(*g.int8Tops >= *g.bf16Tflops);
        if (g.bf16Tflops && g.fp32Tflops && g.vendor == "nvidia") CHECK(*g.bf16Tflops >= *g.fp32Tflops);
        // Board power is known or its absence is explained (the engine then reports power as null).
        if (g.tdpW <= 0) CHECK(g.notes.find("power") != std::string::npos);
    }
}

TEST_CASE("the core set of accelerators is present under stable ids", "[gpus]") {
    for (const char* id : {"b200", "b100", "gb200", "b300", "gb300", "h200-sxm-141gb", "h200-nvl-141gb",
                           "h100-sxm5-80gb", "h100-pcie-80gb", "h100-nvl-94gb", "h800-sxm5-80gb", "h800-pcie-80gb",
                           "h20-96gb", "a100-sxm4-40gb", "a100-sxm4-80gb", "a100-pcie-40gb", "a100-pcie-80gb",
                           "a800-sxm4-80gb", "a800-pcie-80gb", "a40", "a30", "a10", "a10g", "a2", "l40", "l40s", "l20",
                           "l4", "t4", "v100-sxm2-32gb", "v100-pcie-32gb", "p100-pcie-16gb", "p40",
                           "rtx-pro-6000-blackwell", "rtx-6000-ada", "rtx-5000-ada", "rtx-4000-ada", "rtx-a6000",
                           "rtx-a5000", "rtx-a4000", "quadro-rtx-8000", "quadro-rtx-6000", "quadro-rtx-4000",
                           "quadro-p6000", "rtx-5090", "rtx-5080", "rtx-4090", "rtx-4090d", "rtx-4080", "rtx-4070-ti",
                           "rtx-4060-ti-16gb", "rtx-3090", "rtx-3090-ti", "rtx-3080-10gb", "rtx-3070", "rtx-3060-12gb",
                           "rtx-3060-ti", "rtx-2080-ti", "mi355x", "mi325x", "mi300x", "mi250x", "mi210", "rx-7900-xtx",
                           "gaudi2", "gaudi3", "ascend-910b", "apple-m2-ultra-76c", "apple-m3-max-40c",
                           "apple-m4-max-40c"}) {
        CHECK(caliper::findGpu(projectCatalog(), id) != nullptr);
    }
}

TEST_CASE("data-centre figures match their datasheets (dense, never 2:4 sparse)", "[gpus]") {
    // NVIDIA H100 SXM5 datasheet: 1,979 TFLOPS BF16 and 3,958 FP8 "with
    // sparsity", i.e. 989.4 / 1978.9 dense; 3.35 TB/s HBM3; NVLink 4 900 GB/s.
    const GpuSpec& h100 = gpu("h100-sxm5-80gb");
    CHECK(value(h100.bf16Tflops) == Approx(989.4));
    CHECK(value(h100.fp8Tflops) == Approx(1978.9));
    CHECK(h100.bandwidthGBps == Approx(3350));
    CHECK(h100.nvlinkGBps == Approx(900));
    CHECK(h100.nvlinkMaxGpus == 8);
    CHECK(h100.memoryGib == Approx(81559.0 / 1024).margin(0.01));  // nvidia-smi: 81559 MiB
    CHECK(h100.flashAttention3);

    // NVIDIA A100 80GB SXM4 datasheet: 312 TFLOPS BF16 dense (624 sparse),
    // 2,039 GB/s HBM2e, NVLink 3 600 GB/s; the driver reports 81920 MiB.
    const GpuSpec& a100 = gpu("a100-sxm4-80gb");
    CHECK(value(a100.bf16Tflops) == Approx(312));
    CHECK(a100.bandwidthGBps == Approx(2039));
    CHECK(a100.nvlinkGBps == Approx(600));
    CHECK(a100.memoryGib == Approx(80.0));
    CHECK_FALSE(a100.fp8Tflops.has_value());
    // A100 40GB datasheet: 1,555 GB/s HBM2, 40960 MiB.
    CHECK(gpu("a100-sxm4-40gb").bandwidthGBps == Approx(1555));
    CHECK(gpu("a100-sxm4-40gb").memoryGib == Approx(40.0));

    // NVIDIA confirmed the A800 as an A100 with NVLink cut to 400 GB/s; the
    // H800 likewise cuts H100's 900 GB/s to 400.
    CHECK(gpu("a800-sxm4-80gb").nvlinkGBps == Approx(400));
    CHECK(value(gpu("a800-sxm4-80gb").bf16Tflops) == Approx(312));
    CHECK(gpu("h800-sxm5-80gb").nvlinkGBps == Approx(400));
    CHECK(gpu("h800-sxm5-80gb").market == "china");

    // H20 spec sheet (reproduced by several sources): 148 TFLOPS FP16 dense, 4.0 TB/s, NVLink 900 GB/s.
    const GpuSpec& h20 = gpu("h20-96gb");
    CHECK(value(h20.bf16Tflops) == Approx(148));
    CHECK(h20.bandwidthGBps == Approx(4000));
    CHECK(h20.nvlinkGBps == Approx(900));

    // L40S datasheet: 362.05 dense FP16/BF16 (733 sparse), no NVLink; L4: 121 dense (242 sparse).
    CHECK(value(gpu("l40s").bf16Tflops) == Approx(362.05));
    CHECK(gpu("l40s").nvlinkGBps == 0);
    CHECK(value(gpu("l4").bf16Tflops) == Approx(121));
    // Volta tensor cores: 125 TFLOPS FP16 (SXM2), no BF16 at all.
    CHECK(value(gpu("v100-sxm2-32gb").fp16Tflops) == Approx(125));
    CHECK_FALSE(gpu("v100-sxm2-32gb").bf16Tflops.has_value());
    CHECK_FALSE(gpu("v100-sxm2-32gb").supportsBf16);
    // AMD: MI300X 1,307.4 TFLOPS dense BF16 (2,614.9 sparse), 5.3 TB/s HBM3.
    CHECK(value(gpu("mi300x").bf16Tflops) == Approx(1307.4));
    CHECK(gpu("mi300x").bandwidthGBps == Approx(5300));
}

TEST_CASE("GeForce figures use the FP32-accumulate tensor rate", "[gpus]") {
    // Ada whitepaper Appendix A, RTX 4090: FP16 with FP32 accumulate 165.2
    // dense, FP16 accumulate 330.3 dense; 1,008 GB/s; no NVLink; 24564 MiB.
    const GpuSpec& rtx4090 = gpu("rtx-4090");
    CHECK(value(rtx4090.fp16Tflops) == Approx(165.2));
    CHECK(value(rtx4090.bf16Tflops) == Approx(165.2));
    CHECK(value(rtx4090.fp16Acc16Tflops) == Approx(330.3));
    CHECK(rtx4090.bandwidthGBps == Approx(1008));
    CHECK(rtx4090.nvlinkGBps == 0);
    CHECK(rtx4090.memoryGib == Approx(24564.0 / 1024).margin(0.01));
    // GA102 whitepaper, RTX 3090: 71 / 142 dense; RTX Blackwell whitepaper, RTX 5090: 209.5 / 419.
    CHECK(value(gpu("rtx-3090").fp16Tflops) == Approx(71));
    CHECK(value(gpu("rtx-3090").fp16Acc16Tflops) == Approx(142));
    CHECK(value(gpu("rtx-5090").bf16Tflops) == Approx(209.5));
    CHECK(value(gpu("rtx-5090").fp16Acc16Tflops) == Approx(419));
    // Turing blog Table 1, RTX 2080 Ti: 53.8 FP32-accumulate, 107.6 FP16-accumulate.
    CHECK(value(gpu("rtx-2080-ti").fp16Tflops) == Approx(53.8));

    // The half-rate rule holds for every GeForce entry that lists both rates.
    for (const GpuSpec& g : projectCatalog().gpus) {
        if (g.vendor != "nvidia" || g.gpuClass != "consumer" || !g.fp16Acc16Tflops || !g.fp16Tflops) continue;
        INFO(g.id);
        CHECK(*g.fp16Tflops == Approx(*g.fp16Acc16Tflops / 2).margin(0.11));
    }
}

TEST_CASE("no catalog figure is one of the sparse or non-tensor numbers quoted in the seed articles", "[gpus]") {
    // Seed claims checked against datasheets: H100 "1979" and L40S "731/733" are
    // 2:4-sparse, L4 "242" is sparse, RTX 4090 "82.6" is the non-tensor FP32 rate,
    // RTX A6000 "77.4" is TF32.
    CHECK(value(gpu("h100-sxm5-80gb").bf16Tflops) != Approx(1979));
    CHECK(value(gpu("h800-sxm5-80gb").bf16Tflops) < 1000);
    CHECK(value(gpu("l40s").bf16Tflops) < 700);
    CHECK(value(gpu("l4").bf16Tflops) < 200);
    CHECK(value(gpu("rtx-4090").fp16Tflops) != Approx(82.6));
    CHECK(value(gpu("rtx-a6000").bf16Tflops) == Approx(154.8));
}

TEST_CASE("the modified RTX 2080 Ti 22GB keeps the stock card's compute and bandwidth", "[gpus]") {
    const GpuSpec& modded = gpu("rtx-2080-ti-22gb");
    const GpuSpec& stock = gpu("rtx-2080-ti");
    CHECK(modded.memoryGb == Approx(22));
    CHECK(modded.bandwidthGBps == Approx(stock.bandwidthGBps));  // same 352-bit bus, 14 Gbps
    CHECK(value(modded.fp16Tflops) == Approx(value(stock.fp16Tflops)));
    CHECK(modded.confidence == "low");
    CHECK(std::find(modded.caveats.begin(), modded.caveats.end(), "modded-2080ti") != modded.caveats.end());
}

TEST_CASE("caveats are bilingual and attached where they apply", "[gpus]") {
    const caliper::Catalog& catalog = projectCatalog();
    for (const caliper::Caveat& c : catalog.caveats) {
        INFO(c.id);
        CHECK(c.en.size() > 20);
        CHECK(hasChinese(c.zh));
    }
    auto has = [](const GpuSpec& g, const std::string& id) {
        return std::find(g.caveats.begin(), g.caveats.end(), id) != g.caveats.end();
    };
    for (const GpuSpec& g : catalog.gpus) {
        INFO(g.id);
        if (g.market == "china" && g.vendor == "nvidia") CHECK(has(g, "export-control"));
        if (g.vendor == "apple") CHECK(has(g, "apple-unified"));
        if (g.vendor == "amd") CHECK(has(g, "rocm-ecosystem"));
        if (g.vendor == "nvidia" && g.gpuClass == "consumer") CHECK(has(g, "gaming-card"));
    }
    CHECK(has(gpu("a100-sxm4-40gb"), "a100-40gb-small"));
    CHECK(has(gpu("t4"), "no-bf16-fa2"));
    CHECK(has(gpu("h20-96gb"), "h20-low-compute"));
    CHECK(has(gpu("rtx-4090d"), "china-4090d"));
}

TEST_CASE("lookups find what people type", "[gpus]") {
    const caliper::Catalog& catalog = projectCatalog();
    const std::pair<const char*, const char*> cases[] = {
        {"RTX 4090", "rtx-4090"},          {"4090", "rtx-4090"},
        {"NVIDIA GeForce RTX 4090", "rtx-4090"}, {"geforce rtx 4090", "rtx-4090"},
        {"h100 sxm", "h100-sxm5-80gb"},    {"H100 80GB HBM3", "h100-sxm5-80gb"},
        {"NVIDIA H100 80GB HBM3", "h100-sxm5-80gb"}, {"H100", "h100-sxm5-80gb"},
        {"A100", "a100-sxm4-80gb"},        {"A100-SXM4-80GB", "a100-sxm4-80gb"},
        {"NVIDIA A100 80GB", "a100-sxm4-80gb"}, {"A100 40GB", "a100-sxm4-40gb"},
        {"A800", "a800-sxm4-80gb"},        {"H800", "h800-sxm5-80gb"},
        {"2080 Ti 22GB", "rtx-2080-ti-22gb"}, {"4090D", "rtx-4090d"},
        {"910B", "ascend-910b"},           {"MI300X", "mi300x"},
        {"Apple M2 Max (38-core GPU)", "apple-m2-max-38c"}, {"M2 Max 38-core", "apple-m2-max-38c"},
        {"NVIDIA Tesla P40", "p40"},       {"Tesla M40 24GB", "tesla-m40-24gb"},
        {"AMD Radeon PRO V620", "radeon-pro-v620"}, {"DGX Spark", "dgx-spark-gb10"},
    };
    for (const auto& [query, id] : cases) {
        INFO(query);
        const GpuSpec* found = caliper::findGpu(catalog, query);
        REQUIRE(found);
        CHECK(found->id == id);
    }
}

TEST_CASE("every GPU named in the validation rows resolves to a catalog entry", "[gpus][validation]") {
    // Rows name GPUs as their sources did, with notes in parentheses; the
    // core count of Apple chips and GB10 are part of the name.
    const std::regex note(R"(\s*\((?!\d+-core GPU\)|GB10\))[^)]*\))");
    std::set<std::string> names;
    std::istringstream lines(readText(std::string(CALIPER_VALIDATION_DIR) + "/public.jsonl"));
    for (std::string line; std::getline(lines, line);) {
        if (line.empty()) continue;
        const Json row = Json::parse(line);
        if (row.contains("gpu") && row["gpu"].is_string()) names.insert(row["gpu"].get<std::string>());
    }
    REQUIRE(names.size() > 50);
    for (const std::string& name : names) {
        if (name.rfind("any ", 0) == 0) continue;  // estimator rows name no GPU
        const std::string query = std::regex_replace(name, note, "");
        INFO(name << " -> " << query);
        CHECK(caliper::findGpu(projectCatalog(), query) != nullptr);
    }
}

TEST_CASE("the GPUs named in the second set of public rows resolve, but for three without a stored spec source",
          "[gpus][validation]") {
    // public-v2 names cards as nvidia-smi and the submitting tools print them
    // ("NVIDIA GeForce GTX 1050 Ti", "Apple M5 Max", "h100_sxm"). The RTX 5880 Ada,
    // the GTX 1070 and the Radeon 840M/860M iGPU have no stored datasheet, so they stay out.
    const std::regex note(R"(\s*\([^)]*\))");
    const std::set<std::string> unsourced = {"NVIDIA RTX 5880 Ada Generation", "NVIDIA GeForce GTX 1070",
                                             "Radeon 840M / 860M Graphics"};
    std::set<std::string> names;
    std::istringstream lines(readText(std::string(CALIPER_VALIDATION_DIR) + "/public-v2.jsonl"));
    for (std::string line; std::getline(lines, line);) {
        if (line.empty()) continue;
        const Json row = Json::parse(line);
        if (row.contains("gpu") && row["gpu"].is_string()) names.insert(row["gpu"].get<std::string>());
    }
    REQUIRE(names.size() > 10);
    for (const std::string& name : names) {
        if (unsourced.count(name)) continue;
        INFO(name);
        CHECK(caliper::findGpu(projectCatalog(), std::regex_replace(name, note, "")) != nullptr);
    }
}

TEST_CASE("gpuToJson writes the catalog keys and reads back to the same entry", "[gpus][json]") {
    for (const GpuSpec& g : projectCatalog().gpus) {
        INFO(g.id);
        const Json written = caliper::io::gpuToJson(g);
        for (const char* key : {"id", "name", "aliases", "vendor", "memory_gib", "memory_gb", "bandwidth_gbps",
                                "bf16_tflops", "fp16_tflops", "fp8_tflops", "int8_tops", "fp32_tflops", "nvlink_gbps",
                                "tdp_w", "price_usd", "cloud_usd_per_hour", "sources"}) {
            CHECK(written.contains(key));
        }
        const GpuSpec back = caliper::io::gpuFromJson(written, "/gpus/0");
        CHECK(caliper::io::gpuToJson(back) == written);
    }
}

// The page shows a Chinese reader each entry's notes_zh (data/README.md),
// which it reads from the engine's listings: they carry it as written.
TEST_CASE("the catalog listings pass each entry's Chinese notes through", "[gpus][models][json]") {
    const Json gpus = Json::parse(caliper::listGpusJson(projectCatalog()).json);
    const Json models = Json::parse(caliper::listModelsJson(projectCatalog()).json);
    REQUIRE(gpus.size() == projectCatalog().gpus.size());
    REQUIRE(models.size() == projectCatalog().models.size());
    for (std::size_t i = 0; i < gpus.size(); ++i) {
        INFO(gpus[i]["id"]);
        CHECK(gpus[i].value("notes_zh", std::string()) == projectCatalog().gpus[i].notesZh);
    }
    for (std::size_t i = 0; i < models.size(); ++i) {
        INFO(models[i]["id"]);
        CHECK(models[i].value("notes_zh", std::string()) == projectCatalog().models[i].notesZh);
    }
    CHECK(gpu("h100-sxm5-80gb").notesZh.find("数据手册") == 0);  // data/gpus.json: "数据手册：稠密 BF16/FP16 ..."
    Json entry = fixture("gpus_valid.json")["gpus"][0];
    CHECK(caliper::io::gpuFromJson(entry, "/gpus/0").notesZh.empty());  // optional
    entry["notes_zh"] = 3;
    const caliper::Error error = gpuError(entry);
    CHECK(error.code == "invalid_value");
    CHECK(error.path == "/gpus/0/notes_zh");
}

TEST_CASE("denseTensorTflops16 prefers BF16, then FP16, then FP32", "[gpus]") {
    CHECK(caliper::denseTensorTflops16(gpu("h100-sxm5-80gb")) == Approx(989.4));  // BF16 tensor
    CHECK(caliper::denseTensorTflops16(gpu("v100-sxm2-32gb")) == Approx(125));    // Volta: FP16 only
    CHECK(caliper::denseTensorTflops16(gpu("p40")) == Approx(11.8));              // no tensor cores
    CHECK(caliper::denseTensorTflops16(GpuSpec{}) == 0);
}

TEST_CASE("the valid GPU fixture loads", "[gpus][errors]") {
    const GpuSpec g = caliper::io::gpuFromJson(fixture("gpus_valid.json")["gpus"][0], "/gpus/0");
    CHECK(g.id == "fixture-gpu");
    CHECK(g.bandwidthGBps == Approx(1008));
}

TEST_CASE("bad GPU entries are rejected with a code, a pointer and a message", "[gpus][errors]") {
    struct Case {
        const char* file;
        const char* code;
        const char* path;
        const char* message;
    };
    const Case c = GENERATE(values<Case>({
        {"gpus_negative_bandwidth.json", "invalid_value", "/gpus/0/bandwidth_gbps", "expected a positive number, got -3"},
        {"gpus_unknown_key.json", "unknown_key", "/gpus/0/tflops_fp16", "unknown key 'tflops_fp16'"},
        {"gpus_wrong_type.json", "invalid_value", "/gpus/0/memory_gib", "expected a number, got \"24\""},
        {"gpus_missing_sources.json", "missing_key", "/gpus/0/sources", "required key 'sources' is missing"},
        {"gpus_empty_sources.json", "invalid_value", "/gpus/0/sources", "expected at least 1 entries, got 0"},
        {"gpus_bad_vendor.json", "invalid_value", "/gpus/0/vendor",
         "expected one of nvidia, amd, intel, huawei, apple, cambricon, biren, moore-threads, hygon, kunlunxin, metax, "
         "enflame, iluvatar, got \"nvida\""},
        {"gpus_bad_confidence.json", "invalid_value", "/gpus/0/confidence", "got \"certain\""},
        {"gpus_tdp_out_of_range.json", "invalid_value", "/gpus/0/tdp_w", "expected a number at most 5000, got 70000"},
        {"gpus_missing_nullable_key.json", "missing_key", "/gpus/0/fp8_tflops", "required key 'fp8_tflops' is missing"},
        {"gpus_bad_id.json", "invalid_value", "/gpus/0/id", "expected a kebab-case id"},
        {"gpus_missing_bandwidth.json", "missing_key", "/gpus/0/bandwidth_gbps", "required key 'bandwidth_gbps' is missing"},
        {"gpus_cloud_prices_not_list.json", "invalid_value", "/gpus/0/cloud_prices", "expected an array"},
        {"gpus_cloud_price_bad_currency.json", "invalid_value", "/gpus/0/cloud_prices/0/currency",
         "expected one of usd, cny, got \"eur\""},
        {"gpus_cloud_price_bad_date.json", "invalid_value", "/gpus/0/cloud_prices/0/date",
         "expected a YYYY-MM month, got \"2026-8\""},
        {"gpus_cloud_price_negative.json", "invalid_value", "/gpus/0/cloud_prices/0/per_gpu_hour",
         "expected a positive number, got -1.88"},
        {"gpus_cloud_price_missing_source.json", "missing_key", "/gpus/0/cloud_prices/0/source",
         "required key 'source' is missing"},
        {"gpus_cloud_price_unknown_key.json", "unknown_key", "/gpus/0/cloud_prices/0/price", "unknown key 'price'"},
    }));
    INFO(c.file);
    const caliper::Error error = gpuError(fixture(c.file)["gpus"][0]);
    INFO(error.path << ": " << error.message);
    CHECK(error.code == c.code);
    CHECK(error.path == c.path);
    CHECK(error.message.find(c.message) != std::string::npos);
}

TEST_CASE("the accelerators added for late 2026 are present under stable ids", "[gpus]") {
    for (const char* id :
         {"rtx-5090d", "rtx-5090d-v2", "h20-141gb", "rtx-4090-48gb", "rtx-4090d-48gb", "rtx-3080-20gb",
          "rtx-pro-5000-blackwell", "rtx-pro-5000-blackwell-72gb", "rtx-pro-4500-blackwell", "rtx-pro-6000-blackwell-server",
          "rx-7900-xt", "ryzen-ai-max-395-128gb", "ryzen-ai-max-395-64gb", "arc-pro-b60", "arc-pro-b60-dual-48gb",
          "ascend-910c", "atlas-300i-duo", "mlu370-x8", "biren-br100", "biren-br104", "mtt-s4000", "mi350x", "gh200-96gb",
          "apple-m4-max-40c-48gb", "apple-m4-max-40c-64gb", "apple-m3-ultra-80c-96gb", "apple-m3-ultra-80c-256gb",
          "apple-m3-ultra-60c-96gb", "rtx-2080", "gtx-1050-ti", "apple-m5-max-40c", "apple-m5-pro-20c"}) {
        INFO(id);
        CHECK(gpu(id).id == id);
    }
}

TEST_CASE("figures of the added accelerators match their sources", "[gpus]") {
    // Tom's Hardware 5090D V2 table: 24 GB on 384 bits at 28 Gbps = 1,344 GB/s;
    // AI TOPS 2,375 (5090: 3,352), so tensor rates are the 5090's x 2375/3352.
    CHECK(gpu("rtx-5090d-v2").bandwidthGBps == Approx(384 * 28 / 8.0));
    CHECK(value(gpu("rtx-5090d").bf16Tflops) == Approx(209.5 * 2375 / 3352).margin(0.1));
    CHECK(value(gpu("rtx-5090d").priceCny) == Approx(16499));  // China MSRP
    // Deploybase's RunPod table (March 2026): H200 $3.59 and B200 $5.98 per GPU-hour, spot tier.
    CHECK(value(gpu("h200-sxm-141gb").cloudUsdPerHour) == Approx(3.59));
    CHECK(gpu("b200").cloudDate == "2026-03");
    // Purchase prices of early 2026: H200 SXM $28-31k retail (middle kept), CNY 190,000 per chip quoted in China.
    CHECK(value(gpu("h200-sxm-141gb").priceUsd) == Approx(29500));
    CHECK(value(gpu("h200-sxm-141gb").priceCny) == Approx(190000));
    CHECK(gpu("h200-sxm-141gb").priceYear == 2026);
}

TEST_CASE("purchase prices load with their currency and year", "[gpus][cost]") {
    // AMD's RX 9000 announcement: RX 9070 XT at $599, on sale March 2025.
    CHECK(value(gpu("rx-9070-xt").priceUsd) == Approx(599));
    CHECK(gpu("rx-9070-xt").priceYear == 2025);
    // IT Times (2024): H20 at about CNY 110,000 per card from China distributors.
    CHECK(value(gpu("h20-96gb").priceCny) == Approx(110000));
    // Expert-call minutes (March 2024): L20 at about CNY 75,000; no USD price, so that stays unknown.
    CHECK(value(gpu("l20").priceCny) == Approx(75000));
    CHECK_FALSE(gpu("l20").priceUsd.has_value());
    // A chip sold only inside Macs takes the cheapest Mac with it: Mac Studio M3 Ultra 60-core GPU, 96 GB, $3,999.
    CHECK(value(gpu("apple-m3-ultra-60c-96gb").priceUsd) == Approx(3999));
    // China launch prices beside the USD MSRP: RTX 3090 CNY 11,999 (dians.net, 2022 launch coverage),
    // RTX 4060 CNY 2,399 announced by NVIDIA (2023).
    CHECK(value(gpu("rtx-3090").priceCny) == Approx(11999));
    CHECK(value(gpu("rtx-3090").priceUsd) == Approx(1499));
    CHECK(value(gpu("rtx-4060").priceCny) == Approx(2399));
    // IT Home, ithome.com (January 2025): RTX 5080 first sale in China at CNY 8,299; the M4 Mac mini (16 GB) is
    // CNY 4,499 on Apple China (December 2024). A card no longer sold new keeps a null CNY price.
    CHECK(value(gpu("rtx-5080").priceCny) == Approx(8299));
    CHECK(value(gpu("apple-m4-10c-16gb").priceCny) == Approx(4499));
    CHECK_FALSE(gpu("rtx-3070").priceCny.has_value());
    CHECK(gpu("rtx-4060").priceYear == 2023);
    // May 2023 China prices of the RTX 4060 family: 4060 Ti 16GB / 8GB from CNY 3,899 / 3,199 (a copy of a
    // 2023-05-22 news item; PurePC also gives the 8 GB card's China MSRP as RMB 3,199).
    CHECK(value(gpu("rtx-4060-ti-16gb").priceCny) == Approx(3899));
    CHECK(value(gpu("rtx-4060-ti-8gb").priceCny) == Approx(3199));
    // 36Kr's 2022-03-09 launch roundup: Mac Studio with M1 Ultra from CNY 29,999 (the $3,999 model).
    CHECK(value(gpu("apple-m1-ultra-48c-64gb").priceCny) == Approx(29999));
}

TEST_CASE("memory-modded cards keep the stock card's compute and bandwidth", "[gpus]") {
    const std::pair<const char*, const char*> pairs[] = {
        {"rtx-4090-48gb", "rtx-4090"}, {"rtx-4090d-48gb", "rtx-4090d"}, {"rtx-3080-20gb", "rtx-3080-10gb"}};
    for (const auto& [modded, stock] : pairs) {
        INFO(modded);
        CHECK(gpu(modded).bandwidthGBps == Approx(gpu(stock).bandwidthGBps));  // same bus and memory clock
        CHECK(value(gpu(modded).fp16Tflops) == Approx(value(gpu(stock).fp16Tflops)));
        CHECK(gpu(modded).memoryGb == Approx(2 * gpu(stock).memoryGb));  // double-capacity chips
        CHECK(gpu(modded).confidence == "low");
        const auto& caveats = gpu(modded).caveats;
        CHECK(std::find(caveats.begin(), caveats.end(), "modded-card") != caveats.end());
    }
}

TEST_CASE("China-market accelerators carry their software-ecosystem caveat", "[gpus]") {
    const std::pair<const char*, const char*> byVendor[] = {
        {"huawei", "ascend-cann"},      {"cambricon", "cambricon-neuware"}, {"biren", "biren-supa"},
        {"moore-threads", "musa-ecosystem"}, {"hygon", "hygon-dtk"},          {"kunlunxin", "kunlunxin-xpu"},
        {"metax", "metax-maca"},          {"enflame", "enflame-tops"},
        {"iluvatar", "iluvatar-corex"}};
    int checked = 0;
    for (const GpuSpec& g : projectCatalog().gpus) {
        for (const auto& [vendor, caveat] : byVendor) {
            if (g.vendor != vendor) continue;
            INFO(g.id);
            CHECK(std::find(g.caveats.begin(), g.caveats.end(), caveat) != g.caveats.end());
            CHECK(g.market == "china");
            ++checked;
        }
    }
    CHECK(checked >= 14);
    // Cambricon's MLU370-X8 launch figures: 96 TFLOPS FP16/BF16, 614.4 GB/s LPDDR5, 250 W.
    CHECK(value(gpu("mlu370-x8").bf16Tflops) == Approx(96));
    CHECK(gpu("mlu370-x8").bandwidthGBps == Approx(614.4));
    CHECK(gpu("mlu370-x8").tdpW == Approx(250));
}

TEST_CASE("board power comes from a source: card ratings, and Apple's whole-machine maxima", "[gpus][power]") {
    // NVIDIA's 220 W TGP (HKEPC); the 300 W cap nvidia-smi reports for the A10G
    // on AWS g5 and for the A800 PCIe 80GB; the top of AMD's 45-120 W cTDP.
    CHECK(gpu("rtx-4070-super").tdpW == Approx(220));
    CHECK(gpu("a10g").tdpW == Approx(300));
    CHECK(gpu("a800-pcie-80gb").tdpW == Approx(300));
    CHECK(gpu("ryzen-ai-max-395-128gb").tdpW == Approx(120));
    // Apple's power tables (support 102027 Mac Studio, 103253 Mac mini, the
    // iMac page for the M3): the whole machine's maximum, per chip and desktop.
    const std::pair<const char*, double> macs[] = {
        {"apple-m3-ultra-80c", 270}, {"apple-m4-max-40c", 145},   {"apple-m2-ultra-76c", 295},
        {"apple-m2-max-38c", 145},   {"apple-m1-ultra-64c", 215}, {"apple-m1-max-32c", 115},
        {"apple-m4-pro-20c", 140},   {"apple-m2-pro-19c", 100},   {"apple-m4-10c", 65},
        {"apple-m2-10c", 50},        {"apple-m1-8c", 39},         {"apple-m3-10c", 85}};
    for (const auto& [id, watts] : macs) {
        INFO(id);
        CHECK(gpu(id).tdpW == Approx(watts));
    }
    for (const GpuSpec& g : projectCatalog().gpus) {
        if (g.vendor != "apple") continue;
        INFO(g.id);
        // A figure says it is the whole machine; no figure says why (notebook-only chips).
        if (g.tdpW > 0) CHECK(g.notes.find("the whole") != std::string::npos);
        else CHECK(g.notes.find("MacBook Pro") != std::string::npos);
    }
}

TEST_CASE("Hygon DCUs carry Hygon's published figures", "[gpus]") {
    // Hygon's figures as tabulated in wangzy0327/hblas-bench DCU-bench.md:
    // K100 AI 196 TFLOPS BF16/FP16, 392 TOPS INT8, 98 TF32, 49 FP32, 64 GB at 896 GB/s;
    // BW200 480 TFLOPS BF16/FP16, 960 TOPS INT8, 64 GB at 1.6 TB/s.
    CHECK(value(gpu("hygon-k100-ai").bf16Tflops) == Approx(196));
    CHECK(value(gpu("hygon-k100-ai").int8Tops) == Approx(392));
    CHECK(gpu("hygon-k100-ai").bandwidthGBps == Approx(896));
    CHECK(gpu("hygon-k100-ai").memoryGb == Approx(64));
    CHECK(value(gpu("hygon-bw200").fp16Tflops) == Approx(480));
    CHECK(gpu("hygon-bw200").bandwidthGBps == Approx(1600));
    for (const char* id : {"hygon-k100-ai", "hygon-bw200"}) {
        INFO(id);
        // No FP8 row in Hygon's table and no published scale-up bandwidth or board power.
        CHECK_FALSE(gpu(id).fp8Tflops.has_value());
        CHECK_FALSE(gpu(id).supportsFp8);
        CHECK(gpu(id).nvlinkGBps == 0);
        CHECK(gpu(id).tdpW == 0);
        CHECK(gpu(id).confidence == "low");
    }
}

TEST_CASE("Kunlunxin, MetaX, Cambricon MLU590 and Enflame carry only their sourced figures", "[gpus]") {
    // xpu_smi in PaddlePaddle/ERNIE docs/devices/README_XPU.md: P800 OAM, 98304 MiB, 400 W cap.
    CHECK(gpu("kunlunxin-p800").memoryGib == Approx(98304 / 1024.0));
    CHECK(gpu("kunlunxin-p800").tdpW == Approx(400));
    // Secondary compilations (no Kunlunxin datasheet): 345 TFLOPS FP16.
    CHECK(value(gpu("kunlunxin-p800").fp16Tflops) == Approx(345));
    // Gitee AI's C500 page (MetaX's official figures): FP16/BF16 280, TF32 140, INT8 560, FP32 vector 18.
    CHECK(value(gpu("metax-c500").bf16Tflops) == Approx(280));
    CHECK(value(gpu("metax-c500").tf32Tflops) == Approx(140));
    CHECK(value(gpu("metax-c500").int8Tops) == Approx(560));
    CHECK(value(gpu("metax-c500").fp32Tflops) == Approx(18));
    CHECK_FALSE(gpu("metax-c500").supportsFp8);  // the same page: no FP8
    // mx-smi in PaddlePaddle/ERNIE docs/devices/README_METAX_GPU.md: C550, 65536 MiB, 450 W cap.
    CHECK(gpu("metax-c550").memoryGib == Approx(64));
    CHECK(gpu("metax-c550").tdpW == Approx(450));
    // CNMON on MLU590-M9: 98304 MiB per card.
    CHECK(gpu("mlu590").memoryGib == Approx(96));
    // 快科技 / 雷锋网 2021-07-08 (DTU 2.0 launch): FP32 40, TF32 160, INT8 320, 64 GB HBM2E at 1.8 TB/s,
    // six 50 GB/s GCU-LARE ports.
    CHECK(value(gpu("enflame-t20").tf32Tflops) == Approx(160));
    CHECK(value(gpu("enflame-t20").int8Tops) == Approx(320));
    CHECK(gpu("enflame-t20").bandwidthGBps == Approx(1800));
    CHECK(gpu("enflame-t20").nvlinkGBps == Approx(6 * 50));
    // FlagOpen/FlagPerf base/benchmarks/main_memory-bandwidth/metax/C550/README.md: calibrated 1.8 TB/s
    // (1,390.5 GB/s measured); the tensor rates stay unpublished, so decode speed only.
    CHECK(gpu("metax-c550").bandwidthGBps == Approx(1800));
    // FlagOpen/FlagPerf base/benchmarks/main_memory-bandwidth/metax/README.md: C500 64G calibrated
    // 1.8 TB/s (1,376 GB/s measured); Epoch AI's 'MetaX MXC500 (OAM)' row: 450 W.
    CHECK(gpu("metax-c500").bandwidthGBps == Approx(1800));
    CHECK(gpu("metax-c500").tdpW == Approx(450));
    // No vendor publishes the bandwidth of these two: unknown (0), flagged by a caveat.
    for (const char* id : {"kunlunxin-p800", "mlu590"}) {
        INFO(id);
        CHECK(gpu(id).bandwidthGBps == 0);
        const auto& caveats = gpu(id).caveats;
        CHECK(std::find(caveats.begin(), caveats.end(), "unpublished-bandwidth") != caveats.end());
        CHECK(gpu(id).market == "china");
    }
    // Unpublished rates stay null rather than borrowed from a sibling.
    CHECK_FALSE(gpu("metax-c550").bf16Tflops.has_value());
    CHECK_FALSE(gpu("mlu590").fp16Tflops.has_value());
    CHECK_FALSE(gpu("enflame-t20").bf16Tflops.has_value());
    CHECK(gpu("mlu590").tdpW == 0);
}

TEST_CASE("a GPU without a published bandwidth writes null and reads back", "[gpus][json]") {
    const Json written = caliper::io::gpuToJson(gpu("mlu590"));
    CHECK(written["bandwidth_gbps"].is_null());
    CHECK(caliper::io::gpuToJson(caliper::io::gpuFromJson(written, "/gpus/0")) == written);
}

TEST_CASE("cloud prices of other providers load with their currency and date", "[gpus][cost]") {
    // AutoDL's price list as captured 2026-08-15 (0xPabloLI/inside-china-ai
    // docs/research/cloud-gpu-options.md): RTX 4090 CNY 1.88, A800 80GB CNY 4.98 per GPU-hour.
    const auto& prices = gpu("rtx-4090").cloudPrices;
    const auto autodl = std::find_if(prices.begin(), prices.end(), [](const auto& p) { return p.provider == "AutoDL"; });
    REQUIRE(autodl != prices.end());
    CHECK(autodl->currency == "cny");
    CHECK(autodl->perGpuHour == Approx(1.88));
    CHECK(autodl->date == "2026-08");
    CHECK(gpu("a800-sxm4-80gb").cloudPrices.at(0).perGpuHour == Approx(4.98));
    // The USD price of the same card stays where it was (RunPod).
    CHECK(value(gpu("rtx-4090").cloudUsdPerHour) == Approx(0.34));
    const Json written = caliper::io::gpuToJson(gpu("rtx-4090"));
    CHECK(written["cloud_prices"][0]["per_gpu_hour"] == 1.88);
    CHECK(caliper::io::gpuToJson(caliper::io::gpuFromJson(written, "/gpus/0")) == written);
    CHECK_FALSE(caliper::io::gpuToJson(gpu("gb300")).contains("cloud_prices"));
}

TEST_CASE("hyperscaler and Chinese cloud prices carry their provider, region and month", "[gpus][cost]") {
    // DS436/sanskrit-token RENTING_A_GPU.md, prices read 2026-09-09: AWS g6.xlarge (1x L4)
    // $0.8048/h in us-east-1; Lambda 1x GH200 $2.29/h.
    const auto& l4 = gpu("l4").cloudPrices;
    const auto aws = std::find_if(l4.begin(), l4.end(), [](const auto& p) { return p.region == "us-east-1"; });
    REQUIRE(aws != l4.end());
    CHECK(aws->currency == "usd");
    CHECK(aws->perGpuHour == Approx(0.8048));
    CHECK(aws->date == "2026-09");
    CHECK(value(gpu("gh200-96gb").cloudUsdPerHour) == Approx(2.29));
    CHECK(gpu("gh200-96gb").cloudProvider == "Lambda");
    // cliffcenter.com AMD inference economics note (2026-05-18): MI300X at $1.50 per GPU-hour at TensorWave.
    CHECK(value(gpu("mi300x").cloudUsdPerHour) == Approx(1.50));
    CHECK(gpu("mi300x").cloudDate == "2026-05");
    // 0xPabloLI/inside-china-ai cloud-gpu-options.md (2026-08-13): Zhixingyun lists the RTX 3090 at CNY 1.10.
    const auto& r3090 = gpu("rtx-3090").cloudPrices;
    const auto zx = std::find_if(r3090.begin(), r3090.end(), [](const auto& p) { return p.perGpuHour < 1.2; });
    REQUIRE(zx != r3090.end());
    CHECK(zx->currency == "cny");
    CHECK(zx->perGpuHour == Approx(1.10));
    // datareceipts/data-receipts 109-gpu-pricing/hyperscalers.json (retrieved 2026-11-09): AWS p5.48xlarge,
    // 8 x H100 SXM at $55.04/h = $6.88 per GPU-hour in us-east-1.
    const auto& h100 = gpu("h100-sxm5-80gb").cloudPrices;
    const auto p5 = std::find_if(h100.begin(), h100.end(), [](const auto& p) { return p.provider.rfind("AWS", 0) == 0; });
    REQUIRE(p5 != h100.end());
    CHECK(p5->perGpuHour == Approx(55.04 / 8));
    CHECK(p5->region == "us-east-1");
    CHECK(p5->date == "2026-11");
    // Alibaba ECS DescribePrice quote of 2026-09-24 (public 'Cloud GPU live-capacity screen' note):
    // ecs.gn8is.2xlarge, one L20, CNY 14.63 per hour pay-as-you-go.
    const auto& l20 = gpu("l20").cloudPrices;
    REQUIRE(l20.size() == 1);
    CHECK(l20[0].currency == "cny");
    CHECK(l20[0].perGpuHour == Approx(14.63));
    CHECK(l20[0].date == "2026-09");
}

TEST_CASE("Ascend 910B2 and 950PR carry the whitepaper's cube rates", "[gpus]") {
    // Ascend 950 whitepaper table 3-1 and CANN platform files, as relayed in cann/ops-transformer#5487:
    // 910B2 = 24 cube cores x 1.8 GHz x 16^3 MACs x 2 = 353.9 TFLOPS BF16/FP16, 64 GB at 1.6 TB/s;
    // 950PR server tier = 32 cores x 1.65 GHz = 432 TFLOPS BF16/FP16, 865 FP8, 128 GB at 1.6 TB/s.
    CHECK(value(gpu("ascend-910b2").bf16Tflops) == Approx(24 * 1.8e9 * 16 * 16 * 16 * 2 / 1e12).margin(0.05));
    CHECK(gpu("ascend-910b2").bandwidthGBps == Approx(1600));
    CHECK_FALSE(gpu("ascend-910b2").supportsFp8);
    // Huawei rounds the 950PR's 32 x 1.65 GHz x 16^3 x 2 = 432.5 down to 432.
    CHECK(value(gpu("ascend-950pr").bf16Tflops) == Approx(432));
    CHECK(value(gpu("ascend-950pr").fp8Tflops) == Approx(865));
    CHECK(gpu("ascend-950pr").memoryGb == Approx(128));
    // The generic 910B keeps null rates: its SKUs (B1-B4) differ.
    CHECK_FALSE(gpu("ascend-910b").bf16Tflops.has_value());
}

TEST_CASE("every name, id and alias resolves to its own entry", "[gpus][lookup]") {
    // Catches two entries claiming the same alias after normalisation.
    const caliper::Catalog& catalog = projectCatalog();
    std::map<std::string, std::string> owner;
    for (const GpuSpec& g : catalog.gpus) {
        for (const std::string& query : g.aliases) {
            INFO(g.id << " alias " << query);
            CHECK(owner.emplace(caliper::normalizeName(query), g.id).first->second == g.id);
            const GpuSpec* found = caliper::findGpu(catalog, query);
            REQUIRE(found);
            CHECK(found->id == g.id);
        }
        INFO(g.id);
        CHECK(caliper::findGpu(catalog, g.id) == &g);
        CHECK(caliper::findGpu(catalog, g.name) == &g);
    }
}

TEST_CASE("names resolve as people write them: nvidia-smi, marketing, Chinese, memory suffixes", "[gpus][lookup]") {
    const caliper::Catalog& catalog = projectCatalog();
    const std::pair<const char*, const char*> cases[] = {
        // nvidia-smi --query-gpu=name
        {"NVIDIA H100 80GB HBM3", "h100-sxm5-80gb"}, {"NVIDIA GeForce RTX 4090", "rtx-4090"},
        {"NVIDIA A100-SXM4-40GB", "a100-sxm4-40gb"}, {"NVIDIA A100-SXM4-80GB", "a100-sxm4-80gb"},
        {"NVIDIA GeForce RTX 5090 D", "rtx-5090d"}, {"NVIDIA H20", "h20-96gb"},
        // marketing names
        {"RTX PRO 6000 Blackwell Server Edition", "rtx-pro-6000-blackwell-server"}, {"RTX PRO 5000", "rtx-pro-5000-blackwell"},
        {"Radeon RX 7900 XT", "rx-7900-xt"}, {"Ryzen AI Max+ 395", "ryzen-ai-max-395-128gb"}, {"Strix Halo", "ryzen-ai-max-395-128gb"},
        {"Intel Arc Pro B60", "arc-pro-b60"}, {"Arc Pro B60 Dual 48G", "arc-pro-b60-dual-48gb"}, {"DGX Spark", "dgx-spark-gb10"},
        {"Huawei Ascend 910C", "ascend-910c"}, {"Atlas 300I Duo", "atlas-300i-duo"}, {"Cambricon MLU370-X8", "mlu370-x8"},
        {"Moore Threads MTT S4000", "mtt-s4000"}, {"Biren BR104", "biren-br104"}, {"MI350X", "mi350x"}, {"GH200", "gh200-96gb"},
        // Chinese names
        {"昇腾910B", "ascend-910b"}, {"昇腾 910C", "ascend-910c"}, {"魔改4090 48G", "rtx-4090-48gb"},
        {"魔改 4090 48G", "rtx-4090-48gb"}, {"魔改2080Ti 22G", "rtx-2080-ti-22gb"}, {"寒武纪MLU370-X8", "mlu370-x8"},
        {"摩尔线程S4000", "mtt-s4000"}, {"英伟达 H100", "h100-sxm5-80gb"}, {"海光K100-AI", "hygon-k100-ai"},
        {"海光 DCU K100_AI", "hygon-k100-ai"}, {"海光BW200", "hygon-bw200"}, {"昇腾910B3", "ascend-910b"},
        // driver and SoC names: hy-smi's K100_AI, npu-smi's 910B3, CANN's Ascend910B2
        {"K100_AI", "hygon-k100-ai"}, {"Hygon DCU K100-AI", "hygon-k100-ai"}, {"Hygon BW200", "hygon-bw200"},
        {"910B3", "ascend-910b"}, {"Ascend910B2", "ascend-910b2"}, {"Huawei Ascend 910B4", "ascend-910b"},
        {"910B2", "ascend-910b2"}, {"昇腾950PR", "ascend-950pr"}, {"Ascend950PR", "ascend-950pr"},
        // memory suffixes, with or without the B, spaced or not
        {"A100 80G", "a100-sxm4-80gb"}, {"A100 40G", "a100-sxm4-40gb"}, {"4090 48G", "rtx-4090-48gb"},
        {"4090 48GB", "rtx-4090-48gb"}, {"2080ti 22g", "rtx-2080-ti-22gb"}, {"2080 Ti 22GB", "rtx-2080-ti-22gb"},
        {"3080 20G", "rtx-3080-20gb"}, {"H20 141G", "h20-141gb"}, {"5090 32G", "rtx-5090"}, {"RTX 4090 24G", "rtx-4090"},
        {"H100 SXM 80G", "h100-sxm5-80gb"}, {"L40S 48G", "l40s"}, {"M3 Ultra 512GB", "apple-m3-ultra-80c"},
        {"M3 Ultra 96GB", "apple-m3-ultra-60c-96gb"}, {"M4 Max 64GB", "apple-m4-max-40c-64gb"}, {"Strix Halo 64GB", "ryzen-ai-max-395-64gb"},
        {"K100-AI 64G", "hygon-k100-ai"}, {"BW200 64GB", "hygon-bw200"},
        // Kunlunxin, MetaX, Cambricon and Enflame as written in Chinese and by their tools
        {"昆仑芯P800", "kunlunxin-p800"}, {"昆仑芯 P800", "kunlunxin-p800"}, {"Kunlunxin P800", "kunlunxin-p800"},
        {"百度昆仑芯P800", "kunlunxin-p800"}, {"P800 OAM", "kunlunxin-p800"}, {"P800 96G", "kunlunxin-p800"},
        {"沐曦C500", "metax-c500"}, {"曦云C500", "metax-c500"}, {"MetaX C500", "metax-c500"}, {"MXC500", "metax-c500"},
        {"沐曦 曦云C550", "metax-c550"}, {"MetaX C550", "metax-c550"}, {"思元590", "mlu590"}, {"寒武纪MLU590", "mlu590"},
        {"MLU590-M9", "mlu590"}, {"云燧T20", "enflame-t20"}, {"燧原T20", "enflame-t20"}, {"Enflame CloudBlazer T20", "enflame-t20"},
    };
    for (const auto& [query, id] : cases) {
        INFO(query);
        const GpuSpec* found = caliper::findGpu(catalog, query);
        REQUIRE(found);
        CHECK(found->id == id);
    }
    // A memory size the catalog does not have is a miss, never the stock card.
    CHECK(caliper::findGpu(catalog, "4090 96G") == nullptr);
    CHECK(caliper::findGpu(catalog, "2080 Ti 33GB") == nullptr);
    // Chinese text is part of the name: "魔改4090" is the modded card, not the stock one.
    CHECK(caliper::findGpu(catalog, "魔改4090")->id == "rtx-4090-48gb");
    CHECK(caliper::findGpu(catalog, "4090")->id == "rtx-4090");
}

TEST_CASE("a miss suggests display names, closest first", "[gpus][lookup]") {
    const auto names = caliper::nearestGpuNames(projectCatalog(), "H1000");
    REQUIRE(names.size() == 3);
    CHECK(names[0] == "NVIDIA H100 SXM5 80GB");  // one edit from its alias "H100"; every other name is two or more
    for (const std::string& name : names) CHECK(caliper::findGpu(projectCatalog(), name) != nullptr);
}

TEST_CASE("a GPU without a published bandwidth gets memory figures and no speed", "[gpus][speed]") {
    for (const char* gpuName : {"昆仑芯P800", "思元590"}) {
        INFO(gpuName);
        const std::string request = std::string(R"({"model":"qwen3-8b","gpu":")") + gpuName + R"("})";
        const caliper::ApiResponse response = caliper::estimateJson(projectCatalog(), request);
        REQUIRE(response.status == 0);
        const Json r = Json::parse(response.json);
        CHECK(r["fits"].get<bool>());
        CHECK(r["memory"]["total_gib"].get<double>() > 0);
        CHECK(r["decode_tokens_per_s"].is_null());
        CHECK(r["prefill_tokens_per_s"].is_null());
        bool warned = false;
        for (const Json& w : r["warnings"]) warned = warned || w["code"] == "speed_unknown";
        CHECK(warned);
    }
    // The C500's bandwidth is FlagPerf's calibrated 1.8 TB/s (FlagOpen/FlagPerf main_memory-bandwidth/metax),
    // so it gets decode and prefill figures and no speed_unknown warning.
    const caliper::ApiResponse c500 =
        caliper::estimateJson(projectCatalog(), R"({"model":"qwen3-8b","gpu":"沐曦C500"})");
    REQUIRE(c500.status == 0);
    const Json r = Json::parse(c500.json);
    CHECK(r["decode_tokens_per_s"].get<double>() > 0);
    CHECK(r["prefill_tokens_per_s"].get<double>() > 0);
    for (const Json& w : r["warnings"]) CHECK(w["code"] != "speed_unknown");
}

TEST_CASE("nvidia-smi names and modified cards written in any word order resolve", "[gpus][names]") {
    const caliper::Catalog& catalog = projectCatalog();
    const std::vector<std::pair<std::string, std::string>> cases = {
        // nvidia-smi on a GH200 node prints "NVIDIA GH200 480GB" (the Grace CPU's
        // LPDDR5X) for the 96 GB GPU (the gh200-96gb entry's sources).
        {"NVIDIA GH200 480GB", "gh200-96gb"},
        {"NVIDIA A800 80GB PCIe", "a800-pcie-80gb"},
        {"A100 40GB PCIe", "a100-pcie-40gb"},
        // "魔改" (modified) may stand before, inside or after the name and size.
        {"2080ti魔改22g", "rtx-2080-ti-22gb"},
        {"3080 20G 魔改", "rtx-3080-20gb"},
        {"RTX 4090 48GB modded", "rtx-4090-48gb"},
    };
    for (const auto& [query, id] : cases) {
        INFO(query);
        const GpuSpec* found = caliper::findGpu(catalog, query);
        REQUIRE(found);
        CHECK(found->id == id);
    }
    // The marker never turns a stock card's name into a modified entry, nor
    // a modified name into the stock card.
    CHECK(caliper::findGpu(catalog, "魔改3090") == nullptr);
    CHECK(caliper::findGpu(catalog, "4080 32G 魔改") == nullptr);
}

TEST_CASE("a GPU miss suggests the card its name starts with, and vendor families by name", "[gpus][names]") {
    const caliper::Catalog& catalog = projectCatalog();
    // No 32 GB RTX 4080 is known: the stock 4080 leads the suggestions.
    CHECK(caliper::nearestGpuNames(catalog, "4080 32G").front() == "NVIDIA GeForce RTX 4080");
    // "海光" is a vendor word; "DCU" is part of the Hygon cards' names.
    CHECK(caliper::nearestGpuNames(catalog, "海光DCU").front().rfind("Hygon DCU", 0) == 0);
}

TEST_CASE("China-market cards priced from the trade press carry the figure and its currency only", "[gpus][cost]") {
    // blog.xasun.com/?p=277 (2025): 思元590 sold at CNY 60,000-90,000 per card; the midpoint is kept.
    CHECK(value(gpu("mlu590").priceCny) == Approx((60000.0 + 90000.0) / 2));
    CHECK(gpu("mlu590").priceYear == 2025);
    // Chinese media, late 2025: an 8-GPU H20 141 GB module at CNY 1.05 million, so 1,050,000 / 8 per GPU.
    CHECK(value(gpu("h20-141gb").priceCny) == Approx(1050000.0 / 8));
    // Neither source gives a dollar price, and none is invented from an exchange rate.
    CHECK_FALSE(gpu("mlu590").priceUsd.has_value());
    CHECK_FALSE(gpu("h20-141gb").priceUsd.has_value());
    // elektronikpraxis (2025, relaying Gamers Nexus): Atlas 300I Duo about USD 1,400; no yuan price in the sources.
    CHECK(value(gpu("atlas-300i-duo").priceUsd) == Approx(1400));
    CHECK_FALSE(gpu("atlas-300i-duo").priceCny.has_value());
}

TEST_CASE("company names, driver names and physical memory sizes of late-2026 cards resolve", "[gpus][names]") {
    const caliper::Catalog& catalog = projectCatalog();
    const std::pair<const char*, const char*> cases[] = {
        // nvidia-smi prints "NVIDIA H800 80GB HBM3" for the SXM H800, as it does "NVIDIA H100 80GB HBM3"
        // (device-name tables in public Triton/FlagTune fixtures list it beside "NVIDIA H800 PCIe").
        {"NVIDIA H800 80GB HBM3", "h800-sxm5-80gb"},
        // The B200 is sold as 192 GB (physical HBM3e); the entry holds the usable 180 GB.
        {"B200 192G", "b200"}, {"B200 192GB", "b200"},
        // Chinese shorthand and full company names: 寒武纪 (Cambricon), 壁仞科技 (Biren Technology),
        // 燧原科技 (Enflame Technology).
        {"寒武纪590", "mlu590"}, {"壁仞科技BR104", "biren-br104"}, {"壁仞科技BR100", "biren-br100"},
        {"燧原科技T20", "enflame-t20"},
        // Already resolving, kept so they stay so: driver and marketing names with memory suffixes.
        {"NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition", "rtx-pro-6000-blackwell-max-q"},
        {"RTX PRO 5000 72G", "rtx-pro-5000-blackwell-72gb"}, {"MI325X 256G", "mi325x"}, {"R9700 32G", "radeon-ai-pro-r9700"},
        {"华为昇腾910C", "ascend-910c"}, {"英伟达 H20 96G", "h20-96gb"}, {"摩尔线程 S4000 48G", "mtt-s4000"},
        {"昆仑芯 P800 96G", "kunlunxin-p800"}, {"海光K100 AI", "hygon-k100-ai"}, {"NVIDIA GeForce RTX 5090 D v2", "rtx-5090d-v2"},
    };
    for (const auto& [query, id] : cases) {
        INFO(query);
        const GpuSpec* found = caliper::findGpu(catalog, query);
        REQUIRE(found);
        CHECK(found->id == id);
    }
    // A size no B200 has is still a miss.
    CHECK(caliper::findGpu(catalog, "B200 96G") == nullptr);
}

TEST_CASE("a memory size written before the card's name resolves as one written after it", "[gpus][names]") {
    const caliper::Catalog& catalog = projectCatalog();
    // Chinese listings often lead with the size ("22G 2080Ti 魔改"); the size still has to be the entry's
    // own (rtx-4090-48gb 48 GB, rtx-2080-ti-22gb 22 GB, rtx-3080-20gb 20 GB, a100-sxm4-40gb 40 GB).
    const std::pair<const char*, const char*> cases[] = {
        {"48G 4090", "rtx-4090-48gb"},     {"48GB RTX 4090", "rtx-4090-48gb"}, {"22g 2080ti", "rtx-2080-ti-22gb"},
        {"22G 2080Ti 魔改", "rtx-2080-ti-22gb"}, {"20G 3080", "rtx-3080-20gb"},  {"40G A100", "a100-sxm4-40gb"},
        {"24G 4090", "rtx-4090"},          {"48G 4090D", "rtx-4090d-48gb"},
    };
    for (const auto& [query, id] : cases) {
        INFO(query);
        const GpuSpec* found = caliper::findGpu(catalog, query);
        REQUIRE(found);
        CHECK(found->id == id);
    }
    // A size no such card has stays a miss, and the miss suggests the card the name starts with.
    CHECK(caliper::findGpu(catalog, "96G 4090") == nullptr);
    CHECK(caliper::nearestGpuNames(catalog, "96G 4090").front() == "NVIDIA GeForce RTX 4090");
    // A leading number that is not a size word is not read as one.
    CHECK(caliper::findGpu(catalog, "4g5 4090") == nullptr);
}

TEST_CASE("driver names of Intel cards and sizes that pin one model resolve", "[gpus][names]") {
    const caliper::Catalog& catalog = projectCatalog();
    const std::pair<const char*, const char*> cases[] = {
        // sycl-ls, clinfo and xpu-smi print these device names (public llama.cpp and IPEX-LLM logs).
        {"Intel(R) Arc(TM) B580 Graphics", "arc-b580"},
        // Each GPU of the dual card reports the same name and is one 24 GB B60.
        {"Intel(R) Arc(TM) Pro B60 Graphics", "arc-pro-b60"},
        // The H100 NVL is the only 94 GB H100; the 32-core-GPU M4 Max ships only with 36 GB.
        {"H100 94G", "h100-nvl-94gb"},
        {"M4 Max 36GB", "apple-m4-max-32c"},
    };
    for (const auto& [query, id] : cases) {
        INFO(query);
        const GpuSpec* found = caliper::findGpu(catalog, query);
        REQUIRE(found);
        CHECK(found->id == id);
        CHECK(found->memoryGb > 0);
    }
    CHECK(caliper::findGpu(catalog, "h100-nvl-94gb")->memoryGb == Approx(94));
    CHECK(caliper::findGpu(catalog, "apple-m4-max-32c")->memoryGb == Approx(36));
}

TEST_CASE("TITAN RTX, V100S, MI250 and Iluvatar's BI-V100 load with their sourced figures and resolve by name",
          "[gpus][names]") {
    const std::pair<const char*, const char*> names[] = {
        {"TITAN RTX", "titan-rtx"},           {"NVIDIA TITAN RTX", "titan-rtx"},
        {"Tesla V100S", "v100s-pcie-32gb"},   {"V100S 32GB", "v100s-pcie-32gb"},
        {"Tesla V100S-PCIE-32GB", "v100s-pcie-32gb"},  // nvidia-smi's name
        {"MI250", "mi250"},                   {"AMD Instinct MI250", "mi250"},
        {"MI250X", "mi250x"},                 {"天垓100", "iluvatar-bi-v100"},
        {"BI-V100", "iluvatar-bi-v100"},      {"天数智芯天垓100", "iluvatar-bi-v100"},
        {"Iluvatar BI-V100", "iluvatar-bi-v100"}, {"天垓150", "iluvatar-bi-v150"},
        {"BI-V150", "iluvatar-bi-v150"},      {"智铠100", "iluvatar-mr-v100"},
        {"MR-V100", "iluvatar-mr-v100"}};
    for (const auto& [query, id] : names) {
        INFO(query);
        const GpuSpec* found = caliper::findGpu(projectCatalog(), query);
        REQUIRE(found);
        CHECK(found->id == id);
    }
    // TITAN RTX: 576 tensor cores x 64 FMA x 2 x 1.77 GHz = 130.5 TFLOPS FP16
    // (accumulate precision at that rate unstated: FP32-accumulate null).
    CHECK(value(gpu("titan-rtx").fp16Acc16Tflops) == Approx(130.5));
    CHECK_FALSE(gpu("titan-rtx").fp16Tflops.has_value());
    CHECK(gpu("titan-rtx").bandwidthGBps == Approx(672));
    CHECK(gpu("titan-rtx").memoryGb == Approx(24));
    // V100S: 640 x 64 x 2 x 1.601 GHz = 131 TFLOPS; HBM2 raised to 1,134 GB/s.
    CHECK(value(gpu("v100s-pcie-32gb").fp16Tflops) == Approx(640 * 64 * 2 * 1.601e-3).epsilon(0.005));
    CHECK(gpu("v100s-pcie-32gb").bandwidthGBps == Approx(1134));
    CHECK(gpu("v100s-pcie-32gb").bandwidthGBps > gpu("v100-pcie-32gb").bandwidthGBps);
    // MI250: 208 of the MI250X's 220 CUs at the same clock: 383 x 208/220 = 362.1.
    CHECK(value(gpu("mi250").bf16Tflops) == Approx(383.0 * 208 / 220).epsilon(0.001));
    CHECK(gpu("mi250").memoryGb == Approx(gpu("mi250x").memoryGb));
    // BI-V100: Iluvatar's announced 147 TFLOPS FP16/BF16, 32 GB HBM2 at 1.2 TB/s.
    CHECK(value(gpu("iluvatar-bi-v100").bf16Tflops) == Approx(147));
    CHECK(gpu("iluvatar-bi-v100").bandwidthGBps == Approx(1200));
    CHECK(gpu("iluvatar-bi-v100").confidence == "low");
    // MR-V100's product sheet: 96 TFLOPS FP16, 192 TOPS INT8, 32 GB; bandwidth
    // unpublished. BI-V150: 64 GB and 350 W published, no rates: memory fit only.
    CHECK(value(gpu("iluvatar-mr-v100").fp16Tflops) == Approx(96));
    CHECK(value(gpu("iluvatar-mr-v100").int8Tops) == Approx(2 * 96));
    CHECK(gpu("iluvatar-bi-v150").memoryGb == Approx(64));
    CHECK_FALSE(gpu("iluvatar-bi-v150").bf16Tflops.has_value());
    for (const char* id : {"iluvatar-mr-v100", "iluvatar-bi-v150"}) {
        const auto& caveats = gpu(id).caveats;
        CHECK(std::find(caveats.begin(), caveats.end(), "unpublished-bandwidth") != caveats.end());
    }
}
