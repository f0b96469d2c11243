// The commands besides estimate/validate/report: plan, rent-vs-buy, rules, gpus
// and presets, in both formats, on the shipped examples (resources/examples):
// exit codes and concrete values in what they print.
#include <QtTest>

#include "cli_runner.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

using nlohmann::json;

namespace {

// The examples' paths are appended in place: returning examplesDir() + "..." draws GCC 12's
// -Warray-bounds false positive inside <string> when the tests use the precompiled header.
std::string examplePath(const char* file)
{
    std::string path = examplesDir();
    path += file;
    return path;
}
// 70B bf16 on H100s, targets TTFT 2 s and TPOT 60 ms; count 2, utilization 0.7.
std::string serveExample() { return examplePath("/llama31-70b-serve-2xh100-tp.gpuplan.json"); }
// ResNet-18, batch 100 fp32 inference over the whole catalog.
std::string resnetExample() { return examplePath("/resnet18-seed-inference.gpuplan.json"); }

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

} // namespace

class TestCliCommands : public QObject {
    Q_OBJECT

private slots:
    void planJson();
    void planTop();
    void planTable();
    void planAllGpus();
    void rentVsBuyJson();
    void rentVsBuyTable();
    void rulesJson();
    void rulesTable();
    void gpusValues();
    void presetsValues();
    void usageErrors_data();
    void usageErrors();
};

void TestCliCommands::planJson()
{
    const Result r = runCli({"plan", serveExample(), "--format", "json"});
    QVERIFY2(r.code == 0, describe(r));
    const json doc = json::parse(r.out);
    QCOMPARE(doc["format"].get<std::string>(), std::string("gpuplanner-plan"));
    QCOMPARE(doc["version"].get<int>(), 1);
    QVERIFY(contains(doc["scenario"].get<std::string>(), "Llama 3.1 70B: serve in bf16 on 2x H100 SXM"));
    QCOMPARE(doc["cost_key"].get<std::string>(), std::string("USD per million output tokens"));
    QCOMPARE(doc["time_key"].get<std::string>(), std::string("TPOT (ms)"));
    const json& options = doc["options"];
    QVERIFY(!options.empty());
    QCOMPARE(doc["pareto"][0].get<int>(), 1);
    QVERIFY(doc["feasible"].get<long long>() >= static_cast<long long>(options.size()));
    QVERIFY(doc["considered"].get<long long>() > doc["feasible"].get<long long>());
    int rank = 0;
    for (const auto& o : options) {
        QCOMPARE(o["rank"].get<int>(), ++rank);
        // The example names one GPU type: every option is on it.
        QCOMPARE(o["gpu"].get<std::string>(), std::string("nvidia-h100-sxm"));
        QVERIFY(o["fits"].get<bool>() && o["meets_targets"].get<bool>());
        // Its targets: first token within 2,000 ms, 60 ms per output token.
        QVERIFY2(o["inference"]["tpot_ms"].get<double>() <= 60, o.dump().c_str());
        QVERIFY2(o["inference"]["ttft_ms"].get<double>() <= 2000, o.dump().c_str());
        // Priced at the catalog's $2.99 per H100-hour, 4 significant digits.
        const double gpus = o["count"].get<int>() * o["replicas"].get<int>();
        QVERIFY2(qAbs(o["usd_per_hour"].get<double>() - 2.99 * gpus) < 0.005 * gpus, o.dump().c_str());
        // 70B weights in 16 bits are 131 GiB: more than one 80 GB GPU, so
        // bf16 needs TP >= 2; 8-bit weights (65.7 GiB) may fit one.
        if (o["precision"] == "bf16")
            QVERIFY2(o["tp"].get<int>() >= 2, o.dump().c_str());
        // An "80 GB" H100 holds 80 GiB, 99.56% of it usable (usable_memory_fraction);
        // a replica holding as many users as fit comes close to it.
        QVERIFY2(o["memory_gib_per_gpu"].get<double>() <= 80 * 0.9956, o.dump().c_str());
    }
}

void TestCliCommands::planTop()
{
    const Result all = runCli({"plan", serveExample(), "--top", "1000"});
    const Result top = runCli({"plan", serveExample(), "--top", "1"});
    QVERIFY2(all.code == 0 && top.code == 0, describe(top));
    const json a = json::parse(all.out);
    const json t = json::parse(top.out);
    // --top 1 keeps rank 1 and the rest of the Pareto front, nothing else.
    QCOMPARE(t["pareto"], a["pareto"]);
    QCOMPARE(t["options"].size(), a["pareto"].size());
    for (const auto& o : t["options"])
        QVERIFY(std::find(a["pareto"].begin(), a["pareto"].end(), o["rank"]) != a["pareto"].end());
    QCOMPARE(t["options"][0], a["options"][0]);
    QCOMPARE(t["feasible"], a["feasible"]);
}

