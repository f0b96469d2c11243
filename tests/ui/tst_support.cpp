// Small tested pieces: recent files, settings, parameter counts, overlay writes, formatting.
#include "ui/catalogoverlay.h"
#include "ui/format.h"
#include "ui/modelspecs.h"
#include "ui/recentfiles.h"
#include "ui/settings.h"

#include "core/hardware/catalog.h"
#include "core/model/presets.h"
#include "core/hardware/userconfig.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

using namespace gp::ui;

class TestSupport : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;

private slots:
    void recentFilesNewestFirstNoDuplicatesCapped()
    {
        RecentFiles r(3);
        r.add(QStringLiteral("/tmp/a.gpuplan.json"));
        r.add(QStringLiteral("/tmp/b.gpuplan.json"));
        r.add(QStringLiteral("/tmp/./a.gpuplan.json")); // same file, moves to the front
        QCOMPARE(r.files(), (QStringList{QStringLiteral("/tmp/a.gpuplan.json"), QStringLiteral("/tmp/b.gpuplan.json")}));
        r.add(QStringLiteral("/tmp/c.gpuplan.json"));
        r.add(QStringLiteral("/tmp/d.gpuplan.json"));
        QCOMPARE(r.files().size(), 3);
        QCOMPARE(r.files().first(), QStringLiteral("/tmp/d.gpuplan.json"));
        QVERIFY(!r.files().contains(QStringLiteral("/tmp/b.gpuplan.json")));
        r.remove(QStringLiteral("/tmp/c.gpuplan.json"));
        QCOMPARE(r.files().size(), 2);
        r.add(QString());
        QCOMPARE(r.files().size(), 2);
    }

    void recentFilesSetFilesKeepsOrderAndPrunes()
    {
        RecentFiles r(10);
        const QString existing = m_dir.filePath(QStringLiteral("x.gpuplan.json"));
        QFile f(existing);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.close();
        r.setFiles({existing, QStringLiteral("/nonexistent/y.gpuplan.json"), existing});
        QCOMPARE(r.files().size(), 2);
        QCOMPARE(r.files().first(), existing);
        r.pruneMissing();
        QCOMPARE(r.files(), QStringList{existing});
    }

    void settingsRoundTripWithDefaults()
    {
        const QString ini = m_dir.filePath(QStringLiteral("s.ini"));
        {
            Settings s(ini);
            QVERIFY(s.defaultPricingModel() == gp::defaultScenario().pricing.model);
            QCOMPARE(s.electricityUsdPerKwh(), gp::defaultScenario().pricing.electricityUsdPerKwh);
            QCOMPARE(s.currencySymbol(), QStringLiteral("$"));
            QCOMPARE(gp::scenarioToJson(s.newScenario()), gp::scenarioToJson(gp::defaultScenario()));
            s.setDefaultPricingModel(gp::PricingModel::Spot);
            s.setElectricityUsdPerKwh(0.31);
            s.setCurrencySymbol(QStringLiteral("€"));
            s.setRecentFiles({QStringLiteral("/a"), QStringLiteral("/b")});
            s.sync();
        }
        Settings s(ini);
        QVERIFY(s.defaultPricingModel() == gp::PricingModel::Spot);
        QCOMPARE(s.electricityUsdPerKwh(), 0.31);
        QCOMPARE(s.currencySymbol(), QStringLiteral("€"));
        QCOMPARE(s.recentFiles(), (QStringList{QStringLiteral("/a"), QStringLiteral("/b")}));
        QVERIFY(s.newScenario().pricing.model == gp::PricingModel::Spot);
        QCOMPARE(s.newScenario().pricing.electricityUsdPerKwh, 0.31);
    }

    void parseParamCount_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<double>("expected"); // 0 = not a count
        QTest::addRow("13B") << "13B" << 13e9;
        QTest::addRow("70b") << "70b" << 70e9;
        QTest::addRow("1.5T") << "1.5T" << 1.5e12;
        QTest::addRow("124M") << "124M" << 124e6;
        QTest::addRow("350k") << "350k" << 350e3;
        QTest::addRow("7e9") << "7e9" << 7e9;
        QTest::addRow("spaces") << " 8 000 000 000 " << 8e9;
        QTest::addRow("commas") << "405,000,000,000" << 405e9;
        QTest::addRow("word") << "seventy" << 0.0;
        QTest::addRow("negative") << "-7B" << 0.0;
        QTest::addRow("empty") << "" << 0.0;
        QTest::addRow("two units") << "7BB" << 0.0;
    }
    void parseParamCount()
    {
        QFETCH(QString, text);
        QFETCH(double, expected);
        const auto v = gp::ui::parseParamCount(text);
        if (expected == 0)
            QVERIFY(!v.has_value());
        else
            QCOMPARE(v.value_or(-1), expected);
    }

    void formatting()
    {
        QCOMPARE(formatNumber(12345.6, 3), QStringLiteral("12,346"));
        QCOMPARE(formatNumber(3.14159, 3), QStringLiteral("3.14"));
        QCOMPARE(formatNumber(0.04123, 3), QStringLiteral("0.0412"));
        QCOMPARE(formatNumber(2.0, 3), QStringLiteral("2"));
        QCOMPARE(formatMoney(1234.4), QStringLiteral("$1,234"));
        QCOMPARE(formatMoney(9.456, QStringLiteral("€")), QStringLiteral("€9.46"));
        QCOMPARE(formatCount(8.03e9), QStringLiteral("8.03B"));
        QCOMPARE(formatHours(0.5), QStringLiteral("30 min"));
        QCOMPARE(formatHours(72), QStringLiteral("3 days"));
    }

    void explicitJsonRoundTripsThroughTheCore()
    {
        const gp::ModelArch* m = gp::findPreset("mixtral-8x7b");
        QVERIFY(m);
        gp::ModelSpec spec;
        spec.form = gp::ModelSpec::Form::Explicit;
        spec.jsonText = explicitJsonFor(*m);
        const gp::ModelArch back = gp::resolveModel(spec);
        QCOMPARE(back.layers, m->layers);
        QCOMPARE(back.moe.experts, m->moe.experts);
        QVERIFY(std::abs(back.totalParams() / m->totalParams() - 1) < 0.01);
    }

    void overlayMergeValidatesAndWritesAtomically()
    {
        const QString path = m_dir.filePath(QStringLiteral("cfg/overlay.json"));
        const nlohmann::json price = {{"id", "nvidia-h100-sxm"}, {"price_hour_usd", {{"typical", 1.75}}}};
        QCOMPARE(mergeIntoOverlay(path, {price}), QString());
        const nlohmann::json more = {{"id", "nvidia-h100-sxm"}, {"price_hour_usd", {{"spot", 1.1}}}};
        QCOMPARE(mergeIntoOverlay(path, {more}), QString());
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        gp::Catalog c = gp::Catalog::builtin();
        c.applyOverlayText(f.readAll().toStdString(), "test");
        f.close();
        QCOMPARE(c.find("nvidia-h100-sxm")->pricePerHour.typical, 1.75); // first edit kept
        QCOMPARE(c.find("nvidia-h100-sxm")->pricePerHour.spot.value_or(0), 1.1);

        // A bad entry is refused with the core's message and the file stays as it was.
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray before = f.readAll();
        f.close();
        const nlohmann::json bad = {{"id", "acme-x1"}, {"name", "Acme"}}; // lacks memory_gb etc.
        const QString error = mergeIntoOverlay(path, {bad});
        QVERIFY(error.contains(QStringLiteral("memory_gb")));
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), before);
        f.close();

        // And the loader the CLI and the app share picks the overlay up.
        qputenv("GPUPLANNER_CATALOG_OVERLAY", path.toUtf8());
        const gp::UserCatalogLoad loaded = gp::loadCatalogWithUserOverlay(gp::BadOverlay::Report);
        QVERIFY(loaded.problems.empty());
        QVERIFY(loaded.overlayApplied);
        QCOMPARE(loaded.catalog.find("nvidia-h100-sxm")->pricePerHour.typical, 1.75);
        QCOMPARE(removeOverlay(path), QString());
        QVERIFY(!QFile::exists(path));
        qunsetenv("GPUPLANNER_CATALOG_OVERLAY");
    }
};

QTEST_MAIN(TestSupport)
#include "tst_support.moc"
