#pragma once
// gpuplanner-cli's front end (gpuplanner_clilib): argument parsing, command
// dispatch, usage text and output writing over the core library.
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

namespace gp {
struct Calibration;
struct Scenario;
class Catalog;
}

namespace gp::cli {

/// Writes the PDF report for a scenario; provided by the UI layer (Qt), absent in
/// a core-only build. Returns an error message, empty on success. `calibration`
/// (`--calibration FILE`; nullptr = built-in) goes to every estimate and plan.
using ReportWriter = std::function<std::string(const Scenario&, const Catalog&, const std::string& outPath,
                                               const Calibration* calibration)>;

struct Hooks {
    ReportWriter report;
};

/// Runs `gpuplanner-cli` with its arguments (without argv[0]). Exit codes: 0 ok,
/// 1 failure that is not the input's fault (e.g. cannot write), 2 bad input or usage.
/// Nothing is written to `out` unless the command succeeds.
int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err, const Hooks& hooks = {});

} // namespace gp::cli
