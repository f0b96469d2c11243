// Every writer goes through one atomic writer: a failed write (injected, or a real
// full tmpfs) keeps the previous file byte for byte, leaves no temporary file and is
// reported; the document stays modified and its autosave stays. Every reader is
// bounded and refuses FIFOs and devices at once, saying the real reason.
#include "ui/atomicfile.h"
#include "ui/catalogoverlay.h"
#include "ui/charts/chartpanel.h"
#include "ui/estimatecontroller.h"
#include "ui/documentmanager.h"
#include "ui/mainwindow.h"
#include "ui/numberfield.h"
#include "ui/resultspage.h"
#include "ui/scenariofile.h"
#include "ui/scenarioform.h"
#include "ui/scenariomodel.h"
#include "ui/sessionautosave.h"
#include "ui/settings.h"

#include <QDir>
#include <QFile>
#include <QMessageBox>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <cerrno>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <memory>

using namespace gp::ui;
using testhooks::WriteStep;

namespace {
const QByteArray kOld = QByteArrayLiteral("OLD CONTENT\n");
const QString kNoSpace = QStringLiteral("cannot write the data: No space left on device");
} // namespace

class TestFileSafety : public QObject
{
    Q_OBJECT
private:
    std::unique_ptr<QTemporaryDir> m_dir;
    QStringList m_errors;
    int m_saveAnswer = QMessageBox::Cancel;
    int m_prompts = 0;

    QString path(const QString& name) const { return m_dir->filePath(name); }
    static QByteArray bytesOf(const QString& p)
    {
        QFile f(p);
        return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray("<missing>");
    }
    static void put(const QString& p, const QByteArray& bytes)
    {
        QFile f(p);
        QVERIFY(f.open(QIODevice::WriteOnly));
        QCOMPARE(f.write(bytes), bytes.size());
    }
    /// The files in the folder of p, to see that no temporary file is left.
    static QStringList filesBeside(const QString& p)
    {
        return QDir(QFileInfo(p).absolutePath()).entryList(QDir::Files | QDir::Hidden, QDir::Name);
    }

    std::unique_ptr<MainWindow> makeWindow()
    {
        auto w = std::make_unique<MainWindow>(std::make_unique<Settings>(path(QStringLiteral("settings.ini"))));
        w->setErrorReporter([this](const QString& t, const QString& m) { m_errors << t + QStringLiteral(": ") + m; });
        w->documentManager()->setSavePrompt([this] {
            ++m_prompts;
            return m_saveAnswer;
        });
        w->setNotifier([](const QString&, const QString&) {});
        w->documentManager()->setRecoveryPrompt([](const QString&) { return false; });
        return w;
    }
    static void edit(MainWindow& w)
    {
        w.form()->numberFor(ScenarioModel::Field::MicroBatch)->stepUp();
    }

