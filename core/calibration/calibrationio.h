#pragma once
// Internal (core only): what gp_calibration_table (calibrationtable.cpp, a
// build-time tool) and the table it writes share with calibration.cpp.
#include "core/calibration/calibration.h"

#include <string_view>

namespace gp::detail {

/// resources/calibration/builtin-calibration.json as compiled in.
std::string_view builtinCalibrationJson();
/// That JSON read and validated as loadCalibration reads a user's table (every
/// field required): what gp_calibration_table writes out as C++ at build time.
Calibration parseBuiltinCalibration();
/// The index of a constant's member (-1 for an unknown id), for addCalibrationEntry.
int calibrationSlot(std::string_view id);
/// Appends the entry and sets its member (slot from calibrationSlot): how the
/// generated table builds builtinCalibration() without parsing.
void addCalibrationEntry(Calibration& c, int slot, CalibrationEntry e);

} // namespace gp::detail
