// `caliper validate`: comparisons with result fields, the statistics, and
// the project's accuracy targets on validation/public.jsonl.
#include "validation_fixture.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "validate/names.hpp"
#include "validate/text.hpp"

using caliper::io::Compared;
using caliper::test::projectCatalog;
using Json = nlohmann::json;
using caliper::test::validateOne;
using caliper::test::validationRow;

TEST_CASE("torch max_memory_allocated rows compare with the total less what PyTorch does not allocate",
          "[validation]") {
    const Json r = validationRow({{"kind", "inference_memory"},
                                  {"model", "bigcode/octocoder"},
                                  {"params_b", 15.5},
                                  {"quant", "bf16"},
                                  {"gpu", "NVIDIA A100 40GB (as stated in post)"},
                                  {"batch", 1},
                                  {"extra",
                                   "transformers generate, max_new_tokens=60, short prompt (~20 tokens); peak = "
                                   "torch.cuda.max_memory_allocated()"},
                                  {"value", 29.0},
                                  {"unit", "GiB"}});
    const auto m = caliper::test::mappedRow(r);
    CHECK(m.compared == Compared::AllocatedMemory);
    CHECK(m.request["engine"] == "transformers");
    CHECK(m.request["prompt_tokens"] == 20);
    CHECK(m.request["output_tokens"] == 60);

    const Json result = caliper::test::estimateResult(m.request);
    const caliper::ValidationReport report = validateOne(r);
    REQUIRE(report.scores.size() == 1);
    // The result's explain itemizes the CUDA context and the allocator reserves
    // (generate()'s prefill blocks here), the parts of total_gib that
    // max_memory_allocated() does not see.
    const double expected = result["memory"]["total_gib"].get<double>() -
                            caliper::test::explainedValue(result, "cuda_context_gib") -
                            caliper::test::explainedValue(result, "allocator_reserve_gib") -
                            caliper::test::explainedValue(result, "generate_transient_reserve_gib") -
                            caliper::test::explainedValue(result, "varying_length_reserve_gib") -
                            caliper::test::explainedValue(result, "nccl_buffers_gib");
    CHECK(report.scores[0].predicted == Approx(expected));
    CHECK(report.scores[0].predicted < result["memory"]["total_gib"].get<double>());
}

TEST_CASE("memory rows that do not say how they were measured compare with total_gib", "[validation]") {
    const Json r = validationRow({{"kind", "finetune_memory"},
                                  {"model", "meta-llama/Llama-2-7b-hf"},
                                  {"quant", "bf16"},
                                  {"method", "lora"},
                                  {"gpu", "NVIDIA A100 80GB"},
                                  {"seq_len", 1024},
                                  {"batch", 1},
                                  {"value", 47.14},
                                  {"unit", "GB"}});
    const auto m = caliper::test::mappedRow(r);
    CHECK(m.compared == Compared::TotalMemory);
    CHECK(m.measured == Approx(47.14e9 / 1073741824.0));  // GB = 1e9 bytes, GiB = 2^30 (docs/CONTRACT.md)
    CHECK(m.request["task"] == "finetune");
    CHECK(m.request["method"] == "lora");
    const caliper::ValidationReport report = validateOne(r);
    REQUIRE(report.scores.size() == 1);
    CHECK(report.scores[0].predicted ==
          Approx(caliper::test::estimateResult(m.request)["memory"]["total_gib"].get<double>()));
}

TEST_CASE("an unknown GPU is listed as not scored, with its reason", "[validation]") {
    const caliper::ValidationReport report =
        validateOne(validationRow({{"id", "x9000-row"}, {"gpu", "NVIDIA Imaginary X9000"}}));
    CHECK(report.rowsRead == 1);
    CHECK(report.scores.empty());
    REQUIRE(report.unscored.size() == 1);
    CHECK(report.unscored[0].id == "x9000-row");
    CHECK(report.unscored[0].kind == "decode_tps");
    CHECK_THAT(report.unscored[0].reason, Catch::Contains("X9000") && Catch::Contains("not in the catalog"));
}

