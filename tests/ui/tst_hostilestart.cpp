// Hostile input, round three (issue 20), at start-up: files that used to crash
// or freeze the app at every start are refused with a message naming them, set
// aside, and the app starts; the CLI never touches the app's settings.
#include "ui/documentmanager.h"
#include "ui/mainwindow.h"
#include "ui/reportcli.h"
#include "ui/resultspage.h"
#include "ui/estimatecontroller.h"
#include "ui/sessionautosave.h"
#include "ui/settings.h"

#include "app/cli/cli.h"
#include "core/scenario/scenario.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QSettings>
#include <QTemporaryDir>
#include <QtTest>

#include <sstream>

#include <csignal>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace gp::ui;

namespace {

bool put(const QString& path, const QByteArray& bytes)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

QByteArray deepObjects(int levels)
{
    QByteArray s;
    s.reserve(levels * 7 + 2);
    for (int i = 0; i < levels; ++i)
        s += "{\"a\":";
    s += "1";
    s += QByteArray(levels, '}');
    return s;
}

QByteArray autosaveWith(const QByteArray& scenario)
{
    return "{\"format\": \"gpuplanner-autosave\", \"version\": 1, \"file\": \"\", \"modified\": true, "
           "\"saved_at\": \"2026-01-01T00:00:00\", \"scenario\": " + scenario + "}";
}

} // namespace

class TestHostileStart : public QObject
{
    Q_OBJECT
private:
    std::unique_ptr<QTemporaryDir> m_dir;
    QStringList m_notices;
    QStringList m_prompts;

    QString autosaveDir() const { return m_dir->filePath(QStringLiteral("autosave")); }
    QString nativeFile() const
    {
        return m_dir->filePath(QStringLiteral("config/GPU Planner Hostile/GPU Planner Hostile Test.conf"));
    }

    std::unique_ptr<MainWindow> makeWindow()
    {
        auto w = std::make_unique<MainWindow>(std::make_unique<Settings>(m_dir->filePath(QStringLiteral("settings.ini"))));
        w->setErrorReporter([](const QString&, const QString&) {});
        w->setNotifier([this](const QString& t, const QString& m) { m_notices << t + QStringLiteral(": ") + m; });
        w->documentManager()->setRecoveryPrompt([this](const QString& text) {
            m_prompts << text;
            return true;
        });
        return w;
    }

    QStringList autosaves(const QString& pattern) const
    {
        return QDir(autosaveDir()).entryList({pattern}, QDir::Files, QDir::Name);
    }

private slots:
    void initTestCase()
    {
        QCoreApplication::setOrganizationName(QStringLiteral("GPU Planner Hostile"));
        QCoreApplication::setApplicationName(QStringLiteral("GPU Planner Hostile Test"));
        qputenv("GPUPLANNER_CATALOG_OVERLAY", QByteArrayLiteral("/nonexistent/gpuplanner-test/no-overlay.json"));
    }

    void init()
    {
        m_dir = std::make_unique<QTemporaryDir>();
        QVERIFY(m_dir->isValid());
        // The app's own settings live here, not in the user's home.
        qputenv("HOME", QFile::encodeName(m_dir->path()));
        qputenv("XDG_CONFIG_HOME", QFile::encodeName(m_dir->filePath(QStringLiteral("config"))));
        qputenv("XDG_DATA_HOME", QFile::encodeName(m_dir->filePath(QStringLiteral("data"))));
        m_notices.clear();
        m_prompts.clear();
    }

    void autosaveNested100000DeepIsSetAsideAndTheAppStarts()
    {
        const QString path = QDir(autosaveDir()).filePath(QStringLiteral("session-20260101-000000-1-1.json"));
        QVERIFY(put(path, autosaveWith("{\"name\": " + deepObjects(100000) + "}")));
        const auto loaded = SessionAutosave::load(path);
        QVERIFY(!loaded.session);
        QVERIFY2(loaded.error.startsWith(QStringLiteral("not readable JSON: nested deeper than 64 levels (depth 65 at "
                                                        "scenario.name.a.a.a.")),
                 qPrintable(loaded.error));
        auto w = makeWindow(); // used to be signal 11 in SessionAutosave::load, at every start
        QVERIFY(!w->documentManager()->offerRecovery());
        QVERIFY(m_prompts.isEmpty());
        QCOMPARE(m_notices.size(), 1);
        QVERIFY2(m_notices.first().contains(QDir::toNativeSeparators(path)) &&
                     m_notices.first().contains(QStringLiteral("nested deeper than 64 levels")) &&
                     m_notices.first().contains(QStringLiteral("It was kept as ")),
                 qPrintable(m_notices.first()));
        QVERIFY(!QFile::exists(path));
        QCOMPARE(autosaves(QStringLiteral("session-20260101-000000-1-1.json.corrupt-*")).size(), 1);
        QVERIFY(w->resultsPage()->controller()->estimate().results.size() > 0);
    }

