#pragma once
#include "core/cli.h"

namespace gp::ui {

/// The `gpuplanner-cli report` writer: creates a QApplication only when the
/// command runs (offscreen when there is no display), estimates the scenario and
/// writes the same PDF as the GUI's "Export report..." (atomically).
gp::cli::ReportWriter makeHeadlessReportWriter(int argc, char** argv);

} // namespace gp::ui
