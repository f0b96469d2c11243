// gpuplanner-report.so: the PDF report as a module that gpuplanner-cli loads
// (dlopen) only when `report` runs, so every other command starts without Qt.
// Built from gpuplanner_ui and the core linked in with their symbols hidden
// (-Wl,--exclude-libs,ALL): the one exported symbol is below.
#include "reportcli.h"

#include <string>

/// The entry gpuplanner-cli looks up (app/cli_main.cpp): writes the report of
/// `scenario` to outPath and returns an error message, empty on success. An
/// InputError (an unknown GPU id) propagates to the caller as thrown.
extern "C" __attribute__((visibility("default"))) void
gp_report_module_write(int argc, char** argv, const gp::Scenario& scenario, const gp::Catalog& catalog,
                       const std::string& outPath, const gp::Calibration* calibration, std::string& error)
{
    static const gp::ui::ReportWriter writer = gp::ui::makeHeadlessReportWriter(argc, argv);
    error = writer(scenario, catalog, outPath, calibration);
}
