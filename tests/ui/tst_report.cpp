#include "ui/reportbuilder.h"
#include "ui/reportcli.h"
#include "ui/estimatecontroller.h"
#include "ui/format.h"
#include "ui/plantablemodel.h"
#include "ui/resultstablemodel.h"

#include "core/hardware/catalog.h"
#include "app/cli/cli.h"
#include "core/estimate/estimate.h"
#include "core/plan/planner.h"
#include "core/scenario/scenario.h"

#include <QFile>
#include <QPainterPath>
#include <QPainterPathStroker>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include "ui/reportrecommendation.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

namespace {

gp::Scenario threeGpuScenario()
{
    gp::Scenario s = gp::defaultScenario();
    s.name = "Report test: Llama 3.1 8B LoRA";
    s.hardware.gpus = {"nvidia-h100-sxm", "nvidia-a100-80gb-sxm", "nvidia-l40s"};
    return s;
}

gp::Scenario exampleScenario(const char* file)
{
    QFile f(QStringLiteral(GP_EXAMPLES_DIR "/") + QLatin1String(file));
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", file);
    return gp::parseScenario(f.readAll().toStdString()).scenario;
}

QString pdfText(const QString& file, int page = 0)
{
    const QString pdftotext = QStandardPaths::findExecutable(QStringLiteral("pdftotext"));
    QProcess p;
    QStringList args{QStringLiteral("-layout")};
    if (page > 0)
        args << QStringLiteral("-f") << QString::number(page) << QStringLiteral("-l") << QString::number(page);
    p.start(pdftotext, args << file << QStringLiteral("-"));
    p.waitForFinished(30000);
    // pdftotext keeps the font's ligatures ("ﬁts"); NFKC folds them back.
    return QString::fromUtf8(p.readAllStandardOutput()).normalized(QString::NormalizationForm_KC);
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

    void servingReportNamesTheScenarioAndAgreesWithThePlan()
    {
        // 70B serving with every target set: one GPU of any kind misses a target,
        // so page 1, the plan and rent vs buy all name the planner's #1.
        const gp::Scenario s = exampleScenario("llama31-70b-serve-targets.gpuplan.json");
        QVERIFY(s.inference.targets.ttftMs && s.inference.targets.tpotMs && s.inference.targets.requestsPerS);
        const auto& cat = gp::Catalog::builtin();
        const gp::Estimate e = gp::estimate(s, cat);
        QCOMPARE(gp::ui::recommendedIndex(e), -1);
        gp::ui::ReportBuilder b(s, e, cat);
        b.prepare();
        QVERIFY(b.plan().has_value());
        const gp::PlanOption& best = b.plan()->options.front();
        const gp::ui::ReportRecommendation rec = b.recommendation();
        QCOMPARE(rec.source, gp::ui::ReportRecommendation::Source::Plan);
        QCOMPARE(rec.gpu, best.gpu);
        QCOMPARE(rec.gpus, best.count * best.replicas);
        // The headline names the planner's #1 (whatever the refit makes it), how
        // many setups were feasible, and how sure it is.
        QVERIFY2(rec.headline.startsWith(QStringLiteral("No single GPU meets every target; the planner's best setup is ")),
                 qPrintable(rec.headline));
        QVERIFY(rec.headline.contains(QString::fromStdString(best.gpuName)));
        QVERIFY(rec.headline.contains(QStringLiteral("(the cheapest of %1 setups that fit and meet the targets; see Plan)")
                                          .arg(b.plan()->feasible)));
        QVERIFY(rec.headline.endsWith(
            QStringLiteral("How sure: %1.").arg(gp::ui::planConfidenceText(best, b.plan()->confidence))));
        QVERIFY(b.htmlBeforeCharts().contains(rec.headline.toHtmlEscaped()));
        QVERIFY(!b.htmlBeforeCharts().contains(QStringLiteral("No GPU meets every target")));
        QVERIFY(b.rentVsBuy().has_value());
        QCOMPARE(b.rentVsBuy()->gpu, best.gpu);
        QCOMPARE(b.rentVsBuy()->count, rec.gpus);
        QVERIFY(b.htmlRentBuy().contains(QStringLiteral("For the recommended setup, the planner&#x27;s best, ")) ||
                b.htmlRentBuy().contains(QStringLiteral("For the recommended setup, the planner's best, ")));
        // The plan section shows the replicas and the users one replica holds.
        const QString planHtml = b.htmlPlan();
        QVERIFY(planHtml.contains(QStringLiteral("<th>Replicas</th>")));
        QVERIFY(planHtml.contains(QStringLiteral("<th>Users / replica</th>")));
        QCOMPARE(gp::ui::planUsersText(best),
                 QStringLiteral("%1 (%2)").arg(best.usersPerReplica).arg(gp::ui::planLimitText(best.limit)));
        // The replicas x per-replica batch hold the 16 users, and the limit shown is the plan's.
        QVERIFY(best.replicas >= 1);
        QVERIFY(best.replicas * best.microBatch >= 16);
        QCOMPARE(gp::ui::planUsersText(best), QStringLiteral("%1 (%2)").arg(best.usersPerReplica).arg(gp::ui::planLimitText(best.limit)));
        QVERIFY(planHtml.contains(QStringLiteral("<td align='right'>%1</td><td>%2</td>")
                                      .arg(best.replicas)
                                      .arg(gp::ui::planUsersText(best).toHtmlEscaped())));

        // Through the CLI: title and every footer name the scenario.
        qputenv("GPUPLANNER_CATALOG_OVERLAY", m_dir.filePath(QStringLiteral("none.json")).toUtf8());
        const QString out = m_dir.filePath(QStringLiteral("serve70b.pdf"));
        char arg0[] = "gpuplanner-cli";
        char* argv[] = {arg0, nullptr};
        gp::cli::Hooks hooks;
        hooks.report = gp::ui::makeHeadlessReportWriter(1, argv);
        std::ostringstream o, err;
        const std::string file = GP_EXAMPLES_DIR "/llama31-70b-serve-targets.gpuplan.json";
        QCOMPARE(gp::cli::run({"report", file, "-o", out.toStdString()}, o, err, hooks), 0);
        if (QStandardPaths::findExecutable(QStringLiteral("pdftotext")).isEmpty())
            QSKIP("pdftotext not on PATH; text checks skipped");
        const QString text = pdfText(out);
        const int pages = static_cast<int>(text.count(QStringLiteral("Page ")));
        QVERIFY(pages >= 4);
        QCOMPARE(static_cast<int>(text.count(QStringLiteral("GPU Planner — Llama 3.1 70B: inference"))), pages);
        const QString page1 = pdfText(out, 1);
        QVERIFY(page1.trimmed().startsWith(QStringLiteral("Llama 3.1 70B: inference")));
        QVERIFY(page1.simplified().contains(rec.headline.simplified()));
        QVERIFY(!text.contains(QStringLiteral("fine-tune with LoRA")));
        QVERIFY(text.simplified().contains(QStringLiteral("For the recommended setup, the planner's best, ") + rec.setup));
        // The plan table's header wraps in its column: "Users /" over "replica".
        QVERIFY(text.contains(QStringLiteral("Users /")));
        // batch / replica, replicas, users ("batch 16 1 27"; the limit may wrap
        // to the next line of its cell).
        QVERIFY2(text.simplified().contains(QStringLiteral("batch %1 %2 %3").arg(best.microBatch).arg(best.replicas).arg(best.usersPerReplica)),
                 qPrintable(text.simplified().mid(text.simplified().indexOf(QStringLiteral("Users /")), 200)));
    }

    void tableRowsNeverSplitAcrossPages()
    {
        // 70B serving with every target: long sources and rules tables run over
        // several pages. Every row lies whole on one page, inside the body.
        const gp::Scenario s = exampleScenario("llama31-70b-serve-targets.gpuplan.json");
        const auto& cat = gp::Catalog::builtin();
        gp::ui::ReportBuilder b(s, gp::estimate(s, cat), cat);
        const QString path = m_dir.filePath(QStringLiteral("rows.pdf"));
        QCOMPARE(b.write(path), QString());
        const gp::ui::ReportLayout& l = b.layout();
        QCOMPARE(l.pages, b.pageCount());
        // A4 at 300 dpi less 15 + 15 mm side margins: 180 mm = 2126 px, give or take
        // Qt's rounding to points; 297 - 15 - 12 mm = 3189 px less the 90 px footer.
        QVERIFY2(std::abs(l.body.width() - 2126) <= 8, qPrintable(QString::number(l.body.width())));
        QVERIFY2(std::abs(l.body.height() - 3099) <= 8, qPrintable(QString::number(l.body.height())));
        QVERIFY(l.rows.size() > 60);
        std::map<int, std::pair<int, int>> tablePages; // table -> first, last page
        std::map<std::pair<int, int>, double> lastBottom; // (table, page) -> bottom of the row before
        for (const auto& r : l.rows) {
            const QString where = QStringLiteral("table %1 row %2 page %3: %4..%5").arg(r.table).arg(r.row).arg(r.page).arg(r.top).arg(r.bottom);
            QVERIFY2(r.page >= 0 && r.page < l.pages, qPrintable(where));
            QVERIFY2(r.top >= 0 && r.top < r.bottom && r.bottom <= l.body.height(), qPrintable(where));
            auto [it, fresh] = tablePages.try_emplace(r.table, r.page, r.page);
            QVERIFY2(r.page >= it->second.second, qPrintable(where)); // in order
            it->second.second = r.page;
            // Rows follow each other down the page without overlapping.
            const auto key = std::make_pair(r.table, r.page);
            if (lastBottom.count(key))
                QVERIFY2(r.top >= lastBottom[key] - 1, qPrintable(where));
            lastBottom[key] = r.bottom;
        }
        int continued = 0;
        for (const auto& [table, span] : tablePages) {
            for (int p = span.first + 1; p <= span.second; ++p) {
                // The header again, first on each page the table continues on.
                const auto first = std::find_if(l.rows.begin(), l.rows.end(),
                                                [&](const auto& r) { return r.table == table && r.page == p; });
                QVERIFY(first != l.rows.end());
                QVERIFY(first->repeatedHeader);
                QCOMPARE(first->row, 0);
                ++continued;
            }
        }
        QVERIFY2(continued >= 3, qPrintable(QString::number(continued))); // sources once, rules twice
        if (QStandardPaths::findExecutable(QStringLiteral("pdftotext")).isEmpty())
            QSKIP("pdftotext not on PATH; text checks skipped");
        // The rows on either side of every page break: each one's first and last
        // lines are on its page and not on the other.
        int checked = 0;
        for (std::size_t i = 1; i < l.rows.size(); ++i) {
            const auto& before = l.rows[i - 1];
            const auto& after = l.rows[i];
            if (!after.repeatedHeader || after.table != before.table || before.lastLine.size() < 12)
                continue;
            const auto next = l.rows[i + 1];
            const QString pageBefore = pdfText(path, before.page + 1).simplified();
            const QString pageAfter = pdfText(path, next.page + 1).simplified();
            QVERIFY2(pageBefore.contains(before.firstLine) && pageBefore.contains(before.lastLine),
                     qPrintable(before.lastLine));
            QVERIFY2(!pageAfter.contains(before.lastLine), qPrintable(before.lastLine));
            QVERIFY2(pageAfter.contains(next.firstLine) && pageAfter.contains(next.lastLine), qPrintable(next.lastLine));
            QVERIFY2(!pageBefore.contains(next.lastLine), qPrintable(next.lastLine));
            ++checked;
        }
        QVERIFY(checked >= 2);
    }

    void breakEvenLabelIsClearOfTheCurves()
    {
        const auto& cat = gp::Catalog::builtin();
        int marked = 0;
        for (const char* file : {"llama31-70b-serve-targets.gpuplan.json", "llama31-70b-serve-2xh100-tp.gpuplan.json",
                                 "llama31-8b-lora-rtx4090.gpuplan.json", "resnet50-train.gpuplan.json",
                                 "gpt2-124m-pretrain.gpuplan.json"}) {
            const gp::Scenario s = exampleScenario(file);
            gp::ui::ReportBuilder b(s, gp::estimate(s, cat), cat);
            b.setSections(gp::ui::ReportBuilder::RentBuySection);
            const QString path = m_dir.filePath(QStringLiteral("breakeven.pdf"));
            QCOMPARE(b.write(path), QString());
            QVERIFY2(b.rentVsBuy().has_value(), file);
            const auto& m = b.layout().breakEven;
            if (!b.rentVsBuy()->breakEvenMonth) {
                QVERIFY2(!m.shown, file);
                continue;
            }
            ++marked;
            QVERIFY2(m.shown, file);
            QCOMPARE(m.month, *b.rentVsBuy()->breakEvenMonth);
            QVERIFY(b.layout().breakEvenPage >= 0);
            QVERIFY2(QRectF(QPointF(0, 0), b.layout().body).contains(m.label), file);
            QVERIFY2(m.label.left() > m.x || m.label.right() < m.x || m.inCaption, file); // not on the rule
            if (!m.inCaption)
                QVERIFY2(m.plot.contains(m.label), file);
            QCOMPARE(m.curves.size(), b.rentVsBuy()->curves.size());
            // Each curve segment, stroked as wide as the widest pen, misses the label.
            QPainterPathStroker stroker;
            stroker.setWidth(m.curvePenWidth);
            for (const QPolygonF& c : m.curves) {
                QVERIFY(c.size() > 12);
                for (qsizetype i = 0; i + 1 < c.size(); ++i) {
                    QPainterPath seg(c[i]);
                    seg.lineTo(c[i + 1]);
                    QVERIFY2(!stroker.createStroke(seg).intersects(m.label),
                             qPrintable(QStringLiteral("%1: segment %2").arg(QLatin1String(file)).arg(i)));
                }
            }
            if (!QStandardPaths::findExecutable(QStringLiteral("pdftotext")).isEmpty())
                QVERIFY2(pdfText(path).contains(m.text), qPrintable(m.text));
        }
        QVERIFY2(marked >= 3, qPrintable(QString::number(marked)));
    }

    void aGpuWithNoPriceSaysSoNeverZero()
    {
        QCOMPARE(gp::ui::formatPrice(0), QStringLiteral("no price"));
        QCOMPARE(gp::ui::formatPrice(-1), QStringLiteral("no price"));
        QCOMPARE(gp::ui::formatPrice(2.49), QStringLiteral("$2.49"));
        gp::Scenario s = gp::defaultScenario();
        s.hardware.gpus = {"intel-gaudi3", "nvidia-h100-sxm"}; // the catalog lists no rental price for Gaudi 3
        const auto& cat = gp::Catalog::builtin();
        QCOMPARE(cat.find("intel-gaudi3")->pricePerHour.typical, 0.0);
        const gp::Estimate e = gp::estimate(s, cat);
        QCOMPARE(e.results.at(0).usdPerHour, 0.0);
        gp::ui::ResultsTableModel model;
        model.setEstimate(e);
        using M = gp::ui::ResultsTableModel;
        QCOMPARE(model.index(0, M::UsdPerHourColumn).data().toString(), QStringLiteral("no price"));
        QCOMPARE(model.index(0, M::CostColumn).data().toString(), QStringLiteral("no price"));
        QVERIFY(model.index(1, M::UsdPerHourColumn).data().toString().startsWith(QLatin1Char('$')));
        gp::ui::ReportBuilder b(s, e, cat);
        const QString before = b.htmlBeforeCharts();
        QCOMPARE(static_cast<int>(before.count(QStringLiteral("<td align='right'>no price</td>"))), 2);
        QVERIFY(!before.contains(QStringLiteral(">$0<")));
        QVERIFY(b.htmlAfterCharts().contains(QStringLiteral("no price (")));
    }

    void longOrControlNamesArePaintedShortAndClean()
    {
        QCOMPARE(gp::ui::printableName(QStringLiteral("a\x1b[31mb\r\nc\t\u202Emd  ")), QStringLiteral("a [31mb c md"));
        QCOMPARE(gp::ui::printableName(QString(300, QLatin1Char('x')), 10), QStringLiteral("xxxxxxxxx…"));
        QCOMPARE(gp::ui::printableName(QStringLiteral("exactly10!"), 10), QStringLiteral("exactly10!"));
        QCOMPARE(gp::ui::fileNameStem(QStringLiteral("Llama 3.1 70B: inference")), QStringLiteral("llama-3-1-70b-inference"));
        QCOMPARE(gp::ui::fileNameStem(QStringLiteral("../../etc/passwd")), QStringLiteral("etc-passwd"));
        QCOMPARE(gp::ui::fileNameStem(QString(1 << 20, QLatin1Char('z'))), QString(60, QLatin1Char('z')));

        // A megabyte-long name with escape sequences and line breaks.
        gp::Scenario s = threeGpuScenario();
        s.name = "Evil\x1b[2J\r\nname " + std::string(1 << 20, 'n');
        const auto& cat = gp::Catalog::builtin();
        gp::ui::ReportBuilder b(s, gp::estimate(s, cat), cat);
        QCOMPARE(b.title(), QStringLiteral("Evil [2J name ") + QString(105, QLatin1Char('n')) + QStringLiteral("…"));
        const QString path = m_dir.filePath(QStringLiteral("long.pdf"));
        b.setSections(0);
        QCOMPARE(b.write(path), QString());
        QVERIFY(!b.htmlBeforeCharts().contains(QString(200, QLatin1Char('n'))));
        if (QStandardPaths::findExecutable(QStringLiteral("pdftotext")).isEmpty())
            QSKIP("pdftotext not on PATH; text checks skipped");
        const QString text = pdfText(path);
        QVERIFY(!text.contains(QChar(0x1b)));
        QVERIFY(text.contains(QStringLiteral("GPU Planner — Evil [2J name nnnn")));
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
