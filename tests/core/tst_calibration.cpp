// The calibration table: the built-in one loads with every entry documented and
// within its bounds, user files are validated with key paths, and a changed
// constant reaches the estimate through the estimateOn overload.
#include "tests/common/estimateterms.h"
#include <QtTest>

#include "core/calibration/calibration.h"
#include "core/hardware/catalog.h"
#include "core/base/errors.h"
#include "core/estimate/estimate.h"
#include "core/model/model.h"
#include "core/scenario/scenario.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <map>
#include <string>

namespace {

using nlohmann::json;

constexpr double kMiB = 1024.0 * 1024.0;

/// The built-in table as a minimal user file: ids and values only.
json minimalDocument()
{
    json list = json::array();
    for (const auto& e : gp::builtinCalibration().entries)
        list.push_back({{"id", e.id}, {"value", e.value}});
    return json{{"constants", list}};
}

/// The problems loadCalibration reports for `text`, one "path: message" each.
QStringList problemsOf(const std::string& text)
{
    QStringList out;
    try {
        (void)gp::loadCalibration(text);
    } catch (const gp::InputError& e) {
        for (const auto& p : e.problems())
            out << QString::fromStdString(p.text());
    }
    return out;
}

std::size_t indexOf(const std::string& id)
{
    const auto& entries = gp::builtinCalibration().entries;
    for (std::size_t i = 0; i < entries.size(); ++i)
        if (entries[i].id == id)
            return i;
    qFatal("no calibration entry %s", id.c_str());
}

gp::Scenario llamaTraining()
{
    gp::Scenario s;
    s.name = "calibration";
    s.modelSpec.form = gp::ModelSpec::Form::Preset;
    s.modelSpec.presetId = "llama-3.2-1b";
    s.model = gp::resolveModel(s.modelSpec);
    s.mode = gp::Mode::Training;
    s.runtime = gp::Runtime::Eager;
    s.training.method = gp::TrainMethod::Full;
    s.training.precision = gp::TrainPrecision::AmpBF16;
    s.training.optimizer = gp::Optimizer::AdamW;
    s.training.microBatch = 4;
    s.training.seqLen = 2048;
    s.training.checkpointing = gp::Checkpointing::None;
    return s;
}

const gp::Gpu& h100()
{
    const gp::Gpu* g = gp::Catalog::builtin().find("nvidia-h100-sxm");
    if (!g)
        qFatal("catalog lacks nvidia-h100-sxm");
    return *g;
}

} // namespace

class TestCalibration : public QObject {
    Q_OBJECT

private slots:
    void builtinTableIsCompleteAndWithinBounds()
    {
        const gp::Calibration& c = gp::builtinCalibration();
        QCOMPARE(gp::calibrationConstantCount(), 149);
        QCOMPARE(int(c.entries.size()), 149);
        QVERIFY(c.warnings.empty());
        std::map<std::string, int> kinds;
        for (const auto& e : c.entries) {
            const QByteArray where = QByteArray::fromStdString(e.id);
            QVERIFY2(e.min <= e.value && e.value <= e.max, where.constData());
            QVERIFY2(std::isfinite(e.value), where.constData());
            QVERIFY2(!e.unit.empty() && !e.fittedOn.empty() && !e.form.empty(), where.constData());
            ++kinds[e.kind];
        }
        // 84 fitted on runs (31 base + 3 scales, the stock-vLLM share and 3 bands,
        // training, inference and memory, for each of the 7 scaled architecture
        // families, the wide band of a family without rows, the serving
        // engines' host costs per sequence, serving_step_s_per_seq and
        // serving_pp_host_s_per_seq, and attn_triton_share, the Triton
        // FlashAttention kernel's share of the flash rate), 15 read directly off a
        // measurement, 8 from papers and engines (nvlink_bus_eff,
        // nvlink_bus_eff_decode, pcie_eff among them), 34 judgement (the 7
        // families' collective scales, kept at 1, among them); pcie_eff is
        // NCCL's published PCIe bus bandwidth (nccl issue #1639), not a judgement.
        QCOMPARE(kinds.size(), std::size_t(4));
        QCOMPARE(kinds["fitted"], 86);
        QCOMPARE(kinds["measured"], 15);
        QCOMPARE(kinds["literature"], 8);
        QCOMPARE(kinds["assumed"], 40);
    }

