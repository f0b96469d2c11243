// Scenario documents (shared/spec/scenario-format.md): parsing, defaults,
// warnings, serialization round trips, and the promise that the three ways of
// writing down one architecture (preset, explicit, hf_config) estimate the same.
#include <QtTest>

#include "core/hardware/catalog.h"
#include "core/base/errors.h"
#include "core/estimate/estimate.h"
#include "core/model/model.h"
#include "core/scenario/scenario.h"
#include "tests/common/hfconfigs.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <string>
#include <vector>

using nlohmann::json;

namespace {

// ---------------------------------------------------------------------------
// Model forms

const char* kLlama31_8bPreset = R"({"preset": "llama-3.1-8b"})";
const char* kLlama31_8bExplicit = R"({"family": "decoder", "layers": 32, "hidden": 4096, "heads": 32,
  "kv_heads": 8, "head_dim": 128, "ffn_hidden": 14336, "ffn": "swiglu", "vocab": 128256,
  "tied_embeddings": false, "positional": "rope", "max_positions": 131072})";
const std::string kLlama31_8bHfText = gp::test::hfModel(gp::test::kLlama31_8bConfig);
const char* const kLlama31_8bHf = kLlama31_8bHfText.c_str();

const char* kGpt2Preset = R"({"preset": "gpt2-124m"})";
const char* kGpt2Explicit = R"({"family": "decoder", "layers": 12, "hidden": 768, "heads": 12,
  "ffn_hidden": 3072, "ffn": "gelu", "vocab": 50257, "tied_embeddings": true, "positional": "learned",
  "max_positions": 1024})";
const std::string kGpt2HfText = gp::test::hfModel(gp::test::kGpt2Config);
const char* const kGpt2Hf = kGpt2HfText.c_str();

const char* kMixtralPreset = R"({"preset": "mixtral-8x7b"})";
const char* kMixtralExplicit = R"({"layers": 32, "hidden": 4096, "heads": 32, "kv_heads": 8,
  "ffn_hidden": 14336, "vocab": 32000, "max_positions": 32768,
  "moe": {"experts": 8, "active": 2, "expert_ffn_hidden": 14336}})";
const std::string kMixtralHfText = gp::test::hfModel(gp::test::kMixtralConfig);
const char* const kMixtralHf = kMixtralHfText.c_str();

const char* kBertPreset = R"({"preset": "bert-base"})";
const char* kBertExplicit = R"({"family": "encoder", "layers": 12, "hidden": 768, "heads": 12,
  "ffn_hidden": 3072, "ffn": "gelu", "vocab": 30522, "tied_embeddings": true, "positional": "learned",
  "max_positions": 512})";
const std::string kBertHfText = gp::test::hfModel(gp::test::kBertConfig);
const char* const kBertHf = kBertHfText.c_str();

// ---------------------------------------------------------------------------
// Workloads

const char* kTrainFull = R"({"mode": "training", "runtime": "eager",
  "training": {"method": "full", "precision": "amp_bf16", "optimizer": "adamw", "micro_batch": 2,
               "seq_len": 512, "activation_checkpointing": "none", "dataset_tokens": 1e9, "epochs": 1}})";
const char* kTrainLora = R"({"mode": "training", "runtime": "eager",
  "training": {"method": "lora", "lora_rank": 16, "lora_targets": ["q_proj", "k_proj", "v_proj", "o_proj"],
               "precision": "bf16", "optimizer": "adamw", "micro_batch": 2, "seq_len": 512,
               "activation_checkpointing": "full", "dataset_tokens": 1e8, "epochs": 1}})";
const char* kTrainOptimizedSelective = R"({"mode": "training", "runtime": "optimized",
  "training": {"method": "full", "precision": "amp_bf16", "optimizer": "adamw_8bit", "micro_batch": 4,
               "seq_len": 512, "grad_accum": 4, "activation_checkpointing": "selective", "dataset_tokens": 1e9}})";
