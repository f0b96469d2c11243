// core/userconfig: the overlay path, the catalog with the user overlay, and the
// policy for a bad overlay (reported; set aside only where the caller asks),
// shared by gpuplanner-cli and the app.
#include <QtTest>

#include "core/hardware/catalog.h"
#include "core/hardware/userconfig.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>

#include <string>

namespace {

bool writeAll(const QString& path, const QByteArray& bytes)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(bytes) == bytes.size();
}

QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

QStringList corruptCopies(const QString& dir)
{
    return QDir(dir).entryList({QStringLiteral("overlay.json.corrupt-*")}, QDir::Files | QDir::System);
}

} // namespace

class TestUserConfig : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_overlay;

    std::string overlay() const { return m_overlay.toStdString(); }

private slots:
    void init()
    {
        QVERIFY(m_dir.isValid());
        for (const QString& name : QDir(m_dir.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::System)) {
            QFileInfo info(m_dir.filePath(name));
            if (info.isDir() && !info.isSymLink())
                QVERIFY(QDir(info.filePath()).removeRecursively());
            else
                QVERIFY(QFile::remove(info.filePath()));
        }
        m_overlay = m_dir.filePath(QStringLiteral("overlay.json"));
        qputenv("GPUPLANNER_CATALOG_OVERLAY", m_overlay.toUtf8());
    }

    void cleanupTestCase() { qunsetenv("GPUPLANNER_CATALOG_OVERLAY"); }

    void overlayPathFromEnvironment()
    {
        QCOMPARE(gp::userOverlayPath(), overlay());
        qunsetenv("GPUPLANNER_CATALOG_OVERLAY");
        const QByteArray xdg = qgetenv("XDG_CONFIG_HOME");
        const QByteArray home = qgetenv("HOME");
        qputenv("XDG_CONFIG_HOME", "/x/cfg");
        QCOMPARE(gp::userOverlayPath(), std::string("/x/cfg/gpuplanner/catalog-overlay.json"));
        qunsetenv("XDG_CONFIG_HOME");
        qputenv("HOME", "/home/u");
        QCOMPARE(gp::userOverlayPath(), std::string("/home/u/.config/gpuplanner/catalog-overlay.json"));
        qunsetenv("HOME");
        QCOMPARE(gp::userOverlayPath(), std::string());
        qputenv("HOME", home);
        if (!xdg.isNull())
            qputenv("XDG_CONFIG_HOME", xdg);
    }

    void noOverlayIsTheBuiltinCatalog()
    {
        const gp::UserCatalogLoad c = gp::loadCatalogWithUserOverlay(gp::BadOverlay::SetAside);
        QCOMPARE(c.overlayPath, overlay());
        QVERIFY(!c.overlayApplied);
        QVERIFY(c.problems.empty());
        QCOMPARE(c.catalog.gpus().size(), gp::Catalog::builtin().gpus().size());
    }

    void goodOverlayApplies()
    {
        QVERIFY(writeAll(m_overlay, R"([{"id": "nvidia-h100-sxm", "price_hour_usd": {"typical": 1.5}}])"));
        const gp::UserCatalogLoad c = gp::loadCatalogWithUserOverlay(gp::BadOverlay::SetAside);
        QVERIFY(c.overlayApplied);
        QVERIFY(c.problems.empty());
        QCOMPARE(c.catalog.find("nvidia-h100-sxm")->pricePerHour.typical, 1.5);
        QVERIFY(c.setAsidePath.empty());
        QVERIFY(QFile::exists(m_overlay));
    }

    void badOverlayIsReportedAndKept()
    {
        QVERIFY(writeAll(m_overlay, R"([{"id": 42}])"));
        const gp::UserCatalogLoad c = gp::loadCatalogWithUserOverlay(gp::BadOverlay::Report);
        QVERIFY(!c.overlayApplied);
        QVERIFY(!c.unreadable);
        QCOMPARE(c.catalog.gpus().size(), gp::Catalog::builtin().gpus().size());
        QCOMPARE(c.problemText(), overlay() + "[0].id: must be a string of lowercase letters, digits and dashes "
                                              "(e.g. \"my-gpu-80gb\"), got 42");
        QVERIFY(c.setAsidePath.empty());
        QCOMPARE(readAll(m_overlay), QByteArray(R"([{"id": 42}])"));
        QVERIFY(corruptCopies(m_dir.path()).isEmpty());
    }

    void badOverlayIsSetAsideWhenAsked_data()
    {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("problem");
        QTest::addRow("not JSON") << QByteArray("[{\"id\": ") << QStringLiteral(": invalid JSON at byte 9: parse error at line 1, column 9");
        QTest::addRow("NUL byte") << QByteArray("[{\"id\":\"x\"\0}]", 13)
                                  << QStringLiteral(": contains a NUL byte at offset 10; not a text file");
        QTest::addRow("too large") << QByteArray((16 << 20) + 1, ' ') << QStringLiteral(": larger than 16 MiB; refused");
    }

    void badOverlayIsSetAsideWhenAsked()
    {
        QFETCH(QByteArray, content);
        QFETCH(QString, problem);
        QVERIFY(writeAll(m_overlay, content));
        const gp::UserCatalogLoad c = gp::loadCatalogWithUserOverlay(gp::BadOverlay::SetAside);
        QVERIFY(!c.overlayApplied);
        QVERIFY(!c.unreadable);
        QVERIFY2(QString::fromStdString(c.problemText()).startsWith(m_overlay + problem), c.problemText().c_str());
        QVERIFY(!QFile::exists(m_overlay));
        const QStringList aside = corruptCopies(m_dir.path());
        QCOMPARE(aside.size(), 1);
        // overlay.json.corrupt-yyyyMMdd-HHmmss
        QVERIFY2(QRegularExpression(QStringLiteral("^overlay\\.json\\.corrupt-\\d{8}-\\d{6}$")).match(aside.first()).hasMatch(),
                 qPrintable(aside.first()));
        QCOMPARE(QString::fromStdString(c.setAsidePath), m_dir.filePath(aside.first()));
        QCOMPARE(readAll(m_dir.filePath(aside.first())), content);
        QVERIFY(c.setAsideError.empty());
        // The next load is clean.
        QVERIFY(gp::loadCatalogWithUserOverlay(gp::BadOverlay::SetAside).problems.empty());
    }

    void setAsideNeverOverwritesAnEarlierCopy()
    {
        QVERIFY(writeAll(m_overlay, "first"));
        const std::string firstAside = gp::loadCatalogWithUserOverlay(gp::BadOverlay::SetAside).setAsidePath;
        QVERIFY(!firstAside.empty());
        // Within the same second the tag is the same: the second copy gets "-2"
        // (or its own tag in a later second); the first is left as it was.
        QVERIFY(writeAll(m_overlay, "second"));
        const std::string secondAside = gp::loadCatalogWithUserOverlay(gp::BadOverlay::SetAside).setAsidePath;
        QVERIFY(!secondAside.empty());
        QVERIFY(secondAside != firstAside);
        if (secondAside.rfind(firstAside, 0) == 0)
            QCOMPARE(secondAside, firstAside + "-2");
        QCOMPARE(readAll(QString::fromStdString(firstAside)), QByteArray("first"));
        QCOMPARE(readAll(QString::fromStdString(secondAside)), QByteArray("second"));
    }

    void unreadableOverlayIsLeftAlone_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("problem");
        QTest::addRow("directory") << "dir" << ": is a directory, expected a file";
        QTest::addRow("dangling link") << "link" << ": no such file";
    }

    void unreadableOverlayIsLeftAlone()
    {
        QFETCH(QString, kind);
        QFETCH(QString, problem);
        if (kind == QLatin1String("dir"))
            QVERIFY(QDir().mkpath(m_overlay));
        else
            QVERIFY(QFile::link(m_dir.filePath(QStringLiteral("missing.json")), m_overlay));
        const gp::UserCatalogLoad c = gp::loadCatalogWithUserOverlay(gp::BadOverlay::SetAside);
        QVERIFY(c.unreadable);
        QVERIFY(!c.overlayApplied);
        QCOMPARE(QString::fromStdString(c.problemText()), m_overlay + problem);
        QVERIFY(c.setAsidePath.empty());
        QVERIFY(corruptCopies(m_dir.path()).isEmpty());
        QVERIFY(QFileInfo(m_overlay).isDir() || QFileInfo(m_overlay).isSymLink());
        QCOMPARE(c.catalog.gpus().size(), gp::Catalog::builtin().gpus().size());
    }
};

QTEST_APPLESS_MAIN(TestUserConfig)
#include "tst_userconfig.moc"
