// A user calibration file in the app: chosen in Settings (persisted), loaded at
// start through the bounded reader, used by the results, the planner and the
// report, and named in the status bar and the report. A bad file is reported
// with its key and the built-in calibration stays.
#include "ui/calibrationfile.h"
#include "ui/documentmanager.h"
#include "ui/estimatecontroller.h"
#include "ui/mainwindow.h"
#include "ui/plancontroller.h"
#include "ui/plannerpage.h"
#include "ui/rentbuypage.h"
#include "ui/reportbuilder.h"
#include "ui/resultspage.h"
#include "ui/resultstablemodel.h"
#include "ui/scenariofile.h"
#include "ui/scenariomodel.h"
#include "ui/settings.h"
#include "ui/settingsdialog.h"

#include "core/calibration/calibration.h"
#include "core/hardware/catalog.h"
#include "core/base/units.h"

#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <QMessageBox>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <memory>

using namespace gp::ui;
using nlohmann::json;

namespace {

const char* const kH100 = "nvidia-h100-sxm";

/// The built-in table as a user file (ids and values), with some values replaced.
QByteArray calibrationDocument(const std::map<std::string, double>& changed)
{
    json list = json::array();
    for (const auto& e : gp::builtinCalibration().entries) {
        const auto it = changed.find(e.id);
        list.push_back({{"id", e.id}, {"value", it != changed.end() ? it->second : e.value}});
    }
    return QByteArray::fromStdString(json{{"format", "gpuplanner-calibration"}, {"constants", list}}.dump(1));
}

/// Where an id sits in the built-in table (and so in calibrationDocument()).
int indexOf(const std::string& id)
{
    const auto& entries = gp::builtinCalibration().entries;
    for (std::size_t i = 0; i < entries.size(); ++i)
        if (entries[i].id == id)
            return int(i);
    qFatal("no calibration entry %s", id.c_str());
}

bool writeAll(const QString& path, const QByteArray& bytes)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

/// The number a results-table cell shows for a GPU.
double cell(MainWindow& w, const char* gpu, int column)
{
    const ResultsTableModel* m = w.resultsPage()->model();
    const int row = m->rowOf(QString::fromLatin1(gpu));
    if (row < 0)
        qFatal("no row for %s", gpu);
    const auto v = m->cellValue(row, column);
    if (!v)
        qFatal("no value in column %d for %s", column, gpu);
    return *v;
}

} // namespace

