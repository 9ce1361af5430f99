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

}  // namespace

ReplicaCapacity usersWithin(const Evaluator& e, const Slo& slo, double cap) {
    ReplicaCapacity c;
    const auto one = e.at(1, std::nullopt);
    if (!one) return c;
    c.best = *one;
    if (!meetsSlo(*one, slo, &c.gap)) return c;
    double lo = 1, hi = std::max(1.0, std::floor(cap));
    double gapLo = c.gap, gapHi = gapAt(e, slo, hi);
    if (gapHi <= 1.0) return {hi, *one, c.gap};
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
    c.perReplica = lo;
    return c;
}

}  // namespace caliper::serving
