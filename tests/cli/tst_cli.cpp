// The command-line contract (docs: shared/spec/scenario-format.md), driven
// in-process through gp::cli::run with string streams: exit codes, what goes to
// stdout and stderr, and the documents it prints.
#include <QtTest>

#include "cli_runner.h"
#include "core/hardware/catalog.h"
#include "app/cli/cli.h"
#include "core/base/errors.h"
#include "core/estimate/estimate.h"
#include "core/model/model.h"
#include "core/model/presets.h"
#include "core/scenario/scenario.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using nlohmann::json;

namespace {

std::vector<std::string> exampleFiles()
{
    std::vector<std::string> files;
    for (const auto& entry : std::filesystem::directory_iterator(examplesDir())) {
        const std::string name = entry.path().filename().string();
        if (name.size() > 13 && name.substr(name.size() - 13) == ".gpuplan.json")
            files.push_back(entry.path().string());
    }
    std::sort(files.begin(), files.end());
    return files;
}

std::string readText(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

void writeBytes(const std::string& path, const QByteArray& bytes)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.constData(), static_cast<std::streamsize>(bytes.size()));
}

/// A valid training scenario that also carries an inference section, so one
/// merge patch can break any key of the spec.
json baseScenario()
{
    return json::parse(R"({
      "format": "gpuplanner-scenario",
      "version": 1,
      "name": "bad-input base",
      "model": {"preset": "llama-3.2-1b"},
      "workload": {
        "mode": "training",
        "runtime": "eager",
        "training": {"method": "full", "precision": "amp_bf16", "optimizer": "adamw",
                     "micro_batch": 2, "seq_len": 512, "dataset_tokens": 1e8, "epochs": 1},
        "inference": {"precision": "bf16", "batch": 4, "prompt_tokens": 512, "output_tokens": 128}
      },
      "hardware": {"gpus": ["nvidia-h100-sxm"], "count": 1, "tp": 1, "pp": 1, "zero": 0},
      "pricing": {"model": "on_demand", "utilization": 0.8}
    })");
}

/// The base scenario with an RFC 7386 merge patch applied (null deletes a key).
QByteArray patched(const char* patch)
{
    json doc = baseScenario();
    doc.merge_patch(json::parse(patch));
    return QByteArray::fromStdString(doc.dump(2));
}

QByteArray garbageBytes()
{
    // A PNG signature followed by deterministic noise with NULs and high bytes.
    QByteArray b("\x89PNG\r\n\x1a\n", 8);
    quint32 x = 2463534242u;
    for (int i = 0; i < 4096; ++i) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        b.append(static_cast<char>(x & 0xff));
    }
    b[100] = '\0';
    return b;
}

QByteArray hugeScenario()
{
    // Syntactically a scenario, but over the 16 MiB limit: a 17 MiB "notes" string.
    QByteArray b = R"({"format": "gpuplanner-scenario", "version": 1, "notes": ")";
    b.append(QByteArray(17 << 20, 'x'));
    b.append(R"(", "model": {"preset": "gpt2-124m"}, "workload": {"mode": "inference"}})");
    return b;
}

/// Walks a JSON document; records the path of every number that is not finite
/// or is negative.
void badNumbers(const json& j, const std::string& path, std::vector<std::string>& out)
{
    if (j.is_object()) {
        for (auto it = j.begin(); it != j.end(); ++it)
            badNumbers(it.value(), path + "." + it.key(), out);
    } else if (j.is_array()) {
        for (std::size_t i = 0; i < j.size(); ++i)
            badNumbers(j[i], path + "[" + std::to_string(i) + "]", out);
    } else if (j.is_number()) {
        const double v = j.get<double>();
        if (!std::isfinite(v) || v < 0)
            out.push_back(path + " = " + j.dump());
    }
}

bool finiteNonNegative(double v) { return std::isfinite(v) && v >= 0; }

} // namespace

class TestCli : public QObject {
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

