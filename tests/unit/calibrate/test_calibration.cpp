// The calibration: data/calibration.json as built in, the physical bounds
// of every calibrated constant, the bands on results, and the accuracy
// goals measured the honest way (leave-one-source-out), reported each run.
#include <catch2/catch.hpp>

#include <cmath>
#include <nlohmann/json.hpp>

#include "calibrate/calibration_file.hpp"
#include "calibrate/cross_validation.hpp"
#include "calibrate/fitter.hpp"
#include "calibration/calibration.hpp"
#include "calibration/ranges.hpp"
#include "catalog_fixture.hpp"
#include "speed/efficiency.hpp"
#include "json/calibration_json.hpp"

namespace caliper {
std::string_view embeddedCalibrationJson();
}

using caliper::test::projectCatalog;
using caliper::test::readText;

namespace {

nlohmann::json estimate(const std::string& request) {
    const caliper::ApiResponse r = caliper::estimateJson(projectCatalog(), request);
    return nlohmann::json::parse(r.json);
}

}  // namespace

TEST_CASE("the built-in calibration is data/calibration.json and parses", "[calibration]") {
    const std::string file = readText(std::string(CALIPER_DATA_DIR) + "/calibration.json");
    REQUIRE(std::string(caliper::embeddedCalibrationJson()) == file);
    const caliper::CalibrationTable table = caliper::io::parseCalibrationTable(file);
    bool decode = false, prefill = false;
    for (const caliper::CalibrationBand& b : table.bands) {
        CHECK(b.lowLog <= b.highLog);
        CHECK(b.rows >= caliper::calibrate::kMinBandRows);
        decode = decode || b.kind == "decode";
        prefill = prefill || b.kind == "prefill";
    }
    CHECK(decode);
    CHECK(prefill);
}

TEST_CASE("calibrated constants stay inside their physical bounds", "[calibration]") {
    using caliper::Engine;
    using caliper::WeightFormat;
    for (const caliper::GpuSpec& gpu : projectCatalog().gpus) {
        const caliper::GpuFamily family = caliper::gpuFamily(gpu);
        // Vector-only GPUs' llama.cpp prefill prior is above 1 of the fp32
        // peak (DP4A int8 dot products are not in that figure).
        const bool vectorOnly = family == caliper::GpuFamily::NvidiaLegacy || family == caliper::GpuFamily::AmdNoMatrix;
        for (Engine e : {Engine::Transformers, Engine::Vllm, Engine::Sglang, Engine::TensorrtLlm, Engine::LlamaCpp}) {
            for (WeightFormat f : {WeightFormat::Bf16, WeightFormat::Fp8, WeightFormat::Int8, WeightFormat::Nf4,
                                   WeightFormat::GptqInt4, WeightFormat::Q4_0, WeightFormat::Q4_K_M}) {
                const double bw = caliper::decodeBandwidthFraction(e, f, gpu);
                CHECK((bw > 0 && bw <= 1.0));
                const double layer = caliper::decodeLayerOverheadS(e, f, gpu);
                CHECK((layer >= 0 && layer <= 2e-3));
                const double prefill = caliper::prefillComputeFraction(e, f, gpu);
                CHECK(prefill > 0);
                if (!vectorOnly) CHECK(prefill <= 1.0);
            }
        }
    }
}

