#include "mainwindow.h"

#include "atomicfile.h"
#include "catalogeditor.h"
#include "catalogoverlay.h"
#include "comparisonview.h"
#include "estimatecontroller.h"
#include "explain.h"
#include "format.h"
#include "plancontroller.h"
#include "plannerpage.h"
#include "rentbuypage.h"
#include "reportbuilder.h"
#include "resultstablemodel.h"
#include "rulespage.h"
#include "scenariofile.h"
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
#include <QDateTime>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPushButton>
#include <QScreen>
#include <QStyle>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTextBrowser>
#include <QTimer>
#include <QToolBar>
#include <QUndoStack>
#include <QVBoxLayout>

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
    , m_model(new ScenarioModel(this))
    , m_controller(new EstimateController(m_model, this))
{
    initUiResources();
    setWindowIcon(QIcon(QStringLiteral(":/icons/gpuplanner.svg")));
    setAcceptDrops(true);
    m_currency = m_settings->currencySymbol();
    m_reportError = [this](const QString& title, const QString& message) {
        QMessageBox::warning(this, title, message);
    };
    m_savePrompt = [this] {
        return static_cast<int>(QMessageBox::warning(
            this, tr("Unsaved changes"), tr("The scenario has unsaved changes. Save them?"),
            QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save));
    };
    m_notify = [this](const QString& title, const QString& message) {
        // Non-modal: start-up goes on, the notice stays until read.
        auto* box = new QMessageBox(QMessageBox::Warning, title, message, QMessageBox::Ok, this);
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->setModal(false);
        box->show();
    };
    m_recoveryPrompt = [this](const QString& description) {
        QMessageBox box(QMessageBox::Question, tr("Restore the last session?"), description, QMessageBox::NoButton,
                        this);
        auto* restore = box.addButton(tr("&Restore"), QMessageBox::AcceptRole);
        box.addButton(tr("&Don't restore"), QMessageBox::RejectRole);
        box.setDefaultButton(restore);
        box.exec();
        return box.clickedButton() == restore;
    };

    m_form = new ScenarioForm(m_model, this);
    m_form->setMinimumWidth(460); // it scrolls; room for the tabs on a 1366x768 screen
    connect(m_form, &ScenarioForm::errorOccurred, this, [this](const QString& t, const QString& m) { m_reportError(t, m); });
    connect(m_form, &ScenarioForm::importRequested, this, &MainWindow::importHfConfigDialog);

    // Results tab: recommendation, filter, table, and "why this number".
    auto* resultsPage = new QWidget;
    auto* rl = new QVBoxLayout(resultsPage);
    m_banner = new QLabel;
    m_banner->setWordWrap(true);
    m_banner->setStyleSheet(QStringLiteral("QLabel { border: 2px solid %1; border-radius: 4px; padding: 4px; }")
                                .arg(QColor(0xd9, 0x4a, 0x4a).name()));
    m_banner->hide();
    m_recommendation = new QLabel;
    m_recommendation->setWordWrap(true);
    m_recommendation->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_filter = new QLineEdit;
    m_filter->setPlaceholderText(tr("Filter GPUs (name or id)"));
    m_filter->setAccessibleName(tr("Filter results"));
    m_filter->setClearButtonEnabled(true);
    m_results = new ResultsTableModel(this);
    m_proxy = new QSortFilterProxyModel(this);
    m_proxy->setSourceModel(m_results);
    m_proxy->setSortRole(ResultsTableModel::SortRole);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_proxy->setFilterKeyColumn(ResultsTableModel::GpuColumn);
    connect(m_filter, &QLineEdit::textChanged, m_proxy, &QSortFilterProxyModel::setFilterFixedString);
    m_table = new QTableView;
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(ResultsTableModel::CostColumn, Qt::AscendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setAlternatingRowColors(true);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setAccessibleName(tr("Estimates per GPU"));
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &MainWindow::showExplanation);
    m_explain = new QTextBrowser;
    m_explain->setAccessibleName(tr("Why this number"));
    // A scroll bar that comes and goes on every rebuild changes the width and
    // lays the whole document out twice more; keep it.
    m_explain->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOn);
    m_explain->installEventFilter(this);
    m_explain->setPlaceholderText(tr("Select a row to see how its numbers were computed."));
    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(m_table);
    auto* why = new QWidget;
    auto* wl = new QVBoxLayout(why);
    wl->setContentsMargins(0, 0, 0, 0);
    auto* whyTitle = new QLabel(tr("<b>Why this number</b>"));
    wl->addWidget(whyTitle);
    wl->addWidget(m_explain);
    split->addWidget(why);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    rl->addWidget(m_banner);
    rl->addWidget(m_recommendation);
    rl->addWidget(m_filter);
    rl->addWidget(split, 1);

    m_planController = new PlanController(m_model, m_controller, this);
    m_planner = new PlannerPage(m_model, m_planController);
    connect(m_planner, &PlannerPage::message, this, [this](const QString& text) { showStatus(text, 10000); });
    connect(m_planner->chartView(), &charts::ChartView::saveRequested, this,
            [this] { saveChartViewDialog(m_planner->chartView()); });
    m_rentBuy = new RentBuyPage(m_model, m_controller);
    connect(m_rentBuy->chartView(), &charts::ChartView::saveRequested, this,
            [this] { saveChartViewDialog(m_rentBuy->chartView()); });
    m_rules = new RulesPage;
    m_planner->setCurrency(m_currency);
    m_rentBuy->setCurrency(m_currency);

    m_tabs = new QTabWidget;
    m_tabs->setDocumentMode(true);
    m_tabs->setUsesScrollButtons(true);
    m_tabs->addTab(resultsPage, tr("&Results"));
    m_tabs->addTab(m_planner, tr("P&lanner"));
    const char* const names[] = {QT_TR_NOOP("&Memory"), QT_TR_NOOP("T&hroughput"), QT_TR_NOOP("C&ost"),
                                 QT_TR_NOOP("Cost vs &time")};
    for (int k = 0; k < charts::kChartKindCount; ++k) {
        auto* panel = new charts::ChartPanel(static_cast<charts::ChartKind>(k));
        connect(panel, &charts::ChartPanel::saveRequested, this, &MainWindow::saveChartDialog);
        m_charts[static_cast<std::size_t>(k)] = panel;
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
    statusBar()->addWidget(m_statusSummary, 1);
    statusBar()->addPermanentWidget(m_statusFits);
    connect(statusBar(), &QStatusBar::messageChanged, this, [this](const QString& message) {
        if (message != m_statusWithTip) // cleared, timed out or replaced: its tooltip goes with it
            statusBar()->setToolTip(QString());
    });

    buildActions();
    buildMenus();

    connect(m_controller, &EstimateController::estimateChanged, this, &MainWindow::updateViews);
    connect(m_model->undoStack(), &QUndoStack::cleanChanged, this, &MainWindow::updateTitle);
    connect(m_model, &ScenarioModel::changed, this, &MainWindow::updateTitle);

    // Start whatever state the settings and the catalog overlay are in: a bad
    // file is set aside (renamed, not deleted) and reported, never fatal.
    for (const auto& p : m_settings->loadProblems())
        m_pendingNotices.append({tr("Settings file"), p});
    const UserCatalog userCatalog = loadUserCatalog(/*setAsideBad=*/true);
    for (const auto& p : userCatalog.problems)
        m_pendingNotices.append({tr("Catalog overlay"), p});
    m_controller->setCatalog(userCatalog.catalog);
    m_form->setCatalog(m_controller->catalog());
    m_model->resetScenario(m_settings->newScenario());
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

    // Crash recovery: the session is autosaved while it has unsaved changes.
    m_autosave = new SessionAutosave(m_settings->autosaveDirectory(), this);
    m_autosave->setSource([this] {
        return SessionAutosave::Session{m_model->scenario(), m_file, !m_model->undoStack()->isClean(), {}};
    });
    connect(m_autosave, &SessionAutosave::written, this, [this] { m_lastAutosaveError.clear(); });
    connect(m_autosave, &SessionAutosave::failed, this, [this](const QString& error) {
        if (error == m_lastAutosaveError)
            return; // said once is enough; it is tried again after the next edit
        m_lastAutosaveError = error;
        showStatus(tr("Autosave failed: %1").arg(error), 15000);
    });
    connect(m_model, &ScenarioModel::changed, this, &MainWindow::sessionChanged);
    connect(m_model->undoStack(), &QUndoStack::cleanChanged, this, &MainWindow::sessionChanged);

    m_recent.setFiles(m_settings->recentFiles());
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

charts::ChartPanel* MainWindow::chartPanel(charts::ChartKind kind) const
{
    return m_charts[static_cast<std::size_t>(kind)];
}

void MainWindow::buildActions()
{
    auto icon = [](const char* name, QStyle::StandardPixmap fallback) {
        return QIcon::fromTheme(QString::fromLatin1(name), QApplication::style()->standardIcon(fallback));
    };
    m_newAct = new QAction(icon("document-new", QStyle::SP_FileIcon), tr("&New"), this);
    m_newAct->setShortcut(QKeySequence::New);
    m_newAct->setToolTip(tr("Start a new scenario from the defaults"));
    connect(m_newAct, &QAction::triggered, this, &MainWindow::newScenario);
    m_openAct = new QAction(icon("document-open", QStyle::SP_DialogOpenButton), tr("&Open..."), this);
    m_openAct->setShortcut(QKeySequence::Open);
    connect(m_openAct, &QAction::triggered, this, &MainWindow::open);
    m_saveAct = new QAction(icon("document-save", QStyle::SP_DialogSaveButton), tr("&Save"), this);
    m_saveAct->setShortcut(QKeySequence::Save);
    connect(m_saveAct, &QAction::triggered, this, &MainWindow::save);
    m_saveAsAct = new QAction(icon("document-save-as", QStyle::SP_DialogSaveButton), tr("Save &As..."), this);
    m_saveAsAct->setShortcut(QKeySequence::SaveAs);
    connect(m_saveAsAct, &QAction::triggered, this, &MainWindow::saveAs);
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
    m_undoAct = m_model->undoStack()->createUndoAction(this, tr("&Undo"));
    m_undoAct->setShortcut(QKeySequence::Undo);
    m_undoAct->setIcon(icon("edit-undo", QStyle::SP_ArrowBack));
    m_redoAct = m_model->undoStack()->createRedoAction(this, tr("&Redo"));
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
    const gp::Estimate& e = m_controller->estimate();
    const QString selected = m_table->currentIndex().isValid()
                                 ? m_table->currentIndex().data(ResultsTableModel::GpuIdRole).toString()
                                 : QString();
    m_results->setEstimate(e);
    for (auto* c : m_charts)
        c->setEstimate(e, m_currency);
    m_comparison->setEstimate(e);
    const QString err = m_controller->error();
    m_banner->setVisible(!err.isEmpty());
    m_banner->setText(tr("<b>No estimate until these are fixed</b> (the fields are marked):<br>%1")
                          .arg(htmlEscape(err).replace(QLatin1Char('\n'), QStringLiteral("<br>"))));
    m_recommendation->setText(e.results.empty() ? QString()
                                                : tr("<b>Recommendation:</b> %1").arg(htmlEscape(recommendationText(e, m_currency))));
    // Keep the selected GPU selected across recomputes (the model keeps it when
    // the GPUs are the same; a new set of GPUs resets it).
    m_updatingViews = true;
    const int row = selected.isEmpty() ? -1 : m_results->rowOf(selected);
    const QModelIndex want = row >= 0 ? m_proxy->mapFromSource(m_results->index(row, 0))
                                      : (m_proxy->rowCount() > 0 ? m_proxy->index(0, 0) : QModelIndex());
    if (want.isValid() && m_table->currentIndex().row() != want.row())
        m_table->setCurrentIndex(want);
    m_updatingViews = false;
    showExplanation();
    // Measuring every cell is slow; size the columns once per header set (mode change).
    const QString headers = m_results->headerData(ResultsTableModel::ThroughputColumn, Qt::Horizontal).toString();
    if (headers != m_sizedFor && m_results->rowCount() > 0) {
        m_table->resizeColumnsToContents();
        m_sizedFor = headers;
    }
    updateStatus();
}

void MainWindow::showExplanation()
{
    if (m_updatingViews)
        return; // updateViews explains once, at its end
    m_explainDirty = true;
    // Laying out the rich text is the most expensive part of a redraw: do it only
    // for a panel that is seen (it is refreshed when it shows, or is read).
    if (m_explain->isVisible())
        refreshExplanation();
}

void MainWindow::refreshExplanation()
{
    m_explainDirty = false;
    const QModelIndex cur = m_table->currentIndex();
    const auto& e = m_controller->estimate();
    const int i = cur.isValid() ? m_proxy->mapToSource(cur).row() : -1;
    QString html;
    if (i >= 0 && i < static_cast<int>(e.results.size()))
        html = explainHtml(m_controller->explainedResult(static_cast<std::size_t>(i)), m_currency);
    if (html == m_explainHtml)
        return; // same GPU, same numbers: nothing to lay out again
    m_explainHtml = html;
    if (html.isEmpty())
        m_explain->clear();
    else
        m_explain->setHtml(html);
}

QTextBrowser* MainWindow::explainView() const
{
    if (m_explainDirty)
        const_cast<MainWindow*>(this)->refreshExplanation(); // a cache fill, not a visible change
    return m_explain;
}

bool MainWindow::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_explain && event->type() == QEvent::Show && m_explainDirty)
        refreshExplanation();
    return QMainWindow::eventFilter(watched, event);
}

