// The GPU catalog's user overlay (change a price, recompute a tier, add or
// remove a GPU, refuse broken or huge documents) and catalogs read from JSON
// text (a minimal entry, the errors, every problem reported).
#include <QtTest>

#include "catalog_fixtures.h"

class TestCatalogOverlay : public QObject {
    Q_OBJECT

private slots:
    void overlayChangesPrice();
    void overlayRecomputesTier();
    void overlayAddsGpu();
    void overlayRemovesGpu();
    void overlayRejects_data();
    void overlayRejects();
    void overlayRejectsHugeDocument();

    void fromJsonTextMinimalEntry();
    void fromJsonTextErrors_data();
    void fromJsonTextErrors();
    void fromJsonTextReportsEveryProblem();
};

// --- overlay -----------------------------------------------------------------

void TestCatalogOverlay::overlayChangesPrice()
{
    gp::Catalog catalog = gp::Catalog::builtin();
    catalog.applyOverlayText(R"([{"id": "nvidia-h100-sxm", "price_hour_usd": {"typical": 2.5, "spot": null}}])",
                             "overlay.json");
    QCOMPARE(catalog.gpus().size(), std::size_t(48));
    const gp::Gpu* h100 = catalog.find("nvidia-h100-sxm");
    QVERIFY(h100);
    QCOMPARE(h100->pricePerHour.typical, 2.5);
    QVERIFY(!h100->pricePerHour.spot.has_value());
    // Only the named keys change; the rest of the entry (and its price) stays.
    QCOMPARE(h100->pricePerHour.low, 1.85);
    QCOMPARE(h100->pricePerHour.high, 6.88);
    QCOMPARE(h100->peakFlops(gp::DType::BF16), 989.4e12);
    QCOMPARE(h100->tier, gp::Tier::TrainingDatacenter);
    QVERIFY(h100->userDefined);
    QVERIFY(!catalog.find("nvidia-h200-sxm")->userDefined);
    // The overlay works on a copy; the built-in catalog is untouched.
    QCOMPARE(builtinGpu("nvidia-h100-sxm").pricePerHour.typical, 2.99);
    QVERIFY(!builtinGpu("nvidia-h100-sxm").userDefined);
}

void TestCatalogOverlay::overlayRecomputesTier()
{
    gp::Catalog catalog = gp::Catalog::builtin();
    catalog.applyOverlayText(R"([
        {"id": "nvidia-h200-sxm", "bf16_tflops": 2400, "year": 2025},
        {"id": "nvidia-l40s", "memory_type": "HBM3", "memory_gb": 96}
    ])",
                             "overlay.json");
    QCOMPARE(catalog.find("nvidia-h200-sxm")->tier, gp::Tier::Frontier);
    QCOMPARE(catalog.find("nvidia-h200-sxm")->peakFlops(gp::DType::BF16), 2400e12);
    QCOMPARE(catalog.find("nvidia-l40s")->tier, gp::Tier::TrainingDatacenter);
    QCOMPARE(catalog.find("nvidia-l40s")->memoryBytes(), 96e9);
}

void TestCatalogOverlay::overlayAddsGpu()
{
    gp::Catalog catalog = gp::Catalog::builtin();
    catalog.applyOverlayText("[" + kCustomEntry + "]", "overlay.json");
    QCOMPARE(catalog.gpus().size(), std::size_t(49));
    const gp::Gpu& g = catalog.gpus().back();
    QCOMPARE(QString::fromStdString(g.id), "acme-x1");
    QCOMPARE(catalog.find("acme-x1"), &g);
    QCOMPARE(QString::fromStdString(g.name), "Acme X1 64GB");
    QCOMPARE(g.memoryBytes(), 64e9);
    QCOMPARE(g.bandwidthGbps, 2000.0);
    QCOMPARE(g.peakFlops(gp::DType::BF16), 500e12);
    QVERIFY(!g.supports(gp::DType::FP8));
    QCOMPARE(g.pricePerHour.typical, 1.5);
    QCOMPARE(QString::fromStdString(g.pricePerHour.providers), "Acme cloud");
    QVERIFY(g.userDefined);
    // Category defaults to datacenter; HBM + bf16 >= 300 makes it a training part.
    QCOMPARE(QString::fromStdString(g.category), "datacenter");
    QCOMPARE(g.tier, gp::Tier::TrainingDatacenter);
    QCOMPARE(g.pcieGbps(), 16.0);
}

