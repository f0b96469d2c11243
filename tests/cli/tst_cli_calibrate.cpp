// gpuplanner-cli calibrate, validate --cross and --calibration FILE: the file
// written, the errors (naming the file and the key), the exit codes.
#include "cli_runner.h"
#include "tests/common/testfiles.h"

#include <QtTest>

#include <nlohmann/json.hpp>


namespace {

using gp::test::readFile;
using gp::test::writeFile;

std::string builtinJson() { return readFile(dataDir() + "/../../resources/calibration/builtin-calibration.json"); }

} // namespace

class TestCliCalibrate : public QObject, protected gp::test::TempFiles {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        hideCatalogOverlay();
        QVERIFY(m_tmp.isValid());
    }

    void calibrateWritesAFileEstimatesUse()
    {
        const std::string out = path("round2.json");
        const Result r = runCli({"calibrate", dataDir() + "/round2", "-o", out});
        QVERIFY2(r.code == 0, describe(r));
        QVERIFY2(r.out.rfind("constant                                start       fitted records  rows rmse_log  bound\n", 0) == 0,
                 describe(r));
        QVERIFY(r.out.find("\nkernel_s_decode_eager ") != std::string::npos);
        QVERIFY(r.out.find("no rows: kept") != std::string::npos);
        // Issue 20: a constant the records drag to its bound is named on stderr.
        // The start is the built-in value (it moves with each refit); the bound and the count do not.
        const auto warn = r.err.find("warning: kernels_layer_swiglu moved from ");
        QVERIFY2(warn != std::string::npos &&
                     r.err.find(" to its bound 0.001 (2 records move it); check those records' units or add records of that kind\n",
                                warn) != std::string::npos,
                 describe(r));
        // Same schema as the built-in table, plus the fit's header and residuals.
        const nlohmann::json doc = nlohmann::json::parse(readFile(out));
        QCOMPARE(doc["format"], "gpuplanner-calibration");
        QCOMPARE(doc["version"], 2); // per-kind family bands
        QCOMPARE(doc["count"], 149);
        QCOMPARE(doc["fitted_on"]["dirs"][0], dataDir() + "/round2");
        QCOMPARE(doc["fitted_on"]["records"], 23);
        int withFit = 0;
        for (const auto& c : doc["constants"])
            withFit += c.contains("fit") ? 1 : 0;
        QCOMPARE(withFit, 60); // 27 base constants + 3 scales and the stock-vLLM share of each of the 7 scaled families + 3 serving engine constants + attn_triton_share + CDNA's power term
        // estimate --calibration uses it: round 2 alone has no eager LLM
        // inference, so the ResNet-18 training rate (host-bound) moves with the
        // refit kernel_s_train_eager and conv_eff.
        const std::string scenario = examplesDir() + "/resnet18-seed-train-b1.gpuplan.json";
        const Result builtin = runCli({"estimate", scenario, "--gpu", "nvidia-h100-sxm", "--format", "json"});
        const Result refit =
            runCli({"estimate", scenario, "--gpu", "nvidia-h100-sxm", "--format", "json", "--calibration", out});
        QVERIFY2(builtin.code == 0 && refit.code == 0, describe(refit));
        const auto a = nlohmann::json::parse(builtin.out)["results"][0]["training"]["samples_per_s"];
        const auto b = nlohmann::json::parse(refit.out)["results"][0]["training"]["samples_per_s"];
        QVERIFY2(a.is_number() && b.is_number() && a != b, qPrintable(QString::fromStdString(a.dump() + " " + b.dump())));
        // validate --calibration with the file scores round 2 at least as well in log error.
        const Result v = runCli({"validate", dataDir() + "/round2", "--summary", "--calibration", out});
        QVERIFY2(v.code == 0, describe(v));
    }

    void failedCalibrateKeepsThePreviousFile()
    {
        const std::string out = path("keep.json");
        writeFile(out, "previous\n");
        // A record with a zero batch: bad input, exit 2, nothing written.
        QTemporaryDir bad;
        writeFile((bad.path() + QStringLiteral("/measured.json")).toStdString(),
                  R"([{"name": "device", "gpu": "NVIDIA H100 80GB HBM3"},
                      {"kind": "infer_vision", "name": "v", "arch": "resnet50", "batch": 0, "images_per_s": 100}])");
        const Result r = runCli({"calibrate", bad.path().toStdString(), "-o", out});
        QCOMPARE(r.code, 2);
        // Issue 20: the bad record is named and skipped; nothing usable is left.
        QCOMPARE(r.err, std::string("measured.json: [1] (\"v\").batch: must be a positive integer between 1 and 10000000, got 0\n")
                            + bad.path().toStdString() + ": no scored measured records to fit\n");
        QCOMPARE(readFile(out), std::string("previous\n"));
        // A directory as the output: exit 1, named.
        const Result d = runCli({"calibrate", dataDir() + "/round2", "-o", m_tmp.path().toStdString()});
        QCOMPARE(d.code, 1);
        // (after the warnings about constants round 2 alone drags to a bound)
        const std::string dirError = m_tmp.path().toStdString() + ": is a directory\n";
        QVERIFY2(d.err.size() >= dirError.size() && d.err.compare(d.err.size() - dirError.size(), dirError.size(), dirError) == 0,
                 describe(d));
        // No scored record at all: exit 2.
        QTemporaryDir none;
        writeFile((none.path() + QStringLiteral("/x.json")).toStdString(), "[]");
        const Result n = runCli({"calibrate", none.path().toStdString(), "-o", out});
        QCOMPARE(n.code, 2);
        QCOMPARE(n.err, none.path().toStdString() + ": no scored measured records to fit\n");
        QCOMPARE(readFile(out), std::string("previous\n"));
    }

    void usage()
    {
        const Result r = runCli({"calibrate", dataDir() + "/round2"});
        QCOMPARE(r.code, 2);
        QCOMPARE(r.err, std::string("gpuplanner-cli: calibrate needs at least one DIR and -o FILE\n"));
        const Result j = runCli({"validate", dataDir() + "/round2", "--cross", "--format", "json"});
        QCOMPARE(j.code, 2);
        QVERIFY2(j.err.find("--cross prints a table") != std::string::npos, describe(j));
        const Result m = runCli({"estimate", examplesDir() + "/resnet50-train.gpuplan.json", "--calibration"});
        QCOMPARE(m.code, 2);
        QCOMPARE(m.err, std::string("gpuplanner-cli: --calibration needs a value\n"));
    }

    void badCalibrationFileIsNamedWithItsKey()
    {
        nlohmann::json doc = nlohmann::json::parse(builtinJson());
        doc["constants"][35]["value"] = 1.5; // conv_eff
        const std::string bad = path("bad.json");
        writeFile(bad, doc.dump());
        const std::string scenario = examplesDir() + "/resnet50-train.gpuplan.json";
        for (const char* cmd : {"estimate", "plan"}) {
            const Result r = runCli({cmd, scenario, "--calibration", bad});
            QCOMPARE(r.code, 2);
            QCOMPARE(r.err, bad + ": constants[35].value: conv_eff = 1.5 is outside its bounds [0.01, 1]\n");
            QVERIFY(r.out.empty());
        }
        const Result v = runCli({"validate", dataDir() + "/round2", "--calibration", bad});
        QCOMPARE(v.code, 2);
        QCOMPARE(v.err, bad + ": constants[35].value: conv_eff = 1.5 is outside its bounds [0.01, 1]\n");
        const Result missing = runCli({"estimate", scenario, "--calibration", path("none.json")});
        QCOMPARE(missing.code, 2);
        QVERIFY2(missing.err.rfind(path("none.json") + ": ", 0) == 0, describe(missing));
    }

    void crossPrintsLeaveOneOutBesideInSample()
    {
        const Result r = runCli({"validate", dataDir() + "/calibration", dataDir() + "/round2", "--cross", "--summary"});
        QVERIFY2(r.code == 0, describe(r));
        QVERIFY(r.out.rfind("metric                                    n  in-sample  leave-one-out\n", 0) == 0);
        QVERIFY(r.out.find("\nmemory_total_gib                         34 ") != std::string::npos);
        QVERIFY(r.out.find("\nCNN          vision_images_per_s                     8 ") != std::string::npos);
        const Result t = runCli({"validate", dataDir() + "/round2", "--cross"});
        QVERIFY2(t.code == 0, describe(t));
        QVERIFY(t.out.find("infer_llama3_8b_b128_ctx512") != std::string::npos);
    }
};

QTEST_APPLESS_MAIN(TestCliCalibrate)
#include "tst_cli_calibrate.moc"
