#include "sessionautosave.h"

#include "atomicfile.h"

#include "core/base/errors.h"
#include "core/base/jsonparse.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLockFile>
#include <QTimer>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>

namespace gp::ui {

namespace {

constexpr qint64 kMaxAutosaveBytes = 32 * 1024 * 1024;
const auto kFormat = "gpuplanner-autosave";

std::unique_ptr<QLockFile> lockFor(const QString& autosavePath)
{
    auto lock = std::make_unique<QLockFile>(autosavePath + QStringLiteral(".lock"));
    // Stale only when its process is gone, never by age: a session may run for days.
    lock->setStaleLockTime(0);
    return lock;
}

} // namespace

SessionAutosave::SessionAutosave(const QString& directory, QObject* parent)
    : QObject(parent)
    , m_dir(directory)
    , m_timer(new QTimer(this))
{
    m_timer->setSingleShot(true);
    m_timer->setInterval(kDelayMs);
    connect(m_timer, &QTimer::timeout, this, [this] { writeNow(); });
}

SessionAutosave::~SessionAutosave() = default; // the lock goes; the autosave stays unless discarded

int SessionAutosave::delayMs() const
{
    return m_timer->interval();
}

void SessionAutosave::setDelayMs(int ms)
{
    m_timer->setInterval(std::max(0, ms));
}

void SessionAutosave::schedule()
{
    // Throttle, not debounce: steady typing still gets written every delayMs.
    if (!m_dir.isEmpty() && !m_timer->isActive())
        m_timer->start();
}

bool SessionAutosave::isScheduled() const
{
    return m_timer->isActive();
}

QString SessionAutosave::ensureFile()
{
    if (!m_path.isEmpty())
        return {};
    if (!QDir().mkpath(m_dir))
        return tr("cannot create the folder %1").arg(QDir::toNativeSeparators(m_dir));
    static std::atomic<int> counter{0};
    const QString stem = QStringLiteral("session-%1-%2")
                             .arg(QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss")))
                             .arg(QCoreApplication::applicationPid());
    for (int attempt = 0; attempt < 100; ++attempt) {
        const QString path = QDir(m_dir).filePath(QStringLiteral("%1-%2.json").arg(stem).arg(++counter));
        if (QFileInfo::exists(path))
            continue;
        auto lock = lockFor(path);
        if (!lock->tryLock(0))
            continue;
        m_lock = std::move(lock);
        m_path = path;
        return {};
    }
    return tr("cannot create an autosave file in %1").arg(QDir::toNativeSeparators(m_dir));
}

QString SessionAutosave::writeNow()
{
    m_timer->stop();
    if (m_dir.isEmpty() || !m_source)
        return {};
    Session s = m_source();
    s.savedAt = QDateTime::currentDateTime();
    QString error = ensureFile();
    if (error.isEmpty()) {
        try {
            error = writeFileAtomically(m_path, serialize(s));
        } catch (const std::exception& e) {
            error = tr("cannot serialize the scenario: %1").arg(QString::fromUtf8(e.what()));
        }
    }
    if (error.isEmpty())
        emit written(m_path);
    else
        emit failed(error);
    return error;
}

void SessionAutosave::discard()
{
    m_timer->stop();
    if (!m_path.isEmpty())
        QFile::remove(m_path);
}

QStringList SessionAutosave::orphans() const
{
    if (m_dir.isEmpty())
        return {};
    const QFileInfoList files =
        QDir(m_dir).entryInfoList({QStringLiteral("session-*.json")}, QDir::Files, QDir::Time); // newest first
    QStringList out;
    for (const QFileInfo& f : files) {
        const QString path = f.absoluteFilePath();
        if (path == QFileInfo(m_path).absoluteFilePath())
            continue;
        // A running session holds its lock; a crashed one left a stale lock (or none).
        auto lock = lockFor(path);
        if (lock->tryLock(0)) {
            lock->unlock();
            out << path;
        }
    }
    return out;
}

QStringList SessionAutosave::claimOrphans()
{
    QStringList out;
    for (const QString& path : orphans()) {
        if (m_claimed.count(path))
            continue;
        // Between orphans() and here another starting instance may have taken it.
        auto lock = lockFor(path);
        if (!lock->tryLock(0))
            continue;
        m_claimed.emplace(path, std::move(lock));
        out << path;
    }
    return out;
}

void SessionAutosave::releaseOrphan(const QString& path)
{
    m_claimed.erase(path); // unlocks: the lock file goes
}

QByteArray SessionAutosave::serialize(const Session& s)
{
    // The scenario is embedded as the scenario format writes it (a JSON object),
    // so an autosave can also be opened by hand: copy out "scenario".
    const std::string scenario = gp::scenarioToJson(s.scenario);
    std::string text = "{\n";
    text += "  \"format\": \"" + std::string(kFormat) + "\",\n";
    text += "  \"version\": 1,\n";
    text += "  \"file\": " + nlohmann::json(s.file.toStdString()).dump() + ",\n";
    text += "  \"modified\": " + std::string(s.modified ? "true" : "false") + ",\n";
    text += "  \"saved_at\": " + nlohmann::json(s.savedAt.toString(Qt::ISODate).toStdString()).dump() + ",\n";
    text += "  \"scenario\": " + scenario + "\n}\n";
    return QByteArray::fromStdString(text);
}

SessionAutosave::Loaded SessionAutosave::load(const QString& path)
{
    Loaded out;
    QString error;
    const QByteArray bytes = readFileBounded(path, kMaxAutosaveBytes, &error);
    if (!error.isEmpty()) {
        out.error = tr("cannot open: %1").arg(error);
        return out;
    }
    nlohmann::json doc;
    try {
        // Depth-limited: the scenario is dumped (recursive) below; a file nested
        // 100,000 levels deep is refused here instead of crashing every start.
        doc = gp::parseJson(std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())),
                            std::string());
    } catch (const gp::InputError& e) {
        out.error = tr("not readable JSON: %1").arg(QString::fromStdString(gp::printable(e.problems().front().message)));
        return out;
    }
    if (!doc.is_object()) {
        out.error = tr("not a JSON object (the file is damaged or incomplete)");
        return out;
    }
    if (doc.value("format", std::string()) != kFormat || !doc.contains("scenario") || !doc["scenario"].is_object()) {
        out.error = tr("not a GPU Planner autosave (no \"format\": \"%1\" with a \"scenario\" object)")
                        .arg(QString::fromLatin1(kFormat));
        return out;
    }
    Session s;
    const auto file = doc.find("file");
    if (file != doc.end() && file->is_string()) {
        // A path, not a megabyte: the restore prompt and the title bar show it.
        constexpr std::size_t kMaxPathBytes = 4096;
        if (file->get_ref<const std::string&>().size() > kMaxPathBytes) {
            out.error = tr("its \"file\" is %1 bytes long; a file path is at most %2")
                            .arg(QString::number(file->get_ref<const std::string&>().size()),
                                 QString::number(kMaxPathBytes));
            return out;
        }
        s.file = QString::fromStdString(file->get<std::string>());
    }
    const auto modified = doc.find("modified");
    s.modified = modified == doc.end() || !modified->is_boolean() || modified->get<bool>();
    const auto at = doc.find("saved_at");
    if (at != doc.end() && at->is_string())
        s.savedAt = QDateTime::fromString(QString::fromStdString(at->get<std::string>()), Qt::ISODate);
    if (!s.savedAt.isValid())
        s.savedAt = QFileInfo(path).lastModified();
    try {
        // Range and cross-field problems do not stop a restore: the form shows them.
        gp::ParsedScenario parsed = gp::parseScenario(doc["scenario"].dump(), /*keepProblems=*/true);
        for (const auto& w : parsed.warnings)
            out.warnings << QString::fromStdString(w.text());
        s.scenario = std::move(parsed.scenario);
    } catch (const gp::InputError& e) {
        QStringList lines;
        for (const auto& d : e.problems())
            lines << QString::fromStdString(d.text());
        out.error = tr("the scenario in it is not valid:\n%1").arg(lines.join(QLatin1Char('\n')));
        return out;
    } catch (const std::exception& e) {
        out.error = QString::fromUtf8(e.what());
        return out;
    }
    out.session = std::move(s);
    return out;
}

} // namespace gp::ui
