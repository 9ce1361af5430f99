// `caliper validate FILE.jsonl`: scores the engine on measured rows and prints
// a table per kind, a table per calibration group, the rows it could not
// score, and a closing line.
#include "validate/report.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>
#include <vector>

#include "validate/mapping.hpp"
#include "validate/validation.hpp"

namespace caliper::cli {

namespace {

std::string formatted(const char* format, double a, double b = 0, double c = 0) {
    char text[64];
    std::snprintf(text, sizeof text, format, a, b, c);
    return text;
}

std::string ratio(int good, int total) {
    if (total == 0) return "-";
    return std::to_string(good) + "/" + std::to_string(total) + formatted(" (%.0f%%)", 100.0 * good / total);
}

std::string errorColumns(const ValidationStats& s) {
    if (s.count == 0) return "       -        -        -";
    return formatted("%7.1f%% %7.1f%% %+7.1f%%", s.medianAbsErrorPct, s.p90AbsErrorPct, s.medianErrorPct);
}

std::string padded(const std::string& text, std::size_t width) {
    return text.size() >= width ? text + " " : text + std::string(width - text.size(), ' ');
}

void printKinds(const ValidationReport& report, std::ostream& out) {
    out << "per kind (error = (predicted - measured) / measured; bias = median signed error)\n";
    out << padded("kind", 18) << "  rows scored   median      p90     bias  fit accuracy       lower bounds met\n";
    for (const ValidationStats& k : report.kinds) {
        out << padded(k.name, 18) << formatted("%5.0f %6.0f ", k.rows, k.count) << errorColumns(k) << "  "
            << padded(ratio(k.fitCorrect, k.fitChecks), 18) << ratio(k.boundsMet, k.boundChecks) << '\n';
    }
}

void printGroups(const ValidationReport& report, std::ostream& out) {
    std::size_t width = 5;
    for (const ValidationStats& g : report.groups) width = std::max(width, g.name.size() + 1);
    out << "\nper group (kind / engine / weight format / GPU vendor-architecture), worst median first\n";
    out << padded("group", width) << " rows   median      p90     bias  fit accuracy\n";
    for (const ValidationStats& g : report.groups) {
        if (g.count == 0 && g.fitChecks == 0) continue;
        out << padded(g.name, width) << formatted("%5.0f ", g.count) << errorColumns(g) << "  "
            << ratio(g.fitCorrect, g.fitChecks) << '\n';
    }
}

// The rows with the largest errors of each kind: where a calibration starts.
void printWorstRows(const ValidationReport& report, std::ostream& out) {
    constexpr std::size_t kPerKind = 3;
    out << "\nlargest errors (" << kPerKind << " per kind): measured -> predicted\n";
    for (const ValidationStats& k : report.kinds) {
        std::vector<const ValidationRowScore*> rows;
        for (const ValidationRowScore& s : report.scores) {
            if (s.kind == k.name && s.hasError) rows.push_back(&s);
        }
        std::sort(rows.begin(), rows.end(), [](auto* a, auto* b) { return a->absErrorPct > b->absErrorPct; });
        for (std::size_t i = 0; i < std::min(kPerKind, rows.size()); ++i) {
            out << "  " << padded(k.name, 18) << padded(rows[i]->id, 48)
                << formatted("%10.4g -> %-10.4g %+7.1f%%", rows[i]->measured, rows[i]->predicted, rows[i]->errorPct)
                << '\n';
        }
    }
}

// Every row with a % error, worst first: kind, group, id, measured, predicted.
void printEveryRow(const ValidationReport& report, std::ostream& out) {
    std::vector<const ValidationRowScore*> rows;
    for (const ValidationRowScore& s : report.scores) {
        if (s.hasError) rows.push_back(&s);
    }
    std::stable_sort(rows.begin(), rows.end(), [](auto* a, auto* b) { return a->absErrorPct > b->absErrorPct; });
    out << "\nevery scored row, worst first: measured -> predicted\n";
    for (const ValidationRowScore* r : rows) {
        out << "  " << padded(r->kind, 18) << padded(r->id, 48)
            << formatted("%10.4g -> %-10.4g %+7.1f%%", r->measured, r->predicted, r->errorPct) << "  " << r->group
            << '\n';
    }
    out << "\nfit verdicts that disagree with the row (the row's verdict; the engine's figure in GiB per GPU)\n";
    for (const ValidationRowScore& s : report.scores) {
        if (!s.fitCorrect || *s.fitCorrect) continue;
        const bool ran = s.kind != "fits";  // a memory row that ran on its GPUs: it fitted
        out << "  " << padded(s.kind, 18) << padded(s.id, 48) << (ran ? "ran (fits)" : "fits/OOM as stated")
            << formatted("  predicted %.4g", s.predicted) << "  " << s.group << '\n';
    }
}

void printUnscored(const ValidationReport& report, std::ostream& out) {
    out << "\nrows not scored (" << report.unscored.size() << ")\n";
    for (const UnscoredRow& u : report.unscored) {
        out << "  " << u.id << (u.kind.empty() ? "" : " [" + u.kind + "]") << ": " << u.reason << '\n';
    }
}

std::string familyPart(const std::vector<ValidationRowScore>& scores, const char* family, const char* label) {
    const ValidationStats s = familyStats(scores, family);
    if (s.count == 0) return "";
    return std::string(", ") + label + formatted(" median %.1f%% (p90 %.1f%%)", s.medianAbsErrorPct, s.p90AbsErrorPct);
}

std::string closingLine(const ValidationReport& report) {
    const auto scored = std::count_if(report.scores.begin(), report.scores.end(),
                                      [](const ValidationRowScore& s) { return s.hasPrediction; });
    std::string line =
        "validate: " + std::to_string(scored) + " of " + std::to_string(report.rowsRead) + " rows scored";
    line += familyPart(report.scores, "memory", "memory");
    line += familyPart(report.scores, "weights", "weights");
    line += familyPart(report.scores, "decode", "decode");
    line += familyPart(report.scores, "prefill", "prefill");
    line += familyPart(report.scores, "training", "training");
    const ValidationStats fits = familyStats(report.scores, "fits");
    if (fits.fitChecks > 0) line += formatted(", fits %.0f%%", 100.0 * fits.fitCorrect / fits.fitChecks);
    return line;
}

bool readFile(const std::string& path, std::string& text, std::ostream& err) {
    std::error_code error;
    std::ifstream file(path, std::ios::binary);
    if (!file || std::filesystem::is_directory(path, error)) {
        err << "caliper: cannot read " << path << '\n';
        return false;
    }
    std::ostringstream content;
    content << file.rdbuf();
    if (file.bad()) {
        err << "caliper: cannot read " << path << '\n';
        return false;
    }
    text = content.str();
    return true;
}

}  // namespace

int runValidate(const Catalog& catalog, const std::vector<std::string>& paths, bool everyRow, std::ostream& out,
                std::ostream& err) {
    std::vector<std::string> texts(paths.size());
    std::vector<ValidationSource> sources;
    for (std::size_t i = 0; i < paths.size(); ++i) {
        if (!readFile(paths[i], texts[i], err)) return 2;
        // One file keeps the plain "line N" ids; several name the file.
        sources.push_back({paths.size() > 1 ? paths[i] : std::string(), texts[i]});
    }
    const ValidationReport report = validateRows(catalog, sources);
    printKinds(report, out);
    printGroups(report, out);
    printWorstRows(report, out);
    if (everyRow) printEveryRow(report, out);
    printUnscored(report, out);
    out << '\n' << closingLine(report) << '\n';
    return 0;
}

int printRowRequests(const Catalog& catalog, const std::vector<std::string>& paths, std::ostream& out,
                     std::ostream& err) {
    for (const std::string& path : paths) {
        std::string text;
        if (!readFile(path, text, err)) return 2;
        std::istringstream lines(text);
        std::string line;
        while (std::getline(lines, line)) {
            if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
            out << io::rowRequestLine(catalog, line) << '\n';
        }
    }
    return 0;
}

}  // namespace caliper::cli
