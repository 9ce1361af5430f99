#pragma once
// Collective communication between GPUs: which link a group of GPUs talks
// over, its effective bus bandwidth, and the time of NCCL-style collectives
// (nccl-tests PERFORMANCE.md formulas).
#include <string>

#include "caliper/gpu.hpp"
#include "caliper/scenario.hpp"

namespace caliper {

struct Link {
    double busGBps = 0;   // effective per-rank bus bandwidth, GB/s
    double latencyS = 0;  // fixed cost of one small collective call
    const char* name = "none";  // "NVLink", "PCIe Gen4", "InfiniBand 400 Gb/s"
};

// The link a group of `groupSize` GPUs of the scenario's type uses: NVLink
// when the group fits the GPU's NVLink domain, else PCIe; `crossesNodes` =
// the group spans servers, so the network (the request's `interconnect`
// fabric, else the default for the GPU's class).
Link groupLink(const Scenario& scenario, int groupSize, bool crossesNodes);

// The GPU's PCIe link to the host (CPU offload, host-staged copies).
Link hostLink(const GpuSpec& gpu);

// Ring all-reduce of `bytes` per rank over n ranks: 2(n-1)/n x bytes / busbw.
double allReduceS(double bytes, int ranks, const Link& link);
// All-gather or reduce-scatter: (n-1)/n x bytes / busbw.
double allGatherS(double bytes, int ranks, const Link& link);
// The fixed time of one large collective over `ranks` GPUs spread evenly
// over `nodes` servers, as NCCL's tuner models it (src/graph/tuning.cc,
// ncclTopoTuneModel, Simple protocol): a ring pays a hop latency at each of
// its steps (2(n-1) for an all-reduce, n-1 for a reduce-scatter or
// all-gather; the inter-node ones at the network's latency), so it grows
// linearly with the ranks; a tree (all-reduce only) pays 2 x (ranks per
// node - 1) intra-node and 2 log2(nodes) network hops. NCCL runs the
// faster: the smaller of the two. `nvlink`: the GPUs of a node talk over
// NVLink (else PCIe).
double ncclLatencyS(int ranks, int nodes, bool nvlink, bool allReduce);
// Point-to-point send of `bytes` (pipeline stage boundary).
double sendS(double bytes, const Link& link);

}  // namespace caliper
