// The scenario form's entries as a person types into them: digit by digit, in
// the user's locale, kept exactly through save and open; wrong entries marked
// at the field with the core's message and never passed on as something else.
#include "ui/numberfield.h"
#include "ui/scenariofile.h"
#include "ui/scenarioform.h"
#include "ui/scenariomodel.h"

#include "core/scenario/scenario.h"

#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>

using namespace gp::ui;
using Field = ScenarioModel::Field;

Q_DECLARE_METATYPE(gp::ui::ScenarioModel::Field)

namespace {

/// Empties a field the way a user does (select all, Backspace), then types `text` key by key.
void retype(QLineEdit* edit, const QString& text)
{
    edit->setFocus();
    edit->selectAll();
    QTest::keyClick(edit, Qt::Key_Backspace);
    QTest::keyClicks(edit, text);
}

/// The message line under a number field (what the user sees without hovering).
QLabel* messageOf(NumberField* f)
{
    for (auto* l : f->parentWidget()->findChildren<QLabel*>())
        return l;
    return nullptr;
}

void useVisionModel(ScenarioModel& model)
{
    gp::ModelSpec spec;
    spec.form = gp::ModelSpec::Form::Params;
    spec.params = 86e6;
    spec.family = gp::ModelFamily::Vision;
    model.setModelSpec(spec);
    model.setValue(Field::TrainMethod, static_cast<int>(gp::TrainMethod::Full)); // LoRA is for language models
    model.undoStack()->clear();
}

} // namespace

class TestScenarioForm : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;

