// Scenario documents (shared/spec/scenario-format.md): parsing, defaults,
// warnings, errors with their key paths and serialization round trips. That the
// three ways of writing down one architecture estimate the same is in
// tst_scenarioforms.cpp.
#include <QtTest>

#include "scenario_docs.h"

class TestScenario : public QObject {
    Q_OBJECT

private slots:
    void roundTrip_data();
    void roundTrip();
    void serializationIsStable();
    void trainingDatasetSamplesRoundTrip();
    void defaultsApplied();
    void gpusAllForms_data();
    void gpusAllForms();
    void unknownKeysWarnWithPath();
    void knownExtrasDoNotWarn();
    void visionSeqLenWarns();
    void missingWorkloadSectionWarns();
    void errorsCollectedTogether();
    void errorsNameKeyPaths_data();
    void errorsNameKeyPaths();
    void defaultScenarioIsValid();
    void validateScenarioCatchesStructErrors();
    void enumNames();

private:
    json minimal() const;
};

json TestScenario::minimal() const
{
    return json::parse(R"({"format": "gpuplanner-scenario", "version": 1,
                           "model": {"preset": "gpt2-124m"},
                           "workload": {"mode": "training", "training": {}}})");
}

// ---------------------------------------------------------------------------

void TestScenario::roundTrip_data()
{
    QTest::addColumn<QString>("model");
    QTest::addColumn<gp::ModelSpec::Form>("form");
    QTest::addRow("preset") << QString(kLlama31_8bPreset) << gp::ModelSpec::Form::Preset;
    QTest::addRow("explicit") << QString(kLlama31_8bExplicit) << gp::ModelSpec::Form::Explicit;
    QTest::addRow("explicit moe") << QString(kMixtralExplicit) << gp::ModelSpec::Form::Explicit;
    QTest::addRow("hf_config") << QString(kLlama31_8bHf) << gp::ModelSpec::Form::HfConfig;
    QTest::addRow("hf_config gpt2") << QString(kGpt2Hf) << gp::ModelSpec::Form::HfConfig;
    QTest::addRow("params") << QString(R"({"params": 13e9})") << gp::ModelSpec::Form::Params;
    QTest::addRow("params encoder") << QString(R"({"params": 3.4e8, "family": "encoder"})")
                                    << gp::ModelSpec::Form::Params;
    QTest::addRow("params moe") << QString(R"({"params": 47e9, "family": "decoder", "moe": {"experts": 8, "active": 2}})")
                                << gp::ModelSpec::Form::Params;
}

void TestScenario::roundTrip()
{
    QFETCH(QString, model);
    QFETCH(gp::ModelSpec::Form, form);

    const std::string text = fullScenario(model.toUtf8().constData());
    const gp::ParsedScenario first = gp::parseScenario(text);
    QVERIFY2(first.warnings.empty(), warningsText(first));
    QCOMPARE(first.scenario.modelSpec.form, form);

    // Spot-check that the parser read the non-default values at all.
    const gp::Scenario& s = first.scenario;
    QCOMPARE_ENUM(s.mode, gp::Mode::Inference);
    QCOMPARE_ENUM(s.runtime, gp::Runtime::Optimized);
    QCOMPARE_ENUM(s.training.method, gp::TrainMethod::Lora);
    QCOMPARE(s.training.loraTargets, (std::vector<std::string>{"q_proj", "v_proj", "gate_proj", "down_proj"}));
    QCOMPARE_ENUM(s.training.optimizer, gp::Optimizer::AdamW8bit);
    QCOMPARE(s.training.epochs, 2.5);
    QCOMPARE(s.training.datasetTokens, std::optional<double>(5.5e9));
    QCOMPARE(s.inference.kvPrecision, std::optional<gp::InferPrecision>(gp::InferPrecision::INT8));
    QCOMPARE(s.inference.targets.requestsPerS, std::optional<double>(20));
    QCOMPARE(s.hardware.gpus, (std::vector<std::string>{"nvidia-h100-sxm", "nvidia-l40s"}));
    QCOMPARE(s.hardware.zero, 1);
    QCOMPARE_ENUM(s.pricing.model, gp::PricingModel::Spot);
    QCOMPARE(s.pricing.hostingUsdPerGpuYear, 1200.0);
    QCOMPARE(s.name, std::string("Round trip: every key set (ünïcödé ✓)"));

    const std::string saved = gp::scenarioToJson(s);
    const gp::ParsedScenario second = gp::parseScenario(saved);
    QVERIFY2(second.warnings.empty(), warningsText(second));
    compareScenarios(s, second.scenario);
    if (QTest::currentTestFailed())
        qInfo("saved:\n%s", saved.c_str());
}

