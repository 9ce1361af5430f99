// Timings of the engine on the built-in catalog: one estimate (whole and by
// piece), the full model x GPU matrix for an inference and a LoRA workload,
// and the recommend, inventory and limits requests. Prints medians of
// repeated runs in CPU time of the calling thread, so that other work on a
// shared machine does not inflate them (single-threaded code: CPU time is
// the wall time an idle machine would show).
//
//   build/bin/caliper_bench [--quick]
//   valgrind --tool=callgrind build/bin/caliper_bench --profile-catalog
//   valgrind --tool=callgrind build/bin/caliper_bench --profile-matrix
//   perf record -g build/bin/caliper_bench --profile-matrix 50 [lora|lora-defaults|slo|full]   (N passes)
//   valgrind --tool=callgrind build/bin/caliper_bench --profile-estimate-json
//   perf record -g build/bin/caliper_bench --profile-serve 20   (N serve requests, as benchRequests times it)
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "caliper/api.hpp"
#include "caliper/plan/compat.hpp"
#include "caliper/cost/cost.hpp"
#include "caliper/plan/estimate.hpp"
#include "caliper/answers/matrix.hpp"
#include "caliper/serving/serve.hpp"
#include "caliper/memory/memory.hpp"
#include "caliper/plan/plan.hpp"
#include "caliper/speed/speed.hpp"
#include "embedded_catalog.hpp"
#include "plan/prepared.hpp"
#include "memory/sizing.hpp"

using namespace caliper;

