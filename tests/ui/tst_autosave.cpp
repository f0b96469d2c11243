// Crash recovery: the session is autosaved (coalesced, atomically) while it has
// unsaved changes, removed on a clean exit, and offered back after a crash;
// declined autosaves are set aside (*.bak), unreadable ones reported and set
// aside (*.corrupt-*), never fatal.
#include "ui/estimatecontroller.h"
#include "ui/mainwindow.h"
#include "ui/documentmanager.h"
#include "ui/resultspage.h"
#include "ui/numberfield.h"
#include "ui/scenarioform.h"
#include "ui/scenariomodel.h"
#include "ui/sessionautosave.h"
#include "ui/settings.h"

#include <QDir>
#include <QFile>
#include <QLockFile>
#include <QMessageBox>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>

#include <csignal>
#include <sys/wait.h>
#include <unistd.h>

#include <memory>

using namespace gp::ui;
using Field = ScenarioModel::Field;

class TestAutosave : public QObject
{
    Q_OBJECT
private:
    std::unique_ptr<QTemporaryDir> m_dir;
    QStringList m_errors;
    QStringList m_notices;
    QStringList m_prompts;
    bool m_restore = true;
    int m_saveAnswer = QMessageBox::Discard;

    QString autosaveDir() const { return m_dir->filePath(QStringLiteral("autosave")); }

    std::unique_ptr<MainWindow> makeWindow()
    {
        auto settings = std::make_unique<Settings>(m_dir->filePath(QStringLiteral("settings.ini")));
        auto w = std::make_unique<MainWindow>(std::move(settings));
        w->setErrorReporter([this](const QString& t, const QString& m) { m_errors << t + QStringLiteral(": ") + m; });
        w->documentManager()->setSavePrompt([this] { return m_saveAnswer; });
        w->setNotifier([this](const QString& t, const QString& m) { m_notices << t + QStringLiteral(": ") + m; });
        w->documentManager()->setRecoveryPrompt([this](const QString& text) {
            m_prompts << text;
            return m_restore;
        });
        return w;
    }

    static NumberField* spin(MainWindow& w, Field f) { return w.form()->numberFor(f); }

    QStringList filesIn(const QString& pattern) const
    {
        return QDir(autosaveDir()).entryList({pattern}, QDir::Files, QDir::Name);
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
        m_notices.clear();
        m_prompts.clear();
        m_restore = true;
        m_saveAnswer = QMessageBox::Discard;
    }

    void autosaveLivesNextToTheSettingsOrInAppData()
    {
        QCOMPARE(Settings(m_dir->filePath(QStringLiteral("s.ini"))).autosaveDirectory(), autosaveDir());
        const QString appData = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
        QCOMPARE(Settings().autosaveDirectory(), QDir(appData).filePath(QStringLiteral("autosave")));
        QCOMPARE(SessionAutosave::kDelayMs, 2000);
    }

    void editsAreCoalescedIntoOneDelayedWrite()
    {
        auto w = makeWindow();
        SessionAutosave* a = w->documentManager()->autosave();
        QCOMPARE(a->delayMs(), SessionAutosave::kDelayMs);
        a->setDelayMs(150); // the test's patience, not the app's
        QSignalSpy written(a, &SessionAutosave::written);
        NumberField* mb = spin(*w, Field::MicroBatch);
        const int original = w->documentManager()->model()->scenario().training.microBatch;
        mb->setValue(original + 1);
        mb->setValue(original + 2);
        mb->setValue(original + 3); // a burst of keystrokes
        QVERIFY(a->isScheduled());
        QCOMPARE(written.count(), 0); // nothing on the keystroke itself
        QVERIFY(filesIn(QStringLiteral("session-*.json")).isEmpty());
        QTRY_COMPARE_WITH_TIMEOUT(written.count(), 1, 3000);
        QTest::qWait(300);
        QCOMPARE(written.count(), 1); // one write for the burst

        const auto loaded = SessionAutosave::load(a->path());
        QVERIFY2(loaded.session.has_value(), qPrintable(loaded.error));
        QCOMPARE(loaded.session->scenario.training.microBatch, original + 3);
        QVERIFY(loaded.session->modified);
        QVERIFY(loaded.session->file.isEmpty());
        QVERIFY(loaded.session->savedAt.isValid());
        // Atomic writes leave no temporary files behind: the autosave and its lock.
        const QString name = QFileInfo(a->path()).fileName();
        QCOMPARE(QDir(autosaveDir()).entryList(QDir::Files, QDir::Name),
                 (QStringList{name, name + QStringLiteral(".lock")}));
    }

