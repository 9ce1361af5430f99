// Bands by mechanism group, and the widening of a band that falls back,
// measured by leaving each band group out (cross_validation.hpp).
#include <catch2/catch.hpp>

#include <cmath>

#include "calibrate/cross_validation.hpp"
#include "calibration/calibration.hpp"

namespace {

namespace cal = caliper::calibrate;

// A known training-speed row without a stated GPU variant (engine level is
// its own band) in mechanism group `group`, with log error `log`.
cal::CalibrationRow row(const std::string& id, const std::string& source, const std::string& group) {
    cal::CalibrationRow r;
    r.id = id;
    r.kind = "train_tflops_per_gpu";
    r.source = source;
    r.engine = caliper::EngineClass::Eager;
    r.gpuStated = false;
    r.bandGroup = group;
    return r;
}

}  // namespace

TEST_CASE("band groups follow the mechanism the estimate cannot see", "[calibration][bands]") {
    caliper::Scenario s;
    s.task = caliper::Task::Pretrain;
    s.seqLen = 4096;
    CHECK(caliper::bandGroup("training_speed", s) == "dense");
    // 32k tokens: attention ~40% of a dense 7B model's FLOPs (calibration.hpp).
    s.seqLen = caliper::kLongContextTokens;
    CHECK(caliper::bandGroup("training_speed", s) == "dense_long");
    s.seqLen = 4096;
    s.model.moe.experts = 128;
    CHECK(caliper::bandGroup("training_speed", s) == "moe");
    // Pre-training packs; fine-tuning keeps blocks of other lengths unless packed.
    CHECK(caliper::bandGroup("finetune_memory", s) == "packed");
    s.task = caliper::Task::Finetune;
    CHECK(caliper::bandGroup("finetune_memory", s) == "varying_lengths");
    s.packing = true;
    CHECK(caliper::bandGroup("finetune_memory", s) == "packed");
    CHECK(caliper::bandGroup("decode", s).empty());
}

TEST_CASE("a group's band ranks above the engine's and the fallback counts the group level", "[calibration][bands]") {
    std::vector<caliper::CalibrationBand> bands = {{"training_speed", 3, -1, -0.1, 0.1, 20, ""},
                                                   {"training_speed", -1, -1, 0.4, 0.8, 10, "moe"}};
    double lo = 0, hi = 0;
    int fell = -1;
    REQUIRE(caliper::lookupBand(bands, "training_speed", 3, -1, lo, hi, 2.0, "moe", &fell));
    CHECK(fell == 0);  // its own group's band, as stored
    CHECK(lo == Approx(0.4));
    CHECK(hi == Approx(0.8));
    // A dense row has no group band: the engine's (family unknown: level 1
    // below the kind without a group, one more for the group it lacks).
    REQUIRE(caliper::lookupBand(bands, "training_speed", 3, -1, lo, hi, 2.0, "dense", &fell));
    CHECK(fell == 1);
    CHECK(lo == Approx(-0.2));  // centre 0, half-width 0.1 x 2
    CHECK(hi == Approx(0.2));
}