class TestCalibrationSetting : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QStringList m_errors;
    QStringList m_notices;
    int m_inis = 0;

    QString path(const QString& name) const { return m_dir.filePath(name); }
    /// A fresh settings file for each test.
    QString newIni() { return path(QStringLiteral("settings-%1.ini").arg(++m_inis)); }

    std::unique_ptr<MainWindow> makeWindow(const QString& ini)
    {
        auto w = std::make_unique<MainWindow>(std::make_unique<Settings>(ini));
        w->setErrorReporter([this](const QString& t, const QString& m) { m_errors << t + QStringLiteral(": ") + m; });
        w->setNotifier([this](const QString& t, const QString& m) { m_notices << t + QStringLiteral(": ") + m; });
        w->documentManager()->setSavePrompt([] { return int(QMessageBox::Discard); });
        return w;
    }

    /// A valid user file: usable memory 0.8 of the marketed size, the base training band 20%, BF16 GEMMs at half.
    QString goodFile()
    {
        const QString p = path(QStringLiteral("my-cluster.json"));
        if (!QFile::exists(p))
            writeAll(p, calibrationDocument({{"usable_memory_fraction", 0.8},
                                             {"uncertainty_throughput_training", 0.2},
                                             {"gemm_eff_bf16", 0.4005}}));
        return p;
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QStandardPaths::setTestModeEnabled(true);
        qputenv("GPUPLANNER_CATALOG_OVERLAY", m_dir.filePath(QStringLiteral("no-overlay.json")).toUtf8());
        QCOMPARE(gp::builtinCalibration().usableMemoryFraction, 0.9956);
        // The built-in base band (refitted from leave-one-out residuals) is below the file's 20%.
        QVERIFY(gp::builtinCalibration().uncertaintyThroughputTraining < 0.15);
        QCOMPARE(gp::builtinCalibration().gemmEffBf16, 0.801);
    }

    void init()
    {
        m_errors.clear();
        m_notices.clear();
    }

    void settingPersistsAndDropsAWrongType()
    {
        const QString ini = newIni();
        {
            Settings s(ini);
            QCOMPARE(s.calibrationFile(), QString());
            s.setCalibrationFile(QStringLiteral("/data/cal/my-cluster.json"));
        }
        {
            Settings s(ini);
            QCOMPARE(s.calibrationFile(), QStringLiteral("/data/cal/my-cluster.json"));
            s.setCalibrationFile(QStringLiteral("/data/cal/a, b=c;d.json")); // INI-special characters
        }
        {
            Settings s(ini);
            QVERIFY(s.loadProblems().isEmpty());
            QCOMPARE(s.calibrationFile(), QStringLiteral("/data/cal/a, b=c;d.json"));
            s.setCalibrationFile(QString()); // back to the built-in: the key goes
        }
        QFile file(ini);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QVERIFY(!file.readAll().contains("calibrationFile"));
        QCOMPARE(Settings(ini).calibrationFile(), QString());

        // A list where a path belongs (hand-edited): dropped and reported, the default is used.
        const QString bad = newIni();
        QVERIFY(writeAll(bad, "[estimates]\ncalibrationFile=a, b\n"));
        Settings s(bad);
        QCOMPARE(s.calibrationFile(), QString());
        QCOMPARE(s.loadProblems().size(), 1);
        QVERIFY2(s.loadProblems().front().contains(QStringLiteral("defaults: estimates/calibrationFile.")),
                 qPrintable(s.loadProblems().front()));
    }

    void loadReportsEachProblemWithItsKey()
    {
        QString error;
        const CalibrationChoice good = loadCalibrationFile(goodFile(), &error);
        QCOMPARE(error, QString());
        QVERIFY(good.calibration);
        QCOMPARE(good.calibration->usableMemoryFraction, 0.8);
        QCOMPARE(good.calibration->gemmEffBf16, 0.4005);
        QCOMPARE(good.path, QFileInfo(goodFile()).absoluteFilePath());

        const QString bad = path(QStringLiteral("bad.json"));
        QVERIFY(writeAll(bad, calibrationDocument({{"gemm_eff_bf16", 1.5}, {"usable_memory_fraction", 0.2}})));
        const CalibrationChoice none = loadCalibrationFile(bad, &error);
        QVERIFY(!none.calibration);
        QCOMPARE(none.path, QString());
        QCOMPARE(error, QStringLiteral("The calibration file %1 cannot be used: constants[3].value: gemm_eff_bf16 = 1.5 is "
                                       "outside its bounds [0.01, 1]; constants[%2].value: usable_memory_fraction = 0.2 "
                                       "is outside its bounds [0.5, 1].")
                            .arg(QDir::toNativeSeparators(bad))
                            .arg(indexOf("usable_memory_fraction")));

        const QString missing = path(QStringLiteral("nowhere.json"));
        (void)loadCalibrationFile(missing, &error);
        QCOMPARE(error, QStringLiteral("The calibration file %1 cannot be used: no such file.")
                            .arg(QDir::toNativeSeparators(missing)));

        const QString notJson = path(QStringLiteral("notes.json"));
        QVERIFY(writeAll(notJson, "[1, 2]"));
        (void)loadCalibrationFile(notJson, &error);
        QCOMPARE(error, QStringLiteral("The calibration file %1 cannot be used: constants: a calibration file is a JSON "
                                       "object with a \"constants\" array.")
                            .arg(QDir::toNativeSeparators(notJson)));

        QCOMPARE(calibrationName(QString()), QStringLiteral("built-in"));
        QCOMPARE(calibrationName(QStringLiteral("/a/b/my-cluster.json")), QStringLiteral("my-cluster.json"));
    }

    void theStoredFileDrivesTheResultsStatusAndPlanner()
    {
        auto builtin = makeWindow(newIni());
        QCOMPARE(builtin->calibrationStatus()->text(), QStringLiteral("Calibration: built-in"));
        QVERIFY(!builtin->resultsPage()->controller()->calibration());
        const double hasBuiltin = cell(*builtin, kH100, ResultsTableModel::VramHasColumn);
        QCOMPARE(hasBuiltin, 80 * 0.9956); // GiB: an "80 GB" H100
        QCOMPARE(cell(*builtin, kH100, ResultsTableModel::UncertaintyColumn), 100 * gp::builtinCalibration().uncertaintyThroughputTraining);
        const double rateBuiltin = cell(*builtin, kH100, ResultsTableModel::ThroughputColumn);

        const QString ini = newIni();
        Settings(ini).setCalibrationFile(goodFile());
        auto w = makeWindow(ini);
        QVERIFY(w->startupProblems().isEmpty());
        QVERIFY(w->resultsPage()->controller()->calibration());
        QCOMPARE(w->resultsPage()->controller()->calibrationPath(), QFileInfo(goodFile()).absoluteFilePath());
        QCOMPARE(w->calibrationStatus()->text(), QStringLiteral("Calibration: my-cluster.json"));
        QCOMPARE(w->calibrationStatus()->toolTip(), QDir::toNativeSeparators(QFileInfo(goodFile()).absoluteFilePath()));
        // usable_memory_fraction 0.9956 -> 0.8: the capacity shown scales by exactly 0.8 / 0.9956.
        const double has = cell(*w, kH100, ResultsTableModel::VramHasColumn);
        QCOMPARE(has, 64.0);
        QVERIFY(qFuzzyCompare(has / hasBuiltin, 0.8 / 0.9956));
        // A Hopper GPU, one per job, eager, a known model: the band is the base value, built-in -> 20%.
        QCOMPARE(cell(*w, kH100, ResultsTableModel::UncertaintyColumn), 20.0);
        // BF16 GEMMs at half their ceiling: slower, but not twice (attention, elementwise and launches stay).
        const double rate = cell(*w, kH100, ResultsTableModel::ThroughputColumn);
        QVERIFY2(rate < 0.9 * rateBuiltin && rate > 0.5 * rateBuiltin,
                 qPrintable(QStringLiteral("%1 vs %2").arg(rate).arg(rateBuiltin)));

        // The planner estimates its candidates with the same constants.
        PlanController* plan = w->plannerPage()->controller();
        plan->recomputeNow();
        QVERIFY2(plan->error().isEmpty(), qPrintable(plan->error()));
        QVERIFY(!plan->result().options.empty());
        for (const auto& o : plan->result().options) {
            const gp::Gpu* g = w->resultsPage()->controller()->catalog().find(o.gpu);
            QVERIFY(g);
            if (o.mig.empty())
                QCOMPARE(o.estimate.capacityBytes, g->memoryGb * gp::units::kGiB * 0.8);
        }

        // Back to the built-in one: the numbers come back, the status says so, the planner replans.
        w->resultsPage()->controller()->setCalibration(nullptr, QString());
        QCOMPARE(w->calibrationStatus()->text(), QStringLiteral("Calibration: built-in"));
        QCOMPARE(cell(*w, kH100, ResultsTableModel::VramHasColumn), hasBuiltin);
        QCOMPARE(cell(*w, kH100, ResultsTableModel::ThroughputColumn), rateBuiltin);
        QVERIFY(plan->isStale());
        QVERIFY(m_errors.isEmpty());
    }

    void aBadStoredFileIsReportedAndTheBuiltinKept()
    {
        const QString bad = path(QStringLiteral("out-of-bounds.json"));
        const QByteArray bytes = calibrationDocument({{"gemm_eff_bf16", 1.5}});
        QVERIFY(writeAll(bad, bytes));
        const QString ini = newIni();
        Settings(ini).setCalibrationFile(bad);
        auto w = makeWindow(ini);
        QCOMPARE(w->startupProblems(),
                 QStringList{QStringLiteral("The calibration file %1 cannot be used: constants[3].value: gemm_eff_bf16 = "
                                            "1.5 is outside its bounds [0.01, 1]. The built-in calibration is used; "
                                            "Tools → Settings chooses another.")
                                 .arg(QDir::toNativeSeparators(bad))});
        QVERIFY(!w->resultsPage()->controller()->calibration());
        QCOMPARE(w->calibrationStatus()->text(), QStringLiteral("Calibration: built-in"));
        QCOMPARE(cell(*w, kH100, ResultsTableModel::VramHasColumn), 80 * 0.9956);
        QCOMPARE(cell(*w, kH100, ResultsTableModel::UncertaintyColumn), 100 * gp::builtinCalibration().uncertaintyThroughputTraining);
        QTRY_COMPARE(m_notices.size(), 1); // non-modal, once the event loop runs
        QVERIFY(m_notices.front().startsWith(QStringLiteral("Calibration file: The calibration file ")));
        // Nothing is lost: the file and the setting stay for the user to fix.
        QFile f(bad);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), bytes);
        QCOMPARE(Settings(ini).calibrationFile(), bad);
    }

    void theDialogChoosesValidatesAndPersists()
    {
        const QString ini = newIni();
        Settings settings(ini);
        SettingsDialog dlg(settings);
        QStringList errors;
        dlg.setErrorReporter([&](const QString& t, const QString& m) { errors << t + QStringLiteral(": ") + m; });
        QCOMPARE(dlg.calibrationEdit()->text(), QStringLiteral("Built-in (compiled into GPU Planner)"));
        QVERIFY(!dlg.calibrationChosen());

        const QString bad = path(QStringLiteral("dialog-bad.json"));
        QVERIFY(writeAll(bad, calibrationDocument({{"gemm_eff_bf16", -0.2}})));
        QVERIFY(!dlg.chooseCalibrationFile(bad));
        QCOMPARE(errors, QStringList{QStringLiteral("Calibration file: The calibration file %1 cannot be used: "
                                                    "constants[3].value: gemm_eff_bf16 = -0.2 is outside its bounds "
                                                    "[0.01, 1]. The previous choice is kept.")
                                         .arg(QDir::toNativeSeparators(bad))});
        QVERIFY(!dlg.calibrationChosen());
        QCOMPARE(dlg.calibrationEdit()->text(), QStringLiteral("Built-in (compiled into GPU Planner)"));

        QVERIFY(dlg.chooseCalibrationFile(goodFile()));
        QVERIFY(dlg.calibrationChosen());
        QCOMPARE(dlg.chosenCalibration().calibration->usableMemoryFraction, 0.8);
        QCOMPARE(dlg.calibrationEdit()->text(), QDir::toNativeSeparators(QFileInfo(goodFile()).absoluteFilePath()));
        dlg.accept();
        QCOMPARE(dlg.result(), int(QDialog::Accepted));
        QCOMPARE(Settings(ini).calibrationFile(), QFileInfo(goodFile()).absoluteFilePath());

        // Back to the built-in one.
        SettingsDialog again(settings);
        QCOMPARE(again.calibrationEdit()->text(), QDir::toNativeSeparators(QFileInfo(goodFile()).absoluteFilePath()));
        again.useBuiltinCalibration();
        QVERIFY(again.calibrationChosen());
        QVERIFY(!again.chosenCalibration().calibration);
        again.accept();
        QCOMPARE(Settings(ini).calibrationFile(), QString());
        QCOMPARE(errors.size(), 1);
    }

    void theReportNamesTheCalibration()
    {
        const gp::Catalog& cat = gp::Catalog::builtin();
        gp::Scenario s = gp::defaultScenario();
        s.hardware.gpus = {kH100};
        QString error;
        const CalibrationChoice c = loadCalibrationFile(goodFile(), &error);
        QVERIFY(error.isEmpty());
        const gp::Estimate builtinEstimate = gp::estimate(s, cat);
        ReportBuilder builtin(s, builtinEstimate, cat);
        builtin.setSections(0);
        QCOMPARE(builtin.calibrationText(), QStringLiteral("Calibration: built-in"));
        QVERIFY(builtin.htmlAfterCharts().contains(QStringLiteral("<p>Calibration: built-in</p>")));

        const gp::Estimate e = gp::estimate(s, cat, gp::EstimateOptions{true, c.calibration.get()});
        ReportBuilder user(s, e, cat);
        user.setSections(ReportBuilder::PlanSection);
        user.setCalibration(c.calibration.get(), c.path);
        const QString text = QStringLiteral("Calibration: my-cluster.json (%1)").arg(QDir::toNativeSeparators(c.path));
        QCOMPARE(user.calibrationText(), text);
        QVERIFY(user.htmlAfterCharts().contains(QStringLiteral("<p>%1</p>").arg(text.toHtmlEscaped())));
        // The report's plan is computed with it too.
        user.prepare();
        QVERIFY(user.plan() && !user.plan()->options.empty());
        for (const auto& o : user.plan()->options)
            if (o.mig.empty())
                QCOMPARE(o.estimate.capacityBytes, 80 * gp::units::kGiB * 0.8);
    }

    void rentVsBuyFollowsTheCalibratedPlan()
    {
        // No single GPU meets this example's targets: rent vs buy opens on the planner's
        // best setup (built-in: 2x MI355X TP2 bf16 replicas, with 4x B200 TP4 close), which
        // the calibration decides.
        const LoadedScenario l =
            loadScenarioFile(QStringLiteral(GP_EXAMPLES_DIR "/llama31-70b-serve-targets.gpuplan.json"));
        QVERIFY2(l.scenario, qPrintable(l.error));
        ScenarioModel m;
        m.resetScenario(*l.scenario);
        EstimateController estimates(&m);
        estimates.recomputeNow();
        RentBuyPage page(&m, &estimates);
        const auto recommendation = [&](const gp::Calibration* c, const QString& file) {
            ReportBuilder b(m.scenario(), estimates.estimate(), estimates.catalog());
            b.setSections(ReportBuilder::PlanSection);
            b.setCalibration(c, file);
            b.prepare();
            return b.recommendation();
        };
        const ReportRecommendation builtin = recommendation(nullptr, QString());
        QCOMPARE(builtin.source, ReportRecommendation::Source::Plan);
        QVERIFY2(page.result(), qPrintable(page.error()));
        QCOMPARE(page.result()->gpu, builtin.gpu);
        QCOMPARE(page.result()->count, builtin.gpus);

        // Blackwell's and CDNA's 16-bit GEMMs at a quarter of their fitted rate: neither
        // meets the targets in bf16, and the plan (so the page) moves to another setup.
        const QString file = path(QStringLiteral("slow-blackwell.json"));
        QVERIFY(writeAll(file, calibrationDocument({{"family_blackwell_gemm16_scale", 0.25},
                                                    {"family_cdna_gemm16_scale", 0.25}})));
        QString error;
        const CalibrationChoice c = loadCalibrationFile(file, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        estimates.setCalibration(c.calibration, c.path);
        QCOMPARE(recommendedIndex(estimates.estimate()), -1);
        const ReportRecommendation calibrated = recommendation(c.calibration.get(), c.path);
        QCOMPARE(calibrated.source, ReportRecommendation::Source::Plan);
        QVERIFY2(calibrated.setup != builtin.setup, qPrintable(calibrated.setup));
        QVERIFY2(page.result(), qPrintable(page.error()));
        QCOMPARE(page.result()->gpu, calibrated.gpu);
        QCOMPARE(page.result()->count, calibrated.gpus);
        QCOMPARE(page.countSpin()->value(), calibrated.gpus);

        // And back.
        estimates.setCalibration(nullptr, QString());
        QCOMPARE(page.result()->gpu, builtin.gpu);
        QCOMPARE(page.result()->count, builtin.gpus);
    }

    void theExportedPdfNamesTheCalibration()
    {
        const QString pdftotext = QStandardPaths::findExecutable(QStringLiteral("pdftotext"));
        if (pdftotext.isEmpty())
            QSKIP("pdftotext not on PATH; the report builder's text is checked above");
        const QString ini = newIni();
        Settings(ini).setCalibrationFile(goodFile());
        auto w = makeWindow(ini);
        const QString pdf = path(QStringLiteral("report.pdf"));
        QVERIFY(w->exportReport(pdf));
        QProcess p;
        p.start(pdftotext, {pdf, QStringLiteral("-")});
        QVERIFY(p.waitForFinished(60000));
        // Lines wrap where the page ends: compare with the white space folded.
        const QString text = QString::fromUtf8(p.readAllStandardOutput()).simplified();
        QVERIFY2(text.contains(QStringLiteral("Calibration: my-cluster.json")), qPrintable(text.right(2000)));
        QVERIFY(text.contains(QStringLiteral("Prices change weekly. Calibration: my-cluster.json")));
        QVERIFY(m_errors.isEmpty());
    }
};

QTEST_MAIN(TestCalibrationSetting)
#include "tst_calibrationsetting.moc"
