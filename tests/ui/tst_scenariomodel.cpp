#include "ui/scenariomodel.h"

#include "core/scenario/scenario.h"
#include "core/scenario/scenarioname.h"

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
        QCOMPARE(m.problemsFor(Field::Utilization), QStringLiteral("Utilization: must be in (0, 1]"));
        QVERIFY(m.problemsFor(Field::MicroBatch).isEmpty());
        m.setValue(Field::Utilization, 0.8);
        QVERIFY(m.isValid());
    }

    void crossFieldProblemNamesTheCount()
    {
        ScenarioModel m;
        m.setCount(3);
        m.setValue(Field::Tp, 2);
        QVERIFY(m.problemsFor(Field::Count).contains(QStringLiteral("GPUs per job: must be a multiple of tp x pp = 2")));
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
        QVERIFY(m.problemsFor(Field::Model).startsWith(QStringLiteral("Model: unknown preset \"no-such-model\"")));
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

    void setValuesIsOneUndoStep()
    {
        ScenarioModel m;
        const std::string before = gp::scenarioToJson(m.scenario());
        QVERIFY(m.setValues(QStringLiteral("Use option"), {{Field::Gpus, QStringList{"nvidia-h100-sxm"}},
                                                            {Field::Count, 4},
                                                            {Field::Tp, 2},
                                                            {Field::MicroBatch, m.scenario().training.microBatch}}));
        QCOMPARE(m.undoStack()->count(), 1);
        QCOMPARE(m.undoStack()->undoText(), QStringLiteral("Use option"));
        QCOMPARE(m.scenario().hardware.count, 4);
        QCOMPARE(m.scenario().hardware.tp, 2);
        QVERIFY(m.isValid());
        m.undoStack()->undo();
        QCOMPARE(gp::scenarioToJson(m.scenario()), before);
        // Nothing to change: no step at all.
        QVERIFY(!m.setValues(QStringLiteral("Nothing"), {{Field::Count, m.scenario().hardware.count}}));
        QCOMPARE(m.undoStack()->index(), 0);
        // A later edit of a field the macro set is its own step.
        m.undoStack()->redo();
        m.setCount(8);
        QCOMPARE(m.undoStack()->count(), 2);
    }

    void plannerAndOwningFields()
    {
        ScenarioModel m;
        QCOMPARE(ScenarioModel::keyPath(Field::MaxCount), QStringLiteral("hardware.max_count"));
        QCOMPARE(ScenarioModel::keyPath(Field::NetworkGbps), QStringLiteral("hardware.network_gbps"));
        QCOMPARE(ScenarioModel::keyPath(Field::HostingUsdPerGpuYear), QStringLiteral("pricing.hosting_usd_per_gpu_year"));
        m.setValue(Field::MaxCount, 64);
        m.setValue(Field::NetworkGbps, 100.0);
        m.setValue(Field::HostingUsdPerGpuYear, 2500.0);
        QCOMPARE(m.scenario().hardware.maxCount, 64);
        QCOMPARE(m.scenario().hardware.networkGbps, 100.0);
        QCOMPARE(m.scenario().pricing.hostingUsdPerGpuYear, 2500.0);
        QCOMPARE(m.value(Field::MaxCount).toInt(), 64);
        // They reach the file format.
        const auto parsed = gp::parseScenario(gp::scenarioToJson(m.scenario()));
        QCOMPARE(parsed.scenario.hardware.maxCount, 64);
        QCOMPARE(parsed.scenario.hardware.networkGbps, 100.0);
        QCOMPARE(parsed.scenario.pricing.hostingUsdPerGpuYear, 2500.0);
        m.undoStack()->undo();
        QCOMPARE(m.scenario().pricing.hostingUsdPerGpuYear, 0.0);
    }

    void nameFollowsTheModelAndModeUntilTheUserNamesIt()
    {
        ScenarioModel m;
        const QString start = QStringLiteral("Llama 3.1 8B: LoRA fine-tune");
        QCOMPARE(QString::fromStdString(m.scenario().name), start);
        QVERIFY(m.hasAutomaticName());
        QSignalSpy names(&m, &ScenarioModel::fieldChanged);
        gp::ModelSpec spec;
        spec.presetId = "llama-3.1-70b";
        m.setModelSpec(spec);
        QCOMPARE(QString::fromStdString(m.scenario().name), QStringLiteral("Llama 3.1 70B: LoRA fine-tune"));
        QVERIFY(names.contains(QVariantList{QVariant::fromValue(Field::Name)}));
        m.setMode(gp::Mode::Inference);
        QCOMPARE(QString::fromStdString(m.scenario().name), QStringLiteral("Llama 3.1 70B: inference"));
        QCOMPARE(m.fileNameStem(), QStringLiteral("llama-3-1-70b-inference"));
        QCOMPARE(m.undoStack()->count(), 2); // the name rides along, no extra steps
        // Undo brings the name back with the content.
        m.undoStack()->undo();
        QCOMPARE(QString::fromStdString(m.scenario().name), QStringLiteral("Llama 3.1 70B: LoRA fine-tune"));
        m.undoStack()->undo();
        QCOMPARE(QString::fromStdString(m.scenario().name), start);
        m.undoStack()->redo();
        m.undoStack()->redo();
        QCOMPARE(QString::fromStdString(m.scenario().name), QStringLiteral("Llama 3.1 70B: inference"));

        // A size-only model: "13B decoder"; full training of a language model.
        gp::ModelSpec size;
        size.form = gp::ModelSpec::Form::Params;
        size.params = 13e9;
        m.setValues(QStringLiteral("13B full"), {{Field::Model, QVariant::fromValue(size)},
                                                 {Field::Mode, static_cast<int>(gp::Mode::Training)},
                                                 {Field::TrainMethod, static_cast<int>(gp::TrainMethod::Full)}});
        QCOMPARE(QString::fromStdString(m.scenario().name), QStringLiteral("13B decoder: full fine-tune"));
    }

    void aUserNameSticksAndUndoRestoresTheAutomaticOne()
    {
        ScenarioModel m;
        m.setName(QStringLiteral("My 70B chat"));
        QVERIFY(!m.hasAutomaticName());
        m.setName(QStringLiteral("My 70B chat service")); // typing: merges into one step
        QCOMPARE(m.undoStack()->count(), 1);
        m.setMode(gp::Mode::Inference);
        QCOMPARE(QString::fromStdString(m.scenario().name), QStringLiteral("My 70B chat service"));
        m.undoStack()->undo(); // the mode
        m.undoStack()->undo(); // the name: automatic again, and it follows the content again
        QVERIFY(m.hasAutomaticName());
        QCOMPARE(QString::fromStdString(m.scenario().name), QStringLiteral("Llama 3.1 8B: LoRA fine-tune"));
        m.setMode(gp::Mode::Inference);
        QCOMPARE(QString::fromStdString(m.scenario().name), QStringLiteral("Llama 3.1 8B: inference"));
        // Naming, then going back to the automatic name, both undoable.
        m.setName(QStringLiteral("Mine"));
        m.setMode(gp::Mode::Training);
        m.useAutomaticName();
        QCOMPARE(QString::fromStdString(m.scenario().name), QStringLiteral("Llama 3.1 8B: LoRA fine-tune"));
        m.undoStack()->undo();
        QCOMPARE(QString::fromStdString(m.scenario().name), QStringLiteral("Mine"));
        QVERIFY(!m.hasAutomaticName());
        // An empty name is the user's too (the report then prints the automatic one).
        m.setName(QString());
        QVERIFY(!m.hasAutomaticName());
        QCOMPARE(m.fileNameStem(), QStringLiteral("scenario"));
    }

    void openingAFileKeepsItsOwnName()
    {
        ScenarioModel m;
        gp::Scenario s = gp::defaultScenario();
        s.name = "Team plan: 8B adapters";
        m.resetScenario(s);
        QVERIFY(!m.hasAutomaticName());
        m.setMode(gp::Mode::Inference);
        QCOMPARE(m.scenario().name, std::string("Team plan: 8B adapters"));
        QCOMPARE(m.fileNameStem(), QStringLiteral("team-plan-8b-adapters"));
        // A file named as its content (or not named) follows the content.
        s.name = gp::autoScenarioName(s);
        m.resetScenario(s);
        QVERIFY(m.hasAutomaticName());
        s.name.clear();
        m.resetScenario(s);
        QVERIFY(m.hasAutomaticName());
        QCOMPARE(QString::fromStdString(m.scenario().name), QStringLiteral("Llama 3.1 8B: LoRA fine-tune"));
        m.setMode(gp::Mode::Inference);
        QCOMPARE(QString::fromStdString(m.scenario().name), QStringLiteral("Llama 3.1 8B: inference"));
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
