// The GPU catalog: precision names, the built-in catalog (size, ids, peaks,
// specs, PCIe), tiers, prices and lookup. The user overlay and catalogs read
// from JSON text are in tst_catalogoverlay.cpp.
#include <QtTest>

#include "catalog_fixtures.h"

class TestCatalog : public QObject {
    Q_OBJECT

private slots:
    void precision_data();
    void precision();

    void builtinSize();
    void builtinIds_data();
    void builtinIds();

    void peaks_data();
    void peaks();
    void specs_data();
    void specs();
    void nullsBecomeZero();
    void pcieGbps_data();
    void pcieGbps();

    void tiers_data();
    void tiers();
    void tierCounts();
    void tierNames_data();
    void tierNames();

    void prices();
    void lookup();
    void closestId_data();
    void closestId();

};

// --- precision --------------------------------------------------------------

void TestCatalog::precision_data()
{
    QTest::addColumn<gp::DType>("dtype");
    QTest::addColumn<double>("bytes");
    QTest::addColumn<QString>("name");
    QTest::addRow("fp32") << gp::DType::FP32 << 4.0 << "fp32";
    QTest::addRow("tf32") << gp::DType::TF32 << 4.0 << "tf32";
    QTest::addRow("fp16") << gp::DType::FP16 << 2.0 << "fp16";
    QTest::addRow("bf16") << gp::DType::BF16 << 2.0 << "bf16";
    QTest::addRow("fp8") << gp::DType::FP8 << 1.0 << "fp8";
    QTest::addRow("int8") << gp::DType::INT8 << 1.0 << "int8";
    QTest::addRow("int4") << gp::DType::INT4 << 0.5 << "int4";
    QTest::addRow("fp4") << gp::DType::FP4 << 0.5 << "fp4";
}

void TestCatalog::precision()
{
    QFETCH(gp::DType, dtype);
    QFETCH(double, bytes);
    QFETCH(QString, name);
    QCOMPARE(gp::bytesPerElement(dtype), bytes);
    QCOMPARE(QString::fromUtf8(gp::dtypeName(dtype)), name);
}

// --- built-in catalog -------------------------------------------------------

void TestCatalog::builtinSize()
{
    const auto& catalog = gp::Catalog::builtin();
    QCOMPARE(catalog.gpus().size(), std::size_t(48));
    // Parsed once: every call hands out the same object.
    QCOMPARE(&gp::Catalog::builtin(), &catalog);
    // Reference order is kept (the UI lists GPUs in it).
    QCOMPARE(QString::fromStdString(catalog.gpus().front().id), "nvidia-t4");
    QCOMPARE(QString::fromStdString(catalog.gpus().back().id), "google-tpu-v7-ironwood");
    for (const auto& g : catalog.gpus())
        QVERIFY2(!g.userDefined, g.id.c_str());
}

void TestCatalog::builtinIds_data()
{
    QTest::addColumn<QString>("id");
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("vendor");
    QTest::addRow("t4") << "nvidia-t4" << "Tesla T4" << "NVIDIA";
    QTest::addRow("h100") << "nvidia-h100-sxm" << "H100 SXM5 80GB" << "NVIDIA";
    QTest::addRow("h200") << "nvidia-h200-sxm" << "H200 SXM 141GB" << "NVIDIA";
    QTest::addRow("a100") << "nvidia-a100-80gb-sxm" << "A100 80GB SXM4" << "NVIDIA";
    QTest::addRow("l40s") << "nvidia-l40s" << "L40S" << "NVIDIA";
    QTest::addRow("b200") << "nvidia-b200" << "B200 (HGX, 1000 W)" << "NVIDIA";
    QTest::addRow("4090") << "nvidia-rtx-4090" << "GeForce RTX 4090 24GB" << "NVIDIA";
    QTest::addRow("a6000") << "nvidia-rtx-a6000" << "RTX A6000" << "NVIDIA";
    QTest::addRow("mi300x") << "amd-mi300x" << "Instinct MI300X" << "AMD";
    QTest::addRow("gaudi3") << "intel-gaudi3" << "Gaudi 3 (HL-325L OAM)" << "Intel";
    QTest::addRow("v6e") << "google-tpu-v6e" << "TPU v6e Trillium (per chip)" << "Google";
}

