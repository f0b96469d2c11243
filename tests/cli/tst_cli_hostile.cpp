// Hostile input, round three (issue 20), through the CLI: format characters
// never reach the terminal raw; measured records with garbage values are
// reported by file, record and key and skipped.
#include "cli_runner.h"

#include "core/scenario/scenario.h"

#include <QTemporaryDir>

#include <nlohmann/json.hpp>
#include "core/calibration/calibration.h"

#include <QtTest>

#include <filesystem>
#include <fstream>

namespace {

void writeText(const std::string& path, const std::string& text)
{
    std::ofstream out(path, std::ios::binary);
    out << text;
}

} // namespace

class TestCliHostile : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::string path(const std::string& name) const { return m_dir.path().toStdString() + "/" + name; }

private slots:
    void initTestCase()
    {
        qputenv("GPUPLANNER_CATALOG_OVERLAY", QByteArrayLiteral("/nonexistent/gpuplanner-test/no-overlay.json"));
    }

    void bidiControlsNeverReachTheTerminalRaw()
    {
        gp::Scenario s = gp::defaultScenario();
        s.name = "invoice\xe2\x80\xae" "fdp.exe \xe2\x81\xa6x\xe2\x81\xa9";
        s.hardware.gpus = {"nvidia-h100-sxm"};
        const std::string file = path("bidi.gpuplan.json");
        writeText(file, gp::scenarioToJson(s));
        for (const char* format : {"json", "table", "csv"}) {
            const Result r = runCli({"estimate", file, "--format", format});
            QVERIFY2(r.code == 0, describe(r).constData());
            for (const char* raw : {"\xe2\x80\xae", "\xe2\x81\xa6", "\xe2\x81\xa9"})
                QVERIFY2(r.out.find(raw) == std::string::npos && r.err.find(raw) == std::string::npos, format);
        }
        const Result json = runCli({"estimate", file, "--format", "json"});
        QVERIFY2(json.out.find("invoice\\u202efdp.exe \\u2066x\\u2069") != std::string::npos, json.out.substr(0, 600).c_str());
        // Still the same string to a JSON reader.
        const auto doc = nlohmann::json::parse(json.out);
        QCOMPARE(doc.dump().find("\xe2\x80\xae") != std::string::npos, true);
        // An unknown GPU id with an override, in a message on stderr.
        const Result bad = runCli({"estimate", file, "--gpu", "h100\xe2\x80\xae" "x"});
        QCOMPARE(bad.code, 2);
        QVERIFY2(bad.err.find("h100\\u202ex") != std::string::npos && bad.err.find("\xe2\x80\xae") == std::string::npos,
                 bad.err.c_str());
    }

    void calibrateNamesBadRecordsAndRefusesBandsFromOneRecord()
    {
        const std::string dir = path("one-record");
        std::filesystem::create_directories(dir);
        writeText(dir + "/records.json",
                  "[{\"kind\": \"train_vision\", \"arch\": \"resnet50\", \"batch\": 128, \"image_size\": 224, "
                  "\"precision_mode\": \"amp_bf16\", \"images_per_s\": 3749.7, \"peak_reserved_mib\": 6764.0, "
                  "\"ok\": true, \"gpu_id\": \"nvidia-h100-sxm\", \"name\": \"good\"},"
                  " {\"kind\": \"train_vision\", \"name\": null, \"gpu_id\": [\"nvidia-h100-sxm\"], \"images_per_s\": 1}]");
        const std::string out = path("one.json");
        const Result r = runCli({"calibrate", dir, "-o", out});
        QVERIFY2(r.code == 0, describe(r).constData()); // a bad record: named, skipped, exit 0
        QVERIFY2(r.err.rfind("records.json: [1].gpu_id: must be a string, got an array\n"
                             "warning: uncertainty_memory: kept (leave-one-out needs at least ", 0) == 0,
                 describe(r).constData());
        QVERIFY(r.err.find("internal error") == std::string::npos);
        const auto doc = nlohmann::json::parse(std::ifstream(out));
        for (const auto& c : doc["constants"])
            if (c["id"] == "uncertainty_memory")
                QCOMPARE(c["value"].get<double>(), gp::builtinCalibration().uncertaintyMemory); // the built-in band, not a 0.001% one
    }
};

QTEST_APPLESS_MAIN(TestCliHostile)
#include "tst_cli_hostile.moc"
