#pragma once
// Runs gpuplanner-cli through gp::cli::run with string streams, for the CLI
// tests: in-process (runCli), or in a child process (runCliInChild) where the run
// needs limits the test process must not take on: a file-size limit that makes
// writes fail partway as on a full disk, or an alarm that ends a run that blocks.
#include <QByteArray>

#include "app/cli/cli.h"

#include <csignal>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

struct Result {
    int code = -1;
    std::string out;
    std::string err;
};

inline Result runCli(const std::vector<std::string>& args, const gp::cli::Hooks& hooks = {})
{
    std::ostringstream out;
    std::ostringstream err;
    Result r;
    r.code = gp::cli::run(args, out, err, hooks);
    r.out = out.str();
    r.err = err.str();
    return r;
}

/// What the child of runCliInChild may not do.
struct ChildLimits {
    long long fileSizeBytes = -1; // RLIMIT_FSIZE: a write past it raises SIGXFSZ and fails with EFBIG; -1 none
    unsigned alarmSeconds = 0;    // SIGALRM ends the child after this long; 0 none
};

/// Runs the CLI in a forked child under `limits`. `killedBy` is the signal that
/// ended the child (SIGALRM when the run did not return in time), 0 when it exited.
struct ChildResult : Result {
    int killedBy = 0;
};

inline ChildResult runCliInChild(const std::vector<std::string>& args, const ChildLimits& limits)
{
    ChildResult r;
    int pipes[2][2];
    if (::pipe(pipes[0]) != 0 || ::pipe(pipes[1]) != 0)
        return r;
    const pid_t child = ::fork();
    if (child == 0) {
        ::close(pipes[0][0]);
        ::close(pipes[1][0]);
        std::signal(SIGXFSZ, SIG_DFL); // as in a shell: the CLI itself must keep the signal from ending it
        if (limits.fileSizeBytes >= 0) {
            const rlimit lim{rlim_t(limits.fileSizeBytes), rlim_t(limits.fileSizeBytes)};
            ::setrlimit(RLIMIT_FSIZE, &lim);
        }
        std::signal(SIGALRM, SIG_DFL);
        if (limits.alarmSeconds > 0)
            ::alarm(limits.alarmSeconds);
        std::ostringstream out;
        std::ostringstream err;
        const int code = gp::cli::run(args, out, err);
        ::alarm(0);
        for (const auto& [fd, text] : {std::pair{pipes[0][1], out.str()}, std::pair{pipes[1][1], err.str()}}) {
            std::size_t done = 0;
            while (done < text.size()) {
                const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
                if (n <= 0)
                    break;
                done += std::size_t(n);
            }
            ::close(fd);
        }
        ::_exit(code);
    }
    ::close(pipes[0][1]);
    ::close(pipes[1][1]);
    // The outputs are small (one run's messages); stdout is drained first, then stderr.
    for (auto [fd, text] : {std::pair{pipes[0][0], &r.out}, std::pair{pipes[1][0], &r.err}}) {
        char buf[4096];
        ssize_t n = 0;
        while ((n = ::read(fd, buf, sizeof buf)) > 0)
            text->append(buf, std::size_t(n));
        ::close(fd);
    }
    int status = 0;
    if (child > 0 && ::waitpid(child, &status, 0) == child) {
        if (WIFEXITED(status))
            r.code = WEXITSTATUS(status);
        else if (WIFSIGNALED(status))
            r.killedBy = WTERMSIG(status);
    }
    return r;
}

/// Exit code, stdout and stderr, for QVERIFY2 messages.
inline QByteArray describe(const Result& r)
{
    return "exit " + QByteArray::number(r.code) + "\n--- stdout (" + QByteArray::number(qsizetype(r.out.size()))
         + " bytes) ---\n" + QByteArray::fromStdString(r.out.substr(0, 2000)) + "\n--- stderr ---\n"
         + QByteArray::fromStdString(r.err.substr(0, 4000));
}

inline std::string examplesDir() { return GP_EXAMPLES_DIR; }
inline std::string dataDir() { return GP_TEST_DATA_DIR; }
