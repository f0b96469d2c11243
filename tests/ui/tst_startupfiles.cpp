// A settings file or user catalog overlay that cannot be parsed or fails
// validation: the app starts anyway with the defaults / the built-in catalog,
// says so (status bar + a non-modal notice) and renames the bad file to
// "<name>.corrupt-<timestamp>" so nothing is lost and the next start is clean.
#include "ui/catalogoverlay.h"
#include "ui/mainwindow.h"
#include "ui/documentmanager.h"
#include "ui/resultspage.h"
#include "ui/estimatecontroller.h"
#include "ui/resultstablemodel.h"
#include "ui/settings.h"

#include "core/hardware/catalog.h"

#include <QDir>
#include <QFile>
#include <QMessageBox>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QtTest>

#include <memory>

using namespace gp::ui;

namespace {

QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

bool writeAll(const QString& path, const QByteArray& bytes)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

/// The files set aside for `name` in dir ("<name>.corrupt-*").
QStringList corruptCopies(const QString& dir, const QString& name)
{
    return QDir(dir).entryList({name + QStringLiteral(".corrupt-*")}, QDir::Files);
}

} // namespace

class TestStartupFiles : public QObject
{
    Q_OBJECT
private:
    std::unique_ptr<QTemporaryDir> m_dir;

    QString path(const char* name) const { return m_dir->filePath(QString::fromLatin1(name)); }

private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void init()
    {
        m_dir = std::make_unique<QTemporaryDir>();
        QVERIFY(m_dir->isValid());
        qputenv("GPUPLANNER_CATALOG_OVERLAY", path("overlay.json").toUtf8());
    }

    void cleanupTestCase() { qunsetenv("GPUPLANNER_CATALOG_OVERLAY"); }

    void goodSettingsLoadWithoutProblems()
    {
        const QString ini = path("good.ini");
        {
            Settings s(ini);
            s.setDefaultPricingModel(gp::PricingModel::Spot);
            s.setCurrencySymbol(QStringLiteral("€"));
            s.setRecentFiles({QStringLiteral("/tmp/a.gpuplan.json")});
            s.setWindowGeometry(QByteArray("\x01\x02", 2));
            s.sync();
        }
        Settings s(ini);
        QVERIFY(s.loadProblems().isEmpty());
        QVERIFY(s.defaultPricingModel() == gp::PricingModel::Spot);
        QCOMPARE(s.currencySymbol(), QStringLiteral("€"));
        QVERIFY(corruptCopies(m_dir->path(), QStringLiteral("good.ini")).isEmpty());
    }

    void unparseableSettingsAreSetAsideAndDefaultsUsed_data()
    {
        QTest::addColumn<QByteArray>("content");
        QTest::addRow("unclosed section") << QByteArray("[pricing\ndefaultModel=2\n");
        QTest::addRow("line without key") << QByteArray("[display]\ncurrencySymbol=EUR\nthis is not a setting\n");
        QTest::addRow("binary junk") << QByteArray("\x7f" "ELF\x02\x01\x01\x00\x00garbage\nmore", 22);
    }

    void unparseableSettingsAreSetAsideAndDefaultsUsed()
    {
        QFETCH(QByteArray, content);
        const QString ini = path("broken.ini");
        QVERIFY(writeAll(ini, content));
        {
            Settings s(ini);
            QCOMPARE(s.loadProblems().size(), 1);
            QVERIFY(s.loadProblems().first().contains(QStringLiteral("not a valid settings file")));
            QVERIFY(s.defaultPricingModel() == gp::defaultScenario().pricing.model);
            QCOMPARE(s.currencySymbol(), QStringLiteral("$"));
            QVERIFY(s.recentFiles().isEmpty());
            s.setCurrencySymbol(QStringLiteral("£")); // the app goes on saving settings
            s.sync();
        }
        const QStringList aside = corruptCopies(m_dir->path(), QStringLiteral("broken.ini"));
        QCOMPARE(aside.size(), 1);
        QCOMPARE(readAll(m_dir->filePath(aside.first())), content); // nothing lost
        // The next start is clean.
        Settings again(ini);
        QVERIFY2(again.loadProblems().isEmpty(), qPrintable(again.loadProblems().join(QLatin1Char('\n'))));
        QCOMPARE(again.currencySymbol(), QStringLiteral("£"));
    }

