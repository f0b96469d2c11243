// The built-in catalog is read from resources/catalog/gpu-catalog.json at
// build time (gp_catalog_table, core/hardware/catalogtable.cpp) and compiled in
// as C++ entries, so no program parses the JSON when it starts (issue #19).
// These entries must be exactly what Catalog::fromJsonText reads from the same
// JSON: every field of every GPU, in the same order.
#include "core/hardware/catalog.h"
#include "core/hardware/catalogio.h"

#include <QtTest>

#include <string>

class TestCatalogTable : public QObject {
    Q_OBJECT
private slots:
    void builtinTableMatchesTheJson()
    {
        const gp::Catalog parsed = gp::Catalog::fromJsonText(gp::detail::builtinCatalogJson(), "catalog");
        const std::vector<gp::Gpu>& table = gp::Catalog::builtin().gpus();
        const std::vector<gp::Gpu>& json = parsed.gpus();
        QCOMPARE(table.size(), json.size());
        QVERIFY(table.size() >= 40);
        for (std::size_t i = 0; i < json.size(); ++i) {
            const gp::Gpu& a = table[i];
            const gp::Gpu& b = json[i];
            QCOMPARE(a.id, b.id);
            QCOMPARE(a.vendor, b.vendor);
            QCOMPARE(a.name, b.name);
            QCOMPARE(a.category, b.category);
            QCOMPARE(a.architecture, b.architecture);
            QCOMPARE(a.formFactor, b.formFactor);
            QCOMPARE(a.memoryGb, b.memoryGb);
            QCOMPARE(a.memoryType, b.memoryType);
            QCOMPARE(a.bandwidthGbps, b.bandwidthGbps);
            QCOMPARE(a.fp32Tflops, b.fp32Tflops);
            QCOMPARE(a.tf32Tflops, b.tf32Tflops);
            QCOMPARE(a.fp16Tflops, b.fp16Tflops);
            QCOMPARE(a.bf16Tflops, b.bf16Tflops);
            QCOMPARE(a.fp8Tflops, b.fp8Tflops);
            QCOMPARE(a.int8Tops, b.int8Tops);
            QCOMPARE(a.fp4Tflops, b.fp4Tflops);
            QCOMPARE(a.tdpW, b.tdpW);
            QCOMPARE(a.interconnect, b.interconnect);
            QCOMPARE(a.interconnectGbps, b.interconnectGbps);
            QCOMPARE(a.pcieGen, b.pcieGen);
            QCOMPARE(a.migMaxInstances, b.migMaxInstances);
            QCOMPARE(a.ecc, b.ecc);
            QCOMPARE(a.year, b.year);
            QCOMPARE(a.pricePerHour.low, b.pricePerHour.low);
            QCOMPARE(a.pricePerHour.typical, b.pricePerHour.typical);
            QCOMPARE(a.pricePerHour.high, b.pricePerHour.high);
            QCOMPARE(a.pricePerHour.spot.has_value(), b.pricePerHour.spot.has_value());
            if (b.pricePerHour.spot)
                QCOMPARE(*a.pricePerHour.spot, *b.pricePerHour.spot);
            QCOMPARE(a.pricePerHour.providers, b.pricePerHour.providers);
            QCOMPARE(a.pricePerHour.seen, b.pricePerHour.seen);
            QCOMPARE(a.purchaseUsd, b.purchaseUsd);
            QCOMPARE(a.purchaseNote, b.purchaseNote);
            QCOMPARE(a.confidence, b.confidence);
            QCOMPARE(a.uncertainFields, b.uncertainFields);
            QCOMPARE(a.sources, b.sources);
            QCOMPARE(a.notes, b.notes);
            QCOMPARE(a.tier, b.tier);
            QCOMPARE(a.userDefined, b.userDefined);
        }
        // Spot checks against the JSON as written (resources/catalog/gpu-catalog.json):
        // the T4's fp32 peak 8.1 TFLOP/s and its spot price $0.14/h.
        const gp::Gpu* t4 = gp::Catalog::builtin().find("nvidia-t4");
        QVERIFY(t4);
        QCOMPARE(t4->fp32Tflops, 8.1);
        QCOMPARE(t4->pricePerHour.spot.value_or(0), 0.14);
    }
};

QTEST_APPLESS_MAIN(TestCatalogTable)
#include "tst_catalogtable.moc"
