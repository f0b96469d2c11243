#pragma once
#include <functional>
#include <string>

namespace gp {
struct Calibration;
struct Scenario;
class Catalog;
} // namespace gp

namespace gp::ui {

/// Writes the PDF report for a scenario; returns an error message, empty on
/// success (the type of gp::cli::Hooks::report, app/cli/cli.h). The calibration
/// (nullptr = built-in) is used by every estimate and plan of the report.
using ReportWriter = std::function<std::string(const gp::Scenario&, const gp::Catalog&, const std::string& outPath,
                                               const gp::Calibration* calibration)>;

/// The `gpuplanner-cli report` writer: creates a QApplication only when the
/// command runs (offscreen when there is no display), estimates the scenario and
/// writes the same PDF as the GUI's "Export report..." (atomically).
ReportWriter makeHeadlessReportWriter(int argc, char** argv);

/// Writes `outPath` all or nothing. `produce` writes the whole file at the path
/// it is given and returns an error message (empty on success). For a regular
/// or new target that path is a temporary file in outPath's directory, which
/// is synced and renamed over outPath only when produce succeeded; on any
/// failure it is removed and a previous outPath is left byte for byte. A target
/// that exists but is not a regular file (/dev/null, /dev/full) is never
/// replaced: the file is produced in the temp directory and copied into it with
/// every write checked (so /dev/full fails with "No space left on device").
/// Returns an error message, empty on success.
std::string writeAllOrNothing(const std::string& outPath,
                              const std::function<std::string(const std::string& path)>& produce);

} // namespace gp::ui