const char* kInferOptimized = R"({"mode": "inference", "runtime": "optimized",
  "inference": {"precision": "bf16", "batch": 8, "prompt_tokens": 512, "output_tokens": 256}})";
const char* kInferEagerInt8 = R"({"mode": "inference", "runtime": "eager",
  "inference": {"precision": "int8", "kv_precision": "fp8", "batch": 4, "prompt_tokens": 256, "output_tokens": 128}})";

std::string scenarioText(const char* model, const char* workload, const char* hardware = nullptr)
{
    json doc = {{"format", "gpuplanner-scenario"}, {"version", 1}, {"name", "test"}};
    doc["model"] = json::parse(model);
    doc["workload"] = json::parse(workload);
    if (hardware)
        doc["hardware"] = json::parse(hardware);
    return doc.dump();
}

template <typename F>
gp::InputError expectInputError(F&& f)
{
    try {
        f();
    } catch (const gp::InputError& e) {
        return e;
    }
    return gp::InputError("<none>", "<no exception thrown>");
}

/// For QVERIFY2 messages (evaluated even when the check passes).
QByteArray warningsText(const gp::ParsedScenario& p)
{
    QByteArray s;
    for (const auto& w : p.warnings)
        s += QByteArray::fromStdString(w.text()) + "\n";
    return s;
}

QByteArray problemsText(const gp::InputError& e)
{
    QByteArray s;
    for (const auto& d : e.problems())
        s += QByteArray::fromStdString(d.text()) + "\n";
    return s;
}

const gp::Gpu& gpu(const char* id)
{
    const gp::Gpu* g = gp::Catalog::builtin().find(id);
    if (!g)
        qFatal("catalog lacks %s", id);
    return *g;
}

bool relNear(double a, double b, double tol)
{
    return std::abs(a - b) <= tol * std::max(std::abs(a), std::abs(b)) || (a == 0 && b == 0);
}

