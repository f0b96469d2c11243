// Issue #16 in the app: the form's widgets for the new keys (each edit one undo
// step, saved and opened again), the Planner tab's confidence control, and the
// recommendation that says how sure it is (Results, the Planner summary, page 1
// of the report).
#include "ui/estimatecontroller.h"
#include "ui/plancontroller.h"
#include "ui/plannerpage.h"
#include "ui/reportbuilder.h"
#include "ui/reportrecommendation.h"
#include "ui/resultspage.h"
#include "ui/scenariofile.h"
#include "ui/scenarioform.h"
#include "ui/scenariomodel.h"

#include "core/hardware/catalog.h"
#include "core/estimate/estimate.h"
#include "core/plan/planner.h"
#include "core/scenario/scenario.h"

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>

#include <cmath>

using namespace gp::ui;
using Field = ScenarioModel::Field;

namespace {

QCheckBox* tick(QWidget* box, const QString& text)
{
    for (auto* c : box->findChildren<QCheckBox*>())
        if (c->text() == text)
            return c;
    return nullptr;
}

gp::Scenario reopen(const gp::Scenario& s, const QString& path)
{
    const QString error = saveScenarioFile(s, path);
    if (!error.isEmpty())
        qFatal("cannot save: %s", qPrintable(error));
    const LoadedScenario l = loadScenarioFile(path);
    if (!l.scenario)
        qFatal("cannot open what was saved: %s", qPrintable(l.error));
    return *l.scenario;
}

gp::Scenario serving8b()
{
    gp::Scenario s = gp::defaultScenario();
    s.mode = gp::Mode::Inference;
    s.runtime = gp::Runtime::Serving;
    s.hardware.gpus = {"nvidia-h100-sxm", "nvidia-l40s"};
    return s;
}

} // namespace