TEST_CASE("fitted training constants stay inside their physical bounds and name their rows", "[calibration]") {
    using caliper::TrainingConstant;
    const nlohmann::json doc = nlohmann::json::parse(readText(std::string(CALIPER_DATA_DIR) + "/calibration.json"));
    REQUIRE(doc.contains("training_constants"));
    const nlohmann::json rowsDoc =
        nlohmann::json::parse(readText(std::string(CALIPER_DATA_DIR) + "/calibration-rows.json"));
    int found = 0;
    for (const nlohmann::json& c : doc["training_constants"]) {
        const std::string name = c["constant"].get<std::string>();
        const TrainingConstant constant =
            name == "fp8_gemm_speedup" ? TrainingConstant::Fp8GemmSpeedup : TrainingConstant::ExpertGemmFixedS;
        const caliper::TrainingBounds b = caliper::trainingConstantBounds(constant);
        const double value = c["value"].get<double>();
        INFO(name << " = " << value);
        CHECK(value >= b.low);
        CHECK(value <= b.high);
        // The engine reads the file's value (the prior passed is ignored).
        CHECK(caliper::calibratedTraining(constant, -1.0) == value);
        CHECK(c["rows"].get<int>() >= caliper::calibrate::kRowsPerParameter);
        CHECK(!c["sources"].empty());
        bool listed = false;
        for (const nlohmann::json& r : rowsDoc["training_constants"]) {
            listed = listed || (r["constant"] == name && int(r["row_ids"].size()) == c["rows"].get<int>());
        }
        CHECK(listed);
        if (constant == TrainingConstant::Fp8GemmSpeedup) {
            // Physical: FP8's dense peak is twice the 16-bit one (H100 SXM
            // 1979 / 989 TFLOP/s, NVIDIA datasheet), so 1 to 2. Expected: the
            // hand sweep on the dense FP8 rows (training_efficiency.cpp)
            // found 1.9 best, 1.8 and 2.0 worse (median 6.6% and 9.1% against
            // 5.5%), so a fit on the same rows lands within 1.8-2.0.
            CHECK(b.low == 1.0);
            CHECK(b.high == 2.0);
            CHECK(value >= 1.8);
            CHECK(value <= 2.0);
            ++found;
        } else {
            // Physical: 0 to 1 ms per local expert per layer. Expected: the
            // sweeps on the MoE rows (moe_step.cpp) found 250-450 us within
            // 0.01 of the best mean |ln error| and 150 us or 30 us (the
            // six-launch prior) clearly worse, so the fit lands in 150-450 us.
            CHECK(b.low == 0.0);
            CHECK(b.high == 1e-3);
            CHECK(value >= 150e-6);
            CHECK(value <= 450e-6);
            ++found;
        }
    }
    CHECK(found == caliper::kTrainingConstants);
    // A table without a fitted value keeps the prior, clamped to the bounds.
    const caliper::CalibrationTable priors;
    const caliper::ScopedCalibration usePriors(&priors);
    CHECK(caliper::calibratedTraining(TrainingConstant::Fp8GemmSpeedup, 2.0) == 2.0);
    CHECK(caliper::calibratedTraining(TrainingConstant::Fp8GemmSpeedup, 3.0) == 2.0);
    CHECK(caliper::calibratedTraining(TrainingConstant::ExpertGemmFixedS, -1.0) == 0.0);
}

TEST_CASE("the training allocator's reserves follow their calibrated scale", "[calibration]") {
    // Qwen-7B bf16 LoRA at 2,048 tokens on an A100 80GB: the fragmentation
    // reserve is a share of allocated memory and the varying-length reserve
    // copies of the loss working set (memory/overhead.cpp), so doubling each
    // constant's scale doubles its term.
    const std::string request =
        R"({"model":"qwen-7b","gpu":"a100-sxm4-80gb","task":"finetune","method":"lora","engine":"transformers",)"
        R"("weights":"bf16","seq_len":2048,"gradient_checkpointing":true})";
    auto term = [](const nlohmann::json& r, const char* name) {
        for (const auto& t : r["explain"])
            if (t["term"] == name) return t["value"].get<double>();
        return 0.0;
    };
    caliper::CalibrationTable priors;
    double allocator = 0, varying = 0;
    {
        const caliper::ScopedCalibration use(&priors);
        const nlohmann::json r = estimate(request);
        allocator = term(r, "allocator_reserve_gib");
        varying = term(r, "varying_length_reserve_gib");
    }
    REQUIRE(allocator > 0);
    REQUIRE(varying > 0);
    caliper::CalibrationTable doubled;
    for (auto c : {caliper::CalibratedConstant::TrainingAllocatorReserve, caliper::CalibratedConstant::VaryingLengthLossCopies})
        doubled.scale[std::size_t(caliper::CalibrationTable::index(c, caliper::EngineClass::Eager,
                                                                   caliper::FormatClass::Bits16,
                                                                   caliper::GpuGroup::NvidiaHbmAmpere))] = 2;
    const caliper::ScopedCalibration use(&doubled);
    const nlohmann::json r = estimate(request);
    CHECK(term(r, "allocator_reserve_gib") == Approx(2 * allocator).epsilon(0.02));
    CHECK(term(r, "varying_length_reserve_gib") == Approx(2 * varying));
}

