// The chart tabs colour each GPU with its palette colour (ui/palette.h): the
// throughput and cost bars as the cost-vs-time points, whatever else is shown.
#include "ui/charts/chartpanel.h"
#include "ui/format.h"
#include "ui/palette.h"

#include "core/estimate/estimate.h"

#include <QSet>
#include <QtTest>

using namespace gp::ui;
using charts::ChartKind;
using charts::ChartPanel;

namespace {

gp::GpuEstimate gpu(const char* id, const char* name, bool fits, double tokensPerS, double hours, double costUsd)
{
    gp::GpuEstimate g;
    g.gpuId = id;
    g.gpuName = name;
    g.fits = fits;
    g.capacityBytes = 80.0 * 1024 * 1024 * 1024;
    g.memory.weights = 40.0 * 1024 * 1024 * 1024;
    g.usdPerHour = costUsd / hours;
    gp::TrainingResult t;
    t.tokensPerS = tokensPerS;
    t.stepMs = 100;
    t.mfu = 0.4;
    t.hours = hours;
    t.costUsd = costUsd;
    g.training = t;
    return g;
}

/// Three GPUs that fit (the 4080 and 4090 once shared a blue) and one that does not.
gp::Estimate estimate()
{
    gp::Estimate e;
    e.results = {gpu("nvidia-rtx-4090", "GeForce RTX 4090 24GB", true, 9000, 10, 400),
                 gpu("nvidia-rtx-4080", "GeForce RTX 4080 16GB", true, 6000, 15, 450),
                 gpu("nvidia-h100-sxm", "H100 SXM 80GB", true, 30000, 3, 600),
                 gpu("nvidia-t4", "Tesla T4 16GB", false, 1000, 90, 900)};
    return e;
}

const QStringList kFitting{QStringLiteral("nvidia-rtx-4090"), QStringLiteral("nvidia-rtx-4080"),
                           QStringLiteral("nvidia-h100-sxm")};

} // namespace

class TestCharts : public QObject
{
    Q_OBJECT
private slots:
    void barsHaveTheGpusColour_data()
    {
        QTest::addColumn<int>("kind");
        QTest::addRow("throughput") << int(ChartKind::Throughput);
        QTest::addRow("cost") << int(ChartKind::Cost);
    }

    void barsHaveTheGpusColour()
    {
        QFETCH(int, kind);
        const gp::Estimate e = estimate();
        ChartPanel bars(static_cast<ChartKind>(kind));
        bars.setEstimate(e, QStringLiteral("$"));
        ChartPanel points(ChartKind::CostVsTime);
        points.setEstimate(e, QStringLiteral("$"));
        QCOMPARE(bars.shownGpuIds().size(), std::size_t(3));
        // Colours are given per estimate (issue 19: a colour per catalog entry from a
        // smaller palette gave several GPUs nearly the same one): the shown GPUs
        // take the distinct palette in the estimate's order, the same in every chart.
        const auto colours = gp::ui::charts::chartColours(e);
        QSet<QRgb> distinct;
        for (const QString& id : kFitting) {
            QCOMPARE(bars.shownColor(id), std::optional<QColor>(colours.value(id)));
            // The same colour as the GPU's point on the cost-vs-time chart.
            QCOMPARE(bars.shownColor(id), points.shownColor(id));
            distinct.insert(bars.shownColor(id)->rgb());
        }
        QCOMPARE(distinct.size(), qsizetype(kFitting.size()));
        QVERIFY(bars.shownColor(QStringLiteral("nvidia-rtx-4080")) != bars.shownColor(QStringLiteral("nvidia-rtx-4090")));
        // The first GPU (in the estimate's order) that a chart shows takes the palette's first colour.
        const auto first = std::find_if(e.results.begin(), e.results.end(),
                                        [&](const auto& r) { return colours.contains(QString::fromStdString(r.gpuId)); });
        QVERIFY(first != e.results.end());
        QCOMPARE(colours.value(QString::fromStdString(first->gpuId)), QColor(0x4363d8));
        // Not fitting, not shown: no bar, no colour.
        QCOMPARE(bars.shownColor(QStringLiteral("nvidia-t4")), std::nullopt);
        QCOMPARE(points.shownColor(QStringLiteral("nvidia-t4")), std::nullopt);
    }

    void eachGpusBarSetHoldsOnlyItsOwnValue()
    {
        ChartPanel thr(ChartKind::Throughput);
        thr.setEstimate(estimate(), QStringLiteral("$"));
        // The bar sets are named as the axis names the GPUs.
        const QString rtx4090 = QStringLiteral("RTX 4090 24GB");
        QCOMPARE(thr.shownValue(QStringLiteral("nvidia-rtx-4090"), rtx4090), std::optional<double>(9000));
        QCOMPARE(thr.shownValue(QStringLiteral("nvidia-rtx-4080"), rtx4090), std::optional<double>(0));
        QCOMPARE(thr.shownValue(QStringLiteral("nvidia-h100-sxm"), rtx4090), std::optional<double>(0));
        // The whole bar of each GPU is its value.
        QCOMPARE(thr.shownValue(QStringLiteral("nvidia-rtx-4080"), QString()), std::optional<double>(6000));
        QCOMPARE(thr.shownValue(QStringLiteral("nvidia-h100-sxm"), QString()), std::optional<double>(30000));

        ChartPanel cost(ChartKind::Cost);
        cost.setEstimate(estimate(), QStringLiteral("$"));
        QCOMPARE(cost.shownValue(QStringLiteral("nvidia-rtx-4080"), QString()), std::optional<double>(450));
        QCOMPARE(cost.shownValue(QStringLiteral("nvidia-rtx-4080"), QStringLiteral("RTX 4080 16GB")),
                 std::optional<double>(450));
        QCOMPARE(cost.shownValue(QStringLiteral("nvidia-rtx-4090"), QStringLiteral("RTX 4080 16GB")),
                 std::optional<double>(0));
    }

    void statusMessagesNameFilesNotFolders_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("expected");
        QTest::addRow("unix") << QStringLiteral("Saved /work/plans/x.gpuplan.json")
                              << QStringLiteral("Saved x.gpuplan.json");
        QTest::addRow("at the start") << QStringLiteral("/tmp/run/e.csv written") << QStringLiteral("e.csv written");
        QTest::addRow("windows") << QStringLiteral(R"(CSV written: C:\Users\ann\e.csv)")
                                 << QStringLiteral("CSV written: e.csv");
        QTest::addRow("two, quoted") << QStringLiteral("kept as “/home/ann/.cache/a.bak”, /home/ann/b.bak.")
                                     << QStringLiteral("kept as “a.bak”, b.bak.");
        QTest::addRow("error in a folder") << QStringLiteral("Autosave failed: cannot create a file in /var/lib/gp/auto: EACCES")
                                           << QStringLiteral("Autosave failed: cannot create a file in auto: EACCES");
        QTest::addRow("units stay") << QStringLiteral("Option #2: 7909 tokens/s/GPU at $2.5/h, $0.41/M tokens")
                                    << QStringLiteral("Option #2: 7909 tokens/s/GPU at $2.5/h, $0.41/M tokens");
        QTest::addRow("no folder") << QStringLiteral("Opened x.gpuplan.json") << QStringLiteral("Opened x.gpuplan.json");
    }

    void statusMessagesNameFilesNotFolders()
    {
        QFETCH(QString, text);
        QFETCH(QString, expected);
        QCOMPARE(withoutDirectories(text), expected);
    }
};

QTEST_MAIN(TestCharts)
#include "tst_charts.moc"
