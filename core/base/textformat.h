#pragma once
// Number formatting shared by everything the core writes (JSON documents,
// tables, CSV, the planner's "why", rent-vs-buy verdicts).
#include <string>

namespace gp {

/// Rounds to 4 significant digits (0 for 0 and non-finite values): keeps the
/// documents short without losing meaning.
double round4(double v);

/// The one formatter for a number in text: `spec` is a printf format with one
/// floating-point conversion ("%.2f", "$%.0f", "%.0f%%", "%9.3f"). Any double
/// is safe: from 1e15 on (a cost of 3.48e300, a utilization of 1e300%) the
/// conversion becomes %.3g ("3.48e+300") instead of hundreds of digits; NaN
/// and infinities print as printf prints them. No fixed buffer, no cast to an
/// integer type (no -9223372036854775808).
std::string formatDouble(const char* spec, double v);

/// formatDouble with `decimals` fixed decimals ("%.3f").
std::string formatFixed(double v, int decimals);

/// A fraction as a whole percentage: 0.374 -> "37%".
std::string formatPercent(double fraction);

} // namespace gp