namespace {

// A memory row whose measured figure is its prior figure plus one more term
// of `constant` (2 GiB at scale 1): a fit that finds it moves the scale to 2.
caliper::calibrate::CalibrationRow reserveRow(int i, caliper::calibrate::Figure figure, caliper::CalibratedConstant constant,
                                              caliper::GpuGroup gpu) {
    caliper::calibrate::CalibrationRow r;
    r.id = "row-" + std::to_string(i);
    r.figure = figure;
    r.hasError = true;
    r.scenario.batch = 1 + i;
    r.engine = caliper::EngineClass::Eager;
    r.format = caliper::FormatClass::Bits16;
    r.gpu = gpu;
    r.fixedPrediction = 20.0 + i;
    r.memoryTermGib[std::size_t(constant)] = 2.0;
    r.measured = *r.fixedPrediction + 2.0;
    return r;
}

}  // namespace

TEST_CASE("memory reserves are fitted only on rows of two sources", "[calibration]") {
    // Rows whose measured figure is the prior figure plus one more allocator
    // term: the fit moves the allocator scale toward 2 once two sources agree,
    // and keeps the prior while one source stands alone.
    using caliper::calibrate::CalibrationRow;
    std::vector<CalibrationRow> rows;
    for (int i = 0; i < 8; ++i) {
        rows.push_back(reserveRow(i, caliper::calibrate::Figure::Memory, caliper::CalibratedConstant::TrainingAllocatorReserve,
                                  caliper::GpuGroup::NvidiaHbmAmpere));
        rows.back().kind = "finetune_memory";
        rows.back().source = i < 4 ? "source-a" : "source-b";
    }
    auto allocatorScale = [](const caliper::calibrate::FitResult& f) {
        return f.table.scale[std::size_t(caliper::CalibrationTable::index(
            caliper::CalibratedConstant::TrainingAllocatorReserve, caliper::EngineClass::Eager,
            caliper::FormatClass::Bits16, caliper::GpuGroup::NvidiaHbmAmpere))];
    };
    CHECK(allocatorScale(caliper::calibrate::fitConstants(rows, {})) == Approx(2).epsilon(0.01));
    for (CalibrationRow& r : rows) r.source = "source-a";
    CHECK(allocatorScale(caliper::calibrate::fitConstants(rows, {})) == 1.0);
}

TEST_CASE("generate()'s reserve is fitted by engine from one source, below it from two", "[calibration]") {
    // Inference memory rows whose measured figure is the prior figure plus
    // one more generate() reserve term: one source's rows move its scale
    // toward 2 at the engine level (the same allocator under one loop;
    // fitter.cpp), so a leave-one-source-out fold fits it on the other
    // session; the training reserves keep their priors from the same rows.
    using caliper::calibrate::CalibrationRow;
    std::vector<CalibrationRow> rows;
    for (int i = 0; i < 8; ++i) {
        rows.push_back(reserveRow(i, caliper::calibrate::Figure::GenerateMemory,
                                  caliper::CalibratedConstant::GenerateTransientReserve, caliper::GpuGroup::NvidiaHbmHopper));
        rows.back().kind = "inference_memory";
        rows.back().source = "source-a";
        rows.back().scenario.task = caliper::Task::Inference;
    }
    auto scaleOf = [](const caliper::calibrate::FitResult& f, caliper::CalibratedConstant c) {
        return f.table.scale[std::size_t(caliper::CalibrationTable::index(
            c, caliper::EngineClass::Eager, caliper::FormatClass::Bits16, caliper::GpuGroup::NvidiaHbmHopper))];
    };
    const caliper::calibrate::FitResult fit = caliper::calibrate::fitConstants(rows, {});
    CHECK(scaleOf(fit, caliper::CalibratedConstant::GenerateTransientReserve) == Approx(2).epsilon(0.01));
    CHECK(scaleOf(fit, caliper::CalibratedConstant::TrainingAllocatorReserve) == 1.0);
    // Fitted once, at the engine level: the engine x format group holds the
    // same rows from one source.
    int fitted = 0;
    for (const auto& c : fit.constants) {
        if (c.constant != caliper::CalibratedConstant::GenerateTransientReserve) continue;
        ++fitted;
        CHECK(c.level == caliper::calibrate::Level::Engine);
        CHECK(c.rowIds.size() == rows.size());
    }
    CHECK(fitted == 1);
}

