#pragma once
// Internal to launch.cpp and the launch writers: number formatting and the header
// every launch file opens with.
#include "core/engines/launch.h"

#include <string>
#include <vector>

#include <algorithm>

namespace gp {
struct EngineSpec;
}

namespace gp::detail {

std::string num(double v, int decimals);   // fixed decimals
std::string pct(double relative);           // 0.12 -> "12%"
std::string grouped(long long v);           // 123456 -> "123,456" (Python's f"{v:,}")
/// Layers of a kind on one pipeline stage: the largest stage's share, ceil(layers / pp).
inline int layersPerStage(int layers, int pp) { return layers > 0 ? (layers + pp - 1) / std::max(1, pp) : 0; }
/// Engine, version, source, predicted memory per GPU and speed with uncertainty.
std::vector<std::string> headerLines(const LaunchTarget& t, const GpuEstimate& e, const EngineSpec& spec);
/// Each line prefixed with `prefix` ("#").
std::string commentBlock(const std::vector<std::string>& lines, const std::string& prefix);
/// Throws InputError("--for ENGINE", why).
[[noreturn]] void refuse(const std::string& engine, const std::string& why);

} // namespace gp::detail
