// Confidence of one estimate (see confidence.h for the model).
#include "core/estimate/confidence.h"

#include "core/scenario/scenario.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gp {

double normalCdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

double normalQuantile(double p)
{
    if (!(p > 0))
        return -std::numeric_limits<double>::infinity();
    if (!(p < 1))
        return std::numeric_limits<double>::infinity();
    // Bisection on the CDF: 80 halvings of [-40, 40] reach double precision.
    double lo = -40, hi = 40;
    for (int i = 0; i < 80; ++i) {
        const double mid = 0.5 * (lo + hi);
        (normalCdf(mid) < p ? lo : hi) = mid;
    }
    return 0.5 * (lo + hi);
}

double probabilityAtMost(double value, double limit, double sigma)
{
    if (!(value > 0))
        return 1; // nothing to exceed
    if (!(limit > 0))
        return 0;
    if (!(sigma > 0))
        return value <= limit ? 1 : 0;
    return normalCdf(std::log(limit / value) / sigma);
}

double quantileFactor(double sigma, double p)
{
    if (!(sigma > 0))
        return 1;
    const double z = normalQuantile(std::clamp(p, 1e-9, 1 - 1e-9));
    return std::exp(sigma * z);
}

void fillConfidence(const Scenario& s, GpuEstimate& e)
{
    const double sm = e.uncertainty.memory;
    const double st = e.uncertainty.throughput;
    e.confidence.fits = probabilityAtMost(e.memory.total(), e.capacityBytes, sm);
    double meets = 1;
    double latency = 1;
    auto need = [&](const std::optional<double>& value, const std::optional<double>& target, bool isLatency) {
        if (!value || !target)
            return;
        const double p = probabilityAtMost(*value, *target, st);
        meets = std::min(meets, p);
        if (isLatency)
            latency = std::min(latency, p);
    };
    if (e.training && s.mode == Mode::Training) {
        const auto& t = *e.training;
        need(t.hours, s.training.targets.deadlineHours, true);
        need(t.costUsd, s.training.targets.budgetUsd, false); // cost grows with the time
    }
    if (e.inference && s.mode == Mode::Inference) {
        const auto& r = *e.inference;
        const auto& tg = s.inference.targets;
        need(r.ttftMs ? r.ttftMs : r.latencyMs, tg.ttftMs, true);
        need(r.tpotMs, tg.tpotMs, true);
        need(r.ttftP99Ms, tg.ttftP99Ms, true);
        if (tg.requestsPerS) {
            // The rate served falls as the times grow: P(rate >= target) = P(time <= time x rate / target).
            double served = 0;
            if (r.tokensPerS)
                served = *r.tokensPerS / std::max(1, s.inference.outputTokens);
            else if (r.samplesPerS)
                served = *r.samplesPerS;
            if (served > 0)
                meets = std::min(meets, probabilityAtMost(1.0, served / *tg.requestsPerS, st));
            else
                meets = 0;
        }
    }
    e.confidence.meetsTargets = meets;
    e.confidence.latency = latency;
}

} // namespace gp