void MainWindow::updateStatus()
{
    const auto& e = m_controller->estimate();
    const auto& s = m_model->scenario();
    m_statusSummary->setText(scenarioSummary(s));
    const int fit = static_cast<int>(std::count_if(e.results.begin(), e.results.end(), [](const auto& r) { return r.fits; }));
    m_statusFits->setText(tr("%1 of %2 GPUs fit").arg(fit).arg(e.results.size()));
}

void MainWindow::updateTitle()
{
    const QString name = m_file.isEmpty() ? tr("Untitled") : QFileInfo(m_file).fileName();
    setWindowTitle(QStringLiteral("%1[*] — GPU Planner").arg(name));
    setWindowModified(!m_model->undoStack()->isClean());
}

void MainWindow::updateRecentMenu()
{
    m_recentMenu->clear();
    for (const auto& f : m_recent.files()) {
        auto* a = m_recentMenu->addAction(QFileInfo(f).fileName());
        a->setToolTip(f);
        a->setStatusTip(f);
        connect(a, &QAction::triggered, this, [this, f] {
            if (maybeSave())
                openFile(f);
        });
    }
    if (!m_recent.files().isEmpty()) {
        m_recentMenu->addSeparator();
        auto* clear = m_recentMenu->addAction(tr("Clear list"));
        connect(clear, &QAction::triggered, this, [this] {
            m_recent.clear();
            m_settings->setRecentFiles({});
            updateRecentMenu();
        });
    }
    m_recentMenu->setEnabled(!m_recent.files().isEmpty());
}