    void calibrationFileNested100000DeepIsReportedAndTheAppStarts()
    {
        const QString cal = m_dir->filePath(QStringLiteral("deep-calibration.json"));
        QVERIFY(put(cal, "{\"format\": \"gpuplanner-calibration\", \"version\": 1, \"count\": " + QByteArray(100000, '[') +
                             QByteArray(100000, ']') + ", \"constants\": []}"));
        Settings(m_dir->filePath(QStringLiteral("settings.ini"))).setCalibrationFile(cal);
        auto w = makeWindow(); // used to be signal 11 at every start
        QCOMPARE(w->startupProblems().size(), 1);
        QVERIFY2(w->startupProblems().first().startsWith(
                     QStringLiteral("The calibration file %1 cannot be used: nested deeper than 64 levels (depth 65 at count[0]")
                         .arg(QDir::toNativeSeparators(cal))),
                 qPrintable(w->startupProblems().first()));
        QVERIFY(!w->resultsPage()->controller()->calibration()); // the built-in table
        QVERIFY(w->resultsPage()->controller()->estimate().results.size() > 0);
    }

    void megabyteScenarioNameIsRefusedAndALongOneElided()
    {
        gp::Scenario s = gp::defaultScenario();
        s.name = std::string(1 << 20, 'N');
        const QString huge = QDir(autosaveDir()).filePath(QStringLiteral("session-20260101-000000-1-2.json"));
        QVERIFY(put(huge, autosaveWith(QByteArray::fromStdString(gp::scenarioToJson(s)))));
        QElapsedTimer clock;
        clock.start();
        const auto loaded = SessionAutosave::load(huge);
        QVERIFY(!loaded.session);
        QCOMPARE(loaded.error, QStringLiteral("the scenario in it is not valid:\nname: at most 1024 characters, got 1048576"));

        // The same for the scenario's file path.
        QByteArray longFile = autosaveWith(QByteArray::fromStdString(gp::scenarioToJson(gp::defaultScenario())));
        longFile.replace("\"file\": \"\"", "\"file\": \"/" + QByteArray(1 << 20, 'f') + "\"");
        QVERIFY(put(huge, longFile));
        QCOMPARE(SessionAutosave::load(huge).error, QStringLiteral("its \"file\" is 1048577 bytes long; a file path is at most 4096"));

        // 1,000 characters is a legal name; the prompt shows 117 of them and "...".
        s.name = std::string(1000, 'L');
        const QString longName = QDir(autosaveDir()).filePath(QStringLiteral("session-20260101-000000-1-3.json"));
        QVERIFY(put(longName, autosaveWith(QByteArray::fromStdString(gp::scenarioToJson(s)))));
        QVERIFY(QFile::remove(huge));
        auto w = makeWindow();
        QVERIFY(w->documentManager()->offerRecovery());
        QCOMPARE(m_prompts.size(), 1);
        QVERIFY2(m_prompts.first().contains(QString(117, QLatin1Char('L')) + QStringLiteral("...")) &&
                     !m_prompts.first().contains(QString(118, QLatin1Char('L'))),
                 qPrintable(m_prompts.first().left(400)));
        QVERIFY2(clock.elapsed() < 10000, "a long name must not freeze the start");
    }

    void nativeSettingsPathIsQSettingsOwn()
    {
        // Worked out without constructing a QSettings (which reads in its constructor).
        QVERIFY(put(nativeFile(), "[display]\ncurrencySymbol=EUR\n"));
        QCOMPARE(QFileInfo(QSettings().fileName()).absoluteFilePath(), QFileInfo(nativeFile()).absoluteFilePath());
        Settings s;
        QVERIFY2(s.loadProblems().isEmpty(), qPrintable(s.loadProblems().join(QLatin1Char('\n'))));
        QCOMPARE(s.currencySymbol(), QStringLiteral("EUR"));
    }

    void nativeSettingsFifoIsRefusedWithoutBlocking()
    {
        QVERIFY(QDir().mkpath(QFileInfo(nativeFile()).absolutePath()));
        QVERIFY(::mkfifo(QFile::encodeName(nativeFile()).constData(), 0600) == 0);
        ::alarm(20); // blocking in open() or read() would hang the test: let it die instead
        Settings s;
        ::alarm(0);
        QCOMPARE(s.loadProblems().size(), 1);
        QVERIFY2(s.loadProblems().first().contains(QStringLiteral("%1 cannot be read (it is a FIFO (named pipe), not a "
                                                                  "regular file)")
                                                       .arg(QDir::toNativeSeparators(nativeFile()))) &&
                     s.loadProblems().first().contains(QStringLiteral("The old file was kept as ")),
                 qPrintable(s.loadProblems().first()));
        QVERIFY(!QFileInfo::exists(nativeFile()));
        QCOMPARE(s.currencySymbol(), QStringLiteral("$"));
    }

