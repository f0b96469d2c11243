#include "atomicfile.h"

#include <QBuffer>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QObject>
#include <QRandomGenerator>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace gp::ui {

namespace testhooks {
namespace {
struct Fault {
    WriteStep step = WriteStep::Open;
    int err = 0;
    int count = 0;
};
Fault g_fault;
} // namespace

void failNextWrites(WriteStep step, int err, int count)
{
    g_fault = Fault{step, err, count};
}

void clearWriteFaults()
{
    g_fault = Fault{};
}
} // namespace testhooks

namespace {

using testhooks::WriteStep;

QString systemError(int err)
{
    return QString::fromLocal8Bit(std::strerror(err));
}

QByteArray nativePath(const QString& path)
{
    return QFile::encodeName(QDir::toNativeSeparators(path));
}

/// Why a file of this type is refused, "" for a regular file.
QString notRegularReason(mode_t mode)
{
    if (S_ISREG(mode))
        return {};
    if (S_ISDIR(mode))
        return QObject::tr("it is a folder, not a file");
    if (S_ISFIFO(mode))
        return QObject::tr("it is a FIFO (named pipe), not a regular file");
    if (S_ISCHR(mode))
        return QObject::tr("it is a character device, not a regular file");
    if (S_ISBLK(mode))
        return QObject::tr("it is a block device, not a regular file");
    if (S_ISSOCK(mode))
        return QObject::tr("it is a socket, not a regular file");
    return QObject::tr("it is not a regular file");
}

QString tooLarge(qint64 size, qint64 maxBytes)
{
    return QObject::tr("it is larger than %1 MiB (%2 bytes); the files GPU Planner reads are small")
        .arg(maxBytes / (1024 * 1024))
        .arg(size);
}

/// One atomic write; `fault` is the injected failure (err 0: none).
class AtomicWrite
{
public:
    AtomicWrite(const QString& target, const testhooks::Fault& fault)
        : m_target(target)
        , m_fault(fault)
    {
    }
    ~AtomicWrite()
    {
        if (m_fd >= 0)
            ::close(m_fd);
        if (!m_temp.isEmpty())
            ::unlink(m_temp.constData());
    }
    AtomicWrite(const AtomicWrite&) = delete;
    AtomicWrite& operator=(const AtomicWrite&) = delete;

    QString run(const QByteArray& bytes);

private:
    /// errno of the step, or the injected one.
    int failed(WriteStep step, bool systemFailed) const
    {
        if (m_fault.err != 0 && m_fault.step == step)
            return m_fault.err;
        return systemFailed ? (errno != 0 ? errno : EIO) : 0;
    }