void TestCatalog::builtinIds()
{
    QFETCH(QString, id);
    QFETCH(QString, name);
    QFETCH(QString, vendor);
    const gp::Gpu* g = gp::Catalog::builtin().find(id.toStdString());
    QVERIFY(g);
    QCOMPARE(QString::fromStdString(g->id), id);
    QCOMPARE(QString::fromStdString(g->name), name);
    QCOMPARE(QString::fromStdString(g->vendor), vendor);
}

void TestCatalog::peaks_data()
{
    QTest::addColumn<QString>("id");
    QTest::addColumn<gp::DType>("dtype");
    QTest::addColumn<double>("flops");
    QTest::addRow("h100 bf16") << "nvidia-h100-sxm" << gp::DType::BF16 << 989.4e12;
    QTest::addRow("h100 fp8") << "nvidia-h100-sxm" << gp::DType::FP8 << 1978.9e12;
    QTest::addRow("h100 tf32") << "nvidia-h100-sxm" << gp::DType::TF32 << 494.7e12;
    QTest::addRow("h100 fp32") << "nvidia-h100-sxm" << gp::DType::FP32 << 67e12;
    QTest::addRow("h100 fp4 unsupported") << "nvidia-h100-sxm" << gp::DType::FP4 << 0.0;
    QTest::addRow("h100 int4 dropped by Hopper") << "nvidia-h100-sxm" << gp::DType::INT4 << 0.0;
    QTest::addRow("t4 fp16") << "nvidia-t4" << gp::DType::FP16 << 65e12;
    QTest::addRow("t4 bf16 unsupported") << "nvidia-t4" << gp::DType::BF16 << 0.0;
    QTest::addRow("t4 tf32 unsupported") << "nvidia-t4" << gp::DType::TF32 << 0.0;
    QTest::addRow("t4 int8") << "nvidia-t4" << gp::DType::INT8 << 130e12;
    QTest::addRow("t4 int4 = 2x int8 (Turing)") << "nvidia-t4" << gp::DType::INT4 << 260e12;
    QTest::addRow("a100 fp8 unsupported") << "nvidia-a100-80gb-sxm" << gp::DType::FP8 << 0.0;
    QTest::addRow("a100 bf16") << "nvidia-a100-80gb-sxm" << gp::DType::BF16 << 312e12;
    QTest::addRow("a100 int4 (Ampere)") << "nvidia-a100-80gb-sxm" << gp::DType::INT4 << 1248e12;
    QTest::addRow("l4 fp8") << "nvidia-l4" << gp::DType::FP8 << 242.5e12;
    QTest::addRow("4090 bf16") << "nvidia-rtx-4090" << gp::DType::BF16 << 165.2e12;
    QTest::addRow("4090 int4 (Ada)") << "nvidia-rtx-4090" << gp::DType::INT4 << 1321.2e12;
    QTest::addRow("b200 fp4") << "nvidia-b200" << gp::DType::FP4 << 9000e12;
    QTest::addRow("b300 int8 cut") << "nvidia-b300" << gp::DType::INT8 << 150e12;
    QTest::addRow("mi300x bf16") << "amd-mi300x" << gp::DType::BF16 << 1307.4e12;
    QTest::addRow("mi300x int4 (not NVIDIA)") << "amd-mi300x" << gp::DType::INT4 << 0.0;
    QTest::addRow("gaudi3 fp8 = bf16") << "intel-gaudi3" << gp::DType::FP8 << 1835e12;
    QTest::addRow("gaudi3 fp32 null") << "intel-gaudi3" << gp::DType::FP32 << 0.0;
    QTest::addRow("v5e fp16 none (bf16 only)") << "google-tpu-v5e" << gp::DType::FP16 << 0.0;
    QTest::addRow("v5e bf16") << "google-tpu-v5e" << gp::DType::BF16 << 197e12;
}

void TestCatalog::peaks()
{
    QFETCH(QString, id);
    QFETCH(gp::DType, dtype);
    QFETCH(double, flops);
    const gp::Gpu& g = builtinGpu(id.toUtf8().constData());
    QCOMPARE(g.peakFlops(dtype), flops);
    QCOMPARE(g.supports(dtype), flops > 0);
}

