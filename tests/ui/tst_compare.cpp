// The Compare tab: best values among the GPUs that fit (every tie), one row per
// metric, the chosen GPUs kept across estimates, the grouped searchable picker;
// and the chart colours and log axes the tabs share.
#include "ui/charts/chartstyle.h"
#include "ui/comparisonmodel.h"
#include "ui/comparisonview.h"
#include "ui/estimatecontroller.h"
#include "ui/format.h"
#include "ui/gpupicker.h"
#include "ui/mainwindow.h"
#include "ui/documentmanager.h"
#include "ui/resultspage.h"
#include "ui/palette.h"
#include "ui/scenariomodel.h"
#include "ui/settings.h"

#include "core/hardware/catalog.h"
#include "core/estimate/estimate.h"
#include "core/base/units.h"

#include <QAbstractItemModelTester>
#include <QCompleter>
#include <QMessageBox>
#include <QSet>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>

using namespace gp::ui;

namespace {

gp::GpuEstimate gpu(const char* id, bool fits, double tokensPerS, double stepMs, double hours, double costUsd,
                    double usdPerHour, double capacityGiB)
{
    gp::GpuEstimate g;
    g.gpuId = id;
    g.gpuName = std::string("GPU ") + id;
    g.fits = fits;
    g.capacityBytes = capacityGiB * 1024.0 * 1024 * 1024;
    g.memory.weights = 40.0 * 1024 * 1024 * 1024;
    g.usdPerHour = usdPerHour;
    gp::TrainingResult t;
    t.tokensPerS = tokensPerS;
    t.stepMs = stepMs;
    t.mfu = 0.4;
    t.hours = hours;
    t.costUsd = costUsd;
    g.training = t;
    g.terms = {{"memory.total", "Total at the peak", 40, "GiB", "weights + ..."},
               {"cost.hours", "Time to train", hours, "h", std::string("work / rate ") + id},
               {"cost.total", "Cost to train", costUsd, "USD", "hours x price"},
               {"perf.step", "Step time", stepMs, "ms", std::string("per optimizer step ") + id},
               {"time.gemm", "Matmuls", stepMs / 2, "ms", "flops / peak"}};
    return g;
}

/// a and b fit and tie on throughput and hours; c does not fit and is "best" at everything.
gp::Estimate handBuilt()
{
    gp::Estimate e;
    e.results = {gpu("a", true, 1000, 50, 10, 200, 20, 80), gpu("b", true, 1000, 40, 10, 150, 15, 80),
                 gpu("c", false, 5000, 10, 2, 50, 25, 24)};
    return e;
}

int rowNamed(const ComparisonModel& m, const QString& prefix)
{
    for (int r = 0; r < m.rowCount(); ++r)
        if (m.headerData(r, Qt::Vertical).toString().startsWith(prefix))
            return r;
    return -1;
}

QStringList rowLabels(const ComparisonModel& m)
{
    QStringList out;
    for (int r = 0; r < m.rowCount(); ++r)
        out << m.headerData(r, Qt::Vertical).toString();
    return out;
}

} // namespace

class TestCompare : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;

