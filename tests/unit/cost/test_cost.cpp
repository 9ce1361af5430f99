// Cost and power: cloud and purchase prices, serving cost per million
// tokens, run time and energy, and the cooling / rack-power warnings.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "caliper/cost/cost.hpp"
#include "speed_fixtures.hpp"

using namespace caliper;
using namespace caliper::test;

namespace {

bool warned(const CostEstimate& c, const std::string& code) {
    return std::any_of(c.warnings.begin(), c.warnings.end(), [&](const Warning& w) { return w.code == code; });
}

double explained(const CostEstimate& c, const std::string& term) {
    for (const ExplainTerm& t : c.explain) {
        if (t.term == term) return t.value;
    }
    FAIL("no explain term " << term);
    return 0;
}

Scenario priced(GpuSpec gpu) {
    Scenario s = inference(llama31_8b(), std::move(gpu), Engine::Vllm, WeightFormat::Bf16);
    s.gpu.cloudUsdPerHour = 2.5;
    s.gpu.priceUsd = 25000;
    s.gpu.priceYear = 2024;
    return s;
}

Plan gpus(int count, int nodes = 1) {
    Plan p = plan(Strategy::Tensor, count, count, 1, 1);
    p.nodes = nodes;
    return p;
}

}  // namespace

TEST_CASE("a training run costs GPU-hours times the hourly price", "[cost]") {
    Scenario s = priced(h100Sxm());
    s.task = Task::Pretrain;
    s.trainTokens = 3.6e9;
    SpeedEstimate speed;
    speed.trainTokensPerS = 10000;  // 3.6e9 tokens take 100 hours
    const CostEstimate c = estimateCost(s, gpus(8), speed);
    REQUIRE(c.trainHours);
    CHECK(*c.trainHours == Approx(100.0));
    CHECK(*c.gpuHours == Approx(800.0));
    CHECK(*c.usdPerHour == Approx(8 * 2.5));
    CHECK(*c.costUsd == Approx(800.0 * 2.5));
    CHECK(c.priceYear == 2024);

    s.usdPerGpuHour = 1.0;  // the user's own price wins over the catalog's
    CHECK(*estimateCost(s, gpus(8), speed).costUsd == Approx(800.0));
}

TEST_CASE("energy of a run is power times hours times PUE 1.2", "[cost][power]") {
    Scenario s = priced(h100Sxm());
    s.task = Task::Finetune;
    s.trainTokens = 3.6e7;
    SpeedEstimate speed;
    speed.trainTokensPerS = 1000;  // 10 hours
    const CostEstimate c = estimateCost(s, gpus(8), speed);
    REQUIRE(c.energyKwh);
    CHECK(*c.energyKwh == Approx(*c.powerW * 10.0 / 1000.0 * 1.2));
}

TEST_CASE("no run length, no run cost", "[cost]") {
    Scenario s = priced(h100Sxm());
    s.task = Task::Finetune;
    SpeedEstimate speed;
    speed.trainTokensPerS = 1000;
    const CostEstimate c = estimateCost(s, gpus(1), speed);
    CHECK_FALSE(c.trainHours);
    CHECK_FALSE(c.costUsd);
    CHECK_FALSE(c.energyKwh);
    CHECK(c.usdPerHour);
}

TEST_CASE("purchase price is count times card price, CNY from the catalog's own CNY price", "[cost]") {
    Scenario s = priced(rtx4090());
    s.gpu.priceUsd = 1599;   // RTX 4090 launch MSRP
    s.gpu.priceCny = 12999;  // RTX 4090 launch price in China
    s.currency = "cny";
    const CostEstimate c = estimateCost(s, gpus(2), SpeedEstimate{});
    REQUIRE(c.purchaseUsd);
    CHECK(*c.purchaseUsd == Approx(2 * 1599.0));
    CHECK(explained(c, "purchase_cny") == Approx(2 * 12999.0));

    s.priceUsd = 1800;  // a user price converts at the scenario's rate
    s.cnyPerUsd = 7.0;
    const CostEstimate user = estimateCost(s, gpus(2), SpeedEstimate{});
    CHECK(*user.purchaseUsd == Approx(3600.0));
    CHECK(explained(user, "purchase_cny") == Approx(3600.0 * 7.0));
}

