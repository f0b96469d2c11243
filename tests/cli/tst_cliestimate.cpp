// gpuplanner-cli estimate (docs: shared/spec/scenario-format.md), driven in-process
// through gp::cli::run: every example as JSON, table and CSV with finite numbers,
// unknown keys warned, --gpu overrides, a UTF-8 BOM, --explain and a scenario that
// does not fit.
#include <QtTest>

#include "cli_scenarios.h"

class TestCliEstimate : public QObject, protected CliFiles {
    Q_OBJECT

private slots:
    void initTestCase();

    // estimate
    void examplesPresent();
    void estimateExamples_data();
    void estimateExamples();
    void examplesAsTableAndCsv_data();
    void examplesAsTableAndCsv();
    void unknownKeysWarn();
    void gpuOverride();
    void gpuOverrideUnknown();
    void csvShape();
    void utf8BomAccepted();
    void explainAddsTerms();
    void notFittingStillReportsMemory();
};

void TestCliEstimate::initTestCase()
{
    setUpFiles();
}

// ---------------------------------------------------------------------------
// estimate

void TestCliEstimate::examplesPresent()
{
    const auto files = exampleFiles();
    QVERIFY2(files.size() >= 6, QByteArray::number(qsizetype(files.size())));
    std::set<std::string> names;
    for (const auto& f : files)
        names.insert(std::filesystem::path(f).filename().string());
    for (const char* n : {"llama31-8b-lora-rtx4090.gpuplan.json", "llama31-70b-serve-2xh100-tp.gpuplan.json",
                          "gpt2-124m-pretrain.gpuplan.json", "resnet50-train.gpuplan.json",
                          "resnet18-seed-inference.gpuplan.json", "resnet18-seed-train-b1.gpuplan.json"})
        QVERIFY2(names.count(n) == 1, n);
}

void TestCliEstimate::estimateExamples_data()
{
    QTest::addColumn<QString>("file");
    for (const auto& f : exampleFiles())
        QTest::addRow("%s", std::filesystem::path(f).filename().string().c_str()) << QString::fromStdString(f);
}