void TestScenario::serializationIsStable()
{
    // save(load(save(x))) == save(x), byte for byte, for each form.
    for (const char* model : {kLlama31_8bPreset, kLlama31_8bExplicit, kLlama31_8bHf, kGpt2Hf, kMixtralExplicit,
                              R"({"params": 7e9})", R"({"params": 1e9, "family": "vision"})"}) {
        const std::string once = gp::scenarioToJson(gp::parseScenario(fullScenario(model)).scenario);
        const std::string twice = gp::scenarioToJson(gp::parseScenario(once).scenario);
        QCOMPARE(twice, once);
        // And it is the documented format.
        const json doc = json::parse(once);
        QCOMPARE(doc["format"].get<std::string>(), std::string("gpuplanner-scenario"));
        QCOMPARE(doc["version"].get<int>(), 1);
    }
    QCOMPARE(gp::scenarioToJson(gp::defaultScenario()),
             gp::scenarioToJson(gp::parseScenario(gp::scenarioToJson(gp::defaultScenario())).scenario));
}

void TestScenario::trainingDatasetSamplesRoundTrip()
{
    json doc = json::parse(scenarioText(R"({"preset": "resnet50"})", R"({"mode": "training", "training": {
        "precision": "amp_bf16", "optimizer": "sgd_momentum", "micro_batch": 256, "image_size": 224,
        "dataset_samples": 1281167, "epochs": 90}})"));
    const gp::ParsedScenario p = gp::parseScenario(doc.dump());
    QCOMPARE(p.scenario.training.datasetSamples, std::optional<double>(1281167));
    QVERIFY(!p.scenario.training.datasetTokens);
    const gp::ParsedScenario q = gp::parseScenario(gp::scenarioToJson(p.scenario));
    compareScenarios(p.scenario, q.scenario);
}

void TestScenario::defaultsApplied()
{
    const gp::ParsedScenario p = gp::parseScenario(minimal().dump());
    const gp::Scenario& s = p.scenario;
    QVERIFY2(p.warnings.empty(), warningsText(p));
    QCOMPARE(s.hardware.count, 1);
    QCOMPARE(s.hardware.tp, 1);
    QCOMPARE(s.hardware.pp, 1);
    QCOMPARE(s.hardware.zero, 0);
    QVERIFY(s.hardware.gpus.empty()); // = all
    QCOMPARE_ENUM(s.runtime, gp::Runtime::Eager);
    QCOMPARE_ENUM(s.mode, gp::Mode::Training);
    QCOMPARE_ENUM(s.pricing.model, gp::PricingModel::OnDemand);
    QCOMPARE_ENUM(s.training.method, gp::TrainMethod::Full);
    QCOMPARE(s.training.gradAccum, 1);
    QCOMPARE_ENUM(s.training.checkpointing, gp::Checkpointing::None);
    QVERIFY(!s.training.datasetTokens);
    QVERIFY(!s.training.datasetSamples);
    QVERIFY(!s.inference.kvPrecision); // follows precision
    QVERIFY(s.name.empty());
    QCOMPARE(s.model.id, std::string("gpt2-124m"));
    QVERIFY(gp::validateScenario(s).empty());

    // Empty gpus is written back as "all".
    const json saved = json::parse(gp::scenarioToJson(s));
    QCOMPARE(saved["hardware"]["gpus"], json("all"));
    QCOMPARE(saved["hardware"]["count"], json(1));
    QCOMPARE(saved["workload"]["runtime"], json("eager"));

    // An estimate over "all" has one result per catalog GPU.
    const gp::Estimate e = gp::estimate(s, gp::Catalog::builtin());
    QCOMPARE(e.results.size(), gp::Catalog::builtin().gpus().size());
}

void TestScenario::gpusAllForms_data()
{
    QTest::addColumn<QString>("gpus");
    QTest::addColumn<int>("expected"); // -1 = all
    QTest::addRow("string all") << QString(R"("all")") << -1;
    QTest::addRow("array with all") << QString(R"(["all"])") << -1;
    QTest::addRow("one id") << QString(R"(["nvidia-t4"])") << 1;
    QTest::addRow("two ids") << QString(R"(["nvidia-t4", "amd-mi300x"])") << 2;
}