void TestCatalogOverlay::overlayRemovesGpu()
{
    gp::Catalog catalog = gp::Catalog::builtin();
    catalog.applyOverlayText(R"([{"id": "nvidia-t4", "remove": true}, {"id": "nvidia-l4", "remove": false}])",
                             "overlay.json");
    QCOMPARE(catalog.gpus().size(), std::size_t(47));
    QCOMPARE(catalog.find("nvidia-t4"), nullptr);
    QCOMPARE(QString::fromStdString(catalog.gpus().front().id), "nvidia-l4");
    // "remove": false is a (no-op) update, still marked as touched by the user.
    QVERIFY(catalog.find("nvidia-l4")->userDefined);
    QVERIFY(gp::Catalog::builtin().find("nvidia-t4"));
}

void TestCatalogOverlay::overlayRejects_data()
{
    QTest::addColumn<QString>("overlay");
    QTest::addColumn<QString>("path");    // first diagnostic's path
    QTest::addColumn<QString>("message"); // substring of its message

    QTest::addRow("negative memory") << R"([{"id": "nvidia-h100-sxm", "memory_gb": -4}])"
                                     << "overlay.json[0].memory_gb" << "must be a positive number, got -4";
    QTest::addRow("zero bandwidth") << R"([{"id": "nvidia-h100-sxm", "memory_bandwidth_gbps": 0}])"
                                    << "overlay.json[0].memory_bandwidth_gbps" << "must be a positive number, got 0";
    QTest::addRow("string for number") << R"([{"id": "nvidia-h100-sxm", "bf16_tflops": "fast"}])"
                                       << "overlay.json[0].bf16_tflops" << "got \"fast\"";
    QTest::addRow("number for string") << R"([{"id": "nvidia-h100-sxm", "name": 42}])"
                                       << "overlay.json[0].name" << "must be a non-empty string, got 42";
    QTest::addRow("bool type") << R"([{"id": "nvidia-h100-sxm", "ecc": "yes"}])"
                               << "overlay.json[0].ecc" << "must be true or false";
    QTest::addRow("unknown key") << R"([{"id": "nvidia-h100-sxm", "memroy_gb": 90}])"
                                 << "overlay.json[0].memroy_gb" << "unknown key";
    QTest::addRow("unknown price key") << R"([{"id": "nvidia-h100-sxm", "price_hour_usd": {"typcial": 2}}])"
                                       << "overlay.json[0].price_hour_usd.typcial" << "unknown key";
    QTest::addRow("negative price") << R"([{"id": "nvidia-h100-sxm", "price_hour_usd": {"typical": -1}}])"
                                    << "overlay.json[0].price_hour_usd.typical" << "must be a number >= 0";
    QTest::addRow("bad category") << R"([{"id": "nvidia-h100-sxm", "category": "server"}])"
                                  << "overlay.json[0].category" << "got \"server\"";
    QTest::addRow("year not integer") << R"([{"id": "nvidia-h100-sxm", "year": 2024.5}])"
                                      << "overlay.json[0].year" << "must be an integer";
    QTest::addRow("sources not strings") << R"([{"id": "nvidia-h100-sxm", "sources": ["a", 2]}])"
                                         << "overlay.json[0].sources[1]" << "must be a string, got 2";
    QTest::addRow("invalid json") << R"([{"id": "nvidia-h100-sxm",}])"
                                  << "overlay.json" << "invalid JSON at byte 27";
    QTest::addRow("empty document") << "" << "overlay.json" << "invalid JSON at byte";
    QTest::addRow("number overflow") << R"([{"id": "nvidia-h100-sxm", "tdp_w": 1e999}])"
                                     << "overlay.json" << "invalid JSON";
    QTest::addRow("not an array") << R"({"id": "nvidia-h100-sxm"})"
                                  << "overlay.json" << "expected a JSON array";
    QTest::addRow("entry not an object") << R"([42])" << "overlay.json[0]" << "expected an object";
    QTest::addRow("missing id") << R"([{"name": "X"}])" << "overlay.json[0].id" << "missing required key";
    QTest::addRow("bad id") << R"([{"id": "My GPU"}])" << "overlay.json[0].id" << "lowercase letters";
    QTest::addRow("new id missing fields") << R"([{"id": "my-gpu", "name": "Mine"}])"
                                           << "overlay.json[0].memory_gb" << "missing required key";
    QTest::addRow("new id without compute")
        << R"([{"id": "my-gpu", "name": "Mine", "memory_gb": 8, "memory_bandwidth_gbps": 100}])"
        << "overlay.json[0]" << "fp32_tflops";
    QTest::addRow("update removes all compute")
        << R"([{"id": "google-tpu-v5e", "bf16_tflops": null, "int8_tops": 0}])" << "overlay.json[0]"
        << "needs at least one compute peak";
    QTest::addRow("remove unknown id") << R"([{"id": "nvidia-h100-sx", "remove": true}])"
                                       << "overlay.json[0].id" << "did you mean \"nvidia-h100-sxm\"";
    QTest::addRow("remove not bool") << R"([{"id": "nvidia-t4", "remove": "yes"}])"
                                     << "overlay.json[0].remove" << "must be true or false";
    QTest::addRow("remove with fields") << R"([{"id": "nvidia-t4", "remove": true, "memory_gb": 16}])"
                                        << "overlay.json[0].remove" << "only \"id\" and \"remove\"";
    QTest::addRow("duplicate id") << R"([{"id": "nvidia-t4", "tdp_w": 75}, {"id": "nvidia-t4", "tdp_w": 80}])"
                                  << "overlay.json[1].id" << "more than once";
    // Atomicity: the first entry is fine, the second is not, so nothing applies.
    QTest::addRow("good then bad")
        << R"([{"id": "nvidia-t4", "remove": true}, {"id": "nvidia-h100-sxm", "price_hour_usd": {"typical": "cheap"}}])"
        << "overlay.json[1].price_hour_usd.typical" << "got \"cheap\"";
    QTest::addRow("too deep") << QString(40, '[') + QString(40, ']') << "overlay.json" << "nesting deeper than";
}

