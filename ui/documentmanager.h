#pragma once
#include "recentfiles.h"

#include <QObject>
#include <QString>

#include <functional>

class QWidget;

namespace gp::ui {

class ScenarioModel;
class SessionAutosave;
class Settings;

/// The scenario document of a window: its ScenarioModel and the file it belongs
/// to, New/Open/Save/Save As, the recent files, the unsaved-changes question and
/// the crash-recovery autosave. What the user should see comes out as signals
/// (message for the status bar) and through the injected reporters and prompts.
class DocumentManager final : public QObject
{
    Q_OBJECT
public:
    /// Shows a problem to the user; tests inject one that records instead of a modal box.
    using ErrorReporter = std::function<void(const QString& title, const QString& message)>;
    /// Asks whether to save unsaved changes: Save, Discard or Cancel (QMessageBox::StandardButton).
    using SavePrompt = std::function<int()>;
    /// Shows a notice that needs no answer.
    using Notifier = std::function<void(const QString& title, const QString& message)>;
    /// Asks whether to restore an autosaved session (described in the text): true = restore.
    using RecoveryPrompt = std::function<bool(const QString& description)>;
    /// The fields whose typed text is refused (the model keeps the last good
    /// value), each as "Label: “text” ... why"; set by the window from the form.
    using RefusedInputs = std::function<QStringList()>;

    /// window: the parent of the dialogs and of this object. The settings outlive it.
    DocumentManager(Settings& settings, QWidget* window);
    ~DocumentManager() override;

    ScenarioModel* model() const { return m_model; }
    SessionAutosave* autosave() const { return m_autosave; }
    const RecentFiles& recentFiles() const { return m_recent; }
    /// The scenario's file (absolute); "" while it was never saved.
    QString currentFile() const { return m_file; }
    /// The scenario has unsaved changes.
    bool isModified() const;
    /// Where file dialogs start: the scenario's folder, else the last one used.
    QString dialogDir() const;

    void setErrorReporter(ErrorReporter r) { m_reportError = std::move(r); }
    void setSavePrompt(SavePrompt p) { m_savePrompt = std::move(p); }
    void setNotifier(Notifier n) { m_notify = std::move(n); }
    void setRecoveryPrompt(RecoveryPrompt p) { m_recoveryPrompt = std::move(p); }
    void setRefusedInputs(RefusedInputs r) { m_refusedInputs = std::move(r); }

    /// Why the scenario cannot be saved now ("" when it can): a field shows text
    /// it refused (saving would write the last good value without a word), or
    /// the scenario breaks a rule, so the file would not open again. Names the
    /// fields by their labels.
    QString saveProblem() const;

    /// At start-up: when a session that did not exit cleanly left an autosave,
    /// offers to restore it (newest first). Restoring loads its scenario, marked
    /// modified, with its original file; declining renames the autosave to *.bak;
    /// an unreadable one is reported and renamed to *.corrupt-<timestamp>.
    /// Returns true when a session was restored.
    bool offerRecovery();
    /// Asks to save unsaved changes (the save prompt); false when the user cancels.
    bool maybeSave();

    /// File > New, Open..., Save, Save As... (the last three ask for a file).
    void newScenario();
    void open();
    bool save();
    bool saveAs();
    bool openFile(const QString& path);
    bool saveTo(const QString& path);
    void clearRecentFiles();

signals:
    /// The scenario's file changed (opened, saved as, new, restored).
    void fileChanged();
    void recentFilesChanged();
    /// A scenario was opened or restored: its estimate is wanted now.
    void scenarioLoaded();
    /// A line for the status bar, shown for timeoutMs.
    /// `tip`: what the status bar's tooltip shows meanwhile (the full path).
    void statusMessage(const QString& text, int timeoutMs, const QString& tip = {});

private:
    void sessionChanged();
    /// Reports saveProblem() and returns false when there is one.
    bool checkSavable();

    Settings& m_settings;
    QWidget* m_window;
    ScenarioModel* m_model;
    SessionAutosave* m_autosave;
    QString m_file;
    RecentFiles m_recent;
    ErrorReporter m_reportError;
    SavePrompt m_savePrompt;
    Notifier m_notify;
    RecoveryPrompt m_recoveryPrompt;
    RefusedInputs m_refusedInputs;
    QString m_lastAutosaveError;
};

} // namespace gp::ui