QString MainWindow::dialogDir() const
{
    if (!m_file.isEmpty())
        return QFileInfo(m_file).absolutePath();
    const QString d = m_settings->lastDirectory();
    return d.isEmpty() ? QDir::homePath() : d;
}

void MainWindow::sessionChanged()
{
    // Autosave only what could be lost: a clean session is all in its file.
    if (m_model->undoStack()->isClean())
        m_autosave->discard();
    else
        m_autosave->schedule();
}

void MainWindow::showStartupProblems()
{
    const auto notices = std::exchange(m_pendingNotices, {});
    for (const auto& [title, message] : notices)
        m_notify(title, message);
}

bool MainWindow::offerRecovery()
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
            showStatus(tr("An autosaved session could not be restored; see the notice."), 15000);
            m_notify(tr("Autosave not restored"), tr("An autosaved session (%1) cannot be restored: %2\n%3")
                                                      .arg(QDir::toNativeSeparators(path), loaded.error, where));
            continue;
        }
        const SessionAutosave::Session& session = *loaded.session;
        const QString savedAt = QLocale().toString(session.savedAt, QLocale::ShortFormat);
        const QString what =
            session.file.isEmpty()
                ? tr("an untitled scenario (“%1”)").arg(QString::fromStdString(session.scenario.name).toHtmlEscaped())
                : tr("“%1”").arg(QDir::toNativeSeparators(session.file).toHtmlEscaped());
        const QString description =
            tr("<p>GPU Planner did not exit cleanly last time. Your unsaved changes to %1 were autosaved at %2.</p>"
               "<p>Restore them? If not, the autosave is kept as a .bak file in %3.</p>")
                .arg(what, savedAt, QDir::toNativeSeparators(QFileInfo(path).absolutePath()).toHtmlEscaped());
        if (!m_recoveryPrompt(description)) {
            showStatus(tr("Autosave not restored; kept as %1").arg(keepAsBak(path)), 10000);
            continue;
        }
        m_model->resetScenario(session.scenario);
        m_file = session.file.isEmpty() ? QString() : QFileInfo(session.file).absoluteFilePath();
        m_model->undoStack()->resetClean(); // unsaved: closing asks to save
        updateTitle();
        m_controller->recomputeNow();
        // This session's own autosave holds it from now on; the old one goes only then.
        if (m_autosave->writeNow().isEmpty()) {
            QFile::remove(path);
            m_autosave->releaseOrphan(path);
        } else {
            keepAsBak(path);
        }
        restored = true;
        QString message = tr("Restored the session autosaved at %1.").arg(savedAt);
        if (!loaded.warnings.isEmpty())
            message += QLatin1Char(' ') + tr("Warnings: %1").arg(loaded.warnings.join(QStringLiteral("; ")));
        showStatus(message, 15000);
    }
    if (!setAside.isEmpty())
        showStatus(
            tr("Restored the newest autosaved session; older ones kept as %1").arg(setAside.join(QStringLiteral(", "))),
            15000);
    return restored;
}

