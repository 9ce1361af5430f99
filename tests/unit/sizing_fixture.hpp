#pragma once
// Scenarios for the sizing tests, built from the project's catalog (data/),
// whose entries carry their sources (config.json fields, datasheets).
#include <cstdint>
#include <string>

#include <catch2/catch.hpp>

#include "caliper/memory/memory.hpp"
#include "caliper/plan/plan.hpp"
#include "caliper/scenario.hpp"
#include "caliper/units.hpp"
#include "catalog_fixture.hpp"

namespace caliper::test {

// The value of one explain term of a memory estimate; fails the test when absent.
inline double termValue(const MemoryEstimate& m, const std::string& term) {
    for (const ExplainTerm& t : m.explain) {
        if (t.term == term) return t.value;
    }
    FAIL("no explain term " << term);
    return 0;
}

// Serving: one sequence of 2048 + 512 tokens unless changed (docs/CONTRACT.md defaults).
inline Scenario serving(const std::string& model, const std::string& gpu, Engine engine = Engine::Vllm) {
    Scenario s;
    s.model = catalogModel(model);
    s.gpu = catalogGpu(gpu);
    s.task = Task::Inference;
    s.engine = engine;
    s.weights = s.gpu.supportsBf16 ? WeightFormat::Bf16 : WeightFormat::Fp16;
    s.kvCache = s.gpu.supportsBf16 ? KvFormat::Bf16 : KvFormat::Fp16;
    s.flashAttention = s.gpu.flashAttention2;
    return s;
}

// A generation run: `batch` sequences of `promptTokens` prompt tokens and
// `outputTokens` new ones (transformers' generate() unless another engine is named).
inline Scenario generateRun(const std::string& model, const std::string& gpu, std::int64_t batch,
                            std::int64_t promptTokens, std::int64_t outputTokens, Engine engine = Engine::Transformers) {
    Scenario s = serving(model, gpu, engine);
    s.batch = batch;
    s.promptTokens = promptTokens;
    s.outputTokens = outputTokens;
    return s;
}

// Fine-tuning with the Hugging Face stack: 2048-token samples, micro-batch 1.
inline Scenario finetuning(const std::string& model, const std::string& gpu, Method method,
                           Engine engine = Engine::Transformers) {
    Scenario s = serving(model, gpu, engine);
    s.task = Task::Finetune;
    s.method = method;
    s.seqLen = 2048;
    s.promptTokens = 0;
    s.outputTokens = 0;
    if (method == Method::Qlora) {
        s.weights = WeightFormat::Nf4Dq;
        s.gradientCheckpointing = true;
    }
    return s;
}

// The figures torch.cuda reports, from a breakdown (docs/CONTRACT.md,
// memory): max_memory_reserved leaves out the CUDA context and NCCL's
// buffers; max_memory_allocated also the caching allocator's reserves.
inline double reservedGiB(const MemoryBreakdown& m) {
    return m.totalGiB - m.overheadParts.cudaContextGiB - m.overheadParts.ncclBuffersGiB;
}
inline double allocatedGiB(const MemoryBreakdown& m) {
    return reservedGiB(m) - m.overheadParts.allocatorReserveGiB - m.overheadParts.varyingLengthReserveGiB;
}

inline MemoryBreakdown memoryOn(const Scenario& s, int gpus) { return estimateMemory(s, makePlan(s, gpus)).memory; }

inline double gb(double gib) { return gib * kBytesPerGiB / kBytesPerGB; }

}  // namespace caliper::test
