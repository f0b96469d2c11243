#include "ui/scenariomodel.h"

#include "core/scenario.h"

#include <QSignalSpy>
#include <QUndoStack>
#include <QtTest>

using gp::ui::ScenarioModel;
using Field = ScenarioModel::Field;

class TestScenarioModel : public QObject
{
    Q_OBJECT
private slots:
    void startsOnDefaultScenario()
    {
        ScenarioModel m;
        QCOMPARE(QString::fromStdString(m.scenario().name), QString::fromStdString(gp::defaultScenario().name));
        QVERIFY(m.isValid());
        QCOMPARE(m.undoStack()->count(), 0);
    }

    void consecutiveEditsOfOneFieldMerge()
    {
        ScenarioModel m;
        const int before = m.scenario().training.microBatch;
        m.setMicroBatch(before + 1);
        m.setMicroBatch(before + 2);
        m.setMicroBatch(before + 4);
        QCOMPARE(m.undoStack()->count(), 1);
        QCOMPARE(m.scenario().training.microBatch, before + 4);
        m.undoStack()->undo();
        QCOMPARE(m.scenario().training.microBatch, before);
        m.undoStack()->redo();
        QCOMPARE(m.scenario().training.microBatch, before + 4);
    }

    void editsOfDifferentFieldsDoNotMerge()
    {
        ScenarioModel m;
        m.setMicroBatch(16);
        m.setSeqLen(4096);
        m.setMicroBatch(32);
        QCOMPARE(m.undoStack()->count(), 3);
        m.undoStack()->undo();
        QCOMPARE(m.scenario().training.microBatch, 16);
        QCOMPARE(m.scenario().training.seqLen, 4096);
    }

    void unchangedValueRecordsNothing()
    {
        ScenarioModel m;
        m.setMicroBatch(m.scenario().training.microBatch);
        QCOMPARE(m.undoStack()->count(), 0);
    }

    void backToStartMakesTheStepObsolete()
    {
        ScenarioModel m;
        const int before = m.scenario().training.microBatch;
        m.setMicroBatch(before + 1);
        m.setMicroBatch(before);
        QCOMPARE(m.undoStack()->count(), 0);
        QVERIFY(m.undoStack()->isClean());
    }

    void gpuTicksAreSeparateSteps()
    {
        ScenarioModel m;
        m.setGpus({"nvidia-h100-sxm"});
        m.setGpus({"nvidia-h100-sxm", "nvidia-l40s"});
        QCOMPARE(m.undoStack()->count(), 2);
        m.undoStack()->undo();
        QCOMPARE(m.scenario().hardware.gpus, std::vector<std::string>{"nvidia-h100-sxm"});
    }

    void invalidValueIsKeptAndReportedAtItsKeyPath()
    {
        ScenarioModel m;
        QSignalSpy problems(&m, &ScenarioModel::problemsChanged);
        m.setValue(Field::Utilization, 1.5);
        QCOMPARE(m.scenario().pricing.utilization, 1.5); // the edit is not dropped
        QVERIFY(!m.isValid());
        QVERIFY(problems.count() >= 1);
        QCOMPARE(m.problemsFor(Field::Utilization), QStringLiteral("pricing.utilization: must be in (0, 1]"));
        QVERIFY(m.problemsFor(Field::MicroBatch).isEmpty());
        m.setValue(Field::Utilization, 0.8);
        QVERIFY(m.isValid());
    }

    void crossFieldProblemNamesTheCount()
    {
        ScenarioModel m;
        m.setCount(3);
        m.setValue(Field::Tp, 2);
        QVERIFY(m.problemsFor(Field::Count).contains(QStringLiteral("hardware.count: must be a multiple of tp x pp = 2")));
    }

    void badModelSpecIsKeptWithTheCoreMessage()
    {
        ScenarioModel m;
        const std::string goodName = m.scenario().model.name;
        gp::ModelSpec spec;
        spec.form = gp::ModelSpec::Form::Preset;
        spec.presetId = "no-such-model";
        m.setModelSpec(spec);
        QCOMPARE(QString::fromStdString(m.scenario().modelSpec.presetId), QStringLiteral("no-such-model"));
        QCOMPARE(m.scenario().model.name, goodName); // last good model kept for display
        QVERIFY(m.problemsFor(Field::Model).startsWith(QStringLiteral("model.preset: unknown preset \"no-such-model\"")));
        m.undoStack()->undo();
        QVERIFY(m.isValid());
    }

    void sizeOnlyModelResolvesApproximately()
    {
        ScenarioModel m;
        gp::ModelSpec spec;
        spec.form = gp::ModelSpec::Form::Params;
        spec.params = 13e9;
        m.setModelSpec(spec);
        QVERIFY(m.isValid());
        QVERIFY(m.scenario().model.approximate);
        QVERIFY(std::abs(m.scenario().model.totalParams() / 13e9 - 1) < 0.1);
    }

    void resetClearsUndoAndMarksClean()
    {
        ScenarioModel m;
        m.setMicroBatch(2);
        QVERIFY(!m.undoStack()->isClean());
        QSignalSpy reset(&m, &ScenarioModel::scenarioReset);
        gp::Scenario s = gp::defaultScenario();
        s.name = "other";
        m.resetScenario(s);
        QCOMPARE(reset.count(), 1);
        QCOMPARE(m.undoStack()->count(), 0);
        QVERIFY(m.undoStack()->isClean());
        QCOMPARE(m.value(Field::Name).toString(), QStringLiteral("other"));
    }

    void optionalValuesRoundTrip()
    {
        ScenarioModel m;
        m.setValue(Field::DeadlineHours, 72.0);
        QCOMPARE(m.scenario().training.targets.deadlineHours.value_or(0), 72.0);
        m.setValue(Field::DeadlineHours, QVariant());
        QVERIFY(!m.scenario().training.targets.deadlineHours.has_value());
        QVERIFY(!m.value(Field::DeadlineHours).isValid());
    }

    void everyFieldHasAKeyPathAndLabel()
    {
        for (int i = 0; i < static_cast<int>(Field::FieldCount); ++i) {
            QVERIFY(!ScenarioModel::keyPath(static_cast<Field>(i)).isEmpty());
            QVERIFY(!ScenarioModel::label(static_cast<Field>(i)).isEmpty());
        }
    }
};

QTEST_MAIN(TestScenarioModel)
#include "tst_scenariomodel.moc"
