#include "speed/comm.hpp"
#include "caliper/units.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>

namespace caliper {

namespace {

// NCCL reaches ~0.82 of the NVLink per-direction line rate: H100 NVLink4
// 450 GB/s per direction, ~370 GB/s busbw (nccl-tests PERFORMANCE.md and
// issue #212); 8x A100 NVLink3 (300 GB/s) measured 200-230 GB/s (#149, #178).
constexpr double kNvlinkEfficiency = 0.8;
// PCIe x16 per direction: Gen3 16, Gen4 32, Gen5 64 GB/s nominal; 0.8 of it
// after protocol overhead (methodology section 7 [E]).
constexpr double kPcieEfficiency = 0.8;
constexpr double kPcieGen4GBps = 32.0;
// InfiniBand per GPU: 400 Gb/s (NDR, one ConnectX-7 per GPU on DGX/HGX H100
// and as used for Llama 3 training, arXiv 2407.21783 section 3.3) for SXM/OAM
// boards; 200 Gb/s (HDR) for PCIe data-center servers; 100 Gb/s for
// workstation and consumer cards. 4x HDR on 8x A100 reached 85-96 of 100 GB/s
// (nccl-tests #119), so 0.88 of line rate.
constexpr double kIbEfficiency = 0.88;
constexpr double kIbNdrGbps = 400;
constexpr double kIbHdrGbps = 200;
constexpr double kWorkstationNetworkGbps = 100;
// Small-message latency per collective call [E, methodology section 7: tens
// of us]. gpt-fast's tensor-parallel Llama-2-7B rows on A100 NVLink imply
// 14-22 us per all-reduce at 2-8 GPUs.
constexpr double kNvlinkLatencyS = 20e-6;
constexpr double kPcieLatencyS = 30e-6;
constexpr double kNetworkLatencyS = 40e-6;

bool boardFormFactor(const GpuSpec& gpu) {
    const std::string_view form = gpu.formFactor;  // a length that differs settles each compare at once
    return form == "sxm" || form == "oam" || form == "module";
}

// Named fabrics (CONTRACT `interconnect.inter_node`). Port rates:
// InfiniBand XDR 800, NDR 400, HDR 200 Gb/s (ConnectX-8 / -7 / -6 product
// briefs); RoCE at the port's rate. RDMA fabrics are laid out rail-optimised
// with one NIC per GPU (DGX/HGX reference architectures; Llama 3 used RoCE
// and InfiniBand clusters of one 400 Gb/s NIC per GPU, arXiv 2407.21783
// section 3.3) and reach the same NCCL fraction on a tuned lossless fabric
// (Meta, "RoCE networks for distributed AI training at scale", SIGCOMM
// 2024). Plain Ethernet means one NIC per server shared by its GPUs, and
// NCCL's socket transport without RDMA: about half of line rate [E: NCCL's
// socket transport copies through host memory and TCP; no published table].
constexpr double kSocketEfficiency = 0.5;
constexpr double kSocketLatencyS = 100e-6;  // [E] kernel TCP stack per message, ~2.5x the RDMA figure

struct Fabric {
    double portGbps;
    bool rdma;  // one NIC per GPU, NCCL's IB/RoCE transport
    const char* name;
};

Fabric fabricOf(InterNode n) {
    switch (n) {
        case InterNode::InfinibandXdr: return {800, true, "InfiniBand XDR 800 Gb/s per GPU"};
        case InterNode::InfinibandNdr: return {400, true, "InfiniBand NDR 400 Gb/s per GPU"};
        case InterNode::InfinibandHdr: return {200, true, "InfiniBand HDR 200 Gb/s per GPU"};
        case InterNode::Roce400g: return {400, true, "RoCE 400 Gb/s per GPU"};
        case InterNode::Roce200g: return {200, true, "RoCE 200 Gb/s per GPU"};
        case InterNode::Ethernet100g: return {100, false, "Ethernet 100 Gb/s per server (TCP)"};
        default: return {25, false, "Ethernet 25 Gb/s per server (TCP)"};
    }
}

Link namedNetworkLink(InterNode n, int gpusPerNode) {
    const Fabric f = fabricOf(n);
    if (f.rdma) return {gbpsToGBps(f.portGbps) * kIbEfficiency, kNetworkLatencyS, f.name};
    const double perGpuGbps = f.portGbps / std::max(1, gpusPerNode);
    return {gbpsToGBps(perGpuGbps) * kSocketEfficiency, kSocketLatencyS, f.name};
}

Link networkLink(const GpuSpec& gpu) {
    if (boardFormFactor(gpu)) return {gbpsToGBps(kIbNdrGbps) * kIbEfficiency, kNetworkLatencyS, "InfiniBand 400 Gb/s"};
    if (std::string_view(gpu.gpuClass) == "datacenter")
        return {gbpsToGBps(kIbHdrGbps) * kIbEfficiency, kNetworkLatencyS, "InfiniBand 200 Gb/s"};
    return {gbpsToGBps(kWorkstationNetworkGbps) * kIbEfficiency, kNetworkLatencyS, "InfiniBand 100 Gb/s"};
}

const char* pcieName(int gen) {
    switch (gen) {
        case 1: return "PCIe Gen1";
        case 2: return "PCIe Gen2";
        case 3: return "PCIe Gen3";
        case 4: return "PCIe Gen4";
        case 5: return "PCIe Gen5";
        case 6: return "PCIe Gen6";
        case 7: return "PCIe Gen7";
        default: return "PCIe";
    }
}

Link pcieLink(const GpuSpec& gpu) {
    const int gen = gpu.pcieGen > 0 ? gpu.pcieGen : 4;
    // 2^(gen-4), exact: a table for the generations there are, else ldexp (a libm call, for every link asked).
    static constexpr double kGenFactor[] = {0.125, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0};
    const double factor = gen >= 1 && gen <= 7 ? kGenFactor[gen - 1] : std::ldexp(1.0, gen - 4);
    const double perDirection = kPcieGen4GBps * factor;
    return {perDirection * kPcieEfficiency, kPcieLatencyS, pcieName(gen)};
}

}  // namespace

Link hostLink(const GpuSpec& gpu) { return pcieLink(gpu); }

Link groupLink(const Scenario& s, int groupSize, bool crossesNodes) {
    const GpuSpec& gpu = s.gpu;
    if (crossesNodes) {
        if (s.interconnect.interNode) return namedNetworkLink(*s.interconnect.interNode, std::max(1, gpu.gpusPerNode));
        return networkLink(gpu);
    }
    const int domain = std::max(gpu.nvlinkMaxGpus, gpu.nvlinkGBps > 0 ? 2 : 0);
    if (gpu.nvlinkGBps > 0 && groupSize <= domain) {
        // Both directions (the catalog's nvlink_gbps, in GB/s).
        const double perDirectionGBps = gpu.nvlinkGBps / 2.0;
        return {perDirectionGBps * kNvlinkEfficiency, kNvlinkLatencyS, "NVLink"};
    }
    return pcieLink(gpu);
}

double allReduceS(double bytes, int ranks, const Link& link) {
    if (ranks <= 1 || link.busGBps <= 0) return 0;
    return link.latencyS + 2.0 * (ranks - 1) / ranks * bytes / (link.busGBps * kBytesPerGB);
}

double allGatherS(double bytes, int ranks, const Link& link) {
    if (ranks <= 1 || link.busGBps <= 0) return 0;
    return link.latencyS + double(ranks - 1) / ranks * bytes / (link.busGBps * kBytesPerGB);
}

namespace {

// NCCL's latencies in microseconds, Simple protocol (the one large
// gradient buckets run; src/graph/tuning.cc baseLat and hwLat): the ring's
// base 8.4, a hop 3.4 over NVLink, 5.7 over PCIe, 9.6 over the network; the
// tree's hop 28 within a node, 50 over the network. A multi-node ring
// all-reduce of a large message pays 1.9x its latency (ncclTopoGetAlgoTime:
// "plateau effect of ring").
constexpr double kRingBaseUs = 8.4;
constexpr double kRingNvlinkHopUs = 3.4;
constexpr double kRingPcieHopUs = 5.7;
constexpr double kRingNetHopUs = 9.6;
constexpr double kTreeNodeHopUs = 28.0;
constexpr double kTreeNetHopUs = 50.0;
constexpr double kRingPlateau = 1.9;

}  // namespace

double ncclLatencyS(int ranks, int nodes, bool nvlink, bool allReduce) {
    if (ranks <= 1) return 0;
    nodes = std::clamp(nodes, 1, ranks);
    const double steps = allReduce ? 2.0 * (ranks - 1) : double(ranks - 1);
    const double interSteps = allReduce ? 2.0 * (nodes - 1) : double(nodes - 1);
    const double hopUs = nvlink ? kRingNvlinkHopUs : kRingPcieHopUs;
    double ringUs = kRingBaseUs + (steps - interSteps) * hopUs + interSteps * kRingNetHopUs;
    if (!allReduce) return ringUs * 1e-6;
    if (nodes > 1) ringUs *= kRingPlateau;
    const double perNode = double(ranks) / nodes;
    const double treeUs = 2.0 * ((perNode - 1.0) * kTreeNodeHopUs + std::log2(double(nodes)) * kTreeNetHopUs);
    return std::min(ringUs, treeUs) * 1e-6;
}

double sendS(double bytes, const Link& link) {
    if (link.busGBps <= 0) return 0;
    return link.latencyS + bytes / (link.busGBps * kBytesPerGB);
}

}  // namespace caliper
