#pragma once
// Internal to validate.cpp: the "scenario_run" records of `gpuplanner-cli record`.
#include "core/fit/validate.h"

#include <nlohmann/json.hpp>

namespace gp {
class Catalog;
}

namespace gp::detail {

/// Adds the case of one scenario_run record (or a skipped line saying why not).
void addRecordedRun(const nlohmann::json& record, const Catalog& catalog, ValidationSet& set);

} // namespace gp::detail