void TestCliEstimate::estimateExamples()
{
    QFETCH(QString, file);
    const std::string path = file.toStdString();

    // What the example asks for, read independently of the core's parser.
    const json scenario = json::parse(readText(path));
    QCOMPARE(scenario["format"].get<std::string>(), std::string("gpuplanner-scenario"));
    QCOMPARE(scenario["version"].get<int>(), 1);
    QVERIFY(!scenario["name"].get<std::string>().empty());
    const bool training = scenario["workload"]["mode"] == "training";
    const gp::ModelArch* preset = gp::findPreset(scenario["model"]["preset"].get<std::string>());
    QVERIFY(preset);
    const bool lm = preset->isLanguageModel();
    std::vector<std::string> gpus;
    if (scenario.contains("hardware") && scenario["hardware"].contains("gpus") && scenario["hardware"]["gpus"].is_array())
        gpus = scenario["hardware"]["gpus"].get<std::vector<std::string>>();
    const std::size_t expected = gpus.empty() ? m_catalogSize : gpus.size();
    const int count = scenario.contains("hardware") ? scenario["hardware"].value("count", 1) : 1;

    const Result r = runCli({"estimate", path});
    QVERIFY2(r.code == 0, describe(r));
    QVERIFY2(r.err.empty(), describe(r)); // the examples have no unknown keys
    const json doc = json::parse(r.out);
    QCOMPARE(doc["format"].get<std::string>(), std::string("gpuplanner-estimate"));
    QCOMPARE(doc["version"].get<int>(), 1);
    QCOMPARE(doc["scenario"].get<std::string>(), scenario["name"].get<std::string>());
    QCOMPARE(doc["results"].size(), expected);

    std::vector<std::string> bad;
    badNumbers(doc, "", bad);
    QVERIFY2(bad.empty(), bad.empty() ? "" : bad.front().c_str());

    for (std::size_t i = 0; i < doc["results"].size(); ++i) {
        const json& res = doc["results"][i];
        const std::string gpu = res["gpu"].get<std::string>();
        const QByteArray where = QByteArray::fromStdString(gpu);
        if (!gpus.empty())
            QCOMPARE(gpu, gpus[i]);
        else
            QCOMPARE(gpu, gp::Catalog::builtin().gpus()[i].id);
        QCOMPARE(res["count"].get<int>(), count);
        QVERIFY(res["fits"].is_boolean());

        // Memory: total is the sum of its terms.
        const json& mem = res["memory_gib"];
        for (const char* k : {"weights", "activations", "overhead", "total"})
            QVERIFY2(mem.contains(k), where + " memory_gib." + k);
        double sum = 0;
        for (auto it = mem.begin(); it != mem.end(); ++it)
            if (it.key() != "total")
                sum += it.value().get<double>();
        const double total = mem["total"].get<double>();
        QVERIFY2(std::abs(sum - total) <= 1e-3 * total,
                 where + ": sum " + QByteArray::number(sum) + " vs total " + QByteArray::number(total));
        QVERIFY(total > 0);
        if (res.contains("capacity_gib")) {
            // Both are rounded to 4 significant digits in the document.
            const double capacity = res["capacity_gib"].get<double>();
            if (res["fits"].get<bool>())
                QVERIFY2(total <= capacity * (1 + 1e-3), where);
            else
                QVERIFY2(total >= capacity * (1 - 1e-3), where);
        }

        QVERIFY(res.contains("uncertainty"));
        QVERIFY(res["uncertainty"]["memory"].get<double>() > 0);
        QVERIFY(res["uncertainty"]["throughput"].get<double>() > 0);
        QVERIFY(res.contains("cost"));

        if (training) {
            QVERIFY2(!res.contains("inference"), where);
            QVERIFY2(mem.contains("gradients") && mem.contains("optimizer"), where);
            QVERIFY2(!mem.contains("kv_cache"), where);
            const json& t = res["training"];
            if (lm) {
                QVERIFY2(t.contains("tokens_per_s") && t["tokens_per_s"].get<double>() > 0, where);
            } else {
                QVERIFY2(!t.contains("tokens_per_s"), where);
                QVERIFY2(t.contains("samples_per_s") && t["samples_per_s"].get<double>() > 0, where);
            }
            QVERIFY2(t["step_ms"].get<double>() > 0, where);
            QVERIFY2(t["mfu"].get<double>() > 0 && t["mfu"].get<double>() <= 1, where);
            // Every training example gives a dataset: hours always, cost where the GPU has a price.
            QVERIFY2(t.contains("hours") && t["hours"].get<double>() > 0, where);
            QCOMPARE(t.contains("cost_usd"), res["cost"].contains("usd_per_hour"));
        } else {
            QVERIFY2(!res.contains("training"), where);
            // A KV cache applies to language models only; the spec omits keys that do not apply.
            QVERIFY2(mem.contains("kv_cache") == lm, where + " memory_gib.kv_cache");
            QVERIFY2(!mem.contains("gradients") && !mem.contains("optimizer"), where);
            const json& inf = res["inference"];
            if (lm) {
                for (const char* k : {"ttft_ms", "tpot_ms", "tokens_per_s"})
                    QVERIFY2(inf.contains(k) && inf[k].get<double>() > 0, where + " " + k);
                QVERIFY2(!inf.contains("samples_per_s") && !inf.contains("latency_ms"), where);
            } else {
                for (const char* k : {"samples_per_s", "latency_ms"})
                    QVERIFY2(inf.contains(k) && inf[k].get<double>() > 0, where + " " + k);
                QVERIFY2(!inf.contains("ttft_ms") && !inf.contains("tpot_ms") && !inf.contains("tokens_per_s"), where);
            }
        }
    }
}

void TestCliEstimate::examplesAsTableAndCsv_data()
{
    estimateExamples_data();
}

void TestCliEstimate::examplesAsTableAndCsv()
{
    QFETCH(QString, file);
    const Result table = runCli({"estimate", file.toStdString(), "--format", "table"});
    QVERIFY2(table.code == 0, describe(table));
    QVERIFY(!table.out.empty());
    const Result csv = runCli({"estimate", file.toStdString(), "--format=csv"});
    QVERIFY2(csv.code == 0, describe(csv));
    QVERIFY(csv.out.rfind("gpu,count,fits,", 0) == 0);
}