    // Bad input: exit 2, nothing on stdout, the key path on stderr
    void badInput_data();
    void badInput();
    void everyProblemReported();
    void fileNamedInErrors();

    // Absurd but valid: exit 0 with finite numbers
    void absurdButValid_data();
    void absurdButValid();

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

private:
    std::string writeFile(const std::string& name, const QByteArray& bytes);

    QTemporaryDir m_tmp;
    std::size_t m_catalogSize = 0;
};

std::string TestCli::writeFile(const std::string& name, const QByteArray& bytes)
{
    const std::string path = m_tmp.path().toStdString() + "/" + name;
    writeBytes(path, bytes);
    return path;
}

void TestCli::initTestCase()
{
    QVERIFY(m_tmp.isValid());
    // Isolate from the developer's own catalog overlay.
    qputenv("GPUPLANNER_CATALOG_OVERLAY", (m_tmp.path() + "/no-overlay.json").toUtf8());
    m_catalogSize = gp::Catalog::builtin().gpus().size();
    QCOMPARE(m_catalogSize, std::size_t(48));
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
// Bad input

void TestCli::badInput_data()
{
    // args: "{FILE}" is replaced by the path the content is written to, "{DIR}"
    // by the temporary directory. expect: every string must occur in stderr.
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QStringList>("expect");

    const QStringList est{"estimate", "{FILE}"};

    // Values out of range or of the wrong type
    QTest::addRow("micro_batch negative") << patched(R"({"workload": {"training": {"micro_batch": -4}}})") << est
                                          << QStringList{"workload.training.micro_batch: must be a positive integer", "-4"};
    QTest::addRow("micro_batch zero") << patched(R"({"workload": {"training": {"micro_batch": 0}}})") << est
                                      << QStringList{"workload.training.micro_batch"};
    QTest::addRow("micro_batch float 2.5") << patched(R"({"workload": {"training": {"micro_batch": 2.5}}})") << est
                                           << QStringList{"workload.training.micro_batch", "2.5"};
    QTest::addRow("micro_batch too large") << patched(R"({"workload": {"training": {"micro_batch": 1000001}}})")
                                           << est << QStringList{"workload.training.micro_batch"};
    QTest::addRow("micro_batch bool") << patched(R"({"workload": {"training": {"micro_batch": true}}})") << est
                                      << QStringList{"workload.training.micro_batch"};
    QTest::addRow("seq_len as string") << patched(R"({"workload": {"training": {"seq_len": "2048"}}})") << est
                                       << QStringList{"workload.training.seq_len"};
    QTest::addRow("inference batch 2.5") << patched(R"({"workload": {"inference": {"batch": 2.5}}})") << est
                                         << QStringList{"workload.inference.batch"};
    QTest::addRow("inference batch zero") << patched(R"({"workload": {"mode": "inference", "inference": {"batch": 0}}})")
                                          << est << QStringList{"workload.inference.batch"};
    QTest::addRow("utilization 1.5") << patched(R"({"pricing": {"utilization": 1.5}})") << est
                                     << QStringList{"pricing.utilization"};
    QTest::addRow("utilization 0") << patched(R"({"pricing": {"utilization": 0}})") << est
                                   << QStringList{"pricing.utilization"};
    QTest::addRow("pue 0.5") << patched(R"({"pricing": {"pue": 0.5}})") << est << QStringList{"pricing.pue"};
    QTest::addRow("pricing model unknown") << patched(R"({"pricing": {"model": "free"}})") << est
                                           << QStringList{"pricing.model", "on_demand"};
    QTest::addRow("negative dataset_tokens") << patched(R"({"workload": {"training": {"dataset_tokens": -1e9}}})")
                                             << est << QStringList{"workload.training.dataset_tokens"};
    QTest::addRow("dataset tokens and samples")
        << patched(R"({"workload": {"training": {"dataset_samples": 1000}}})") << est
        << QStringList{"workload.training.dataset_samples", "not both"};
    QTest::addRow("epochs zero") << patched(R"({"workload": {"training": {"epochs": 0}}})") << est
                                 << QStringList{"workload.training.epochs"};
    QTest::addRow("checkpointing as bool")
        << patched(R"({"workload": {"training": {"activation_checkpointing": true}}})") << est
        << QStringList{"workload.training.activation_checkpointing"};
    QTest::addRow("name as number") << patched(R"({"name": 42})") << est << QStringList{"name: must be a string"};

    // Wrong types for whole sections
    QTest::addRow("model as array") << patched(R"({"model": [1, 2]})") << est
                                    << QStringList{"model: must be an object"};
    QTest::addRow("workload as string") << patched(R"({"workload": "training"})") << est
                                        << QStringList{"workload: must be an object"};
    QTest::addRow("hardware as number") << patched(R"({"hardware": 8})") << est
                                        << QStringList{"hardware: must be an object"};

    // Not JSON / not a scenario at all
    {
        const QByteArray full = patched("{}");
        QTest::addRow("truncated JSON") << full.left(full.size() / 2) << est << QStringList{"not valid JSON"};
    }
    QTest::addRow("binary garbage") << garbageBytes() << est
                                    << QStringList{"contains a NUL byte at offset 35; not a text file"};
    QTest::addRow("empty file") << QByteArray() << est << QStringList{"not valid JSON"};
    QTest::addRow("whitespace only") << QByteArray(" \n\t\n") << est << QStringList{"not valid JSON"};
    QTest::addRow("top-level array") << QByteArray(R"([{"format": "gpuplanner-scenario", "version": 1}])") << est
                                     << QStringList{"must be a JSON object", "array"};
    QTest::addRow("top-level string") << QByteArray(R"("gpuplanner-scenario")") << est
                                      << QStringList{"must be a JSON object"};
    QTest::addRow("deeply nested arrays") << QByteArray(100000, '[') << est << QStringList{"nested"};
    QTest::addRow("deeply nested objects")
        << QByteArray(R"({"format": "gpuplanner-scenario", "version": 1, "notes": )") + QByteArray(5000, '[')
               + QByteArray(5000, ']') + "}"
        << est << QStringList{"nested"};
    QTest::addRow("huge file") << hugeScenario() << est << QStringList{"16 MiB"};
    QTest::addRow("bare NaN") << patched("{}").replace("\"micro_batch\": 2", "\"micro_batch\": NaN") << est
                              << QStringList{"not valid JSON"};
    QTest::addRow("bare Infinity") << patched("{}").replace("\"epochs\": 1", "\"epochs\": Infinity") << est
                                   << QStringList{"not valid JSON"};
    // Grammatically JSON, but beyond double: a bad-input error (exit 2) naming the number, not an internal error.
    QTest::addRow("number overflow 1e999") << patched("{}").replace("\"epochs\": 1", "\"epochs\": 1e999") << est
                                           << QStringList{"1e999"};
    QTest::addRow("trailing comma") << QByteArray(R"({"format": "gpuplanner-scenario", "version": 1,})") << est
                                    << QStringList{"not valid JSON"};
    QTest::addRow("invalid UTF-8 in a string") << patched("{}").replace("bad-input base", "bad-input \xff\xfe base")
                                               << est << QStringList{"UTF-8"};
    QTest::addRow("comments") << QByteArray("// a comment\n") + patched("{}") << est
                              << QStringList{"not valid JSON"};

    // Format and version
    QTest::addRow("future version 2") << patched(R"({"version": 2})") << est << QStringList{"version", "newer"};
    QTest::addRow("version 0") << patched(R"({"version": 0})") << est << QStringList{"version"};
    QTest::addRow("version as string") << patched(R"({"version": "1"})") << est
                                       << QStringList{"version: must be the integer 1"};
    QTest::addRow("version 1.5") << patched(R"({"version": 1.5})") << est << QStringList{"version"};
    QTest::addRow("missing version") << patched(R"({"version": null})") << est
                                     << QStringList{"version: missing"};
    QTest::addRow("missing format") << patched(R"({"format": null})") << est << QStringList{"format: missing"};
    QTest::addRow("wrong format") << patched(R"({"format": "gpuplanner-estimate"})") << est
                                  << QStringList{"format: must be \"gpuplanner-scenario\""};

    // Model
    QTest::addRow("missing model") << patched(R"({"model": null})") << est << QStringList{"model: missing"};
    QTest::addRow("empty model") << patched(R"({"model": {"preset": null}})") << est
                                 << QStringList{"model: give one of"};
    QTest::addRow("two model forms") << patched(R"({"model": {"params": 8e9}})") << est
                                     << QStringList{"model:", "exactly one"};
    QTest::addRow("unknown preset") << patched(R"({"model": {"preset": "llama-9-9000b"}})") << est
                                    << QStringList{"model.preset", "llama-9-9000b", "llama-3.1-8b"};
    QTest::addRow("preset as number") << patched(R"({"model": {"preset": 8}})") << est
                                      << QStringList{"model.preset"};
    QTest::addRow("params too large") << patched(R"({"model": {"preset": null, "params": 1e15}})") << est
                                      << QStringList{"model.params"};
    QTest::addRow("params too small") << patched(R"({"model": {"preset": null, "params": 1000}})") << est
                                      << QStringList{"model.params"};
    QTest::addRow("hf_config missing hidden_size")
        << patched(R"({"model": {"preset": null, "hf_config": {"model_type": "llama", "num_hidden_layers": 16,
                       "num_attention_heads": 32, "num_key_value_heads": 8, "intermediate_size": 8192,
                       "vocab_size": 128256}}})")
        << est << QStringList{"model.hf_config.hidden_size", "missing"};
    QTest::addRow("hf_config unsupported type")
        << patched(R"({"model": {"preset": null, "hf_config": {"model_type": "mamba", "hidden_size": 768}}})") << est
        << QStringList{"model.hf_config.model_type", "mamba"};
    QTest::addRow("explicit kv_heads not dividing heads")
        << patched(R"({"model": {"preset": null, "layers": 32, "hidden": 4096, "heads": 32, "kv_heads": 5,
                       "ffn_hidden": 14336, "vocab": 128256}})")
        << est << QStringList{"model.kv_heads", "divide"};
    QTest::addRow("explicit hidden negative")
        << patched(R"({"model": {"preset": null, "layers": 32, "hidden": -4096, "heads": 32,
                       "ffn_hidden": 14336, "vocab": 128256}})")
        << est << QStringList{"model.hidden"};
    QTest::addRow("explicit learned without max_positions")
        << patched(R"({"model": {"preset": null, "layers": 12, "hidden": 768, "heads": 12, "ffn_hidden": 3072,
                       "vocab": 50257, "positional": "learned"}})")
        << est << QStringList{"model.max_positions"};

    // Workload choices
    QTest::addRow("mode both") << patched(R"({"workload": {"mode": "both"}})") << est
                               << QStringList{"workload.mode", "\"training\", \"inference\""};
    QTest::addRow("mode missing") << patched(R"({"workload": {"mode": null}})") << est
                                  << QStringList{"workload.mode: missing"};
    QTest::addRow("runtime unknown") << patched(R"({"workload": {"runtime": "turbo"}})") << est
                                     << QStringList{"workload.runtime"};
    QTest::addRow("training precision fp64") << patched(R"({"workload": {"training": {"precision": "fp64"}}})")
                                             << est << QStringList{"workload.training.precision", "fp64"};
    QTest::addRow("inference precision fp64") << patched(R"({"workload": {"inference": {"precision": "fp64"}}})")
                                              << est << QStringList{"workload.inference.precision", "fp64"};
    QTest::addRow("optimizer unknown") << patched(R"({"workload": {"training": {"optimizer": "lion"}}})") << est
                                       << QStringList{"workload.training.optimizer", "lion"};
    QTest::addRow("method unknown") << patched(R"({"workload": {"training": {"method": "dora"}}})") << est
                                    << QStringList{"workload.training.method"};
    QTest::addRow("lora_targets unknown module")
        << patched(R"({"workload": {"training": {"method": "lora", "lora_targets": ["q_proj", "qkv_proj"]}}})") << est
        << QStringList{"workload.training.lora_targets[1]", "qkv_proj"};
    QTest::addRow("lora_targets empty")
        << patched(R"({"workload": {"training": {"method": "lora", "lora_targets": []}}})") << est
        << QStringList{"workload.training.lora_targets"};
    QTest::addRow("lora on a vision model")
        << patched(R"({"model": {"preset": "resnet50"}, "workload": {"training": {"method": "lora"}}})") << est
        << QStringList{"workload.training.method"};
    QTest::addRow("gpt2 seq_len beyond learned positions")
        << patched(R"({"model": {"preset": "gpt2-124m"}, "workload": {"training": {"seq_len": 2048}}})") << est
        << QStringList{"workload.training.seq_len", "1024"};

    // Hardware
    QTest::addRow("unknown GPU id") << patched(R"({"hardware": {"gpus": ["nvidia-h100-sxn"]}})") << est
                                    << QStringList{"hardware.gpus[0]", "did you mean", "nvidia-h100-sxm"};
    QTest::addRow("second GPU unknown")
        << patched(R"({"hardware": {"gpus": ["nvidia-h100-sxm", "nvidia-rtx-9090"]}})") << est
        << QStringList{"hardware.gpus[1]", "did you mean"};
    QTest::addRow("gpu id not a string") << patched(R"({"hardware": {"gpus": [4090]}})") << est
                                         << QStringList{"hardware.gpus[0]"};
    QTest::addRow("gpus empty array") << patched(R"({"hardware": {"gpus": []}})") << est
                                      << QStringList{"hardware.gpus"};
    QTest::addRow("tp x pp not dividing count")
        << patched(R"({"hardware": {"count": 6, "tp": 4}})") << est << QStringList{"hardware.count", "tp x pp"};
    QTest::addRow("tp x pp above count")
        << patched(R"({"hardware": {"count": 2, "tp": 2, "pp": 2}})") << est << QStringList{"hardware.count"};
    QTest::addRow("zero 4") << patched(R"({"hardware": {"zero": 4}})") << est << QStringList{"hardware.zero"};
    QTest::addRow("count 0") << patched(R"({"hardware": {"count": 0}})") << est << QStringList{"hardware.count"};
    QTest::addRow("tp 0") << patched(R"({"hardware": {"tp": 0}})") << est << QStringList{"hardware.tp"};

    // The file itself
    QTest::addRow("directory instead of file") << QByteArray() << QStringList{"estimate", "{DIR}"}
                                               << QStringList{"is a directory"};
    QTest::addRow("nonexistent file") << QByteArray() << QStringList{"estimate", "{DIR}/no-such.gpuplan.json"}
                                      << QStringList{"no such file", "no-such.gpuplan.json"};

    // Command line
    QTest::addRow("unknown CLI option") << patched("{}") << QStringList{"estimate", "{FILE}", "--colour"}
                                        << QStringList{"unknown option", "--colour"};
    QTest::addRow("unknown command") << QByteArray() << QStringList{"estimat", "{FILE}"}
                                     << QStringList{"unknown command", "estimat"};
    QTest::addRow("--format xml") << patched("{}") << QStringList{"estimate", "{FILE}", "--format", "xml"}
                                  << QStringList{"--format", "xml"};
    QTest::addRow("--format without value") << patched("{}") << QStringList{"estimate", "{FILE}", "--format"}
                                            << QStringList{"--format needs a value"};
    QTest::addRow("gpus --format csv") << QByteArray() << QStringList{"gpus", "--format", "csv"}
                                       << QStringList{"--format"};
    QTest::addRow("estimate without file") << QByteArray() << QStringList{"estimate"}
                                           << QStringList{"exactly one"};
    QTest::addRow("estimate with two files") << patched("{}") << QStringList{"estimate", "{FILE}", "{FILE}"}
                                             << QStringList{"exactly one"};
    QTest::addRow("--gpu unknown id") << patched("{}") << QStringList{"estimate", "{FILE}", "--gpu", "nvidia-h1OO"}
                                      << QStringList{"hardware.gpus[0]", "did you mean"};
    QTest::addRow("validate without dir") << QByteArray() << QStringList{"validate"} << QStringList{"DIR"};
}