TEST_CASE("results carry bands on their figures and a three-way fit", "[calibration]") {
    const nlohmann::json r =
        estimate(R"({"model":"llama-3.1-8b","gpu":"h100-sxm5-80gb","engine":"llama.cpp","weights":"Q4_K_M",)"
                 R"("batch":1,"prompt_tokens":512,"output_tokens":128})");
    REQUIRE(r["ok"] == true);
    CHECK(r["fit"] == "fits");
    for (const char* key : {"decode_tokens_per_s", "prefill_tokens_per_s", "time_to_first_token_s"}) {
        INFO(key);
        REQUIRE(r["ranges"].contains(key));
        const double low = r["ranges"][key][0], high = r["ranges"][key][1];
        CHECK((low > 0 && low < high));
    }
    // The first token's band is the prefill band turned over: low TTFT goes
    // with high prefill speed.
    const double prefill = r["prefill_tokens_per_s"], ttft = r["time_to_first_token_s"];
    const double prefillHigh = r["ranges"]["prefill_tokens_per_s"][1], ttftLow = r["ranges"]["time_to_first_token_s"][0];
    CHECK(std::fabs(prefillHigh / prefill - ttft / ttftLow) < 1e-3 * prefillHigh / prefill);

    const nlohmann::json no = estimate(R"({"model":"llama-3.1-70b","gpu":"rtx-4090","gpu_count":1})");
    REQUIRE(no["ok"] == true);
    CHECK(no["fits"] == false);
    CHECK(no["fit"] == "no");
}

TEST_CASE("fit is tight when the estimate fits and the top of its memory band does not", "[calibration]") {
    caliper::Scenario s;
    s.task = caliper::Task::Finetune;
    s.engine = caliper::Engine::Transformers;
    s.gpu = projectCatalog().gpus.front();
    double lowLog = 0, highLog = 0;
    // The band of the scenario's mechanism group (fine-tuning on sequences of
    // varying lengths), as applyCalibrationBands looks it up.
    REQUIRE(caliper::calibrationBand("finetune_memory", s.engine, s.gpu, lowLog, highLog,
                                     caliper::bandGroup("finetune_memory", s)));
    caliper::EstimateResult r;
    r.fits = true;
    r.usableMemoryGiB = 20;
    // The band's top is total / e^p10: below the usable memory by a margin
    // the estimate "fits"; just under it, the top passes it.
    r.memory.totalGiB = 20 * std::exp(lowLog) * 0.98;
    caliper::applyCalibrationBands(s, r);
    CHECK(std::string(r.fitVerdict) == "fits");
    r.memory.totalGiB = 19.9;
    caliper::applyCalibrationBands(s, r);
    if (lowLog < 0) CHECK(std::string(r.fitVerdict) == "tight");
    r.fits = false;
    caliper::applyCalibrationBands(s, r);
    CHECK(std::string(r.fitVerdict) == "no");
}

