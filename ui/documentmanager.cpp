#include "documentmanager.h"

#include "atomicfile.h"
#include "scenariofile.h"
#include "scenariomodel.h"
#include "sessionautosave.h"
#include "settings.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QLocale>
#include <QMessageBox>
#include <QPushButton>
#include <QUndoStack>
#include <QWidget>

namespace gp::ui {

DocumentManager::DocumentManager(Settings& settings, QWidget* window)
    : QObject(window)
    , m_settings(settings)
    , m_window(window)
    , m_model(new ScenarioModel(this))
    , m_autosave(new SessionAutosave(settings.autosaveDirectory(), this))
{
    m_savePrompt = [this] {
        return static_cast<int>(QMessageBox::warning(
            m_window, tr("Unsaved changes"), tr("The scenario has unsaved changes. Save them?"),
            QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save));
    };
    m_recoveryPrompt = [this](const QString& description) {
        QMessageBox box(QMessageBox::Question, tr("Restore the last session?"), description, QMessageBox::NoButton,
                        m_window);
        auto* restore = box.addButton(tr("&Restore"), QMessageBox::AcceptRole);
        box.addButton(tr("&Don't restore"), QMessageBox::RejectRole);
        box.setDefaultButton(restore);
        box.exec();
        return box.clickedButton() == restore;
    };
    m_reportError = [this](const QString& title, const QString& text) { QMessageBox::warning(m_window, title, text); };
    m_notify = m_reportError;

    // Crash recovery: the session is autosaved while it has unsaved changes.
    m_autosave->setSource([this] {
        return SessionAutosave::Session{m_model->scenario(), m_file, !m_model->undoStack()->isClean(), {}};
    });
    connect(m_autosave, &SessionAutosave::written, this, [this] { m_lastAutosaveError.clear(); });
    connect(m_autosave, &SessionAutosave::failed, this, [this](const QString& error) {
        if (error == m_lastAutosaveError)
            return; // said once is enough; it is tried again after the next edit
        m_lastAutosaveError = error;
        emit statusMessage(tr("Autosave failed: %1").arg(error), 15000);
    });
    connect(m_model, &ScenarioModel::changed, this, &DocumentManager::sessionChanged);
    connect(m_model->undoStack(), &QUndoStack::cleanChanged, this, &DocumentManager::sessionChanged);

    m_recent.setFiles(m_settings.recentFiles());
}

DocumentManager::~DocumentManager()
{
    // The model and the autosave go after this body: what they emit then must
    // not reach this object's slots.
    const auto children = findChildren<QObject*>();
    for (QObject* child : children)
        QObject::disconnect(child, nullptr, this, nullptr);
}

bool DocumentManager::isModified() const
{
    return !m_model->undoStack()->isClean();
}

void DocumentManager::clearRecentFiles()
{
    m_recent.clear();
    m_settings.setRecentFiles({});
    emit recentFilesChanged();
}

QString DocumentManager::dialogDir() const
{
    if (!m_file.isEmpty())
        return QFileInfo(m_file).absolutePath();
    const QString d = m_settings.lastDirectory();
    return d.isEmpty() ? QDir::homePath() : d;
}

void DocumentManager::sessionChanged()
{
    // Autosave only what could be lost: a clean session is all in its file.
    if (m_model->undoStack()->isClean())
        m_autosave->discard();
    else
        m_autosave->schedule();
}

bool DocumentManager::offerRecovery()
{
    // Claimed (locked) for as long as this window handles them: a second instance
    // started after the same crash does not offer them too.
    const QStringList orphans = m_autosave->claimOrphans(); // newest first
    const auto keepAsBak = [this](const QString& path) {
        const QString bak = setFileAside(path, QStringLiteral("bak"));
        m_autosave->releaseOrphan(path);
        return QDir::toNativeSeparators(bak.isEmpty() ? path : bak);
    };
    bool restored = false;
    QStringList setAside;
    for (const QString& path : orphans) {
        if (restored) {
            setAside << keepAsBak(path); // one session per window; keep the others for the user
            continue;
        }
        const SessionAutosave::Loaded loaded = SessionAutosave::load(path);
        if (!loaded.session) {
            QString error;
            const QString aside = setFileAside(path, corruptTag(), &error);
            m_autosave->releaseOrphan(path);
            const QString where = aside.isEmpty() ? tr("It could not be moved aside (%1).").arg(error)
                                                  : tr("It was kept as %1.").arg(QDir::toNativeSeparators(aside));
            emit statusMessage(tr("An autosaved session could not be restored; see the notice."), 15000);
            m_notify(tr("Autosave not restored"), tr("An autosaved session (%1) cannot be restored: %2\n%3")
                                                      .arg(QDir::toNativeSeparators(path), loaded.error, where));
            continue;
        }
        const SessionAutosave::Session& session = *loaded.session;
        const QString savedAt = QLocale().toString(session.savedAt, QLocale::ShortFormat);
        // Elided: the prompt lays its text out whole, and a long name or path would freeze it.
        const auto shown = [](const QString& s) { return s.size() > 120 ? s.left(117) + QStringLiteral("...") : s; };
        const QString what =
            session.file.isEmpty()
                ? tr("an untitled scenario (“%1”)").arg(shown(QString::fromStdString(session.scenario.name)).toHtmlEscaped())
                : tr("“%1”").arg(shown(QDir::toNativeSeparators(session.file)).toHtmlEscaped());
        const QString description =
            tr("<p>GPU Planner did not exit cleanly last time. Your unsaved changes to %1 were autosaved at %2.</p>"
               "<p>Restore them? If not, the autosave is kept as a .bak file in %3.</p>")
                .arg(what, savedAt, QDir::toNativeSeparators(QFileInfo(path).absolutePath()).toHtmlEscaped());
        if (!m_recoveryPrompt(description)) {
            emit statusMessage(tr("Autosave not restored; kept as %1").arg(keepAsBak(path)), 10000);
            continue;
        }
        m_model->resetScenario(session.scenario);
        m_file = session.file.isEmpty() ? QString() : QFileInfo(session.file).absoluteFilePath();
        m_model->undoStack()->resetClean(); // unsaved: closing asks to save
        emit fileChanged();
        emit scenarioLoaded();
        // This session's own autosave holds it from now on; the old one goes only then.
        if (m_autosave->writeNow().isEmpty()) {
            QFile::remove(path);
            m_autosave->releaseOrphan(path);
        } else {
            keepAsBak(path);
        }
        restored = true;
        if (!m_model->isValid()) // restored as it was; the form marks what to fix
            m_notify(tr("Autosave restored with problems"),
                     tr("The session autosaved at %1 is restored as it was. Fix these before saving (the fields are "
                        "marked):\n%2")
                         .arg(savedAt, m_model->problemTexts().join(QLatin1Char('\n'))));
        QString message = tr("Restored the session autosaved at %1.").arg(savedAt);
        if (!loaded.warnings.isEmpty())
            message += QLatin1Char(' ') + tr("Warnings: %1").arg(loaded.warnings.join(QStringLiteral("; ")));
        emit statusMessage(message, 15000);
    }
    if (!setAside.isEmpty())
        emit statusMessage(
            tr("Restored the newest autosaved session; older ones kept as %1").arg(setAside.join(QStringLiteral(", "))),
            15000);
    return restored;
}

bool DocumentManager::maybeSave()
{
    if (m_model->undoStack()->isClean())
        return true;
    switch (m_savePrompt()) {
    case QMessageBox::Save: return save();
    case QMessageBox::Discard: return true;
    default: return false;
    }
}

void DocumentManager::newScenario()
{
    if (!maybeSave())
        return;
    m_file.clear();
    m_model->resetScenario(m_settings.newScenario());
    emit fileChanged();
}

void DocumentManager::open()
{
    if (!maybeSave())
        return;
    const QString path = QFileDialog::getOpenFileName(m_window, tr("Open scenario"), dialogDir(),
                                                      tr("GPU Planner scenarios (*.gpuplan.json *.json);;All files (*)"));
    if (!path.isEmpty())
        openFile(path);
}

bool DocumentManager::openFile(const QString& path)
{
    const LoadedScenario loaded = loadScenarioFile(path);
    if (!loaded.scenario) {
        // The current scenario and its edits stay as they are.
        m_reportError(tr("Cannot open scenario"), tr("%1:\n%2").arg(QDir::toNativeSeparators(path), loaded.error));
        if (!QFileInfo::exists(path) && !QFileInfo(path).isSymLink()) { // gone, not unreadable
            m_recent.remove(path);
            m_settings.setRecentFiles(m_recent.files());
            emit recentFilesChanged();
        }
        return false;
    }
    m_model->resetScenario(*loaded.scenario);
    m_file = QFileInfo(path).absoluteFilePath();
    m_settings.setLastDirectory(QFileInfo(path).absolutePath());
    m_recent.add(m_file);
    m_settings.setRecentFiles(m_recent.files());
    emit recentFilesChanged();
    emit fileChanged();
    emit scenarioLoaded();
    if (!loaded.warnings.isEmpty())
        emit statusMessage(tr("Opened with warnings: %1").arg(loaded.warnings.join(QStringLiteral("; "))), 15000);
    else
        emit statusMessage(tr("Opened %1").arg(QFileInfo(m_file).fileName()), 5000, QDir::toNativeSeparators(m_file));
    return true;
}

QString DocumentManager::saveProblem() const
{
    const QStringList refused = m_refusedInputs ? m_refusedInputs() : QStringList();
    if (!refused.isEmpty())
        return tr("A field holds a value it refused; the scenario still has the last good value there, and saving "
                  "would write that without a word. Correct the field, then "
                  "save:\n%1")
            .arg(refused.join(QLatin1Char('\n')));
    if (!m_model->isValid())
        return tr("The scenario breaks these rules, so the file would not open again. Fix them (the fields are "
                  "marked), then save:\n%1")
            .arg(m_model->problemTexts().join(QLatin1Char('\n')));
    return QString();
}

bool DocumentManager::checkSavable()
{
    const QString problem = saveProblem();
    if (problem.isEmpty())
        return true;
    emit statusMessage(tr("Not saved: %1").arg(problem.section(QLatin1Char('\n'), 1, 1)), 15000);
    m_reportError(tr("Cannot save scenario"), problem);
    return false;
}

bool DocumentManager::save()
{
    if (!checkSavable())
        return false;
    if (m_file.isEmpty())
        return saveAs();
    return saveTo(m_file);
}

bool DocumentManager::saveAs()
{
    if (!checkSavable())
        return false;
    QString suggested = m_file;
    if (suggested.isEmpty())
        suggested = QDir(dialogDir()).filePath(m_model->fileNameStem() + QStringLiteral(".gpuplan.json"));
    QString path = QFileDialog::getSaveFileName(m_window, tr("Save scenario as"), suggested, tr("GPU Planner scenarios (*.gpuplan.json)"));
    if (path.isEmpty())
        return false;
    if (!path.endsWith(QLatin1String(".json"), Qt::CaseInsensitive))
        path += QStringLiteral(".gpuplan.json");
    return saveTo(path);
}

bool DocumentManager::saveTo(const QString& path)
{
    if (!checkSavable())
        return false;
    const QString error = saveScenarioFile(m_model->scenario(), path);
    if (!error.isEmpty()) {
        // The atomic writer left the old file as it was; the edits stay in memory,
        // marked modified (the title keeps its "*", Quit asks) and in the autosave.
        emit statusMessage(tr("Save failed: %1").arg(error), 15000);
        m_reportError(tr("Cannot save scenario"), tr("%1:\n%2\n\nYour changes are kept; try another location.")
                                                      .arg(QDir::toNativeSeparators(path), error));
        return false;
    }
    m_file = QFileInfo(path).absoluteFilePath();
    m_settings.setLastDirectory(QFileInfo(path).absolutePath());
    m_model->undoStack()->setClean();
    m_recent.add(m_file);
    m_settings.setRecentFiles(m_recent.files());
    emit recentFilesChanged();
    emit fileChanged();
    emit statusMessage(tr("Saved %1").arg(QFileInfo(m_file).fileName()), 5000, QDir::toNativeSeparators(m_file));
    return true;
}

} // namespace gp::ui
