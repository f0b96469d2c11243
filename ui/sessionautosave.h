#pragma once
#include "core/scenario/scenario.h"

#include <QDateTime>
#include <QObject>
#include <QString>
#include <QStringList>

#include <functional>
#include <map>
#include <memory>
#include <optional>

class QLockFile;
class QTimer;

namespace gp::ui {

/// Crash recovery. While the session has unsaved changes, it (the scenario, the
/// file it belongs to, whether it was modified) is written atomically to
/// "<dir>/session-<pid>-<n>.json" a short while after an edit: a burst of edits
/// is one write, at most kDelayMs after the first of them. A clean exit removes
/// the file. A lock file held while the session runs tells a running session's
/// autosave from one whose process ended without a clean exit: only those are
/// offered for recovery at the next start (orphans()), so two running windows
/// never take each other's autosave.
class SessionAutosave final : public QObject
{
    Q_OBJECT
public:
    static constexpr int kDelayMs = 2000;

    struct Session {
        gp::Scenario scenario;
        QString file;         // the scenario's file; "" when it was never saved
        bool modified = true; // unsaved changes
        QDateTime savedAt;    // when the autosave was written (local time)
    };
    struct Loaded {
        std::optional<Session> session; // unset when the autosave cannot be read
        QString error;                  // why not
        QStringList warnings;           // from the scenario parser (unknown keys, ...)
    };

    /// directory: where autosaves go (created on the first write); "" disables autosave.
    explicit SessionAutosave(const QString& directory, QObject* parent = nullptr);
    ~SessionAutosave() override;

    QString directory() const { return m_dir; }
    /// This session's autosave file ("" until the first write).
    QString path() const { return m_path; }
    int delayMs() const;
    void setDelayMs(int ms);
    /// What to write: asked for the current session when the timer fires.
    void setSource(std::function<Session()> source) { m_source = std::move(source); }

    /// Writes within delayMs() (an edit); does not postpone a write already due.
    void schedule();
    bool isScheduled() const;
    /// Writes now (also cancels a scheduled write). Returns an error, "" on success.
    QString writeNow();
    /// Removes this session's autosave and cancels a scheduled write (clean exit,
    /// or nothing left unsaved).
    void discard();

    /// Autosaves in directory() of sessions that are no longer running, newest first.
    QStringList orphans() const;
    /// orphans(), each now locked by this object until releaseOrphan() (or its end),
    /// so that of two instances started after a crash only one offers a given autosave.
    QStringList claimOrphans();
    /// Gives up the claim on an orphan (after it was restored, removed or set aside).
    void releaseOrphan(const QString& path);
    /// Reads an autosave (at most 32 MiB, a regular file); never throws.
    static Loaded load(const QString& path);
    /// The autosave document for a session (JSON, UTF-8).
    static QByteArray serialize(const Session& s);

signals:
    /// A write succeeded (path) or failed (error); for the status bar and tests.
    void written(const QString& path);
    void failed(const QString& error);

private:
    QString ensureFile();

    QString m_dir;
    QString m_path;
    std::unique_ptr<QLockFile> m_lock;
    std::map<QString, std::unique_ptr<QLockFile>> m_claimed; // orphans this instance is recovering
    QTimer* m_timer;
    std::function<Session()> m_source;
};

} // namespace gp::ui
