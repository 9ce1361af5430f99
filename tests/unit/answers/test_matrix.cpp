// The matrix's cells are the figures a single estimate gives for the same
// model, GPU and workload at the fewest GPUs that fit: computeMatrix takes a
// shorter path (prepared once, no text), and must not drift from estimate().
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "caliper/plan/estimate.hpp"
#include "caliper/answers/matrix.hpp"
#include "catalog_fixture.hpp"

using namespace caliper;

namespace {

constexpr int kMaxGpus = 8;  // the page's default GPU-count limit

Scenario workloadFor(Task task, Method method, Engine engine) {
    Scenario w;
    w.task = task;
    w.method = method;
    w.engine = engine;
    if (task != Task::Inference) {
        w.promptTokens = 0;
        w.outputTokens = 0;
        w.trainTokens = 1e9;
    }
    if (method == Method::Qlora) {
        w.weights = WeightFormat::Nf4Dq;
        w.weightsExplicit = true;
        w.gradientCheckpointing = true;
    }
    return w;
}

void requireSame(const std::optional<double>& cell, const std::optional<double>& single, const std::string& where) {
    INFO(where);
    REQUIRE(cell.has_value() == single.has_value());
    if (cell) REQUIRE(*cell == Approx(*single).epsilon(1e-12));
}

// Every cell of the whole catalog (or of the GPUs given) against
// estimate() on the same scenario; returns the cells.
std::vector<std::vector<MatrixCell>> checkEveryCell(const Scenario& workload,
                                                    const std::vector<const GpuSpec*>* only = nullptr) {
    const Catalog& catalog = test::projectCatalog();
    std::vector<const ModelSpec*> models;
    std::vector<const GpuSpec*> gpus;
    for (const ModelSpec& m : catalog.models) models.push_back(&m);
    if (only) gpus = *only;
    else for (const GpuSpec& g : catalog.gpus) gpus.push_back(&g);
    const auto cells = computeMatrix(workload, models, gpus, kMaxGpus);
    REQUIRE(cells.size() == models.size());
    int fitting = 0, tight = 0, above = 0;
    for (std::size_t m = 0; m < models.size(); ++m) {
        REQUIRE(cells[m].size() == gpus.size());
        for (std::size_t g = 0; g < gpus.size(); ++g) {
            Scenario s = workload;
            s.model = *models[m];
            s.gpu = *gpus[g];
            s.gpuCountAuto = true;
            s.maxGpus = kMaxGpus;  // the cell is the best plan within the matrix's limit
            adaptToGpu(s);
            const EstimateResult r = estimate(s, EstimateDetail{false, false, false});
            const MatrixCell& c = cells[m][g];
            const std::string where = models[m]->id + " on " + gpus[g]->id;
            INFO(where);
            // Above the limit the estimate says no count fits (gpus_needed
            // null) and names the fewest apart; the cell keeps that count.
            if (r.gpusNeeded || !c.gpusNeeded) REQUIRE(c.gpusNeeded == r.gpusNeeded);
            else REQUIRE(c.status == CellStatus::No);
            REQUIRE(c.totalGiB == Approx(r.memory.totalGiB).epsilon(1e-12));
            REQUIRE(c.strategy == r.plan.strategy);
            REQUIRE(c.nodes == r.plan.nodes);
            const bool fits = r.fits && r.plan.gpuCount <= kMaxGpus;
            REQUIRE((c.status != CellStatus::No) == fits);
            if (!fits) {
                REQUIRE_FALSE(c.gpuCount.has_value());
                continue;
            }
            ++fitting;
            // The cell's count is its plan's, the one its figures are for,
            // where the planner chose more than the fewest within the limit.
            REQUIRE(c.gpuCount == r.plan.gpuCount);
            above += *c.gpuCount > *c.gpusNeeded;
            requireSame(c.decodeTokensPerS, r.decodeTokensPerS, where);
            requireSame(c.prefillTokensPerS, r.prefillTokensPerS, where);
            requireSame(c.trainTokensPerS, r.trainTokensPerS, where);
            requireSame(c.trainHours, r.trainHours, where);
            requireSame(c.usdPerHour, r.usdPerHour, where);
            requireSame(c.usdPerMillionTokens, r.usdPerMillionTokens, where);
            requireSame(c.costUsd, r.costUsd, where);
            // The cell's ≈ and the detail's "tight" are one verdict (compared as
            // text: fitVerdict is a C string, and literals are not one object in
            // every build).
            REQUIRE(c.tight == (std::string(r.fitVerdict) == "tight"));
            tight += c.tight;
        }
    }
    // The catalog holds models from 0.1B to 671B: some cells fit, some do not.
    CHECK(fitting > 0);
    CHECK(fitting < int(models.size() * gpus.size()));
    INFO(tight << " tight cells");
    CHECK(tight < fitting);
    INFO(above << " cells whose plan runs on more GPUs than the fewest that fit");
    CHECK(above < fitting);
    return cells;
}

}  // namespace

