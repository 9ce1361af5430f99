// The GPU-count search's lower bounds (plan/count_bounds.cpp): no count
// below them fits, so the search answers what a scan of every count
// answers.
#include <cmath>
#include <optional>

#include <catch2/catch.hpp>

#include "caliper/plan/estimate.hpp"
#include "memory/sizing.hpp"
#include "plan/count_bounds.hpp"
#include "plan/prepared.hpp"
#include "sizing_fixture.hpp"

using namespace caliper;
using namespace caliper::test;

namespace {

bool fitsAt(const sizing::Inputs& in, int count) {
    const Plan plan = sizing::planFor(in, count);
    return sizing::countUsable(in, plan) && sizing::fits(in, sizing::evaluate(in, plan, sizing::Explain(), nullptr));
}

// Large models (GLM-5: 78 layers; Nemotron 3 Ultra: 108; Kimi K2: 61 of
// ~33 GB in bf16) served on small cards, where a stage holds few whole
// layers and the staged bound lies far above the weights spread evenly.
Scenario servingOn(const char* model, const char* gpu, Engine engine) {
    Scenario s = serving(model, gpu, engine);
    if (engine == Engine::LlamaCpp) s.weights = WeightFormat::Q4_K_M;
    return s;
}

}  // namespace

TEST_CASE("no count between the weights' bound and the staged bound fits", "[plan][gpu_count]") {
    const char* models[] = {"glm-5", "nemotron-3-ultra-550b-a55b", "kimi-k2", "llama-3.1-405b"};
    const char* gpus[] = {"rtx-3060-8gb", "rtx-4070", "rtx-4090", "l4"};
    for (const char* model : models) {
        for (const char* gpu : gpus) {
            for (Engine engine : {Engine::Vllm, Engine::Sglang, Engine::TensorrtLlm, Engine::LlamaCpp}) {
                const Scenario s = servingOn(model, gpu, engine);
                const sizing::Inputs in = sizing::prepare(s);
                const double weights = lowestMultiGpuCount(in);
                const double staged = lowestStagedCount(in, weights);
                INFO(model << " on " << gpu << " " << toString(engine) << ": weights' bound " << weights
                           << ", staged " << staged);
                CHECK(staged >= weights);
                for (int n = std::max(2, int(std::ceil(weights))); n < staged && n <= kMaxGpus; ++n) {
                    INFO(n << " GPUs");
                    CHECK_FALSE(fitsAt(in, n));
                }
            }
        }
    }
}

TEST_CASE("GLM-5 on a 12 GB card needs one layer per GPU", "[plan][gpu_count]") {
    // 78 layers of ~9.5 GB in bf16 (744B parameters, config.json) on 11.99 GB
    // cards, 4 per node (catalog): even at tensor degree 4 a stage of two
    // layers overflows, so each of 78 stages holds one layer on 4 GPUs: 312,
    // the most GPUs the split can use (tp 4 x 78 layers). The weights spread
    // evenly over the GPUs, with the overheads every GPU holds, would allow
    // ~145.
    const Scenario s = serving("glm-5", "rtx-4070");
    const sizing::Inputs in = sizing::prepare(s);
    CHECK(lowestMultiGpuCount(in) < 150);
    CHECK(lowestStagedCount(in, lowestMultiGpuCount(in)) == 312);
    CHECK(fewestGpus(s) == 312);
    CHECK(fitsAt(in, 312));
}

TEST_CASE("the staged bound stays where a single stage may fit or the request fixes the split", "[plan][gpu_count]") {
    // A bound at or below the widest tensor degree (8 on an 8-GPU server)
    // may be a single stage holding lm_head too: not raised.
    const Scenario h100 = serving("glm-5", "h100-sxm5-80gb");
    CHECK(lowestStagedCount(sizing::prepare(h100), 8.0) == 8.0);
    // Stated degrees and training keep the bound given.
    Scenario stated = serving("glm-5", "rtx-4070");
    stated.parallel.tp = 2;
    CHECK(lowestStagedCount(sizing::prepare(stated), 20.0) == 20.0);
    const Scenario training = finetuning("glm-5", "rtx-4070", Method::Lora);
    CHECK(lowestStagedCount(sizing::prepare(training), 20.0) == 20.0);
}
