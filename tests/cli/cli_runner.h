#pragma once
// Runs gpuplanner-cli in-process through gp::cli::run with string streams, for
// the CLI tests (tst_cli, tst_cli_commands).
#include <QByteArray>

#include "app/cli/cli.h"

#include <sstream>
#include <string>
#include <vector>

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

/// Exit code, stdout and stderr, for QVERIFY2 messages.
inline QByteArray describe(const Result& r)
{
    return "exit " + QByteArray::number(r.code) + "\n--- stdout (" + QByteArray::number(qsizetype(r.out.size()))
         + " bytes) ---\n" + QByteArray::fromStdString(r.out.substr(0, 2000)) + "\n--- stderr ---\n"
         + QByteArray::fromStdString(r.err.substr(0, 4000));
}

inline std::string examplesDir() { return GP_EXAMPLES_DIR; }
inline std::string dataDir() { return GP_TEST_DATA_DIR; }