TEST_CASE("matrix cells equal single estimates: vLLM inference", "[matrix]") {
    checkEveryCell(workloadFor(Task::Inference, Method::Full, Engine::Vllm));
}

TEST_CASE("a matrix cell's count is its plan's: Llama 2 70B on RTX 4090", "[matrix]") {
    // 70B parameters in BF16 are 129 GiB of weights: on 24 GiB cards a
    // pipeline fits on 7, but tensor parallelism must divide the 64 heads,
    // so within a limit of 8 the planner runs TP 8 (faster per token) and
    // the cell's figures are for 8 GPUs, not the 7 that fit.
    const Scenario w = workloadFor(Task::Inference, Method::Full, Engine::Vllm);
    const MatrixCell c = evaluateCell(w, test::catalogModel("llama-2-70b"), test::catalogGpu("rtx-4090"), kMaxGpus);
    REQUIRE(c.status == CellStatus::FitsMulti);
    REQUIRE(c.gpusNeeded);
    REQUIRE(c.gpuCount);
    CHECK(*c.gpuCount == 8);
    CHECK(*c.gpusNeeded < *c.gpuCount);
    CHECK(c.needsNvlink);  // tensor parallel
}

TEST_CASE("matrix cells equal single estimates: llama.cpp inference", "[matrix]") {
    Scenario w = workloadFor(Task::Inference, Method::Full, Engine::LlamaCpp);
    w.weights = WeightFormat::Q4_K_M;
    w.weightsExplicit = true;
    checkEveryCell(w);
}

TEST_CASE("matrix cells equal single estimates: Ollama, its layer split where the GPUs do not hold the model",
          "[matrix][offload]") {
    // Cells that do not fit on at most kMaxGpus GPUs with every layer there
    // get Ollama's split on the fewest GPUs whose host RAM holds the rest
    // (planner.cpp fewestOffloaded), as the estimate does.
    checkEveryCell(workloadFor(Task::Inference, Method::Full, Engine::Ollama));
}

TEST_CASE("matrix cells equal single estimates: llama.cpp with -ngl as high as fits", "[matrix][offload]") {
    Scenario w = workloadFor(Task::Inference, Method::Full, Engine::LlamaCpp);
    w.weights = WeightFormat::Q4_K_M;
    w.weightsExplicit = true;
    w.parallel.offload = Offload::Layers;
    w.parallel.offloadExplicit = true;
    w.parallel.gpuLayers = -1;
    checkEveryCell(w);
}

TEST_CASE("matrix cells equal single estimates: LoRA and QLoRA fine-tuning", "[matrix]") {
    checkEveryCell(workloadFor(Task::Finetune, Method::Lora, Engine::Transformers));
    checkEveryCell(workloadFor(Task::Finetune, Method::Qlora, Engine::Transformers));
}

TEST_CASE("matrix cells equal single estimates: the planner's knobs left open", "[matrix][planner]") {
    // gradient_checkpointing and batch "auto" (a training request's
    // defaults) and strategy auto: the planner weighs DDP / ZeRO-1/2/3,
    // checkpointing and the micro-batch per cell exactly as per estimate.
    for (Method method : {Method::Lora, Method::Full}) {
        Scenario w = workloadFor(Task::Finetune, method, Engine::Transformers);
        w.gradientCheckpointingAuto = true;
        w.batchAuto = true;
        checkEveryCell(w);
    }
    Scenario pretrain = workloadFor(Task::Pretrain, Method::Full, Engine::Megatron);
    pretrain.gradientCheckpointingAuto = true;
    pretrain.batchAuto = true;
    checkEveryCell(pretrain);
}