void TestCliEstimate::unknownKeysWarn()
{
    json doc = baseScenario();
    doc["colour"] = "blue";
    doc["workload"]["training"]["learning_rate"] = 3e-4;
    doc["hardware"]["nodes"] = 2;
    const std::string file = writeFile("unknown-keys.gpuplan.json", QByteArray::fromStdString(doc.dump()));
    const Result r = runCli({"estimate", file});
    QVERIFY2(r.code == 0, describe(r));
    for (const char* key : {"colour", "workload.training.learning_rate", "hardware.nodes"})
        QVERIFY2(r.err.find(key) != std::string::npos, key + QByteArray("\n") + describe(r));
    QVERIFY2(r.err.find("warning") != std::string::npos, describe(r));
    QVERIFY2(std::count(r.err.begin(), r.err.end(), '\n') == 3, describe(r));
    // stdout is still exactly one JSON document.
    const json out = json::parse(r.out);
    QCOMPARE(out["results"].size(), std::size_t(1));
}

void TestCliEstimate::gpuOverride()
{
    const std::string file = examplesDir() + "/llama31-8b-lora-rtx4090.gpuplan.json";
    const Result r = runCli({"estimate", file, "--gpu", "nvidia-h100-sxm", "--gpu=nvidia-l40s"});
    QVERIFY2(r.code == 0, describe(r));
    const json doc = json::parse(r.out);
    QCOMPARE(doc["results"].size(), std::size_t(2));
    QCOMPARE(doc["results"][0]["gpu"].get<std::string>(), std::string("nvidia-h100-sxm"));
    QCOMPARE(doc["results"][1]["gpu"].get<std::string>(), std::string("nvidia-l40s"));
    // "all" is not special on the command line only in the file; one id is enough.
    const Result one = runCli({"estimate", file, "--gpu", "amd-mi300x"});
    QVERIFY2(one.code == 0, describe(one));
    QCOMPARE(json::parse(one.out)["results"][0]["gpu"].get<std::string>(), std::string("amd-mi300x"));
}

void TestCliEstimate::gpuOverrideUnknown()
{
    const std::string file = examplesDir() + "/llama31-8b-lora-rtx4090.gpuplan.json";
    const Result r = runCli({"estimate", file, "--gpu", "nvidia-h100-sxm", "--gpu", "nvidia-rtx-4909"});
    QVERIFY2(r.code == 2, describe(r));
    QVERIFY(r.out.empty());
    QVERIFY2(r.err.find("hardware.gpus[1]") != std::string::npos, describe(r));
    QVERIFY2(r.err.find("nvidia-rtx-4090") != std::string::npos, describe(r)); // the suggestion
}

