#include "filewrite.h"

#include "core/engines/launch.h"
#include "core/base/tempfiles.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace gp::cli {

namespace {

std::string errnoText(const char* what, int e) { return std::string(what) + ": " + std::strerror(e); }

/// A write past the file-size limit (`ulimit -f`, RLIMIT_FSIZE) raises SIGXFSZ,
/// whose default action ends the process with the temporary file still there.
/// Ignored while a file is written, the write fails with EFBIG instead, and the
/// temporary is removed as on a full disk (ENOSPC). The previous action comes back
/// after.
class FileSizeSignalIgnored {
public:
    FileSizeSignalIgnored()
    {
        struct sigaction ignore {};
        ignore.sa_handler = SIG_IGN;
        sigemptyset(&ignore.sa_mask);
        m_saved = ::sigaction(SIGXFSZ, &ignore, &m_previous) == 0;
    }
    ~FileSizeSignalIgnored()
    {
        if (m_saved)
            ::sigaction(SIGXFSZ, &m_previous, nullptr);
    }
    FileSizeSignalIgnored(const FileSizeSignalIgnored&) = delete;
    FileSizeSignalIgnored& operator=(const FileSizeSignalIgnored&) = delete;

private:
    struct sigaction m_previous {};
    bool m_saved = false;
};

} // namespace

std::string writeTextFileAtomically(const std::string& path, const std::string& text)
{
    namespace fs = std::filesystem;
    struct stat st {};
    const bool exists = ::stat(path.c_str(), &st) == 0;
    if (exists && S_ISDIR(st.st_mode))
        return "is a directory";
    if (exists && !S_ISREG(st.st_mode))
        return "is not a regular file; refused";
    fs::path dir = fs::path(path).parent_path();
    if (dir.empty())
        dir = ".";
    const FileSizeSignalIgnored fileSizeSignal;
    // Registered: SIGINT/SIGTERM while it exists removes it (core/base/tempfiles.h).
    std::string temp = (dir / ".gpuplanner-XXXXXX.part").string();
    const int fd = createRegisteredTempFile(temp, 5);
    if (fd < 0)
        return errnoText("cannot create a temporary file beside it", errno);
    std::string error;
    std::size_t done = 0;
    while (error.empty() && done < text.size()) {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            error = errnoText("cannot write", n < 0 ? errno : EIO);
        else
            done += std::size_t(n);
    }
    if (error.empty()) {
        mode_t mode = 0;
        if (exists) {
            mode = st.st_mode & 07777;
        } else {
            const mode_t mask = ::umask(0);
            ::umask(mask);
            mode = 0666 & ~mask;
        }
        if (::fchmod(fd, mode) != 0)
            error = errnoText("cannot set the file mode", errno);
    }
    if (error.empty() && ::fsync(fd) != 0)
        error = errnoText("cannot sync", errno);
    if (::close(fd) != 0 && error.empty())
        error = errnoText("cannot close", errno);
    if (error.empty() && std::rename(temp.c_str(), path.c_str()) != 0)
        error = errnoText("cannot replace the file", errno);
    if (!error.empty())
        std::remove(temp.c_str());
    forgetTempFile(temp);
    return error;
}

std::string writeFilesIntoDir(const std::string& dir, const LaunchFiles& files)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    if (fs::exists(dir, ec) && !fs::is_directory(dir, ec))
        return dir + ": exists and is not a folder";
    fs::create_directories(dir, ec);
    if (ec)
        return dir + ": cannot create the folder: " + ec.message();
    for (const auto& f : files.files) {
        const std::string path = (fs::path(dir) / f.name).string();
        if (const std::string problem = writeTextFileAtomically(path, f.text); !problem.empty())
            return path + ": " + problem;
        if (f.executable) {
            fs::permissions(path, fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                            fs::perm_options::add, ec);
            if (ec)
                return path + ": cannot make it executable: " + ec.message();
        }
    }
    return std::string();
}

} // namespace gp::cli