TEST_CASE("serving cost per million tokens follows from the hourly price and decode speed", "[cost]") {
    const Scenario s = priced(h100Sxm());
    SpeedEstimate speed;
    speed.decodeTokensPerS = 1000;
    const CostEstimate c = estimateCost(s, gpus(1), speed);
    REQUIRE(c.usdPerMillionTokens);
    // $2.50 per hour buys 3.6M tokens at 1000 tok/s: $0.694 per million.
    CHECK(*c.usdPerMillionTokens == Approx(2.5 / 3.6));
}

TEST_CASE("an 8x H100 SXM node draws the DGX H100's 10.2 kW and needs rack power, not liquid cooling", "[cost][power]") {
    // NVIDIA DGX H100 datasheet: 10.2 kW max for 8 x 700 W GPUs, an
    // air-cooled system: the HGX board needs rack power, not facility water.
    const CostEstimate c = estimateCost(priced(h100Sxm()), gpus(8), SpeedEstimate{});
    CHECK(*c.powerW == Approx(10200.0));
    CHECK_FALSE(warned(c, "liquid_cooling"));
    CHECK(warned(c, "rack_power"));
    // The message reads like the rest of the page's figures: 10,200 W, grouped.
    bool grouped = false;
    for (const auto& w : c.warnings) grouped = grouped || (w.code == "rack_power" && w.message.find("about 10,200 W") != std::string::npos);
    CHECK(grouped);
}

TEST_CASE("older NVIDIA boards draw their own DGX's power, not the DGX H100's", "[cost][power]") {
    // NVIDIA DGX A100 datasheet: 6.5 kW max for 8 x 400 W A100 SXM4; the
    // DGX H100's 575 W per slot would give 7.8 kW, above what the system
    // is rated for. DGX-1 (V100 SXM2, 8 x 300 W): 3.5 kW max.
    GpuSpec a100 = h100Sxm();
    a100.id = "a100-sxm4-80gb";
    a100.architecture = "Ampere";
    a100.tdpW = 400;
    const CostEstimate dgxA100 = estimateCost(priced(a100), gpus(8), SpeedEstimate{});
    REQUIRE(dgxA100.powerW);
    CHECK(*dgxA100.powerW == Approx(6500.0));
    // Eight nodes of them (64 GPUs, as a pre-training run over RoCE): 52 kW.
    const CostEstimate cluster = estimateCost(priced(a100), gpus(64, 8), SpeedEstimate{});
    CHECK(*cluster.powerW == Approx(8 * 6500.0));
    GpuSpec v100 = a100;
    v100.architecture = "Volta";
    v100.tdpW = 300;
    CHECK(*estimateCost(priced(v100), gpus(8), SpeedEstimate{}).powerW == Approx(3500.0));
}

TEST_CASE("an 8x B300 node draws the DGX B300's 14.5 kW", "[cost][power]") {
    // NVIDIA DGX B300: 14.5 kW max with 8 B300 at 1,400 W each; the DGX
    // H100's 575 W per slot would give 15.8 kW, above the system's rating.
    GpuSpec b300 = h100Sxm();
    b300.architecture = "Blackwell Ultra";
    b300.tdpW = 1400;
    const CostEstimate c = estimateCost(priced(b300), gpus(8), SpeedEstimate{});
    REQUIRE(c.powerW);
    CHECK(*c.powerW == Approx(14500.0));
}

TEST_CASE("a GH200 module's power counts its Grace CPU: no host share beside it", "[cost][power]") {
    // GH200: up to 1,000 W for the whole module (Grace CPU, LPDDR5X and the
    // Hopper GPU); four of them in a node draw 4 x 1,000 W = 4,000 W.
    GpuSpec gh200 = h100Sxm();
    gh200.formFactor = "module";
    gh200.architecture = "Hopper";
    gh200.tdpW = 1000;
    const CostEstimate c = estimateCost(priced(gh200), gpus(4), SpeedEstimate{});
    REQUIRE(c.powerW);
    CHECK(*c.powerW == Approx(4000.0));
}