void TestCliCommands::planTable()
{
    const Result r = runCli({"plan", serveExample(), "--format", "table"});
    QVERIFY2(r.code == 0, describe(r));
    const json doc = json::parse(runCli({"plan", serveExample()}).out);
    // Line 1: the scenario name; line 2: the counts and the ranking keys.
    const std::string head = doc["scenario"].get<std::string>() + "\n" +
                             std::to_string(doc["considered"].get<long long>()) + " configurations estimated, " +
                             std::to_string(doc["feasible"].get<long long>()) +
                             " fit and meet the targets with probability 0.9 or more. Ranked by USD per million output "
                             "tokens, then TPOT (ms), at that confidence.\n\n";
    QCOMPARE(r.out.substr(0, head.size()), head);
    // Rank 1, starred as a front member, with its GPU and "why" line.
    const auto& first = doc["options"][0];
    char line[64];
    std::snprintf(line, sizeof line, "  1* %-24s x%-5d", first["gpu"].get<std::string>().c_str(),
                  first["count"].get<int>() * first["replicas"].get<int>());
    QVERIFY2(contains(r.out, line), r.out.c_str());
    QVERIFY(contains(r.out, "      " + first["why"].get<std::string>() + "\n"));
    QVERIFY(contains(r.out, "(* = on the cost-vs-time Pareto front; columns: USD per million output tokens, TPOT (ms))\n"));
}

void TestCliCommands::planAllGpus()
{
    // ResNet-18, batch 100 at fp32: ranked by USD per million images over the
    // whole catalog; a vision model has no tensor parallelism.
    const Result r = runCli({"plan", resnetExample()});
    QVERIFY2(r.code == 0, describe(r));
    const json doc = json::parse(r.out);
    QCOMPARE(doc["cost_key"].get<std::string>(), std::string("USD per million images"));
    QCOMPARE(doc["time_key"].get<std::string>(), std::string("batch latency (ms)"));
    // Default --top 10: ranks 1-10, then only the Pareto front members beyond them.
    const json& options = doc["options"];
    QVERIFY(options.size() >= 10);
    for (std::size_t i = 0; i < options.size(); ++i) {
        const int rank = options[i]["rank"].get<int>();
        if (i < 10)
            QCOMPARE(rank, int(i) + 1);
        else
            QVERIFY(std::find(doc["pareto"].begin(), doc["pareto"].end(), rank) != doc["pareto"].end());
    }
    for (const auto& o : options) {
        QCOMPARE(o["tp"].get<int>(), 1);
        QVERIFY(o["inference"].contains("latency_ms") && o["inference"].contains("samples_per_s"));
    }
}

void TestCliCommands::rentVsBuyJson()
{
    const Result r = runCli({"rent-vs-buy", serveExample(), "--format", "json"});
    QVERIFY2(r.code == 0, describe(r));
    const json doc = json::parse(r.out);
    QCOMPARE(doc["format"].get<std::string>(), std::string("gpuplanner-rent-vs-buy"));
    QCOMPARE(doc["results"].size(), std::size_t(1)); // the example's one GPU type
    const json& h = doc["results"][0];
    QCOMPARE(h["gpu"].get<std::string>(), std::string("nvidia-h100-sxm"));
    QCOMPARE(h["count"].get<int>(), 2);
    // 730 h a month x 0.7 utilization x 2 GPUs = 1,022 busy GPU-hours.
    QVERIFY(qAbs(h["used_gpu_hours_per_month"].get<double>() - 1022) < 1e-9);
    QCOMPARE(h["on_demand_usd_per_gpu_hour"].get<double>(), 2.99);
    QCOMPARE(h["spot_usd_per_gpu_hour"].get<double>(), 1.6);
    QVERIFY(qAbs(h["reserved_usd_per_gpu_hour"].get<double>() - 1.794) < 1e-12); // 0.6 x 2.99
    QCOMPARE(h["purchase_usd_per_gpu"].get<double>(), 30000.0);
    // Defaults: 0.7 kW x PUE 1.3 x $0.12 = $0.1092/h; 30,000 / (2.99 - 0.1092) =
    // 10,413.77 h = 39.6% of 3 x 8,760 h.
    QVERIFY(qAbs(h["energy_usd_per_gpu_hour"].get<double>() - 0.1092) < 1e-12);
    QVERIFY(qAbs(h["break_even_gpu_hours"].get<double>() - 10413.77) < 0.01);
    QVERIFY(qAbs(h["break_even_utilization"].get<double>() - 0.39626) < 1e-5);
    // Month: 60,000 up front / (1,022 x 2.99 - 1,022 x 0.1092 = 2,944.18) = 20.4 -> 21.
    QCOMPARE(h["break_even_month"].get<int>(), 21);
    QCOMPARE(h["curves"].size(), std::size_t(4));
    QCOMPARE(h["curves"][0]["label"].get<std::string>(), std::string("Rent on-demand"));
    QCOMPARE(h["curves"][3]["label"].get<std::string>(), std::string("Own"));
    QCOMPARE(h["curves"][3]["cumulative_usd_by_month"][0].get<double>(), 60000.0);
    QVERIFY(qAbs(h["curves"][0]["cumulative_usd_by_month"][1].get<double>() - 1022 * 2.99) < 1e-6);
    QVERIFY(contains(h["verdict"].get<std::string>(), "buying wins from month 21"));
}