void TestCli::badInput()
{
    QFETCH(QByteArray, content);
    QFETCH(QStringList, args);
    QFETCH(QStringList, expect);

    const std::string file = writeFile("bad.gpuplan.json", content);
    std::vector<std::string> argv;
    for (QString a : args) {
        a.replace("{FILE}", QString::fromStdString(file));
        a.replace("{DIR}", m_tmp.path());
        argv.push_back(a.toStdString());
    }
    const Result r = runCli(argv);
    QVERIFY2(r.code == 2, describe(r));
    QVERIFY2(r.out.empty(), describe(r));
    QVERIFY2(!r.err.empty(), describe(r));
    QVERIFY2(r.err.find("internal error") == std::string::npos, describe(r));
    for (const QString& e : expect)
        QVERIFY2(r.err.find(e.toStdString()) != std::string::npos,
                 "expected \"" + e.toUtf8() + "\" in stderr\n" + describe(r));
    // Messages stay readable: no multi-kilobyte dumps of the input.
    QVERIFY2(r.err.size() < 4000, describe(r));
}

void TestCli::everyProblemReported()
{
    // Three independent problems: all three are reported, one line each.
    const std::string file = writeFile(
        "three.gpuplan.json",
        patched(R"({"workload": {"training": {"micro_batch": -4}}, "hardware": {"zero": 7}, "pricing": {"pue": 0.5}})"));
    const Result r = runCli({"estimate", file});
    QVERIFY2(r.code == 2, describe(r));
    QVERIFY(r.out.empty());
    QVERIFY2(std::count(r.err.begin(), r.err.end(), '\n') == 3, describe(r));
    for (const char* key : {"workload.training.micro_batch", "hardware.zero", "pricing.pue"})
        QVERIFY2(r.err.find(key) != std::string::npos, key);
}