TEST_CASE("matrix cells equal single estimates: full fine-tuning and pre-training", "[matrix]") {
    checkEveryCell(workloadFor(Task::Finetune, Method::Full, Engine::Deepspeed));
    checkEveryCell(workloadFor(Task::Pretrain, Method::Full, Engine::Megatron));
}

TEST_CASE("matrix cells equal single estimates where columns share a count search", "[matrix]") {
    // Columns of the same memory share each row's GPU-count search
    // (plan/prepared.hpp CountShare): in full where the server and NVLink
    // domain sizes match, else only where one GPU fits. Four H100 80GB
    // columns: the catalog's (8-GPU servers, NVSwitch over 8), the same in
    // 4-GPU servers with NVLink bridges over 2 (tensor degrees capped at 2,
    // nodes counted by 4), the same without NVLink, and the same without
    // bf16 (fp16 defaults: the same 2 bytes, shared).
    const GpuSpec& h100 = test::catalogGpu("h100-sxm5-80gb");
    GpuSpec smallServers = h100;
    smallServers.id = "h100-4-per-server";
    smallServers.gpusPerNode = 4;
    smallServers.nvlinkMaxGpus = 2;
    GpuSpec noNvlink = h100;
    noNvlink.id = "h100-no-nvlink";
    noNvlink.nvlinkMaxGpus = 0;
    noNvlink.nvlinkGBps = 0;
    GpuSpec fp16Only = h100;
    fp16Only.id = "h100-fp16";
    fp16Only.supportsBf16 = false;
    const std::vector<const GpuSpec*> gpus{&h100, &smallServers, &noNvlink, &fp16Only};
    for (const Scenario& w : {workloadFor(Task::Inference, Method::Full, Engine::Vllm),
                              workloadFor(Task::Inference, Method::Full, Engine::Transformers),
                              workloadFor(Task::Finetune, Method::Full, Engine::Deepspeed)}) {
        const auto cells = checkEveryCell(w, &gpus);
        // Models above one GPU plan differently in the smaller servers (so
        // the shared search must not carry those over), and the same where
        // one GPU holds them.
        int differ = 0, sameOnOne = 0;
        for (const auto& row : cells) {
            if (row[0].gpusNeeded != row[1].gpusNeeded || row[0].nodes != row[1].nodes ||
                row[0].strategy != row[1].strategy || row[0].totalGiB != row[1].totalGiB) {
                ++differ;
            }
            if (row[0].fitsOne && row[1].fitsOne) sameOnOne += row[0].totalGiB == row[1].totalGiB;
        }
        CHECK(differ > 0);
        CHECK(sameOnOne > 0);
    }
}

TEST_CASE("a count search is shared across flash attention defaults only where the memory reads it", "[matrix]") {
    // An H100 without FlashAttention 2 defaults flash attention off
    // (adaptFlashAttention). vLLM's profile run sizes the same activations
    // either way (memory/activations.cpp), so its columns share one search;
    // transformers' eager attention scores grow the memory (they are not
    // shared). Every cell still equals its own single estimate.
    const GpuSpec& h100 = test::catalogGpu("h100-sxm5-80gb");
    GpuSpec noFlash = h100;
    noFlash.id = "h100-no-flash-attention";
    noFlash.flashAttention2 = false;
    const std::vector<const GpuSpec*> gpus{&h100, &noFlash};
    const auto served = checkEveryCell(workloadFor(Task::Inference, Method::Full, Engine::Vllm), &gpus);
    for (const auto& row : served) {
        REQUIRE(row[0].gpusNeeded == row[1].gpusNeeded);
        REQUIRE(row[0].totalGiB == row[1].totalGiB);
    }
    const auto eager = checkEveryCell(workloadFor(Task::Inference, Method::Full, Engine::Transformers), &gpus);
    int larger = 0;
    for (const auto& row : eager) larger += row[1].totalGiB > row[0].totalGiB;
    CHECK(larger > 0);
}