private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void bestIsAmongTheGpusThatFitAndEveryTie()
    {
        ComparisonModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setEstimate(handBuilt());
        model.setGpuIds({"a", "b", "c"});
        QCOMPARE(model.columnCount(), 3);
        using V = std::vector<int>;
        // c is faster and cheaper but does not fit: never the best.
        QCOMPARE(model.bestColumns(rowNamed(model, QStringLiteral("Throughput ("))), (V{0, 1}));
        QCOMPARE(model.bestColumns(rowNamed(model, QStringLiteral("Time to train"))), (V{0, 1}));
        QCOMPARE(model.bestColumns(rowNamed(model, QStringLiteral("Step time"))), (V{1}));
        QCOMPARE(model.bestColumns(rowNamed(model, QStringLiteral("Cost to train"))), (V{1}));
        QCOMPARE(model.bestColumns(rowNamed(model, QStringLiteral("Price, whole job"))), (V{1}));
        QCOMPARE(model.bestColumns(rowNamed(model, QStringLiteral("Fits and meets targets"))), (V{0, 1}));
        // a and b have more VRAM than c: both are marked.
        QCOMPARE(model.bestColumns(rowNamed(model, QStringLiteral("VRAM per GPU"))), (V{0, 1}));
        // All three need 40 GiB: nothing stands out.
        QCOMPARE(model.bestColumns(rowNamed(model, QStringLiteral("VRAM need per GPU"))), V{});
        const int tp = rowNamed(model, QStringLiteral("Throughput ("));
        QVERIFY(model.index(tp, 0).data(ComparisonModel::IsBestRole).toBool());
        QVERIFY(model.index(tp, 1).data(ComparisonModel::IsBestRole).toBool());
        QVERIFY(!model.index(tp, 2).data(ComparisonModel::IsBestRole).toBool());
        QVERIFY(model.index(tp, 1).data(Qt::BackgroundRole).isValid());
        QVERIFY(!model.index(tp, 2).data(Qt::BackgroundRole).isValid());
        // With only one GPU that fits there is nothing to compare it with.
        model.setGpuIds({"a", "c"});
        QCOMPARE(model.bestColumns(rowNamed(model, QStringLiteral("Throughput ("))), V{});
        QCOMPARE(model.bestColumns(rowNamed(model, QStringLiteral("Fits and meets targets"))), (V{0}));
    }

    void eachMetricShowsOnceWithItsFormula()
    {
        ComparisonModel model;
        model.setEstimate(handBuilt());
        model.setGpuIds({"a", "b"});
        const QStringList labels = rowLabels(model);
        QCOMPARE(QSet<QString>(labels.begin(), labels.end()).size(), labels.size());
        QCOMPARE(labels.filter(QStringLiteral("Time to train")).size(), 1);
        QCOMPARE(labels.filter(QStringLiteral("Step time")).size(), 1);
        QCOMPARE(labels.filter(QStringLiteral("Cost to train")).size(), 1);
        QCOMPARE(labels.filter(QStringLiteral("Total at the peak")).size(), 0); // shown as "VRAM need per GPU"
        QVERIFY(labels.contains(QStringLiteral("Matmuls (ms)")));                // a term of its own
        // The metric row carries the term's formula.
        const int step = rowNamed(model, QStringLiteral("Step time"));
        QCOMPARE(model.index(step, 1).data(Qt::ToolTipRole).toString(), QStringLiteral("per optimizer step b"));
        QCOMPARE(model.index(rowNamed(model, QStringLiteral("Time to train")), 0).data(Qt::ToolTipRole).toString(),
                 QStringLiteral("work / rate a"));

        // The same for a real estimate with every term.
        gp::Scenario s = gp::defaultScenario();
        s.hardware.gpus = {"nvidia-h100-sxm", "nvidia-a100-80gb-sxm", "nvidia-l40s"};
        model.setEstimate(gp::estimate(s, gp::Catalog::builtin()));
        model.setGpuIds({"nvidia-h100-sxm", "nvidia-a100-80gb-sxm", "nvidia-l40s"});
        const QStringList real = rowLabels(model);
        QVERIFY(real.size() > 10);
        QCOMPARE(QSet<QString>(real.begin(), real.end()).size(), real.size());
    }

    void theChoiceComesBackWhenItsGpusDo()
    {
        ComparisonView view;
        const gp::Estimate all = handBuilt();
        view.setEstimate(all);
        view.setGpuIds({"b", "c"});
        QCOMPARE(view.model()->gpuIds(), (QStringList{"b", "c"}));
        gp::Estimate without = all;
        without.results.pop_back(); // c is gone
        view.setEstimate(without);
        QCOMPARE(view.model()->gpuIds(), (QStringList{"b", "a"})); // filled up with the best other
        QCOMPARE(view.chosenGpuIds(), (QStringList{"b", "c"}));
        view.setEstimate(gp::Estimate{}); // e.g. an error
        QCOMPARE(view.model()->columnCount(), 0);
        view.setEstimate(all);
        QCOMPARE(view.model()->gpuIds(), (QStringList{"b", "c"}));
        // A pick in the picker is the new choice.
        QVERIFY(view.picker(1)->setCurrentId(QStringLiteral("a")));
        QCOMPARE(view.chosenGpuIds(), (QStringList{"b", "a"}));
        QCOMPARE(view.model()->gpuIds(), (QStringList{"b", "a"}));
    }

    void theChoiceSurvivesOpenAndUndo()
    {
        MainWindow w(std::make_unique<Settings>(m_dir.filePath(QStringLiteral("settings.ini"))));
        w.setErrorReporter([](const QString& t, const QString& m) { QFAIL(qPrintable(t + m)); });
        w.documentManager()->setSavePrompt([] { return int(QMessageBox::Discard); });
        w.documentManager()->model()->setGpus({"nvidia-h100-sxm", "nvidia-a100-80gb-sxm", "nvidia-l40s", "nvidia-rtx-4090"});
        w.resultsPage()->controller()->recomputeNow();
        const QStringList chosen{"nvidia-l40s", "nvidia-rtx-4090"};
        w.comparison()->setGpuIds(chosen);
        QCOMPARE(w.comparison()->model()->gpuIds(), chosen);
        // An edit drops the L40S; undo brings it back, and the choice with it.
        w.documentManager()->model()->setGpus({"nvidia-h100-sxm", "nvidia-a100-80gb-sxm", "nvidia-rtx-4090"});
        w.resultsPage()->controller()->recomputeNow();
        QVERIFY(!w.comparison()->model()->gpuIds().contains(QStringLiteral("nvidia-l40s")));
        w.documentManager()->model()->undoStack()->undo();
        w.resultsPage()->controller()->recomputeNow();
        QCOMPARE(w.comparison()->model()->gpuIds(), chosen);
        // A file with only the RTX 4090, then one with every GPU.
        QVERIFY(w.documentManager()->openFile(QStringLiteral(GP_EXAMPLES_DIR "/llama31-8b-lora-rtx4090.gpuplan.json")));
        QCOMPARE(w.comparison()->model()->gpuIds(), QStringList{"nvidia-rtx-4090"});
        QVERIFY(w.documentManager()->openFile(QStringLiteral(GP_EXAMPLES_DIR "/gpt2-124m-pretrain.gpuplan.json")));
        QCOMPARE(w.comparison()->model()->gpuIds(), chosen);
    }

    void pickerIsGroupedSortedAndSearchable()
    {
        GpuPicker picker;
        std::vector<GpuPicker::Entry> entries;
        for (const auto& g : gp::Catalog::builtin().gpus())
            entries.push_back({QString::fromStdString(g.id), QString::fromStdString(g.name), static_cast<int>(g.tier)});
        entries.push_back({QStringLiteral("my-gpu"), QStringLiteral("My GPU"), -1});
        picker.setEntries(entries, true);
        QCOMPARE(picker.count(), static_cast<int>(entries.size()) + 1 + 6); // (none) + 5 tiers + Other
        QCOMPARE(picker.itemText(0), QStringLiteral("(none)"));
        // Headings in tier order, names sorted (numbers as numbers) under each.
        QStringList headings;
        int tier = -1;
        QString previous;
        for (int i = 1; i < picker.count(); ++i) {
            if (picker.itemData(i, GpuPicker::HeaderRole).toBool()) {
                headings << picker.itemText(i);
                previous.clear();
                ++tier;
                QVERIFY(!(picker.model()->flags(picker.model()->index(i, 0)) & Qt::ItemIsSelectable));
                continue;
            }
            const QString id = picker.itemData(i, GpuPicker::IdRole).toString();
            const gp::Gpu* g = gp::Catalog::builtin().find(id.toStdString());
            QCOMPARE(g ? static_cast<int>(g->tier) : 5, tier);
            previous = picker.itemText(i);
        }
        QCOMPARE(headings, (QStringList{"Consumer", "Workstation", "Inference data-center", "Training data-center",
                                        "Frontier", "Other"}));
        const int i3060 = picker.findText(QStringLiteral("GeForce RTX 3060 12GB"));
        const int i4090 = picker.findText(QStringLiteral("GeForce RTX 4090 24GB"));
        const int i5090 = picker.findText(QStringLiteral("GeForce RTX 5090 32GB"));
        QVERIFY(i3060 > 1 && i3060 < i4090 && i4090 < i5090);
        QCOMPARE(picker.itemText(1), QStringLiteral("Consumer"));
        QCOMPARE(picker.itemText(2), QStringLiteral("GeForce RTX 3060 12GB"));
        // Search: any part of the name, any case.
        QCOMPARE(picker.matches(QStringLiteral("mi3")),
                 (QStringList{"Instinct MI300X", "Instinct MI325X", "Instinct MI355X"}));
        QCOMPARE(picker.matches(QStringLiteral("4090")), QStringList{"GeForce RTX 4090 24GB"});
        picker.completer()->setCompletionPrefix(QStringLiteral("h200"));
        QCOMPARE(picker.completer()->completionCount(), 3); // H200 SXM, H200 NVL, GH200
        QVERIFY(picker.maxVisibleItems() <= 16);
        // Choosing by id, and "(none)".
        QSignalSpy changed(&picker, &GpuPicker::idChanged);
        QVERIFY(picker.setCurrentId(QStringLiteral("amd-mi300x")));
        QCOMPARE(picker.currentId(), QStringLiteral("amd-mi300x"));
        QCOMPARE(changed.size(), 1);
        QVERIFY(picker.setCurrentId(QString()));
        QCOMPARE(picker.currentText(), QStringLiteral("(none)"));
        QVERIFY(!picker.setCurrentId(QStringLiteral("no-such-gpu")));
    }

    void everyGpuHasItsOwnColourInEveryChart()
    {
        QSet<QRgb> colours;
        const auto& gpus = gp::Catalog::builtin().gpus();
        for (const auto& g : gpus)
            colours.insert(gpuColor(QString::fromStdString(g.id)).rgb());
        QCOMPARE(colours.size(), static_cast<qsizetype>(gpus.size()));
        QVERIFY(gpuColor(QStringLiteral("nvidia-rtx-4080")) != gpuColor(QStringLiteral("nvidia-rtx-4090")));
        // Fixed by the id: the same in any chart, whatever else is in it.
        QCOMPARE(gpuColor(QStringLiteral("nvidia-rtx-4090")), gpuColor(QStringLiteral("nvidia-rtx-4090")));
        QCOMPARE(gpuColor(QStringLiteral("nvidia-t4")), QColor(0x1f77b4));
        QCOMPARE(gpuColor(QStringLiteral("my-custom-gpu")), gpuColor(QStringLiteral("my-custom-gpu")));
        QVERIFY(!colours.contains(gpuColor(QStringLiteral("my-custom-gpu")).rgb()));
    }

    void shortNamesForLegends()
    {
        QCOMPARE(shortGpuName(QStringLiteral("GeForce RTX 4090 24GB")), QStringLiteral("RTX 4090 24GB"));
        QCOMPARE(shortGpuName(QStringLiteral("Instinct MI300X")), QStringLiteral("MI300X"));
        QCOMPARE(shortGpuName(QStringLiteral("B200 (HGX, 1000 W)")), QStringLiteral("B200"));
        QCOMPARE(shortGpuName(QStringLiteral("TPU v5e (per chip)")), QStringLiteral("TPU v5e"));
        QSet<QString> names;
        for (const auto& g : gp::Catalog::builtin().gpus())
            names.insert(shortGpuName(QString::fromStdString(g.name)));
        QCOMPARE(names.size(), static_cast<qsizetype>(gp::Catalog::builtin().gpus().size()));
    }

    void logAxesShowAtLeastThreeTicks()
    {
        using charts::detail::logAxisRange;
        using charts::detail::logAxisTicks;
        // Values a bit over a decade apart: before, the axis showed a single "10".
        auto [lo, hi] = logAxisRange(3, 40);
        QCOMPARE(lo, 1.0);
        QCOMPARE(hi, 100.0);
        QCOMPARE(logAxisTicks(lo, hi), (QList<double>{1, 10, 100}));
        std::tie(lo, hi) = logAxisRange(0.35, 420);
        QCOMPARE(lo, 0.1);
        QCOMPARE(hi, 1000.0);
        QCOMPARE(logAxisTicks(lo, hi).size(), 5);
        std::tie(lo, hi) = logAxisRange(11, 95); // less than a decade: grown to two
        QVERIFY(logAxisTicks(lo, hi).size() >= 3);
        QVERIFY(lo <= 11 && hi >= 95);
    }
};

QTEST_MAIN(TestCompare)
#include "tst_compare.moc"
