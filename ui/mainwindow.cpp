#include "mainwindow.h"
#include "launchdialog.h"

#include "atomicfile.h"
#include "calibrationfile.h"
#include "catalogeditor.h"
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
#include "settingsdialog.h"
#include "windowgeometry.h"

#include "charts/chartpanel.h"
#include "charts/plannercharts.h"

#include "core/estimate.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPushButton>
#include <QScreen>
#include <QStyle>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTimer>
#include <QToolBar>
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
    m_form->setMinimumWidth(460); // it scrolls; room for the tabs on a 1366x768 screen
    connect(m_form, &ScenarioForm::errorOccurred, this, [this](const QString& t, const QString& m) { m_reportError(t, m); });
    connect(m_form, &ScenarioForm::importRequested, this, &MainWindow::importHfConfigDialog);

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
        // The form as wide as its fields want (600) where the tabs keep 700 px.
        const int form = std::clamp(first.width() - 700, 460, 600);
        m_splitter->setSizes({form, first.width() - form});
    }
}

void MainWindow::buildActions()
{
    auto icon = [](const char* name, QStyle::StandardPixmap fallback) {
        return QIcon::fromTheme(QString::fromLatin1(name), QApplication::style()->standardIcon(fallback));
    };
    m_newAct = new QAction(icon("document-new", QStyle::SP_FileIcon), tr("&New"), this);
    m_newAct->setShortcut(QKeySequence::New);
    m_newAct->setToolTip(tr("Start a new scenario from the defaults"));
    connect(m_newAct, &QAction::triggered, m_docs, &DocumentManager::newScenario);
    m_openAct = new QAction(icon("document-open", QStyle::SP_DialogOpenButton), tr("&Open..."), this);
    m_openAct->setShortcut(QKeySequence::Open);
    connect(m_openAct, &QAction::triggered, m_docs, &DocumentManager::open);
    m_saveAct = new QAction(icon("document-save", QStyle::SP_DialogSaveButton), tr("&Save"), this);
    m_saveAct->setShortcut(QKeySequence::Save);
    connect(m_saveAct, &QAction::triggered, m_docs, &DocumentManager::save);
    m_saveAsAct = new QAction(icon("document-save-as", QStyle::SP_DialogSaveButton), tr("Save &As..."), this);
    m_saveAsAct->setShortcut(QKeySequence::SaveAs);
    connect(m_saveAsAct, &QAction::triggered, m_docs, &DocumentManager::saveAs);
    m_reportAct = new QAction(QIcon(QStringLiteral(":/icons/report.svg")), tr("Export &report (PDF)..."), this);
    m_reportAct->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_P));
    m_reportAct->setToolTip(tr("Write the comparison report as a PDF"));
    connect(m_reportAct, &QAction::triggered, this, &MainWindow::exportReportDialog);
    m_csvAct = new QAction(tr("Export &CSV..."), this);
    m_csvAct->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E));
    connect(m_csvAct, &QAction::triggered, this, &MainWindow::exportCsvDialog);
    m_quitAct = new QAction(tr("&Quit"), this);
    m_quitAct->setShortcut(QKeySequence::Quit);
    m_quitAct->setMenuRole(QAction::QuitRole);
    connect(m_quitAct, &QAction::triggered, this, &QWidget::close);
    m_undoAct = m_docs->model()->undoStack()->createUndoAction(this, tr("&Undo"));
    m_undoAct->setShortcut(QKeySequence::Undo);
    m_undoAct->setIcon(icon("edit-undo", QStyle::SP_ArrowBack));
    m_redoAct = m_docs->model()->undoStack()->createRedoAction(this, tr("&Redo"));
    m_redoAct->setShortcut(QKeySequence::Redo);
    m_redoAct->setIcon(icon("edit-redo", QStyle::SP_ArrowForward));
    m_importAct = new QAction(tr("&Import config.json..."), this);
    m_importAct->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_I));
    connect(m_importAct, &QAction::triggered, this, &MainWindow::importHfConfigDialog);
    m_catalogAct = new QAction(QIcon(QStringLiteral(":/icons/catalog.svg")), tr("&Catalog editor..."), this);
    m_catalogAct->setToolTip(tr("Edit GPU prices or add a custom GPU (saved in your catalog overlay)"));
    connect(m_catalogAct, &QAction::triggered, this, &MainWindow::openCatalogEditor);
    m_settingsAct = new QAction(tr("&Settings..."), this);
    m_settingsAct->setShortcut(QKeySequence::Preferences);
    m_settingsAct->setMenuRole(QAction::PreferencesRole);
    connect(m_settingsAct, &QAction::triggered, this, &MainWindow::openSettings);
}

