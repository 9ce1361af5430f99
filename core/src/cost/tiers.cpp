// Tiers of GPU configurations, after the "performance x memory x cost"
// table (综合评估三角：性能 × 显存 × 成本) of the article "分布式训练中的加速卡
// 选择" (GPU selection for distributed training), which sorts cards into four
// rows by card price and what the card brings:
//   入门级 entry     RTX 4090 / L4          ¥15k-30k per card  cheap, weak interconnect
//   中级   mid       L40S / A100 40G        ¥60k-90k           enough memory for mid-size LLMs
//   高端   high-end  A100 80G / H100        ¥100k-250k         very large memory + NVLink
//   专业集群 cluster  H800 / DGX H100        ¥0.8M-2M           whole servers, 3D parallelism
// The table names cards, not rules; the rule below reproduces its rows from
// catalog fields (class, memory, GPU count, nodes) so that every catalog card
// gets a tier, including cards the article does not name.
#include "caliper/answers/recommend.hpp"

namespace caliper {

namespace {

// Below this a card holds no more than a GeForce flagship (24 GB; the 32 GB
// RTX 5090 reports ~31.4 GiB): the article's entry row puts the 24 GB L4
// beside the RTX 4090, so memory, not the market segment, decides here.
constexpr double kEntryMaxMemoryGiB = 32.0;
// From here a data-center card is an "80 GB class" part: the A100 80GB reports
// ~79 GiB, the H100 ~79.6 GiB, while the A100 40GB (~39.4 GiB) and the 48 GB
// L40S sit in the mid row. 70 leaves margin for drivers that reserve memory.
constexpr double kHighEndMinMemoryGiB = 70.0;
// A DGX/HGX server holds eight cards; the article puts "DGX H100" in the
// cluster row, so a full server of high-end cards counts as a cluster.
constexpr int kServerGpus = 8;

}  // namespace

Tier cardTier(const GpuSpec& gpu) {
    if (gpu.gpuClass == "consumer" || gpu.memoryGib < kEntryMaxMemoryGiB) return Tier::Entry;
    // The high-end row's strength is "超高显存 + NVLink" in a data-center
    // server; workstation cards (RTX 6000 Ada, RTX PRO 6000) stay mid even
    // with 96 GB, as the article's mid row holds the L40S-class parts.
    if (gpu.gpuClass == "datacenter" && gpu.memoryGib >= kHighEndMinMemoryGiB) return Tier::HighEnd;
    return Tier::Mid;
}

Tier configurationTier(const GpuSpec& gpu, int gpuCount, int nodes) {
    const Tier card = cardTier(gpu);
    if (nodes > 1) return Tier::Cluster;
    if (card == Tier::HighEnd && gpuCount >= kServerGpus) return Tier::Cluster;
    return card;
}

const char* toString(Tier tier) {
    switch (tier) {
        case Tier::Entry: return "entry";
        case Tier::Mid: return "mid";
        case Tier::HighEnd: return "high-end";
        case Tier::Cluster: return "cluster";
    }
    return "";
}


}  // namespace caliper
