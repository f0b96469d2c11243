#pragma once
// What gpuplanner-cli prints that the core does not format itself: the
// catalog and preset listings and `estimate --explain`'s JSON.
#include <string>

namespace gp {
class Catalog;
struct Estimate;
} // namespace gp

namespace gp::cli {

/// estimateToJson with each result's terms (key, label, value, unit, formula).
std::string termsJson(const Estimate& est);
/// `gpus --format table|json`.
std::string gpusTable(const Catalog& cat);
std::string gpusJson(const Catalog& cat);
/// `presets --format table|json`.
std::string presetsTable();
std::string presetsJson();

} // namespace gp::cli
