// aiconfigurator's measured samples state a deployment's degrees twice: in
// the parallelism columns (tp_size, attention_dp_size, moe_tp_size,
// moe_ep_size) and in the source row id ("..._c16_tp4_ep4_995"), where tpX
// is the instance's GPUs and epY its expert-parallel degree. For 172 serving
// rows of public-v2.jsonl the columns hold the instance multiplied by its
// expert degree (tp_size = X x Y, moe_tp_size = X, moe_ep_size = Y, or the
// product in attention_dp_size or moe_ep_size): tp_size 64 on an 8-GPU
// h200_sxm node. The id is the deployment: DeepSeek-R1 "tp64" rows
// (..._tp8_ep8_954) repeat, to the digit, the rows stated as tp_size 8,
// moe_ep_size 8 (..._tp8_0_ep8_0_1252: TPOT 8.6 ms, TTFT 494.0 ms at 4
// requests), and gpt-oss-120b "tp16" (..._tp4_ep4) measures as the 4-GPU
// rows (TPOT 4.9 / 6.0 / 7.2 / 9.2 ms at 4-32 requests; 4-GPU TP 5.0 / 6.1 /
// 7.5 / 9.2, 16 GPUs would be faster still). aiconfigurator's generator
// writes tensor_parallel_size = moe_tp x moe_ep for TensorRT-LLM
// (generator/rule_plugin/benchmark/trtllm.rule, "Enforce TensorRT-LLM MoE
// parallelism: moe_tp x moe_ep = tp"), the product the columns hold; the
// id's X GPUs with expert degree Y is the deployment that ran.
// Without degrees in the id (the "dsr1_..._cfgN" rows) the product does not
// say which deployment ran, and the values say it was not expert-parallel:
// DeepSeek-V3 config 181 (tp_size 64, moe_tp 8, moe_ep 8) repeats within 3%
// config 83 (tp_size 8, moe_tp 8, moe_ep 1) at every concurrency and length
// both ran (TPOT 13.8 / 16.3 / 20.2 / 25.9 / 33.1 ms at 4-64 requests of
// 1,024 + 1,024 tokens; config 83: 13.8 / 16.4 / 20.4 / 26.1 / 34.0), and
// stays 35-60% off the expert-parallel rows (8.6 / 11.4 / 14.2 / 19.3 /
// 23.4); config 183 (attention_dp_size 64) repeats config 83 at 64 requests
// of 8,192 + 1,024 tokens (TPOT 47.8 against 48.3 ms, TTFT 4.73 against
// 5.00 s; attention DP 8 x EP 8 measured 39.8 ms and 6.42 s). Such rows are
// scored as the node's GPUs with the experts split by moe_tp_size.
#include "validate/serving_instance.hpp"

#include <algorithm>
#include <cctype>

namespace caliper::io {

namespace {

// The integer after `key` in `text` (0 when absent or not a number).
std::int64_t integerAfter(const std::string& text, const std::string& key, std::size_t from = 0) {
    const std::size_t at = text.find(key, from);
    if (at == std::string::npos) return 0;
    std::int64_t value = 0;
    for (std::size_t i = at + key.size(); i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i) {
        value = std::min<std::int64_t>(value * 10 + (text[i] - '0'), 1 << 20);
    }
    return value;
}

// "_tpX_epY" or "_tpX_0_epY_0" in the source row id: {X, Y}, {0, 0} if none.
std::pair<std::int64_t, std::int64_t> idDegrees(const std::string& extra) {
    const std::size_t idAt = extra.find("source row id=");
    if (idAt == std::string::npos) return {0, 0};
    const std::string id = extra.substr(idAt, extra.find(' ', idAt + 14) - idAt);
    for (std::size_t at = id.find("_tp"); at != std::string::npos; at = id.find("_tp", at + 1)) {
        const std::int64_t x = integerAfter(id, "_tp", at);
        const std::size_t epAt = id.find("_ep", at);
        if (x <= 0 || epAt == std::string::npos) continue;
        const std::int64_t y = integerAfter(id, "_ep", epAt);
        if (y > 0) return {x, y};
    }
    return {0, 0};
}

// GPUs of one node of aiconfigurator's measured systems (h100_sxm, h200_sxm,
// b200_sxm: aic-core/src/aiconfigurator_core/systems/*.yaml num_gpus_per_node
// 8 at commit 095f58a5); an aggregated sample of "single GPU type" runs one
// instance on one node.
constexpr std::int64_t kNodeGpus = 8;

}  // namespace

ServingInstance servingInstanceOf(std::int64_t tp, std::int64_t ep, const std::string& extra) {
    ServingInstance s;
    s.tp = std::max<std::int64_t>(1, tp);
    s.attentionDp = std::max<std::int64_t>(1, integerAfter(extra, "attention_dp_size="));
    s.ep = std::max<std::int64_t>(1, ep);
    const std::int64_t stated = s.gpus();
    const std::int64_t moeEp = integerAfter(extra, "moe_ep_size=");
    const auto [idGpus, idEp] = idDegrees(extra);
    std::int64_t gpus = 0, expertDegree = 0;
    if (idGpus > 0 && idEp > 1 && idGpus * idEp == stated) {
        gpus = idGpus, expertDegree = idEp;
    } else if (idGpus == 0 && moeEp > 1 && stated > kNodeGpus && stated % moeEp == 0) {
        // No id degrees: the product's signature (more GPUs than the node);
        // what ran split the experts by moe_tp over those GPUs (above).
        gpus = stated / moeEp, expertDegree = 1;
        s.attentionDp = 1;
    }
    if (gpus <= 0) return s;
    s.restated = true;
    s.attentionDp = s.attentionDp > 1 ? std::min(s.attentionDp, gpus) : 1;
    s.tp = std::max<std::int64_t>(1, gpus / s.attentionDp);
    s.ep = expertDegree;
    return s;
}

}  // namespace caliper::io