void TestCatalogOverlay::overlayRejects()
{
    QFETCH(QString, overlay);
    QFETCH(QString, path);
    QFETCH(QString, message);

    gp::Catalog catalog = gp::Catalog::builtin();
    const gp::InputError e = expectInputError([&] { catalog.applyOverlayText(overlay.toStdString(), "overlay.json"); });
    QVERIFY(!e.problems().empty());
    const gp::Diagnostic& first = e.problems().front();
    QCOMPARE(QString::fromStdString(first.path), path);
    QVERIFY2(QString::fromStdString(first.message).contains(message), first.message.c_str());
    // what() carries "path: message" so front ends can print it as is.
    QVERIFY(QString::fromUtf8(e.what()).contains(path + ": "));

    // Unchanged: same size, same values, nothing marked as user-defined.
    QCOMPARE(catalog.gpus().size(), std::size_t(48));
    QVERIFY(catalog.find("nvidia-t4"));
    QCOMPARE(catalog.find("nvidia-h100-sxm")->pricePerHour.typical, 2.99);
    QCOMPARE(catalog.find("nvidia-h100-sxm")->memoryGb, 80.0);
    for (const auto& g : catalog.gpus())
        QVERIFY2(!g.userDefined, g.id.c_str());
}

void TestCatalogOverlay::overlayRejectsHugeDocument()
{
    gp::Catalog catalog = gp::Catalog::builtin();
    const std::string huge = "[\"" + std::string(16u * 1024u * 1024u, 'x') + "\"]";
    const gp::InputError e = expectInputError([&] { catalog.applyOverlayText(huge, "big.json"); });
    QCOMPARE(QString::fromStdString(e.problems().front().path), "big.json");
    QVERIFY(QString::fromStdString(e.problems().front().message).contains("16 MB"));
    QCOMPARE(catalog.gpus().size(), std::size_t(48));
}

// --- fromJsonText --------------------------------------------------------------

void TestCatalogOverlay::fromJsonTextMinimalEntry()
{
    const gp::Catalog catalog = gp::Catalog::fromJsonText(
        R"([{"id": "tiny-1", "name": "Tiny", "memory_gb": 8, "memory_bandwidth_gbps": 256,
             "fp16_tflops": 20, "bf16_tflops": null, "mig_max_instances": null, "pcie_gen": 4}])",
        "tiny.json");
    QCOMPARE(catalog.gpus().size(), std::size_t(1));
    const gp::Gpu& g = catalog.gpus().front();
    QCOMPARE(QString::fromStdString(g.id), "tiny-1");
    QCOMPARE(g.peakFlops(gp::DType::FP16), 20e12);
    QCOMPARE(g.peakFlops(gp::DType::BF16), 0.0);
    QCOMPARE(g.migMaxInstances, 0);
    QCOMPARE(g.pcieGbps(), 32.0);
    QCOMPARE(g.pricePerHour.typical, 0.0);
    QCOMPARE(g.tier, gp::Tier::InferenceDatacenter);
    QVERIFY(!g.userDefined);
}