void TestCatalog::specs_data()
{
    QTest::addColumn<QString>("id");
    QTest::addColumn<double>("memoryBytes");
    QTest::addColumn<double>("bandwidthGbps");
    QTest::addColumn<double>("tdpW");
    QTest::addColumn<double>("interconnectGbps");
    QTest::addColumn<int>("pcieGen");
    QTest::addColumn<int>("mig");
    QTest::addColumn<bool>("ecc");
    QTest::addColumn<int>("year");
    QTest::addRow("h100") << "nvidia-h100-sxm" << 80e9 << 3350.0 << 700.0 << 900.0 << 5 << 7 << true << 2022;
    QTest::addRow("h200") << "nvidia-h200-sxm" << 141e9 << 4800.0 << 700.0 << 900.0 << 5 << 7 << true << 2024;
    QTest::addRow("t4") << "nvidia-t4" << 16e9 << 320.0 << 70.0 << 0.0 << 3 << 0 << true << 2018;
    QTest::addRow("4090") << "nvidia-rtx-4090" << 24e9 << 1008.0 << 450.0 << 0.0 << 4 << 0 << false << 2022;
    QTest::addRow("mi300x") << "amd-mi300x" << 192e9 << 5300.0 << 750.0 << 896.0 << 5 << 8 << true << 2023;
    QTest::addRow("v5e") << "google-tpu-v5e" << 16e9 << 819.0 << 0.0 << 400.0 << 0 << 0 << true << 2023;
}

void TestCatalog::specs()
{
    QFETCH(QString, id);
    QFETCH(double, memoryBytes);
    QFETCH(double, bandwidthGbps);
    QFETCH(double, tdpW);
    QFETCH(double, interconnectGbps);
    QFETCH(int, pcieGen);
    QFETCH(int, mig);
    QFETCH(bool, ecc);
    QFETCH(int, year);
    const gp::Gpu& g = builtinGpu(id.toUtf8().constData());
    QCOMPARE(g.memoryBytes(), memoryBytes);
    QCOMPARE(g.bandwidthGbps, bandwidthGbps);
    QCOMPARE(g.tdpW, tdpW);
    QCOMPARE(g.interconnectGbps, interconnectGbps);
    QCOMPARE(g.pcieGen, pcieGen);
    QCOMPARE(g.migMaxInstances, mig);
    QCOMPARE(g.ecc, ecc);
    QCOMPARE(g.year, year);
}

void TestCatalog::nullsBecomeZero()
{
    // amd-mi210 has null prices and purchase; the TPU v5e has null TDP and PCIe.
    const gp::Gpu& mi210 = builtinGpu("amd-mi210");
    QCOMPARE(mi210.pricePerHour.typical, 0.0);
    QCOMPARE(mi210.pricePerHour.low, 0.0);
    QVERIFY(!mi210.pricePerHour.spot.has_value());
    QCOMPARE(mi210.purchaseUsd, 0.0);
    QCOMPARE(mi210.tf32Tflops, 0.0);

    const gp::Gpu& t4 = builtinGpu("nvidia-t4");
    QCOMPARE(QString::fromStdString(t4.interconnect), "none");
    QCOMPARE(t4.interconnectGbps, 0.0);
    QCOMPARE(QString::fromStdString(t4.category), "datacenter");
    QCOMPARE(QString::fromStdString(t4.architecture), "Turing (TU104)");
    QCOMPARE(QString::fromStdString(t4.confidence), "high");
    QCOMPARE(t4.uncertainFields, (std::vector<std::string>{"purchase_usd", "price_hour_usd.spot"}));
    QVERIFY(t4.isTpu() == false);
    QVERIFY(builtinGpu("google-tpu-v5e").isTpu());
}

void TestCatalog::pcieGbps_data()
{
    QTest::addColumn<QString>("id");
    QTest::addColumn<double>("gbps");
    QTest::addRow("t4 gen3") << "nvidia-t4" << 16.0;
    QTest::addRow("a100 gen4") << "nvidia-a100-80gb-sxm" << 32.0;
    QTest::addRow("h100 gen5") << "nvidia-h100-sxm" << 64.0;
    QTest::addRow("b300 gen6") << "nvidia-b300" << 128.0;
    QTest::addRow("v5e unknown -> gen3") << "google-tpu-v5e" << 16.0;
}

