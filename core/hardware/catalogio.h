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

/// resources/catalog/gpu-catalog.json as compiled in: what gp_catalog_table
/// reads at build time into Catalog::builtin()'s entries (catalogtable.cpp).
std::string_view builtinCatalogJson();

} // namespace gp::detail
