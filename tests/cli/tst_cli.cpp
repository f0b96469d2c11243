// The command-line contract (docs: shared/spec/scenario-format.md), driven
// in-process through gp::cli::run with string streams: usage and the simple
// commands, the catalog overlay, validate and report. Bad input is in
// tst_clibadinput.cpp, estimate on the examples in tst_cliestimate.cpp.
#include <QtTest>

#include "cli_scenarios.h"

class TestCli : public QObject, protected CliFiles {
    Q_OBJECT

private slots:
    void initTestCase();

    // Usage and the simple commands
    void version();
    void help();
    void noArguments();
    void gpusJson();
    void gpusTable();
    void presetsJson();
    void presetsTable();

    // Catalog overlay
    void overlayAddsGpu();
    void brokenOverlayWarns();

    // validate
    void validateCalibration();
    void validateJson();
    void validateEmptyDir();
    void validateMissingDir();

    // report (hook supplied by the UI layer)
    void reportWithoutHook();
    void reportHookReceivesScenario();
    void reportHookFailure();
    void reportNeedsOutput();
};

void TestCli::initTestCase()
{
    setUpFiles();
}

// ---------------------------------------------------------------------------

void TestCli::version()
{
    for (const char* flag : {"--version", "-V"}) {
        const Result r = runCli({flag});
        QVERIFY2(r.code == 0, describe(r));
        QVERIFY2(r.err.empty(), describe(r));
        const QRegularExpression re(R"(^gpuplanner-cli \d+\.\d+\.\d+\S*\n$)");
        QVERIFY2(re.match(QString::fromStdString(r.out)).hasMatch(), describe(r));
    }
}

void TestCli::help()
{
    for (const char* flag : {"--help", "-h", "help"}) {
        const Result r = runCli({flag});
        QVERIFY2(r.code == 0, describe(r));
        QVERIFY2(r.err.empty(), describe(r));
        for (const char* word : {"Usage:", "estimate", "gpus", "presets", "validate", "report", "Exit codes"})
            QVERIFY2(r.out.find(word) != std::string::npos, word);
    }
}

void TestCli::noArguments()
{
    const Result r = runCli({});
    QVERIFY2(r.code == 2, describe(r));
    QVERIFY(r.out.empty());
    QVERIFY(r.err.find("Usage:") != std::string::npos);
}

void TestCli::gpusJson()
{
    const Result r = runCli({"gpus", "--format", "json"});
    QVERIFY2(r.code == 0, describe(r));
    const json doc = json::parse(r.out);
    QVERIFY(doc.is_array());
    QCOMPARE(doc.size(), std::size_t(48));
    std::set<std::string> ids;
    for (const auto& g : doc) {
        QVERIFY(g.contains("id") && g["id"].is_string());
        ids.insert(g["id"].get<std::string>());
        QVERIFY(g["memory_gb"].get<double>() > 0);
        QVERIFY(g["memory_bandwidth_gbps"].get<double>() > 0);
        QVERIFY(g.contains("price_hour_usd"));
        QVERIFY(g["price_hour_usd"].contains("seen"));
    }
    QCOMPARE(ids.size(), std::size_t(48)); // unique
    for (const char* id : {"nvidia-h100-sxm", "nvidia-h200-sxm", "nvidia-a100-80gb-sxm", "nvidia-rtx-4090", "amd-mi300x"})
        QVERIFY2(ids.count(id) == 1, id);
    // --format=json is the same.
    const Result eq = runCli({"gpus", "--format=json"});
    QCOMPARE(eq.code, 0);
    QCOMPARE(eq.out, r.out);
}

void TestCli::gpusTable()
{
    const Result r = runCli({"gpus"});
    QVERIFY2(r.code == 0, describe(r));
    QVERIFY(r.out.find("nvidia-h100-sxm") != std::string::npos);
    // Header + one line per GPU.
    QCOMPARE(std::count(r.out.begin(), r.out.end(), '\n'), std::ptrdiff_t(49));
    const Result extra = runCli({"gpus", "something"});
    QCOMPARE(extra.code, 2);
    QVERIFY(extra.out.empty());
}