void TestScenario::gpusAllForms()
{
    QFETCH(QString, gpus);
    QFETCH(int, expected);
    json doc = minimal();
    doc["hardware"] = {{"gpus", json::parse(gpus.toStdString())}};
    const gp::ParsedScenario p = gp::parseScenario(doc.dump());
    if (expected < 0)
        QVERIFY(p.scenario.hardware.gpus.empty());
    else
        QCOMPARE(p.scenario.hardware.gpus.size(), std::size_t(expected));
}

void TestScenario::unknownKeysWarnWithPath()
{
    json doc = minimal();
    doc["colour"] = "blue";
    doc["model"]["revision"] = "main";
    doc["workload"]["batch_size"] = 8;
    doc["workload"]["training"]["learning_rate"] = 3e-4;
    doc["workload"]["training"]["targets"] = {{"deadline_hours", 10}, {"loss", 2.0}};
    doc["workload"]["inference"] = {{"temperature", 0.7}, {"targets", {{"p99_ms", 100}}}};
    doc["hardware"] = {{"nodes", 2}};
    doc["pricing"] = {{"currency", "EUR"}};
    const gp::ParsedScenario p = gp::parseScenario(doc.dump());

    std::vector<std::string> paths;
    for (const auto& w : p.warnings) {
        paths.push_back(w.path);
        QVERIFY2(w.message.find("unknown key") != std::string::npos, w.text().c_str());
        QVERIFY2(w.text().rfind(w.path + ": ", 0) == 0, w.text().c_str());
    }
    std::sort(paths.begin(), paths.end());
    std::vector<std::string> expected{"colour",
                                      "hardware.nodes",
                                      "model.revision",
                                      "pricing.currency",
                                      "workload.batch_size",
                                      "workload.inference.targets.p99_ms",
                                      "workload.inference.temperature",
                                      "workload.training.learning_rate",
                                      "workload.training.targets.loss"};
    QCOMPARE(paths, expected);
    // Unknown keys never change the known values.
    QCOMPARE(p.scenario.training.targets.deadlineHours, std::optional<double>(10));
}

void TestScenario::knownExtrasDoNotWarn()
{
    // "$schema" and "notes" are part of the format; a config.json carries many
    // keys the estimate does not need, which must not be reported one by one.
    json doc = minimal();
    doc["$schema"] = "https://example.org/gpuplanner-scenario.schema.json";
    doc["notes"] = "free text";
    doc["model"] = json::parse(kLlama31_8bHf);
    const gp::ParsedScenario p = gp::parseScenario(doc.dump());
    QVERIFY2(p.warnings.empty(), warningsText(p));

    // An unknown key inside the explicit form is reported under model.
    doc["model"] = json::parse(kGpt2Explicit);
    doc["model"]["dropout"] = 0.1;
    const gp::ParsedScenario q = gp::parseScenario(doc.dump());
    QCOMPARE(q.warnings.size(), std::size_t(1));
    QCOMPARE(q.warnings[0].path, std::string("model.dropout"));
}

void TestScenario::visionSeqLenWarns()
{
    const gp::ParsedScenario p = gp::parseScenario(
        scenarioText(R"({"preset": "resnet18"})", R"({"mode": "training", "training": {"seq_len": 2048}})"));
    QCOMPARE(p.warnings.size(), std::size_t(1));
    QCOMPARE(p.warnings[0].path, std::string("workload.training.seq_len"));
}

void TestScenario::missingWorkloadSectionWarns()
{
    // (Not GPT-2: the default 1024 + 256 tokens exceed its 1024 learned positions.)
    const gp::ParsedScenario p = gp::parseScenario(scenarioText(R"({"preset": "llama-3.2-1b"})", R"({"mode": "inference"})"));
    QCOMPARE(p.warnings.size(), std::size_t(1));
    QCOMPARE(p.warnings[0].path, std::string("workload.inference"));
    QCOMPARE(p.scenario.inference.batch, gp::InferenceWorkload{}.batch);
}

void TestScenario::errorsCollectedTogether()
{
    json doc = minimal();
    doc["version"] = 7;
    doc["workload"]["training"]["micro_batch"] = -4;
    doc["workload"]["training"]["precision"] = "fp64";
    doc["hardware"] = {{"zero", 9}, {"gpus", {"nvidia-h100-sxm", 3}}};
    doc["pricing"] = {{"utilization", 2}};
    const gp::InputError e = expectInputError([&] { gp::parseScenario(doc.dump()); });
    std::vector<std::string> paths;
    for (const auto& d : e.problems())
        paths.push_back(d.path);
    std::sort(paths.begin(), paths.end());
    const std::vector<std::string> expected{"hardware.gpus[1]", "hardware.zero", "pricing.utilization", "version",
                                            "workload.training.micro_batch", "workload.training.precision"};
    QVERIFY2(paths == expected, problemsText(e));
    // what() mentions them too, for callers that only print the exception.
    const std::string what = e.what();
    QVERIFY2(what.find("workload.training.micro_batch") != std::string::npos, what.c_str());
}

