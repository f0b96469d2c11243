// MainWindow's actions, menus, tool bar and Help texts (the window itself: mainwindow.cpp).
#include "mainwindow.h"

#include "documentmanager.h"
#include "estimatecontroller.h"
#include "launchdialog.h"
#include "scenariomodel.h"

#include <QAction>
#include <QApplication>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenuBar>
#include <QMessageBox>
#include <QStyle>
#include <QTabWidget>
#include <QToolBar>
#include <QUndoStack>

namespace gp::ui {

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

} // namespace gp::ui
