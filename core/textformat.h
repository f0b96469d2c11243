#pragma once
// Number formatting shared by the JSON documents the core writes.

namespace gp {

/// Rounds to 4 significant digits (0 for 0 and non-finite values): keeps the
/// documents short without losing meaning.
double round4(double v);

} // namespace gp