    void invalidValuesFallBackKeepingTheGoodOnes()
    {
        const QString ini = path("values.ini");
        const QByteArray content = "[pricing]\ndefaultModel=abc\nelectricityUsdPerKwh=-3\n"
                                   "[display]\ncurrencySymbol=Euros and cents\n"
                                   "[files]\nlastDirectory=/tmp\nrecent=/tmp/a.gpuplan.json, /tmp/b.gpuplan.json\n"
                                   "[window]\ngeometry=not bytes\n";
        QVERIFY(writeAll(ini, content));
        {
            Settings s(ini);
            QCOMPARE(s.loadProblems().size(), 1);
            const QString p = s.loadProblems().first();
            for (const char* key : {"pricing/defaultModel", "pricing/electricityUsdPerKwh", "display/currencySymbol",
                                    "window/geometry"})
                QVERIFY2(p.contains(QLatin1String(key)), key);
            QVERIFY(!p.contains(QStringLiteral("files/")));
            QVERIFY(s.defaultPricingModel() == gp::defaultScenario().pricing.model);
            QCOMPARE(s.electricityUsdPerKwh(), gp::defaultScenario().pricing.electricityUsdPerKwh);
            QCOMPARE(s.currencySymbol(), QStringLiteral("$"));
            QVERIFY(s.windowGeometry().isEmpty());
            // Good values survive.
            QCOMPARE(s.lastDirectory(), QStringLiteral("/tmp"));
            QCOMPARE(s.recentFiles().size(), 2);
        }
        const QStringList aside = corruptCopies(m_dir->path(), QStringLiteral("values.ini"));
        QCOMPARE(aside.size(), 1);
        QCOMPARE(readAll(m_dir->filePath(aside.first())), content);
        Settings again(ini);
        QVERIFY(again.loadProblems().isEmpty());
        QCOMPARE(again.recentFiles().size(), 2);
    }

    void badOverlayIsSetAsideAndBuiltinUsed_data()
    {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("why");
        QTest::addRow("not JSON") << QByteArray("[{\"id\": \"acme\", ") << QStringLiteral("overlay.json");
        QTest::addRow("not an array") << QByteArray("{\"id\": \"acme\"}") << QStringLiteral("array");
        QTest::addRow("entry fails validation")
            << QByteArray("[{\"id\": \"acme-x1\", \"name\": \"Acme X1\", \"memory_gb\": -4, \"memory_bandwidth_gbps\": 100, "
                          "\"fp16_tflops\": 10}]")
            << QStringLiteral("memory_gb");
        QTest::addRow("bad price of a built-in GPU")
            << QByteArray("[{\"id\": \"nvidia-h100-sxm\", \"price_hour_usd\": {\"typical\": \"cheap\"}}]")
            << QStringLiteral("typical");
    }

    void badOverlayIsSetAsideAndBuiltinUsed()
    {
        QFETCH(QByteArray, content);
        QFETCH(QString, why);
        QVERIFY(writeAll(path("overlay.json"), content));
        const UserCatalog c = loadUserCatalog(true);
        QVERIFY(!c.overlayApplied);
        QCOMPARE(c.catalog.gpus().size(), gp::Catalog::builtin().gpus().size());
        QCOMPARE(c.problems.size(), 1);
        QVERIFY2(c.problems.first().contains(why), qPrintable(c.problems.first()));
        QVERIFY(!QFile::exists(path("overlay.json")));
        const QStringList aside = corruptCopies(m_dir->path(), QStringLiteral("overlay.json"));
        QCOMPARE(aside.size(), 1);
        QCOMPARE(c.setAsidePath, m_dir->filePath(aside.first()));
        QCOMPARE(readAll(c.setAsidePath), content);
        QVERIFY(c.problems.first().contains(QDir::toNativeSeparators(c.setAsidePath)));

        const UserCatalog next = loadUserCatalog(true);
        QVERIFY(next.problems.isEmpty());
    }