TEST_CASE("rack power is warned only above what an average rack supplies", "[cost][power]") {
    // Uptime Institute 2020 rack density survey: 8.4 kW per rack on average.
    // Four H100 SXM: 4 x (700 + 575) W = 5,100 W, which a common rack holds.
    const CostEstimate four = estimateCost(priced(h100Sxm()), gpus(4), SpeedEstimate{});
    CHECK(*four.powerW == Approx(5100.0));
    CHECK_FALSE(warned(four, "rack_power"));
    // An 8x A100 board: the DGX A100's 6.5 kW, below 8.4 kW: no warning.
    GpuSpec a100 = h100Sxm();
    a100.architecture = "Ampere";
    a100.tdpW = 400;
    CHECK_FALSE(warned(estimateCost(priced(a100), gpus(8), SpeedEstimate{}), "rack_power"));
    // An NVL72 rack carries the liquid-cooling warning, not a rack-power one.
    GpuSpec gb200 = h100Sxm();
    gb200.tdpW = 1200;
    gb200.caveats = {"nvl72-rack"};
    const CostEstimate rack = estimateCost(priced(gb200), gpus(72), SpeedEstimate{});
    CHECK(warned(rack, "liquid_cooling"));
    CHECK_FALSE(warned(rack, "rack_power"));
}

TEST_CASE("liquid cooling only for the parts that require it: NVL72 racks", "[cost][power]") {
    GpuSpec b200 = h100Sxm();  // HGX B200: up to 1000 W per GPU; DGX B200 ships air-cooled
    b200.id = "b200";
    b200.tdpW = 1000;
    CHECK_FALSE(warned(estimateCost(priced(b200), gpus(1), SpeedEstimate{}), "liquid_cooling"));
    GpuSpec gb200 = b200;  // GB200 NVL72: sold only as a liquid-cooled rack
    gb200.id = "gb200";
    gb200.tdpW = 1200;
    gb200.caveats = {"nvl72-rack"};
    CHECK(warned(estimateCost(priced(gb200), gpus(4), SpeedEstimate{}), "liquid_cooling"));
    // A whole rack is one node (its 72-GPU NVLink domain) and draws the DGX
    // GB200 NVL72's 120 kW (ServeTheHome, GTC 2024): the host share is per GPU.
    const CostEstimate rack = estimateCost(priced(gb200), gpus(72), SpeedEstimate{});
    REQUIRE(rack.powerW);
    CHECK(*rack.powerW == Approx(120000.0));
}

TEST_CASE("a Mac without an Apple power figure shows a warning, not 0 W", "[cost][power]") {
    // Apple gives whole-system power for some Macs only; an entry without
    // one keeps null (tdp 0 here), and the plan says so.
    GpuSpec mac = h100Sxm();
    mac.vendor = "apple";
    mac.formFactor = "soc";
    mac.tdpW = 0;
    const CostEstimate c = estimateCost(priced(mac), gpus(1), SpeedEstimate{});
    CHECK_FALSE(c.powerW.has_value());
    CHECK(warned(c, "power_unknown"));
}

TEST_CASE("unknown board power is null with a warning, never 0", "[cost][power]") {
    GpuSpec unknown = h100Sxm();
    unknown.tdpW = 0;  // the catalog's null
    const CostEstimate c = estimateCost(priced(unknown), gpus(1), SpeedEstimate{});
    CHECK_FALSE(c.powerW.has_value());
    CHECK(warned(c, "power_unknown"));
}

TEST_CASE("a desktop with one or four RTX 4090 raises no cooling or rack warning", "[cost][power]") {
    const CostEstimate one = estimateCost(priced(rtx4090()), gpus(1), SpeedEstimate{});
    CHECK(*one.powerW == Approx(450.0 + 250.0));  // TDP + desktop host share
    CHECK(one.warnings.empty());
    const CostEstimate four = estimateCost(priced(rtx4090()), gpus(4), SpeedEstimate{});
    CHECK(*four.powerW == Approx(4 * 450.0 + 250.0));
    CHECK_FALSE(warned(four, "rack_power"));
    CHECK_FALSE(warned(four, "liquid_cooling"));
}

TEST_CASE("an Apple machine draws its catalog figure, with no host share added", "[cost][power]") {
    GpuSpec mac = h100Sxm();  // fields as a Mac Studio (2025) M3 Ultra entry
    mac.id = "apple-m3-ultra-80c";
    mac.vendor = "apple";
    mac.formFactor = "soc";
    mac.gpuClass = "workstation";
    mac.gpusPerNode = 1;
    mac.tdpW = 270;  // Apple support 102027: the whole machine's maximum at the wall
    const CostEstimate one = estimateCost(priced(mac), gpus(1), SpeedEstimate{}, true);
    CHECK(*one.powerW == Approx(270.0));  // 1 machine x 270 W + 0 W host share
    CHECK(explained(one, "power_w") == Approx(270.0));
    // Two Macs are two nodes: 2 x 270 W = 540 W, still with no host share.
    CHECK(*estimateCost(priced(mac), gpus(2, 2), SpeedEstimate{}).powerW == Approx(540.0));
}

