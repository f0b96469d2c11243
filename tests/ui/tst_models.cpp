#include "ui/catalogtablemodel.h"
#include "ui/comparisonmodel.h"
#include "ui/resultstablemodel.h"

#include "core/hardware/catalog.h"
#include "core/estimate/estimate.h"
#include "core/scenario/scenario.h"
#include "core/base/units.h"

#include <QAbstractItemModelTester>
#include <QSortFilterProxyModel>
#include <QtTest>

using namespace gp::ui;

namespace {

gp::Scenario threeGpuScenario()
{
    gp::Scenario s = gp::defaultScenario();
    s.hardware.gpus = {"nvidia-h100-sxm", "nvidia-a100-80gb-sxm", "nvidia-l40s"};
    return s;
}

} // namespace

class TestModels : public QObject
{
    Q_OBJECT
private slots:
    void resultsModelPassesTheTester()
    {
        ResultsTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSortFilterProxyModel proxy;
        proxy.setSourceModel(&model);
        proxy.setSortRole(ResultsTableModel::SortRole);
        QAbstractItemModelTester proxyTester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const gp::Estimate e = gp::estimate(gp::defaultScenario(), gp::Catalog::builtin());
        model.setEstimate(e);
        QCOMPARE(model.rowCount(), static_cast<int>(e.results.size()));
        QCOMPARE(model.columnCount(), static_cast<int>(ResultsTableModel::ColumnCount));
        proxy.sort(ResultsTableModel::VramHasColumn, Qt::DescendingOrder);
        // Sorting is numeric: the first row has the largest memory.
        double prev = std::numeric_limits<double>::max();
        for (int r = 0; r < proxy.rowCount(); ++r) {
            const double v = proxy.index(r, ResultsTableModel::VramHasColumn).data(ResultsTableModel::SortRole).toDouble();
            QVERIFY(v <= prev);
            prev = v;
        }
        model.setEstimate(gp::Estimate{});
        QCOMPARE(model.rowCount(), 0);
    }

    void resultsModelShowsTheCoreNumbers()
    {
        ResultsTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const gp::Scenario s = threeGpuScenario();
        model.setEstimate(gp::estimate(s, gp::Catalog::builtin()));
        const int row = model.rowOf(QStringLiteral("nvidia-h100-sxm"));
        QVERIFY(row >= 0);
        const gp::GpuEstimate direct = gp::estimateOn(s, *gp::Catalog::builtin().find("nvidia-h100-sxm"));
        QCOMPARE(model.cellValue(row, ResultsTableModel::VramNeedColumn).value(), gp::units::bytesToGiB(direct.memory.total()));
        QCOMPARE(model.cellValue(row, ResultsTableModel::CostColumn).value(), direct.training->costUsd.value());
        QCOMPARE(model.index(row, ResultsTableModel::GpuColumn).data(ResultsTableModel::GpuIdRole).toString(),
                 QStringLiteral("nvidia-h100-sxm"));
        QVERIFY(model.headerData(ResultsTableModel::CostColumn, Qt::Horizontal).toString().contains(QStringLiteral("train")));
    }

    void rowsThatDoNotFitAreMarkedWithTheReason()
    {
        ResultsTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const gp::Estimate e = gp::estimate(gp::defaultScenario(), gp::Catalog::builtin());
        model.setEstimate(e);
        int row = -1;
        for (std::size_t i = 0; i < e.results.size(); ++i)
            if (!e.results[i].fits && row < 0)
                row = static_cast<int>(i);
        QVERIFY2(row >= 0, "the default scenario should not fit on every GPU (e.g. 10 GB cards)");
        const QModelIndex fits = model.index(row, ResultsTableModel::FitsColumn);
        QCOMPARE(fits.data().toString(), QStringLiteral("no"));
        QVERIFY(fits.data(Qt::DecorationRole).isValid());
        QVERIFY(fits.data(Qt::ForegroundRole).isValid());
        QVERIFY(fits.data(Qt::ToolTipRole).toString().contains(QStringLiteral("Does not fit")));
    }