    void nativeSettingsSparse2GiBIsRefusedBySize()
    {
        QVERIFY(put(nativeFile(), "[display]\ncurrencySymbol=EUR\n"));
        QVERIFY(::truncate(QFile::encodeName(nativeFile()).constData(), qint64(2) << 30) == 0);
        QElapsedTimer clock;
        clock.start();
        Settings s;
        QVERIFY2(clock.elapsed() < 2000, "the file is refused by its size, not read");
        QCOMPARE(s.loadProblems().size(), 1);
        QVERIFY2(s.loadProblems().first().contains(QStringLiteral("larger than 16 MiB")), qPrintable(s.loadProblems().first()));
        QVERIFY(!QFileInfo::exists(nativeFile())); // set aside; the next start is clean
        QCOMPARE(QDir(QFileInfo(nativeFile()).absolutePath()).entryList({QStringLiteral("*.corrupt-*")}, QDir::Files).size(), 1);
    }

    void cliReportNeverTouchesTheAppSettings()
    {
        // A settings file the app would set aside as damaged.
        const QByteArray junk("[display\ncurrencySymbol=EUR\nthis is not a setting\n");
        QVERIFY(put(nativeFile(), junk));
        gp::Scenario s = gp::defaultScenario();
        s.hardware.gpus = {"nvidia-h100-sxm"};
        const QString scenario = m_dir->filePath(QStringLiteral("s.gpuplan.json"));
        QVERIFY(put(scenario, QByteArray::fromStdString(gp::scenarioToJson(s))));
        char arg0[] = "gpuplanner-cli";
        char* argv[] = {arg0, nullptr};
        gp::cli::Hooks hooks;
        hooks.report = makeHeadlessReportWriter(1, argv);
        std::ostringstream out;
        std::ostringstream err;
        const std::string pdf = m_dir->filePath(QStringLiteral("r.pdf")).toStdString();
        QCOMPARE(gp::cli::run({"report", scenario.toStdString(), "-o", pdf}, out, err, hooks), 0);
        QCOMPARE(err.str(), std::string());
        QFile f(nativeFile());
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), junk); // still there, unchanged, not renamed aside
        QCOMPARE(QDir(QFileInfo(nativeFile()).absolutePath()).entryList({QStringLiteral("*.corrupt-*")}, QDir::Files).size(), 0);
    }

    void signalDuringReportWriteLeavesNoPartFile_data()
    {
        QTest::addColumn<int>("sig");
        QTest::addRow("SIGINT") << int(SIGINT);
        QTest::addRow("SIGTERM") << int(SIGTERM);
    }

    void signalDuringReportWriteLeavesNoPartFile()
    {
        QFETCH(int, sig);
        const QString out = m_dir->filePath(QStringLiteral("report.pdf"));
        QVERIFY(put(out, "the previous report"));
        const pid_t child = ::fork();
        if (child == 0) {
            for (int s : {SIGINT, SIGTERM, SIGHUP})
                std::signal(s, SIG_DFL); // as in gpuplanner-cli (the test framework has its own handlers)
            (void)writeAllOrNothing(out.toStdString(), [](const std::string& temp) {
                FILE* f = std::fopen(temp.c_str(), "wb");
                std::fputs("%PDF-1.4 half a report", f);
                std::fclose(f);
                for (;;)
                    ::pause(); // still producing when the signal comes
                return std::string();
            });
            ::_exit(0);
        }
        // Wait for the temporary file, then interrupt.
        QElapsedTimer clock;
        clock.start();
        QStringList parts;
        while (parts.isEmpty() && clock.elapsed() < 10000) {
            parts = QDir(m_dir->path()).entryList({QStringLiteral(".gpuplanner-*.part")}, QDir::Files | QDir::Hidden);
            QTest::qWait(5);
        }
        QCOMPARE(parts.size(), 1);
        QCOMPARE(::kill(child, sig), 0);
        int status = 0;
        QCOMPARE(::waitpid(child, &status, 0), child);
        QVERIFY(WIFSIGNALED(status));
        QCOMPARE(WTERMSIG(status), sig);
        QCOMPARE(QDir(m_dir->path()).entryList({QStringLiteral(".gpuplanner-*")}, QDir::Files | QDir::Hidden), QStringList());
        QFile f(out);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), QByteArray("the previous report")); // untouched
    }
};

QTEST_MAIN(TestHostileStart)
#include "tst_hostilestart.moc"
