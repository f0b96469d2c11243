// gpuplanner-cli: a thin shell around gp::cli::run (core/cli.cpp).
#include "core/cli.h"

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
    return gp::cli::run(args, std::cout, std::cerr, hooks);
}