    void overlayIsOnlyReportedWhenNotSettingAside()
    {
        QVERIFY(writeAll(path("overlay.json"), "nope"));
        const UserCatalog c = loadUserCatalog(false);
        QCOMPARE(c.problems.size(), 1);
        QVERIFY(c.setAsidePath.isEmpty());
        QVERIFY(QFile::exists(path("overlay.json")));
    }

    void unreadableOverlayIsReportedAndLeftAlone()
    {
        QVERIFY(QDir().mkpath(path("overlay.json"))); // a folder where the file should be
        const UserCatalog c = loadUserCatalog(true);
        QCOMPARE(c.problems.size(), 1);
        QVERIFY(c.problems.first().contains(QStringLiteral("cannot be read")));
        QVERIFY(c.setAsidePath.isEmpty());
        QVERIFY(QFileInfo(path("overlay.json")).isDir());
        QCOMPARE(c.catalog.gpus().size(), gp::Catalog::builtin().gpus().size());
    }

    void goodOverlayApplies()
    {
        QVERIFY(writeAll(path("overlay.json"), "[{\"id\": \"nvidia-h100-sxm\", \"price_hour_usd\": {\"typical\": 1.5}}]"));
        const UserCatalog c = loadUserCatalog(true);
        QVERIFY(c.problems.isEmpty());
        QVERIFY(c.overlayApplied);
        QCOMPARE(c.catalog.find("nvidia-h100-sxm")->pricePerHour.typical, 1.5);
        QVERIFY(QFile::exists(path("overlay.json")));
    }

    void appStartsWithBothFilesBroken()
    {
        const QByteArray badIni = "[window\ngeometry=@ByteArray(\n";
        const QByteArray badOverlay = "[{\"id\": 42}]";
        QVERIFY(writeAll(path("app.ini"), badIni));
        QVERIFY(writeAll(path("overlay.json"), badOverlay));
        QStringList notices;
        {
            MainWindow w(std::make_unique<Settings>(path("app.ini")));
            w.setNotifier([&](const QString& t, const QString& m) { notices << t + QStringLiteral(": ") + m; });
            w.setErrorReporter([](const QString& t, const QString& m) { QFAIL(qPrintable(t + m)); });
            w.documentManager()->setSavePrompt([] { return int(QMessageBox::Discard); });
            // It works, on the built-in catalog and the default settings.
            QCOMPARE(w.resultsPage()->controller()->catalog().gpus().size(), gp::Catalog::builtin().gpus().size());
            QCOMPARE(w.resultsPage()->model()->rowCount(), int(gp::Catalog::builtin().gpus().size()));
            QCOMPARE(w.startupProblems().size(), 2);
            const QString status = w.statusBar()->currentMessage();
            QVERIFY(status.contains(QStringLiteral("settings")));
            QVERIFY(status.contains(QStringLiteral("overlay")));
            // The notices come once the event loop runs, through the injected notifier.
            QTRY_COMPARE_WITH_TIMEOUT(notices.size(), 2, 2000);
            QVERIFY(notices.filter(QStringLiteral("Settings")).size() == 1);
            QVERIFY(notices.filter(QStringLiteral("Catalog overlay")).size() == 1);
            w.close();
        }
        const auto asideOf = [this](const char* name) {
            return m_dir->filePath(corruptCopies(m_dir->path(), QString::fromLatin1(name)).value(0));
        };
        QCOMPARE(readAll(asideOf("app.ini")), badIni);
        QCOMPARE(readAll(asideOf("overlay.json")), badOverlay);

        // The next start is clean.
        MainWindow again(std::make_unique<Settings>(path("app.ini")));
        QVERIFY(again.startupProblems().isEmpty());
    }
};

QTEST_MAIN(TestStartupFiles)
#include "tst_startupfiles.moc"
