// Scale: a 1,000-entry user catalog loads through the app's own path and every
// GPU gets a row while the charts keep to their 16; a 10 MB scenario opens, a
// 17 MB one is refused at once and the scenario being edited is kept.
#include "ui/charts/chartfactory.h"
#include "ui/charts/chartpanel.h"
#include "ui/comparisonmodel.h"
#include "ui/comparisonview.h"
#include "ui/estimatecontroller.h"
#include "ui/mainwindow.h"
#include "ui/documentmanager.h"
#include "ui/resultspage.h"
#include "ui/numberfield.h"
#include "ui/resultstablemodel.h"
#include "ui/scenarioform.h"
#include "ui/scenariomodel.h"
#include "ui/settings.h"
#include "window_fixture.h"

#include "core/hardware/catalog.h"
#include "core/estimate/estimate.h"

#include <QElapsedTimer>
#include <QFile>
#include <QListWidget>
#include <QMessageBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <memory>

using namespace gp::ui;
using Field = ScenarioModel::Field;

namespace {

constexpr int kCustomGpus = 1000;

/// kCustomGpus valid, varied custom GPUs as a user overlay (JSON text).
std::string syntheticOverlay()
{
    nlohmann::json doc = nlohmann::json::array();
    for (int i = 0; i < kCustomGpus; ++i) {
        const double scale = 1.0 + (i % 97) / 10.0;
        doc.push_back({{"id", "synthetic-gpu-" + std::to_string(i)},
                       {"name", "Synthetic GPU " + std::to_string(i)},
                       {"vendor", i % 3 == 0 ? "Acme" : (i % 3 == 1 ? "Globex" : "Initech")},
                       {"memory_gb", 16 + 8 * (i % 23)},
                       {"memory_bandwidth_gbps", 400 * scale},
                       {"fp32_tflops", 10 * scale},
                       {"fp16_tflops", 80 * scale},
                       {"bf16_tflops", 80 * scale},
                       {"tdp_w", 300},
                       {"price_hour_usd", {{"typical", 0.5 + 0.01 * (i % 400)}}},
                       {"purchase_usd", 5000 + 10 * i}});
    }
    return doc.dump(1);
}

} // namespace

class TestScale : public QObject, protected WindowFixture
{
    Q_OBJECT
private:
    /// The fixture's window, whose notices are collected too.
    std::unique_ptr<MainWindow> makeWindow()
    {
        auto w = WindowFixture::makeWindow();
        w->setNotifier([this](const QString& t, const QString& m) { m_errors << t + QStringLiteral(": ") + m; });
        return w;
    }

    QString writeScenarioWithNotes(const char* name, qsizetype bytes)
    {
        nlohmann::json doc = nlohmann::json::parse(gp::scenarioToJson(gp::defaultScenario()));
        doc["name"] = name;
        doc["notes"] = "";
        const std::string head = doc.dump(1);
        // A long "notes" string (a key the format allows) brings the file to the size wanted.
        const qsizetype fill = std::max<qsizetype>(0, bytes - qsizetype(head.size()));
        doc["notes"] = std::string(static_cast<std::size_t>(fill), 'n');
        const QString path = m_dir.filePath(QString::fromLatin1(name) + QStringLiteral(".gpuplan.json"));
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly))
            return {};
        f.write(QByteArray::fromStdString(doc.dump(1)));
        return path;
    }

