// gpuplanner-cli: a thin shell around gp::cli::run (app/cli/cli.cpp).
#include "app/cli/cli.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#ifdef GP_WITH_REPORT
#include <dlfcn.h>
#include <unistd.h>

#include <climits>

namespace {

/// gp_report_module_write in gpuplanner-report.so (ui/reportmodule.cpp).
using ReportEntry = void (*)(int, char**, const gp::Scenario&, const gp::Catalog&, const std::string&,
                             const gp::Calibration*, std::string&);

/// The report module beside this executable (the build tree), else where it is installed.
std::vector<std::string> reportModuleCandidates()
{
    std::vector<std::string> paths;
    char self[PATH_MAX];
    const ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        std::string dir(self, static_cast<std::size_t>(n));
        dir.resize(dir.rfind('/') + 1);
        paths.push_back(dir + "gpuplanner-report.so");
    }
    paths.push_back(GP_REPORT_MODULE_INSTALLED);
    return paths;
}

/// `report`'s writer: loads the Qt part only now, when the command runs.
gp::cli::ReportWriter loadReportWriter(int argc, char** argv)
{
    return [argc, argv](const gp::Scenario& scenario, const gp::Catalog& catalog, const std::string& outPath,
                        const gp::Calibration* calibration) -> std::string {
        static ReportEntry entry = nullptr;
        std::string tried;
        for (const auto& path : reportModuleCandidates()) {
            if (entry)
                break;
            if (::access(path.c_str(), F_OK) != 0) {
                tried += "\n  " + path + ": not found";
                continue;
            }
            void* module = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
            if (!module) {
                tried += "\n  " + std::string(::dlerror());
                continue;
            }
            entry = reinterpret_cast<ReportEntry>(::dlsym(module, "gp_report_module_write"));
            if (!entry)
                tried += "\n  " + path + ": no gp_report_module_write";
        }
        if (!entry)
            return "cannot load the PDF report module (gpuplanner-report.so):" + tried;
        std::string error;
        entry(argc, argv, scenario, catalog, outPath, calibration, error);
        return error;
    };
}

} // namespace
#endif

int main(int argc, char** argv)
{
    std::vector<std::string> args(argv + 1, argv + argc);
    gp::cli::Hooks hooks;
#ifdef GP_WITH_REPORT
    hooks.report = loadReportWriter(argc, argv);
#endif
    int code = gp::cli::run(args, std::cout, std::cerr, hooks);
    // run() flushed and checked std::cout; the C stream under it is checked too,
    // so a full disk or a closed pipe is never reported as success.
    errno = 0;
    std::cout.flush();
    const bool failed = !std::cout || std::fflush(stdout) != 0 || std::ferror(stdout) != 0;
    if (failed && code != 1) {
        const int e = errno;
        std::cerr << "gpuplanner-cli: cannot write the output" << (e != 0 ? std::string(": ") + std::strerror(e) : "")
                  << "\n";
        code = 1;
    }
    return code;
}