void TestCatalogOverlay::fromJsonTextErrors_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("message");

    const QString ok = R"("name": "Foo", "memory_gb": 16, "memory_bandwidth_gbps": 100, "fp16_tflops": 10)";
    QTest::addRow("negative memory")
        << R"([{"id": "nvidia-foo", "name": "Foo", "memory_gb": -4, "memory_bandwidth_gbps": 100, "fp16_tflops": 10}])"
        << "cat[0].memory_gb" << "must be a positive number, got -4";
    QTest::addRow("bandwidth as string")
        << R"([{"id": "nvidia-foo", "name": "Foo", "memory_gb": 16, "memory_bandwidth_gbps": "fast", "fp16_tflops": 10}])"
        << "cat[0].memory_bandwidth_gbps" << "got \"fast\"";
    QTest::addRow("negative peak") << "[{\"id\": \"a\", " + ok + ", \"fp8_tflops\": -1}]"
                                   << "cat[0].fp8_tflops" << "must be a number >= 0 or null, got -1";
    QTest::addRow("missing name")
        << R"([{"id": "nvidia-foo", "memory_gb": 16, "memory_bandwidth_gbps": 100, "fp16_tflops": 10}])"
        << "cat[0].name" << "missing required key";
    QTest::addRow("missing bandwidth")
        << R"([{"id": "nvidia-foo", "name": "Foo", "memory_gb": 16, "fp16_tflops": 10}])"
        << "cat[0].memory_bandwidth_gbps" << "missing required key";
    QTest::addRow("no compute")
        << R"([{"id": "nvidia-foo", "name": "Foo", "memory_gb": 16, "memory_bandwidth_gbps": 100}])"
        << "cat[0]" << "needs at least one compute peak";
    QTest::addRow("duplicate id") << "[{\"id\": \"a\", " + ok + "}, {\"id\": \"a\", " + ok + "}]"
                                  << "cat[1].id" << "duplicate id \"a\" (first used at cat[0])";
    QTest::addRow("remove not allowed") << "[{\"id\": \"a\", " + ok + ", \"remove\": true}]"
                                        << "cat[0].remove" << "unknown key";
    QTest::addRow("unknown key in second entry") << "[{\"id\": \"a\", " + ok + "}, {\"id\": \"b\", " + ok + ", \"colour\": 1}]"
                                                 << "cat[1].colour" << "unknown key";
    QTest::addRow("unknown sparse key") << "[{\"id\": \"a\", " + ok + ", \"sparse\": {\"fp6\": 1}}]"
                                        << "cat[0].sparse.fp6" << "unknown key";
    QTest::addRow("pcie gen out of range") << "[{\"id\": \"a\", " + ok + ", \"pcie_gen\": 9}]"
                                           << "cat[0].pcie_gen" << "from 1 to 7 or null, got 9";
    QTest::addRow("uncertain_fields not list") << "[{\"id\": \"a\", " + ok + ", \"uncertain_fields\": \"x\"}]"
                                               << "cat[0].uncertain_fields" << "must be an array of strings";
    QTest::addRow("id with capitals") << "[{\"id\": \"Nvidia-Foo\", " + ok + "}]"
                                      << "cat[0].id" << "got \"Nvidia-Foo\"";
    QTest::addRow("entry not object") << "[[1]]" << "cat[0]" << "expected an object";
    QTest::addRow("object not array") << "{}" << "cat" << "expected a JSON array of GPU entries, got object";
    QTest::addRow("truncated") << R"([{"id": "a")" << "cat" << "invalid JSON at byte 12";
    QTest::addRow("comment") << "// hi\n[]" << "cat" << "invalid JSON at byte 1";
}

void TestCatalogOverlay::fromJsonTextErrors()
{
    QFETCH(QString, text);
    QFETCH(QString, path);
    QFETCH(QString, message);
    const gp::InputError e = expectInputError([&] { gp::Catalog::fromJsonText(text.toStdString(), "cat"); });
    QVERIFY(!e.problems().empty());
    const gp::Diagnostic& first = e.problems().front();
    QCOMPARE(QString::fromStdString(first.path), path);
    QVERIFY2(QString::fromStdString(first.message).contains(message), first.message.c_str());
}

void TestCatalogOverlay::fromJsonTextReportsEveryProblem()
{
    const gp::InputError e = expectInputError([] {
        gp::Catalog::fromJsonText(
            R"([{"id": "a", "name": "A", "memory_gb": 0, "memory_bandwidth_gbps": 100, "fp16_tflops": 10},
                {"id": "b", "name": "B", "memory_gb": 8, "memory_bandwidth_gbps": null, "fp16_tflops": 10}])",
            "cat");
    });
    QCOMPARE(e.problems().size(), std::size_t(2));
    QCOMPARE(QString::fromStdString(e.problems()[0].path), "cat[0].memory_gb");
    QCOMPARE(QString::fromStdString(e.problems()[1].path), "cat[1].memory_bandwidth_gbps");
    QCOMPARE(QString::fromStdString(e.problems()[1].message), "must be a positive number, got null");
    QCOMPARE(QString::fromUtf8(e.what()),
             "cat[0].memory_gb: must be a positive number, got 0\n"
             "cat[1].memory_bandwidth_gbps: must be a positive number, got null");
}

QTEST_APPLESS_MAIN(TestCatalogOverlay)
#include "tst_catalogoverlay.moc"