void TestCatalog::pcieGbps()
{
    QFETCH(QString, id);
    QFETCH(double, gbps);
    QCOMPARE(builtinGpu(id.toUtf8().constData()).pcieGbps(), gbps);
}

// --- tiers -------------------------------------------------------------------

void TestCatalog::tiers_data()
{
    QTest::addColumn<QString>("id");
    QTest::addColumn<gp::Tier>("tier");
    using gp::Tier;
    const std::pair<const char*, Tier> table[] = {
        {"nvidia-rtx-3060-12gb", Tier::Consumer},
        {"nvidia-rtx-4090", Tier::Consumer},
        {"nvidia-rtx-5090", Tier::Consumer},
        {"nvidia-rtx-a4000", Tier::Workstation},
        {"nvidia-rtx-6000-ada", Tier::Workstation},
        {"nvidia-rtx-pro-6000-blackwell", Tier::Workstation},
        {"nvidia-t4", Tier::InferenceDatacenter},
        {"nvidia-l4", Tier::InferenceDatacenter},
        {"nvidia-a10", Tier::InferenceDatacenter},
        {"nvidia-a10g", Tier::InferenceDatacenter},
        {"nvidia-a30", Tier::InferenceDatacenter},
        {"nvidia-a40", Tier::InferenceDatacenter},
        {"nvidia-l40", Tier::InferenceDatacenter},
        {"nvidia-l40s", Tier::InferenceDatacenter},
        {"google-tpu-v5e", Tier::InferenceDatacenter},
        {"nvidia-v100-sxm2-16gb", Tier::TrainingDatacenter},
        {"nvidia-v100-sxm2-32gb", Tier::TrainingDatacenter},
        {"nvidia-a100-40gb-pcie", Tier::TrainingDatacenter},
        {"nvidia-a100-80gb-sxm", Tier::TrainingDatacenter},
        {"nvidia-h100-pcie", Tier::TrainingDatacenter},
        {"nvidia-h100-sxm", Tier::TrainingDatacenter},
        {"nvidia-h100-nvl", Tier::TrainingDatacenter},
        {"nvidia-h200-sxm", Tier::TrainingDatacenter},
        {"nvidia-gh200", Tier::TrainingDatacenter},
        {"amd-mi250x", Tier::TrainingDatacenter},
        {"amd-mi300x", Tier::TrainingDatacenter},
        {"amd-mi325x", Tier::TrainingDatacenter},
        {"intel-gaudi2", Tier::TrainingDatacenter},
        {"intel-gaudi3", Tier::TrainingDatacenter},
        {"google-tpu-v5p", Tier::TrainingDatacenter},
        {"google-tpu-v6e", Tier::TrainingDatacenter},
        {"google-tpu-v7-ironwood", Tier::TrainingDatacenter},
        {"nvidia-b200", Tier::Frontier},
        {"nvidia-b300", Tier::Frontier},
        {"nvidia-gb200", Tier::Frontier},
        {"nvidia-gb300", Tier::Frontier},
        {"amd-mi355x", Tier::Frontier},
    };
    for (const auto& [id, tier] : table)
        QTest::addRow("%s", id) << QString::fromUtf8(id) << tier;
}

void TestCatalog::tiers()
{
    QFETCH(QString, id);
    QFETCH(gp::Tier, tier);
    const gp::Gpu& g = builtinGpu(id.toUtf8().constData());
    QCOMPARE(QString::fromUtf8(gp::tierName(g.tier)), QString::fromUtf8(gp::tierName(tier)));
}

void TestCatalog::tierCounts()
{
    int counts[5] = {};
    for (const auto& g : gp::Catalog::builtin().gpus())
        ++counts[static_cast<int>(g.tier)];
    QCOMPARE(counts[static_cast<int>(gp::Tier::Consumer)], 8);
    QCOMPARE(counts[static_cast<int>(gp::Tier::Workstation)], 5);
    QCOMPARE(counts[static_cast<int>(gp::Tier::InferenceDatacenter)], 9);
    QCOMPARE(counts[static_cast<int>(gp::Tier::TrainingDatacenter)], 21);
    QCOMPARE(counts[static_cast<int>(gp::Tier::Frontier)], 5);
}

