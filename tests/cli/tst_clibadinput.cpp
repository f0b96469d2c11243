// The command-line contract on bad input (docs: shared/spec/scenario-format.md),
// driven in-process through gp::cli::run: exit 2, nothing on stdout and the key
// path on stderr for every broken key of the spec; every problem reported and the
// file named; and absurd but valid scenarios exit 0 with finite numbers.
#include <QtTest>

#include "cli_scenarios.h"

class TestCliBadInput : public QObject, protected CliFiles {
    Q_OBJECT

private slots:
    void initTestCase();

    // Bad input: exit 2, nothing on stdout, the key path on stderr
    void badInput_data();
    void badInput();
    void everyProblemReported();
    void fileNamedInErrors();

    // Absurd but valid: exit 0 with finite numbers
    void absurdButValid_data();
    void absurdButValid();
};

void TestCliBadInput::initTestCase()
{
    setUpFiles();
}

// ---------------------------------------------------------------------------
// Bad input

void TestCliBadInput::badInput_data()
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

void TestCliBadInput::badInput()
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

void TestCliBadInput::everyProblemReported()
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

void TestCliBadInput::fileNamedInErrors()
{
    const std::string file = writeFile("named.gpuplan.json", patched(R"({"pricing": {"pue": 0.5}})"));
    const Result r = runCli({"estimate", file});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.rfind(file + ": pricing.pue: ", 0) == 0, describe(r));
}

// ---------------------------------------------------------------------------
// Absurd but valid

void TestCliBadInput::absurdButValid_data()
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

void TestCliBadInput::absurdButValid()
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
QTEST_APPLESS_MAIN(TestCliBadInput)
#include "tst_clibadinput.moc"
