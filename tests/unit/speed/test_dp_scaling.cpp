// Data parallelism across servers: every gradient bucket's collective pays
// NCCL's latency over the data-parallel ranks, and the last bucket reduces
// after the backward, with nothing to hide under (training/training_speed.cpp,
// speed/comm.cpp ncclLatencyS).
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <string>

#include "api_fixture.hpp"
#include "result_fixture.hpp"
#include "speed/comm.hpp"

using caliper::test::estimateOk;
using caliper::test::explainValue;
using Json = nlohmann::json;

namespace {

Json llama8bPretrain(int gpus) {
    return estimateOk(R"({"model":"llama-3.1-8b","gpu":"H100 SXM5","task":"pretrain","engine":"megatron","seq_len":8192,)"
                      R"("parallel":{"tp":2,"cp":1},"gpu_count":)" +
                      std::to_string(gpus) + "}");
}

}  // namespace

TEST_CASE("NCCL's collective latency grows with the ranks: linear ring, logarithmic tree", "[speed][comm]") {
    // NCCL src/graph/tuning.cc, Simple protocol, microseconds. One server of
    // 8 over NVLink: ring 8.4 + 2 x 7 x 3.4 = 56 us (the tree's
    // 2 x 7 x 28 = 392 us is slower).
    CHECK(caliper::ncclLatencyS(8, 1, true, true) == Approx(56.0e-6));
    // 128 ranks on 16 servers: ring 8.4 + (254 - 30) x 3.4 + 30 x 9.6 =
    // 1,058 us, x 1.9 across servers = 2,010 us; tree 2 x (7 x 28 + 4 x 50)
    // = 792 us: NCCL takes the tree.
    CHECK(caliper::ncclLatencyS(128, 16, true, true) == Approx(792.0e-6));
    // A reduce-scatter has only the ring: 127 steps, 15 across servers:
    // 8.4 + 112 x 3.4 + 15 x 9.6 = 533.2 us.
    CHECK(caliper::ncclLatencyS(128, 16, true, false) == Approx(533.2e-6));
    // More ranks, more latency.
    CHECK(caliper::ncclLatencyS(1024, 128, true, true) > caliper::ncclLatencyS(128, 16, true, true));
}

TEST_CASE("pre-training throughput per GPU falls from 64 to 512 H100s without pipeline parallelism", "[speed][dp]") {
    // Llama 3.1 8B (8.03e9 parameters), Megatron, 8,192 tokens a sequence,
    // ~4M tokens a step (microbatchesPerStep), tensor parallelism 2 as
    // stated. At 512 GPUs that is TP 2 x DP 256 over 64 servers: each rank
    // reduces 8.03e9 / 2 =
    // 4.015e9 parameters' bf16 gradients in Megatron-Core buckets of
    // max(40M, 1M x 256) = 256M parameters: 16 buckets of 502 MB. The DP
    // group has 4 ranks on each of 64 servers: tree latency
    // 2 x (3 x 28 + 6 x 50) = 768 us (ring: 4,795 us). The last bucket,
    // never hidden: 768 us + 2 x 255/256 x 502 MB / 44 GB/s (InfiniBand NDR
    // 400 Gb/s x 0.88) = 23.5 ms; the rest (0.35 s) hides under 0.8 x the
    // backward's 2/3 of a 0.93 s step.
    const Json at512 = llama8bPretrain(512);
    REQUIRE(at512["plan"]["tp"] == 2);
    REQUIRE(at512["plan"]["dp"] == 256);
    const double bucketBytes = 2.0 * 8.03e9 / 2 / 16;
    const double tailS = 768e-6 + 2.0 * 255 / 256 * bucketBytes / 44e9;
    CHECK(explainValue(at512, "train_dp_comm_exposed_s") == Approx(tailS).epsilon(0.02));
    // At 64 GPUs (DP 32 over 8 servers, 40M-parameter buckets of 80 MB)
    // the step is 8x longer and its last bucket ~4 ms: per-GPU
    // throughput falls from 64 to 512 GPUs by about the tail's share of the
    // 512-GPU step, 23.5 ms / 0.95 s = 2.5%.
    const Json at64 = llama8bPretrain(64);
    const double perGpu64 = at64["train_tokens_per_s"].get<double>() / 64;
    const double perGpu512 = at512["train_tokens_per_s"].get<double>() / 512;
    CHECK(perGpu512 < perGpu64);
    const double computeS = explainValue(at512, "train_step_compute_s");
    CHECK(perGpu512 / perGpu64 == Approx(computeS / (computeS + tailS)).epsilon(0.005));
}