private slots:
    void initTestCase() { setUpWindowTests(); }

    void init() { m_errors.clear(); }

    void thousandGpuCatalogGivesEveryRowAndCappedCharts()
    {
        const QString overlay = m_dir.filePath(QStringLiteral("big-overlay.json"));
        {
            QFile f(overlay);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QByteArray::fromStdString(syntheticOverlay()));
        }
        qputenv("GPUPLANNER_CATALOG_OVERLAY", overlay.toUtf8());
        auto w = makeWindow(); // loads the overlay the way the app does
        qputenv("GPUPLANNER_CATALOG_OVERLAY", m_dir.filePath(QStringLiteral("no-overlay.json")).toUtf8());
        QVERIFY2(w->startupProblems().isEmpty(), qPrintable(w->startupProblems().join(QLatin1Char('\n'))));
        const std::size_t total = gp::Catalog::builtin().gpus().size() + kCustomGpus;
        QCOMPARE(total, std::size_t(1048));
        QCOMPARE(w->resultsPage()->controller()->catalog().gpus().size(), total);
        QCOMPARE(w->form()->gpuList()->count(), int(total));

        QStringList all;
        for (const auto& g : w->resultsPage()->controller()->catalog().gpus())
            all << QString::fromStdString(g.id);
        w->resize(1500, 940);
        w->show();
        QElapsedTimer t;
        t.start();
        w->documentManager()->model()->setGpus(all);
        w->resultsPage()->controller()->recomputeNow();
        const qint64 setAllMs = t.elapsed();
        QCOMPARE(w->documentManager()->model()->scenario().hardware.gpus.size(), total);
        QVERIFY2(w->resultsPage()->controller()->error().isEmpty(), qPrintable(w->resultsPage()->controller()->error()));
        QCOMPARE(w->resultsPage()->model()->rowCount(), 1048);
        QCOMPARE(w->resultsPage()->proxy()->rowCount(), 1048);
        for (int k = 0; k < charts::kChartKindCount; ++k) {
            const auto* panel = w->resultsPage()->chartPanel(static_cast<charts::ChartKind>(k));
            const auto shown = panel->shownGpuIds().size();
            QVERIFY2(shown > 0 && shown <= std::size_t(charts::kMaxGpus), qPrintable(QString::number(shown)));
            QCOMPARE(charts::kMaxGpus, 16);
        }

        // An edit with every GPU: estimate, table, the visible panels and a repaint.
        auto* mb = w->form()->numberFor(Field::MicroBatch);
        t.restart();
        mb->setValue(mb->value().value() + 1);
        w->resultsPage()->controller()->recomputeNow();
        w->repaint();
        const qint64 editMs = t.elapsed();
        qInfo("1,048 GPUs: ticking all %lld ms, one edit to redraw %lld ms", setAllMs, editMs);
        QVERIFY2(editMs < 2000, "an edit must not freeze the window"); // ~40 ms here; generous for sanitizers
        QCOMPARE(w->resultsPage()->model()->rowCount(), 1048);
        // The per-GPU numbers are the core's (numbers-only for the table).
        const int row = w->resultsPage()->model()->rowOf(QStringLiteral("synthetic-gpu-500"));
        QVERIFY(row >= 0);
        const gp::Gpu* gpu = w->resultsPage()->controller()->catalog().find("synthetic-gpu-500");
        const auto direct = gp::estimateOn(w->documentManager()->model()->scenario(), *gpu);
        QCOMPARE(w->resultsPage()->model()->cellValue(row, ResultsTableModel::ThroughputColumn).value(),
                 direct.training->tokensPerS);
        QVERIFY(m_errors.isEmpty());
    }

    void tenMegabyteScenarioOpens()
    {
        const QString path = writeScenarioWithNotes("ten-mb", 10 * 1000 * 1000);
        QCOMPARE(QFileInfo(path).size(), qint64(10 * 1000 * 1000));
        auto w = makeWindow();
        QElapsedTimer t;
        t.start();
        QVERIFY2(w->documentManager()->openFile(path), qPrintable(m_errors.join(QLatin1Char('\n'))));
        qInfo("opening a %lld-byte scenario took %lld ms", QFileInfo(path).size(), t.elapsed());
        QVERIFY(t.elapsed() < 5000);
        QCOMPARE(w->documentManager()->model()->scenario().name, std::string("ten-mb"));
        QCOMPARE(w->documentManager()->currentFile(), QFileInfo(path).absoluteFilePath());
        QVERIFY(w->resultsPage()->model()->rowCount() > 0);
    }

    void seventeenMegabyteScenarioIsRefusedAndEditsKept()
    {
        const QString path = writeScenarioWithNotes("seventeen-mb", 17 * 1024 * 1024);
        QVERIFY(QFileInfo(path).size() > 16 * 1024 * 1024);
        auto w = makeWindow();
        const QString mine = m_dir.filePath(QStringLiteral("mine.gpuplan.json"));
        QVERIFY(w->documentManager()->saveTo(mine));
        auto* mb = w->form()->numberFor(Field::MicroBatch);
        const int edited = w->documentManager()->model()->scenario().training.microBatch + 3;
        mb->setValue(edited);
        QVERIFY(w->isWindowModified());
        const int undoSteps = w->documentManager()->model()->undoStack()->count();

        QElapsedTimer t;
        t.start();
        QVERIFY(!w->documentManager()->openFile(path));
        QVERIFY2(t.elapsed() < 2000, "refusing must not read the whole file");
        QCOMPARE(m_errors.size(), 1);
        QVERIFY(m_errors.first().contains(QStringLiteral("16 MiB")));
        // The current scenario, its file, its unsaved edits and their undo history stay.
        QCOMPARE(w->documentManager()->model()->scenario().training.microBatch, edited);
        QCOMPARE(w->documentManager()->currentFile(), QFileInfo(mine).absoluteFilePath());
        QVERIFY(w->isWindowModified());
        QCOMPARE(w->documentManager()->model()->undoStack()->count(), undoSteps);
    }
};

QTEST_MAIN(TestScale)
#include "tst_scale.moc"