TEST_CASE("bad lines are counted and listed, never dropped", "[validation]") {
    const caliper::ValidationReport report = caliper::validateRows(
        projectCatalog(), "{not json\n\n" + validationRow({{"kind", "speed_of_light"}}).dump() + "\n");
    CHECK(report.rowsRead == 2);  // the blank line is not a row
    REQUIRE(report.unscored.size() == 2);
    CHECK(report.unscored[0].id == "line 1");
    CHECK_THAT(report.unscored[1].reason, Catch::Contains("unknown kind"));
}

TEST_CASE("fits rows compare the engine's fit with fits / OOM", "[validation]") {
    const Json r = validationRow({{"kind", "fits"},
                                  {"model", "bigscience/bloomz-7b1"},
                                  {"params_b", 7},
                                  {"quant", "fp32"},
                                  {"method", "full"},
                                  {"gpu", "NVIDIA A100 80GB"},
                                  {"value", "OOM"},
                                  {"unit", nullptr}});
    const auto m = caliper::test::mappedRow(r);
    CHECK(m.compared == Compared::Fits);
    REQUIRE(m.expectFits);
    CHECK_FALSE(*m.expectFits);
    const caliper::ValidationReport report = validateOne(r);
    REQUIRE(report.scores.size() == 1);
    CHECK_FALSE(report.scores[0].hasError);
    REQUIRE(report.scores[0].fitCorrect);
    // Full fine-tuning in fp32 with AdamW keeps 16 bytes per parameter: ~105 GiB for 7B, over 80 GB.
    CHECK(*report.scores[0].fitCorrect);
}

TEST_CASE("lower-bound rows are checked as bounds, not scored for error", "[validation]") {
    const caliper::ValidationReport report =
        validateOne(validationRow({{"kind", "finetune_memory"},
                                   {"model", "generic 8B-parameter LLM (Unsloth table by size)"},
                                   {"params_b", 8},
                                   {"quant", "bf16"},
                                   {"method", "lora"},
                                   {"gpu", nullptr},
                                   {"value", 1.0},
                                   {"unit", "GB"},
                                   {"extra", "Unsloth 'absolute minimum' VRAM; use as a lower-bound sanity check."}}));
    REQUIRE(report.scores.size() == 1);
    CHECK(report.scores[0].lowerBound);
    CHECK_FALSE(report.scores[0].hasError);
    CHECK(report.scores[0].boundMet);  // 16 GB of bf16 weights alone exceed a 1 GB minimum
    REQUIRE(report.kinds.size() == 1);
    CHECK(report.kinds[0].boundChecks == 1);
    CHECK(report.kinds[0].count == 0);
}

TEST_CASE("quantiles interpolate between closest ranks", "[validation][stats]") {
    const std::vector<double> tens = {10, 1, 9, 2, 8, 3, 7, 4, 6, 5};
    CHECK(caliper::quantile(tens, 0.5) == Approx(5.5));  // between the 5th and 6th of 1..10
    CHECK(caliper::quantile(tens, 0.9) == Approx(9.1));  // rank 0.9 x 9 = 8.1: 9 + 0.1 x (10 - 9)
    CHECK(caliper::quantile({}, 0.5) == 0.0);
    CHECK(caliper::quantile({7}, 0.9) == 7.0);
}