void TestScenario::errorsNameKeyPaths_data()
{
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("workload");
    QTest::addColumn<QString>("path");
    QTest::addRow("explicit kv_heads") << QString(R"({"layers": 2, "hidden": 256, "heads": 8, "kv_heads": 3,
        "ffn_hidden": 512, "vocab": 1000})") << QString(kTrainFull) << "model.kv_heads";
    QTest::addRow("explicit head_dim") << QString(R"({"layers": 2, "hidden": 250, "heads": 8,
        "ffn_hidden": 512, "vocab": 1000})") << QString(kTrainFull) << "model.head_dim";
    QTest::addRow("explicit moe active") << QString(R"({"layers": 2, "hidden": 256, "heads": 8,
        "ffn_hidden": 512, "vocab": 1000, "moe": {"experts": 4, "active": 5}})") << QString(kTrainFull)
                                         << "model.moe.active";
    QTest::addRow("hf hidden_size") << QString(R"({"hf_config": {"model_type": "llama", "num_hidden_layers": 2,
        "num_attention_heads": 8, "intermediate_size": 512, "vocab_size": 1000}})") << QString(kTrainFull)
                                    << "model.hf_config.hidden_size";
    QTest::addRow("hf gpt2 n_head") << QString(R"({"hf_config": {"model_type": "gpt2", "n_layer": 2, "n_embd": 250,
        "n_head": 8, "vocab_size": 1000}})") << QString(kTrainFull) << "model.hf_config.n_head";
    QTest::addRow("hf not object") << QString(R"({"hf_config": [1]})") << QString(kTrainFull) << "model.hf_config";
    QTest::addRow("params moe active") << QString(R"({"params": 4e10, "moe": {"experts": 4, "active": 8}})")
                                       << QString(kTrainFull) << "model.moe.active";
    QTest::addRow("gpt2 inference positions") << QString(kGpt2Preset)
                                              << QString(R"({"mode": "inference", "inference": {"prompt_tokens": 1000,
                                                    "output_tokens": 100}})")
                                              << "workload.inference.prompt_tokens";
    QTest::addRow("inference kv_precision") << QString(kGpt2Preset)
                                            << QString(R"({"mode": "inference", "inference": {"kv_precision": "fp4"}})")
                                            << "workload.inference.kv_precision";
    QTest::addRow("training targets") << QString(kGpt2Preset)
                                      << QString(R"({"mode": "training", "training": {"targets": {"budget_usd": -1}}})")
                                      << "workload.training.targets.budget_usd";
    QTest::addRow("serving runtime for training") << QString(kGpt2Preset)
                                                  << QString(R"({"mode": "training", "runtime": "serving"})")
                                                  << "workload.runtime";
    QTest::addRow("inference targets") << QString(kGpt2Preset)
                                       << QString(R"({"mode": "inference", "inference": {"targets": {"ttft_ms": "fast"}}})")
                                       << "workload.inference.targets.ttft_ms";
}

void TestScenario::errorsNameKeyPaths()
{
    QFETCH(QString, model);
    QFETCH(QString, workload);
    QFETCH(QString, path);
    const std::string text = scenarioText(model.toUtf8().constData(), workload.toUtf8().constData());
    const gp::InputError e = expectInputError([&] { gp::parseScenario(text); });
    bool found = false;
    for (const auto& d : e.problems())
        found = found || d.path == path.toStdString();
    QVERIFY2(found, "expected " + path.toUtf8() + " in\n" + problemsText(e));
}

