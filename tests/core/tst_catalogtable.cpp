// The built-in catalog and calibration table are read from their JSON
// (resources/catalog/gpu-catalog.json, resources/calibration/builtin-calibration.json)
// at build time (gp_catalog_table, gp_calibration_table) and compiled in as C++
// entries, so no program parses the JSON when it starts (issue #19). Those
// entries must be exactly what the readers make of the same JSON: every field
// of every GPU and constant, in the same order.
#include "core/calibration/calibration.h"
#include "core/calibration/calibrationio.h"
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
            QCOMPARE(a.smCount, b.smCount);
            QVERIFY(a.migSms == b.migSms);
            QCOMPARE(a.migSmsSource, b.migSmsSource);
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

    void builtinCalibrationMatchesTheJson()
    {
        const gp::Calibration parsed = gp::detail::parseBuiltinCalibration();
        const gp::Calibration& table = gp::builtinCalibration();
        QCOMPARE(table.entries.size(), parsed.entries.size());
        QCOMPARE(int(table.entries.size()), gp::calibrationConstantCount());
        for (std::size_t i = 0; i < parsed.entries.size(); ++i) {
            const gp::CalibrationEntry& a = table.entries[i];
            const gp::CalibrationEntry& b = parsed.entries[i];
            QCOMPARE(a.id, b.id);
            QCOMPARE(a.value, b.value);
            QCOMPARE(a.unit, b.unit);
            QCOMPARE(a.min, b.min);
            QCOMPARE(a.max, b.max);
            QCOMPARE(a.kind, b.kind);
            QCOMPARE(a.fittedOn, b.fittedOn);
            QCOMPARE(a.form, b.form);
            // The member behind the entry holds the same value: a copy that
            // sets it from the entry reads back every constant (set() writes
            // the member from the id; a wrong slot would leave another one).
            gp::Calibration probe = table;
            QVERIFY(probe.set(a.id, a.value + 1));
            QCOMPARE(probe.find(a.id)->value, a.value + 1);
        }
        QVERIFY(table.warnings.empty());
        QVERIFY(table.source.empty());
        // Every member: the constants, from the first (gemmEffFp32) through the
        // families, are doubles side by side; their bytes are the parse's.
        const auto members = [](const gp::Calibration& c) {
            const char* first = reinterpret_cast<const char*>(&c.gemmEffFp32);
            const char* end = reinterpret_cast<const char*>(&c.families) + sizeof c.families;
            return std::string(first, end);
        };
        QVERIFY(members(table) == members(parsed));
        QCOMPARE(table.gemmEffFp32, parsed.gemmEffFp32);
        QCOMPARE(table.nvlinkBusEff, parsed.nvlinkBusEff);
        for (std::size_t f = 0; f < table.families.size(); ++f) {
            QCOMPARE(table.families[f].gemm16, parsed.families[f].gemm16);
            QCOMPARE(table.families[f].gemm8, parsed.families[f].gemm8);
            QCOMPARE(table.families[f].bandwidth, parsed.families[f].bandwidth);
            QCOMPARE(table.families[f].collective, parsed.families[f].collective);
            QCOMPARE(table.families[f].uncertaintyTraining, parsed.families[f].uncertaintyTraining);
            QCOMPARE(table.families[f].uncertaintyInference, parsed.families[f].uncertaintyInference);
            QCOMPARE(table.families[f].uncertaintyMemory, parsed.families[f].uncertaintyMemory);
        }
    }
};

QTEST_APPLESS_MAIN(TestCatalogTable)
#include "tst_catalogtable.moc"
