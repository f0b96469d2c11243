// gpuplanner-cli: a thin shell around gp::cli::run (app/cli/cli.cpp).
#include "app/cli/cli.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#ifdef GP_WITH_REPORT
#include "ui/reportcli.h"
#endif

int main(int argc, char** argv)
{
    std::vector<std::string> args(argv + 1, argv + argc);
    gp::cli::Hooks hooks;
#ifdef GP_WITH_REPORT
    hooks.report = gp::ui::makeHeadlessReportWriter(argc, argv);
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