#define QCOMPARE_REL(actual, expected, tol)                                                                           \
    QVERIFY2(relNear((actual), (expected), (tol)),                                                                    \
             QByteArray(#actual) + " = " + QByteArray::number((actual), 'g', 15) + ", expected "                       \
                 + QByteArray::number((expected), 'g', 15))

/// For the enums that gp::toString names (QCOMPARE would pick that up through ADL).
template <typename E>
QString enumName(E e)
{
    const std::string_view v = gp::toString(e);
    return QString::fromUtf8(v.data(), qsizetype(v.size()));
}
#define QCOMPARE_ENUM(actual, expected) QCOMPARE(enumName(actual), enumName(expected))

/// Compares every field a scenario file carries (not the resolved model, which
/// the caller checks by its shape).
void compareScenarios(const gp::Scenario& a, const gp::Scenario& b)
{
    QCOMPARE(a.name, b.name);
    QCOMPARE(a.modelSpec.form, b.modelSpec.form);
    QCOMPARE(a.modelSpec.presetId, b.modelSpec.presetId);
    if (a.modelSpec.form == gp::ModelSpec::Form::Explicit || a.modelSpec.form == gp::ModelSpec::Form::HfConfig)
        QCOMPARE(json::parse(a.modelSpec.jsonText), json::parse(b.modelSpec.jsonText));
    QCOMPARE(a.modelSpec.params, b.modelSpec.params);
    QCOMPARE(a.modelSpec.family.has_value(), b.modelSpec.family.has_value());
    if (a.modelSpec.family)
        QCOMPARE(*a.modelSpec.family, *b.modelSpec.family);
    QCOMPARE(a.modelSpec.moe.experts, b.modelSpec.moe.experts);
    QCOMPARE(a.modelSpec.moe.active, b.modelSpec.moe.active);
    QCOMPARE(a.modelSpec.moe.shared, b.modelSpec.moe.shared);

    QCOMPARE_ENUM(a.mode, b.mode);
    QCOMPARE_ENUM(a.runtime, b.runtime);
    const auto& ta = a.training;
    const auto& tb = b.training;
    QCOMPARE_ENUM(ta.method, tb.method);
    QCOMPARE(ta.loraRank, tb.loraRank);
    QCOMPARE(ta.loraTargets, tb.loraTargets);
    QCOMPARE_ENUM(ta.precision, tb.precision);
    QCOMPARE_ENUM(ta.optimizer, tb.optimizer);
    QCOMPARE(ta.microBatch, tb.microBatch);
    QCOMPARE(ta.seqLen, tb.seqLen);
    QCOMPARE(ta.imageSize, tb.imageSize);
    QCOMPARE(ta.gradAccum, tb.gradAccum);
    QCOMPARE_ENUM(ta.checkpointing, tb.checkpointing);
    QCOMPARE(ta.datasetTokens, tb.datasetTokens);
    QCOMPARE(ta.datasetSamples, tb.datasetSamples);
    QCOMPARE(ta.epochs, tb.epochs);
    QCOMPARE(ta.targets.deadlineHours, tb.targets.deadlineHours);
    QCOMPARE(ta.targets.budgetUsd, tb.targets.budgetUsd);
    const auto& ia = a.inference;
    const auto& ib = b.inference;
    QCOMPARE_ENUM(ia.precision, ib.precision);
    QCOMPARE(ia.kvPrecision, ib.kvPrecision);
    QCOMPARE(ia.batch, ib.batch);
    QCOMPARE(ia.promptTokens, ib.promptTokens);
    QCOMPARE(ia.outputTokens, ib.outputTokens);
    QCOMPARE(ia.imageSize, ib.imageSize);
    QCOMPARE(ia.targets.ttftMs, ib.targets.ttftMs);
    QCOMPARE(ia.targets.tpotMs, ib.targets.tpotMs);
    QCOMPARE(ia.targets.requestsPerS, ib.targets.requestsPerS);
    const auto& ha = a.hardware;
    const auto& hb = b.hardware;
    QCOMPARE(ha.gpus, hb.gpus);
    QCOMPARE(ha.count, hb.count);
    QCOMPARE(ha.tp, hb.tp);
    QCOMPARE(ha.pp, hb.pp);
    QCOMPARE(ha.zero, hb.zero);
    QCOMPARE(ha.maxCount, hb.maxCount);
    QCOMPARE(ha.networkGbps, hb.networkGbps);
    QCOMPARE_ENUM(a.pricing.model, b.pricing.model);
    QCOMPARE(a.pricing.utilization, b.pricing.utilization);
    QCOMPARE(a.pricing.electricityUsdPerKwh, b.pricing.electricityUsdPerKwh);
    QCOMPARE(a.pricing.pue, b.pricing.pue);
    QCOMPARE(a.pricing.amortizationYears, b.pricing.amortizationYears);
    QCOMPARE(a.pricing.hostingUsdPerGpuYear, b.pricing.hostingUsdPerGpuYear);

    QCOMPARE(a.model.totalParams(), b.model.totalParams());
    QCOMPARE(a.model.layers, b.model.layers);
    QCOMPARE(a.model.hidden, b.model.hidden);
    QCOMPARE(a.model.approximate, b.model.approximate);
}

/// A scenario with every key set to a non-default value; `model` is spliced in.
std::string fullScenario(const char* model)
{
    json doc = json::parse(R"json({
      "format": "gpuplanner-scenario",
      "version": 1,
      "name": "Round trip: every key set (ünïcödé ✓)",
      "workload": {
        "mode": "inference",
        "runtime": "optimized",
        "training": {
          "method": "lora", "lora_rank": 32, "lora_targets": ["q_proj", "v_proj", "gate_proj", "down_proj"],
          "precision": "amp_fp16", "optimizer": "adamw_8bit", "micro_batch": 3, "seq_len": 768,
          "image_size": 256, "grad_accum": 4, "activation_checkpointing": "selective",
          "dataset_tokens": 5.5e9, "epochs": 2.5,
          "targets": {"deadline_hours": 72, "budget_usd": 50000}
        },
        "inference": {
          "precision": "fp8", "kv_precision": "int8", "batch": 12, "prompt_tokens": 300, "output_tokens": 100,
          "image_size": 320, "targets": {"ttft_ms": 500, "tpot_ms": 40, "requests_per_s": 20}
        }
      },
      "hardware": {"gpus": ["nvidia-h100-sxm", "nvidia-l40s"], "count": 8, "tp": 2, "pp": 2, "zero": 1,
                   "max_count": 64, "network_gbps": 200},
      "pricing": {"model": "spot", "utilization": 0.7, "electricity_usd_per_kwh": 0.2, "pue": 1.5,
                  "amortization_years": 4, "hosting_usd_per_gpu_year": 1200}
    })json");
    doc["model"] = json::parse(model);
    return doc.dump(2);
}

} // namespace

