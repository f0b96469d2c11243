#pragma once
// How sure an estimate is: probabilities from its relative 1-sigma uncertainty.
//
// The uncertainty values are the RMS of log residuals (core/fit/calibrate.h), so
// the true value is modelled as lognormal around the prediction:
//   true memory = predicted x exp(sigma_m Z1),  true time = predicted x exp(sigma_t Z2)
// with Z1, Z2 standard normal and independent (memory and speed are fitted on
// different constants). One speed error moves every time of a result at once
// (TTFT, TPOT, step time, hours, cost), so the probability of meeting all time
// targets is the smallest of the per-target probabilities (the targets are
// nested events of the one Z2), and the probability of fitting and meeting them
// is the product P(fits) x P(meets).
#include "core/estimate/estimate.h"

#include <string>

namespace gp {

struct Scenario;

/// Standard normal CDF.
double normalCdf(double z);
/// Its inverse, for p in (0, 1); +-inf at the ends.
double normalQuantile(double p);

/// P(value x exp(sigma Z) <= limit): the chance a prediction `value` with log
/// 1-sigma `sigma` stays at or below `limit` (a step at the point when sigma is 0).
double probabilityAtMost(double value, double limit, double sigma);

/// The factor a predicted time (or cost, which grows with time) is multiplied
/// by to be met with probability p: exp(sigma x z_p). 1 at p = 0.5.
double quantileFactor(double sigma, double p);

/// Fills e.confidence from e's numbers, e.uncertainty and the scenario's targets.
void fillConfidence(const Scenario& s, GpuEstimate& e);

/// Where a band comes from, by distance from measurement (issue #16), as a
/// phrase: "fewer than 3 published training rows for CDNA 3/4", "the leave-one-out band
/// of the published inference rows of Blackwell (sm_100)", "the leave-one-out
/// band of the Hopper training runs the project measured"; what widened it
/// follows (", widened for 8 GPUs and QLoRA"). `throughput` false: the memory band's.
std::string bandOrigin(const Uncertainty& u, bool throughput = true);

/// "speed +-36% (fewer than 3 published training rows for CDNA 3/4); memory +-12% (...)"
/// with both bands' origins, for notes, the app and the report.
std::string bandSummary(const Uncertainty& u);

/// The note an estimate carries when its throughput band is the wide one (the
/// family has no published rows of the workload's kind); "" otherwise.
std::string unmeasuredBandNote(const Uncertainty& u, const Calibration& c);

} // namespace gp