    void savingOrUndoingToCleanRemovesTheAutosave()
    {
        auto w = makeWindow();
        spin(*w, Field::SeqLen)->stepUp();
        QVERIFY(w->documentManager()->autosave()->writeNow().isEmpty());
        QVERIFY(QFile::exists(w->documentManager()->autosave()->path()));
        w->documentManager()->model()->undoStack()->undo(); // back to what is on disk (the defaults)
        QVERIFY(!QFile::exists(w->documentManager()->autosave()->path()));
        QVERIFY(!w->documentManager()->autosave()->isScheduled());

        spin(*w, Field::SeqLen)->stepUp();
        QVERIFY(w->documentManager()->autosave()->writeNow().isEmpty());
        const QString file = m_dir->filePath(QStringLiteral("x.gpuplan.json"));
        QVERIFY(w->documentManager()->saveTo(file));
        QVERIFY(!QFile::exists(w->documentManager()->autosave()->path()));
    }

    void cleanExitRemovesTheAutosaveCancelKeepsIt()
    {
        auto w = makeWindow();
        w->show();
        spin(*w, Field::MicroBatch)->stepUp();
        QVERIFY(w->documentManager()->autosave()->writeNow().isEmpty());
        const QString path = w->documentManager()->autosave()->path();

        m_saveAnswer = QMessageBox::Cancel;
        QVERIFY(!w->close()); // the user went back to work: keep it
        QVERIFY(QFile::exists(path));

        m_saveAnswer = QMessageBox::Discard;
        QVERIFY(w->close());
        QVERIFY(!QFile::exists(path));
        w.reset();
        auto next = makeWindow();
        QVERIFY(next->documentManager()->autosave()->orphans().isEmpty());
        QVERIFY(!next->documentManager()->offerRecovery());
        QVERIFY(m_prompts.isEmpty());
    }

    void crashedSessionIsRestoredModifiedWithItsFile()
    {
        const QString file = m_dir->filePath(QStringLiteral("job.gpuplan.json"));
        int edited = 0;
        QString crashed;
        {
            auto w = makeWindow();
            QVERIFY(w->documentManager()->saveTo(file));
            NumberField* mb = spin(*w, Field::MicroBatch);
            edited = w->documentManager()->model()->scenario().training.microBatch + 5;
            mb->setValue(edited);
            QVERIFY(w->isWindowModified());
            QVERIFY(w->documentManager()->autosave()->writeNow().isEmpty());
            crashed = w->documentManager()->autosave()->path();
            // Destroyed without closing: what a crash leaves behind.
        }
        QVERIFY(QFile::exists(crashed));

        auto w = makeWindow();
        QCOMPARE(w->documentManager()->autosave()->orphans(), QStringList{crashed});
        QVERIFY(w->documentManager()->offerRecovery());
        QCOMPARE(m_prompts.size(), 1);
        QVERIFY(m_prompts.first().contains(QStringLiteral("job.gpuplan.json")));
        QCOMPARE(w->documentManager()->model()->scenario().training.microBatch, edited);
        QCOMPARE(w->documentManager()->currentFile(), QFileInfo(file).absoluteFilePath());
        QVERIFY(w->isWindowModified());
        QVERIFY(!w->documentManager()->model()->undoStack()->isClean());
        // The restored session is this session's autosave now; the old file is gone.
        QVERIFY(!QFile::exists(crashed));
        QVERIFY(QFile::exists(w->documentManager()->autosave()->path()));
        QVERIFY(w->statusBar()->currentMessage().contains(QStringLiteral("Restored")));
        QTRY_VERIFY_WITH_TIMEOUT(w->resultsPage()->controller()->estimate().results.size() > 0, 2000);
        QVERIFY(m_errors.isEmpty());
    }

    void declinedAutosaveIsSetAsideNotDeleted()
    {
        QString crashed;
        {
            auto w = makeWindow();
            spin(*w, Field::MicroBatch)->stepUp();
            QVERIFY(w->documentManager()->autosave()->writeNow().isEmpty());
            crashed = w->documentManager()->autosave()->path();
        }
        QFile f(crashed);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray bytes = f.readAll();
        f.close();

        m_restore = false;
        auto w = makeWindow();
        QVERIFY(!w->documentManager()->offerRecovery());
        QCOMPARE(m_prompts.size(), 1);
        QVERIFY(!QFile::exists(crashed));
        QFile bak(crashed + QStringLiteral(".bak"));
        QVERIFY(bak.open(QIODevice::ReadOnly));
        QCOMPARE(bak.readAll(), bytes);
        QCOMPARE(w->documentManager()->model()->scenario().training.microBatch, gp::defaultScenario().training.microBatch);
        QVERIFY(!w->isWindowModified());
        // Set aside means not offered again.
        auto again = makeWindow();
        QVERIFY(!again->documentManager()->offerRecovery());
        QCOMPARE(m_prompts.size(), 1);
    }