void MainWindow::buildMenus()
{
    auto* file = menuBar()->addMenu(tr("&File"));
    file->addAction(m_newAct);
    file->addAction(m_openAct);
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    file->addAction(m_saveAct);
    file->addAction(m_saveAsAct);
    file->addSeparator();
    file->addAction(m_importAct);
    file->addAction(m_reportAct);
    file->addAction(m_csvAct);
    // The files that run the scenario as it stands on a serving or training engine (ui/launchdialog.h).
    auto* launch = file->addAction(tr("&Launch files for this scenario..."));
    launch->setObjectName(QStringLiteral("launchFilesAction"));
    connect(launch, &QAction::triggered, this, [this] {
        openLaunchDialog(this, m_docs->model()->scenario(), nullptr, m_controller->catalog(), m_controller->calibration());
    });
    auto* measurements = file->addAction(tr("Add my &measurements..."));
    measurements->setObjectName(QStringLiteral("addMeasurementsAction"));
    connect(measurements, &QAction::triggered, this, [this] {
        const QStringList logs = QFileDialog::getOpenFileNames(this, tr("vLLM, vllm bench, Trainer or torchtune logs"),
                                                               m_docs->dialogDir());
        if (logs.isEmpty())
            return;
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Folder for the measured records"), m_docs->dialogDir());
        if (dir.isEmpty())
            return;
        QString error;
        const QStringList lines = recordLogsInto(logs, dir, m_docs->model()->scenario(), m_controller->catalog(), &error);
        if (!error.isEmpty())
            QMessageBox::warning(this, tr("Add my measurements"), error);
        else
            QMessageBox::information(this, tr("Add my measurements"), lines.join(QLatin1Char('\n')));
    });
    file->addSeparator();
    file->addAction(m_quitAct);

    auto* edit = menuBar()->addMenu(tr("&Edit"));
    edit->addAction(m_undoAct);
    edit->addAction(m_redoAct);

    m_viewMenu = menuBar()->addMenu(tr("&View"));
    for (int i = 0; i < m_tabs->count(); ++i) {
        auto* a = m_viewMenu->addAction(m_tabs->tabText(i).remove(QLatin1Char('&')));
        a->setShortcut(QKeySequence(Qt::ALT | static_cast<Qt::Key>(Qt::Key_1 + i)));
        connect(a, &QAction::triggered, this, [this, i] { m_tabs->setCurrentIndex(i); });
    }

    auto* tools = menuBar()->addMenu(tr("&Tools"));
    tools->addAction(m_catalogAct);
    tools->addAction(m_settingsAct);

    auto* help = menuBar()->addMenu(tr("&Help"));
    auto* how = help->addAction(tr("&How estimates work"));
    how->setShortcut(QKeySequence::HelpContents);
    connect(how, &QAction::triggered, this, &MainWindow::howEstimatesWork);
    auto* aboutAct = help->addAction(tr("&About GPU Planner"));
    aboutAct->setMenuRole(QAction::AboutRole);
    connect(aboutAct, &QAction::triggered, this, &MainWindow::about);

    auto* tb = addToolBar(tr("Main"));
    tb->setObjectName(QStringLiteral("mainToolBar"));
    tb->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    tb->addAction(m_newAct);
    tb->addAction(m_openAct);
    tb->addAction(m_saveAct);
    tb->addSeparator();
    tb->addAction(m_undoAct);
    tb->addAction(m_redoAct);
    tb->addSeparator();
    tb->addAction(m_reportAct);
    tb->addAction(m_catalogAct);
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
    const int fit = static_cast<int>(std::count_if(e.results.begin(), e.results.end(), [](const auto& r) { return r.fits; }));
    m_statusFits->setText(tr("%1 of %2 GPUs fit").arg(fit).arg(e.results.size()));
}

void MainWindow::updateTitle()
{
    const QString name = m_docs->currentFile().isEmpty() ? tr("Untitled") : QFileInfo(m_docs->currentFile()).fileName();
    setWindowTitle(QStringLiteral("%1[*] — GPU Planner").arg(name));
    setWindowModified(m_docs->isModified());
}

