// Rent vs buy tab: the chart draws gp::rentVsBuy's curves point for point, the
// break-even is the core's, and the pricing inputs are undoable scenario edits.
#include "ui/charts/plannercharts.h"
#include "ui/estimatecontroller.h"
#include "ui/numberfield.h"
#include "ui/rentbuypage.h"
#include "ui/reportbuilder.h"
#include "ui/scenariofile.h"
#include "ui/scenariomodel.h"

#include "core/hardware/catalog.h"
#include "core/plan/rentbuy.h"
#include "core/scenario/scenario.h"

#include <QComboBox>
#include <QLabel>
#include <QSpinBox>
#include <QUndoStack>
#include <QtTest>

#include <cmath>

using namespace gp::ui;
using Field = ScenarioModel::Field;

namespace {

gp::Scenario serve70b()
{
    const LoadedScenario l = loadScenarioFile(QStringLiteral(GP_EXAMPLES_DIR "/llama31-70b-serve-2xh100-tp.gpuplan.json"));
    if (!l.scenario)
        qFatal("cannot load the example: %s", qPrintable(l.error));
    return *l.scenario;
}

gp::Scenario serve70bTargets()
{
    const LoadedScenario l = loadScenarioFile(QStringLiteral(GP_EXAMPLES_DIR "/llama31-70b-serve-targets.gpuplan.json"));
    if (!l.scenario)
        qFatal("cannot load the example: %s", qPrintable(l.error));
    return *l.scenario;
}

const charts::SeriesData* findSeries(const std::vector<charts::SeriesData>& all, const QString& name)
{
    for (const auto& s : all)
        if (s.name == name)
            return &s;
    return nullptr;
}

} // namespace

class TestRentBuy : public QObject
{
    Q_OBJECT
private:
    static void checkChartMatches(RentBuyPage& page, const gp::RentVsBuy& want)
    {
        const auto series = page.chartView()->series();
        QVERIFY(!want.curves.empty());
        for (const auto& c : want.curves) {
            const auto* s = findSeries(series, QString::fromStdString(c.label));
            QVERIFY2(s, c.label.c_str());
            QCOMPARE(s->points.size(), static_cast<qsizetype>(c.usd.size()));
            QCOMPARE(s->points.last().y(), c.usd.back());
            QCOMPARE(s->points.first().y(), c.usd.front());
            QCOMPARE(s->points.last().x(), static_cast<double>(c.usd.size() - 1));
        }
        if (want.breakEvenMonth) {
            const auto* mark = findSeries(series, charts::breakEvenSeriesName(*want.breakEvenMonth));
            QVERIFY(mark);
            QCOMPARE(mark->points.size(), 1);
            QCOMPARE(mark->points.first().x(), static_cast<double>(*want.breakEvenMonth));
            QCOMPARE(mark->points.first().y(), want.curves.back().usd[static_cast<std::size_t>(*want.breakEvenMonth)]);
        }
        QCOMPARE(page.chartView()->axisTitle(Qt::Horizontal), QStringLiteral("Months"));
        QVERIFY(page.chartView()->axisTitle(Qt::Vertical).contains(QStringLiteral("$")));
    }

    static void checkBreakEvenShown(RentBuyPage& page, const gp::RentVsBuy& want)
    {
        QVERIFY(want.breakEvenGpuHours.has_value());
        QString shown = page.breakEvenLabel()->text();
        shown.remove(QLatin1Char(','));
        const QString hours = QString::number(std::lround(*want.breakEvenGpuHours));
        QVERIFY2(shown.contains(hours), qPrintable(shown + QStringLiteral(" lacks ") + hours));
        QCOMPARE(page.verdictLabel()->text(), QString::fromStdString(want.verdict));
    }

private slots:
    void recommendedGpuChartAndBreakEven()
    {
        ScenarioModel m;
        m.resetScenario(serve70b());
        EstimateController estimates(&m);
        estimates.recomputeNow();
        RentBuyPage page(&m, &estimates);
        const auto& shown = page.result();
        QVERIFY2(shown.has_value(), qPrintable(page.error()));
        // The example recommends 2x H100 SXM.
        QCOMPARE(shown->gpu, std::string("nvidia-h100-sxm"));
        QCOMPARE(shown->count, 2);
        const gp::RentVsBuy want = gp::rentVsBuy(m.scenario(), *gp::Catalog::builtin().find("nvidia-h100-sxm"), 2);
        QCOMPARE(gp::rentVsBuyToJson({*shown}), gp::rentVsBuyToJson({want}));
        QCOMPARE(page.gpuCombo()->currentIndex(), 0);
        QVERIFY(page.gpuCombo()->currentText().contains(QStringLiteral("H100")));
        checkChartMatches(page, want);
        checkBreakEvenShown(page, want);
        // Serving on spot is a risk the notes name.
        QVERIFY(std::any_of(want.notes.begin(), want.notes.end(), [](const auto& n) { return n.find("Spot") == 0; }));
    }

