#include "core/base/fileread.h"

#include "core/base/errors.h"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace gp {

namespace {

std::string reasonFor(int err)
{
    switch (err) {
    case ENOENT:
        return "no such file";
    case EACCES:
    case EPERM:
        return "permission denied";
    case ELOOP:
        return "too many levels of symbolic links (a symlink loop?)";
    case ENAMETOOLONG:
        return "file name too long";
    case ENOTDIR:
        return "a component of the path is not a directory";
    case EISDIR:
        return "is a directory, expected a file";
    default:
        return std::strerror(err);
    }
}

const char* kindOf(mode_t mode)
{
    if (S_ISFIFO(mode))
        return "a FIFO";
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISBLK(mode))
        return "a block device";
    if (S_ISSOCK(mode))
        return "a socket";
    return "not a file";
}

/// Refuses anything but a regular file, with what it is.
void requireRegular(const std::string& path, const struct stat& st)
{
    if (S_ISDIR(st.st_mode))
        throw InputError(path, "is a directory, expected a file");
    if (!S_ISREG(st.st_mode))
        throw InputError(path, std::string("not a regular file (") + kindOf(st.st_mode) + ")");
}

std::string tooLarge(std::size_t maxBytes)
{
    if (maxBytes >= (1u << 20) && maxBytes % (1u << 20) == 0)
        return "larger than " + std::to_string(maxBytes >> 20) + " MiB; refused";
    return "larger than " + std::to_string(maxBytes) + " bytes; refused";
}

struct Fd {
    int fd = -1;
    ~Fd()
    {
        if (fd >= 0)
            ::close(fd);
    }
};

} // namespace

std::string readTextFileBounded(const std::string& path, std::size_t maxBytes)
{
    if (path.empty())
        throw InputError(path, "no file name given");
    if (path.find('\0') != std::string::npos)
        throw InputError(path, "file name contains a NUL byte");
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0)
        throw InputError(path, reasonFor(errno));
    requireRegular(path, st); // before any open: opening a FIFO would block
    if (st.st_size > 0 && static_cast<unsigned long long>(st.st_size) > maxBytes)
        throw InputError(path, tooLarge(maxBytes));

    // O_NONBLOCK: if the path was swapped for a FIFO after the stat, open still returns.
    Fd f;
    f.fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (f.fd < 0)
        throw InputError(path, reasonFor(errno));
    if (::fstat(f.fd, &st) != 0)
        throw InputError(path, reasonFor(errno));
    requireRegular(path, st);

    std::string data;
    data.reserve(static_cast<std::size_t>(st.st_size));
    char buf[1 << 16];
    for (;;) {
        const ssize_t n = ::read(f.fd, buf, sizeof buf);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            throw InputError(path, "cannot be read: " + reasonFor(errno));
        }
        if (n == 0)
            break;
        data.append(buf, static_cast<std::size_t>(n));
        if (data.size() > maxBytes) // the file grew after the stat
            throw InputError(path, tooLarge(maxBytes));
    }
    if (const auto nul = data.find('\0'); nul != std::string::npos)
        throw InputError(path, "contains a NUL byte at offset " + std::to_string(nul) + "; not a text file");
    return data;
}

} // namespace gp