Q_DECLARE_METATYPE(gp::ModelSpec::Form)

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

    void formsAgree_data();
    void formsAgree();
    void paramsFormIsApproximate();
    void paramsMoeExpertWidthNotDropped();

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

// ---------------------------------------------------------------------------
// The three forms of one architecture

void TestScenario::formsAgree_data()
{
    QTest::addColumn<QString>("presetForm");
    QTest::addColumn<QString>("explicitForm");
    QTest::addColumn<QString>("hfForm");
    QTest::addColumn<QString>("workload");
    QTest::addColumn<QString>("hardware");

    const QString oneH100 = R"({"gpus": ["nvidia-h100-sxm"]})";
    struct M {
        const char* id;
        const char* preset;
        const char* explicitForm;
        const char* hf;
    };
    const M models[] = {{"llama-3.1-8b", kLlama31_8bPreset, kLlama31_8bExplicit, kLlama31_8bHf},
                        {"gpt2-124m", kGpt2Preset, kGpt2Explicit, kGpt2Hf},
                        {"mixtral-8x7b", kMixtralPreset, kMixtralExplicit, kMixtralHf},
                        {"bert-base", kBertPreset, kBertExplicit, kBertHf}};
    const struct W {
        const char* name;
        const char* workload;
    } workloads[] = {{"train full amp_bf16", kTrainFull},
                     {"train lora bf16 ckpt", kTrainLora},
                     {"train optimized 8bit", kTrainOptimizedSelective},
                     {"infer optimized bf16", kInferOptimized},
                     {"infer eager int8", kInferEagerInt8}};
    for (const auto& m : models) {
        for (const auto& w : workloads) {
            if (std::string(m.id) == "bert-base" && std::string(w.name).rfind("train lora", 0) == 0)
                continue; // fine, but its adapters are the same code path as Llama's
            QTest::addRow("%s, %s", m.id, w.name) << QString(m.preset) << QString(m.explicitForm) << QString(m.hf)
                                                  << QString(w.workload) << oneH100;
        }
    }
    // Multi-GPU layouts go through the same numbers.
    QTest::addRow("llama-3.1-8b, train tp2 zero1 x8")
        << QString(kLlama31_8bPreset) << QString(kLlama31_8bExplicit) << QString(kLlama31_8bHf) << QString(kTrainFull)
        << QString(R"({"gpus": ["nvidia-h100-sxm"], "count": 8, "tp": 2, "zero": 1})");
    QTest::addRow("llama-3.1-8b, infer tp2 on T4 (no bf16)")
        << QString(kLlama31_8bPreset) << QString(kLlama31_8bExplicit) << QString(kLlama31_8bHf)
        << QString(kInferOptimized) << QString(R"({"gpus": ["nvidia-t4"], "count": 2, "tp": 2})");
}

