// The promise that the three ways of writing down one architecture in a
// scenario (preset, explicit, hf_config) estimate the same, and that the
// size-only form (params) is approximate but keeps an MoE's expert width.
#include <QtTest>

#include "scenario_docs.h"

class TestScenarioForms : public QObject {
    Q_OBJECT

private slots:
    void formsAgree_data();
    void formsAgree();
    void paramsFormIsApproximate();
    void paramsMoeExpertWidthNotDropped();
};

// ---------------------------------------------------------------------------
// The three forms of one architecture

void TestScenarioForms::formsAgree_data()
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

void TestScenarioForms::formsAgree()
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

void TestScenarioForms::paramsFormIsApproximate()
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

void TestScenarioForms::paramsMoeExpertWidthNotDropped()
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

QTEST_APPLESS_MAIN(TestScenarioForms)
#include "tst_scenarioforms.moc"
