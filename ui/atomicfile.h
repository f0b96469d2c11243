#pragma once
#include <QByteArray>
#include <QString>

#include <functional>

class QIODevice;

namespace gp::ui {

/// The most the app reads from any one file it is given (scenario, overlay, settings, config.json).
inline constexpr qint64 kMaxReadBytes = 16 * 1024 * 1024;

/// The one writer for every file the app writes. Writes `bytes` to a new temporary
/// file in the target's folder, checking every write, then fsync, close, checks the
/// size on disk, and renames it over `path`. On any failure the temporary file is
/// removed, the previous file stays byte for byte, and the reason is returned
/// ("" on success). (QSaveFile cannot be trusted for this on Qt 6.4: it buffers the
/// data, and when the buffer's write fails in commit(), e.g. ENOSPC, commit() still
/// renames the empty temporary file over the target and returns true.)
QString writeFileAtomically(const QString& path, const QByteArray& bytes);

/// For what Qt paints onto a device (PDF, PNG, SVG): `paint` writes into a memory
/// buffer and returns an error ("" when it went well); the bytes are then written
/// with writeFileAtomically().
QString writeFileAtomically(const QString& path, const std::function<QString(QIODevice&)>& paint);

/// Reads a whole file, refusing what is not a regular file (a FIFO, a device such as
/// /dev/zero, a folder) before reading anything, and files over maxBytes. Never blocks
/// on a FIFO. On failure returns {} and sets *error to the reason (the system's words
/// for open errors: "Permission denied", "Too many levels of symbolic links", ...);
/// *error is "" on success.
QByteArray readFileBounded(const QString& path, qint64 maxBytes, QString* error);

/// Whether `path` may be read: "" when it is a regular file of at most maxBytes, else
/// the reason (as readFileBounded says it). For files read by another reader (QSettings).
QString checkReadableFile(const QString& path, qint64 maxBytes);

namespace testhooks {
/// The steps of writeFileAtomically() a test can make fail.
enum class WriteStep { Open, Write, Sync, Close, Verify, Rename };
/// The next `count` calls of writeFileAtomically() fail at `step` as if the system
/// said `err` (errno, e.g. ENOSPC); a failing Write writes half the bytes first.
void failNextWrites(WriteStep step, int err, int count = 1);
/// Ends failNextWrites().
void clearWriteFaults();
} // namespace testhooks

} // namespace gp::ui