void TestCli::presetsJson()
{
    const Result r = runCli({"presets", "--format", "json"});
    QVERIFY2(r.code == 0, describe(r));
    const json doc = json::parse(r.out);
    QVERIFY(doc.is_array());
    std::set<std::string> ids;
    for (const auto& p : doc) {
        ids.insert(p["id"].get<std::string>());
        QVERIFY(p["params"].get<double>() > 0);
        QVERIFY(p["active_params"].get<double>() <= p["params"].get<double>());
    }
    // The ids the spec requires.
    for (const char* id : {"gpt2-124m", "gpt2-355m", "tinyllama-1.1b", "llama-3.2-1b", "llama-3.2-3b", "llama-2-7b",
                           "llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b", "mistral-7b", "mixtral-8x7b",
                           "qwen2.5-72b", "deepseek-v3", "resnet18", "resnet50", "vit-b-16", "bert-base"})
        QVERIFY2(ids.count(id) == 1, id);
}

void TestCli::presetsTable()
{
    const Result r = runCli({"presets", "--format", "table"});
    QVERIFY2(r.code == 0, describe(r));
    QVERIFY(r.out.find("llama-3.1-8b") != std::string::npos);
    QVERIFY(r.out.find("resnet50") != std::string::npos);
}

// ---------------------------------------------------------------------------
// Catalog overlay

void TestCli::overlayAddsGpu()
{
    const std::string overlay = writeFile("overlay.json", R"([{
        "id": "acme-x1", "vendor": "Acme", "name": "Acme X1 64GB", "memory_gb": 64, "memory_type": "HBM3",
        "memory_bandwidth_gbps": 2000, "bf16_tflops": 500, "fp16_tflops": 500, "fp8_tflops": null,
        "price_hour_usd": {"low": 1.0, "typical": 1.5, "high": 2.0, "spot": null, "providers": "Acme cloud",
                           "seen": "2026-06"}}])");
    const QByteArray saved = qgetenv("GPUPLANNER_CATALOG_OVERLAY");
    qputenv("GPUPLANNER_CATALOG_OVERLAY", QByteArray::fromStdString(overlay));
    const Result gpus = runCli({"gpus", "--format", "json"});
    const std::string file = writeFile("overlay-est.gpuplan.json", patched(R"({"hardware": {"gpus": ["acme-x1"]}})"));
    const Result est = runCli({"estimate", file});
    qputenv("GPUPLANNER_CATALOG_OVERLAY", saved);

    QVERIFY2(gpus.code == 0, describe(gpus));
    const json list = json::parse(gpus.out);
    QCOMPARE(list.size(), std::size_t(49));
    QCOMPARE(list.back()["id"].get<std::string>(), std::string("acme-x1"));
    QCOMPARE(list.back()["user_defined"].get<bool>(), true);
    QVERIFY2(est.code == 0, describe(est));
    const json res = json::parse(est.out)["results"][0];
    QCOMPARE(res["gpu"].get<std::string>(), std::string("acme-x1"));
    QCOMPARE(res["cost"]["usd_per_hour"].get<double>(), 1.5);
}

void TestCli::brokenOverlayWarns()
{
    const std::string overlay = writeFile("broken-overlay.json", "[{\"id\": ");
    const QByteArray saved = qgetenv("GPUPLANNER_CATALOG_OVERLAY");
    qputenv("GPUPLANNER_CATALOG_OVERLAY", QByteArray::fromStdString(overlay));
    const Result r = runCli({"gpus", "--format", "json"});
    qputenv("GPUPLANNER_CATALOG_OVERLAY", saved);
    QVERIFY2(r.code == 0, describe(r));
    QCOMPARE(json::parse(r.out).size(), std::size_t(48));
    QVERIFY2(r.err.find("overlay") != std::string::npos, describe(r));
    QVERIFY2(r.err.find("warning") != std::string::npos, describe(r));
}

// ---------------------------------------------------------------------------
// validate

void TestCli::validateCalibration()
{
    const Result r = runCli({"validate", dataDir() + "/calibration"});
    QVERIFY2(r.code == 0, describe(r));
    QVERIFY2(r.out.find("MAPE") != std::string::npos, describe(r));
    for (const char* metric : {"memory_total_gib", "decode_ms", "train_tokens_per_s"})
        QVERIFY2(r.out.find(metric) != std::string::npos, metric);
}

