// The host RAM and memory bandwidth one node of a plan has. A data-center
// GPU's default host is a DGX H100-class server (hostDefaults: 2 TiB and one
// socket's 307.2 GB/s for its 8 GPUs), rented by the GPU: a plan that states
// no RAM has 1/8 of it per GPU it runs on a node (256 GiB, 38.4 GB/s), as
// clouds size their GPU machines in proportion to the GPUs (SkyPilot's
// catalogs of the providers' listings: GCP a2-highgpu-1g/2g 12/24 vCPUs
// with 85/170 GiB, a3-highgpu-8g 208 vCPUs with 1,872 GB, i.e. 234 GB per
// H100; 1x/2x/4x A100 80GB SXM rentals with 26/52/102 vCPUs and 190/380/760
// GiB). The CPU cores, and with them the memory bandwidth the CPU Adam step
// streams at, come in the same share; a node of more GPUs than 8 (an NVL72
// rack's 72) has as many shares. A stated host.ram_gib is the plan's own
// machine: all of it, with all of its bandwidth. Desktop and workstation
// defaults (64 GiB, one consumer board) and Apple's unified memory are the
// plan's whole machine already.
#include <algorithm>

#include "caliper/scenario.hpp"

namespace caliper {

namespace {
// The GPUs the default server's RAM and bandwidth are for (DGX H100: 8).
constexpr int kDefaultServerGpus = 8;
}  // namespace

HostShare hostShare(const Scenario& s, int gpuCount, int nodes) {
    HostShare h;
    h.ramGib = s.host.ramGib;
    h.memoryBandwidthGBps = s.host.memoryBandwidthGBps;
    const int perNode = std::max(1, (std::max(1, gpuCount) + std::max(1, nodes) - 1) / std::max(1, nodes));
    h.gpusPerServer = kDefaultServerGpus;
    h.gpusOnNode = std::min(perNode, std::max(1, s.gpu.gpusPerNode));
    if (!s.host.ramPerServer || s.host.ramExplicit) return h;
    const double share = double(h.gpusOnNode) / kDefaultServerGpus;
    h.ramGib *= share;
    h.memoryBandwidthGBps *= share;
    h.rented = h.gpusOnNode != kDefaultServerGpus;
    return h;
}

}  // namespace caliper