TEST_CASE("the measured widening lets fallback bands hold 80% of groups they never saw", "[calibration][bands]") {
    // Two groups of ten rows each from two sources: "dense" errs within
    // +-0.1 about 0, "moe" within +-0.1 about +0.6. Leaving either group
    // out, its rows fall back to the engine band made of the other's rows
    // alone, whose half-width (~0.1) is far narrower than the ~0.6 distance.
    std::vector<cal::CalibrationRow> rows;
    std::vector<double> logs;
    for (int i = 0; i < 10; ++i) {
        const double spread = -0.1 + 0.2 * i / 9.0;
        rows.push_back(row("d" + std::to_string(i), i % 2 ? "a" : "b", "dense"));
        logs.push_back(spread);
        rows.push_back(row("m" + std::to_string(i), i % 2 ? "a" : "b", "moe"));
        logs.push_back(0.6 + spread);
    }
    const std::vector<char> all(rows.size(), 1);
    const std::vector<cal::BandWidening> w = cal::groupOutWidening(rows, logs, all);
    REQUIRE(w.size() == 1);
    CHECK(w[0].kind == "training_speed");
    CHECK(w[0].rows == 20);
    // Distances of 0.5-0.7 over a half-width under 0.1: at least 5x.
    CHECK(w[0].factor > 5.0);
    // The defining property: each group, left out, inside the widened band.
    int inside = 0;
    for (const char* group : {"dense", "moe"}) {
        std::vector<char> others(rows.size(), 1);
        for (std::size_t i = 0; i < rows.size(); ++i) others[i] = rows[i].bandGroup != group;
        const std::vector<caliper::CalibrationBand> bands = cal::makeBands(rows, logs, others);
        for (std::size_t i = 0; i < rows.size(); ++i) {
            if (rows[i].bandGroup != group) continue;
            double lo = 0, hi = 0;
            REQUIRE(caliper::lookupBand(bands, "training_speed", int(caliper::EngineClass::Eager), -1, lo, hi, w[0].factor,
                                        group));
            inside += logs[i] >= lo && logs[i] <= hi;
        }
    }
    CHECK(inside >= 16);  // 80% of the 20 rows
    // Alike groups need no widening: the factor stays at its floor of 1.
    std::vector<double> alike = logs;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        if (rows[i].bandGroup == "moe") alike[i] -= 0.6;
    }
    const std::vector<cal::BandWidening> same = cal::groupOutWidening(rows, alike, all);
    REQUIRE(same.size() == 1);
    CHECK(same[0].factor == 1.0);
}

TEST_CASE("a group of one source keeps its own band, widened one fallback level", "[calibration][bands]") {
    // "moe": ten rows of source "a" alone, evenly spread over 0.5-0.7;
    // "dense": ten rows of sources "a" and "b" over -0.1-0.1.
    std::vector<cal::CalibrationRow> rows;
    std::vector<double> logs;
    for (int i = 0; i < 10; ++i) {
        const double spread = 0.2 * i / 9.0;
        rows.push_back(row("d" + std::to_string(i), i % 2 ? "a" : "b", "dense"));
        logs.push_back(-0.1 + spread);
        rows.push_back(row("m" + std::to_string(i), "a", "moe"));
        logs.push_back(0.5 + spread);
    }
    const std::vector<caliper::CalibrationBand> bands = cal::makeBands(rows, logs, std::vector<char>(rows.size(), 1));
    const caliper::CalibrationBand* moe = nullptr;
    const caliper::CalibrationBand* dense = nullptr;
    for (const caliper::CalibrationBand& b : bands) {
        if (b.group == "moe") moe = &b;
        if (b.group == "dense") dense = &b;
    }
    // Both groups keep a band of their own rows; each states its sources.
    REQUIRE(moe != nullptr);
    REQUIRE(dense != nullptr);
    CHECK(moe->sources == 1);
    CHECK(dense->sources == 2);
    // Prediction quantiles of ten rows 0.2/9 apart (type 6): p10 at order
    // 1.1, 0.5 + 0.1 x 0.2/9 = 0.50222; p90 at order 9.9, 0.5 + 8.9 x 0.2/9
    // = 0.69778.
    CHECK(moe->lowLog == Approx(0.502222).epsilon(1e-4));
    CHECK(moe->highLog == Approx(0.697778).epsilon(1e-4));
    double lo = 0, hi = 0;
    int fell = -1;
    // One source: widened one level by the factor (2 here) about its centre
    // 0.6: half-width 0.097778 x 2 = 0.195556, not the engine's band.
    REQUIRE(caliper::lookupBand(bands, "training_speed", int(caliper::EngineClass::Eager), -1, lo, hi, 2.0, "moe", &fell));
    CHECK(fell == 1);
    CHECK(lo == Approx(0.6 - 0.195556).epsilon(1e-4));
    CHECK(hi == Approx(0.6 + 0.195556).epsilon(1e-4));
    // Two sources: the group's band as it is.
    REQUIRE(caliper::lookupBand(bands, "training_speed", int(caliper::EngineClass::Eager), -1, lo, hi, 2.0, "dense", &fell));
    CHECK(fell == 0);
    CHECK(lo == Approx(dense->lowLog));
    CHECK(hi == Approx(dense->highLog));
}