void MainWindow::showStatus(const QString& text, int timeoutMs, const QString& tip)
{
    const QString shown = withoutDirectories(text);
    m_statusWithTip = shown;
    statusBar()->setToolTip(!tip.isEmpty() ? tip : shown != text ? text : QString());
    statusBar()->showMessage(shown, timeoutMs);
}

bool MainWindow::maybeSave()
{
    if (m_model->undoStack()->isClean())
        return true;
    switch (m_savePrompt()) {
    case QMessageBox::Save: return save();
    case QMessageBox::Discard: return true;
    default: return false;
    }
}

void MainWindow::newScenario()
{
    if (!maybeSave())
        return;
    m_file.clear();
    m_model->resetScenario(m_settings->newScenario());
    updateTitle();
}

void MainWindow::open()
{
    if (!maybeSave())
        return;
    const QString path = QFileDialog::getOpenFileName(this, tr("Open scenario"), dialogDir(),
                                                      tr("GPU Planner scenarios (*.gpuplan.json *.json);;All files (*)"));
    if (!path.isEmpty())
        openFile(path);
}

bool MainWindow::openFile(const QString& path)
{
    const LoadedScenario loaded = loadScenarioFile(path);
    if (!loaded.scenario) {
        // The current scenario and its edits stay as they are.
        m_reportError(tr("Cannot open scenario"), tr("%1:\n%2").arg(QDir::toNativeSeparators(path), loaded.error));
        if (!QFileInfo::exists(path) && !QFileInfo(path).isSymLink()) { // gone, not unreadable
            m_recent.remove(path);
            m_settings->setRecentFiles(m_recent.files());
            updateRecentMenu();
        }
        return false;
    }
    m_model->resetScenario(*loaded.scenario);
    m_file = QFileInfo(path).absoluteFilePath();
    m_settings->setLastDirectory(QFileInfo(path).absolutePath());
    m_recent.add(m_file);
    m_settings->setRecentFiles(m_recent.files());
    updateRecentMenu();
    updateTitle();
    m_controller->recomputeNow();
    if (!loaded.warnings.isEmpty())
        showStatus(tr("Opened with warnings: %1").arg(loaded.warnings.join(QStringLiteral("; "))), 15000);
    else
        showStatus(tr("Opened %1").arg(QFileInfo(m_file).fileName()), 5000, QDir::toNativeSeparators(m_file));
    return true;
}

