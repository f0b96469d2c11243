#include "ui/reportbuilder.h"
#include "ui/reportcli.h"

#include "core/catalog.h"
#include "core/cli.h"
#include "core/estimate.h"
#include "core/scenario.h"

#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

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
