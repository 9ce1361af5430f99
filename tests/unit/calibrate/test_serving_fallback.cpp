// The serving constants' fallback: group (engine x GPU generation x format)
// -> the engine's family level -> the prior, on a few real vLLM rows of
// validation/public-v2.jsonl (aiconfigurator's silicon samples).
#include <catch2/catch.hpp>

#include <cmath>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "calibrate/cross_validation.hpp"
#include "calibrate/fitter.hpp"
#include "calibration/calibration.hpp"
#include "catalog_fixture.hpp"

using caliper::test::projectCatalog;
using caliper::test::readText;

namespace {

namespace cal = caliper::calibrate;

// vLLM's serving rows on one aiconfigurator system, the first `perModel`
// of each of two models: enough rows for a group (3 per constant) and two
// models, few enough to fit in well under a second.
std::string vllmRows(const std::string& system, const std::vector<std::string>& models, int perModel) {
    std::istringstream lines(readText(std::string(CALIPER_VALIDATION_DIR) + "/public-v2.jsonl"));
    std::map<std::string, int> taken;
    std::string line, out;
    while (std::getline(lines, line)) {
        const nlohmann::json row = nlohmann::json::parse(line, nullptr, false);
        if (!row.is_object() || row.value("engine", "") != "vllm" || row.value("gpu", "") != system) continue;
        const std::string kind = row.value("kind", "");
        if (kind != "serving_ttft_ms" && kind != "serving_tpot_ms") continue;
        const std::string model = row.value("model", "");
        if (std::find(models.begin(), models.end(), model) == models.end() || taken[model] >= perModel) continue;
        ++taken[model];
        out += line + "\n";
    }
    return out;
}

const std::vector<std::string> kModels = {"meta-llama/Llama-3.1-70B", "openai/gpt-oss-120b"};

double scaleOf(const caliper::CalibrationTable& t, caliper::ServingConstant c, caliper::GpuGeneration g,
               caliper::FormatClass f) {
    return t.servingScale[std::size_t(
        caliper::CalibrationTable::servingIndex(c, int(caliper::ServingEngine::Vllm), g, f))];
}

}  // namespace

TEST_CASE("a serving group without rows takes its engine's family level", "[calibration][serving]") {
    // Rows of one GPU system (H200) only: the family level rests on them; no
    // group below it (two GPU systems each) is fitted.
    const cal::RowSet set = cal::readCalibrationRows(projectCatalog(), {{"h200", vllmRows("h200_sxm", kModels, 16)}});
    REQUIRE(set.rows.size() >= 24);
    const cal::FitResult fit = cal::fitServingConstants(set.rows, [&] {
        std::vector<int> all;
        for (std::size_t i = 0; i < set.rows.size(); ++i) all.push_back(int(i));
        return all;
    }(), caliper::CalibrationTable());
    REQUIRE_FALSE(fit.serving.empty());
    for (const cal::FittedServingConstant& f : fit.serving) CHECK(f.level == cal::ServingLevel::Engine);
    // One system fits only the constants that do not depend on its GPU
    // (fitter.hpp); the request overhead is a host time.
    const auto request = std::find_if(fit.serving.begin(), fit.serving.end(), [](const cal::FittedServingConstant& f) {
        return f.constant == caliper::ServingConstant::RequestOverheadS;
    });
    REQUIRE(request != fit.serving.end());
    // Moved from the prior: vLLM's measured request overhead on these rows
    // sits near 33-39 ms against the 50 ms prior (data/calibration.json).
    CHECK(request->scale < 1.0);
    // Every GPU without rows, of any generation or format, takes the family's
    // value: never the prior, never a specific other group's.
    for (int g = 0; g < caliper::kGpuGenerations; ++g)
        for (int f = 0; f < caliper::kFormatClasses; ++f)
            CHECK(scaleOf(fit.table, caliper::ServingConstant::RequestOverheadS, caliper::GpuGeneration(g),
                          caliper::FormatClass(f)) == request->scale);
}

