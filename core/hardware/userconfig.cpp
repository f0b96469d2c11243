#include "core/hardware/userconfig.h"

#include "core/base/fileread.h"

#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <system_error>

namespace gp {

namespace {

constexpr std::size_t kMaxOverlayBytes = 16u << 20;

/// "corrupt-yyyyMMdd-HHmmss" in local time (the tag the app sets bad files aside with).
std::string corruptTag()
{
    const std::time_t now = std::time(nullptr);
    std::tm local{};
    localtime_r(&now, &local);
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "corrupt-%Y%m%d-%H%M%S", &local);
    return stamp;
}

/// Renames `path` to the first free "<path>.<tag>", "<path>.<tag>-2", ...
/// Returns the new path, or "" with the reason in `error`.
std::string setAside(const std::string& path, const std::string& tag, std::string& error)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    std::string target = path + "." + tag;
    for (int n = 2; fs::exists(fs::symlink_status(target, ec)) && n < 1000; ++n)
        target = path + "." + tag + "-" + std::to_string(n);
    fs::rename(path, target, ec);
    if (ec) {
        error = ec.message();
        return {};
    }
    return target;
}

/// A regular file that opens for reading: its content is what is wrong.
bool readableRegularFile(const std::string& path)
{
    std::error_code ec;
    return std::filesystem::is_regular_file(path, ec) && std::ifstream(path).is_open();
}

} // namespace

std::string userOverlayPath()
{
    if (const char* env = std::getenv("GPUPLANNER_CATALOG_OVERLAY"); env && *env)
        return env;
    std::string base;
    if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg && *xdg)
        base = xdg;
    else if (const char* home = std::getenv("HOME"); home && *home)
        base = std::string(home) + "/.config";
    else
        return std::string();
    return base + "/gpuplanner/catalog-overlay.json";
}

std::string UserCatalogLoad::problemText() const
{
    return InputError(problems).what();
}

UserCatalogLoad loadCatalogWithUserOverlay(BadOverlay policy)
{
    UserCatalogLoad out{Catalog::builtin(), userOverlayPath(), false, {}, false, {}, {}};
    const std::string& path = out.overlayPath;
    std::error_code ec;
    // A dangling or looping link is there and is reported.
    if (path.empty() || !std::filesystem::exists(std::filesystem::symlink_status(path, ec)))
        return out;
    std::string text;
    try {
        text = readTextFileBounded(path, kMaxOverlayBytes);
    } catch (const InputError& e) {
        out.problems = e.problems();
        out.unreadable = !readableRegularFile(path); // too large or not text: the content is bad
    }
    if (out.problems.empty()) {
        try {
            out.catalog.applyOverlayText(text, path); // unchanged when it throws
            out.overlayApplied = true;
            return out;
        } catch (const InputError& e) {
            out.problems = e.problems();
        } catch (const std::exception& e) {
            out.problems.push_back({path, e.what()});
        }
    }
    if (!out.unreadable && policy == BadOverlay::SetAside)
        out.setAsidePath = setAside(path, corruptTag(), out.setAsideError);
    return out;
}

} // namespace gp