    void knownEntriesHaveTheirDocumentedValues()
    {
        const gp::Calibration& c = gp::builtinCalibration();
        QCOMPARE(c.gemmEffBf16, 0.801); // 792.1 / 989.4 TFLOP/s on the H100, 8192^3
        QCOMPARE(c.find("gemm_eff_bf16")->value, 0.801);
        QCOMPARE(c.find("gemm_eff_bf16")->min, 0.01);
        QCOMPARE(c.find("gemm_eff_bf16")->max, 1.0);
        QCOMPARE(c.find("gemm_eff_bf16")->kind, std::string("measured"));
        QCOMPARE(c.gemmEffFp8, 0.726);
        QCOMPARE(c.gemmShapeC, 105.8); // fitted: tests/tools/update-calibration.sh
        QCOMPARE(c.attnEffHopperBlackwell, 0.2348); // FlashAttention-2 class on an H100, above its 0.2 bound
        QCOMPARE(c.trainGemmDerateOptimized, 0.8113);
        QCOMPARE(c.attnTritonShare, 0.6026); // Triton FlashAttention / the FA2 rate: 22 A100 MPT rows, TT06, TT01
        QCOMPARE(c.kernelSTrainEager, 32.4e-6);
        QCOMPARE(c.decodeBandwidthEff, 0.8461);
        QCOMPARE(c.prefillKernelsLayerEager, 46.0);
        QCOMPARE(c.contextCudaMib, 620.0);
        QCOMPARE(c.usableMemoryFraction, 0.9956);
        QCOMPARE(c.uncertaintyUnmeasuredFamily, 0.189); // a family without published rows of the kind (calibrate)
        QCOMPARE(c.nvlinkBusEff, 0.82);                // NCCL: 370 of 450 GB/s on NVLink 4 (nccl-tests#212)
        QCOMPARE(c.nvlinkBusEffDecode, 0.642);         // NCCL at 4-16 MiB on 8x H100: 288.8 of 450 GB/s (Triton-distributed#57)
        QVERIFY(c.find("no_such_constant") == nullptr);
    }

    void minimalUserFileReproducesTheBuiltinTable()
    {
        const gp::Calibration u = gp::loadCalibration(minimalDocument().dump());
        const gp::Calibration& b = gp::builtinCalibration();
        QCOMPARE(u.entries.size(), b.entries.size());
        for (std::size_t i = 0; i < b.entries.size(); ++i) {
            QCOMPARE(u.entries[i].id, b.entries[i].id);
            QCOMPARE(u.entries[i].value, b.entries[i].value); // exact: doubles round-trip through JSON
            QCOMPARE(u.entries[i].unit, b.entries[i].unit);   // metadata left out is the built-in's
            QCOMPARE(u.entries[i].min, b.entries[i].min);
        }
        QCOMPARE(u.kernelSDecodeEager, 55e-6);
        QVERIFY(u.warnings.empty());
    }

    void rejectsValuesOutsideTheirBounds()
    {
        const std::size_t i = indexOf("gemm_eff_bf16");
        QCOMPARE(i, std::size_t(3));
        json doc = minimalDocument();
        doc["constants"][i]["value"] = 1.5;
        QCOMPARE(problemsOf(doc.dump()),
                 QStringList{"constants[3].value: gemm_eff_bf16 = 1.5 is outside its bounds [0.01, 1]"});
        doc["constants"][i]["value"] = -0.2;
        QCOMPARE(problemsOf(doc.dump()),
                 QStringList{"constants[3].value: gemm_eff_bf16 = -0.2 is outside its bounds [0.01, 1]"});
        // A file may narrow the bounds, never widen them.
        doc["constants"][i]["value"] = 0.6;
        doc["constants"][i]["max"] = 0.5;
        QCOMPARE(problemsOf(doc.dump()),
                 QStringList{"constants[3].value: gemm_eff_bf16 = 0.6 is outside its bounds [0.01, 0.5]"});
        doc["constants"][i]["max"] = 5;
        doc["constants"][i]["value"] = 2;
        QCOMPARE(problemsOf(doc.dump()),
                 QStringList{"constants[3].value: gemm_eff_bf16 = 2 is outside its bounds [0.01, 1]"});
    }

    void rejectsNonNumbersAndNonFiniteValues()
    {
        json doc = minimalDocument();
        doc["constants"][0]["value"] = "fast";
        QCOMPARE(problemsOf(doc.dump()), QStringList{"constants[0].value: must be a number"});
        doc["constants"][0]["value"] = nullptr;
        QCOMPARE(problemsOf(doc.dump()), QStringList{"constants[0].value: must be a number"});
        doc["constants"][0].erase("value");
        QCOMPARE(problemsOf(doc.dump()), QStringList{"constants[0].value: missing (a number is required)"});
        // JSON has no NaN/Infinity; a literal that overflows a double is refused by the parser.
        doc["constants"][0]["value"] = "@";
        std::string text = doc.dump();
        text.replace(text.find("\"@\""), 3, "1e999");
        QCOMPARE(problemsOf(text), QStringList{"invalid JSON: number overflow parsing '1e999'"});
    }

