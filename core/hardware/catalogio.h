#pragma once
// Internal (core only): what the catalog loader (catalogio.cpp) and the
// catalog's look-ups (catalog.cpp) share.
#include <string>
#include <string_view>
#include <vector>

namespace gp {
struct Gpu;
}

namespace gp::detail {

/// The id in `gpus` nearest to `id` by edit distance (case-insensitive on
/// `id`; ties go to the earlier entry), or "" for an empty id or one over 64
/// bytes (no catalog id is that long, and the distance is quadratic).
std::string closestGpuId(const std::vector<Gpu>& gpus, std::string_view id);

} // namespace gp::detail
