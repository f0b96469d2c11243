// Prints how long gpuplanner-cli takes on the hostile inputs of issue #9, each
// run in-process through gp::cli::run as the binary runs it. Goal: no single
// input takes more than 1 s. Asserts nothing (a figure, not a timed test).
//
//   bench_hostile [WORKDIR]   (default: a fresh directory under /tmp)
#include "app/cli/cli.h"
#include "ui/reportcli.h"

#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

std::string scenarioJson(const std::string& name, const std::string& gpus, const std::string& targets = "")
{
    return R"({"format":"gpuplanner-scenario","version":1,"name":")" + name +
           R"(","model":{"preset":"llama-3.1-8b"},"workload":{"mode":"inference","inference":{"precision":"bf16",)"
           R"("batch":8,"prompt_tokens":1024,"output_tokens":256)" +
           targets + R"(}},"hardware":{"gpus":[)" + gpus + "]}}";
}

void writeFile(const fs::path& p, const std::string& text)
{
    std::ofstream f(p, std::ios::binary);
    f << text;
}

struct Case {
    const char* what;
    std::vector<std::string> args;
};

} // namespace

int main(int argc, char** argv)
{
    const fs::path dir = argc > 1 ? fs::path(argv[1]) : fs::temp_directory_path() / "gpuplanner-bench-hostile";
    fs::create_directories(dir);

    // A 15 MiB unknown GPU id ("did you mean" used to take 24 s).
    writeFile(dir / "huge-id.json", scenarioJson("huge id", "\"" + std::string(15u << 20, 'x') + "\""));
    // A 1 MB scenario name full of escape sequences (the report used to take > 5 min).
    std::string name;
    while (name.size() < (1u << 20))
        name += "\\u001b[2J name ";
    writeFile(dir / "huge-name.json", scenarioJson(name, "\"nvidia-h100-sxm\""));
    // A load of 1e9 requests/s (overflowed an int in the planner).
    writeFile(dir / "huge-load.json", scenarioJson("huge load", "\"nvidia-h100-sxm\",\"amd-mi325x\"",
                                                   R"(,"targets":{"requests_per_s":1e9})"));
    // A FIFO nobody writes to (blocked forever).
    const fs::path fifo = dir / "fifo.json";
    fs::remove(fifo);
    ::mkfifo(fifo.c_str(), 0600);

    const std::string out = (dir / "report.pdf").string();
    const std::vector<Case> cases = {
        {"estimate: 15 MiB unknown GPU id", {"estimate", (dir / "huge-id.json").string()}},
        {"plan: 15 MiB unknown GPU id", {"plan", (dir / "huge-id.json").string()}},
        {"report: 1 MB name with escapes", {"report", (dir / "huge-name.json").string(), "-o", out}},
        {"plan: 1e9 requests/s", {"plan", (dir / "huge-load.json").string()}},
        {"estimate: a FIFO", {"estimate", fifo.string()}},
        {"estimate: /dev/zero", {"estimate", "/dev/zero"}},
        {"estimate: a directory", {"estimate", dir.string()}},
    };

    gp::cli::Hooks hooks;
    hooks.report = gp::ui::makeHeadlessReportWriter(argc, argv);
    std::printf("%-36s %10s %5s  %s\n", "input", "seconds", "exit", "(goal: < 1 s each)");
    for (const Case& c : cases) {
        std::ostringstream sout, serr;
        const auto t0 = std::chrono::steady_clock::now();
        const int code = gp::cli::run(c.args, sout, serr, hooks);
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::printf("%-36s %10.3f %5d\n", c.what, s, code);
    }
    fs::remove_all(dir);
    return 0;
}