void TestCliCommands::rentVsBuyTable()
{
    const Result r = runCli({"rent-vs-buy", serveExample(), "--format", "table"});
    QVERIFY2(r.code == 0, describe(r));
    QCOMPARE(r.out.substr(0, r.out.find('\n') + 1),
             std::string("gpu                        count  rent $/h  spot $/h      buy $ power $/h break-even h     util\n"));
    QVERIFY2(contains(r.out, "nvidia-h100-sxm                2      2.99     $1.60      30000     0.109        10414      40%\n"),
             r.out.c_str());
    QVERIFY(contains(r.out, "    Owning pays off after 10414 busy GPU-hours (40% utilization over 3 years) before hosting "
                            "and staff; at 70% utilization buying wins from month 21.\n"));
    // The default format is the table.
    QCOMPARE(runCli({"rent-vs-buy", serveExample()}).out, r.out);
}

void TestCliCommands::rulesJson()
{
    const Result r = runCli({"rules", "--format", "json"});
    QVERIFY2(r.code == 0, describe(r));
    const json doc = json::parse(r.out);
    QCOMPARE(doc["format"].get<std::string>(), std::string("gpuplanner-rules"));
    QCOMPARE(doc["rules"].size(), std::size_t(20));
    int holds = 0, corrected = 0, depends = 0;
    for (const auto& rule : doc["rules"]) {
        const std::string v = rule["verdict"].get<std::string>();
        holds += v == "holds";
        corrected += v == "corrected";
        depends += v == "depends";
    }
    // issue #12: 70B on 8x H100 became "depends", the A100-vs-RTX 3080 price rule "corrected"; spot 60-90%
    // (depends), PUE (holds), H100 a third of the A100's time (holds), H200 doubles 70B (depends) were added.
    // Since LLM Foundry's A100 rows are read with their Triton attention, the H100 is 2.46x the A100 at
    // BF16, under the rule's 2.5x: that rule "depends" (on FP8).
    QCOMPARE(holds, 8);
    QCOMPARE(corrected, 5);
    QCOMPARE(depends, 7);
    // The A100 break-even: $10,000 / ($3.67 - 0.4 kW x 1.3 x $0.12) = 2,771.9 h.
    const json& rvb = doc["rules"][6];
    QCOMPARE(rvb["id"].get<std::string>(), std::string("rent-vs-buy-2600h"));
    QVERIFY(contains(rvb["finding"].get<std::string>(), "break-even after 2772 GPU-hours at the hyperscaler rate"));
}

void TestCliCommands::rulesTable()
{
    const Result r = runCli({"rules"});
    QVERIFY2(r.code == 0, describe(r));
    QVERIFY(r.out.rfind("[holds] \"Plan for roughly 16 bytes per parameter", 0) == 0);
    QVERIFY(contains(r.out, "[corrected] \"The H100 delivers up to 3,958 TFLOPS at FP8 precision.\"\n"));
    QVERIFY(contains(r.out, "    Dense FP8 is 1979 TFLOPS; 3,958 is the 2:4-sparse figure."));
    QCOMPARE(runCli({"rules", "--format", "table"}).out, r.out);
}