void TestScenario::formsAgree()
{
    QFETCH(QString, presetForm);
    QFETCH(QString, explicitForm);
    QFETCH(QString, hfForm);
    QFETCH(QString, workload);
    QFETCH(QString, hardware);

    std::vector<gp::Estimate> estimates;
    std::vector<gp::ModelArch> archs;
    for (const QString& model : {presetForm, explicitForm, hfForm}) {
        const gp::ParsedScenario p = gp::parseScenario(scenarioText(
            model.toUtf8().constData(), workload.toUtf8().constData(), hardware.toUtf8().constData()));
        QVERIFY2(p.warnings.empty(), warningsText(p));
        archs.push_back(p.scenario.model);
        estimates.push_back(gp::estimate(p.scenario, gp::Catalog::builtin()));
    }
    QCOMPARE(archs[0].source, std::string("preset"));
    QCOMPARE(archs[1].source, std::string("explicit"));
    QCOMPARE(archs[2].source, std::string("hf_config"));

    // Same shape first, so a difference below is explained by the shape.
    for (std::size_t k = 1; k < 3; ++k) {
        const gp::ModelArch& a = archs[0];
        const gp::ModelArch& b = archs[k];
        QCOMPARE(b.family, a.family);
        QCOMPARE(b.layers, a.layers);
        QCOMPARE(b.hidden, a.hidden);
        QCOMPARE(b.heads, a.heads);
        QCOMPARE(b.kvHeads, a.kvHeads);
        QCOMPARE(b.headDim, a.headDim);
        QCOMPARE(b.ffnHidden, a.ffnHidden);
        QCOMPARE(b.ffn, a.ffn);
        QCOMPARE(b.vocab, a.vocab);
        QCOMPARE(b.positional, a.positional);
        QCOMPARE(b.biases, a.biases);
        QCOMPARE(b.moe.experts, a.moe.experts);
        QCOMPARE(b.moe.active, a.moe.active);
        QCOMPARE(b.moe.expertFfnHidden, a.moe.expertFfnHidden);
        QCOMPARE_REL(b.totalParams(), a.totalParams(), 1e-12);
        QCOMPARE_REL(b.activeParams(), a.activeParams(), 1e-12);
        QCOMPARE_REL(b.matmulParamsPerToken(), a.matmulParamsPerToken(), 1e-12);
        QCOMPARE_REL(b.kvElementsPerToken(), a.kvElementsPerToken(), 1e-12);
    }

    constexpr double tol = 1e-9;
    const gp::GpuEstimate& ref = estimates[0].results.at(0);
    for (std::size_t k = 1; k < 3; ++k) {
        QCOMPARE(estimates[k].results.size(), std::size_t(1));
        const gp::GpuEstimate& e = estimates[k].results[0];
        QCOMPARE(e.gpuId, ref.gpuId);
        QCOMPARE(e.fits, ref.fits);
        QCOMPARE_REL(e.memory.total(), ref.memory.total(), tol);
        QCOMPARE_REL(e.memory.weights, ref.memory.weights, tol);
        QCOMPARE_REL(e.memory.gradients, ref.memory.gradients, tol);
        QCOMPARE_REL(e.memory.optimizer, ref.memory.optimizer, tol);
        QCOMPARE_REL(e.memory.activations, ref.memory.activations, tol);
        QCOMPARE_REL(e.memory.kvCache, ref.memory.kvCache, tol);
        QCOMPARE_REL(e.memory.overhead, ref.memory.overhead, tol);
        QCOMPARE_REL(e.usdPerHour, ref.usdPerHour, tol);
        QCOMPARE(e.training.has_value(), ref.training.has_value());
        if (ref.training) {
            QCOMPARE_REL(e.training->tokensPerS, ref.training->tokensPerS, tol);
            QCOMPARE_REL(e.training->samplesPerS, ref.training->samplesPerS, tol);
            QCOMPARE_REL(e.training->stepMs, ref.training->stepMs, tol);
            QCOMPARE_REL(e.training->mfu, ref.training->mfu, tol);
            QCOMPARE(e.training->hours.has_value(), ref.training->hours.has_value());
            if (ref.training->hours)
                QCOMPARE_REL(*e.training->hours, *ref.training->hours, tol);
        }
        QCOMPARE(e.inference.has_value(), ref.inference.has_value());
        if (ref.inference) {
            QCOMPARE(e.inference->ttftMs.has_value(), ref.inference->ttftMs.has_value());
            QCOMPARE_REL(e.inference->ttftMs.value_or(0), ref.inference->ttftMs.value_or(0), tol);
            QCOMPARE_REL(e.inference->tpotMs.value_or(0), ref.inference->tpotMs.value_or(0), tol);
            QCOMPARE_REL(e.inference->tokensPerS.value_or(0), ref.inference->tokensPerS.value_or(0), tol);
            QCOMPARE_REL(e.inference->usdPerMillionTokens.value_or(0), ref.inference->usdPerMillionTokens.value_or(0),
                         tol);
        }
        QCOMPARE_REL(e.uncertainty.memory, ref.uncertainty.memory, tol);
        QCOMPARE_REL(e.uncertainty.throughput, ref.uncertainty.throughput, tol);
        QCOMPARE(e.computePrecision, ref.computePrecision);
        QCOMPARE(e.approximate, false);
        QCOMPARE(e.notes, ref.notes);
    }
}