namespace {

double threadCpuMicros() {
    timespec now{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return static_cast<double>(now.tv_sec) * 1e6 + static_cast<double>(now.tv_nsec) / 1e3;
}

volatile double gSink = 0;  // keeps results observable so the optimiser cannot drop the work

// The serve request timed below and profiled with --profile-serve: one
// model over the whole GPU catalog, as the page's serving view asks it.
constexpr const char* kServeRequest =
    R"({"model":"llama-3.1-70b","users":200,"prompt_tokens":1024,"output_tokens":256,)"
    R"("slo":{"ttft_s":2,"min_user_tokens_per_s":20}})";

// Median CPU time of one call of `body`, in microseconds, over `runs`
// samples (after one warm-up call). A sample times `inner` calls in a row so
// that sub-microsecond pieces are not lost in the clock's own cost.
double medianMicros(int runs, const std::function<void()>& body, int inner = 1) {
    body();
    std::vector<double> times;
    times.reserve(static_cast<std::size_t>(runs));
    for (int i = 0; i < runs; ++i) {
        const double start = threadCpuMicros();
        for (int k = 0; k < inner; ++k) body();
        times.push_back((threadCpuMicros() - start) / inner);
    }
    std::nth_element(times.begin(), times.begin() + runs / 2, times.end());
    return times[static_cast<std::size_t>(runs / 2)];
}

void row(const char* name, double micros, const char* extra = "") {
    if (micros >= 1000) std::printf("  %-46s %10.2f ms  %s\n", name, micros / 1000, extra);
    else std::printf("  %-46s %10.2f us  %s\n", name, micros, extra);
}

Scenario inferenceScenario(const Catalog& catalog, const char* model, const char* gpu) {
    Scenario s;
    s.model = *findModel(catalog, model);
    s.gpu = *findGpu(catalog, gpu);
    adaptToGpu(s);  // request defaults: vLLM, bf16, batch 1, 2048 in + 512 out
    return s;
}

Scenario loraScenario(const Catalog& catalog, const char* model, const char* gpu) {
    Scenario s = inferenceScenario(catalog, model, gpu);
    s.task = Task::Finetune;  // request defaults for finetune: LoRA, Transformers, seq 2048
    s.method = Method::Lora;
    s.engine = Engine::Transformers;
    s.promptTokens = 0;
    s.outputTokens = 0;
    s.seqLen = 2048;
    s.trainTokens = 1e8;
    return s;
}

// The same with what a LoRA request leaves to the planner by default:
// gradient checkpointing and the micro-batch ("auto").
Scenario loraDefaultsScenario(const Catalog& catalog, const char* model, const char* gpu) {
    Scenario s = loraScenario(catalog, model, gpu);
    s.gradientCheckpointingAuto = true;
    s.batchAuto = true;
    return s;
}

// A full fine-tune as the SFT preset asks it (checkpointing on, one
// sequence a micro-batch): the cells where the planner weighs ZeRO-Offload
// and ZeRO-3 with offloaded parameters.
Scenario fullScenario(const Catalog& catalog, const char* model, const char* gpu) {
    Scenario s = loraScenario(catalog, model, gpu);
    s.method = Method::Full;
    s.gradientCheckpointing = true;
    return s;
}

// The pieces estimate() is made of, each timed alone: fewestGpus() is the
// memory model without explanation text, estimateMemory() the same model
// with it, so their difference is the cost of the explanation.
void benchEstimate(const Scenario& s, const char* label, int runs) {
    constexpr int kInner = 50;
    std::printf("%s\n", label);
    const double whole = medianMicros(runs, [&] { gSink = gSink + estimate(s).memory.totalGiB; }, kInner);
    row("estimate() (plan, memory, speed, cost, explain)", whole);
    const int count = fewestGpus(s).value_or(1);
    const Plan plan = makePlan(s, count);
    auto piece = [&](const char* name, const std::function<void()>& body) {
        row(name, medianMicros(runs, body, kInner));
    };
    piece("  fewestGpus() (count search, no explain)", [&] { gSink = gSink + fewestGpus(s).value_or(0); });
    piece("  makePlan()", [&] { gSink = gSink + makePlan(s, count).gpuCount; });
    piece("  estimateMemory() (with explain)", [&] { gSink = gSink + estimateMemory(s, plan).memory.totalGiB; });
    const SpeedEstimate speed = estimateSpeed(s, plan);
    piece("  estimateSpeed() (with explain)",
          [&] { gSink = gSink + estimateSpeed(s, plan).prefillTokensPerS.value_or(0); });
    piece("  estimateCost() (with explain)", [&] { gSink = gSink + estimateCost(s, plan, speed).powerW.value_or(0); });
    piece("  compatibilityWarnings()", [&] { gSink = gSink + compatibilityWarnings(s, plan).size(); });
    piece("  Scenario copy (as evaluateCell makes)", [&] {
        Scenario copy = s;
        gSink = gSink + copy.model.layers;
    });
}

// `targetMs` > 0: the row also says whether it is within that target.
void matrixRow(const char* label, double micros, double cells, double targetMs = 0) {
    char extra[160];
    const int n = std::snprintf(extra, sizeof extra, "%.0f cells, %.0f cells/s, %.2f us/cell", cells,
                                cells / (micros / 1e6), micros / cells);
    if (targetMs > 0 && n > 0 && std::size_t(n) < sizeof extra) {
        std::snprintf(extra + n, sizeof extra - std::size_t(n), " (target <= %.0f ms: %s)", targetMs,
                      micros / 1000 <= targetMs ? "within target" : "OVER target");
    }
    row(label, micros, extra);
}

std::vector<const ModelSpec*> allModels(const Catalog& catalog) {
    std::vector<const ModelSpec*> out;
    for (const ModelSpec& m : catalog.models) out.push_back(&m);
    return out;
}

std::vector<const GpuSpec*> allGpus(const Catalog& catalog) {
    std::vector<const GpuSpec*> out;
    for (const GpuSpec& g : catalog.gpus) out.push_back(&g);
    return out;
}

// One matrix pass as computeMatrix walks it (GPU by GPU, one reused
// scenario), stopping after `steps` of a cell's steps: 0 set-up only,
// 1 + prepare, 2 + GPU-count search (which keeps the plan and memory of its
// answer), 3 + memory at one GPU for cells that fit on none, 4 + speed,
// 5 + cost (the whole cell).
double partialPass(const Catalog& catalog, const Scenario& workload, int steps) {
    double total = 0;
    Scenario s = workload;
    s.gpuCountAuto = true;
    for (const GpuSpec& g : catalog.gpus) {
        s.gpu = g;
        adaptToGpu(s);
        for (const ModelSpec& m : catalog.models) {
            s.model = m;
            total += double(s.model.layers);
            if (steps < 1) continue;
            const sizing::Inputs in = sizing::prepare(s);
            total += in.counts().total;
            if (steps < 2) continue;
            const std::optional<CountFit> fit = fewestGpusFit(in);
            if (steps < 3) continue;
            const Plan plan = fit ? fit->plan : sizing::planFor(in, 1);
            total += fit ? fit->memory.totalGiB : sizing::evaluate(in, plan, sizing::Explain(), nullptr).totalGiB;
            if (steps < 4) continue;
            const SpeedEstimate speed = speedFigures(s, plan);
            total += speed.decodeTokensPerS.value_or(0) + speed.trainTokensPerS.value_or(0);
            if (steps < 5) continue;
            total += costFigures(s, plan, speed).usdPerHour.value_or(0);
        }
    }
    return total;
}

// Where a matrix cell's time goes: each step's share, from the difference
// of passes that stop one step apart.
void benchMatrixSteps(const Catalog& catalog, const Scenario& workload, int runs) {
    const double cells = static_cast<double>(catalog.models.size() * catalog.gpus.size());
    static const char* const kSteps[] = {"scenario set-up (copy model, adapt to GPU)", "prepare (counts, shape, bytes)",
                                         "GPU-count search (with its memory)", "memory where none fits", "speed (figures only)",
                                         "cost (figures only)"};
    double previous = 0;
    for (int steps = 0; steps <= 5; ++steps) {
        const double micros = medianMicros(runs, [&] { gSink = gSink + partialPass(catalog, workload, steps); });
        char label[96];
        std::snprintf(label, sizeof label, "    %s", kSteps[steps]);
        char extra[64];
        std::snprintf(extra, sizeof extra, "%.3f us/cell", std::max(0.0, micros - previous) / cells);
        row(label, std::max(0.0, micros - previous), extra);
        previous = micros;
    }
}

void benchMatrix(const Catalog& catalog, const Scenario& workload, const char* label, int runs, const Slo* slo = nullptr,
                 bool steps = true, double targetMs = 0) {
    const double cells = static_cast<double>(catalog.models.size() * catalog.gpus.size());
    const std::vector<const ModelSpec*> models = allModels(catalog);
    const std::vector<const GpuSpec*> gpus = allGpus(catalog);
    std::vector<std::vector<MatrixCell>> buffer;  // reused, as a caller that works out matrix after matrix would
    matrixRow(label, medianMicros(runs, [&] {
                  computeMatrix(workload, models, gpus, 8, slo, buffer);
                  gSink = gSink + buffer.front().front().totalGiB;
              }),
              cells, targetMs);
    if (!slo && steps) benchMatrixSteps(catalog, workload, runs);
}

// The same pass with its cells in fresh memory, as one request's matrix is:
// the difference from the reused buffer is the cost of that memory.
void benchMatrixFresh(const Catalog& catalog, const Scenario& workload, const char* label, int runs) {
    const double cells = static_cast<double>(catalog.models.size() * catalog.gpus.size());
    const std::vector<const ModelSpec*> models = allModels(catalog);
    const std::vector<const GpuSpec*> gpus = allGpus(catalog);
    matrixRow(label, medianMicros(runs, [&] {
                  gSink = gSink + computeMatrix(workload, models, gpus, 8).front().front().totalGiB;
              }),
              cells);
}

void benchRequest(const char* label, int runs, const std::function<ApiResponse()>& call) {
    const ApiResponse first = call();
    char extra[96];
    std::snprintf(extra, sizeof extra, "status %d, %zu bytes of JSON", first.status, first.json.size());
    row(label, medianMicros(runs, [&] { gSink = gSink + call().json.size(); }), extra);
}

// The catalog as the page loads it: parse both files, read and check every
// entry (the page's first paint waits for this).
void benchCatalog(int runs) {
    std::printf("catalog load\n");
    const std::size_t bytes = embeddedGpusJson().size() + embeddedModelsJson().size();
    char extra[64];
    std::snprintf(extra, sizeof extra, "%zu bytes of JSON", bytes);
    row("parseCatalog() (gpus.json + models.json)", medianMicros(runs, [] {
            gSink = gSink + parseCatalog(embeddedGpusJson(), embeddedModelsJson()).gpus.size();
        }),
        extra);
}

void benchEstimates(const Catalog& catalog, int runs) {
    benchEstimate(inferenceScenario(catalog, "llama-3.1-8b", "h100-sxm5-80gb"),
                  "one estimate: llama-3.1-8b inference on 1x H100 SXM", runs);
    benchEstimate(loraScenario(catalog, "llama-3.1-70b", "rtx-4090"),
                  "one estimate: llama-3.1-70b LoRA on RTX 4090 (multi-GPU search)", runs);
    std::printf("one estimate through the text API\n");
    benchRequest("estimateJson() (parse, estimate, JSON out)", runs,
                 [&] { return estimateJson(catalog, R"({"model":"llama-3.1-8b","gpu":"h100-sxm5-80gb"})"); });
}

void benchMatrices(const Catalog& catalog, int runs) {
    // Target: <= 15 ms natively for the inference matrix (<= 40 ms for the
    // WebAssembly engine in the page: bench/wasm-matrix-bench.js).
    std::printf("full catalog matrix, computeMatrix() (engine only, max 8 GPUs; target <= 15 ms), and its steps\n");
    constexpr double kNativeMatrixTargetMs = 15;  // issue budget: whole catalog natively
    benchMatrix(catalog, inferenceScenario(catalog, "llama-3.1-8b", "h100-sxm5-80gb"),
                "inference (vLLM, 2048+512 tokens, batch 1)", runs, nullptr, true, kNativeMatrixTargetMs);
    benchMatrixFresh(catalog, inferenceScenario(catalog, "llama-3.1-8b", "h100-sxm5-80gb"),
                     "inference, cells in fresh memory (one request)", runs);
    benchMatrix(catalog, loraScenario(catalog, "llama-3.1-8b", "h100-sxm5-80gb"), "LoRA (r16, seq 2048, batch 1)",
                runs);
    benchMatrix(catalog, loraDefaultsScenario(catalog, "llama-3.1-8b", "h100-sxm5-80gb"),
                "LoRA, the request's defaults (checkpointing and micro-batch searched)", runs, nullptr, false);
    Slo slo;
    slo.ttftS = 2.0;
    slo.minUserTokensPerS = 20.0;
    benchMatrix(catalog, inferenceScenario(catalog, "llama-3.1-8b", "h100-sxm5-80gb"),
                "inference, users at SLO (TTFT 2 s, 20 tok/s per user)", runs, &slo);
    std::printf("full catalog matrix through the text API (JSON in and out)\n");
    benchRequest("matrixJson() inference", runs, [&] { return matrixJson(catalog, R"({"model":"all","gpu":"all"})"); });
    benchRequest("matrixJson() inference, cells_layout columns", runs, [&] {
        return matrixJson(catalog, R"({"model":"all","gpu":"all","cells_layout":"columns"})");
    });
    benchRequest("matrixJson() LoRA", runs, [&] {
        return matrixJson(catalog, R"({"model":"all","gpu":"all","task":"finetune","method":"lora"})");
    });
    // Ollama's cells search its context band by band (num_ctx follows the VRAM).
    benchRequest("matrixJson() inference, Ollama", runs, [&] {
        return matrixJson(catalog, R"({"model":"all","gpu":"all","engine":"ollama"})");
    });
}

void benchRequests(const Catalog& catalog, int runs) {
    std::printf("other requests\n");
    benchRequest("recommendJson() llama-3.1-8b serving, cheapest", runs,
                 [&] { return recommendJson(catalog, R"({"model":"llama-3.1-8b","batch":32})"); });
    benchRequest("recommendJson() llama-3.1-70b full FT, fastest", runs, [&] {
        return recommendJson(catalog,
                             R"({"model":"llama-3.1-70b","task":"finetune","method":"full","objective":"fastest"})");
    });
    benchRequest("inventoryJson() 4x rtx-2080-ti-22gb, all models", runs, [&] {
        return inventoryJson(catalog, R"({"inventory":[{"gpu":"rtx-2080-ti-22gb","count":4}]})");
    });
    benchRequest("limitsJson() llama-3.1-8b on rtx-4090", runs,
                 [&] { return limitsJson(catalog, R"({"model":"llama-3.1-8b","gpu":"rtx-4090"})"); });
    // Target: <= 50 ms natively for the whole GPU catalog and one model.
    benchRequest("serveJson() llama-3.1-70b, 200 users, every GPU, SLO ttft 2 s / 20 tok/s", runs,
                 [&] { return serveJson(catalog, kServeRequest); });
}

}  // namespace

int main(int argc, char** argv) {
    if (argc > 1 && std::strcmp(argv[1], "--profile-serve") == 0) {  // N serve requests (one by default)
        const Catalog catalog = parseCatalog(embeddedGpusJson(), embeddedModelsJson());
        const int passes = argc > 2 ? std::max(1, std::atoi(argv[2])) : 1;
        for (int i = 0; i < passes; ++i) gSink = gSink + serveJson(catalog, kServeRequest).json.size();
        return 0;
    }
    const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
    const bool profile = argc > 1 && std::strcmp(argv[1], "--profile-matrix") == 0;
    const Catalog catalog = parseCatalog(embeddedGpusJson(), embeddedModelsJson());
    if (profile) {  // passes of the inference matrix (one by default), for callgrind or perf
        const int passes = argc > 2 ? std::max(1, std::atoi(argv[2])) : 1;
        const bool lora = argc > 3 && std::strcmp(argv[3], "lora") == 0;
        const bool loraDefaults = argc > 3 && std::strcmp(argv[3], "lora-defaults") == 0;
        const bool withSlo = argc > 3 && std::strcmp(argv[3], "slo") == 0;  // the users-at-SLO mode below
        const bool full = argc > 3 && std::strcmp(argv[3], "full") == 0;  // full fine-tune, as the SFT preset
        Slo slo;
        slo.ttftS = 2.0;
        slo.minUserTokensPerS = 20.0;
        const Scenario workload = lora           ? loraScenario(catalog, "llama-3.1-8b", "h100-sxm5-80gb")
                                  : loraDefaults ? loraDefaultsScenario(catalog, "llama-3.1-8b", "h100-sxm5-80gb")
                                  : full         ? fullScenario(catalog, "llama-3.1-8b", "h100-sxm5-80gb")
                                                 : inferenceScenario(catalog, "llama-3.1-8b", "h100-sxm5-80gb");
        std::vector<std::vector<MatrixCell>> buffer;
        for (int i = 0; i < passes; ++i) {
            computeMatrix(workload, allModels(catalog), allGpus(catalog), 8, withSlo ? &slo : nullptr, buffer);
            gSink = gSink + buffer.front().front().totalGiB;
        }
        return 0;
    }
    if (argc > 1 && std::strcmp(argv[1], "--profile-catalog") == 0) {  // 20 catalog loads
        for (int i = 0; i < 20; ++i) gSink = gSink + parseCatalog(embeddedGpusJson(), embeddedModelsJson()).gpus.size();
        return 0;
    }
    if (argc > 1 && std::strcmp(argv[1], "--profile-estimate-json") == 0) {  // 1,000 text-API estimates
        for (int i = 0; i < 1000; ++i) {
            gSink = gSink + estimateJson(catalog, R"({"model":"llama-3.1-8b","gpu":"h100-sxm5-80gb"})").json.size();
        }
        return 0;
    }
    std::printf("caliper_bench: %zu models x %zu GPUs (catalog %s), CPU time, median of runs\n",
                catalog.models.size(), catalog.gpus.size(), catalog.version.c_str());
    benchCatalog(quick ? 5 : 31);
    benchEstimates(catalog, quick ? 20 : 200);
    benchMatrices(catalog, quick ? 3 : 15);
    benchRequests(catalog, quick ? 3 : 11);
    return gSink < 0 ? 1 : 0;
}