void MainWindow::updateRecentMenu()
{
    m_recentMenu->clear();
    for (const auto& f : m_docs->recentFiles().files()) {
        auto* a = m_recentMenu->addAction(QFileInfo(f).fileName());
        a->setToolTip(f);
        a->setStatusTip(f);
        connect(a, &QAction::triggered, this, [this, f] {
            if (m_docs->maybeSave())
                m_docs->openFile(f);
        });
    }
    if (!m_docs->recentFiles().files().isEmpty()) {
        m_recentMenu->addSeparator();
        auto* clear = m_recentMenu->addAction(tr("Clear list"));
        connect(clear, &QAction::triggered, this, [this] {
            m_docs->clearRecentFiles();
        });
    }
    m_recentMenu->setEnabled(!m_docs->recentFiles().files().isEmpty());
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

bool MainWindow::exportReport(const QString& path)
{
    m_controller->recomputeNow();
    if (!m_controller->error().isEmpty()) {
        m_reportError(tr("Cannot export report"), tr("The scenario has problems:\n%1").arg(m_controller->error()));
        return false;
    }
    // The report prints the recommendation's terms: the estimate with its terms.
    ReportBuilder builder(m_docs->model()->scenario(), m_controller->explainedEstimate(), m_controller->catalog());
    builder.setCurrency(m_currency);
    builder.setCalibration(m_controller->calibration(), m_controller->calibrationPath());
    // The planner tab's result, when it is for this very scenario, saves planning again.
    if (m_planController->hasResult() && !m_planController->isStale() && !m_planController->isRunning() &&
        m_planController->scope() == PlanController::Scope::Scenario &&
        m_planController->top() == ReportBuilder::kMaxPlanOptions)
        builder.setPlan(m_planController->result());
    const QString error = builder.write(path);
    if (!error.isEmpty()) {
        m_reportError(tr("Cannot export report"), tr("%1:\n%2").arg(QDir::toNativeSeparators(path), error));
        return false;
    }
    showStatus(tr("Report written: %1 (%2 pages)").arg(QFileInfo(path).fileName()).arg(builder.pageCount()), 8000,
               QDir::toNativeSeparators(path));
    return true;
}

bool MainWindow::exportCsv(const QString& path)
{
    m_controller->recomputeNow();
    const QString error = writeFileAtomically(path, QByteArray::fromStdString(gp::estimateToCsv(m_controller->estimate())));
    if (!error.isEmpty()) {
        m_reportError(tr("Cannot export CSV"), tr("%1:\n%2").arg(QDir::toNativeSeparators(path), error));
        return false;
    }
    showStatus(tr("CSV written: %1").arg(QFileInfo(path).fileName()), 5000, QDir::toNativeSeparators(path));
    return true;
}

void MainWindow::exportReportDialog()
{
    const QString file = m_docs->currentFile();
    QString base = file.isEmpty() ? QDir(m_docs->dialogDir()).filePath(m_docs->model()->fileNameStem() + QStringLiteral(".pdf"))
                                    : QString(file).replace(QStringLiteral(".gpuplan.json"), QStringLiteral(".pdf"));
    const QString path = QFileDialog::getSaveFileName(this, tr("Export report"), base, tr("PDF (*.pdf)"));
    if (!path.isEmpty())
        exportReport(path);
}

void MainWindow::exportCsvDialog()
{
    const QString path = QFileDialog::getSaveFileName(this, tr("Export CSV"), QDir(m_docs->dialogDir()).filePath(QStringLiteral("estimate.csv")),
                                                      tr("CSV (*.csv)"));
    if (!path.isEmpty())
        exportCsv(path);
}

void MainWindow::saveChartDialog(charts::ChartKind kind)
{
    const QString filters = charts::ChartPanel::svgSupported() ? tr("PNG image (*.png);;SVG image (*.svg)") : tr("PNG image (*.png)");
    QString path = QFileDialog::getSaveFileName(this, tr("Save chart"), QDir(m_docs->dialogDir()).filePath(QStringLiteral("chart.png")), filters);
    if (path.isEmpty())
        return;
    if (!path.endsWith(QLatin1String(".png"), Qt::CaseInsensitive) && !path.endsWith(QLatin1String(".svg"), Qt::CaseInsensitive))
        path += QStringLiteral(".png");
    const QString error = m_resultsPage->chartPanel(kind)->saveImage(path);
    if (!error.isEmpty())
        m_reportError(tr("Cannot save chart"), tr("%1:\n%2").arg(QDir::toNativeSeparators(path), error));
}

void MainWindow::saveChartViewDialog(charts::ChartView* view)
{
    const QString filters = charts::ChartPanel::svgSupported() ? tr("PNG image (*.png);;SVG image (*.svg)") : tr("PNG image (*.png)");
    QString path = QFileDialog::getSaveFileName(this, tr("Save chart"), QDir(m_docs->dialogDir()).filePath(QStringLiteral("chart.png")), filters);
    if (path.isEmpty())
        return;
    if (!path.endsWith(QLatin1String(".png"), Qt::CaseInsensitive) && !path.endsWith(QLatin1String(".svg"), Qt::CaseInsensitive))
        path += QStringLiteral(".png");
    const QString error = view->saveImage(path);
    if (!error.isEmpty())
        m_reportError(tr("Cannot save chart"), tr("%1:\n%2").arg(QDir::toNativeSeparators(path), error));
}

void MainWindow::importHfConfigDialog()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Import Hugging Face config.json"), m_docs->dialogDir(),
                                                      tr("config.json (*.json);;All files (*)"));
    if (!path.isEmpty())
        m_form->importHfConfig(path);
}