class TestPlanConfidenceUi : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        qputenv("GPUPLANNER_CATALOG_OVERLAY", m_dir.filePath(QStringLiteral("no-overlay.json")).toUtf8());
    }

    void switchesAreOneUndoStepAndSaved()
    {
        ScenarioModel model;
        ScenarioForm form(&model);
        auto* chunked = qobject_cast<QCheckBox*>(form.editorFor(Field::ChunkedLoss));
        auto* optBwd = qobject_cast<QCheckBox*>(form.editorFor(Field::OptimizerInBackward));
        auto* consumer = qobject_cast<QCheckBox*>(form.editorFor(Field::Consumer));
        QVERIFY(chunked && optBwd && consumer);
        chunked->click();
        optBwd->click();
        consumer->click();
        QCOMPARE(model.undoStack()->count(), 3); // one step each, never merged
        QVERIFY(model.scenario().training.chunkedLoss && model.scenario().training.optimizerInBackward);
        QVERIFY(model.scenario().hardware.consumer);
        QVERIFY(model.isValid());
        model.undoStack()->undo();
        QVERIFY(!model.scenario().hardware.consumer);
        QVERIFY(!consumer->isChecked()); // the form follows the undo
        model.undoStack()->redo();

        // Saved and opened again: the same values, shown by a new form.
        const gp::Scenario back = reopen(model.scenario(), m_dir.filePath(QStringLiteral("switches.gpuplan.json")));
        ScenarioModel reopened;
        reopened.resetScenario(back);
        ScenarioForm again(&reopened);
        QVERIFY(qobject_cast<QCheckBox*>(again.editorFor(Field::ChunkedLoss))->isChecked());
        QVERIFY(qobject_cast<QCheckBox*>(again.editorFor(Field::OptimizerInBackward))->isChecked());
        QVERIFY(qobject_cast<QCheckBox*>(again.editorFor(Field::Consumer))->isChecked());
    }

    void precisionTicksFollowTheMode()
    {
        ScenarioModel model;
        ScenarioForm form(&model);
        QWidget* box = form.editorFor(Field::Precisions);
        QVERIFY(box);
        // Training offers the training formats.
        QVERIFY(tick(box, QStringLiteral("amp_bf16")));
        QVERIFY(!tick(box, QStringLiteral("int4")));
        tick(box, QStringLiteral("bf16"))->click();
        tick(box, QStringLiteral("fp8"))->click();
        QCOMPARE(model.undoStack()->count(), 2);
        QCOMPARE(model.scenario().hardware.precisions, (std::vector<std::string>{"bf16", "fp8"}));
        QVERIFY(model.isValid());
        // Switching to inference clears them in the same undo step: the form never
        // holds training formats under an inference workload (a file the format refuses).
        model.setValues(QStringLiteral("Change Mode"),
                        {{Field::Mode, static_cast<int>(gp::Mode::Inference)}, {Field::Precisions, QStringList()}});
        QVERIFY(model.scenario().hardware.precisions.empty());
        QVERIFY(model.isValid());
        QVERIFY(tick(box, QStringLiteral("int4")));
        QVERIFY(!tick(box, QStringLiteral("amp_bf16")));
        tick(box, QStringLiteral("int4"))->click();
        QCOMPARE(model.scenario().hardware.precisions, (std::vector<std::string>{"int4"}));
        const gp::Scenario back = reopen(model.scenario(), m_dir.filePath(QStringLiteral("precisions.gpuplan.json")));
        QCOMPARE(back.hardware.precisions, (std::vector<std::string>{"int4"}));
        ScenarioModel reopened;
        reopened.resetScenario(back);
        ScenarioForm again(&reopened);
        QVERIFY(tick(again.editorFor(Field::Precisions), QStringLiteral("int4"))->isChecked());
        QVERIFY(!tick(again.editorFor(Field::Precisions), QStringLiteral("bf16"))->isChecked());
        // Undo all the way: back to the training formats ticked, then none.
        model.undoStack()->undo(); // int4
        model.undoStack()->undo(); // the mode switch
        QVERIFY(model.scenario().mode == gp::Mode::Training);
        QCOMPARE(model.scenario().hardware.precisions, (std::vector<std::string>{"bf16", "fp8"}));
        QVERIFY(tick(box, QStringLiteral("fp8"))->isChecked());
    }

    void plannerConfidenceControl()
    {
        ScenarioModel m;
        m.resetScenario(serving8b());
        EstimateController estimates(&m);
        PlanController controller(&m, &estimates);
        PlannerPage page(&m, &controller);
        QComboBox* combo = page.confidenceCombo();
        QVERIFY(combo);
        QCOMPARE(combo->currentData().toDouble(), 0.9); // the default
        const int i99 = combo->findData(0.99);
        QVERIFY(i99 >= 0);
        combo->setCurrentIndex(i99);
        emit combo->activated(i99);
        QCOMPARE(m.scenario().hardware.confidence, 0.99);
        QCOMPARE(m.undoStack()->count(), 1);
        controller.recomputeNow();
        QCOMPARE(controller.result().confidence, 0.99);
        QVERIFY(page.statusLabel()->text().contains(QStringLiteral("99% confidence")));
        // The summary says how sure the best option is.
        bool said = false;
        for (auto* l : page.findChildren<QLabel*>())
            said = said || (l->text().contains(QStringLiteral("<b>Best:</b>")) && l->text().contains(QStringLiteral("How sure:")) &&
                            l->text().contains(QStringLiteral("ranked at 99% confidence")));
        QVERIFY(said);
        // Saved with the scenario.
        const gp::Scenario back = reopen(m.scenario(), m_dir.filePath(QStringLiteral("confidence.gpuplan.json")));
        QCOMPARE(back.hardware.confidence, 0.99);
        // Undo: the control follows.
        m.undoStack()->undo();
        QCOMPARE(m.scenario().hardware.confidence, 0.9);
        QCOMPARE(combo->currentData().toDouble(), 0.9);
        // A value from a file that is not in the list is offered as it is.
        gp::Scenario odd = serving8b();
        odd.hardware.confidence = 0.975;
        m.resetScenario(odd);
        QCOMPARE(combo->currentData().toDouble(), 0.975);
    }

    void recommendationSaysHowSure()
    {
        ScenarioModel m;
        m.resetScenario(serving8b());
        EstimateController estimates(&m);
        estimates.recomputeNow();
        const gp::Estimate& e = estimates.estimate();
        const int i = recommendedIndex(e);
        QVERIFY(i >= 0);
        const auto& r = e.results[static_cast<std::size_t>(i)];
        const QString text = recommendationText(e);
        // No latency target is in doubt here (meets_targets = 1): it says how sure it is to fit.
        QVERIFY2(text.contains(QStringLiteral("How sure: ") + confidenceText(r, r.confidence.meetsTargets < 1)), qPrintable(text));
        QVERIFY(text.contains(QStringLiteral("%1% sure to fit").arg(std::floor(r.confidence.fits * 100))));
        // The Results tab (the first screen) shows it.
        ResultsPage page(&estimates);
        page.showEstimate();
        bool shown = false;
        for (auto* l : page.findChildren<QLabel*>())
            shown = shown || (l->text().contains(QStringLiteral("Recommendation:")) && l->text().contains(QStringLiteral("How sure:")));
        QVERIFY(shown);
        // Page 1 of the report.
        ReportBuilder b(m.scenario(), e, gp::Catalog::builtin());
        b.prepare();
        QVERIFY(b.htmlBeforeCharts().contains(QStringLiteral("How sure:")));
    }
};

QTEST_MAIN(TestPlanConfidenceUi)
#include "tst_planconfidenceui.moc"