private slots:
    void cleanup() { QLocale::setDefault(QLocale::c()); }
    void init() { QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates)); }

    void typedNumberIsKeptExactly_data()
    {
        QTest::addColumn<Field>("field");
        QTest::addColumn<QString>("typed");
        QTest::addColumn<double>("modelValue");
        QTest::addColumn<QString>("saved"); // the value's text in the saved JSON
        QTest::addColumn<bool>("vision");
        QTest::addRow("lora rank") << Field::LoraRank << "32" << 32.0 << "32" << false;
        QTest::addRow("micro-batch") << Field::MicroBatch << "12" << 12.0 << "12" << false;
        QTest::addRow("seq len") << Field::SeqLen << "4096" << 4096.0 << "4096" << false;
        QTest::addRow("train image") << Field::TrainImageSize << "384" << 384.0 << "384" << true;
        QTest::addRow("grad accum") << Field::GradAccum << "4" << 4.0 << "4" << false;
        QTest::addRow("dataset M tokens") << Field::DatasetTokens << "1.5" << 1.5e6 << "1500000.0" << false;
        QTest::addRow("dataset K samples") << Field::DatasetSamples << "2.5" << 2500.0 << "2500.0" << true;
        QTest::addRow("epochs") << Field::Epochs << "1.5" << 1.5 << "1.5" << false;
        QTest::addRow("deadline") << Field::DeadlineHours << "72.5" << 72.5 << "72.5" << false;
        QTest::addRow("budget") << Field::BudgetUsd << "50000.25" << 50000.25 << "50000.25" << false;
        QTest::addRow("batch") << Field::Batch << "24" << 24.0 << "24" << false;
        QTest::addRow("prompt") << Field::PromptTokens << "2048" << 2048.0 << "2048" << false;
        QTest::addRow("output") << Field::OutputTokens << "512" << 512.0 << "512" << false;
        QTest::addRow("infer image") << Field::InferImageSize << "448" << 448.0 << "448" << true;
        QTest::addRow("ttft") << Field::TtftMs << "0.75" << 0.75 << "0.75" << false;
        QTest::addRow("tpot") << Field::TpotMs << "12.5" << 12.5 << "12.5" << false;
        QTest::addRow("requests/s") << Field::RequestsPerS << "2.5" << 2.5 << "2.5" << false;
        QTest::addRow("count") << Field::Count << "8" << 8.0 << "8" << false;
        QTest::addRow("tp") << Field::Tp << "2" << 2.0 << "2" << false;
        QTest::addRow("pp") << Field::Pp << "4" << 4.0 << "4" << false;
        QTest::addRow("max count") << Field::MaxCount << "4096" << 4096.0 << "4096" << false;
        QTest::addRow("network") << Field::NetworkGbps << "200.5" << 200.5 << "200.5" << false;
        QTest::addRow("utilization") << Field::Utilization << "0.75" << 0.75 << "0.75" << false;
        QTest::addRow("electricity") << Field::ElectricityUsdPerKwh << "0.123" << 0.123 << "0.123" << false;
        QTest::addRow("pue") << Field::Pue << "1.35" << 1.35 << "1.35" << false;
        QTest::addRow("amortization") << Field::AmortizationYears << "2.5" << 2.5 << "2.5" << false;
        QTest::addRow("hosting") << Field::HostingUsdPerGpuYear << "2500.5" << 2500.5 << "2500.5" << false;
        // Issue #16 keys
        QTest::addRow("global batch tokens") << Field::GlobalBatchTokens << "4194304" << 4194304.0 << "4194304.0" << false;
        QTest::addRow("ttft p99") << Field::TtftP99Ms << "2500.5" << 2500.5 << "2500.5" << false;
        QTest::addRow("memory fraction") << Field::MemoryFraction << "0.85" << 0.85 << "0.85" << false;
        QTest::addRow("confidence") << Field::Confidence << "0.95" << 0.95 << "0.95" << false;
    }

    void typedNumberIsKeptExactly()
    {
        QFETCH(Field, field);
        QFETCH(QString, typed);
        QFETCH(double, modelValue);
        QFETCH(QString, saved);
        QFETCH(bool, vision);
        ScenarioModel model;
        if (vision)
            useVisionModel(model);
        if (field == Field::DatasetSamples)
            model.setValue(Field::DatasetTokens, QVariant()); // one or the other
        if (field == Field::Tp || field == Field::Pp)
            model.setCount(8); // room for the split, or the file would not open again
        model.undoStack()->clear();
        ScenarioForm form(&model);
        NumberField* edit = form.numberFor(field);
        QVERIFY(edit);
        QCOMPARE(form.editorFor(field), static_cast<QWidget*>(edit));
        QVERIFY(edit->isEnabled());
        retype(edit, typed);
        QCOMPARE(edit->text(), typed); // never reformatted under the fingers
        QCOMPARE(edit->problem(), QString());
        QCOMPARE(model.value(field).toDouble(), modelValue);
        QCOMPARE(model.undoStack()->count(), 1); // the keystrokes are one undo step

        const QString path = m_dir.filePath(QStringLiteral("typed.gpuplan.json"));
        QCOMPARE(saveScenarioFile(model.scenario(), path), QString());
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QString json = QString::fromUtf8(file.readAll());
        const QString key = ScenarioModel::keyPath(field).section(QLatin1Char('.'), -1);
        QVERIFY2(json.contains(QStringLiteral("\"%1\": %2\n").arg(key, saved)) ||
                     json.contains(QStringLiteral("\"%1\": %2,").arg(key, saved)),
                 qPrintable(key + QStringLiteral(" not saved as ") + saved));

        // Open it again: the same value, shown as typed.
        const LoadedScenario loaded = loadScenarioFile(path);
        QVERIFY2(loaded.scenario, qPrintable(loaded.error));
        ScenarioModel reopened;
        reopened.resetScenario(*loaded.scenario);
        QCOMPARE(reopened.value(field).toDouble(), modelValue);
        ScenarioForm reopenedForm(&reopened);
        QCOMPARE(reopenedForm.numberFor(field)->text(), typed);
    }

    void wrongEntriesAreMarkedNotChanged()
    {
        ScenarioModel model;
        ScenarioForm form(&model);
        const int before = model.scenario().training.microBatch;
        NumberField* mb = form.numberFor(Field::MicroBatch);
        QLabel* message = messageOf(mb);
        QVERIFY(message);

        retype(mb, QStringLiteral("-4"));
        QCOMPARE(mb->text(), QStringLiteral("-4"));
        const QString negative =
            QStringLiteral("Micro-batch (per GPU): must be a positive integer between 1 and 1000000, got -4");
        QCOMPARE(mb->problem(), negative);
        QCOMPARE(message->text(), negative);
        QVERIFY(!message->isHidden());
        QCOMPARE(mb->toolTip(), negative);
        QVERIFY(mb->styleSheet().contains(QStringLiteral("border")));
        QCOMPARE(model.scenario().training.microBatch, before);
        QCOMPARE(model.undoStack()->count(), 0);

        retype(mb, QStringLiteral("abc"));
        QCOMPARE(mb->text(), QStringLiteral("abc"));
        QCOMPARE(message->text(), QStringLiteral("Micro-batch (per GPU): must be a positive integer, got \"abc\""));
        // On the way to "1.5" the "1" was applied; the refused "1.5" takes it back.
        retype(mb, QStringLiteral("1.5"));
        QCOMPARE(message->text(), QStringLiteral("Micro-batch (per GPU): must be a positive integer, got 1.5"));
        QCOMPARE(mb->text(), QStringLiteral("1.5"));
        QCOMPARE(model.scenario().training.microBatch, before);
        QCOMPARE(model.undoStack()->count(), 0);

        // Out of the core's range, not clamped to it.
        NumberField* util = form.numberFor(Field::Utilization);
        const double utilBefore = model.scenario().pricing.utilization;
        retype(util, QStringLiteral("1.5"));
        QCOMPARE(util->problem(), QStringLiteral("Utilization: must be greater than 0 and at most 1, got 1.5"));
        QCOMPARE(model.scenario().pricing.utilization, utilBefore);
        // A required field left empty says so; an optional one means "none".
        retype(form.numberFor(Field::Epochs), QString());
        QCOMPARE(form.numberFor(Field::Epochs)->problem(),
                 QStringLiteral("Epochs: must be a number; the field is empty"));
        QCOMPARE(model.scenario().training.epochs, gp::defaultScenario().training.epochs);

        // Fixing the text clears the mark and applies.
        retype(mb, QStringLiteral("6"));
        QCOMPARE(mb->problem(), QString());
        QVERIFY(message->isHidden());
        QVERIFY(mb->styleSheet().isEmpty());
        QCOMPARE(model.scenario().training.microBatch, 6);
    }

    void sizeFieldRefusesWithTheCoresMessage()
    {
        ScenarioModel model;
        ScenarioForm form(&model);
        QLineEdit* size = form.sizeEdit();
        const gp::ModelSpec before = model.scenario().modelSpec;

        retype(size, QStringLiteral("100001B"));
        QTRY_VERIFY(!form.sizeProblem().isEmpty());
        QCOMPARE(form.sizeProblem(), QStringLiteral("model.params: must be at least 100000 and at most 1e+14, got 100001000000000.0"));
        QCOMPARE(size->toolTip(), form.sizeProblem());
        QCOMPARE(size->text(), QStringLiteral("100001B"));
        QVERIFY(model.scenario().modelSpec.form == before.form);
        QCOMPARE(model.scenario().modelSpec.presetId, before.presetId);

        retype(size, QStringLiteral("13Q"));
        QTRY_COMPARE(form.sizeProblem(),
                     QStringLiteral("model.params: must be a number, got \"13Q\" (write e.g. 13B, 70B, 1.5T)"));
        QCOMPARE(model.undoStack()->count(), 0);

        // 100000B is 1e14, the largest size the format takes: applied as exactly that.
        retype(size, QStringLiteral("100000B"));
        QTRY_COMPARE(model.scenario().modelSpec.params, 1e14);
        QCOMPARE(form.sizeProblem(), QString());
        QCOMPARE(size->text(), QStringLiteral("100000B"));
    }

    void sizeAppliesWhileTypingAsOneUndoStep()
    {
        ScenarioModel model;
        ScenarioForm form(&model);
        const std::string preset = model.scenario().modelSpec.presetId;
        QLineEdit* size = form.sizeEdit();
        retype(size, QStringLiteral("13B"));
        // No Enter, no focus change: applied once typing pauses.
        QTRY_COMPARE(model.scenario().modelSpec.params, 13e9);
        QVERIFY(model.scenario().modelSpec.form == gp::ModelSpec::Form::Params);
        QCOMPARE(size->text(), QStringLiteral("13B"));
        // Typing on ("130B") joins the same step.
        size->setCursorPosition(2);
        QTest::keyClick(size, Qt::Key_0);
        QTRY_COMPARE(model.scenario().modelSpec.params, 130e9);
        QCOMPARE(size->text(), QStringLiteral("130B"));
        QCOMPARE(model.undoStack()->count(), 1);
        model.undoStack()->undo();
        QVERIFY(model.scenario().modelSpec.form == gp::ModelSpec::Form::Preset);
        QCOMPARE(model.scenario().modelSpec.presetId, preset);
        QCOMPARE(size->text(), QString());
    }

    void germanLocaleReadsAndWritesDecimalCommas()
    {
        QLocale::setDefault(QLocale(QLocale::German, QLocale::Germany));
        ScenarioModel model;
        ScenarioForm form(&model);
        model.setValue(Field::Utilization, 0.7);
        QCOMPARE(form.numberFor(Field::Utilization)->text(), QStringLiteral("0,7"));
        retype(form.numberFor(Field::Epochs), QStringLiteral("1,5"));
        QCOMPARE(model.scenario().training.epochs, 1.5);
        QCOMPARE(form.numberFor(Field::Epochs)->text(), QStringLiteral("1,5"));
        retype(form.numberFor(Field::DatasetTokens), QStringLiteral("2,5"));
        QCOMPARE(model.scenario().training.datasetTokens.value(), 2.5e6);
        retype(form.numberFor(Field::RequestsPerS), QStringLiteral("0,75"));
        QCOMPARE(model.scenario().inference.targets.requestsPerS.value(), 0.75);
        // Undo shows the previous value the German way.
        model.undoStack()->undo();
        QCOMPARE(model.scenario().inference.targets.requestsPerS.has_value(), false);
        QCOMPARE(form.numberFor(Field::RequestsPerS)->text(), QString());
        model.undoStack()->undo();
        QCOMPARE(form.numberFor(Field::DatasetTokens)->text(),
                 QLocale().toString(gp::defaultScenario().training.datasetTokens.value() / 1e6, 'f',
                                    QLocale::FloatingPointShortest));
    }

    void fileValuesAreShownUnclamped()
    {
        const QString path = m_dir.filePath(QStringLiteral("large.gpuplan.json"));
        gp::Scenario s = gp::defaultScenario();
        s.training.microBatch = 1'000'000;
        s.training.seqLen = 10'000'000;
        s.hardware.maxCount = 1'000'000;
        QCOMPARE(saveScenarioFile(s, path), QString());
        const LoadedScenario loaded = loadScenarioFile(path);
        QVERIFY2(loaded.scenario, qPrintable(loaded.error));
        ScenarioModel model;
        ScenarioForm form(&model);
        model.resetScenario(*loaded.scenario);
        QCOMPARE(form.numberFor(Field::MicroBatch)->text(), QStringLiteral("1000000"));
        QCOMPARE(form.numberFor(Field::SeqLen)->text(), QStringLiteral("10000000"));
        QCOMPARE(form.numberFor(Field::MaxCount)->text(), QStringLiteral("1000000"));
        QCOMPARE(model.scenario().training.microBatch, 1'000'000);
    }

    void arrowKeysStep()
    {
        ScenarioModel model;
        ScenarioForm form(&model);
        NumberField* util = form.numberFor(Field::Utilization);
        retype(util, QStringLiteral("0.7"));
        QTest::keyClick(util, Qt::Key_Up);
        QCOMPARE(util->text(), QStringLiteral("0.75"));
        QCOMPARE(model.scenario().pricing.utilization, 0.75);
        NumberField* mb = form.numberFor(Field::MicroBatch);
        retype(mb, QStringLiteral("1"));
        QTest::keyClick(mb, Qt::Key_Down); // not below the lowest step
        QCOMPARE(mb->text(), QStringLiteral("1"));
        QTest::keyClick(mb, Qt::Key_Up);
        QCOMPARE(model.scenario().training.microBatch, 2);
    }

    void kvSameAsWeightsNamesTheFormat()
    {
        ScenarioModel model;
        ScenarioForm form(&model);
        auto* kv = qobject_cast<QComboBox*>(form.editorFor(Field::KvPrecision));
        QVERIFY(kv);
        model.setValue(Field::InferPrecision, static_cast<int>(gp::InferPrecision::BF16));
        QCOMPARE(kv->itemText(0), QStringLiteral("Same as weights (BF16)"));
        model.setValue(Field::InferPrecision, static_cast<int>(gp::InferPrecision::INT4));
        QCOMPARE(kv->itemText(0), QStringLiteral("Same as weights (FP16)"));
        model.setValue(Field::InferPrecision, static_cast<int>(gp::InferPrecision::FP8));
        QCOMPARE(kv->itemText(0), QStringLiteral("Same as weights (FP8)"));
        QCOMPARE(kv->currentIndex(), 0); // still unset: the label follows, the choice does not
        QVERIFY(!model.scenario().inference.kvPrecision.has_value());
    }

    void fp4IsAWeightFormatOnly()
    {
        ScenarioModel model;
        ScenarioForm form(&model);
        auto* weights = qobject_cast<QComboBox*>(form.editorFor(Field::InferPrecision));
        auto* kv = qobject_cast<QComboBox*>(form.editorFor(Field::KvPrecision));
        QVERIFY(weights && kv);
        const int fp4 = weights->findData(static_cast<int>(gp::InferPrecision::FP4));
        QVERIFY(fp4 >= 0);
        QCOMPARE(weights->itemText(fp4), QStringLiteral("FP4 (NVFP4; weight-only without Blackwell)"));
        QCOMPARE(kv->findData(static_cast<int>(gp::InferPrecision::FP4)), -1);
        weights->setCurrentIndex(fp4);
        QVERIFY(model.scenario().inference.precision == gp::InferPrecision::FP4);
        // The core's default KV for FP4 weights depends on the GPU: FP8, or FP16 without it.
        QCOMPARE(kv->itemText(0), QStringLiteral("Default (FP8; FP16 without FP8)"));
        QVERIFY(gp::scenarioToJson(model.scenario()).find(R"("precision": "fp4")") != std::string::npos);
    }

    void runtimeComboOffersServing()
    {
        // The serving engine is the combo's third choice; picking it sets the
        // scenario's runtime, which saves as "serving".
        ScenarioModel model;
        ScenarioForm form(&model);
        auto* runtime = qobject_cast<QComboBox*>(form.editorFor(Field::Runtime));
        QVERIFY(runtime);
        QCOMPARE(runtime->count(), 3);
        QCOMPARE(runtime->itemText(2), QStringLiteral("Serving engine (vLLM, TensorRT-LLM, SGLang; inference only)"));
        model.setValue(Field::Mode, static_cast<int>(gp::Mode::Inference));
        runtime->setCurrentIndex(2);
        QCOMPARE(static_cast<int>(model.scenario().runtime), static_cast<int>(gp::Runtime::Serving));
        QVERIFY(gp::scenarioToJson(model.scenario()).find("\"runtime\": \"serving\"") != std::string::npos);
    }
};

QTEST_MAIN(TestScenarioForm)
#include "tst_scenarioform.moc"