    /// A save that fails leaves everything as it was and says so.
    void checkFailedSave(MainWindow& w, const QString& target, const QString& reason)
    {
        QVERIFY(!w.documentManager()->saveTo(target));
        QCOMPARE(bytesOf(target), kOld);
        QCOMPARE(m_errors.size(), 1);
        QVERIFY2(m_errors.first().contains(reason), qPrintable(m_errors.first()));
        QCOMPARE(w.statusBar()->currentMessage(), QStringLiteral("Save failed: ") + reason);
        QVERIFY(w.isWindowModified());
        QVERIFY(w.windowTitle().contains(QStringLiteral("[*]")));
        // Quit still asks (and Cancel keeps the window and the autosave).
        m_prompts = 0;
        QVERIFY(!w.close());
        QCOMPARE(m_prompts, 1);
        QVERIFY(!w.documentManager()->autosave()->path().isEmpty());
        QVERIFY(QFileInfo::exists(w.documentManager()->autosave()->path()));
    }

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        qputenv("GPUPLANNER_CATALOG_OVERLAY", QByteArrayLiteral("/nonexistent/gpuplanner-test/no-overlay.json"));
    }
    void init()
    {
        m_dir = std::make_unique<QTemporaryDir>();
        QVERIFY(m_dir->isValid());
        m_errors.clear();
        testhooks::clearWriteFaults();
    }
    void cleanup() { testhooks::clearWriteFaults(); }

    void writerFailsAtEveryStepKeepingTheOldFile_data()
    {
        QTest::addColumn<int>("step");
        QTest::addColumn<int>("err");
        QTest::addColumn<QString>("message");
        QTest::addRow("open") << int(WriteStep::Open) << EACCES << QStringLiteral("cannot create a file in %1: Permission denied");
        QTest::addRow("write") << int(WriteStep::Write) << ENOSPC << kNoSpace;
        QTest::addRow("fsync") << int(WriteStep::Sync) << EIO << QStringLiteral("cannot flush the data to disk: Input/output error");
        QTest::addRow("close") << int(WriteStep::Close) << ENOSPC << QStringLiteral("cannot close the file: No space left on device");
        QTest::addRow("size") << int(WriteStep::Verify) << ENOSPC << QStringLiteral("the file on disk has 2048 bytes instead of 4096");
        QTest::addRow("rename") << int(WriteStep::Rename) << EXDEV
                                << QStringLiteral("cannot replace %2: Invalid cross-device link");
    }
    void writerFailsAtEveryStepKeepingTheOldFile()
    {
        QFETCH(int, step);
        QFETCH(int, err);
        QFETCH(QString, message);
        const QString target = path(QStringLiteral("a.json"));
        put(target, kOld);
        testhooks::failNextWrites(static_cast<WriteStep>(step), err);
        const QString error = writeFileAtomically(target, QByteArray(4096, 'x'));
        QCOMPARE(error, message.replace(QStringLiteral("%1"), QDir::toNativeSeparators(m_dir->path()))
                            .replace(QStringLiteral("%2"), QDir::toNativeSeparators(target)));
        QCOMPARE(bytesOf(target), kOld);
        QCOMPARE(filesBeside(target), QStringList{QStringLiteral("a.json")});
        // One write only: the next one goes through, with the old permissions.
        QVERIFY(::chmod(QFile::encodeName(target).constData(), 0640) == 0);
        QCOMPARE(writeFileAtomically(target, QByteArrayLiteral("NEW\n")), QString());
        QCOMPARE(bytesOf(target), QByteArrayLiteral("NEW\n"));
        QCOMPARE(QFileInfo(target).permissions() & (QFile::ReadOther | QFile::WriteGroup | QFile::ReadGroup),
                 QFile::Permissions(QFile::ReadGroup));
        QCOMPARE(filesBeside(target), QStringList{QStringLiteral("a.json")});
    }

    void realFullTmpfsSaveKeepsTheFile()
    {
        const QString mountPoint = path(QStringLiteral("tiny"));
        QVERIFY(QDir().mkpath(mountPoint));
        if (::mount("tmpfs", QFile::encodeName(mountPoint).constData(), "tmpfs", 0, "size=64k") != 0)
            QSKIP("mounting a tmpfs is not permitted here");
        const auto unmount = qScopeGuard([&] { ::umount(QFile::encodeName(mountPoint).constData()); });
        const QString target = mountPoint + QStringLiteral("/s.gpuplan.json");
        auto w = makeWindow();
        put(target, kOld);
        {
            QFile fill(mountPoint + QStringLiteral("/fill"));
            QVERIFY(fill.open(QIODevice::WriteOnly));
            const QByteArray block(4096, 'f');
            while (fill.write(block) == block.size() && fill.flush()) {
            }
        }
        edit(*w);
        w->documentManager()->autosave()->writeNow(); // the autosave lives elsewhere (the test's folder)
        checkFailedSave(*w, target, kNoSpace);
        QCOMPARE(filesBeside(target), (QStringList{QStringLiteral("fill"), QStringLiteral("s.gpuplan.json")}));
        w->documentManager()->setSavePrompt([] { return int(QMessageBox::Discard); });
    }

    void scenarioSaveAndSaveAsFailures_data()
    {
        QTest::addColumn<bool>("saveAs");
        QTest::addRow("save") << false;
        QTest::addRow("save as (a new name over an existing file)") << true;
    }
    void scenarioSaveAndSaveAsFailures()
    {
        QFETCH(bool, saveAs);
        auto w = makeWindow();
        const QString first = path(QStringLiteral("first.gpuplan.json"));
        const QString other = path(QStringLiteral("other.gpuplan.json"));
        QVERIFY(w->documentManager()->saveTo(first));
        put(first, kOld);
        put(other, kOld);
        edit(*w);
        QCOMPARE(w->documentManager()->autosave()->writeNow(), QString());
        const QByteArray autosave = bytesOf(w->documentManager()->autosave()->path());
        testhooks::failNextWrites(WriteStep::Write, ENOSPC);
        checkFailedSave(*w, saveAs ? other : first, kNoSpace);
        QCOMPARE(w->documentManager()->currentFile(), QFileInfo(first).absoluteFilePath());
        QCOMPARE(bytesOf(w->documentManager()->autosave()->path()), autosave);
        w->documentManager()->setSavePrompt([] { return int(QMessageBox::Discard); });
    }

    void failedAutosaveKeepsThePreviousOne()
    {
        auto w = makeWindow();
        edit(*w);
        QCOMPARE(w->documentManager()->autosave()->writeNow(), QString());
        const QString file = w->documentManager()->autosave()->path();
        const QByteArray before = bytesOf(file);
        edit(*w);
        testhooks::failNextWrites(WriteStep::Sync, ENOSPC);
        QCOMPARE(w->documentManager()->autosave()->writeNow(), QStringLiteral("cannot flush the data to disk: No space left on device"));
        QCOMPARE(w->statusBar()->currentMessage(),
                 QStringLiteral("Autosave failed: cannot flush the data to disk: No space left on device"));
        QCOMPARE(bytesOf(file), before);
        QCOMPARE(QDir(w->documentManager()->autosave()->directory()).entryList(QDir::Files | QDir::Hidden).filter(QStringLiteral(".tmp")),
                 QStringList());
        w->documentManager()->setSavePrompt([] { return int(QMessageBox::Discard); });
    }

    void exportsFailKeepingTheOldFile_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addRow("csv") << QStringLiteral("e.csv");
        QTest::addRow("report pdf") << QStringLiteral("r.pdf");
        QTest::addRow("chart png") << QStringLiteral("c.png");
        QTest::addRow("chart svg") << QStringLiteral("c.svg");
    }
    void exportsFailKeepingTheOldFile()
    {
        QFETCH(QString, name);
        auto w = makeWindow();
        const QString target = path(name);
        put(target, kOld);
        testhooks::failNextWrites(WriteStep::Write, ENOSPC);
        QString error;
        if (name.endsWith(QLatin1String(".csv")))
            QVERIFY(!w->exportCsv(target));
        else if (name.endsWith(QLatin1String(".pdf")))
            QVERIFY(!w->exportReport(target));
        else
            error = w->resultsPage()->chartPanel(charts::ChartKind::Vram)->saveImage(target);
        if (error.isEmpty()) {
            QCOMPARE(m_errors.size(), 1);
            QVERIFY2(m_errors.first().endsWith(QDir::toNativeSeparators(target) + QStringLiteral(":\n") + kNoSpace),
                     qPrintable(m_errors.first()));
        } else {
            if (error.startsWith(QLatin1String("This build has no SVG support")))
                QSKIP("no Qt SVG in this build");
            QCOMPARE(error, kNoSpace);
        }
        QCOMPARE(bytesOf(target), kOld);
        QCOMPARE(filesBeside(target).filter(name.left(1)), QStringList{name});
        // And when the disk has room, the real thing is written (magic bytes).
        if (!name.endsWith(QLatin1String(".svg"))) {
            if (name.endsWith(QLatin1String(".csv")))
                QVERIFY(w->exportCsv(target));
            else if (name.endsWith(QLatin1String(".pdf")))
                QVERIFY(w->exportReport(target));
            else
                QCOMPARE(w->resultsPage()->chartPanel(charts::ChartKind::Vram)->saveImage(target), QString());
            const QByteArray head = bytesOf(target).left(5);
            QCOMPARE(head, name.endsWith(QLatin1String(".pdf"))   ? QByteArrayLiteral("%PDF-")
                           : name.endsWith(QLatin1String(".png")) ? QByteArrayLiteral("\x89PNG\r")
                                                                  : bytesOf(target).left(5));
        }
    }

    void settingsAndOverlayWriteFailures()
    {
        const QString ini = path(QStringLiteral("s.ini"));
        {
            Settings s(ini);
            s.setCurrencySymbol(QStringLiteral("€"));
            QCOMPARE(s.lastSyncError(), QString());
        }
        const QByteArray before = bytesOf(ini);
        QVERIFY(before.contains("currencySymbol"));
        {
            Settings s(ini);
            QCOMPARE(s.currencySymbol(), QStringLiteral("€"));
            testhooks::failNextWrites(WriteStep::Write, ENOSPC, 100);
            s.setCurrencySymbol(QStringLiteral("£"));
            QCOMPARE(s.lastSyncError(), QStringLiteral("Cannot save the settings to %1: %2")
                                            .arg(QDir::toNativeSeparators(ini), kNoSpace));
            QCOMPARE(bytesOf(ini), before);
            testhooks::clearWriteFaults();
        }
        QCOMPARE(filesBeside(ini), QStringList{QStringLiteral("s.ini")});

        const QString overlay = path(QStringLiteral("overlay.json"));
        const nlohmann::json price = {{"id", "nvidia-h100-sxm"}, {"price_hour_usd", {{"typical", 1.75}}}};
        QCOMPARE(mergeIntoOverlay(overlay, {price}), QString());
        const QByteArray overlayBefore = bytesOf(overlay);
        testhooks::failNextWrites(WriteStep::Rename, ENOSPC);
        const nlohmann::json more = {{"id", "nvidia-h100-sxm"}, {"price_hour_usd", {{"spot", 1.1}}}};
        QCOMPARE(mergeIntoOverlay(overlay, {more}),
                 QStringLiteral("cannot replace %1: No space left on device").arg(QDir::toNativeSeparators(overlay)));
        QCOMPARE(bytesOf(overlay), overlayBefore);
        QCOMPARE(filesBeside(overlay).filter(QStringLiteral("overlay")), QStringList{QStringLiteral("overlay.json")});
    }

    void readersRefuseDevicesFifosAndSayWhy()
    {
        QString error;
        QCOMPARE(readFileBounded(QStringLiteral("/dev/zero"), kMaxReadBytes, &error), QByteArray());
        QCOMPARE(error, QStringLiteral("it is a character device, not a regular file"));
        QCOMPARE(loadScenarioFile(QStringLiteral("/dev/zero")).error,
                 QStringLiteral("cannot open: it is a character device, not a regular file"));
        const QString fifo = path(QStringLiteral("pipe.json"));
        QVERIFY(::mkfifo(QFile::encodeName(fifo).constData(), 0600) == 0);
        QCOMPARE(loadScenarioFile(fifo).error, QStringLiteral("cannot open: it is a FIFO (named pipe), not a regular file"));
        QCOMPARE(checkReadableFile(m_dir->path(), kMaxReadBytes), QStringLiteral("it is a folder, not a file"));
        // The real reason, not "no such file".
        const QString loop = path(QStringLiteral("loop.json"));
        QVERIFY(QFile::link(loop, loop));
        QCOMPARE(loadScenarioFile(loop).error, QStringLiteral("cannot open: Too many levels of symbolic links"));
        QCOMPARE(loadScenarioFile(path(QString(300, QLatin1Char('n')))).error, QStringLiteral("cannot open: File name too long"));
        QCOMPARE(loadScenarioFile(path(QStringLiteral("absent.json"))).error,
                 QStringLiteral("cannot open: No such file or directory"));
        // Bounded: one byte over the limit is refused.
        const QString big = path(QStringLiteral("big.json"));
        put(big, QByteArray(101, ' '));
        QCOMPARE(readFileBounded(big, 100, &error), QByteArray());
        QCOMPARE(error, QStringLiteral("it is larger than 0 MiB (101 bytes); the files GPU Planner reads are small"));
        QCOMPARE(readFileBounded(big, 101, &error), QByteArray(101, ' '));
        QCOMPARE(error, QString());
        // A FIFO or device as the settings file: refused, set aside, defaults used.
        const QString iniFifo = path(QStringLiteral("fifo.ini"));
        QVERIFY(::mkfifo(QFile::encodeName(iniFifo).constData(), 0600) == 0);
        Settings s(iniFifo);
        QCOMPARE(s.loadProblems().size(), 1);
        QVERIFY2(s.loadProblems().first().contains(QStringLiteral("cannot be read (it is a FIFO (named pipe), not a regular file)")),
                 qPrintable(s.loadProblems().first()));
        QCOMPARE(s.currencySymbol(), QStringLiteral("$"));
    }

    void onlyOneInstanceRecoversAnAutosave()
    {
        const QString dir = path(QStringLiteral("autosave"));
        QVERIFY(QDir().mkpath(dir));
        const QString orphan = dir + QStringLiteral("/session-20240101-000000-1-1.json");
        put(orphan, kOld);
        SessionAutosave first(dir);
        SessionAutosave second(dir);
        QCOMPARE(first.claimOrphans(), QStringList{orphan});
        QCOMPARE(second.claimOrphans(), QStringList());
        QCOMPARE(second.orphans(), QStringList());
        first.releaseOrphan(orphan);
        QCOMPARE(second.claimOrphans(), QStringList{orphan});
    }

    void currencySymbolIsNotAFormatString()
    {
        auto w = makeWindow();
        w->resultsPage()->controller()->recomputeNow();
        const gp::Estimate& e = w->resultsPage()->controller()->estimate();
        const QString plain = recommendationText(e, QStringLiteral("¤"));
        QVERIFY(plain.contains(QStringLiteral("¤")));
        QCOMPARE(recommendationText(e, QStringLiteral("%1%2")), QString(plain).replace(QStringLiteral("¤"), QStringLiteral("%1%2")));
        QCOMPARE(Settings::currencySymbolProblem(QStringLiteral("%1%2")), QString());
        QCOMPARE(Settings::currencySymbolProblem(QStringLiteral("EURO$")),
                 QStringLiteral("The currency symbol is at most 4 characters long (\"EURO$\" has 5)."));
        w->documentManager()->setSavePrompt([] { return int(QMessageBox::Discard); });
    }
};

QTEST_MAIN(TestFileSafety)
#include "tst_filesafety.moc"
