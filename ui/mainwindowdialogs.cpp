// MainWindow's export, chart saving, import, catalog editor, settings and calibration
// (the window itself: mainwindow.cpp).
#include "mainwindow.h"

#include "atomicfile.h"
#include "calibrationfile.h"
#include "catalogeditor.h"
#include "catalogoverlay.h"
#include "comparisonview.h"
#include "documentmanager.h"
#include "estimatecontroller.h"
#include "plancontroller.h"
#include "plannerpage.h"
#include "rentbuypage.h"
#include "reportbuilder.h"
#include "resultspage.h"
#include "scenarioform.h"
#include "scenariomodel.h"
#include "settingsdialog.h"

#include "charts/chartpanel.h"
#include "charts/plannercharts.h"

#include "core/estimate/estimate.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>

namespace gp::ui {

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

} // namespace gp::ui