bool MainWindow::save()
{
    if (m_file.isEmpty())
        return saveAs();
    return saveTo(m_file);
}

bool MainWindow::saveAs()
{
    QString suggested = m_file;
    if (suggested.isEmpty())
        suggested = QDir(dialogDir()).filePath(m_model->fileNameStem() + QStringLiteral(".gpuplan.json"));
    QString path = QFileDialog::getSaveFileName(this, tr("Save scenario as"), suggested, tr("GPU Planner scenarios (*.gpuplan.json)"));
    if (path.isEmpty())
        return false;
    if (!path.endsWith(QLatin1String(".json"), Qt::CaseInsensitive))
        path += QStringLiteral(".gpuplan.json");
    return saveTo(path);
}

bool MainWindow::saveTo(const QString& path)
{
    const QString error = saveScenarioFile(m_model->scenario(), path);
    if (!error.isEmpty()) {
        // The atomic writer left the old file as it was; the edits stay in memory,
        // marked modified (the title keeps its "*", Quit asks) and in the autosave.
        showStatus(tr("Save failed: %1").arg(error), 15000);
        m_reportError(tr("Cannot save scenario"), tr("%1:\n%2\n\nYour changes are kept; try another location.")
                                                      .arg(QDir::toNativeSeparators(path), error));
        return false;
    }
    m_file = QFileInfo(path).absoluteFilePath();
    m_settings->setLastDirectory(QFileInfo(path).absolutePath());
    m_model->undoStack()->setClean();
    m_recent.add(m_file);
    m_settings->setRecentFiles(m_recent.files());
    updateRecentMenu();
    updateTitle();
    showStatus(tr("Saved %1").arg(QFileInfo(m_file).fileName()), 5000, QDir::toNativeSeparators(m_file));
    return true;
}