void MainWindow::openCatalogEditor()
{
    CatalogEditor dlg(this);
    dlg.setErrorReporter(m_reportError);
    connect(&dlg, &CatalogEditor::catalogChanged, this, [this] {
        // The editor validated what it wrote; a bad overlay here was put there by
        // hand while the app runs: report it, leave the file to the user.
        const UserCatalog userCatalog = loadUserCatalog(/*setAsideBad=*/false);
        m_controller->setCatalog(userCatalog.catalog);
        m_form->setCatalog(m_controller->catalog());
        for (const auto& p : userCatalog.problems)
            m_reportError(tr("Catalog overlay"), p);
    });
    dlg.exec();
}

void MainWindow::openSettings()
{
    SettingsDialog dlg(*m_settings, this);
    dlg.setErrorReporter(m_reportError);
    if (dlg.exec() != QDialog::Accepted)
        return;
    applyCurrency();
    if (dlg.calibrationChosen()) {
        const CalibrationChoice& c = dlg.chosenCalibration();
        m_controller->setCalibration(c.calibration, c.path);
        showStatus(tr("Estimates now use the calibration %1").arg(c.path.isEmpty() ? calibrationName(c.path) : c.path),
                   8000);
    }
}

void MainWindow::loadCalibrationSetting()
{
    const QString path = m_settings->calibrationFile();
    if (path.isEmpty())
        return;
    QString error;
    CalibrationChoice c = loadCalibrationFile(path, &error);
    if (!error.isEmpty()) {
        // The setting stays: the file may be back or fixed at the next start.
        m_pendingNotices.append({tr("Calibration file"),
                                 error + QLatin1Char(' ') +
                                     tr("The built-in calibration is used; Tools → Settings chooses another.")});
        return;
    }
    m_controller->setCalibration(std::move(c.calibration), c.path);
}

void MainWindow::updateCalibrationStatus()
{
    const QString path = m_controller->calibrationPath();
    m_statusCalibration->setText(tr("Calibration: %1").arg(calibrationName(path)));
    m_statusCalibration->setToolTip(path.isEmpty() ? tr("The calibration compiled into GPU Planner (Tools → Settings "
                                                        "chooses a file)")
                                                   : QDir::toNativeSeparators(path));
}

void MainWindow::applyCurrency()
{
    m_currency = m_settings->currencySymbol();
    m_resultsPage->setCurrency(m_currency);
    m_comparison->setCurrency(m_currency);
    m_planner->setCurrency(m_currency);
    m_rentBuy->setCurrency(m_currency);
    updateViews();
}

void MainWindow::about()
{
    QMessageBox::about(this, tr("About GPU Planner"),
                       tr("<h3>GPU Planner %1</h3><p>Which GPU to rent or buy, and how many, for training and "
                          "inference.</p><p>Estimates come from memory and roofline performance models calibrated "
                          "on measured runs; each number shows the terms it was computed from and its "
                          "uncertainty.</p>")
                           .arg(QCoreApplication::applicationVersion()));
}

void MainWindow::howEstimatesWork()
{
    QMessageBox box(this);
    box.setWindowTitle(tr("How estimates work"));
    box.setTextFormat(Qt::RichText);
    box.setText(tr(
        "<p><b>Memory</b> per GPU = weights + gradients + optimizer states + activations (+ KV cache for "
        "inference) + overhead (CUDA context, allocator caching). Bytes per element follow the precision, "
        "ZeRO/TP/PP split what they shard, checkpointing trades activations for recompute.</p>"
        "<p><b>Time</b> comes from a roofline: each step is bounded by the tensor-core peak (at a calibrated "
        "efficiency for eager or optimized runtimes) or by memory bandwidth (decode), plus communication.</p>"
        "<p><b>Cost</b> = GPU-hours x price for the pricing model (on-demand, spot, reserved), or amortized "
        "purchase + electricity x PUE; divided by utilization.</p>"
        "<p>Every result lists the terms it summed (select a row: <i>Why this number</i>) and a 1-sigma "
        "uncertainty from the calibration residuals. Prices and specs come from the catalog with their "
        "sources and dates (Tools → Catalog editor).</p>"));
    box.exec();
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