TEST_CASE("a data-center PCIe card draws its slot's share of the server, as its RAM is rented", "[cost][power]") {
    // A PCIe data-center server's host is ~1 kW for its 8 cards (cost.cpp
    // kServerHostW [E]), 125 W a slot: one L4 (72 W TDP, NVIDIA L4 datasheet)
    // is 72 + 125 = 197 W, not a whole server's 1,072 W; eight are
    // 8 x 72 + 1,000 = 1,576 W, the whole server, as before.
    GpuSpec l4 = h100Sxm();
    l4.id = "l4";
    l4.formFactor = "pcie";
    l4.gpuClass = "datacenter";
    l4.architecture = "Ada Lovelace";
    l4.tdpW = 72;
    CHECK(*estimateCost(priced(l4), gpus(1), SpeedEstimate{}).powerW == Approx(72.0 + 125.0));
    CHECK(*estimateCost(priced(l4), gpus(2), SpeedEstimate{}).powerW == Approx(2 * (72.0 + 125.0)));
    CHECK(*estimateCost(priced(l4), gpus(8), SpeedEstimate{}).powerW == Approx(8 * 72.0 + 1000.0));
    // Two full servers: two hosts.
    CHECK(*estimateCost(priced(l4), gpus(16, 2), SpeedEstimate{}).powerW == Approx(16 * 72.0 + 2 * 1000.0));
}

TEST_CASE("power adds one host share per node", "[cost][power]") {
    const CostEstimate oneNode = estimateCost(priced(rtx4090()), gpus(8, 1), SpeedEstimate{});
    const CostEstimate twoNodes = estimateCost(priced(rtx4090()), gpus(8, 2), SpeedEstimate{});
    CHECK(*twoNodes.powerW - *oneNode.powerW == Approx(250.0));
}

TEST_CASE("a CNY answer prices GPU-hours at a provider's CNY price and says which", "[cost]") {
    Scenario s = priced(h100Sxm());  // catalog USD price 2.5 per GPU-hour
    s.cnyPerUsd = 7.0;
    // Two CNY offers (hand-written): the lowest is used for a CNY answer.
    s.gpu.cloudPrices = {{"Provider A", "cn-beijing", "cny", 21.0, "2026-08", "fixture"},
                         {"Provider B", "", "cny", 17.5, "2026-09", "fixture"}};
    s.currency = "cny";
    const CostEstimate cny = estimateCost(s, gpus(2), SpeedEstimate{});
    REQUIRE(cny.usdPerHour);
    CHECK(*cny.usdPerHour * s.cnyPerUsd == Approx(2 * 17.5));  // cny_per_hour = 2 GPUs x CNY 17.5
    bool named = false;
    for (const ExplainTerm& t : cny.explain) {
        if (t.term == "usd_per_hour") named = t.formula.find("Provider B, CNY 17.5 per GPU-hour in 2026-09") != std::string::npos;
    }
    CHECK(named);
    // A USD answer keeps the catalog's USD price.
    s.currency = "usd";
    CHECK(*estimateCost(s, gpus(2), SpeedEstimate{}).usdPerHour == Approx(2 * 2.5));
    // Without a USD price, a USD answer converts the lowest CNY offer at the scenario's rate.
    s.gpu.cloudUsdPerHour.reset();
    CHECK(*estimateCost(s, gpus(2), SpeedEstimate{}).usdPerHour == Approx(2 * 17.5 / 7.0));
    // The user's own price wins over every catalog price.
    s.currency = "cny";
    s.usdPerGpuHour = 1.0;
    CHECK(*estimateCost(s, gpus(2), SpeedEstimate{}).usdPerHour == Approx(2.0));
    // No price at all: no hourly cost, never 0.
    s.usdPerGpuHour.reset();
    s.gpu.cloudPrices.clear();
    CHECK_FALSE(estimateCost(s, gpus(2), SpeedEstimate{}).usdPerHour);
}