void TestCliCommands::gpusValues()
{
    const json doc = json::parse(runCli({"gpus", "--format", "json"}).out);
    const auto h100 = std::find_if(doc.begin(), doc.end(), [](const json& g) { return g["id"] == "nvidia-h100-sxm"; });
    QVERIFY(h100 != doc.end());
    QCOMPARE((*h100)["name"].get<std::string>(), std::string("H100 SXM5 80GB"));
    QCOMPARE((*h100)["tier"].get<std::string>(), std::string("training-datacenter"));
    QCOMPARE((*h100)["memory_gb"].get<double>(), 80.0);
    QCOMPARE((*h100)["memory_bandwidth_gbps"].get<double>(), 3350.0);
    QCOMPARE((*h100)["bf16_tflops"].get<double>(), 989.4);
    QCOMPARE((*h100)["price_hour_usd"]["typical"].get<double>(), 2.99);
    QCOMPARE((*h100)["price_hour_usd"]["spot"].get<double>(), 1.6);
    QCOMPARE((*h100)["purchase_usd"].get<double>(), 30000.0);
    const Result table = runCli({"gpus", "--format", "table"});
    QVERIFY2(table.code == 0, describe(table));
    QVERIFY(table.out.rfind("id                             tier                    mem GB  BW GB/s  BF16 TF   FP8 TF  "
                            "TDP W      $/h     buy $ prices seen",
                            0) == 0);
    QVERIFY2(contains(table.out, "nvidia-h100-sxm                training-datacenter         80     3350    989.4   "
                                 "1978.9    700     2.99     30000 2025-08..2026-06\n"),
             table.out.c_str());
}

void TestCliCommands::presetsValues()
{
    const json doc = json::parse(runCli({"presets", "--format", "json"}).out);
    const auto it = std::find_if(doc.begin(), doc.end(), [](const json& p) { return p["id"] == "llama-3.1-8b"; });
    QVERIFY(it != doc.end());
    // Counted by hand in tst_estimate: 8,030,261,248 parameters.
    QCOMPARE((*it)["params"].get<double>(), 8030261248.0);
    QCOMPARE((*it)["active_params"].get<double>(), 8030261248.0);
    QCOMPARE((*it)["layers"].get<int>(), 32);
    QCOMPARE((*it)["kv_heads"].get<int>(), 8);
    QCOMPARE((*it)["vocab"].get<int>(), 128256);
    const Result table = runCli({"presets", "--format", "table"});
    QVERIFY2(table.code == 0, describe(table));
    QVERIFY2(contains(table.out, "llama-3.1-8b       Llama 3.1 8B               decoder       8.03B      8.03B     32    "
                                 "4096     32      8   128256\n"),
             table.out.c_str());
}

void TestCliCommands::usageErrors_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("expect");
    QTest::addRow("plan without file") << QStringList{"plan"} << "plan needs exactly one scenario FILE";
    QTest::addRow("plan --top 0") << QStringList{"plan", "{SERVE}", "--top", "0"}
                                  << "--top must be an integer from 1 to 1000, got \"0\"";
    QTest::addRow("plan csv") << QStringList{"plan", "{SERVE}", "--format", "csv"} << "--format must be";
    QTest::addRow("rent-vs-buy without file") << QStringList{"rent-vs-buy"}
                                              << "rent-vs-buy needs exactly one scenario FILE";
    QTest::addRow("rent-vs-buy unknown gpu") << QStringList{"rent-vs-buy", "{SERVE}", "--gpu", "nvidia-h100-sxn"}
                                             << "nvidia-h100-sxn";
    QTest::addRow("rules with argument") << QStringList{"rules", "x"} << "rules takes no arguments";
    QTest::addRow("presets with argument") << QStringList{"presets", "x"} << "presets takes no arguments";
}

void TestCliCommands::usageErrors()
{
    QFETCH(QStringList, args);
    QFETCH(QString, expect);
    std::vector<std::string> argv;
    for (const QString& a : args)
        argv.push_back(a == QLatin1String("{SERVE}") ? serveExample() : a.toStdString());
    const Result r = runCli(argv);
    QVERIFY2(r.code == 2, describe(r));
    QVERIFY(r.out.empty());
    QVERIFY2(contains(r.err, expect.toStdString()), describe(r));
}

QTEST_APPLESS_MAIN(TestCliCommands)
#include "tst_cli_commands.moc"