void TestCli::fileNamedInErrors()
{
    const std::string file = writeFile("named.gpuplan.json", patched(R"({"pricing": {"pue": 0.5}})"));
    const Result r = runCli({"estimate", file});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.rfind(file + ": pricing.pue: ", 0) == 0, describe(r));
}

// ---------------------------------------------------------------------------
// Absurd but valid

void TestCli::absurdButValid_data()
{
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<bool>("mustNotFit");

    auto all = [](const char* patch) {
        json doc = baseScenario();
        doc.merge_patch(json::parse(patch));
        doc["hardware"]["gpus"] = "all";
        return QByteArray::fromStdString(doc.dump());
    };
    QTest::addRow("params 1e14 training") << all(R"({"model": {"preset": null, "params": 1e14}})") << true;
    QTest::addRow("params 1e14 inference")
        << all(R"({"model": {"preset": null, "params": 1e14}, "workload": {"mode": "inference"}})") << true;
    QTest::addRow("params 1e14 moe")
        << all(R"({"model": {"preset": null, "params": 1e14, "moe": {"experts": 4096, "active": 8}},
                   "workload": {"mode": "inference"}})")
        << true;
    QTest::addRow("seq_len 10M") << all(R"({"workload": {"training": {"seq_len": 10000000}}})") << true;
    QTest::addRow("micro_batch 1M") << all(R"({"workload": {"training": {"micro_batch": 1000000}}})") << true;
    QTest::addRow("micro_batch 1M x seq 10M x accum 1M")
        << all(R"({"workload": {"training": {"micro_batch": 1000000, "seq_len": 10000000, "grad_accum": 1000000,
                   "dataset_tokens": 1e17, "epochs": 100000}}})")
        << true;
    QTest::addRow("inference batch 1M output 10M")
        << all(R"({"workload": {"mode": "inference", "inference": {"batch": 1000000, "output_tokens": 10000000}}})")
        << true;
    QTest::addRow("inference prompt 10M int4")
        << all(R"({"workload": {"mode": "inference", "inference": {"precision": "int4", "batch": 1000000,
                   "prompt_tokens": 10000000, "output_tokens": 10000000}}})")
        << true;
    QTest::addRow("resnet50 batch 1M at 8192 px")
        << all(R"({"model": {"preset": "resnet50"}, "workload": {"training": {"micro_batch": 1000000,
                   "image_size": 8192, "dataset_tokens": null, "dataset_samples": 1e15}}})")
        << true;
    QTest::addRow("resnet50 inference batch 1M")
        << all(R"({"model": {"preset": "resnet50"}, "workload": {"mode": "inference",
                   "inference": {"batch": 1000000, "image_size": 8192}}})")
        << true;
    QTest::addRow("count 1M zero-3")
        << all(R"({"model": {"preset": "llama-3.1-405b"}, "hardware": {"count": 1000000, "zero": 3}})") << false;
    QTest::addRow("tp 8 pp 61 count 999912")
        << all(R"({"model": {"preset": "deepseek-v3"}, "hardware": {"count": 999912, "tp": 8, "pp": 61}})")
        << false;
    QTest::addRow("tiny utilization purchase")
        << all(R"({"pricing": {"model": "purchase", "utilization": 1e-9, "amortization_years": 0.1}})") << false;
    // (amortization_years below 0.1 is refused since issue 20: tst_hostileinput)
}

