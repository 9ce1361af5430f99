// Statistics over scored validation rows: per kind, per group, per family.
#include <algorithm>
#include <cmath>

#include "validate/validation.hpp"

namespace caliper {

namespace {

ValidationStats summarize(std::string name, const std::vector<const ValidationRowScore*>& rows) {
    ValidationStats stats;
    stats.name = std::move(name);
    std::vector<double> absolute, signedErrors;
    for (const ValidationRowScore* r : rows) {
        if (r->hasError) {
            absolute.push_back(r->absErrorPct);
            signedErrors.push_back(r->errorPct);
        }
        if (r->fitCorrect) {
            ++stats.fitChecks;
            stats.fitCorrect += *r->fitCorrect ? 1 : 0;
        }
        if (r->lowerBound) {
            ++stats.boundChecks;
            stats.boundsMet += r->boundMet ? 1 : 0;
        }
    }
    stats.count = static_cast<int>(absolute.size());
    stats.medianAbsErrorPct = quantile(absolute, 0.5);
    stats.p90AbsErrorPct = quantile(absolute, 0.9);
    stats.medianErrorPct = quantile(signedErrors, 0.5);
    return stats;
}

// The kind of a group name ("decode_tps / llama.cpp / ..." -> "decode_tps").
std::string kindOfGroup(const std::string& group) { return group.substr(0, group.find(" / ")); }

bool inFamily(const std::string& kind, std::string_view family) {
    if (family == "memory") return kind == "inference_memory" || kind == "finetune_memory" || kind == "train_memory";
    if (family == "decode") return kind == "decode_tps";
    if (family == "prefill") return kind == "prefill_tps";
    if (family == "training") return kind == "train_throughput";
    if (family == "weights") return kind == "weights_size";
    if (family == "fits") return kind == "fits";
    return false;
}

}  // namespace

double quantile(std::vector<double> values, double fraction) {
    if (values.empty()) return 0.0;
    std::sort(values.begin(), values.end());
    const double position = std::clamp(fraction, 0.0, 1.0) * static_cast<double>(values.size() - 1);
    const std::size_t below = static_cast<std::size_t>(std::floor(position));
    const std::size_t above = std::min(below + 1, values.size() - 1);
    return values[below] + (position - static_cast<double>(below)) * (values[above] - values[below]);
}

std::vector<ValidationStats> statsBy(const std::vector<ValidationRowScore>& scores, bool byGroup) {
    std::vector<std::string> names;  // first-seen order
    for (const auto& s : scores) {
        const std::string& name = byGroup ? s.group : s.kind;
        if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    }
    std::vector<ValidationStats> out;
    for (const std::string& name : names) {
        std::vector<const ValidationRowScore*> rows;
        for (const auto& s : scores) {
            if ((byGroup ? s.group : s.kind) == name) rows.push_back(&s);
        }
        out.push_back(summarize(name, rows));
    }
    if (byGroup) {  // by kind, then the worst median first: where calibration pays most
        std::stable_sort(out.begin(), out.end(), [](const ValidationStats& a, const ValidationStats& b) {
            const std::string ka = kindOfGroup(a.name), kb = kindOfGroup(b.name);
            return ka != kb ? ka < kb : a.medianAbsErrorPct > b.medianAbsErrorPct;
        });
    }
    return out;
}

ValidationStats familyStats(const std::vector<ValidationRowScore>& scores, std::string_view family) {
    std::vector<const ValidationRowScore*> rows;
    for (const auto& s : scores) {
        if (inFamily(s.kind, family)) rows.push_back(&s);
    }
    return summarize(std::string(family), rows);
}

}  // namespace caliper
