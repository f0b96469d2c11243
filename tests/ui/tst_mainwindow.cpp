// Form edit -> scenario -> estimate -> table and charts, through the real widgets;
// file round trips and failure paths with an injected (non-modal) error reporter.
#include "ui/charts/chartpanel.h"
#include "ui/charts/chartfactory.h"
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
#include "tests/common/hfconfigs.h"
#include "window_fixture.h"

#include "core/hardware/catalog.h"
#include "core/estimate/estimate.h"
#include "core/base/units.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QLabel>
#include <QFile>
#include <QLineEdit>
#include <QListWidget>
#include <QSortFilterProxyModel>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTableView>
#include <QTextBrowser>
#include <QUndoStack>
#include <QMessageBox>
#include <QtTest>

#include <unistd.h>

using namespace gp::ui;
using Field = ScenarioModel::Field;

class TestMainWindow : public QObject, protected WindowFixture
{
    Q_OBJECT
private:
    static NumberField* spin(MainWindow& w, Field f) { return w.form()->numberFor(f); }

private slots:
    void initTestCase() { setUpWindowTests(); }

    void init() { m_errors.clear(); }

    void startsOnTheDefaultScenario()
    {
        auto w = makeWindow();
        QCOMPARE(w->documentManager()->model()->scenario().name, gp::defaultScenario().name);
        QVERIFY(w->resultsPage()->model()->rowCount() > 0);
        QVERIFY(w->documentManager()->currentFile().isEmpty());
        QVERIFY(!w->isWindowModified());
    }