    void rejectsMissingAndDuplicateIds()
    {
        json doc = minimalDocument();
        doc["constants"].erase(3);
        QCOMPARE(problemsOf(doc.dump()), QStringList{"constants: missing constant \"gemm_eff_bf16\""});
        doc = minimalDocument();
        doc["constants"].push_back({{"id", "conv_eff"}, {"value", 0.5}});
        QCOMPARE(problemsOf(doc.dump()),
                 QStringList{"constants[149].id: \"conv_eff\" is given twice (first at constants[35])"});
        doc = minimalDocument();
        doc["constants"][2] = 7;
        QCOMPARE(problemsOf(doc.dump()),
                 QStringList({"constants[2]: expected an object {\"id\", \"value\", ...}",
                              "constants: missing constant \"gemm_eff_fp16\""}));
    }

    void rejectsBadDocumentsAndHeaders()
    {
        QCOMPARE(problemsOf("[]"),
                 QStringList{"constants: a calibration file is a JSON object with a \"constants\" array"});
        QCOMPARE(problemsOf("{\"constants\": [}"),
                 QStringList{"invalid JSON at byte 16: parse error at line 1, column 16: syntax error while parsing "
                             "value - unexpected '}'; expected '[', '{', or a literal"});
        json doc = minimalDocument();
        doc["count"] = 5;
        QCOMPARE(problemsOf(doc.dump()), QStringList{"count: says 5 but the file has 149 known constants"});
        doc = minimalDocument();
        doc["format"] = "gpu-catalog";
        QCOMPARE(problemsOf(doc.dump()), QStringList{"format: must be \"gpuplanner-calibration\""});
        doc = minimalDocument();
        doc["constants"][0]["kind"] = "guessed";
        QCOMPARE(problemsOf(doc.dump()),
                 QStringList{"constants[0].kind: \"guessed\" is not one of fitted, measured, literature, assumed"});
    }

    void unknownIdsAreWarnings()
    {
        json doc = minimalDocument();
        doc["constants"].push_back({{"id", "gemm_eff_fp4"}, {"value", 0.7}});
        const gp::Calibration c = gp::loadCalibration(doc.dump());
        QCOMPARE(c.warnings, std::vector<std::string>{"constants[149].id: unknown constant \"gemm_eff_fp4\", ignored"});
        QCOMPARE(int(c.entries.size()), 149);
    }

    void readsAVersion1Table()
    {
        // Version 1 (before issue #16's per-kind bands) gave one throughput band
        // per family, uncertainty_family_<id>_throughput: it applies to training
        // and inference alike, and the family memory bands are 0 (the measured
        // memory band widened for another architecture, as version 1 did).
        const gp::Calibration& b = gp::builtinCalibration();
        auto v1 = [&](bool sayVersion) {
            json list = json::array();
            for (const auto& e : b.entries) {
                const std::string& id = e.id;
                if (id.rfind("uncertainty_family_", 0) == 0) {
                    if (id.ends_with("_training")) // one entry per family, where the training band was
                        list.push_back({{"id", id.substr(0, id.size() - 9) + "_throughput"},
                                        {"value", id.find("_cdna_") != std::string::npos ? 0.0904 : 0.0},
                                        {"kind", "fitted"}});
                    continue;
                }
                list.push_back({{"id", id}, {"value", e.value}, {"kind", e.kind}});
            }
            json doc{{"format", "gpuplanner-calibration"}, {"count", list.size()}, {"constants", list}};
            if (sayVersion)
                doc["version"] = 1;
            return doc;
        };
        for (const bool sayVersion : {true, false}) {
            const json doc = v1(sayVersion);
            QCOMPARE(doc["constants"].size(), std::size_t(149 - 14)); // 7 families x (3 bands - 1)
            const gp::Calibration c = gp::loadCalibration(doc.dump());
            QVERIFY(c.warnings.empty());
            QCOMPARE(int(c.entries.size()), gp::calibrationConstantCount());
            const gp::FamilyConstants& cdna = c.families[std::size_t(gp::ArchFamily::Cdna)];
            QCOMPARE(cdna.uncertaintyTraining, 0.0904); // the one band, on every throughput kind
            QCOMPARE(cdna.uncertaintyInference, 0.0904);
            QCOMPARE(cdna.uncertaintyMemory, 0.0);
            QCOMPARE(c.find("uncertainty_family_cdna_inference")->value, 0.0904);
            QVERIFY(c.find("uncertainty_family_cdna_memory")->fittedOn.find("version 1") != std::string::npos);
            QCOMPARE(c.families[std::size_t(gp::ArchFamily::Tpu)].uncertaintyTraining, 0.0);
            // An MI300X fine-tune with that table: in BF16, whose CDNA GEMM scale
            // the table says calibrate did not fit, the wide band (the version 1
            // band is narrower); the same job in FP8 the version 1 band, as before.
            const gp::GpuEstimate e =
                gp::estimateOn(llamaTraining(), *gp::Catalog::builtin().find("amd-mi300x"), gp::EstimateOptions{}, c);
            QCOMPARE(e.uncertainty.throughput, c.uncertaintyUnmeasuredFamily);
            QVERIFY(e.uncertainty.throughput > 0.0904);
            QCOMPARE(e.uncertainty.throughputSource, gp::BandSource::Unmeasured);
            QVERIFY(e.uncertainty.formatUnfitted);
            gp::Scenario fp8 = llamaTraining();
            fp8.training.precision = gp::TrainPrecision::FP8;
            const gp::GpuEstimate e8 =
                gp::estimateOn(fp8, *gp::Catalog::builtin().find("amd-mi300x"), gp::EstimateOptions{}, c);
            QCOMPARE(e8.uncertainty.throughput, 0.0904);
            QCOMPARE(e8.uncertainty.throughputSource, gp::BandSource::Published);
        }
        // A version 1 table names no per-kind band; a version 2 one no single band.
        json doc = v1(true);
        doc["constants"].push_back({{"id", "uncertainty_family_cdna_memory"}, {"value", 0.1}});
        doc["count"] = doc["constants"].size() - 1;
        QCOMPARE(gp::loadCalibration(doc.dump()).warnings,
                 std::vector<std::string>{"constants[135].id: unknown constant \"uncertainty_family_cdna_memory\" in a "
                                          "version 1 table, ignored"});
        doc = v1(true);
        doc["version"] = 2;
        const QStringList problems = problemsOf(doc.dump());
        QCOMPARE(problems.size(), 21); // the 7 families' 3 bands: nothing is read as version 1
        QCOMPARE(problems.front(), QStringLiteral("constants: missing constant \"uncertainty_family_blackwell_training\" (a "
                                                  "version 1 table names the family band "
                                                  "uncertainty_family_<family>_throughput and says \"version\": 1)"));
        // The band given twice, once as version 1 and once per kind, is refused.
        doc = minimalDocument();
        doc["constants"].push_back({{"id", "uncertainty_family_ada_throughput"}, {"value", 0.1}});
        QCOMPARE(problemsOf(doc.dump()),
                 QStringList{QStringLiteral("constants[149].id: \"uncertainty_family_ada_throughput\" is given twice "
                                            "(first at constants[%1])")
                                 .arg(indexOf("uncertainty_family_ada_training"))});
    }

