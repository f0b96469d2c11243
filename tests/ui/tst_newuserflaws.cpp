// The desktop flaws a new user hit (issue 19), each reproduced through the
// widgets or the file round trip: states the form can reach are states the
// file format accepts, a refused field blocks Ctrl+S and is named by its label,
// the planner says what would help, the decimal-separator hint.
#include "ui/documentmanager.h"
#include "ui/format.h"
#include "ui/estimatecontroller.h"
#include "ui/mainwindow.h"
#include "ui/numberfield.h"
#include "ui/plancontroller.h"
#include "ui/plannerpage.h"
#include "ui/resultspage.h"
#include "ui/scenarioform.h"
#include "ui/scenariomodel.h"
#include "ui/sessionautosave.h"
#include "ui/settings.h"

#include "ui/charts/chartfactory.h"
#include "ui/charts/plannercharts.h"
#include "ui/modelspecs.h"
#include "ui/reporttables.h"
#include "tests/common/hfconfigs.h"

#include "core/hardware/catalog.h"
#include "core/estimate/estimate.h"
#include "core/hardware/mig.h"
#include "core/plan/planner.h"
#include "core/plan/rentbuy.h"
#include "core/scenario/scenario.h"

#include <QAbstractBarSeries>
#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QAbstractTextDocumentLayout>
#include <QComboBox>
#include <QTextBlock>
#include <QTextDocument>
#include <QTextLayout>
#include <QLegend>
#include <QLegendMarker>
#include <QScatterSeries>
#include <QRadioButton>
#include <QStatusBar>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QListWidget>
#include <QMessageBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>

#include <clocale>
#include <cstdio>
#include <memory>

using namespace gp::ui;
using Field = ScenarioModel::Field;

class TestNewUserFlaws : public QObject
{
    Q_OBJECT
private:
    std::unique_ptr<QTemporaryDir> m_dir;
    QStringList m_errors;
    QStringList m_notices;

    QString autosaveDir() const { return m_dir->filePath(QStringLiteral("autosave")); }

    std::unique_ptr<MainWindow> makeWindow()
    {
        auto w = std::make_unique<MainWindow>(std::make_unique<Settings>(m_dir->filePath(QStringLiteral("s.ini"))));
        w->setErrorReporter([this](const QString& t, const QString& m) { m_errors << t + QStringLiteral(": ") + m; });
        w->setNotifier([this](const QString& t, const QString& m) { m_notices << t + QStringLiteral(": ") + m; });
        w->documentManager()->setSavePrompt([] { return int(QMessageBox::Discard); });
        w->documentManager()->setRecoveryPrompt([](const QString&) { return true; });
        return w;
    }

    static QComboBox* combo(MainWindow& w, Field f) { return qobject_cast<QComboBox*>(w.form()->editorFor(f)); }

    /// Clicks the "Training" or "Inference" radio button.
    static void clickMode(MainWindow& w, gp::Mode mode)
    {
        const QString name = mode == gp::Mode::Training ? QStringLiteral("Mode: training") : QStringLiteral("Mode: inference");
        for (auto* b : w.form()->editorFor(Field::Mode)->findChildren<QRadioButton*>())
            if (b->accessibleName() == name)
                return b->click();
        QFAIL("no mode button");
    }

    static void pick(QComboBox* c, const QVariant& data)
    {
        const int i = c->findData(data);
        QVERIFY(i >= 0);
        c->setCurrentIndex(i);
    }

    /// What File > Open and the CLI do with a saved file.
    static bool opensAgain(const QString& path, QString* why = nullptr)
    {
        QFile f(path);
        if (!f.open(QIODevice::ReadOnly))
            return false;
        try {
            (void)gp::parseScenario(f.readAll().toStdString());
            return true;
        } catch (const gp::InputError& e) {
            if (why)
                *why = QString::fromStdString(e.problems().front().text());
            return false;
        }
    }

