// Training states: optimizers, offload and LoRA adapters.
#include <catch2/catch.hpp>

#include "sizing_fixture.hpp"

using namespace caliper;
using namespace caliper::test;

namespace {

double termValue(const MemoryEstimate& m, const std::string& term) {
    for (const ExplainTerm& t : m.explain) {
        if (t.term == term) return t.value;
    }
    FAIL("no explain term " << term);
    return 0;
}

}  // namespace

TEST_CASE("training states by optimizer and offload", "[memory][training]") {
    Scenario s = finetuning("llama-2-7b", "h100-sxm5-80gb", Method::Full);
    const double n = 6738415616.0;
    // Transformer Math 101: AdamW 12 bytes (master + m + v); 8-bit AdamW 6;
    // SGD with momentum 8 (master + momentum).
    const std::pair<Optimizer, double> optimizers[] = {
        {Optimizer::AdamW, 12}, {Optimizer::AdamW8bit, 6}, {Optimizer::PagedAdamW8bit, 6}, {Optimizer::Sgd, 8}};
    for (const auto& [optimizer, bytes] : optimizers) {
        s.optimizer = optimizer;
        CHECK(memoryOn(s, 1).optimizerGiB == Approx(bytesToGiB(bytes * n)).epsilon(0.003));
    }
    s.optimizer = Optimizer::Adafactor;
    CHECK(memoryOn(s, 1).optimizerGiB < bytesToGiB(4.2 * n));  // master copy + factored moments

    // ZeRO-3 with parameter offload keeps only live layers on the GPU and the
    // states in host RAM (DeepSpeed: 18 P x 1.5 with zero_init).
    s.optimizer = Optimizer::AdamW;
    s.engine = Engine::Deepspeed;
    s.parallel.strategy = Strategy::Zero3;
    s.parallel.offload = Offload::Parameters;
    const MemoryBreakdown off = memoryOn(s, 8);
    CHECK(off.optimizerGiB == 0);
    CHECK(off.cpuOffloadGiB == Approx(bytesToGiB(18 * n * 1.5)).epsilon(0.003));
}

TEST_CASE("LoRA counts r (d_in + d_out) per adapted matrix", "[memory][training]") {
    // Llama-2-7B, rank 16, attention only: 32 layers x 4 matrices x 16 x (4096 + 4096).
    Scenario s = finetuning("llama-2-7b", "h100-sxm5-80gb", Method::Lora);
    s.lora.allLinear = false;
    const MemoryEstimate e = estimateMemory(s, makePlan(s, 1));
    CHECK(termValue(e, "lora_params") == Approx(32.0 * 4 * 16 * 8192));
    // fp32 adapters, fp32 gradients, AdamW moments: 4 + 4 + 8 bytes each.
    CHECK(e.memory.adapterGiB == Approx(bytesToGiB(4 * 32.0 * 4 * 16 * 8192)));
    CHECK(e.memory.optimizerGiB == Approx(bytesToGiB(8 * 32.0 * 4 * 16 * 8192)));
}
