#pragma once
#include "charts/chartfactory.h"
#include "settings.h"

#include <QList>
#include <QMainWindow>
#include <QPair>
#include <QStringList>

#include <functional>
#include <memory>

class QAction;
class QLabel;
class QMenu;
class QSplitter;
class QTabWidget;

namespace gp::ui {

class ComparisonView;
class DocumentManager;
class EstimateController;
class PlanController;
class PlannerPage;
class RentBuyPage;
class ResultsPage;
class RulesPage;
class ScenarioForm;

namespace charts {
class ChartView;
}

class MainWindow final : public QMainWindow
{
    Q_OBJECT
public:
    /// Shows a problem to the user; tests inject one that records instead of a modal box.
    using ErrorReporter = std::function<void(const QString& title, const QString& message)>;
    /// Shows a notice that needs no answer (a problem found at start-up); tests
    /// inject one that records. Default: a non-modal message box.
    using Notifier = std::function<void(const QString& title, const QString& message)>;

    /// settings: nullptr = the application's QSettings.
    explicit MainWindow(std::unique_ptr<Settings> settings = nullptr, QWidget* parent = nullptr);
    ~MainWindow() override;

    /// Also used by the document manager (open and save problems, autosave notices).
    void setErrorReporter(ErrorReporter r) { m_reportError = std::move(r); }
    void setNotifier(Notifier n) { m_notify = std::move(n); }

    /// Problems found at start-up (settings file, catalog overlay), as shown in the
    /// status bar and (once the event loop runs) as non-modal notices.
    const QStringList& startupProblems() const { return m_startupProblems; }

    bool exportReport(const QString& path);
    bool exportCsv(const QString& path);

    /// The status bar's "Calibration: ..." (the full path in its tooltip).
    QLabel* calibrationStatus() const { return m_statusCalibration; }

    /// The scenario, its file, recent files, autosave and unsaved-changes prompt.
    DocumentManager* documentManager() const { return m_docs; }
    /// The scenario form, left of the tabs.
    ScenarioForm* form() const { return m_form; }
    QTabWidget* tabs() const { return m_tabs; }
    /// The tabs' pages.
    ResultsPage* resultsPage() const { return m_resultsPage; }
    PlannerPage* plannerPage() const { return m_planner; }
    ComparisonView* comparison() const { return m_comparison; }
    RentBuyPage* rentBuyPage() const { return m_rentBuy; }
    RulesPage* rulesPage() const { return m_rules; }

protected:
    void closeEvent(QCloseEvent* event) override;
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
    void showStartupProblems();
    /// Shows text in the status bar with each path shortened to its file name;
    /// `tip` (by default the full text, when it had paths) is the status bar's
    /// tooltip while the message is up.
    void showStatus(const QString& text, int timeoutMs, const QString& tip = {});
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
    /// Loads the calibration file the settings name (start-up); a bad one is reported and the built-in used.
    void loadCalibrationSetting();
    void updateCalibrationStatus();

    std::unique_ptr<Settings> m_settings;
    DocumentManager* m_docs;
    EstimateController* m_controller;
    ScenarioForm* m_form = nullptr;
    ResultsPage* m_resultsPage = nullptr;
    QTabWidget* m_tabs = nullptr;
    QSplitter* m_splitter = nullptr;
    ComparisonView* m_comparison = nullptr;
    PlanController* m_planController = nullptr;
    PlannerPage* m_planner = nullptr;
    RentBuyPage* m_rentBuy = nullptr;
    RulesPage* m_rules = nullptr;
    QLabel* m_statusSummary = nullptr;
    QLabel* m_statusFits = nullptr;
    QLabel* m_statusCalibration = nullptr;
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

    QString m_currency = QStringLiteral("$");
    ErrorReporter m_reportError;
    Notifier m_notify;
    QString m_statusWithTip; // the status message the status bar's tooltip belongs to
    QStringList m_startupProblems;
    QList<QPair<QString, QString>> m_pendingNotices; // title, message: shown once the event loop runs
};

} // namespace gp::ui
