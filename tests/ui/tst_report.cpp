#include "ui/reportbuilder.h"
#include "ui/reportcli.h"
#include "ui/estimatecontroller.h"

#include "core/catalog.h"
#include "core/cli.h"
#include "core/estimate.h"
#include "core/planner.h"
#include "core/scenario.h"

#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <sstream>

namespace {

gp::Scenario threeGpuScenario()
{
    gp::Scenario s = gp::defaultScenario();
    s.name = "Report test: Llama 3.1 8B LoRA";
    s.hardware.gpus = {"nvidia-h100-sxm", "nvidia-a100-80gb-sxm", "nvidia-l40s"};
    return s;
}

int pdfPageObjects(const QByteArray& pdf)
{
    static const QRegularExpression re(QStringLiteral("/Type\\s*/Page[^s]"));
    return static_cast<int>(QString::fromLatin1(pdf).count(re));
}

} // namespace

class TestReport : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;

    void checkPdf(const QString& path, int expectedPages, const QStringList& mustName)
    {
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray pdf = f.readAll();
        QVERIFY(pdf.startsWith("%PDF"));
        QCOMPARE(pdfPageObjects(pdf), expectedPages);
        const QString pdftotext = QStandardPaths::findExecutable(QStringLiteral("pdftotext"));
        if (pdftotext.isEmpty())
            QSKIP("pdftotext not on PATH; text checks skipped");
        QProcess p;
        p.start(pdftotext, {QStringLiteral("-layout"), path, QStringLiteral("-")});
        QVERIFY(p.waitForFinished(30000));
        const QString text = QString::fromUtf8(p.readAllStandardOutput());
        for (const auto& n : mustName)
            QVERIFY2(text.contains(n), qPrintable(QStringLiteral("report lacks \"%1\"").arg(n)));
        QVERIFY(text.contains(QStringLiteral("Recommendation")));
        QVERIFY(text.contains(QStringLiteral("Catalog sources and price dates")));
        QVERIFY(text.contains(QStringLiteral("Page 1 of %1").arg(expectedPages)));
    }

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void writesAMultiPagePdfNamingTheGpus()
    {
        const gp::Scenario s = threeGpuScenario();
        const auto& cat = gp::Catalog::builtin();
        const gp::Estimate e = gp::estimate(s, cat);
        gp::ui::ReportBuilder b(s, e, cat);
        const QString path = m_dir.filePath(QStringLiteral("r.pdf"));
        QCOMPARE(b.write(path), QString());
        QCOMPARE(b.shownGpuIds().size(), 3);
        // Text before the charts, two chart pages, text after: at least 4 pages.
        QVERIFY2(b.pageCount() >= 4, qPrintable(QString::number(b.pageCount())));
        QStringList names;
        for (const auto& r : e.results)
            names << QString::fromStdString(r.gpuName);
        names << QString::fromStdString(s.name);
        checkPdf(path, b.pageCount(), names);
    }

    void planRentBuyAndRulesSectionsAddPages()
    {
        const gp::Scenario s = threeGpuScenario();
        const auto& cat = gp::Catalog::builtin();
        const gp::Estimate e = gp::estimate(s, cat);
        gp::ui::ReportBuilder base(s, e, cat);
        base.setSections(0);
        QCOMPARE(base.write(m_dir.filePath(QStringLiteral("base.pdf"))), QString());
        gp::ui::ReportBuilder full(s, e, cat);
        const QString path = m_dir.filePath(QStringLiteral("full.pdf"));
        QCOMPARE(full.write(path), QString());
        QVERIFY2(full.pageCount() > base.pageCount(),
                 qPrintable(QStringLiteral("%1 vs %2").arg(full.pageCount()).arg(base.pageCount())));
        // The sections hold the core's numbers.
        QVERIFY(full.plan().has_value());
        const gp::PlanResult plan = gp::plan(s, cat, gp::PlanRequest{gp::ui::ReportBuilder::kMaxPlanOptions});
        QCOMPARE(gp::planToJson(*full.plan()), gp::planToJson(plan));
        QVERIFY(full.rentVsBuy().has_value());
        QCOMPARE(full.rentVsBuy()->gpu, e.results[static_cast<std::size_t>(gp::ui::recommendedIndex(e))].gpuId);
        QVERIFY(full.htmlRules().contains(QStringLiteral("Corrected")));

        const QString pdftotext = QStandardPaths::findExecutable(QStringLiteral("pdftotext"));
        if (pdftotext.isEmpty())
            QSKIP("pdftotext not on PATH; text checks skipped");
        const auto pdfText = [&pdftotext](const QString& file, int page = 0) {
            QProcess p;
            QStringList args{QStringLiteral("-layout")};
            if (page > 0)
                args << QStringLiteral("-f") << QString::number(page) << QStringLiteral("-l") << QString::number(page);
            p.start(pdftotext, args << file << QStringLiteral("-"));
            p.waitForFinished(30000);
            return QString::fromUtf8(p.readAllStandardOutput());
        };
        const QString text = pdfText(path);
        for (const auto& heading : {QStringLiteral("Plan"), QStringLiteral("Rent vs buy"), QStringLiteral("Rules of thumb"),
                                    QStringLiteral("Catalog sources")})
            QVERIFY2(text.contains(heading), qPrintable(heading));
        // The alternatives section appears when some popular GPU lost.
        QCOMPARE(text.contains(QStringLiteral("Popular alternatives that lost")), !plan.alternatives.empty());
        const QString why = QString::fromStdString(plan.options.front().why).left(40).simplified();
        // pdftotext keeps the font's ligatures ("ﬁts"); NFKC folds them back.
        QVERIFY2(text.normalized(QString::NormalizationForm_KC).simplified().contains(QStringLiteral("Why #1: ") + why),
                 qPrintable(why));
        QString plain = text;
        plain.remove(QLatin1Char(','));
        QVERIFY(plain.contains(QString::number(std::lround(*full.rentVsBuy()->breakEvenGpuHours))));
        QVERIFY(text.contains(QStringLiteral("Page 1 of %1").arg(full.pageCount())));
        // No half-empty first page: the first chart follows the comparison on page 1.
        QVERIFY(pdfText(path, 1).contains(QStringLiteral("Memory per GPU")));
        const QString base1 = pdfText(m_dir.filePath(QStringLiteral("base.pdf")));
        QVERIFY(!base1.contains(QStringLiteral("Rules of thumb")));
    }

    void failureLeavesNoFileAndSaysWhy()
    {
        const gp::Scenario s = threeGpuScenario();
        const auto& cat = gp::Catalog::builtin();
        gp::ui::ReportBuilder b(s, gp::estimate(s, cat), cat);
        const QString path = m_dir.filePath(QStringLiteral("missing-dir/r.pdf"));
        QVERIFY(!b.write(path).isEmpty());
        QVERIFY(!QFile::exists(path));
    }

    void headlessCliWriterSharesTheBuilder()
    {
        // Through the CLI contract: gpuplanner-cli report FILE -o OUT.pdf
        qputenv("GPUPLANNER_CATALOG_OVERLAY", m_dir.filePath(QStringLiteral("none.json")).toUtf8());
        const QString scenario = m_dir.filePath(QStringLiteral("s.gpuplan.json"));
        QFile f(scenario);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray::fromStdString(gp::scenarioToJson(threeGpuScenario())));
        f.close();
        const QString out = m_dir.filePath(QStringLiteral("cli.pdf"));
        char arg0[] = "gpuplanner-cli";
        char* argv[] = {arg0, nullptr};
        gp::cli::Hooks hooks;
        hooks.report = gp::ui::makeHeadlessReportWriter(1, argv);
        std::ostringstream o, err;
        const int rc = gp::cli::run({"report", scenario.toStdString(), "-o", out.toStdString()}, o, err, hooks);
        QVERIFY2(rc == 0, err.str().c_str());
        QFile pdf(out);
        QVERIFY(pdf.open(QIODevice::ReadOnly));
        QVERIFY(pdf.readAll().startsWith("%PDF"));

        // An unwritable output is an error message, exit 1, and no file.
        const int bad = gp::cli::run({"report", scenario.toStdString(), "-o", m_dir.filePath(QStringLiteral("no/such/dir.pdf")).toStdString()},
                                     o, err, hooks);
        QCOMPARE(bad, 1);
    }
};

QTEST_MAIN(TestReport)
#include "tst_report.moc"
