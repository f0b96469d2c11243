#pragma once
#include "charts/chartfactory.h"
#include "recentfiles.h"
#include "settings.h"

#include <QList>
#include <QMainWindow>
#include <QPair>
#include <QStringList>

#include <array>
#include <functional>
#include <memory>

class QAction;
class QLabel;
class QLineEdit;
class QMenu;
class QSortFilterProxyModel;
class QSplitter;
class QTabWidget;
class QTableView;
class QTextBrowser;

namespace gp::ui {

class ComparisonView;
class EstimateController;
class SessionAutosave;
class PlanController;
class PlannerPage;
class RentBuyPage;
class RulesPage;
class ResultsTableModel;
class ScenarioForm;
class ScenarioModel;

namespace charts {
class ChartPanel;
class ChartView;
}

class MainWindow final : public QMainWindow
{
    Q_OBJECT
public:
    /// Shows a problem to the user; tests inject one that records instead of a modal box.
    using ErrorReporter = std::function<void(const QString& title, const QString& message)>;
    /// Asks whether to save unsaved changes: Save, Discard or Cancel (QMessageBox::StandardButton).
    using SavePrompt = std::function<int()>;
    /// Shows a notice that needs no answer (a problem found at start-up); tests
    /// inject one that records. Default: a non-modal message box.
    using Notifier = std::function<void(const QString& title, const QString& message)>;
    /// Asks whether to restore an autosaved session (described in the text): true = restore.
    using RecoveryPrompt = std::function<bool(const QString& description)>;

    /// settings: nullptr = the application's QSettings.
    explicit MainWindow(std::unique_ptr<Settings> settings = nullptr, QWidget* parent = nullptr);
    ~MainWindow() override;

    void setErrorReporter(ErrorReporter r) { m_reportError = std::move(r); }
    void setSavePrompt(SavePrompt p) { m_savePrompt = std::move(p); }
    void setNotifier(Notifier n) { m_notify = std::move(n); }
    void setRecoveryPrompt(RecoveryPrompt p) { m_recoveryPrompt = std::move(p); }

    /// At start-up: when a session that did not exit cleanly left an autosave,
    /// offers to restore it (newest first). Restoring loads its scenario, marked
    /// modified, with its original file; declining renames the autosave to *.bak;
    /// an unreadable one is reported and renamed to *.corrupt-<timestamp>.
    /// Returns true when a session was restored.
    bool offerRecovery();
    /// Asks to save unsaved changes (the save prompt); false when the user cancels.
    bool maybeSave();
    SessionAutosave* autosave() const { return m_autosave; }
    /// Problems found at start-up (settings file, catalog overlay), as shown in the
    /// status bar and (once the event loop runs) as non-modal notices.
    const QStringList& startupProblems() const { return m_startupProblems; }

    bool openFile(const QString& path);
    bool saveTo(const QString& path);
    bool exportReport(const QString& path);
    bool exportCsv(const QString& path);
    QString currentFile() const { return m_file; }

    ScenarioModel* scenarioModel() const { return m_model; }
    EstimateController* controller() const { return m_controller; }
    ScenarioForm* form() const { return m_form; }
    ResultsTableModel* resultsModel() const { return m_results; }
    QSortFilterProxyModel* resultsProxy() const { return m_proxy; }
    QTableView* resultsView() const { return m_table; }
    charts::ChartPanel* chartPanel(charts::ChartKind kind) const;
    ComparisonView* comparison() const { return m_comparison; }
    /// The "why this number" panel, up to date (it is filled only while visible).
    QTextBrowser* explainView() const;
    const RecentFiles& recentFiles() const { return m_recent; }
    QTabWidget* tabs() const { return m_tabs; }
    PlanController* planController() const { return m_planController; }
    PlannerPage* plannerPage() const { return m_planner; }
    RentBuyPage* rentBuyPage() const { return m_rentBuy; }
    RulesPage* rulesPage() const { return m_rules; }

protected:
    void closeEvent(QCloseEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void restoreWindowLayout();
    void buildActions();
    void buildMenus();
    void updateViews();
    void updateTitle();
    void updateStatus();
    void updateRecentMenu();
    void showExplanation();
    void refreshExplanation();
    void sessionChanged();
    void showStartupProblems();
    /// Shows text in the status bar with each path shortened to its file name;
    /// `tip` (by default the full text, when it had paths) is the status bar's
    /// tooltip while the message is up.
    void showStatus(const QString& text, int timeoutMs, const QString& tip = {});
    void newScenario();
    void open();
    bool save();
    bool saveAs();
    void exportReportDialog();
    void exportCsvDialog();
    void saveChartDialog(charts::ChartKind kind);
    void saveChartViewDialog(charts::ChartView* view);
    void importHfConfigDialog();
    void openCatalogEditor();
    void openSettings();
    void about();
    void howEstimatesWork();
    void applyCurrency();
    QString dialogDir() const;

    std::unique_ptr<Settings> m_settings;
    ScenarioModel* m_model;
    EstimateController* m_controller;
    ScenarioForm* m_form = nullptr;
    ResultsTableModel* m_results = nullptr;
    QSortFilterProxyModel* m_proxy = nullptr;
    QTableView* m_table = nullptr;
    QLineEdit* m_filter = nullptr;
    QTextBrowser* m_explain = nullptr;
    QLabel* m_banner = nullptr;
    QLabel* m_recommendation = nullptr;
    QTabWidget* m_tabs = nullptr;
    QSplitter* m_splitter = nullptr;
    std::array<charts::ChartPanel*, charts::kChartKindCount> m_charts{};
    ComparisonView* m_comparison = nullptr;
    PlanController* m_planController = nullptr;
    PlannerPage* m_planner = nullptr;
    RentBuyPage* m_rentBuy = nullptr;
    RulesPage* m_rules = nullptr;
    QLabel* m_statusSummary = nullptr;
    QLabel* m_statusFits = nullptr;
    QMenu* m_recentMenu = nullptr;
    QMenu* m_viewMenu = nullptr;

    QAction* m_newAct = nullptr;
    QAction* m_openAct = nullptr;
    QAction* m_saveAct = nullptr;
    QAction* m_saveAsAct = nullptr;
    QAction* m_reportAct = nullptr;
    QAction* m_csvAct = nullptr;
    QAction* m_quitAct = nullptr;
    QAction* m_undoAct = nullptr;
    QAction* m_redoAct = nullptr;
    QAction* m_importAct = nullptr;
    QAction* m_catalogAct = nullptr;
    QAction* m_settingsAct = nullptr;

    QString m_file;
    QString m_sizedFor; // the header set the result columns were sized for
    QString m_currency = QStringLiteral("$");
    RecentFiles m_recent;
    ErrorReporter m_reportError;
    SavePrompt m_savePrompt;
    Notifier m_notify;
    RecoveryPrompt m_recoveryPrompt;
    SessionAutosave* m_autosave = nullptr;
    QString m_lastAutosaveError;
    QString m_statusWithTip; // the status message the status bar's tooltip belongs to
    QStringList m_startupProblems;
    QList<QPair<QString, QString>> m_pendingNotices; // title, message: shown once the event loop runs
    QString m_explainHtml;       // what the panel shows, to skip identical rebuilds
    bool m_explainDirty = false; // the selection or its numbers changed while the panel was hidden
    bool m_updatingViews = false;
};

} // namespace gp::ui