void TestCli::absurdButValid()
{
    QFETCH(QByteArray, content);
    QFETCH(bool, mustNotFit);

    const std::string file = writeFile("absurd.gpuplan.json", content);
    const Result r = runCli({"estimate", file});
    QVERIFY2(r.code == 0, describe(r));
    QVERIFY2(r.err.find("internal error") == std::string::npos, describe(r));
    const json doc = json::parse(r.out);
    QCOMPARE(doc["results"].size(), m_catalogSize);
    std::vector<std::string> bad;
    badNumbers(doc, "", bad);
    QVERIFY2(bad.empty(), QByteArray::fromStdString(bad.empty() ? std::string() : bad.front()) + " ("
                              + QByteArray::number(qsizetype(bad.size())) + " bad numbers)");
    if (mustNotFit) {
        for (const auto& res : doc["results"])
            QVERIFY2(!res["fits"].get<bool>(), res["gpu"].get<std::string>().c_str());
    }

    // The JSON writer maps non-finite numbers to 0, so also check the raw values.
    const gp::ParsedScenario parsed = gp::parseScenario(content.toStdString());
    const gp::Estimate est = gp::estimate(parsed.scenario, gp::Catalog::builtin());
    for (const auto& e : est.results) {
        const QByteArray where = QByteArray::fromStdString(e.gpuId);
        const auto& m = e.memory;
        for (double v : {m.weights, m.gradients, m.optimizer, m.activations, m.kvCache, m.overhead, m.total(),
                         e.usdPerHour, e.uncertainty.memory, e.uncertainty.throughput})
            QVERIFY2(finiteNonNegative(v), where + ": " + QByteArray::number(v));
        QVERIFY2(m.total() > 0, where);
        QCOMPARE(e.fits, m.total() <= e.capacityBytes);
        if (e.training) {
            const auto& t = *e.training;
            for (double v : {t.tokensPerS, t.samplesPerS, t.stepMs, t.mfu})
                QVERIFY2(finiteNonNegative(v), where + ": " + QByteArray::number(v));
            QVERIFY2(t.samplesPerS > 0 && t.stepMs > 0, where);
            QVERIFY2(t.mfu <= 1.0, where + ": mfu " + QByteArray::number(t.mfu));
            if (t.hours)
                QVERIFY2(finiteNonNegative(*t.hours), where);
            if (t.costUsd)
                QVERIFY2(finiteNonNegative(*t.costUsd), where);
        }
        if (e.inference) {
            const auto& i = *e.inference;
            for (const auto& v : {i.ttftMs, i.tpotMs, i.tokensPerS, i.usdPerMillionTokens, i.samplesPerS, i.latencyMs})
                if (v)
                    QVERIFY2(finiteNonNegative(*v), where + ": " + QByteArray::number(*v));
        }
        for (const auto& term : e.terms)
            QVERIFY2(std::isfinite(term.value), where + " " + QByteArray::fromStdString(term.key));
    }
    // The other formats survive the same numbers.
    QCOMPARE(runCli({"estimate", file, "--format", "table"}).code, 0);
    QCOMPARE(runCli({"estimate", file, "--format", "csv"}).code, 0);
}