    void anyCatalogGpuAndCount()
    {
        ScenarioModel m;
        m.resetScenario(serve70b());
        EstimateController estimates(&m);
        estimates.recomputeNow();
        RentBuyPage page(&m, &estimates);
        const int i = page.gpuCombo()->findData(QStringLiteral("nvidia-a100-80gb-sxm"));
        QVERIFY(i > 0);
        page.gpuCombo()->setCurrentIndex(i);
        QVERIFY(page.countSpin()->isEnabled());
        page.countSpin()->setValue(8);
        const auto& shown = page.result();
        QVERIFY(shown.has_value());
        QCOMPARE(shown->gpu, std::string("nvidia-a100-80gb-sxm"));
        QCOMPARE(shown->count, 8);
        const gp::RentVsBuy want = gp::rentVsBuy(m.scenario(), *gp::Catalog::builtin().find("nvidia-a100-80gb-sxm"), 8);
        checkChartMatches(page, want);
        checkBreakEvenShown(page, want);
        // Back to the recommendation.
        page.gpuCombo()->setCurrentIndex(0);
        QCOMPARE(page.result()->gpu, std::string("nvidia-h100-sxm"));
        QVERIFY(!page.countSpin()->isEnabled());
    }

    void defaultIsTheReportsRecommendation()
    {
        // No single GPU meets this example's targets: the report recommends the
        // planner's best setup, and the tab opens on it. The example serves bf16,
        // and since issue #16 the planner ranks only the workload's own precision
        // (hardware.precisions): its best is 3 replicas of 2x Instinct MI355X at
        // bf16 (the FP4 single MI355X it chose before is listed apart, not ranked).
        ScenarioModel m;
        m.resetScenario(serve70bTargets());
        EstimateController estimates(&m);
        estimates.recomputeNow();
        QCOMPARE(recommendedIndex(estimates.estimate()), -1);
        ReportBuilder builder(m.scenario(), estimates.estimate(), estimates.catalog());
        builder.prepare();
        const ReportRecommendation rec = builder.recommendation();
        QCOMPARE(rec.source, ReportRecommendation::Source::Plan);
        QCOMPARE(rec.gpu, builder.plan()->options.front().gpu);
        QCOMPARE(rec.gpus, builder.plan()->options.front().count * builder.plan()->options.front().replicas);

        RentBuyPage page(&m, &estimates);
        const auto& shown = page.result();
        QVERIFY2(shown.has_value(), qPrintable(page.error()));
        QCOMPARE(page.gpuCombo()->currentIndex(), 0);
        QCOMPARE(page.gpuCombo()->currentText(),
                  QStringLiteral("Recommended: %1").arg(QString::fromStdString(builder.plan()->options.front().gpuName)));
        QCOMPARE(page.countSpin()->value(), rec.gpus);
        QCOMPARE(shown->gpu, rec.gpu);
        QCOMPARE(shown->count, rec.gpus);
        // The same numbers as the report's rent vs buy section.
        QVERIFY(builder.rentVsBuy().has_value());
        QCOMPARE(gp::rentVsBuyToJson({*shown}), gp::rentVsBuyToJson({*builder.rentVsBuy()}));

        // Another GPU can still be picked, and "Recommended" comes back to it.
        page.gpuCombo()->setCurrentIndex(page.gpuCombo()->findData(QStringLiteral("nvidia-h200-sxm")));
        page.countSpin()->setValue(4);
        QCOMPARE(page.result()->gpu, std::string("nvidia-h200-sxm"));
        QCOMPARE(page.result()->count, 4);
        page.gpuCombo()->setCurrentIndex(0);
        QCOMPARE(page.result()->gpu, rec.gpu);
        QCOMPARE(page.result()->count, rec.gpus);
    }