    void formEditFlowsToTableAndCharts()
    {
        auto w = makeWindow();
        QAbstractItemModelTester tester(w->resultsPage()->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        // Pick three GPUs by ticking them in the list, as a user would.
        QListWidget* list = w->form()->gpuList();
        for (int i = 0; i < list->count(); ++i) {
            const QString id = list->item(i)->data(Qt::UserRole).toString();
            if (id == QLatin1String("nvidia-h100-sxm") || id == QLatin1String("nvidia-l40s") ||
                id == QLatin1String("nvidia-a100-80gb-sxm"))
                list->item(i)->setCheckState(Qt::Checked);
        }
        QCOMPARE(w->documentManager()->model()->scenario().hardware.gpus.size(), std::size_t(3));

        NumberField* mb = spin(*w, Field::MicroBatch);
        QVERIFY(mb);
        mb->setValue(12);
        QCOMPARE(w->documentManager()->model()->scenario().training.microBatch, 12);
        // The recompute is coalesced by a timer; wait for it.
        QTRY_COMPARE_WITH_TIMEOUT(w->resultsPage()->model()->rowCount(), 3, 2000);
        QTRY_VERIFY_WITH_TIMEOUT(w->resultsPage()->controller()->estimate().results.size() == 3 &&
                                     w->resultsPage()->model()->rowOf(QStringLiteral("nvidia-h100-sxm")) >= 0,
                                 2000);
        QTest::qWait(EstimateController::kCoalesceMs * 3);

        const gp::GpuEstimate direct =
            gp::estimateOn(w->documentManager()->model()->scenario(), *gp::Catalog::builtin().find("nvidia-h100-sxm"));
        QCOMPARE(direct.training->stepMs > 0, true);
        const double expectedGiB = gp::units::bytesToGiB(direct.memory.total());
        const int row = w->resultsPage()->model()->rowOf(QStringLiteral("nvidia-h100-sxm"));
        QCOMPARE(w->resultsPage()->model()->cellValue(row, ResultsTableModel::VramNeedColumn).value(), expectedGiB);

        // Micro-batch 12 must differ from the default's, or the test proves nothing.
        const gp::GpuEstimate before = gp::estimateOn(gp::defaultScenario(), *gp::Catalog::builtin().find("nvidia-h100-sxm"));
        QVERIFY(before.memory.total() != direct.memory.total());

        auto* vram = w->resultsPage()->chartPanel(charts::ChartKind::Vram);
        const auto names = charts::vramComponentNames();
        double stacked = 0;
        for (const auto& n : names)
            stacked += vram->shownValue(QStringLiteral("nvidia-h100-sxm"), n).value_or(-1e9);
        QVERIFY(std::abs(stacked - expectedGiB) < 1e-9 * expectedGiB);
        QCOMPARE(vram->shownValue(QStringLiteral("nvidia-h100-sxm"), names[0]).value(), gp::units::bytesToGiB(direct.memory.weights));
        QCOMPARE(vram->shownValue(QStringLiteral("nvidia-h100-sxm"), QStringLiteral("Capacity per GPU")).value(),
                 gp::units::bytesToGiB(direct.capacityBytes));

        auto* thr = w->resultsPage()->chartPanel(charts::ChartKind::Throughput);
        QCOMPARE(thr->shownValue(QStringLiteral("nvidia-h100-sxm"), QString()).value(), direct.training->tokensPerS);
        auto* cost = w->resultsPage()->chartPanel(charts::ChartKind::Cost);
        QCOMPARE(cost->shownValue(QStringLiteral("nvidia-h100-sxm"), QString()).value(), direct.training->costUsd.value());

        // The comparison tab picked the three and explains ratios.
        QCOMPARE(w->comparison()->model()->columnCount(), 3);
        QVERIFY(w->comparison()->sentences().contains(QStringLiteral("than")));

        // Selecting a row explains it.
        const QModelIndex proxyIndex = w->resultsPage()->proxy()->mapFromSource(w->resultsPage()->model()->index(row, 0));
        w->resultsPage()->view()->setCurrentIndex(proxyIndex);
        QVERIFY(w->resultsPage()->explainView()->toPlainText().contains(QString::fromStdString(direct.gpuName)));
        QVERIFY(w->resultsPage()->explainView()->toPlainText().contains(QString::fromStdString(direct.terms.front().label)));
    }

    void twoSpinEditsAreOneUndoStep()
    {
        auto w = makeWindow();
        NumberField* sl = spin(*w, Field::SeqLen);
        const int original = w->documentManager()->model()->scenario().training.seqLen;
        QCOMPARE(sl->value(), std::optional<double>(original));
        QCOMPARE(w->documentManager()->model()->undoStack()->count(), 0);
        QTest::keyClick(sl, Qt::Key_Up);
        QTest::keyClick(sl, Qt::Key_Up);
        QCOMPARE(w->documentManager()->model()->undoStack()->count(), 1);
        QCOMPARE(w->documentManager()->model()->scenario().training.seqLen, original + 2 * sl->singleStep());
        QVERIFY(w->isWindowModified());
        w->documentManager()->model()->undoStack()->undo();
        QCOMPARE(w->documentManager()->model()->scenario().training.seqLen, original);
        QCOMPARE(sl->value(), std::optional<double>(original)); // the widget follows the undo
        QCOMPARE(sl->text(), QString::number(original));
    }

    void invalidFieldIsMarkedAndKept()
    {
        auto w = makeWindow();
        auto* count = spin(*w, Field::Count);
        auto* tp = spin(*w, Field::Tp);
        tp->setValue(2); // count stays 1: not a multiple of tp
        QCOMPARE(w->documentManager()->model()->scenario().hardware.tp, 2);
        QVERIFY(count->toolTip().contains(QStringLiteral("GPUs per job: must be")));
        QVERIFY(!count->styleSheet().isEmpty());
        QTRY_VERIFY_WITH_TIMEOUT(!w->resultsPage()->controller()->error().isEmpty(), 2000);
        count->setValue(2);
        QVERIFY(count->styleSheet().isEmpty());
        QTRY_VERIFY_WITH_TIMEOUT(w->resultsPage()->controller()->error().isEmpty(), 2000);
    }

    void sizeEntryParsesAndRejects()
    {
        auto w = makeWindow();
        QLineEdit* size = w->form()->sizeEdit();
        size->setText(QStringLiteral("70B"));
        QMetaObject::invokeMethod(size, "editingFinished");
        QVERIFY(w->documentManager()->model()->scenario().modelSpec.form == gp::ModelSpec::Form::Params);
        QCOMPARE(w->documentManager()->model()->scenario().modelSpec.params, 70e9);
        size->setText(QStringLiteral("seventy"));
        QMetaObject::invokeMethod(size, "textEdited", Q_ARG(QString, size->text()));
        QMetaObject::invokeMethod(size, "editingFinished");
        QCOMPARE(size->text(), QStringLiteral("seventy")); // kept
        QCOMPARE(size->toolTip(), QStringLiteral("model.params: must be a number, got \"seventy\" (write e.g. 13B, 70B, 1.5T)"));
        QCOMPARE(w->form()->sizeProblem(), size->toolTip());
        QCOMPARE(w->documentManager()->model()->scenario().modelSpec.params, 70e9);
    }

    void sizeOnlyLabelHasItsBuddyAndFamily()
    {
        auto w = makeWindow();
        QLabel* label = nullptr;
        for (auto* l : w->form()->findChildren<QLabel*>())
            if (l->text() == QStringLiteral("Si&ze only"))
                label = l;
        QVERIFY(label);
        QCOMPARE(label->buddy(), static_cast<QWidget*>(w->form()->sizeEdit())); // the '&' is a mnemonic, not shown
        QComboBox* family = w->form()->familyCombo();
        QVERIFY(family);
        family->setCurrentIndex(family->findData(static_cast<int>(gp::ModelFamily::Encoder)));
        w->form()->sizeEdit()->setText(QStringLiteral("340M"));
        QMetaObject::invokeMethod(w->form()->sizeEdit(), "editingFinished");
        const auto& s = w->documentManager()->model()->scenario();
        QVERIFY(s.modelSpec.form == gp::ModelSpec::Form::Params);
        QVERIFY(s.modelSpec.family == gp::ModelFamily::Encoder);
        QVERIFY(s.model.family == gp::ModelFamily::Encoder);
        // Changing the family alone re-sizes the same count as a decoder.
        family->setCurrentIndex(family->findData(static_cast<int>(gp::ModelFamily::Decoder)));
        QMetaObject::invokeMethod(family, "activated", Q_ARG(int, family->currentIndex()));
        QVERIFY(w->documentManager()->model()->scenario().model.family == gp::ModelFamily::Decoder);
        QCOMPARE(w->documentManager()->model()->scenario().modelSpec.params, 340e6);
        // Undo brings the encoder back, and the combo follows.
        w->documentManager()->model()->undoStack()->undo();
        QCOMPARE(family->currentData().toInt(), static_cast<int>(gp::ModelFamily::Encoder));
    }

    void hardwareAndPricingFormFields()
    {
        auto w = makeWindow();
        auto* maxCount = spin(*w, Field::MaxCount);
        QVERIFY(maxCount);
        maxCount->setValue(32);
        QCOMPARE(w->documentManager()->model()->scenario().hardware.maxCount, 32);
        auto* net = w->form()->numberFor(Field::NetworkGbps);
        QVERIFY(net);
        net->setValue(200);
        QCOMPARE(w->documentManager()->model()->scenario().hardware.networkGbps, 200.0);
        auto* hosting = w->form()->numberFor(Field::HostingUsdPerGpuYear);
        QVERIFY(hosting);
        hosting->setValue(3000);
        QCOMPARE(w->documentManager()->model()->scenario().pricing.hostingUsdPerGpuYear, 3000.0);
        QCOMPARE(w->documentManager()->model()->undoStack()->count(), 3);
    }

    void workloadLabelsShareOneColumn()
    {
        auto w = makeWindow();
        w->resize(1500, 940);
        w->show();
        QVERIFY(QTest::qWaitForWindowExposed(w.get()));
        // Mode/Runtime sit in their own form above the training fields: their
        // editors must start where the training editors start.
        QWidget* runtime = w->form()->editorFor(Field::Runtime);
        QWidget* method = w->form()->editorFor(Field::TrainMethod);
        QWidget* pricing = w->form()->editorFor(Field::PricingModel);
        QVERIFY(runtime && method && pricing);
        const int x = runtime->mapTo(w->form(), QPoint(0, 0)).x();
        QCOMPARE(method->mapTo(w->form(), QPoint(0, 0)).x(), x);
        QCOMPARE(pricing->mapTo(w->form(), QPoint(0, 0)).x(), x);
    }

    void hfConfigImport()
    {
        auto w = makeWindow();
        const QString path = m_dir.filePath(QStringLiteral("config.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(gp::test::kTinyLlamaConfig);
        f.close();
        w->form()->importHfConfig(path);
        QVERIFY2(m_errors.isEmpty(), qPrintable(m_errors.join(QLatin1Char('\n'))));
        QVERIFY(w->documentManager()->model()->scenario().modelSpec.form == gp::ModelSpec::Form::HfConfig);
        QCOMPARE(w->documentManager()->model()->scenario().model.layers, 22);
        QCOMPARE(w->documentManager()->model()->scenario().model.kvHeads, 4);
        // A broken file is refused with a message and the model stays.
        QFile bad(m_dir.filePath(QStringLiteral("bad.json")));
        QVERIFY(bad.open(QIODevice::WriteOnly));
        bad.write("{ not json");
        bad.close();
        w->form()->importHfConfig(bad.fileName());
        QCOMPARE(m_errors.size(), 1);
        QCOMPARE(w->documentManager()->model()->scenario().model.layers, 22);
    }

    void saveAndOpenRoundTrip()
    {
        auto w = makeWindow();
        w->documentManager()->model()->setName(QStringLiteral("Round trip"));
        w->documentManager()->model()->setMicroBatch(6);
        w->documentManager()->model()->setGpus({"nvidia-h100-sxm", "nvidia-l4"});
        const QString path = m_dir.filePath(QStringLiteral("rt.gpuplan.json"));
        QVERIFY(w->documentManager()->saveTo(path));
        QVERIFY(!w->isWindowModified());
        QCOMPARE(w->documentManager()->recentFiles().files().value(0), QFileInfo(path).absoluteFilePath());

        auto w2 = makeWindow();
        QVERIFY(w2->documentManager()->openFile(path));
        const auto& s = w2->documentManager()->model()->scenario();
        QCOMPARE(s.name, std::string("Round trip"));
        QCOMPARE(s.training.microBatch, 6);
        QCOMPARE(s.hardware.gpus, (std::vector<std::string>{"nvidia-h100-sxm", "nvidia-l4"}));
        QCOMPARE(gp::scenarioToJson(s), gp::scenarioToJson(w->documentManager()->model()->scenario()));
        QCOMPARE(spin(*w2, Field::MicroBatch)->value(), std::optional<double>(6));
        QCOMPARE(w2->resultsPage()->model()->rowCount(), 2);
        // The recent list persisted through Settings.
        QCOMPARE(w2->documentManager()->recentFiles().files().value(0), QFileInfo(path).absoluteFilePath());
    }

    void saveIntoReadOnlyFolderFailsAndKeepsEverything()
    {
        if (geteuid() == 0)
            QSKIP("running as root: file permissions do not stop writes");
        QTemporaryDir ro;
        const QString path = ro.filePath(QStringLiteral("keep.gpuplan.json"));
        auto w = makeWindow();
        QVERIFY(w->documentManager()->saveTo(path));
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray old = f.readAll();
        f.close();
        QFile::setPermissions(ro.path(), QFile::ReadOwner | QFile::ExeOwner);
        w->documentManager()->model()->setMicroBatch(7);
        QVERIFY(!w->documentManager()->saveTo(path));
        QFile::setPermissions(ro.path(), QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        QCOMPARE(m_errors.size(), 1);
        QVERIFY(m_errors[0].startsWith(QStringLiteral("Cannot save scenario")));
        QCOMPARE(w->documentManager()->model()->scenario().training.microBatch, 7); // edits intact
        QVERIFY(w->isWindowModified());
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), old); // old file unchanged
    }

    void saveToUnwritablePathFailsAndKeepsEverything()
    {
        // Works as root too: a path under a regular file cannot be created.
        auto w = makeWindow();
        const QString blocker = m_dir.filePath(QStringLiteral("blocker"));
        QFile b(blocker);
        QVERIFY(b.open(QIODevice::WriteOnly));
        b.write("x");
        b.close();
        w->documentManager()->model()->setMicroBatch(9);
        QVERIFY(!w->documentManager()->saveTo(blocker + QStringLiteral("/s.gpuplan.json")));
        QCOMPARE(m_errors.size(), 1);
        QCOMPARE(w->documentManager()->model()->scenario().training.microBatch, 9);
        QVERIFY(w->isWindowModified());
        QVERIFY(w->documentManager()->currentFile().isEmpty());
        QVERIFY(b.open(QIODevice::ReadOnly));
        QCOMPARE(b.readAll(), QByteArray("x"));
    }

    void openingACorruptFileKeepsTheCurrentScenario()
    {
        auto w = makeWindow();
        w->documentManager()->model()->setMicroBatch(5);
        const QString path = m_dir.filePath(QStringLiteral("corrupt.gpuplan.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"format": "gpuplanner-scenario", "version": 1, "model": {"preset": "llama-3.1-8b"},
                    "workload": {"mode": "training", "training": {"micro_batch": -4}}})");
        f.close();
        QVERIFY(!w->documentManager()->openFile(path));
        QCOMPARE(m_errors.size(), 1);
        QVERIFY2(m_errors[0].contains(QStringLiteral("workload.training.micro_batch")), qPrintable(m_errors[0]));
        QCOMPARE(w->documentManager()->model()->scenario().training.microBatch, 5);
        QVERIFY(w->documentManager()->currentFile().isEmpty());

        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write("{\"format\": ");
        f.close();
        QVERIFY(!w->documentManager()->openFile(path));
        QCOMPARE(m_errors.size(), 2);
        QCOMPARE(w->documentManager()->model()->scenario().training.microBatch, 5);
    }

    void csvExport()
    {
        auto w = makeWindow();
        w->documentManager()->model()->setGpus({"nvidia-h100-sxm"});
        const QString path = m_dir.filePath(QStringLiteral("e.csv"));
        QVERIFY(w->exportCsv(path));
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray csv = f.readAll();
        QCOMPARE(csv, QByteArray::fromStdString(gp::estimateToCsv(w->resultsPage()->controller()->estimate())));
        QVERIFY(csv.contains("nvidia-h100-sxm"));
    }

    void chartSavesPng()
    {
        auto w = makeWindow();
        w->resize(1200, 800);
        const QString path = m_dir.filePath(QStringLiteral("chart.png"));
        QCOMPARE(w->resultsPage()->chartPanel(charts::ChartKind::Cost)->saveImage(path), QString());
        QImage img(path);
        QVERIFY(!img.isNull());
        if (charts::ChartPanel::svgSupported()) {
            const QString svg = m_dir.filePath(QStringLiteral("chart.svg"));
            QCOMPARE(w->resultsPage()->chartPanel(charts::ChartKind::Vram)->saveImage(svg), QString());
            QFile s(svg);
            QVERIFY(s.open(QIODevice::ReadOnly));
            QVERIFY(s.readAll().contains("<svg"));
        }
    }

    void chartsLimitToTopN()
    {
        auto w = makeWindow(); // whole catalog
        QVERIFY(w->resultsPage()->model()->rowCount() > charts::kMaxGpus);
        auto* vram = w->resultsPage()->chartPanel(charts::ChartKind::Vram);
        QCOMPARE(static_cast<int>(vram->shownGpuIds().size()), charts::kMaxGpus);
        QVERIFY(vram->caption().contains(QStringLiteral("Showing %1 of").arg(charts::kMaxGpus)));
    }

    void editUpdatesTheTableInPlaceKeepingTheSelection()
    {
        auto w = makeWindow();
        w->resize(1500, 940);
        w->show();
        const QString id = QStringLiteral("nvidia-l40s");
        const int row = w->resultsPage()->model()->rowOf(id);
        QVERIFY(row >= 0);
        w->resultsPage()->view()->setCurrentIndex(w->resultsPage()->proxy()->mapFromSource(w->resultsPage()->model()->index(row, 0)));
        QSignalSpy resets(w->resultsPage()->model(), &QAbstractItemModel::modelReset);
        QSignalSpy changes(w->resultsPage()->model(), &QAbstractItemModel::dataChanged);
        QAbstractItemModelTester tester(w->resultsPage()->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        spin(*w, Field::MicroBatch)->setValue(spin(*w, Field::MicroBatch)->value().value() + 4);
        w->resultsPage()->controller()->recomputeNow();
        // Same GPUs, new numbers: dataChanged, not a reset; the selection stays on the GPU.
        QCOMPARE(resets.count(), 0);
        QVERIFY(changes.count() >= 1);
        QCOMPARE(w->resultsPage()->view()->currentIndex().data(ResultsTableModel::GpuIdRole).toString(), id);
        QVERIFY(w->resultsPage()->explainView()->toPlainText().contains(QStringLiteral("L40S")));
        // A different set of GPUs is a reset.
        w->documentManager()->model()->setGpus({id, QStringLiteral("nvidia-h100-sxm")});
        w->resultsPage()->controller()->recomputeNow();
        QCOMPARE(resets.count(), 1);
        QCOMPARE(w->resultsPage()->model()->rowCount(), 2);
        QCOMPARE(w->resultsPage()->view()->currentIndex().data(ResultsTableModel::GpuIdRole).toString(), id);
    }

    void tableUsesNumbersOnlyAndTermsComeForTheSelectedGpu()
    {
        auto w = makeWindow();
        const auto& e = w->resultsPage()->controller()->estimate();
        QVERIFY(!e.results.empty());
        const gp::Estimate full = gp::estimate(w->documentManager()->model()->scenario(), w->resultsPage()->controller()->catalog());
        QCOMPARE(e.results.size(), full.results.size());
        for (std::size_t i = 0; i < e.results.size(); ++i) {
            QVERIFY(e.results[i].terms.empty()); // the table and charts need only the numbers
            QCOMPARE(e.results[i].gpuId, full.results[i].gpuId);
            QCOMPARE(e.results[i].memory.total(), full.results[i].memory.total());
            QCOMPARE(e.results[i].fits, full.results[i].fits);
            QCOMPARE(e.results[i].usdPerHour, full.results[i].usdPerHour);
            if (full.results[i].training) {
                QCOMPARE(e.results[i].training->tokensPerS, full.results[i].training->tokensPerS);
                QCOMPARE(e.results[i].training->costUsd, full.results[i].training->costUsd);
            }
            const gp::GpuEstimate explained = w->resultsPage()->controller()->explainedResult(i);
            QCOMPARE(explained.terms.size(), full.results[i].terms.size());
            QCOMPARE(explained.memory.total(), full.results[i].memory.total());
        }
        QVERIFY(w->resultsPage()->controller()->explainedResult(e.results.size()).gpuId.empty());
        // The report's estimate has every result's terms.
        const gp::Estimate report = w->resultsPage()->controller()->explainedEstimate();
        QVERIFY(std::all_of(report.results.begin(), report.results.end(),
                            [](const gp::GpuEstimate& r) { return !r.terms.empty(); }));
        // The comparison shows the terms of the GPUs it compares.
        ComparisonModel* cmp = w->comparison()->model();
        QVERIFY(cmp->columnCount() >= 2);
        QStringList labels;
        for (int r = 0; r < cmp->rowCount(); ++r)
            labels << cmp->headerData(r, Qt::Vertical).toString();
        const auto& firstTerm = full.results.front().terms.front();
        QVERIFY2(labels.join(QLatin1Char('|')).contains(QString::fromStdString(firstTerm.label)),
                 qPrintable(labels.join(QLatin1Char('|'))));
    }
};

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
