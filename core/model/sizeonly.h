#pragma once
#include "core/model/model.h"

namespace gp {

/// Picks a typical modern shape for a size alone (see shapeNote for the rule).
ModelArch modelFromParams(double params, ModelFamily family, const MoeSpec& moe);

} // namespace gp