bool MainWindow::exportReport(const QString& path)
{
    m_controller->recomputeNow();
    if (!m_controller->error().isEmpty()) {
        m_reportError(tr("Cannot export report"), tr("The scenario has problems:\n%1").arg(m_controller->error()));
        return false;
    }
    // The report prints the recommendation's terms: the estimate with its terms.
    ReportBuilder builder(m_model->scenario(), m_controller->explainedEstimate(), m_controller->catalog());
    builder.setCurrency(m_currency);
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
    QString base = m_file.isEmpty() ? QDir(dialogDir()).filePath(m_model->fileNameStem() + QStringLiteral(".pdf"))
                                    : QString(m_file).replace(QStringLiteral(".gpuplan.json"), QStringLiteral(".pdf"));
    const QString path = QFileDialog::getSaveFileName(this, tr("Export report"), base, tr("PDF (*.pdf)"));
    if (!path.isEmpty())
        exportReport(path);
}

void MainWindow::exportCsvDialog()
{
    const QString path = QFileDialog::getSaveFileName(this, tr("Export CSV"), QDir(dialogDir()).filePath(QStringLiteral("estimate.csv")),
                                                      tr("CSV (*.csv)"));
    if (!path.isEmpty())
        exportCsv(path);
}

void MainWindow::saveChartDialog(charts::ChartKind kind)
{
    const QString filters = charts::ChartPanel::svgSupported() ? tr("PNG image (*.png);;SVG image (*.svg)") : tr("PNG image (*.png)");
    QString path = QFileDialog::getSaveFileName(this, tr("Save chart"), QDir(dialogDir()).filePath(QStringLiteral("chart.png")), filters);
    if (path.isEmpty())
        return;
    if (!path.endsWith(QLatin1String(".png"), Qt::CaseInsensitive) && !path.endsWith(QLatin1String(".svg"), Qt::CaseInsensitive))
        path += QStringLiteral(".png");
    const QString error = chartPanel(kind)->saveImage(path);
    if (!error.isEmpty())
        m_reportError(tr("Cannot save chart"), tr("%1:\n%2").arg(QDir::toNativeSeparators(path), error));
}

void MainWindow::saveChartViewDialog(charts::ChartView* view)
{
    const QString filters = charts::ChartPanel::svgSupported() ? tr("PNG image (*.png);;SVG image (*.svg)") : tr("PNG image (*.png)");
    QString path = QFileDialog::getSaveFileName(this, tr("Save chart"), QDir(dialogDir()).filePath(QStringLiteral("chart.png")), filters);
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
    const QString path = QFileDialog::getOpenFileName(this, tr("Import Hugging Face config.json"), dialogDir(),
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
    if (dlg.exec() == QDialog::Accepted)
        applyCurrency();
}

void MainWindow::applyCurrency()
{
    m_currency = m_settings->currencySymbol();
    m_results->setCurrency(m_currency);
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
    if (!maybeSave()) {
        event->ignore();
        return;
    }
    m_settings->setWindowGeometry(saveGeometry());
    m_settings->setWindowState(saveState());
    m_settings->setSplitterState(m_splitter->saveState());
    m_settings->sync();
    // A clean exit: the unsaved-changes question was answered, nothing to recover.
    m_autosave->discard();
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
            if (maybeSave())
                openFile(path);
        } else {
            m_form->importHfConfig(path);
        }
        event->acceptProposedAction();
        return;
    }
}

} // namespace gp::ui