// The issue's goals on the public rows, leave-one-source-out. A goal the
// engine does not meet yet is a reported, non-failing check (CHECK_NOFAIL,
// labelled "goal not met yet"); the figures print on every run.
TEST_CASE("accuracy goals, leave-one-source-out on the public rows", "[calibration][goals]") {
    const std::string dir = CALIPER_VALIDATION_DIR;
    const caliper::CalibrationTable priors;
    const caliper::ScopedCalibration usePriors(&priors);
    const auto set = caliper::calibrate::readCalibrationRows(
        projectCatalog(), {{"public.jsonl", readText(dir + "/public.jsonl")},
                           {"public-v2.jsonl", readText(dir + "/public-v2.jsonl")},
                           {"megatron-moe-zoo.jsonl", readText(dir + "/megatron-moe-zoo.jsonl")},
                           {"disaggregated.jsonl", readText(dir + "/disaggregated.jsonl")}});
    const auto report = caliper::calibrate::crossValidate(set);
    WARN(caliper::calibrate::crossValidationTable(set, report));
    // Each row's left-out band (the per-source coverage and --residuals-out
    // read them) is the one the per-kind coverage counted: the same rows, the
    // same verdicts, and a band never upside down.
    int banded = 0, covered = 0, kindBanded = 0, kindCovered = 0;
    for (std::size_t i = 0; i < set.rows.size(); ++i) {
        if (std::isnan(report.bandLowLog[i])) continue;
        ++banded;
        CHECK(report.bandLowLog[i] <= report.bandHighLog[i]);
        covered += report.crossLog[i] >= report.bandLowLog[i] && report.crossLog[i] <= report.bandHighLog[i];
    }
    for (const auto& k : report.kinds) {
        kindBanded += k.bandRows;
        kindCovered += k.bandCovered;
    }
    CHECK(banded == kindBanded);
    CHECK(covered == kindCovered);
    // The per-source tallies add up to the kind's, their mean share is a
    // share, and the row-out check (bands from every other row) scores the
    // same rows wherever a band exists for them.
    for (const auto& k : report.kinds) {
        int sourceRows = 0, sourceCovered = 0;
        for (const auto& entry : k.bandBySource) {
            CHECK(entry.second.first <= entry.second.second);
            sourceCovered += entry.second.first;
            sourceRows += entry.second.second;
        }
        CHECK(sourceRows == k.bandRows);
        CHECK(sourceCovered == k.bandCovered);
        CHECK(k.bandSourceMeanPct >= 0);
        CHECK(k.bandSourceMeanPct <= 100);
        CHECK(k.rowBandRows <= k.bandRows);
        CHECK(k.rowBandCovered <= k.rowBandRows);
    }
    struct Goal {
        const char* kind;
        double maxMedianPct;
    };
    // Goals from the accuracy issue: decode <= 8 %, prefill <= 12 %,
    // inference memory <= 5 %, fine-tune memory <= 8 % (medians).
    for (const Goal g : {Goal{"decode_tps", 8}, Goal{"prefill_tps", 12}, Goal{"inference_memory", 5},
                         Goal{"finetune_memory", 8}}) {
        for (const auto& k : report.kinds) {
            if (k.kind != g.kind) continue;
            INFO("goal not met yet: " << k.kind << " leave-one-source-out median " << k.crossMedianPct << "% (goal <= "
                                       << g.maxMedianPct << "%)");
            CHECK_NOFAIL(k.crossMedianPct <= g.maxMedianPct);
            if (k.bandRows > 0) {
                const double coverage = 100.0 * k.bandCovered / k.bandRows;
                INFO("goal not met yet: " << k.kind << " 80% band holds " << coverage << "% of left-out rows (goal 75-85%)");
                CHECK_NOFAIL((coverage >= 75 && coverage <= 85));
            }
        }
    }
    // Training speed has no median goal; its bands hold the same 75-85% goal.
    for (const auto& k : report.kinds) {
        if ((k.kind != "train_tflops_per_gpu" && k.kind != "train_tokens_per_s_per_gpu") || k.bandRows == 0) continue;
        const double coverage = 100.0 * k.bandCovered / k.bandRows;
        INFO("goal not met yet: " << k.kind << " 80% band holds " << coverage << "% of left-out rows (goal 75-85%)");
        CHECK_NOFAIL((coverage >= 75 && coverage <= 85));
    }
    const auto [fitCorrect, fitChecks] = caliper::calibrate::fitVerdicts(report);
    REQUIRE(fitChecks > 0);
    INFO("goal not met yet: fit/OOM right on " << 100.0 * fitCorrect / fitChecks << "% of rows (goal >= 97%)");
    CHECK_NOFAIL(100.0 * fitCorrect / fitChecks >= 97.0);
}

TEST_CASE("bands take the quantile a new row falls below, not the sample's", "[calibration]") {
    using caliper::calibrate::predictionQuantileOf;
    using caliper::calibrate::quantileOf;
    // Nine residuals 1..9: a tenth exchangeable one falls below the smallest
    // with probability 1/10 and above the largest with 1/10, so the 10-90%
    // band is [1, 9]; the sample quantile (type 7) narrows it to [1.8, 8.2].
    std::vector<double> nine;
    for (int i = 1; i <= 9; ++i) nine.push_back(i);
    CHECK(predictionQuantileOf(nine, 0.10) == Approx(1.0));
    CHECK(predictionQuantileOf(nine, 0.90) == Approx(9.0));
    CHECK(quantileOf(nine, 0.10) == Approx(1.8));
    // Nineteen residuals 0..18 (order statistic i holds i - 1): the 10%
    // point sits at position 0.1 x 20 = 2, the 90% point at 18.
    std::vector<double> nineteen;
    for (int i = 18; i >= 0; --i) nineteen.push_back(i);
    CHECK(predictionQuantileOf(nineteen, 0.10) == Approx(1.0));
    CHECK(predictionQuantileOf(nineteen, 0.90) == Approx(17.0));
    // Between order statistics it interpolates: n = 4 puts 25% at position 1.25.
    CHECK(predictionQuantileOf({0, 4, 8, 12}, 0.25) == Approx(1.0));
    CHECK(predictionQuantileOf({}, 0.5) == 0.0);
}