    void pricingInputsAreUndoableScenarioEdits()
    {
        ScenarioModel m;
        m.resetScenario(serve70b());
        EstimateController estimates(&m);
        estimates.recomputeNow();
        RentBuyPage page(&m, &estimates);
        const double before = page.result()->breakEvenGpuHours.value();
        auto* hosting = qobject_cast<NumberField*>(page.editorFor(Field::HostingUsdPerGpuYear));
        QVERIFY(hosting);
        hosting->setValue(5000);
        QCOMPARE(m.scenario().pricing.hostingUsdPerGpuYear, 5000.0);
        QCOMPARE(m.undoStack()->count(), 1);
        QCOMPARE(page.result()->hostingUsdPerGpuYear, 5000.0);
        QVERIFY(page.result()->breakEvenGpuHours.value() > before);
        checkChartMatches(page, gp::rentVsBuy(m.scenario(), *gp::Catalog::builtin().find("nvidia-h100-sxm"), 2));

        auto* years = qobject_cast<NumberField*>(page.editorFor(Field::AmortizationYears));
        QVERIFY(years);
        years->setValue(5);
        QCOMPARE(m.scenario().pricing.amortizationYears, 5.0);
        QVERIFY(page.result().has_value()); // rebuilds the hidden page now
        // 5 years: months 0..60 on every curve.
        int curves = 0;
        for (const auto& s : page.chartView()->series())
            if (s.name.startsWith(QStringLiteral("Rent")) || s.name == QStringLiteral("Own")) {
                QCOMPARE(s.points.size(), 61);
                ++curves;
            }

        QCOMPARE(curves, 4);
        m.undoStack()->undo();
        m.undoStack()->undo();
        QCOMPARE(m.scenario().pricing.hostingUsdPerGpuYear, 0.0);
        QCOMPARE(hosting->value().value(), 0.0); // the input follows the undo
        QCOMPARE(years->value().value(), 3.0);
        QCOMPARE(page.result()->breakEvenGpuHours.value(), before);

        // An edit elsewhere (the form) shows here too.
        m.setValue(Field::Utilization, 0.35);
        QCOMPARE(qobject_cast<NumberField*>(page.editorFor(Field::Utilization))->value().value(), 0.35);
        QCOMPARE(page.result()->usedGpuHoursPerMonth, gp::rentVsBuy(m.scenario(), *gp::Catalog::builtin().find("nvidia-h100-sxm"), 2).usedGpuHoursPerMonth);
    }
    void pricingInputsKeepWhatIsTyped()
    {
        // The same entry as the scenario form (issue #8): digit by digit, nothing
        // reformatted or rounded, the core's message at the field for a bad value.
        ScenarioModel m;
        m.resetScenario(serve70b());
        EstimateController estimates(&m);
        RentBuyPage page(&m, &estimates);
        auto* util = qobject_cast<NumberField*>(page.editorFor(Field::Utilization));
        auto* years = qobject_cast<NumberField*>(page.editorFor(Field::AmortizationYears));
        QVERIFY(util && years);
        util->selectAll();
        QTest::keyClicks(util, QStringLiteral("0.75"));
        QCOMPARE(util->text(), QStringLiteral("0.75"));
        QCOMPARE(m.scenario().pricing.utilization, 0.75);
        QTest::keyClick(util, Qt::Key_Return); // ends this edit: 0.75 is what a later bad entry falls back to
        years->selectAll();
        QTest::keyClicks(years, QStringLiteral("2.5"));
        QCOMPARE(years->text(), QStringLiteral("2.5"));
        QCOMPARE(m.scenario().pricing.amortizationYears, 2.5);
        util->selectAll();
        QTest::keyClicks(util, QStringLiteral("1.5"));
        QCOMPARE(util->text(), QStringLiteral("1.5"));
        QVERIFY2(util->problem().startsWith(QStringLiteral("pricing.utilization: ")), qPrintable(util->problem()));
        QCOMPARE(m.scenario().pricing.utilization, 0.75); // a refused value never reaches the scenario
    }
};

QTEST_MAIN(TestRentBuy)
#include "tst_rentbuy.moc"