    void corruptAutosaveIsReportedAndSetAside()
    {
        QVERIFY(QDir().mkpath(autosaveDir()));
        const QString path = QDir(autosaveDir()).filePath(QStringLiteral("session-20200101-000000-1-1.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\"format\": \"gpuplanner-autosave\", \"scenario\": {\"name\": \"trunc"); // cut off mid-write
        f.close();

        auto w = makeWindow();
        QVERIFY(!w->documentManager()->offerRecovery()); // and no crash, no modal
        QVERIFY(m_prompts.isEmpty());
        QCOMPARE(m_notices.size(), 1);
        QVERIFY(m_notices.first().contains(QStringLiteral("cannot be restored")));
        QVERIFY(!QFile::exists(path));
        QCOMPARE(filesIn(QStringLiteral("session-20200101-000000-1-1.json.corrupt-*")).size(), 1);
        QVERIFY(w->resultsPage()->model() != nullptr);
        QVERIFY(w->resultsPage()->controller()->estimate().results.size() > 0);
    }

    void autosaveOfARunningSessionIsNotOffered()
    {
        auto running = makeWindow();
        spin(*running, Field::MicroBatch)->stepUp();
        QVERIFY(running->documentManager()->autosave()->writeNow().isEmpty());
        auto second = makeWindow(); // a second window (or instance) starting now
        QVERIFY(second->documentManager()->autosave()->orphans().isEmpty());
        QVERIFY(!second->documentManager()->offerRecovery());
        QVERIFY(QFile::exists(running->documentManager()->autosave()->path()));
    }

    void lockLeftByADeadProcessCountsAsCrashed()
    {
        // A process that took the lock and died without unlocking (kill -9, crash).
        QVERIFY(QDir().mkpath(autosaveDir()));
        const QString path = QDir(autosaveDir()).filePath(QStringLiteral("session-20200101-000000-2-1.json"));
        gp::Scenario s = gp::defaultScenario();
        s.training.microBatch = 3;
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(SessionAutosave::serialize({s, QString(), true, QDateTime::currentDateTime()}));
        f.close();
        const pid_t child = fork();
        if (child == 0) {
            QLockFile lock(path + QStringLiteral(".lock"));
            _exit(lock.tryLock(0) ? 0 : 1); // exits holding it: the lock file stays
        }
        QVERIFY(child > 0);
        int status = 0;
        pid_t done = 0;
        for (int i = 0; i < 1000 && done == 0; ++i) { // at most ~10 s, never hang the suite
            done = waitpid(child, &status, WNOHANG);
            if (done == 0)
                QTest::qSleep(10);
        }
        if (done == 0) {
            kill(child, SIGKILL);
            waitpid(child, &status, 0);
            QFAIL("the child process did not exit");
        }
        QCOMPARE(done, child); // reaped: its pid no longer runs
        QVERIFY(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        QVERIFY(QFile::exists(path + QStringLiteral(".lock")));

        auto w = makeWindow();
        QCOMPARE(w->documentManager()->autosave()->orphans(), QStringList{path});
        QVERIFY(w->documentManager()->offerRecovery());
        QCOMPARE(w->documentManager()->model()->scenario().training.microBatch, 3);
        QVERIFY(w->documentManager()->currentFile().isEmpty());
        QVERIFY(w->isWindowModified());
    }

    void unwritableDirectoryIsReportedOnceNotFatal()
    {
        const QString blocker = m_dir->filePath(QStringLiteral("file-not-dir"));
        QFile f(blocker);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.close();
        SessionAutosave a(blocker + QStringLiteral("/autosave"));
        a.setSource([] { return SessionAutosave::Session{gp::defaultScenario(), QString(), true, {}}; });
        QSignalSpy failed(&a, &SessionAutosave::failed);
        QVERIFY(!a.writeNow().isEmpty());
        QCOMPARE(failed.count(), 1);
    }
};

QTEST_MAIN(TestAutosave)
#include "tst_autosave.moc"