void TestCliEstimate::csvShape()
{
    const std::string file = examplesDir() + "/gpt2-124m-pretrain.gpuplan.json";
    const Result r = runCli({"estimate", file, "--format", "csv"});
    QVERIFY2(r.code == 0, describe(r));
    std::istringstream in(r.out);
    std::string line;
    std::vector<std::string> lines;
    while (std::getline(in, line))
        lines.push_back(line);
    QCOMPARE(lines.size(), m_catalogSize + 1);
    QVERIFY(lines[0].rfind("gpu,count,fits,", 0) == 0);
    const auto columns = std::count(lines[0].begin(), lines[0].end(), ',');
    for (std::size_t i = 1; i < lines.size(); ++i) {
        QCOMPARE(std::count(lines[i].begin(), lines[i].end(), ','), columns);
        QVERIFY(lines[i].rfind(gp::Catalog::builtin().gpus()[i - 1].id + ",", 0) == 0);
    }

    const Result two = runCli({"estimate", file, "--format", "csv", "--gpu", "nvidia-h100-sxm", "--gpu", "nvidia-t4"});
    QCOMPARE(two.code, 0);
    QCOMPARE(std::count(two.out.begin(), two.out.end(), '\n'), std::ptrdiff_t(3));

    // Inference rows line up with the same header: the tpot_ms column holds a number.
    const Result inf = runCli({"estimate", examplesDir() + "/llama31-70b-serve-2xh100-tp.gpuplan.json", "--format", "csv"});
    QVERIFY2(inf.code == 0, describe(inf));
    std::istringstream in2(inf.out);
    std::vector<std::vector<std::string>> rows;
    while (std::getline(in2, line)) {
        std::vector<std::string> cells;
        std::istringstream cellStream(line);
        std::string cell;
        while (std::getline(cellStream, cell, ','))
            cells.push_back(cell);
        if (!line.empty() && line.back() == ',')
            cells.push_back("");
        rows.push_back(cells);
    }
    QCOMPARE(rows.size(), std::size_t(2));
    QCOMPARE(rows[1].size(), rows[0].size());
    const auto col = [&](const char* name) {
        return std::size_t(std::find(rows[0].begin(), rows[0].end(), name) - rows[0].begin());
    };
    for (const char* name : {"ttft_ms", "tpot_ms", "tokens_per_s", "usd_per_hour"}) {
        QVERIFY2(col(name) < rows[0].size(), name);
        QVERIFY2(!rows[1][col(name)].empty() && std::stod(rows[1][col(name)]) > 0, name);
    }
    for (const char* name : {"step_ms", "mfu", "hours"})
        QVERIFY2(rows[1][col(name)].empty(), name);
    QCOMPARE(rows[1][col("gpu")], std::string("nvidia-h100-sxm"));
    QCOMPARE(rows[1][col("count")], std::string("2"));
}

void TestCliEstimate::utf8BomAccepted()
{
    // Editors on Windows write a byte-order mark; it is still the same scenario.
    const std::string path = examplesDir() + "/gpt2-124m-pretrain.gpuplan.json";
    const std::string file = writeFile("bom.gpuplan.json", QByteArray("\xef\xbb\xbf") + QByteArray::fromStdString(readText(path)));
    const Result r = runCli({"estimate", file, "--gpu", "nvidia-h100-sxm"});
    QVERIFY2(r.code == 0, describe(r));
    const Result plain = runCli({"estimate", path, "--gpu", "nvidia-h100-sxm"});
    QCOMPARE(r.out, plain.out);
}

void TestCliEstimate::explainAddsTerms()
{
    const std::string file = examplesDir() + "/llama31-70b-serve-2xh100-tp.gpuplan.json";
    const Result r = runCli({"estimate", file, "--explain"});
    QVERIFY2(r.code == 0, describe(r));
    const json doc = json::parse(r.out);
    const json& terms = doc["results"][0]["terms"];
    QVERIFY(terms.is_array() && !terms.empty());
    std::set<std::string> keys;
    for (const auto& t : terms) {
        QVERIFY(t.contains("key") && t.contains("value") && t.contains("unit") && t.contains("formula"));
        keys.insert(t["key"].get<std::string>());
    }
    for (const char* k : {"memory.weights", "memory.kv_cache", "memory.total"})
        QVERIFY2(keys.count(k) == 1, k);
}

void TestCliEstimate::notFittingStillReportsMemory()
{
    // Llama 3.1 405B in bf16 on one 24 GB card: memory is still reported.
    const std::string file = writeFile(
        "405b.gpuplan.json",
        patched(R"({"model": {"preset": "llama-3.1-405b"}, "workload": {"mode": "inference"},
                    "hardware": {"gpus": ["nvidia-rtx-4090"]}})"));
    const Result r = runCli({"estimate", file});
    QVERIFY2(r.code == 0, describe(r));
    const json res = json::parse(r.out)["results"][0];
    QCOMPARE(res["fits"].get<bool>(), false);
    QVERIFY(res["memory_gib"]["weights"].get<double>() > 700); // 2 B x 405.9e9 = 756 GiB
    QVERIFY(res["memory_gib"]["total"].get<double>() > res["memory_gib"]["weights"].get<double>());
    QCOMPARE(res["meets_targets"].get<bool>(), false);
}
QTEST_APPLESS_MAIN(TestCliEstimate)
#include "tst_cliestimate.moc"