TEST_CASE("a left-out serving system's rows never enter its family fit", "[calibration][serving]") {
    const std::string h100 = vllmRows("h100_sxm", kModels, 12), h200 = vllmRows("h200_sxm", kModels, 16);
    const cal::RowSet both = cal::readCalibrationRows(projectCatalog(), {{"h100", h100}, {"h200", h200}});
    const cal::RowSet h200Only = cal::readCalibrationRows(projectCatalog(), {{"h200", h200}});
    std::string leftOut;
    for (const cal::CalibrationRow& r : both.rows) {
        if (r.scenario.gpu.id.find("h100") != std::string::npos) leftOut = r.system;
    }
    REQUIRE_FALSE(leftOut.empty());
    const std::vector<int> use = cal::rowsOutside(both.rows, leftOut);
    std::set<std::string> leftIds;
    for (const cal::CalibrationRow& r : both.rows) {
        if (r.system == leftOut) leftIds.insert(r.id);
    }
    REQUIRE_FALSE(leftIds.empty());
    for (int i : use) CHECK(leftIds.count(both.rows[std::size_t(i)].id) == 0);

    const cal::FitResult fold = cal::fitServingConstants(both.rows, use, caliper::CalibrationTable());
    for (const cal::FittedServingConstant& f : fold.serving)
        for (const std::string& id : f.rowIds) CHECK(leftIds.count(id) == 0);
    // The fold is the fit on the other system's rows alone, scale for scale.
    std::vector<int> all;
    for (std::size_t i = 0; i < h200Only.rows.size(); ++i) all.push_back(int(i));
    const cal::FitResult alone = cal::fitServingConstants(h200Only.rows, all, caliper::CalibrationTable());
    CHECK(fold.table.servingScale == alone.table.servingScale);
}

TEST_CASE("a band that falls back widens by its kind's measured factor", "[calibration][serving]") {
    // One engine-wide band of width 0.4: a GPU family without its own band
    // falls back one level and widens by the factor about its centre.
    const std::vector<caliper::CalibrationBand> bands = {{"serving_ttft", 1, -1, -0.1, 0.3, 20, ""}};
    double lo = 0, hi = 0;
    REQUIRE(caliper::lookupBand(bands, "serving_ttft", 1, 3, lo, hi, 1.5));
    CHECK(lo == Approx(0.1 - 0.3));  // centre 0.1, half-width 0.2 x 1.5
    CHECK(hi == Approx(0.1 + 0.3));
    caliper::CalibrationTable table;
    table.bandWidening = {{"serving_ttft", 1.5}};
    CHECK(caliper::bandWideningOf(table, "serving_ttft") == 1.5);
    CHECK(caliper::bandWideningOf(table, "decode") == caliper::kBandFallbackWidening);
}

TEST_CASE("the widening is the left-out residuals' spread over the in-sample one", "[calibration][serving]") {
    // Ten serving rows: in-sample residuals spread over [-1, 1] x 0.1, left
    // out over twice that, so the 10-90% widths are in the ratio 2.
    std::vector<cal::CalibrationRow> rows(10);
    std::vector<double> in, out;
    for (int i = 0; i < 10; ++i) {
        rows[std::size_t(i)].kind = "serving_ttft_ms";
        rows[std::size_t(i)].figure = cal::Figure::ServingTtft;
        in.push_back(0.1 * (i - 4.5) / 4.5);
        out.push_back(0.2 * (i - 4.5) / 4.5);
    }
    const std::vector<cal::BandWidening> w = cal::servingBandWidening(rows, in, out);
    REQUIRE(w.size() == 1);
    CHECK(w[0].kind == "serving_ttft");
    CHECK(w[0].factor == Approx(2.0));
    CHECK(w[0].rows == 10);
    // A fallback never narrows a band: tighter left-out residuals give 1.
    CHECK(cal::servingBandWidening(rows, out, in)[0].factor == 1.0);
}
