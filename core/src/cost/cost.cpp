// Cost and power of a plan: cloud price per hour and per run, purchase
// price, serving cost per million tokens, electrical power with the host's
// share, energy per run, and the cooling / rack-power warnings.
#include "caliper/cost/cost.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "caliper/units.hpp"
#include "text/grouped_number.hpp"

namespace caliper {

namespace {

// Host power per GPU on 8-GPU SXM/OAM boards: a DGX H100 draws 10.2 kW max
// (NVIDIA DGX H100 datasheet) with 8 x 700 W GPUs, leaving 4.6 kW for CPUs,
// NICs, NVSwitches, fans and power conversion: 575 W per GPU slot.
constexpr double kBoardHostWPerGpu = (10200.0 - 8 * 700.0) / 8.0;
// Earlier NVIDIA boards carry less around each GPU (fewer, slower NVSwitches
// and NICs): a DGX A100 draws 6.5 kW max with 8 x 400 W A100 SXM4 (NVIDIA DGX
// A100 datasheet), 412.5 W per slot; a DGX-1 draws 3.5 kW max with 8 x 300 W
// V100 SXM2 (NVIDIA DGX-1 datasheet), 137.5 W per slot.
constexpr double kAmpereBoardHostWPerGpu = (6500.0 - 8 * 400.0) / 8.0;
constexpr double kVoltaBoardHostWPerGpu = (3500.0 - 8 * 300.0) / 8.0;
// Blackwell Ultra boards: a DGX B300 draws 14.5 kW max (NVIDIA DGX B300 User
// Guide, as relayed by public deployment notes) with 8 GPUs at the catalog's
// 1,400 W board maximum: 412.5 W per slot, so 8x B300 is the system's
// 14.5 kW, not 8 x (1,400 + 575) = 15.8 kW.
constexpr double kBlackwellUltraBoardHostWPerGpu = (14500.0 - 8 * 1400.0) / 8.0;
// PCIe data-center server without GPUs: dual-socket CPUs, memory, NICs and
// fans, ~1 kW per node [E]. Such a server carries 8 cards and is rented by
// the card, as its host RAM is (host_share.cpp: 1/8 of the server per GPU):
// each card's slot draws 1/8 of it, so one L4 is 72 + 125 W, not 72 + 1,000 W,
// and eight of them are the whole 1 kW server.
constexpr double kServerHostW = 1000.0;
constexpr double kServerSlots = 8.0;
// Desktop workstation: CPU, board, drives and power-supply losses ~250 W [E].
constexpr double kDesktopHostW = 250.0;
// NVL72 racks: a DGX GB200 NVL72 draws 120 kW with 72 x 1200 W GPUs
// (ServeTheHome / The Register on the GTC 2024 rack), leaving the Grace CPUs,
// NVSwitch trays, NICs and power shelves 467 W per GPU slot. The rack is one
// node (its NVLink domain), so the host share counts per GPU, not per node.
constexpr double kNvl72HostWPerGpu = (120000.0 - 72 * 1200.0) / 72.0;
// Power usage effectiveness of the data centre [E, methodology section 9:
// default 1.2].
constexpr double kPue = 1.2;
// Liquid cooling is required only by the rack-scale NVL72 systems (GB200 /
// GB300 NVL72: NVIDIA sells them as liquid-cooled racks). HGX/DGX boards
// of 700-1000 W parts are air-cooled as shipped (DGX H100 10.2 kW and DGX
// B200 14.3 kW are air-cooled systems), so they get the rack-power note only.
bool requiresLiquidCooling(const GpuSpec& gpu) {
    for (const std::string& caveat : gpu.caveats) {
        if (caveat == "nvl72-rack") return true;
    }
    return false;
}
// What a common data-centre rack supplies: 8.4 kW on average (Uptime
// Institute 2020 rack density survey, journal.uptimeinstitute.com "Rack
// density is rising": most sites' densest racks 10-19 kW, the average
// 8.4 kW). A node above it needs a high-density rack; one below fits
// beside others (a 4-GPU server, an 8x A100 board at 6.5 kW).
constexpr double kRackBudgetW = 8400.0;

bool board(const GpuSpec& gpu) { return gpu.formFactor == "sxm" || gpu.formFactor == "oam"; }

// The host's power beside the GPUs: per GPU slot on boards, racks and
// data-center PCIe servers, per node for desktops and workstations.
CostBasis::HostPower hostPower(const GpuSpec& gpu) {
    // Apple's catalog figure is the whole Mac at the wall (Apple's power
    // tables), so nothing is added; other SoCs carry the package TDP, and no
    // source gives the small boards around them a host figure.
    if (gpu.formFactor == "soc" || gpu.vendor == "apple") return {0, false};
    if (requiresLiquidCooling(gpu)) return {kNvl72HostWPerGpu, true};
    // A Grace Hopper superchip's rating (GH200: up to 1,000 W, set by the
    // system builder between 450 and 1,000 W) is the whole module: the
    // Grace CPU and its LPDDR5X are in it, so no host share is added.
    if (gpu.formFactor == "module" && gpu.architecture.rfind("Hopper", 0) == 0) return {0, false};
    if (board(gpu) && gpu.vendor == "nvidia" && gpu.architecture.rfind("Ampere", 0) == 0) return {kAmpereBoardHostWPerGpu, true};
    if (board(gpu) && gpu.vendor == "nvidia" && gpu.architecture.rfind("Volta", 0) == 0) return {kVoltaBoardHostWPerGpu, true};
    if (board(gpu) && gpu.vendor == "nvidia" && gpu.architecture.rfind("Blackwell Ultra", 0) == 0) {
        return {kBlackwellUltraBoardHostWPerGpu, true};
    }
    if (board(gpu)) return {kBoardHostWPerGpu, true};
    if (gpu.gpuClass == "datacenter") return {kServerHostW / kServerSlots, true};
    return {kDesktopHostW, false};
}

double hostWattsPerNode(const CostBasis::HostPower& host, int gpusInNode) {
    return host.perGpu ? host.watts * gpusInNode : host.watts;
}

// The price of one GPU-hour in USD and the words that say where it comes
// from: the user's price, else a catalog price in the request's currency
// (the lowest a provider lists), else the catalog's USD price, else the
// lowest listed price of the other currency at the scenario's exchange rate.
struct HourPrice {
    double usd = 0;
    std::string origin;
};

const CloudPrice* lowestIn(const GpuSpec& gpu, const std::string& currency) {
    const CloudPrice* best = nullptr;
    for (const CloudPrice& p : gpu.cloudPrices) {
        if (p.currency == currency && (!best || p.perGpuHour < best->perGpuHour)) best = &p;
    }
    return best;
}

std::string trimmedNumber(double value) {
    std::string text = std::to_string(value);
    while (!text.empty() && text.back() == '0') text.pop_back();
    if (!text.empty() && text.back() == '.') text.pop_back();
    return text;
}

// The words are built only for explanations (a matrix cell needs none).
HourPrice listed(const CloudPrice& p, double cnyPerUsd, bool withOrigin) {
    const bool cny = p.currency == "cny";
    HourPrice out{cny ? p.perGpuHour / cnyPerUsd : p.perGpuHour, ""};
    if (withOrigin) {
        out.origin = p.provider + (p.region.empty() ? "" : " " + p.region) + ", " + (cny ? "CNY " : "USD ") +
                     trimmedNumber(p.perGpuHour) + " per GPU-hour in " + p.date +
                     (cny ? ", at " + trimmedNumber(cnyPerUsd) + " CNY per USD" : "");
    }
    return out;
}

std::optional<HourPrice> gpuHourPrice(const Scenario& s, bool withOrigin) {
    if (s.usdPerGpuHour) return HourPrice{*s.usdPerGpuHour, "user price"};
    const bool cnyRequest = s.currency == "cny";
    if (cnyRequest && s.cnyPerUsd > 0) {
        if (const CloudPrice* p = lowestIn(s.gpu, "cny")) return listed(*p, s.cnyPerUsd, withOrigin);
    }
    if (s.gpu.cloudUsdPerHour) {
        return HourPrice{*s.gpu.cloudUsdPerHour,
                         withOrigin ? s.gpu.cloudProvider + ", USD per GPU-hour, " + s.gpu.cloudDate : ""};
    }
    if (const CloudPrice* p = lowestIn(s.gpu, "usd")) return listed(*p, s.cnyPerUsd, withOrigin);
    if (!cnyRequest && s.cnyPerUsd > 0) {
        if (const CloudPrice* p = lowestIn(s.gpu, "cny")) return listed(*p, s.cnyPerUsd, withOrigin);
    }
    return std::nullopt;
}

std::optional<double> unitPriceUsd(const Scenario& s) {
    if (s.priceUsd) return s.priceUsd;
    if (s.gpu.priceUsd) return s.gpu.priceUsd;
    if (s.gpu.priceCny && s.cnyPerUsd > 0) return *s.gpu.priceCny / s.cnyPerUsd;
    return std::nullopt;
}

// CNY purchase price: the catalog's own CNY price when the user gave no USD
// override, else the USD figure at the scenario's exchange rate.
std::optional<double> unitPriceCny(const Scenario& s) {
    if (!s.priceUsd && s.gpu.priceCny) return s.gpu.priceCny;
    const auto usd = unitPriceUsd(s);
    if (usd) return *usd * s.cnyPerUsd;
    return std::nullopt;
}

void addPower(const Scenario& s, const CostBasis& basis, const Plan& plan, bool withExplain, bool withWarnings,
              CostEstimate& out) {
    const int gpus = std::max(1, plan.gpuCount);
    const int nodes = std::max(1, plan.nodes);
    const int perNode = (gpus + nodes - 1) / nodes;
    const double hostW = hostWattsPerNode(basis.host, perNode);
    const double nodeW = perNode * s.gpu.tdpW + hostW;
    if (withWarnings && basis.liquidCooling) {
        out.warnings.push_back({"liquid_cooling", "NVL72-class racks are liquid-cooled: plan for facility water, not air"});
    }
    // A plan that runs never draws 0 W: without the board power in the
    // catalog the figure is unknown (null), not a guess.
    if (s.gpu.tdpW <= 0) {
        if (!withWarnings) return;
        out.warnings.push_back({"power_unknown", "the board power of " + s.gpu.name +
                                                     " is not in the catalog's sources: power and energy are unknown"});
        return;
    }
    out.powerW = gpus * s.gpu.tdpW + nodes * hostW;
    if (withExplain) {
        out.explain.push_back({"power_w",
                               basis.host.watts > 0 ? "GPUs x TDP + nodes x host share (board slots as their DGX: DGX-1 3.5 kW, DGX A100 6.5 kW, DGX H100 10.2 kW, DGX B300 14.5 kW per 8 GPUs)"
                                                    : "machines x catalog power (a SoC machine adds no host share)",
                               *out.powerW});
    }
    // A liquid-cooled rack-scale system has its own warning (liquid_cooling).
    if (withWarnings && nodeW > kRackBudgetW && !basis.liquidCooling) {
        out.warnings.push_back({"rack_power", "one node draws about " + groupedNumber(nodeW, 0) +
                                                  " W, more than the 8.4 kW an average data-centre rack supplies: it needs a high-density rack"});
    }
}

void addServingCost(const SpeedEstimate& speed, bool withExplain, CostEstimate& out) {
    if (!out.usdPerHour || !speed.decodeTokensPerS || *speed.decodeTokensPerS <= 0) return;
    out.usdPerMillionTokens = *out.usdPerHour / (kSecondsPerHour * *speed.decodeTokensPerS) * 1e6;
    if (withExplain) {
        out.explain.push_back({"usd_per_million_tokens", "usd_per_hour / (3600 x decode tokens/s) x 1e6", *out.usdPerMillionTokens});
    }
}

void addTrainingRun(const Scenario& s, const Plan& plan, const SpeedEstimate& speed, bool withExplain,
                    CostEstimate& out) {
    if (s.task == Task::Inference || !s.trainTokens || !speed.trainTokensPerS || *speed.trainTokensPerS <= 0) return;
    const double hours = *s.trainTokens / *speed.trainTokensPerS / kSecondsPerHour;
    out.trainHours = hours;
    out.gpuHours = hours * std::max(1, plan.gpuCount);
    if (withExplain) out.explain.push_back({"train_hours", "train_tokens / train tokens per second / 3600", hours});
    if (out.usdPerHour) {
        out.costUsd = *out.usdPerHour * hours;
        if (withExplain) out.explain.push_back({"cost_usd", "GPU-hours x price per GPU-hour", *out.costUsd});
        if (withExplain && s.currency == "cny") {
            out.explain.push_back({"cost_cny", "cost_usd x cny_per_usd", *out.costUsd * s.cnyPerUsd});
        }
    }
    if (!out.powerW) return;
    out.energyKwh = *out.powerW * hours / 1000.0 * kPue;
    if (withExplain) out.explain.push_back({"energy_kwh", "power_w x hours / 1000 x PUE 1.2", *out.energyKwh});
}

CostEstimate costOf(const Scenario& s, const CostBasis& basis, const Plan& plan, const SpeedEstimate& speed,
                    bool withExplain, bool withWarnings) {
    CostEstimate out;
    const int gpus = std::max(1, plan.gpuCount);
    out.priceYear = s.gpu.priceYear;
    if (basis.hourUsd) {
        out.usdPerHour = *basis.hourUsd * gpus;
        if (withExplain) {
            out.explain.push_back({"usd_per_hour", "GPUs x price per GPU-hour (" + basis.hourOrigin + ")", *out.usdPerHour});
        }
    }
    if (const auto unit = basis.unitUsd) {
        out.purchaseUsd = *unit * gpus;
        if (withExplain) out.explain.push_back({"purchase_usd", "GPUs x price per card", *out.purchaseUsd});
    }
    // A card sold in China has its own CNY street price (price_cny), not the
    // USD price at the exchange rate: every door prints this one.
    if (const auto cny = basis.unitCny) {
        out.purchaseCny = *cny * gpus;
        if (withExplain && s.currency == "cny") {
            out.explain.push_back({"purchase_cny", "GPUs x price per card in CNY", *out.purchaseCny});
        }
    }
    addPower(s, basis, plan, withExplain, withWarnings, out);
    addServingCost(speed, withExplain, out);
    addTrainingRun(s, plan, speed, withExplain, out);
    return out;
}

CostBasis basisOf(const Scenario& s, bool withOrigin) {
    CostBasis basis;
    if (auto hourly = gpuHourPrice(s, withOrigin)) {
        basis.hourUsd = hourly->usd;
        basis.hourOrigin = std::move(hourly->origin);
    }
    basis.unitUsd = unitPriceUsd(s);
    basis.unitCny = unitPriceCny(s);
    basis.host = hostPower(s.gpu);
    basis.liquidCooling = requiresLiquidCooling(s.gpu);
    return basis;
}

}  // namespace

CostEstimate estimateCost(const Scenario& s, const Plan& plan, const SpeedEstimate& speed, bool withExplain) {
    return costOf(s, basisOf(s, withExplain), plan, speed, withExplain, true);
}

CostBasis costBasis(const Scenario& s) { return basisOf(s, false); }

CostEstimate costFigures(const Scenario& s, const Plan& plan, const SpeedEstimate& speed) {
    return costOf(s, costBasis(s), plan, speed, false, false);
}

CostEstimate costFigures(const Scenario& s, const CostBasis& basis, const Plan& plan, const SpeedEstimate& speed) {
    return costOf(s, basis, plan, speed, false, false);
}

}  // namespace caliper
