// Whole-process time of `gpuplanner-cli gpus` against a trivial C++ program
// that links no Qt (bench/trivial_cxx.cpp): both started with posix_spawn,
// output to /dev/null, timed from spawn to exit. Prints figures only.
//
//   bench_cli_startup [runs]        (default 200 runs of each, interleaved)
#include <spawn.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

extern char** environ;

namespace {

double runOnceMs(const std::vector<std::string>& argv)
{
    std::vector<char*> args;
    for (const auto& a : argv)
        args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    const auto start = std::chrono::steady_clock::now();
    pid_t pid = 0;
    if (posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ) != 0) {
        std::perror(args[0]);
        std::exit(1);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    const auto end = std::chrono::steady_clock::now();
    posix_spawn_file_actions_destroy(&actions);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        std::fprintf(stderr, "%s exited with status %d\n", args[0], status);
        std::exit(1);
    }
    return std::chrono::duration<double, std::milli>(end - start).count();
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
}

} // namespace

int main(int argc, char** argv)
{
    const int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 200;
    const std::vector<std::string> cli = {GP_CLI_PATH, "gpus"};
    const std::vector<std::string> trivial = {GP_TRIVIAL_PATH};
    for (int i = 0; i < 5; ++i) { // warm the page cache
        runOnceMs(cli);
        runOnceMs(trivial);
    }
    std::vector<double> a, b;
    for (int i = 0; i < runs; ++i) {
        a.push_back(runOnceMs(cli));
        b.push_back(runOnceMs(trivial));
    }
    const double ma = median(a), mb = median(b);
    std::printf("gpuplanner-cli gpus, whole process: median %.2f ms (%d runs)\n", ma, runs);
    std::printf("trivial C++ program (no Qt):        median %.2f ms (%d runs)\n", mb, runs);
    std::printf("ratio: %.2fx (goal <= 2x)\n", mb > 0 ? ma / mb : 0.0);
    return 0;
}
