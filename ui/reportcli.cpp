#include "reportcli.h"

#include "format.h"
#include "reportbuilder.h"

#include "core/calibration/calibration.h"
#include "core/estimate/estimate.h"
#include "core/base/tempfiles.h"

#include <QApplication>
#include <QDir>
#include <QFileInfo>
#include <QString>
#include <QFile>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace gp::ui {

namespace {

std::string errnoText(const char* what, int err) { return std::string(what) + ": " + std::strerror(err); }

/// A name for a temporary file in `dir` (created empty, so it is ours), registered
/// so that SIGINT/SIGTERM remove it (core/base/tempfiles.h); forgetTempFile() when done.
std::string reserveTemp(const QString& dir, std::string& error)
{
    std::string path = QFile::encodeName(QDir(dir).filePath(QStringLiteral(".gpuplanner-XXXXXX.part"))).toStdString();
    const int fd = gp::createRegisteredTempFile(path, 5);
    if (fd < 0) {
        error = "cannot create a temporary file in " + dir.toStdString() + ": " + std::strerror(errno);
        return std::string();
    }
    ::close(fd);
    return path;
}

/// fsync: a delayed write error (a full disk on NFS, say) surfaces here.
std::string syncFile(const std::string& path)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return errnoText("cannot reopen the written file", errno);
    const int rc = ::fsync(fd);
    const int err = errno;
    ::close(fd);
    return rc == 0 ? std::string() : errnoText("cannot sync the written file", err);
}

/// Copies `from` into the existing non-regular file `to`, checking every write.
std::string copyInto(const std::string& from, const std::string& to)
{
    const int in = ::open(from.c_str(), O_RDONLY | O_CLOEXEC);
    if (in < 0)
        return errnoText("cannot read the written file", errno);
    // O_NONBLOCK: a FIFO without a reader fails (ENXIO) instead of hanging.
    const int out = ::open(to.c_str(), O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (out < 0) {
        const int err = errno;
        ::close(in);
        return errnoText("cannot open", err);
    }
    ::fcntl(out, F_SETFL, ::fcntl(out, F_GETFL) & ~O_NONBLOCK);
    std::string error;
    char buf[1 << 16];
    for (;;) {
        const ssize_t n = ::read(in, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            error = errnoText("cannot read the written file", errno);
            break;
        }
        if (n == 0)
            break;
        for (ssize_t done = 0; done < n;) {
            const ssize_t w = ::write(out, buf + done, static_cast<std::size_t>(n - done));
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0) {
                error = errnoText("cannot write", w < 0 ? errno : EIO);
                break;
            }
            done += w;
        }
        if (!error.empty())
            break;
    }
    ::close(in);
    if (::close(out) != 0 && error.empty())
        error = errnoText("cannot write", errno);
    return error;
}

} // namespace

std::string writeAllOrNothing(const std::string& outPath,
                              const std::function<std::string(const std::string& path)>& produce)
{
    struct stat st {};
    const bool existsSpecial = ::stat(outPath.c_str(), &st) == 0 && !S_ISREG(st.st_mode);
    if (existsSpecial && S_ISDIR(st.st_mode))
        return "is a directory";
    const QString dir = existsSpecial ? QDir::tempPath() : QFileInfo(QString::fromStdString(outPath)).absolutePath();
    std::string error;
    const std::string temp = reserveTemp(dir, error);
    if (temp.empty())
        return error;
    error = produce(temp);
    if (error.empty()) {
        struct stat written {};
        if (::stat(temp.c_str(), &written) != 0 || written.st_size == 0)
            error = "nothing was written";
    }
    if (error.empty() && !existsSpecial) {
        // The temporary was made private (0600); the result gets the old file's
        // mode, or the usual one for a new file.
        mode_t mode = 0;
        if (::stat(outPath.c_str(), &st) == 0) {
            mode = st.st_mode & 07777;
        } else {
            const mode_t mask = ::umask(0);
            ::umask(mask);
            mode = 0666 & ~mask;
        }
        ::chmod(temp.c_str(), mode);
    }
    if (error.empty())
        error = syncFile(temp);
    if (error.empty() && existsSpecial)
        error = copyInto(temp, outPath);
    else if (error.empty() && std::rename(temp.c_str(), outPath.c_str()) != 0)
        error = errnoText("cannot replace the file", errno);
    else if (error.empty()) {
        gp::forgetTempFile(temp);
        return error; // renamed: nothing left to remove
    }
    std::remove(temp.c_str());
    gp::forgetTempFile(temp);
    return error;
}

ReportWriter makeHeadlessReportWriter(int argc, char** argv)
{
    return [argc, argv](const gp::Scenario& scenario, const gp::Catalog& catalog, const std::string& outPath,
                        const gp::Calibration* calibration) -> std::string {
        // Qt Charts are QGraphicsWidgets, so the report needs a QApplication (a
        // QGuiApplication is not enough); it is created only now, and offscreen
        // when nothing says which display to use.
        // Deliberately never destroyed: tearing a QApplication down during static
        // destruction (after main returns) crashes; the process is ending anyway.
        static int appArgc = 1;
        if (!QCoreApplication::instance()) {
            const bool platformSet = std::getenv("QT_QPA_PLATFORM") && *std::getenv("QT_QPA_PLATFORM");
            const bool display = (std::getenv("DISPLAY") && *std::getenv("DISPLAY")) ||
                                 (std::getenv("WAYLAND_DISPLAY") && *std::getenv("WAYLAND_DISPLAY"));
            if (!platformSet && !display)
                qputenv("QT_QPA_PLATFORM", "offscreen");
            appArgc = argc > 0 ? 1 : 0;
            new QApplication(appArgc, argv); // becomes QCoreApplication::instance()
            QCoreApplication::setOrganizationName(QStringLiteral("GPU Planner"));
            QCoreApplication::setApplicationName(QStringLiteral("GPU Planner"));
            useCNumbers(); // the report's numbers in one locale (issue 19)
        }
        // Throws InputError for unknown GPU ids; the CLI reports it as bad input.
        gp::EstimateOptions options;
        options.calibration = calibration;
        const gp::Estimate est = gp::estimate(scenario, catalog, options);
        ReportBuilder builder(scenario, est, catalog);
        builder.setCalibration(calibration, calibration ? QString::fromStdString(calibration->source) : QString());
        // The CLI never opens the desktop app's settings (opening them may set a
        // damaged file aside): the report shows the estimates' own currency, USD.
        builder.setCurrency(QStringLiteral("$"));
        return writeAllOrNothing(outPath, [&](const std::string& path) {
            return builder.write(QString::fromStdString(path)).toStdString();
        });
    };
}

} // namespace gp::ui
