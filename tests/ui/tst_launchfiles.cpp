// "Launch files..." in the app: from a Planner option (button and context menu
// action), from the current scenario (File menu), the files written atomically
// into the chosen folder, refusals shown with their reason, and the report's
// appendix listing the commands.
#include "ui/estimatecontroller.h"
#include "ui/launchdialog.h"
#include "ui/mainwindow.h"
#include "ui/plancontroller.h"
#include "ui/plannerpage.h"
#include "ui/plantablemodel.h"
#include "ui/reportlaunch.h"
#include "ui/scenariofile.h"
#include "ui/scenariomodel.h"
#include "ui/settings.h"

#include "core/engines/launch.h"
#include "core/plan/planner.h"

#include <QAction>
#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

using namespace gp::ui;

namespace {

gp::Scenario example(const char* name)
{
    const LoadedScenario l = loadScenarioFile(QStringLiteral(GP_EXAMPLES_DIR "/") + QLatin1String(name));
    if (!l.scenario)
        qFatal("cannot load %s: %s", name, qPrintable(l.error));
    return *l.scenario;
}

QString readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

} // namespace

class TestLaunchFiles : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QStandardPaths::setTestModeEnabled(true);
        qputenv("GPUPLANNER_CATALOG_OVERLAY", m_dir.filePath(QStringLiteral("no-overlay.json")).toUtf8());
    }

    void plannerOptionWritesTheFiles()
    {
        ScenarioModel m;
        m.resetScenario(example("llama31-70b-serve-2xh100-tp.gpuplan.json"));
        EstimateController estimates(&m);
        PlanController controller(&m, &estimates);
        PlannerPage page(&m, &controller);
        controller.recomputeNow();
        page.tableView()->selectRow(0);
        const int row = page.selectedRow();
        QVERIFY(row >= 0);
        QVERIFY(page.launchButton()->isEnabled());
        const gp::PlanOption want = *page.tableModel()->option(row);

        // The button opens the non-modal dialog on the selected option.
        QTest::mouseClick(page.launchButton(), Qt::LeftButton);
        auto* dialog = page.findChild<LaunchDialog*>();
        QVERIFY(dialog);
        QVERIFY(dialog->isVisible());
        QVERIFY(!dialog->isModal());
        QCOMPARE(dialog->target().scenario.hardware.tp, want.tp);
        QCOMPARE(dialog->target().scenario.inference.batch, want.microBatch);
        // Serving engines only, for a serving scenario.
        QCOMPARE(dialog->engineCombo()->count(), 3);
        const int vllm = dialog->engineCombo()->findData(QStringLiteral("vllm"));
        QVERIFY(vllm >= 0);
        dialog->engineCombo()->setCurrentIndex(vllm);
        QVERIFY(dialog->preview()->toPlainText().contains(QStringLiteral("vllm serve meta-llama/Llama-3.1-70B-Instruct")));
        // No folder yet: said, nothing written.
        QVERIFY(!dialog->writeFiles().isEmpty());
        const QString folder = m_dir.filePath(QStringLiteral("planner-option"));
        dialog->folderEdit()->setText(folder);
        QTest::mouseClick(dialog->writeButton(), Qt::LeftButton);
        QVERIFY2(dialog->resultLabel()->text().startsWith(QStringLiteral("Wrote serve.sh")), qPrintable(dialog->resultLabel()->text()));
        const QString script = readAll(folder + QStringLiteral("/serve.sh"));
        QVERIFY(script.contains(QStringLiteral("--tensor-parallel-size %1").arg(want.tp)));
        QVERIFY(script.contains(QStringLiteral("--max-num-seqs %1").arg(want.microBatch)));
        QVERIFY(script.contains(QStringLiteral("GPU KV cache size: ")));
        QVERIFY(QFile::permissions(folder + QStringLiteral("/serve.sh")) & QFileDevice::ExeOwner);
        // The same files as the CLI writes for the option.
        const gp::LaunchTarget t = gp::launchTargetForOption(m.scenario(), want, estimates.catalog(), estimates.calibration());
        QCOMPARE(script.toStdString(), gp::generateLaunch(t, "vllm").files[0].text);
        dialog->close();
        // The menu's other engine, through the page's own hook.
        auto* second = page.launchFiles(row);
        QVERIFY(second);
        second->engineCombo()->setCurrentIndex(second->engineCombo()->findData(QStringLiteral("trtllm")));
        second->folderEdit()->setText(folder);
        QCOMPARE(second->writeFiles(), QString());
        QVERIFY(QFile::exists(folder + QStringLiteral("/extra_llm_api_options.yaml")));
        second->close();
        QVERIFY(page.launchFiles(-1) == nullptr);
    }

    void refusalIsShownWithItsReason()
    {
        gp::Scenario s = example("resnet18-seed-train-b1.gpuplan.json");
        s.hardware.gpus = {"nvidia-h100-sxm"};
        const gp::LaunchTarget t = gp::launchTargetForScenario(s, gp::Catalog::builtin());
        LaunchDialog d(t, nullptr);
        QCOMPARE(d.engineCombo()->count(), 4); // the training engines
        d.engineCombo()->setCurrentIndex(d.engineCombo()->findData(QStringLiteral("torchtune")));
        QVERIFY(!d.writeButton()->isEnabled());
        QVERIFY(d.preview()->toPlainText().contains(QStringLiteral("torchtune fine-tunes language models; ResNet-18 is a vision model")));
        d.engineCombo()->setCurrentIndex(d.engineCombo()->findData(QStringLiteral("deepspeed")));
        QVERIFY(d.writeButton()->isEnabled());
        QVERIFY(d.preview()->toPlainText().contains(QStringLiteral("deepspeed")));
    }

    void writingFailsCleanly()
    {
        // The folder is a file: the reason is given, nothing is written.
        const QString file = m_dir.filePath(QStringLiteral("not-a-folder"));
        QFile f(file);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("x");
        f.close();
        gp::LaunchFiles files;
        files.files.push_back({"serve.sh", "#!/bin/sh\n", true});
        QVERIFY(!writeLaunchFiles(file, files).isEmpty());
        QCOMPARE(readAll(file), QStringLiteral("x"));
    }

    void fileMenuLaunchesTheScenario()
    {
        MainWindow w(std::make_unique<Settings>(m_dir.filePath(QStringLiteral("settings.ini"))));
        auto* action = w.findChild<QAction*>(QStringLiteral("launchFilesAction"));
        QVERIFY(action);
        bool inFileMenu = false;
        for (QAction* a : w.menuBar()->actions())
            if (a->menu() && a->menu()->actions().contains(action))
                inFileMenu = true;
        QVERIFY(inFileMenu);
        QVERIFY(w.findChild<QAction*>(QStringLiteral("addMeasurementsAction")));
    }

    void addMyMeasurementsWritesRecords()
    {
        const QString logs = QStringLiteral(GP_TEST_DATA_DIR "/logs/");
        const LoadedScenario base = loadScenarioFile(logs + QStringLiteral("llama31-8b-h100-serve.gpuplan.json"));
        QVERIFY(base.scenario);
        const QString dir = m_dir.filePath(QStringLiteral("measurements"));
        QString error;
        const QStringList lines = recordLogsInto({logs + QStringLiteral("vllm-serve-llama31-8b-h100.log")}, dir,
                                                 *base.scenario, gp::Catalog::builtin(), &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QVERIFY(lines.first().contains(QStringLiteral("(vllm-server): 6 measured values")));
        const QString written = readAll(dir + QStringLiteral("/recorded-vllm-serve-llama31-8b-h100.json"));
        QVERIFY(written.contains(QStringLiteral("\"kv_cache_tokens\": 444080")));
        // Without a GPU in the base scenario: refused with what is missing, nothing written.
        gp::Scenario noGpu = *base.scenario;
        noGpu.hardware.gpus.clear();
        const QString other = m_dir.filePath(QStringLiteral("measurements-none"));
        QVERIFY(recordLogsInto({logs + QStringLiteral("vllm-serve-llama31-8b-h100.log")}, other, noGpu,
                               gp::Catalog::builtin(), &error).isEmpty());
        QVERIFY(error.contains(QStringLiteral("hardware.gpus: the log does not name the GPU")));
        QVERIFY(!QFile::exists(other));
    }

    void reportAppendixListsTheCommands()
    {
        const gp::Scenario s = example("llama31-70b-serve-2xh100-tp.gpuplan.json");
        const gp::PlanResult plan = gp::plan(s, gp::Catalog::builtin(), gp::PlanRequest{5, nullptr});
        const QString html = launchAppendixHtml(s, &plan, gp::Catalog::builtin(), nullptr);
        QVERIFY(html.contains(QStringLiteral("Appendix: launch commands")));
        QVERIFY(html.contains(QStringLiteral("plan option 1")));
        QVERIFY(html.contains(QStringLiteral("vllm serve meta-llama/Llama-3.1-70B-Instruct")));
        QVERIFY(html.contains(QStringLiteral("sglang.launch_server")));
        QVERIFY(html.contains(QStringLiteral("trtllm-serve")));
        // A training scenario: its engines, and the refusal of the one that cannot run it.
        gp::Scenario r = example("resnet18-seed-train-b1.gpuplan.json");
        r.hardware.gpus = {"nvidia-l4"};
        const QString t = launchAppendixHtml(r, nullptr, gp::Catalog::builtin(), nullptr);
        QVERIFY(t.contains(QStringLiteral("deepspeed --num_gpus 1 train.py")));
        QVERIFY(t.contains(QStringLiteral("Not for this option: torchtune fine-tunes language models")));
    }
};

QTEST_MAIN(TestLaunchFiles)
#include "tst_launchfiles.moc"