    /// Types into a number field as a user does: select all, type, each key an event.
    static void typeInto(NumberField* n, const QString& text)
    {
        n->setFocus();
        n->selectAll();
        QTest::keyClicks(n, text);
    }

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        m_dir = std::make_unique<QTemporaryDir>();
        QVERIFY(m_dir->isValid());
        qputenv("GPUPLANNER_CATALOG_OVERLAY", m_dir->filePath(QStringLiteral("no-overlay.json")).toUtf8());
    }

    void init()
    {
        m_errors.clear();
        m_notices.clear();
    }

    // Flaw 1: Inference, "Serving engine", then Training: the runtime follows in the same undo step.
    void servingThenTrainingSavesAFileThatOpens()
    {
        auto w = makeWindow();
        ScenarioModel* m = w->documentManager()->model();
        clickMode(*w, gp::Mode::Inference);
        pick(combo(*w, Field::Runtime), static_cast<int>(gp::Runtime::Serving));
        QCOMPARE(static_cast<int>(m->scenario().runtime), static_cast<int>(gp::Runtime::Serving));
        const int steps = m->undoStack()->count();
        clickMode(*w, gp::Mode::Training);
        QCOMPARE(static_cast<int>(m->scenario().mode), static_cast<int>(gp::Mode::Training));
        QCOMPARE(static_cast<int>(m->scenario().runtime), static_cast<int>(gp::Runtime::Eager));
        QCOMPARE(combo(*w, Field::Runtime)->currentData().toInt(), static_cast<int>(gp::Runtime::Eager));
        QVERIFY2(m->isValid(), qPrintable(m->problemTexts().join(QLatin1Char('\n'))));
        QCOMPARE(m->undoStack()->count(), steps + 1); // one step: mode and runtime together
        const QString path = m_dir->filePath(QStringLiteral("serving-then-training.gpuplan.json"));
        QVERIFY(w->documentManager()->saveTo(path));
        QString why;
        QVERIFY2(opensAgain(path, &why), qPrintable(why));
        m->undoStack()->undo();
        QCOMPARE(static_cast<int>(m->scenario().mode), static_cast<int>(gp::Mode::Inference));
        QCOMPARE(static_cast<int>(m->scenario().runtime), static_cast<int>(gp::Runtime::Serving));
        // "Serving engine (...; inference only)" picked while training: the mode follows.
        m->undoStack()->redo();
        pick(combo(*w, Field::Runtime), static_cast<int>(gp::Runtime::Serving));
        QCOMPARE(static_cast<int>(m->scenario().mode), static_cast<int>(gp::Mode::Inference));
        QVERIFY(m->isValid());
        QVERIFY(m_errors.isEmpty());
    }

    // Flaw 1: MIG slice "3g" with no GPU ticked ticks the GPUs that have a 3g slice.
    void migSliceWithNoGpuTickedTicksTheGpusThatHaveIt()
    {
        auto w = makeWindow();
        ScenarioModel* m = w->documentManager()->model();
        QVERIFY(m->scenario().hardware.gpus.empty());
        const int steps = m->undoStack()->count();
        pick(combo(*w, Field::Mig), QStringLiteral("3g"));
        QCOMPARE(m->scenario().hardware.mig, std::string("3g"));
        QCOMPARE(m->scenario().hardware.count, 1);
        const auto& ids = m->scenario().hardware.gpus;
        QVERIFY(!ids.empty());
        const gp::Catalog& catalog = w->resultsPage()->controller()->catalog();
        std::size_t withSlice = 0;
        for (const auto& g : catalog.gpus()) {
            bool has = false;
            for (const auto& p : gp::migProfiles(g))
                has = has || p.name == "3g";
            withSlice += has ? 1 : 0;
            QCOMPARE(std::find(ids.begin(), ids.end(), g.id) != ids.end(), has);
        }
        QCOMPARE(ids.size(), withSlice);
        QVERIFY(ids.size() >= 3); // A100, H100, H200 at least
        QVERIFY2(m->isValid(), qPrintable(m->problemTexts().join(QLatin1Char('\n'))));
        QCOMPARE(m->undoStack()->count(), steps + 1);
        const QString path = m_dir->filePath(QStringLiteral("mig.gpuplan.json"));
        QVERIFY(w->documentManager()->saveTo(path));
        QString why;
        QVERIFY2(opensAgain(path, &why), qPrintable(why));
        // Unticking every GPU (clicking each ticked item) goes back to whole GPUs.
        QListWidget* list = w->form()->gpuList();
        for (int i = 0; i < list->count(); ++i)
            if (list->item(i)->checkState() == Qt::Checked)
                list->item(i)->setCheckState(Qt::Unchecked);
        QVERIFY(m->scenario().hardware.gpus.empty());
        QCOMPARE(m->scenario().hardware.mig, std::string());
        QVERIFY(m->isValid());
        // Two GPUs per job with a slice: the slice goes, in the same step.
        pick(combo(*w, Field::Mig), QStringLiteral("1g"));
        w->form()->numberFor(Field::Count)->setValue(2);
        QCOMPARE(m->scenario().hardware.count, 2);
        QCOMPARE(m->scenario().hardware.mig, std::string());
        m->undoStack()->undo();
        QCOMPARE(m->scenario().hardware.count, 1);
        QCOMPARE(m->scenario().hardware.mig, std::string("1g"));
    }

    // Flaw 1: a save never writes what open refuses; the message names labels.
    void saveRefusesAScenarioOpenWouldRefuse()
    {
        auto w = makeWindow();
        ScenarioModel* m = w->documentManager()->model();
        m->setValues(QStringLiteral("layout"), {{Field::Tp, 2}, {Field::Count, 3}});
        QVERIFY(!m->isValid());
        const QString path = m_dir->filePath(QStringLiteral("refused.gpuplan.json"));
        QVERIFY(!w->documentManager()->saveTo(path));
        QVERIFY(!QFile::exists(path));
        QCOMPARE(m_errors.size(), 1);
        QVERIFY2(m_errors.first().contains(QStringLiteral("GPUs per job: must be a multiple of tp x pp = 2, got 3")),
                 qPrintable(m_errors.first()));
        QVERIFY(!m_errors.first().contains(QStringLiteral("hardware.count")));
        QVERIFY(w->statusBar()->currentMessage().startsWith(QStringLiteral("Not saved")));
        // The banner names the label too.
        w->resultsPage()->controller()->recomputeNow();
        QVERIFY(w->resultsPage()->controller()->error().startsWith(QStringLiteral("GPUs per job: ")));
    }

    // Flaw 1: a valid-JSON autosave of a scenario that breaks a rule is restored, its problems shown.
    void autosaveWithProblemsIsRestoredAndTheyAreShown()
    {
        // What an older version let the form reach: training on a serving engine.
        gp::Scenario s = gp::defaultScenario();
        s.mode = gp::Mode::Training;
        s.runtime = gp::Runtime::Serving;
        s.training.microBatch = 7;
        QVERIFY(QDir().mkpath(autosaveDir()));
        const QString path = QDir(autosaveDir()).filePath(QStringLiteral("session-20200101-000000-9-1.json"));
        {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(SessionAutosave::serialize(SessionAutosave::Session{s, QString(), true, QDateTime::currentDateTime()}));
        }
        auto w = makeWindow();
        QCOMPARE(w->documentManager()->autosave()->orphans(), QStringList{path});
        QVERIFY2(w->documentManager()->offerRecovery(), qPrintable(m_notices.join(QLatin1Char('\n'))));
        ScenarioModel* m = w->documentManager()->model();
        QCOMPARE(static_cast<int>(m->scenario().runtime), static_cast<int>(gp::Runtime::Serving));
        QCOMPARE(m->scenario().training.microBatch, 7);
        QVERIFY(!m->isValid());
        QVERIFY(w->isWindowModified());
        QCOMPARE(m_notices.size(), 1);
        QVERIFY2(m_notices.first().contains(QStringLiteral("restored with problems")), qPrintable(m_notices.first()));
        QVERIFY(m_notices.first().contains(QStringLiteral("Runtime: \"serving\" (a serving engine")));
        QVERIFY(!m_notices.first().contains(QStringLiteral("workload.runtime")));
        // Saving is refused until it is fixed; picking "Eager" fixes it.
        QVERIFY(!w->documentManager()->saveTo(m_dir->filePath(QStringLiteral("restored.gpuplan.json"))));
        QCOMPARE(m_errors.size(), 1);
        pick(combo(*w, Field::Runtime), static_cast<int>(gp::Runtime::Eager));
        QVERIFY(m->isValid());
        QVERIFY(!QFile::exists(path));
        m_notices.clear();
        w->close();
    }

    // Flaw 2: a refused value blocks Ctrl+S, named by its label, with the text typed.
    void refusedFieldBlocksCtrlS()
    {
        auto w = makeWindow();
        w->show();
        QVERIFY(QTest::qWaitForWindowExposed(w.get()));
        ScenarioModel* m = w->documentManager()->model();
        NumberField* mb = w->form()->numberFor(Field::MicroBatch);
        const int before = m->scenario().training.microBatch;
        typeInto(mb, QStringLiteral("-4"));
        QCOMPARE(m->scenario().training.microBatch, before); // the last good value is kept
        QVERIFY2(mb->inputProblem().startsWith(QStringLiteral("Micro-batch (per GPU): ")), qPrintable(mb->inputProblem()));
        QVERIFY(!mb->inputProblem().contains(QStringLiteral("workload.training")));
        QTest::keySequence(w.get(), QKeySequence::Save); // Ctrl+S
        QCOMPARE(m_errors.size(), 1);
        QVERIFY2(m_errors.first().contains(QStringLiteral("Micro-batch (per GPU): ")), qPrintable(m_errors.first()));
        QVERIFY(m_errors.first().contains(QStringLiteral("(typed \u201c-4\u201d)")));
        QVERIFY(!m_errors.first().contains(QStringLiteral("workload.training.micro_batch")));
        QVERIFY(w->statusBar()->currentMessage().startsWith(QStringLiteral("Not saved: Micro-batch (per GPU)")));
        // Corrected: saving works.
        typeInto(mb, QStringLiteral("3"));
        QVERIFY(mb->inputProblem().isEmpty());
        QVERIFY(w->documentManager()->saveProblem().isEmpty());
        const QString path = m_dir->filePath(QStringLiteral("corrected.gpuplan.json"));
        QVERIFY(w->documentManager()->saveTo(path));
        QVERIFY(opensAgain(path));
        w->close();
    }

    // Flaw 3: inference on "eager" with no option: the planner names the runtime that gives options.
    void plannerSaysWhichRuntimeWouldHelp()
    {
        ScenarioModel m;
        EstimateController estimates(&m);
        PlanController controller(&m, &estimates);
        PlannerPage page(&m, &controller);
        // The shipped serving example (targets on TTFT, TPOT and requests/s), run "eager".
        QFile f(QStringLiteral(GP_EXAMPLES_DIR "/llama31-70b-serve-targets.gpuplan.json"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        gp::Scenario s = gp::parseScenario(f.readAll().toStdString()).scenario;
        s.runtime = gp::Runtime::Eager;
        m.resetScenario(s);
        controller.recomputeNow();
        QVERIFY2(controller.error().isEmpty(), qPrintable(controller.error()));
        if (!controller.result().options.empty())
            QSKIP("eager finds options for this scenario now; the hint is for when it finds none");
        // The hint names the runtime of this mode that gives the most options, with their count.
        gp::Scenario serving = s;
        serving.runtime = gp::Runtime::Serving;
        gp::Scenario optimized = s;
        optimized.runtime = gp::Runtime::Optimized;
        const long long feasibleServing = gp::plan(serving, estimates.catalog(), gp::PlanRequest{1, nullptr}).feasible;
        const long long feasibleOptimized = gp::plan(optimized, estimates.catalog(), gp::PlanRequest{1, nullptr}).feasible;
        QVERIFY(std::max(feasibleServing, feasibleOptimized) > 0);
        const bool servingWins = feasibleServing >= feasibleOptimized;
        const QString name = servingWins ? QStringLiteral("Serving engine") : QStringLiteral("Optimized");
        QCOMPARE(controller.suggestion(), QStringLiteral("Switch the runtime to %1: %2 options fit and meet the targets.")
                                              .arg(name)
                                              .arg(servingWins ? feasibleServing : feasibleOptimized));
        QVERIFY(page.summaryLabel()->text().contains(QStringLiteral("Switch the runtime to ") + name));
    }

    // Flaw 4: the cost chart's bars and axis have one unit; a GPU without a price says so (app and PDF).
    void costChartHasOneUnitAndSaysNoPrice()
    {
        gp::Scenario s = gp::defaultScenario();
        s.mode = gp::Mode::Training;
        s.training.datasetTokens = 1e9;
        // H100 fits and has a run cost; MI210 has no price in the catalog; the L4 (24 GB) does not fit.
        s.hardware.gpus = {"nvidia-h100-sxm", "amd-mi210", "nvidia-l4"};
        const gp::Estimate e = gp::estimate(s, gp::Catalog::builtin());
        QCOMPARE(costBasis(e), CostBasis::PerRun);
        std::unique_ptr<QChart> chart(charts::buildChart(charts::ChartKind::Cost, e, charts::ChartOptions{}));
        const auto xAxes = chart->axes(Qt::Horizontal);
        QCOMPARE(xAxes.size(), 1);
        QCOMPARE(xAxes.first()->titleText(), QStringLiteral("Cost to train (USD)"));
        auto* bars = qobject_cast<QAbstractBarSeries*>(chart->series().first());
        QVERIFY(bars);
        QCOMPARE(bars->labelsFormat(), QStringLiteral("$@value")); // no "/h" on a cost-to-train axis
        auto* yAxis = qobject_cast<QBarCategoryAxis*>(chart->axes(Qt::Vertical).first());
        QVERIFY(yAxis);
        const QStringList categories = yAxis->categories();
        QVERIFY2(categories.contains(QStringLiteral("MI210 (no price)")) ||
                     std::any_of(categories.begin(), categories.end(),
                                 [](const QString& c) { return c.contains(QStringLiteral("MI210")) && c.endsWith(QStringLiteral("(no price)")); }),
                 qPrintable(categories.join(QStringLiteral(" | "))));
        // Every bar's value is the run cost of its GPU, never its $/h.
        for (QBarSet* set : bars->barSets()) {
            const QString id = set->property("gpuId").toString();
            const auto it = std::find_if(e.results.begin(), e.results.end(),
                                         [&](const auto& r) { return QString::fromStdString(r.gpuId) == id; });
            QVERIFY(it != e.results.end());
            const double shown = set->sum();
            const auto expected = costOn(*it, CostBasis::PerRun);
            QCOMPARE(shown, expected.value_or(0.0));
            if (it->usdPerHour > 0 && expected)
                QVERIFY(shown != it->usdPerHour);
        }
        // Without a dataset size there is no run cost: every bar and the axis are $/h.
        s.training.datasetTokens.reset();
        s.training.datasetSamples.reset();
        const gp::Estimate hourly = gp::estimate(s, gp::Catalog::builtin());
        if (costBasis(hourly) == CostBasis::PerHour) {
            std::unique_ptr<QChart> c2(charts::buildChart(charts::ChartKind::Cost, hourly, charts::ChartOptions{}));
            QCOMPARE(c2->axes(Qt::Horizontal).first()->titleText(), QStringLiteral("Cost (USD/h)"));
            QCOMPARE(qobject_cast<QAbstractBarSeries*>(c2->series().first())->labelsFormat(), QStringLiteral("$@value/h"));
        }
    }

    // Flaw 8: the memory chart's tooltip names the GPU; the break-even is named off the curves.
    void chartsNameWhatTheyShow()
    {
        QCOMPARE(charts::detail::memoryTip(QStringLiteral("RTX 4090"), QStringLiteral("Weights"), 15.01),
                 QStringLiteral("RTX 4090 — Weights: 15 GiB"));
        gp::Scenario s = gp::defaultScenario();
        s.hardware.gpus = {"nvidia-h100-sxm"};
        const auto& h100 = *gp::Catalog::builtin().find("nvidia-h100-sxm");
        const gp::RentVsBuy r = gp::rentVsBuy(s, h100, 1);
        QVERIFY(r.breakEvenMonth.has_value());
        std::unique_ptr<QChart> chart(charts::buildRentBuyChart(r, charts::ChartOptions{}));
        const auto all = chart->series();
        const auto mark = std::find_if(all.begin(), all.end(), [&](QAbstractSeries* x) {
            return x->name() == charts::breakEvenSeriesName(*r.breakEvenMonth);
        });
        QVERIFY(mark != all.end());
        auto* scatter = qobject_cast<QScatterSeries*>(*mark);
        QVERIFY(scatter);
        QVERIFY(!scatter->pointLabelsVisible()); // no text on the curves
        const auto markers = chart->legend()->markers(scatter);
        QCOMPARE(markers.size(), 1);
        // In the legend as the curves are ("Break-even: month N").
        QCOMPARE(markers.first()->isVisible(), chart->legend()->markers(all.first()).first()->isVisible());
        QCOMPARE(markers.first()->label(), QStringLiteral("Break-even: month %1").arg(*r.breakEvenMonth));
    }

    // Flaw 8: a Qwen2.5 config.json names the scenario from the model as the Hub spells it, not "qwen2".
    void importedConfigNamesTheScenarioFromTheModel()
    {
        QCOMPARE(modelNameFromPath(QStringLiteral("/data/Qwen2.5-7B/config.json")), QStringLiteral("Qwen2.5-7B"));
        QCOMPARE(modelNameFromPath(QStringLiteral("/home/u/.cache/huggingface/hub/models--Qwen--Qwen2.5-7B/snapshots/"
                                                  "a09a35458c702b33eeacc393d103063234e8bc28/config.json")),
                 QStringLiteral("Qwen2.5-7B"));
        QCOMPARE(modelNameFromPath(QStringLiteral("/home/u/Downloads/Llama-3.1-8B-Instruct-config.json")),
                 QStringLiteral("Llama-3.1-8B-Instruct"));
        QCOMPARE(modelNameFromPath(QStringLiteral("/home/u/Downloads/config.json")), QString());
        // Through the form, as File > Import config.json... does it.
        const QString dir = m_dir->filePath(QStringLiteral("Qwen2.5-72B"));
        QVERIFY(QDir().mkpath(dir));
        QFile f(dir + QStringLiteral("/config.json"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(gp::test::kQwen25_72bConfig);
        f.close();
        auto w = makeWindow();
        w->form()->importHfConfig(f.fileName());
        QVERIFY2(m_errors.isEmpty(), qPrintable(m_errors.join(QLatin1Char('\n'))));
        const auto& sc = w->documentManager()->model()->scenario();
        QCOMPARE(QString::fromStdString(sc.model.name), QStringLiteral("Qwen2.5-72B"));
        QVERIFY2(QString::fromStdString(sc.name).startsWith(QStringLiteral("Qwen2.5-72B")), sc.name.c_str());
        QCOMPARE(sc.model.hidden, 8192); // the rest of the config as written
        // Saved and opened again: the same name.
        const QString path = m_dir->filePath(QStringLiteral("qwen.gpuplan.json"));
        QVERIFY(w->documentManager()->saveTo(path));
        QFile saved(path);
        QVERIFY(saved.open(QIODevice::ReadOnly));
        QCOMPARE(gp::parseScenario(saved.readAll().toStdString()).scenario.model.name, std::string("Qwen2.5-72B"));
    }

    // Flaw 5: report tables break lines only between words: prices and header words stay whole.
    void reportTablesKeepWordsWhole()
    {
        QString html = QStringLiteral("<table border='1' cellspacing='0' width='100%'><tr>");
        for (const char* h : {"#", "GPU", "Count", "Layout", "Precision", "Batch / replica", "Replicas", "Users / replica",
                              "$/h", "USD per hour for the load", "TPOT (ms)", "GiB / GPU"})
            html += QStringLiteral("<th>%1</th>").arg(QString::fromLatin1(h));
        html += QStringLiteral("</tr>");
        for (int i = 0; i < 3; ++i)
            html += QStringLiteral("<tr><td align='right'>10</td><td>Instinct MI355X</td><td align='right'>1</td><td>single GPU</td>"
                                   "<td>fp4</td><td>batch 16</td><td align='right'>1</td><td>27 (TTFT)</td>"
                                   "<td align='right'>$1.99</td><td align='right'>$3.50</td><td align='right'>9.88</td>"
                                   "<td align='right'>59.8 / 287</td></tr>");
        html += QStringLiteral("</table>");
        const auto midWordBreaks = [](QTextDocument& d) {
            (void)d.documentLayout()->documentSize();
            QStringList broken;
            for (QTextBlock b = d.begin(); b.isValid(); b = b.next())
                for (int i = 0; i + 1 < b.layout()->lineCount(); ++i) {
                    const int end = b.layout()->lineAt(i).textStart() + b.layout()->lineAt(i).textLength();
                    if (end > 0 && end < b.text().size() && !b.text().at(end - 1).isSpace() && !b.text().at(end).isSpace())
                        broken << b.text();
                }
            return broken;
        };
        for (const double width : {600.0, 700.0, 800.0}) {
            QTextDocument plain;
            plain.setTextWidth(width);
            plain.setHtml(html);
            if (width < 650)
                QVERIFY(!midWordBreaks(plain).isEmpty()); // Qt alone breaks "Precision", "Replicas", "Instinct"
            QTextDocument fitted;
            fitted.setTextWidth(width);
            fitted.setHtml(html);
            fitTableColumns(fitted);
            const QStringList broken = midWordBreaks(fitted);
            QVERIFY2(broken.isEmpty(), qPrintable(QStringLiteral("%1 px: %2").arg(width).arg(broken.join(QStringLiteral(", ")))));
        }
    }

    // Flaw 7 (and issue 20's report line): one locale for the numbers of a screen. QApplication
    // set LC_NUMERIC from the environment, so the core's snprintf wrote "8,03B" under de_DE.
    void coreTextAndUiNumbersShareOneLocale()
    {
        const bool german = std::setlocale(LC_NUMERIC, "de_DE.UTF-8") != nullptr;
        if (!german)
            QVERIFY(std::setlocale(LC_NUMERIC, "C.UTF-8") != nullptr || std::setlocale(LC_NUMERIC, "C.utf8") != nullptr);
        auto w = makeWindow();
        QCOMPARE(QByteArray(std::setlocale(LC_NUMERIC, nullptr)), QByteArray("C"));
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.3g", 8.03);
        QCOMPARE(QByteArray(buf), QByteArray("8.03")); // as the core writes it now, whatever the environment
        QCOMPARE(formatNumber(15.01, 4), QStringLiteral("15.01"));
        if (!german)
            qInfo("de_DE.UTF-8 is not installed here: checked the reset from C.UTF-8");
    }

    // Flaw 7: "2.5" where the decimal separator is ",": the message says so.
    void decimalSeparatorHint()
    {
        QCOMPARE(NumberField::separatorHint(QStringLiteral("2.5"), QLocale(QLocale::German)),
                 QStringLiteral("(the decimal separator here is \",\": type 2,5)"));
        QCOMPARE(NumberField::separatorHint(QStringLiteral("2,5"), QLocale(QLocale::German)), QString());
        QCOMPARE(NumberField::separatorHint(QStringLiteral("abc"), QLocale(QLocale::German)), QString());
        const QLocale saved;
        QLocale::setDefault(QLocale(QLocale::German, QLocale::Germany));
        {
            auto w = makeWindow();
            w->show();
            QVERIFY(QTest::qWaitForWindowExposed(w.get()));
            NumberField* util = w->form()->numberFor(Field::Utilization);
            const double before = w->documentManager()->model()->scenario().pricing.utilization;
            typeInto(util, QStringLiteral("0.5"));
            QVERIFY2(util->inputProblem().contains(QStringLiteral("the decimal separator here is \",\": type 0,5")),
                     qPrintable(util->inputProblem()));
            QCOMPARE(w->documentManager()->model()->scenario().pricing.utilization, before);
            typeInto(util, QStringLiteral("0,5"));
            QVERIFY(util->inputProblem().isEmpty());
            QCOMPARE(w->documentManager()->model()->scenario().pricing.utilization, 0.5);
            w->close();
        }
        QLocale::setDefault(saved);
    }
};

QTEST_MAIN(TestNewUserFlaws)
#include "tst_newuserflaws.moc"
