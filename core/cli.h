#pragma once
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

namespace gp {
struct Scenario;
class Catalog;
}

namespace gp::cli {

/// Writes the PDF report for a scenario; provided by the UI layer (Qt), absent in
/// a core-only build. Returns an error message, empty on success.
using ReportWriter = std::function<std::string(const Scenario&, const Catalog&, const std::string& outPath)>;

struct Hooks {
    ReportWriter report;
};

/// Runs `gpuplanner-cli` with its arguments (without argv[0]). Exit codes: 0 ok,
/// 1 failure that is not the input's fault (e.g. cannot write), 2 bad input or usage.
/// Nothing is written to `out` unless the command succeeds.
int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err, const Hooks& hooks = {});

/// Reads a whole file: gp::readTextFileBounded (core/fileread.h).
std::string readFile(const std::string& path, std::size_t maxBytes);

/// The user catalog overlay path ($GPUPLANNER_CATALOG_OVERLAY, else
/// $XDG_CONFIG_HOME or ~/.config + /gpuplanner/catalog-overlay.json).
std::string userOverlayPath();

/// The built-in catalog plus the user overlay, if one exists. Problems with the
/// overlay are returned in `warnings` (the overlay is then ignored, never fatal).
Catalog loadCatalog(std::vector<std::string>& warnings);

} // namespace gp::cli
