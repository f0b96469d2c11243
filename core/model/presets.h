#pragma once
#include "core/model/model.h"

#include <string_view>
#include <vector>

namespace gp {

/// Built-in presets (the ids the scenario spec requires, and more).
const std::vector<ModelArch>& modelPresets();
const ModelArch* findPreset(std::string_view id);

} // namespace gp