// ---------------------------------------------------------------------------
// estimate

void TestCli::examplesPresent()
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

void TestCli::estimateExamples_data()
{
    QTest::addColumn<QString>("file");
    for (const auto& f : exampleFiles())
        QTest::addRow("%s", std::filesystem::path(f).filename().string().c_str()) << QString::fromStdString(f);
}

void TestCli::estimateExamples()
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

void TestCli::examplesAsTableAndCsv_data()
{
    estimateExamples_data();
}

void TestCli::examplesAsTableAndCsv()
{
    QFETCH(QString, file);
    const Result table = runCli({"estimate", file.toStdString(), "--format", "table"});
    QVERIFY2(table.code == 0, describe(table));
    QVERIFY(!table.out.empty());
    const Result csv = runCli({"estimate", file.toStdString(), "--format=csv"});
    QVERIFY2(csv.code == 0, describe(csv));
    QVERIFY(csv.out.rfind("gpu,count,fits,", 0) == 0);
}

void TestCli::unknownKeysWarn()
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

void TestCli::gpuOverride()
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

void TestCli::gpuOverrideUnknown()
{
    const std::string file = examplesDir() + "/llama31-8b-lora-rtx4090.gpuplan.json";
    const Result r = runCli({"estimate", file, "--gpu", "nvidia-h100-sxm", "--gpu", "nvidia-rtx-4909"});
    QVERIFY2(r.code == 2, describe(r));
    QVERIFY(r.out.empty());
    QVERIFY2(r.err.find("hardware.gpus[1]") != std::string::npos, describe(r));
    QVERIFY2(r.err.find("nvidia-rtx-4090") != std::string::npos, describe(r)); // the suggestion
}

void TestCli::csvShape()
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

void TestCli::utf8BomAccepted()
{
    // Editors on Windows write a byte-order mark; it is still the same scenario.
    const std::string path = examplesDir() + "/gpt2-124m-pretrain.gpuplan.json";
    const std::string file = writeFile("bom.gpuplan.json", QByteArray("\xef\xbb\xbf") + QByteArray::fromStdString(readText(path)));
    const Result r = runCli({"estimate", file, "--gpu", "nvidia-h100-sxm"});
    QVERIFY2(r.code == 0, describe(r));
    const Result plain = runCli({"estimate", path, "--gpu", "nvidia-h100-sxm"});
    QCOMPARE(r.out, plain.out);
}

void TestCli::explainAddsTerms()
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

void TestCli::notFittingStillReportsMemory()
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