void TestCatalog::tierNames_data()
{
    QTest::addColumn<gp::Tier>("tier");
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("label");
    QTest::addRow("consumer") << gp::Tier::Consumer << "consumer" << "Consumer";
    QTest::addRow("workstation") << gp::Tier::Workstation << "workstation" << "Workstation";
    QTest::addRow("inference") << gp::Tier::InferenceDatacenter << "inference-datacenter" << "Inference data-center";
    QTest::addRow("training") << gp::Tier::TrainingDatacenter << "training-datacenter" << "Training data-center";
    QTest::addRow("frontier") << gp::Tier::Frontier << "frontier" << "Frontier";
}

void TestCatalog::tierNames()
{
    QFETCH(gp::Tier, tier);
    QFETCH(QString, name);
    QFETCH(QString, label);
    QCOMPARE(QString::fromUtf8(gp::tierName(tier)), name);
    QCOMPARE(QString::fromUtf8(gp::tierLabel(tier)), label);
}

// --- prices and lookup ---------------------------------------------------------

void TestCatalog::prices()
{
    const gp::Gpu& h100 = builtinGpu("nvidia-h100-sxm");
    QCOMPARE(h100.pricePerHour.typical, 2.99);
    QCOMPARE(h100.pricePerHour.low, 1.85);
    QCOMPARE(h100.pricePerHour.high, 6.88);
    QVERIFY(h100.pricePerHour.spot.has_value());
    QCOMPARE(*h100.pricePerHour.spot, 1.6);
    QVERIFY(!h100.pricePerHour.providers.empty());
    QCOMPARE(QString::fromStdString(h100.pricePerHour.seen), "2025-08..2026-06");
    QVERIFY(!h100.sources.empty());
    QCOMPARE(QString::fromStdString(h100.sources.front()), "https://www.nvidia.com/en-us/data-center/h100/");
    QCOMPARE(h100.purchaseUsd, 30000.0);
    QVERIFY(!h100.purchaseNote.empty());

    const gp::Gpu& t4 = builtinGpu("nvidia-t4");
    QCOMPARE(t4.pricePerHour.typical, 0.35);
    QCOMPARE(*t4.pricePerHour.spot, 0.14);
    QCOMPARE(t4.purchaseUsd, 1500.0);
}

void TestCatalog::lookup()
{
    const auto& catalog = gp::Catalog::builtin();
    QVERIFY(catalog.find("nvidia-h100-sxm"));
    QCOMPARE(catalog.find("nvidia-h100-sxm"), &catalog.gpus()[15]);
    // Exact match only: no case folding, no prefixes.
    QCOMPARE(catalog.find("NVIDIA-H100-SXM"), nullptr);
    QCOMPARE(catalog.find("nvidia-h100"), nullptr);
    QCOMPARE(catalog.find(""), nullptr);
}

void TestCatalog::closestId_data()
{
    QTest::addColumn<QString>("typed");
    QTest::addColumn<QString>("closest");
    QTest::addRow("exact") << "nvidia-l40s" << "nvidia-l40s";
    QTest::addRow("extra suffix") << "nvidia-h100-sxm5" << "nvidia-h100-sxm";
    QTest::addRow("missing dash") << "nvidia-rtx4090" << "nvidia-rtx-4090";
    QTest::addRow("upper case") << "NVIDIA-T4" << "nvidia-t4";
    QTest::addRow("amd") << "amd-mi300" << "amd-mi300x";
    QTest::addRow("typo") << "intel-guadi3" << "intel-gaudi3";
}

void TestCatalog::closestId()
{
    QFETCH(QString, typed);
    QFETCH(QString, closest);
    QCOMPARE(QString::fromStdString(gp::Catalog::builtin().closestId(typed.toStdString())), closest);
}
QTEST_APPLESS_MAIN(TestCatalog)
#include "tst_catalog.moc"