void TestCli::validateJson()
{
    const Result r = runCli({"validate", dataDir() + "/calibration", "--format", "json"});
    QVERIFY2(r.code == 0, describe(r));
    const json doc = json::parse(r.out);
    QVERIFY(doc.contains("rows") && doc["rows"].is_array() && !doc["rows"].empty());
    for (const auto& row : doc["rows"]) {
        QVERIFY(row["measured"].get<double>() != 0);
        QVERIFY(std::isfinite(row["predicted"].get<double>()));
    }
}

void TestCli::validateEmptyDir()
{
    QTemporaryDir empty;
    QVERIFY(empty.isValid());
    const Result r = runCli({"validate", empty.path().toStdString()});
    QVERIFY2(r.code == 2, describe(r));
    QVERIFY(r.out.empty());
    QVERIFY2(r.err.find("no measured records") != std::string::npos, describe(r));
}

void TestCli::validateMissingDir()
{
    const Result r = runCli({"validate", m_tmp.path().toStdString() + "/does-not-exist"});
    QVERIFY2(r.code == 2, describe(r));
    QVERIFY(r.out.empty());
    QVERIFY(!r.err.empty());
}

// ---------------------------------------------------------------------------
// report

void TestCli::reportWithoutHook()
{
    const std::string file = examplesDir() + "/resnet50-train.gpuplan.json";
    const Result r = runCli({"report", file, "-o", m_tmp.path().toStdString() + "/r.pdf"});
    QVERIFY2(r.code == 1, describe(r));
    QVERIFY(r.out.empty());
    QVERIFY2(r.err.find("PDF") != std::string::npos, describe(r));
}

void TestCli::reportHookReceivesScenario()
{
    const std::string file = examplesDir() + "/llama31-70b-serve-2xh100-tp.gpuplan.json";
    const std::string pdf = m_tmp.path().toStdString() + "/report.pdf";
    std::string gotPath;
    std::string gotModel;
    int gotCount = 0;
    std::size_t gotGpus = 0;
    gp::cli::Hooks hooks;
    hooks.report = [&](const gp::Scenario& s, const gp::Catalog& cat, const std::string& out, const gp::Calibration*) {
        gotPath = out;
        gotModel = s.model.id;
        gotCount = s.hardware.count;
        gotGpus = cat.gpus().size();
        return std::string();
    };
    const Result r = runCli({"report", file, "-o", pdf}, hooks);
    QVERIFY2(r.code == 0, describe(r));
    QCOMPARE(gotPath, pdf);
    QCOMPARE(gotModel, std::string("llama-3.1-70b"));
    QCOMPARE(gotCount, 2);
    QCOMPARE(gotGpus, m_catalogSize);
}

void TestCli::reportHookFailure()
{
    const std::string file = examplesDir() + "/resnet50-train.gpuplan.json";
    gp::cli::Hooks hooks;
    hooks.report = [](const gp::Scenario&, const gp::Catalog&, const std::string&, const gp::Calibration*) {
        return std::string("cannot write: disk full");
    };
    const Result r = runCli({"report", file, "--output", m_tmp.path().toStdString() + "/r.pdf"}, hooks);
    QVERIFY2(r.code == 1, describe(r));
    QVERIFY2(r.err.find("disk full") != std::string::npos, describe(r));

    // Bad scenario: 2, and the hook is never called.
    bool called = false;
    hooks.report = [&](const gp::Scenario&, const gp::Catalog&, const std::string&, const gp::Calibration*) {
        called = true;
        return std::string();
    };
    const std::string bad = writeFile("bad-report.gpuplan.json", patched(R"({"version": 3})"));
    const Result b = runCli({"report", bad, "-o", m_tmp.path().toStdString() + "/r.pdf"}, hooks);
    QVERIFY2(b.code == 2, describe(b));
    QVERIFY(!called);
}

void TestCli::reportNeedsOutput()
{
    const std::string file = examplesDir() + "/resnet50-train.gpuplan.json";
    const Result r = runCli({"report", file});
    QVERIFY2(r.code == 2, describe(r));
    QVERIFY2(r.err.find("-o") != std::string::npos, describe(r));
}

QTEST_APPLESS_MAIN(TestCli)
#include "tst_cli.moc"