    void comparisonModelPassesTheTesterAndMarksTheBest()
    {
        ComparisonModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const gp::Estimate e = gp::estimate(threeGpuScenario(), gp::Catalog::builtin());
        model.setEstimate(e);
        QCOMPARE(model.columnCount(), 0);
        model.setGpuIds({"nvidia-h100-sxm", "nvidia-a100-80gb-sxm", "nvidia-l40s"});
        QCOMPARE(model.columnCount(), 3);
        QVERIFY(model.rowCount() > 10); // metrics + terms
        // The throughput row's best column is the GPU with the most throughput.
        int throughputRow = -1;
        for (int r = 0; r < model.rowCount(); ++r)
            if (throughputRow < 0 && model.headerData(r, Qt::Vertical).toString().startsWith(QStringLiteral("Throughput (")))
                throughputRow = r;
        QVERIFY(throughputRow >= 0);
        double best = 0;
        int bestCol = -1;
        for (int c = 0; c < 3; ++c) {
            const double v = model.index(throughputRow, c).data(ComparisonModel::SortRole).toDouble();
            if (v > best) {
                best = v;
                bestCol = c;
            }
        }
        QCOMPARE(model.bestColumn(throughputRow), bestCol);
        QVERIFY(model.index(throughputRow, bestCol).data(ComparisonModel::IsBestRole).toBool());
        QVERIFY(model.index(throughputRow, bestCol).data(Qt::BackgroundRole).isValid());
        // Terms carry their formulas.
        bool formula = false;
        for (int r = 0; r < model.rowCount(); ++r)
            formula = formula || !model.index(r, 0).data(Qt::ToolTipRole).toString().isEmpty();
        QVERIFY(formula);
    }

    void ratioSentencesUseTheCoreNumbers()
    {
        ComparisonModel model;
        const gp::Scenario s = threeGpuScenario();
        const gp::Estimate e = gp::estimate(s, gp::Catalog::builtin());
        model.setEstimate(e);
        model.setGpuIds({"nvidia-a100-80gb-sxm", "nvidia-h100-sxm"});
        const QStringList sentences = model.ratioSentences();
        QCOMPARE(sentences.size(), 1);
        const auto& cat = gp::Catalog::builtin();
        const auto h100 = gp::estimateOn(s, *cat.find("nvidia-h100-sxm"));
        const auto a100 = gp::estimateOn(s, *cat.find("nvidia-a100-80gb-sxm"));
        const double speed = h100.training->tokensPerS / a100.training->tokensPerS;
        QVERIFY2(sentences[0].startsWith(QString::fromStdString(h100.gpuName) + QStringLiteral(" is ")), qPrintable(sentences[0]));
        QVERIFY2(sentences[0].contains(QStringLiteral("%1x faster").arg(QString::number(speed, 'g', 2))), qPrintable(sentences[0]));
        QVERIFY(sentences[0].endsWith(QStringLiteral("than %1.").arg(QString::fromStdString(a100.gpuName))));
    }

    void catalogModelPassesTheTesterAndRecordsPriceEdits()
    {
        CatalogTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setCatalog(gp::Catalog::builtin());
        QCOMPARE(model.rowCount(), static_cast<int>(gp::Catalog::builtin().gpus().size()));
        int row = -1;
        for (int r = 0; r < model.rowCount(); ++r)
            if (model.index(r, 0).data(CatalogTableModel::GpuIdRole).toString() == QStringLiteral("nvidia-h100-sxm"))
                row = r;
        QVERIFY(row >= 0);
        QVERIFY(model.flags(model.index(row, CatalogTableModel::PriceColumn)) & Qt::ItemIsEditable);
        QVERIFY(!(model.flags(model.index(row, CatalogTableModel::MemoryColumn)) & Qt::ItemIsEditable));
        QVERIFY(!model.setData(model.index(row, CatalogTableModel::PriceColumn), -1.0));
        QVERIFY(model.setData(model.index(row, CatalogTableModel::PriceColumn), 1.99));
        QCOMPARE(model.index(row, CatalogTableModel::PriceColumn).data(Qt::EditRole).toDouble(), 1.99);
        const auto edits = model.pendingEdits();
        QCOMPARE(edits.size(), std::size_t(1));
        QCOMPARE(edits[0]["id"].get<std::string>(), std::string("nvidia-h100-sxm"));
        QCOMPARE(edits[0]["price_hour_usd"]["typical"].get<double>(), 1.99);
        // The entry is one the core accepts as an overlay.
        gp::Catalog c = gp::Catalog::builtin();
        c.applyOverlayText(nlohmann::json::array({edits[0]}).dump(), "test");
        QCOMPARE(c.find("nvidia-h100-sxm")->pricePerHour.typical, 1.99);
        QVERIFY(c.find("nvidia-h100-sxm")->userDefined);
    }
};

QTEST_MAIN(TestModels)
#include "tst_models.moc"