TEST_CASE("statistics per kind count errors, fits and bounds", "[validation][stats]") {
    auto score = [](double errorPct, std::optional<bool> fit) {
        caliper::ValidationRowScore s;
        s.kind = "decode_tps";
        s.group = "decode_tps / llama.cpp / gguf-q4 / nvidia-ada";
        s.hasError = true;
        s.errorPct = errorPct;
        s.absErrorPct = std::fabs(errorPct);
        s.fitCorrect = fit;
        return s;
    };
    const std::vector<caliper::ValidationRowScore> scores = {score(-10, true), score(20, true), score(30, false)};
    const auto kinds = caliper::statsBy(scores, false);
    REQUIRE(kinds.size() == 1);
    CHECK(kinds[0].count == 3);
    CHECK(kinds[0].medianAbsErrorPct == Approx(20));
    CHECK(kinds[0].p90AbsErrorPct == Approx(28));  // rank 0.9 x 2 = 1.8: 20 + 0.8 x (30 - 20)
    CHECK(kinds[0].medianErrorPct == Approx(20));
    CHECK(kinds[0].fitChecks == 3);
    CHECK(kinds[0].fitCorrect == 2);
    CHECK(caliper::familyStats(scores, "decode").count == 3);
    CHECK(caliper::familyStats(scores, "memory").count == 0);
}

TEST_CASE("every public validation row is scored or listed with a reason", "[validation]") {
    const std::string text = caliper::test::readText(std::string(CALIPER_VALIDATION_DIR) + "/public.jsonl");
    const caliper::ValidationReport report = caliper::validateRows(projectCatalog(), text);
    const auto scored = std::count_if(report.scores.begin(), report.scores.end(),
                                      [](const caliper::ValidationRowScore& s) { return s.hasPrediction; });
    const auto lines = std::count_if(text.begin(), text.end(), [](char c) { return c == '\n'; });
    CHECK(report.rowsRead == lines);  // one row per line, no blank lines in the file
    CHECK(scored + static_cast<long>(report.unscored.size()) == report.rowsRead);
    for (const caliper::UnscoredRow& u : report.unscored) {
        INFO(u.id);
        CHECK_FALSE(u.reason.empty());
    }
}

// The project's acceptance criteria on the public rows; run alone with
// `caliper_tests [accuracy]`.
TEST_CASE("the engine meets the accuracy targets on the public validation rows", "[validation][accuracy]") {
    const std::string text = caliper::test::readText(std::string(CALIPER_VALIDATION_DIR) + "/public.jsonl");
    const caliper::ValidationReport report = caliper::validateRows(projectCatalog(), text);
    const auto memory = caliper::familyStats(report.scores, "memory");
    const auto decode = caliper::familyStats(report.scores, "decode");
    const auto prefill = caliper::familyStats(report.scores, "prefill");
    const auto training = caliper::familyStats(report.scores, "training");
    const auto fits = caliper::familyStats(report.scores, "fits");
    INFO("memory median " << memory.medianAbsErrorPct << "% p90 " << memory.p90AbsErrorPct << "% over " << memory.count
                          << " rows");
    INFO("decode median " << decode.medianAbsErrorPct << "%, prefill median " << prefill.medianAbsErrorPct
                          << "%, training median " << training.medianAbsErrorPct << "%");
    INFO("fits " << fits.fitCorrect << " of " << fits.fitChecks);
    REQUIRE(memory.count > 0);
    REQUIRE(fits.fitChecks > 0);
    CHECK(memory.medianAbsErrorPct <= 8.0);
    CHECK(double(fits.fitCorrect) / fits.fitChecks >= 0.95);
    CHECK(decode.medianAbsErrorPct <= 15.0);
    CHECK(prefill.medianAbsErrorPct <= 25.0);
    CHECK(training.medianAbsErrorPct <= 15.0);
}

// The memory target: 20% at the 90th percentile of the public memory rows
// (the project's accuracy goal for per-GPU memory).
TEST_CASE("memory estimates are within 20% at the 90th percentile of the public rows",
          "[validation][accuracy]") {
    const std::string text = caliper::test::readText(std::string(CALIPER_VALIDATION_DIR) + "/public.jsonl");
    const caliper::ValidationReport report = caliper::validateRows(projectCatalog(), text);
    const auto memory = caliper::familyStats(report.scores, "memory");
    INFO("memory p90 " << memory.p90AbsErrorPct << "% over " << memory.count << " rows");
    REQUIRE(memory.count > 0);
    CHECK(memory.p90AbsErrorPct <= 20.0);
}
