#include "mainwindow.h"

#include "atomicfile.h"
#include "calibrationfile.h"
#include "catalogoverlay.h"
#include "comparisonview.h"
#include "documentmanager.h"
#include "estimatecontroller.h"
#include "format.h"
#include "plancontroller.h"
#include "plannerpage.h"
#include "rentbuypage.h"
#include "reportbuilder.h"
#include "resultspage.h"
#include "rulespage.h"
#include "scenarioform.h"
#include "scenariomodel.h"
#include "sessionautosave.h"
#include "settings.h"
#include "windowgeometry.h"

#include "charts/chartpanel.h"
#include "charts/plannercharts.h"

#include "core/estimate/estimate.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QFileInfo>
#include <QLabel>
#include <QMessageBox>
#include <QMimeData>
#include <QPushButton>
#include <QScreen>
#include <QStyle>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTimer>
#include <QUndoStack>

#include <nlohmann/json.hpp>

#include <utility>

// Resources compiled into a static library need an explicit init (outside any namespace).
static void initUiResources()
{
    Q_INIT_RESOURCE(resources);
}

namespace gp::ui {

MainWindow::MainWindow(std::unique_ptr<Settings> settings, QWidget* parent)
    : QMainWindow(parent)
    , m_settings(settings ? std::move(settings) : std::make_unique<Settings>())
    , m_docs(new DocumentManager(*m_settings, this))
    , m_controller(new EstimateController(m_docs->model(), this))
{
    initUiResources();
    useCNumbers(); // the core's text and the UI's numbers in one locale
    setWindowIcon(QIcon(QStringLiteral(":/icons/gpuplanner.svg")));
    setAcceptDrops(true);
    m_currency = m_settings->currencySymbol();
    m_reportError = [this](const QString& title, const QString& message) {
        QMessageBox::warning(this, title, message);
    };
    m_notify = [this](const QString& title, const QString& message) {
        // Non-modal: start-up goes on, the notice stays until read.
        auto* box = new QMessageBox(QMessageBox::Warning, title, message, QMessageBox::Ok, this);
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->setModal(false);
        box->show();
    };
    // The window's reporters, also when a test replaces them.
    m_docs->setErrorReporter([this](const QString& title, const QString& message) { m_reportError(title, message); });
    m_docs->setNotifier([this](const QString& title, const QString& message) { m_notify(title, message); });
    connect(m_docs, &DocumentManager::statusMessage, this,
            [this](const QString& text, int timeoutMs, const QString& tip) { showStatus(text, timeoutMs, tip); });
    connect(m_docs, &DocumentManager::fileChanged, this, &MainWindow::updateTitle);
    connect(m_docs, &DocumentManager::recentFilesChanged, this, &MainWindow::updateRecentMenu);
    connect(m_docs, &DocumentManager::scenarioLoaded, this, [this] { m_controller->recomputeNow(); });

    m_form = new ScenarioForm(m_docs->model(), this);
    m_form->setMinimumWidth(350); // its fields fit without scrolling sideways; the window fits 1024x600 and 1.5x scaling
    connect(m_form, &ScenarioForm::errorOccurred, this, [this](const QString& t, const QString& m) { m_reportError(t, m); });
    connect(m_form, &ScenarioForm::importRequested, this, &MainWindow::importHfConfigDialog);
    m_docs->setRefusedInputs([this] { return m_form->refusedInputs(); });

    m_resultsPage = new ResultsPage(m_controller);

    m_planController = new PlanController(m_docs->model(), m_controller, this);
    m_planner = new PlannerPage(m_docs->model(), m_planController);
    connect(m_planner, &PlannerPage::message, this, [this](const QString& text) { showStatus(text, 10000); });
    connect(m_planner->chartView(), &charts::ChartView::saveRequested, this,
            [this] { saveChartViewDialog(m_planner->chartView()); });
    m_rentBuy = new RentBuyPage(m_docs->model(), m_controller);
    connect(m_rentBuy->chartView(), &charts::ChartView::saveRequested, this,
            [this] { saveChartViewDialog(m_rentBuy->chartView()); });
    m_rules = new RulesPage;
    m_planner->setCurrency(m_currency);
    m_rentBuy->setCurrency(m_currency);

    m_tabs = new QTabWidget;
    m_tabs->setDocumentMode(true);
    m_tabs->setUsesScrollButtons(true);
    m_tabs->addTab(m_resultsPage, tr("&Results"));
    m_tabs->addTab(m_planner, tr("P&lanner"));
    const char* const names[] = {QT_TR_NOOP("&Memory"), QT_TR_NOOP("T&hroughput"), QT_TR_NOOP("C&ost"),
                                 QT_TR_NOOP("Cost vs &time")};
    for (int k = 0; k < charts::kChartKindCount; ++k) {
        auto* panel = m_resultsPage->chartPanel(static_cast<charts::ChartKind>(k));
        connect(panel, &charts::ChartPanel::saveRequested, this, &MainWindow::saveChartDialog);
        m_tabs->addTab(panel, tr(names[k]));
    }
    m_comparison = new ComparisonView;
    m_comparison->setExplainer([this](std::size_t i) { return m_controller->explainedResult(i); });
    m_tabs->addTab(m_comparison, tr("Com&pare"));
    m_tabs->addTab(m_rentBuy, tr("Rent vs &buy"));
    m_tabs->addTab(m_rules, tr("R&ules of thumb"));

    m_splitter = new QSplitter(Qt::Horizontal);
    m_splitter->addWidget(m_form);
    m_splitter->addWidget(m_tabs);
    m_splitter->setStretchFactor(0, 0);
    m_splitter->setStretchFactor(1, 1);
    m_splitter->setChildrenCollapsible(false);
    setCentralWidget(m_splitter);

    m_statusSummary = new QLabel;
    // The summary is long: it is cut at the window's edge (whole in its tooltip)
    // instead of making the window as wide as the text.
    m_statusSummary->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_statusSummary->setMinimumWidth(0);
    m_statusFits = new QLabel;
    m_statusCalibration = new QLabel;
    statusBar()->addWidget(m_statusSummary, 1);
    statusBar()->addPermanentWidget(m_statusCalibration);
    statusBar()->addPermanentWidget(m_statusFits);
    connect(statusBar(), &QStatusBar::messageChanged, this, [this](const QString& message) {
        if (message != m_statusWithTip) // cleared, timed out or replaced: its tooltip goes with it
            statusBar()->setToolTip(QString());
    });

    buildActions();
    buildMenus();

    connect(m_controller, &EstimateController::estimateChanged, this, &MainWindow::updateViews);
    connect(m_controller, &EstimateController::calibrationChanged, this, &MainWindow::updateCalibrationStatus);
    connect(m_docs->model()->undoStack(), &QUndoStack::cleanChanged, this, &MainWindow::updateTitle);
    connect(m_docs->model(), &ScenarioModel::changed, this, &MainWindow::updateTitle);

    // Start whatever state the settings and the catalog overlay are in: a bad
    // file is set aside (renamed, not deleted) and reported, never fatal.
    for (const auto& p : m_settings->loadProblems())
        m_pendingNotices.append({tr("Settings file"), p});
    const UserCatalog userCatalog = loadUserCatalog(/*setAsideBad=*/true);
    for (const auto& p : userCatalog.problems)
        m_pendingNotices.append({tr("Catalog overlay"), p});
    m_controller->setCatalog(userCatalog.catalog);
    loadCalibrationSetting();
    updateCalibrationStatus();
    m_form->setCatalog(m_controller->catalog());
    m_docs->model()->resetScenario(m_settings->newScenario());
    m_controller->recomputeNow();
    m_comparison->setCatalog(m_controller->catalog());
    connect(m_controller, &EstimateController::catalogChanged, this,
            [this] { m_comparison->setCatalog(m_controller->catalog()); });
    for (const auto& n : std::as_const(m_pendingNotices))
        m_startupProblems << n.second;
    if (!m_startupProblems.isEmpty()) {
        // The notice names the files in full; the status bar only their names.
        showStatus(m_startupProblems.join(QLatin1Char(' ')).replace(QLatin1Char('\n'), QLatin1Char(' ')), 30000);
        // Non-modal notices once the window is up (and a test has put in its notifier).
        QTimer::singleShot(0, this, &MainWindow::showStartupProblems);
    }

    updateRecentMenu();
    restoreWindowLayout();
    updateTitle();
}

MainWindow::~MainWindow()
{
    // The child widgets are destroyed after this body, inside ~QWidget, when this
    // object is no longer a MainWindow: a signal they emit then (a tab or
    // selection change) must not reach MainWindow's slots (UBSan: bad downcast).
    const auto children = findChildren<QObject*>();
    for (QObject* child : children)
        QObject::disconnect(child, nullptr, this, nullptr);
}

void MainWindow::restoreWindowLayout()
{
    // First the size that fits this screen, then the stored geometry when it is
    // sane (Settings set an absurd one aside), kept on a visible screen.
    const QScreen* primary = QGuiApplication::primaryScreen();
    const QRect available = primary ? primary->availableGeometry() : QRect(0, 0, 1366, 768);
    const QRect first = initialWindowGeometry(available);
    setGeometry(first);
    const QByteArray stored = m_settings->windowGeometry();
    if (storedWindowGeometry(stored) && restoreGeometry(stored) && !isMaximized() && !isFullScreen()) {
        const QScreen* on = QGuiApplication::screenAt(geometry().center());
        setGeometry(clampToArea(geometry(), on ? on->availableGeometry() : available));
    }
    restoreState(m_settings->windowState());
    const auto sizes = storedSplitterSizes(m_settings->splitterState(), kMainSplitterPanes);
    if (sizes && std::all_of(sizes->begin(), sizes->end(), [](int v) { return v > 0; }))
        m_splitter->setSizes(*sizes);
    else {
        // The form as wide as its fields want (600) where the tabs keep 500 px, at least 350.
        const int form = std::clamp(first.width() - 500, 350, 600);
        m_splitter->setSizes({form, first.width() - form});
    }
}

void MainWindow::updateViews()
{
    m_resultsPage->showEstimate();
    m_comparison->setEstimate(m_controller->estimate());
    updateStatus();
}

void MainWindow::updateStatus()
{
    const auto& e = m_controller->estimate();
    const auto& s = m_docs->model()->scenario();
    m_statusSummary->setText(scenarioSummary(s));
    m_statusSummary->setToolTip(m_statusSummary->text());
    const int fit = static_cast<int>(std::count_if(e.results.begin(), e.results.end(), [](const auto& r) { return r.fits; }));
    m_statusFits->setText(tr("%1 of %2 GPUs fit").arg(fit).arg(e.results.size()));
}

void MainWindow::updateTitle()
{
    const QString name = m_docs->currentFile().isEmpty() ? tr("Untitled") : QFileInfo(m_docs->currentFile()).fileName();
    setWindowTitle(QStringLiteral("%1[*] — GPU Planner").arg(name));
    setWindowModified(m_docs->isModified());
}

void MainWindow::showStartupProblems()
{
    const auto notices = std::exchange(m_pendingNotices, {});
    for (const auto& [title, message] : notices)
        m_notify(title, message);
}

void MainWindow::showStatus(const QString& text, int timeoutMs, const QString& tip)
{
    const QString shown = withoutDirectories(text);
    m_statusWithTip = shown;
    statusBar()->setToolTip(!tip.isEmpty() ? tip : shown != text ? text : QString());
    statusBar()->showMessage(shown, timeoutMs);
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    if (!m_docs->maybeSave()) {
        event->ignore();
        return;
    }
    m_settings->setWindowGeometry(saveGeometry());
    m_settings->setWindowState(saveState());
    m_settings->setSplitterState(m_splitter->saveState());
    m_settings->sync();
    // A clean exit: the unsaved-changes question was answered, nothing to recover.
    m_docs->autosave()->discard();
    event->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event)
{
    if (event->mimeData()->hasUrls()) {
        for (const auto& u : event->mimeData()->urls())
            if (u.isLocalFile() && u.toLocalFile().endsWith(QLatin1String(".json"), Qt::CaseInsensitive)) {
                event->acceptProposedAction();
                return;
            }
    }
}

void MainWindow::dropEvent(QDropEvent* event)
{
    for (const auto& u : event->mimeData()->urls()) {
        if (!u.isLocalFile())
            continue;
        const QString path = u.toLocalFile();
        // A scenario file opens; anything else is read as a Hugging Face config.json.
        bool scenario = path.endsWith(QLatin1String(".gpuplan.json"), Qt::CaseInsensitive);
        if (!scenario) {
            QString error; // reported by whichever reader gets it
            const QByteArray bytes = readFileBounded(path, kMaxReadBytes, &error);
            const auto j = nlohmann::json::parse(bytes.constData(), bytes.constData() + bytes.size(), nullptr, false);
            scenario = j.is_object() && j.value("format", std::string()) == "gpuplanner-scenario";
        }
        if (scenario) {
            if (m_docs->maybeSave())
                m_docs->openFile(path);
        } else {
            m_form->importHfConfig(path);
        }
        event->acceptProposedAction();
        return;
    }
}

} // namespace gp::ui