void TestScenario::paramsFormIsApproximate()
{
    const gp::ParsedScenario p = gp::parseScenario(scenarioText(R"({"params": 8e9})", kInferOptimized));
    QVERIFY(p.scenario.model.approximate);
    QVERIFY(!p.scenario.model.shapeNote.empty());
    QCOMPARE(p.scenario.model.source, std::string("params"));
    QCOMPARE_REL(p.scenario.model.totalParams(), 8e9, 0.01);
    const gp::GpuEstimate e = gp::estimateOn(p.scenario, *gp::Catalog::builtin().find("nvidia-h100-sxm"));
    QVERIFY(e.approximate);
    // Approximate shapes carry a wider band than the preset of about the same size.
    const gp::ParsedScenario q = gp::parseScenario(scenarioText(kLlama31_8bPreset, kInferOptimized));
    const gp::GpuEstimate f = gp::estimateOn(q.scenario, gpu("nvidia-h100-sxm"));
    QVERIFY(!f.approximate);
    QVERIFY(e.uncertainty.memory > f.uncertainty.memory);
    QVERIFY(e.uncertainty.throughput > f.uncertainty.throughput);
}

void TestScenario::paramsMoeExpertWidthNotDropped()
{
    // The size-only form accepts "moe" with the explicit form's keys. A given
    // expert_ffn_hidden must not vanish silently: either it is kept (and
    // saved), or the shape note says it was replaced by the solved width.
    const gp::ParsedScenario p = gp::parseScenario(scenarioText(
        R"({"params": 47e9, "moe": {"experts": 8, "active": 2, "expert_ffn_hidden": 4096}})", kInferOptimized));
    const bool kept = p.scenario.modelSpec.moe.expertFfnHidden == 4096;
    const bool explained = p.scenario.model.shapeNote.find("expert_ffn_hidden") != std::string::npos;
    bool warned = false;
    for (const auto& w : p.warnings)
        warned = warned || w.path == "model.moe.expert_ffn_hidden";
    QVERIFY2(kept || explained || warned, p.scenario.model.shapeNote.c_str());
    if (kept) {
        const json saved = json::parse(gp::scenarioToJson(p.scenario));
        QCOMPARE(saved["model"]["moe"].value("expert_ffn_hidden", 0), 4096);
    }
}

QTEST_APPLESS_MAIN(TestScenario)
#include "tst_scenario.moc"
