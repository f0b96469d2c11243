#pragma once
// Internal (core only): texts the plan solver (planner.cpp) and the plan
// output (planoutput.cpp) share.
#include <string>

namespace gp {
struct PlanOption;
}

namespace gp::detail {

/// The option's layout: "TP2 PP2 DP2 ZeRO-1", "MIG 3g.40gb slice" or "single GPU".
std::string planLayout(const PlanOption& o);

} // namespace gp::detail