void TestScenario::defaultScenarioIsValid()
{
    const gp::Scenario s = gp::defaultScenario();
    QVERIFY(gp::validateScenario(s).empty());
    QCOMPARE(s.modelSpec.form, gp::ModelSpec::Form::Preset);
    QCOMPARE(s.modelSpec.presetId, std::string("llama-3.1-8b"));
    QCOMPARE(s.model.id, std::string("llama-3.1-8b"));
    QCOMPARE(s.model.layers, 32);
    QCOMPARE(s.model.hidden, 4096);
    QVERIFY(!s.name.empty());
    // It round-trips through the file format without a warning.
    const gp::ParsedScenario p = gp::parseScenario(gp::scenarioToJson(s));
    QVERIFY2(p.warnings.empty(), warningsText(p));
    compareScenarios(s, p.scenario);
    // And estimates everywhere, for both of its workloads.
    gp::Scenario inf = s;
    inf.mode = gp::Mode::Inference;
    for (const gp::Scenario* x : std::initializer_list<const gp::Scenario*>{&s, &inf}) {
        const gp::Estimate e = gp::estimate(*x, gp::Catalog::builtin());
        QCOMPARE(e.results.size(), gp::Catalog::builtin().gpus().size());
        QCOMPARE(e.scenario, s.name);
    }
}

void TestScenario::validateScenarioCatchesStructErrors()
{
    // The UI edits the struct directly; validateScenario is its check.
    gp::Scenario s = gp::defaultScenario();
    s.training.microBatch = 0;
    s.hardware.count = 0;
    s.pricing.utilization = 1.5;
    std::vector<std::string> paths;
    for (const auto& d : gp::validateScenario(s))
        paths.push_back(d.path);
    std::sort(paths.begin(), paths.end());
    QCOMPARE(paths, (std::vector<std::string>{"hardware.count", "pricing.utilization", "workload.training.micro_batch"}));

    gp::Scenario i = gp::defaultScenario();
    i.mode = gp::Mode::Inference;
    i.inference.batch = -1;
    QCOMPARE(gp::validateScenario(i).size(), std::size_t(1));
    QCOMPARE(gp::validateScenario(i)[0].path, std::string("workload.inference.batch"));

    gp::Scenario l = gp::defaultScenario();
    l.training.loraTargets.clear();
    QCOMPARE(gp::validateScenario(l).size(), std::size_t(1));
    QCOMPARE(gp::validateScenario(l)[0].path, std::string("workload.training.lora_targets"));
}

void TestScenario::enumNames()
{
    // The names written to files are the spec's spellings.
    QCOMPARE(gp::toString(gp::Mode::Training), std::string_view("training"));
    QCOMPARE(gp::toString(gp::Runtime::Optimized), std::string_view("optimized"));
    QCOMPARE(gp::toString(gp::Runtime::Serving), std::string_view("serving"));
    // "serving" is read, kept and written back; with mode training it is an error
    // naming the key (errorsNameKeyPaths) and saying why.
    const std::string serving = scenarioText(kGpt2Preset, R"({"mode": "inference", "runtime": "serving",
                                                             "inference": {"prompt_tokens": 512, "output_tokens": 64}})");
    const gp::Scenario s = gp::parseScenario(serving).scenario;
    QCOMPARE(int(s.runtime), int(gp::Runtime::Serving));
    QCOMPARE(int(gp::parseScenario(gp::scenarioToJson(s)).scenario.runtime), int(gp::Runtime::Serving));
    gp::Scenario training = s;
    training.mode = gp::Mode::Training;
    const auto problems = gp::validateScenario(training);
    QCOMPARE(problems.size(), std::size_t(1));
    QCOMPARE(problems[0].path, std::string("workload.runtime"));
    QCOMPARE(problems[0].message, std::string("\"serving\" (a serving engine: vLLM, TensorRT-LLM, SGLang) is for mode "
                                              "\"inference\"; training runs \"eager\" or \"optimized\""));
    QCOMPARE(gp::toString(gp::TrainMethod::Qlora), std::string_view("qlora"));
    QCOMPARE(gp::toString(gp::TrainPrecision::AmpBF16), std::string_view("amp_bf16"));
    QCOMPARE(gp::toString(gp::TrainPrecision::FP8), std::string_view("fp8"));
    QCOMPARE(gp::toString(gp::Optimizer::AdamW8bit), std::string_view("adamw_8bit"));
    QCOMPARE(gp::toString(gp::Optimizer::SGDMomentum), std::string_view("sgd_momentum"));
    QCOMPARE(gp::toString(gp::Checkpointing::Selective), std::string_view("selective"));
    QCOMPARE(gp::toString(gp::InferPrecision::INT4), std::string_view("int4"));
    QCOMPARE(gp::toString(gp::PricingModel::OnDemand), std::string_view("on_demand"));
}
QTEST_APPLESS_MAIN(TestScenario)
#include "tst_scenario.moc"