    QString m_target;
    testhooks::Fault m_fault;
    int m_fd = -1;
    QByteArray m_temp; // removed by the destructor unless renamed
};

QString AtomicWrite::run(const QByteArray& bytes)
{
    const QFileInfo info(m_target);
    const QString dir = info.absolutePath();
    // Permissions: the old file's, or what a new file gets (0666 less the umask).
    mode_t keepMode = 0;
    struct stat old {};
    if (::stat(nativePath(m_target).constData(), &old) == 0) {
        if (const QString why = notRegularReason(old.st_mode); !why.isEmpty())
            return why;
        keepMode = old.st_mode & 07777;
    }
    // The temporary file's name stays short: the target's name may be near NAME_MAX.
    const QString stem = QStringLiteral(".%1.").arg(info.fileName().left(40));
    int err = 0;
    for (int attempt = 0; attempt < 100 && m_fd < 0; ++attempt) {
        const QString name = stem + QString::number(QRandomGenerator::global()->generate(), 36) + QStringLiteral(".tmp");
        const QByteArray temp = nativePath(QDir(dir).filePath(name));
        errno = 0;
        const int fd = ::open(temp.constData(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0) {
            m_fd = fd;
            m_temp = temp;
        }
        err = failed(WriteStep::Open, fd < 0);
        if (err != 0 && err != EEXIST)
            break;
    }
    if (err != 0)
        return QObject::tr("cannot create a file in %1: %2").arg(QDir::toNativeSeparators(dir), systemError(err));
    if (keepMode != 0)
        ::fchmod(m_fd, keepMode);

    // Every write checked; a short write goes on from where it stopped.
    const char* data = bytes.constData();
    qint64 left = bytes.size();
    const bool injectWrite = m_fault.err != 0 && m_fault.step == WriteStep::Write;
    if (injectWrite)
        left /= 2; // half of it reaches the disk, then the disk is full
    while (left > 0) {
        errno = 0;
        const ssize_t n = ::write(m_fd, data, static_cast<size_t>(left));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return QObject::tr("cannot write the data: %1").arg(systemError(n < 0 && errno != 0 ? errno : ENOSPC));
        data += n;
        left -= n;
    }
    if (injectWrite)
        return QObject::tr("cannot write the data: %1").arg(systemError(m_fault.err));

    errno = 0;
    if ((err = failed(WriteStep::Sync, ::fsync(m_fd) != 0)) != 0)
        return QObject::tr("cannot flush the data to disk: %1").arg(systemError(err));
    struct stat written {};
    const bool statFailed = ::fstat(m_fd, &written) != 0;
    errno = 0;
    const int closeResult = ::close(m_fd);
    m_fd = -1;
    if ((err = failed(WriteStep::Close, closeResult != 0)) != 0)
        return QObject::tr("cannot close the file: %1").arg(systemError(err));
    const qint64 onDisk = statFailed ? -1 : static_cast<qint64>(written.st_size);
    const bool injectVerify = m_fault.err != 0 && m_fault.step == WriteStep::Verify;
    if (onDisk != bytes.size() || injectVerify)
        return QObject::tr("the file on disk has %1 bytes instead of %2")
            .arg(injectVerify ? onDisk / 2 : onDisk)
            .arg(bytes.size());

    if (m_fault.err != 0 && m_fault.step == WriteStep::Rename)
        err = m_fault.err; // the rename is not tried: the target stays as it is
    else if (::rename(m_temp.constData(), nativePath(m_target).constData()) != 0)
        err = errno != 0 ? errno : EIO;
    if (err != 0)
        return QObject::tr("cannot replace %1: %2").arg(QDir::toNativeSeparators(m_target), systemError(err));
    m_temp.clear();
    // The rename itself reaches the disk with the folder; the data already did.
    const int dirFd = ::open(nativePath(dir).constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dirFd >= 0) {
        ::fsync(dirFd);
        ::close(dirFd);
    }
    return {};
}

} // namespace

QString writeFileAtomically(const QString& path, const QByteArray& bytes)
{
    if (path.isEmpty())
        return QObject::tr("no file name");
    testhooks::Fault fault;
    if (testhooks::g_fault.count > 0) {
        fault = testhooks::g_fault;
        if (--testhooks::g_fault.count == 0)
            testhooks::clearWriteFaults();
    }
    // Through a symbolic link to the file it names, as an editor would.
    QString target = path;
    const QFileInfo info(path);
    if (info.isSymLink() && !info.canonicalFilePath().isEmpty())
        target = info.canonicalFilePath();
    AtomicWrite write(target, fault);
    return write.run(bytes);
}

QString writeFileAtomically(const QString& path, const std::function<QString(QIODevice&)>& paint)
{
    QByteArray bytes;
    {
        QBuffer buffer(&bytes);
        buffer.open(QIODevice::WriteOnly);
        if (const QString error = paint(buffer); !error.isEmpty())
            return error;
    }
    if (bytes.isEmpty())
        return QObject::tr("nothing was produced to write");
    return writeFileAtomically(path, bytes);
}

QString checkReadableFile(const QString& path, qint64 maxBytes)
{
    struct stat st {};
    if (::stat(nativePath(path).constData(), &st) != 0)
        return systemError(errno);
    if (const QString why = notRegularReason(st.st_mode); !why.isEmpty())
        return why;
    if (static_cast<qint64>(st.st_size) > maxBytes)
        return tooLarge(static_cast<qint64>(st.st_size), maxBytes);
    return {};
}

QByteArray readFileBounded(const QString& path, qint64 maxBytes, QString* error)
{
    QString dummy;
    QString& why = error ? *error : dummy;
    // Looked at before it is opened: a FIFO or /dev/zero is never read from.
    why = checkReadableFile(path, maxBytes);
    if (!why.isEmpty())
        return {};
    // O_NONBLOCK: should the file have become a FIFO since, open() does not wait for a writer.
    const int fd = ::open(nativePath(path).constData(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        why = systemError(errno);
        return {};
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !(why = notRegularReason(st.st_mode)).isEmpty()) {
        if (why.isEmpty())
            why = systemError(errno);
        ::close(fd);
        return {};
    }
    // At most maxBytes + 1: one more than allowed tells a file that grew since.
    QByteArray bytes;
    bytes.resize(static_cast<qsizetype>(std::min<qint64>(static_cast<qint64>(st.st_size), maxBytes) + 1));
    qint64 have = 0;
    while (true) {
        if (have == bytes.size()) {
            if (have > maxBytes)
                break;
            bytes.resize(static_cast<qsizetype>(std::min<qint64>(have * 2 + 4096, maxBytes + 1)));
        }
        const ssize_t n = ::read(fd, bytes.data() + have, static_cast<size_t>(bytes.size() - have));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            why = systemError(errno);
            ::close(fd);
            return {};
        }
        if (n == 0)
            break;
        have += n;
    }
    ::close(fd);
    if (have > maxBytes) {
        why = tooLarge(have, maxBytes);
        return {};
    }
    bytes.resize(static_cast<qsizetype>(have));
    return bytes;
}

} // namespace gp::ui