    void builtinThroughOptionsIsTheDefault()
    {
        const gp::Scenario s = llamaTraining();
        const gp::GpuEstimate a = gp::estimateOn(s, h100());
        const gp::GpuEstimate b = gp::estimateOn(s, h100(), {}, gp::builtinCalibration());
        QCOMPARE(b.training->tokensPerS, a.training->tokensPerS); // exact
        QCOMPARE(b.memory.total(), a.memory.total());
        // A user file with the built-in values gives the same numbers too.
        const gp::Calibration u = gp::loadCalibration(minimalDocument().dump());
        QCOMPARE(gp::estimateOn(s, h100(), {}, u).training->tokensPerS, a.training->tokensPerS);
    }

    void lowerGemmEfficiencyLowersThroughput()
    {
        const gp::Scenario s = llamaTraining(); // amp_bf16: the matmuls run in bf16
        const gp::GpuEstimate base = gp::estimateOn(s, h100());
        gp::Calibration slow = gp::builtinCalibration();
        QVERIFY(slow.set("gemm_eff_bf16", 0.6));
        QCOMPARE(slow.find("gemm_eff_bf16")->value, 0.6);
        const gp::GpuEstimate e = gp::estimateOn(s, h100(), {}, slow);
        QVERIFY(e.training->tokensPerS < base.training->tokensPerS);
        // Matmul time is inversely proportional to the ceiling; the other terms do not move.
        QVERIFY(std::abs(termValue(e, "time.gemm") / termValue(base, "time.gemm") - 0.801 / 0.6) < 1e-12);
        QCOMPARE(termValue(e, "time.elementwise"), termValue(base, "time.elementwise"));
        QCOMPARE(e.memory.total(), base.memory.total());
    }

    void contextSizeMovesTheOverheadByExactlyTheChange()
    {
        const gp::Scenario s = llamaTraining();
        const gp::GpuEstimate base = gp::estimateOn(s, h100());
        gp::Calibration c = gp::builtinCalibration();
        QVERIFY(c.set("context_cuda_mib", 720));
        const gp::GpuEstimate e = gp::estimateOn(s, h100(), {}, c);
        QVERIFY(std::abs(e.memory.overhead - base.memory.overhead - 100 * kMiB) < 1e-3); // bytes
        QVERIFY(!c.set("no_such_constant", 1));
    }
};

QTEST_GUILESS_MAIN(TestCalibration)
#include "tst_calibration.moc"
