#include "serving/capacity.hpp"

#include <algorithm>
#include <cmath>

namespace caliper::serving {

namespace {

// A figure's worst ratio to its target at `users` (above 1: misses it);
// infinite where the engine gives no figure.
double gapAt(const Evaluator& e, const Slo& slo, double users) {
    const auto f = e.at(users, std::nullopt);
    double gap = 0;
    if (!f) return HUGE_VAL;
    meetsSlo(*f, slo, &gap);
    return gap;
}

// The largest integer in [lo, hi) whose gap is at most 1, given lo meets
// (gapLo <= 1) and hi does not (gapHi > 1).
double lastMeeting(const Evaluator& e, const Slo& slo, double lo, double hi, double gapLo, double gapHi) {
    // The figures rise with concurrency, so one integer splits the users that
    // meet the target from those that do not: lo meets, hi does not. The
    // figures are near-linear in concurrency below the KV pool's limit, so the
    // next probe is where the straight line through the bracket crosses the
    // target (regula falsi); a probe that does not halve the bracket is
    // followed by a bisection, so the search never takes more than about
    // twice a bisection's steps.
    bool bisectNext = !std::isfinite(gapHi);
    while (hi - lo > 1) {
        const double before = hi - lo;
        double mid = std::floor((lo + hi) / 2);
        if (!bisectNext) {
            const double t = (1.0 - gapLo) / (gapHi - gapLo);
            mid = std::clamp(std::floor(lo + t * (hi - lo)), lo + 1, hi - 1);
        }
        const double gap = gapAt(e, slo, mid);
        if (gap <= 1.0) { lo = mid; gapLo = gap; }
        else { hi = mid; gapHi = gap; }
        bisectNext = !bisectNext && (hi - lo > before / 2 || !std::isfinite(gapHi));
    }
    return lo;
}

}  // namespace

ReplicaCapacity usersWithin(const Evaluator& e, const Slo& slo, double cap) {
    ReplicaCapacity c;
    const auto one = e.at(1, std::nullopt);
    if (!one) return c;
    c.best = *one;
    if (!meetsSlo(*one, slo, &c.gap)) return c;
    const double hi = std::max(1.0, std::floor(cap));
    const double gapHi = gapAt(e, slo, hi);
    if (gapHi <= 1.0) return {hi, *one, c.gap};
    c.perReplica = lastMeeting(e, slo, 1, hi, c.gap, gapHi);
    return c;
}

double usersAbove(const Evaluator& e, const Slo& slo, double floor, double cap) {
    const double lo = std::max(1.0, std::floor(floor));
    const double hi = std::max(lo, std::floor(cap));
    if (lo >= hi) return 0;
    double low = lo + 1, gapLow = gapAt(e, slo, low);
    if (gapLow > 1.0) return 0;
    if (low >= hi) return hi;
    // The bracket from twice the floor, doubling while it still meets: the
    // other replica's figure is near this one's, so the bracket stays narrow.
    for (double probe = std::min(hi, 2 * lo);; probe = std::min(hi, 2 * probe)) {
        if (probe <= low) continue;
        const double gap = gapAt(e, slo, probe);
        if (gap > 1.0) return lastMeeting(e, slo, low, probe, gapLow, gap);
        if (probe >= hi) return hi;
        low = probe, gapLow = gap;
    }
}

}  // namespace caliper::serving
