// Model shapes: the presets, parameter counts (total, active, embedding and
// matmul), KV elements per token, the linears of a layer, vision presets, the
// three input forms agreeing, config.json details and the explicit form's
// defaults. Input errors and the size-only form are in tst_modelinput.cpp.
#include <QtTest>

#include "model_forms.h"

class TestModel : public QObject {
    Q_OBJECT

private slots:
    void presetsWellFormed();
    void findPresetUnknown();
    void totalParams_data();
    void totalParams();
    void activeParams_data();
    void activeParams();
    void embeddingAndMatmulParams_data();
    void embeddingAndMatmulParams();
    void kvElementsPerToken_data();
    void kvElementsPerToken();
    void layerLinears_data();
    void layerLinears();
    void visionPresets_data();
    void visionPresets();
    void threeFormsAgree_data();
    void threeFormsAgree();
    void hfConfigDetails();
    void explicitDefaults();
};

void TestModel::presetsWellFormed()
{
    const auto& presets = gp::modelPresets();
    QVERIFY(presets.size() >= 17);
    std::set<std::string> ids;
    for (const auto& m : presets) {
        QVERIFY2(ids.insert(m.id).second, m.id.c_str());
        for (char c : m.id)
            QVERIFY2(std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c))
                         || c == '-' || c == '.',
                     m.id.c_str());
        QVERIFY(!m.name.empty());
        QCOMPARE(m.source, std::string("preset"));
        QVERIFY(!m.approximate);
        try {
            m.validate("model");
        } catch (const gp::InputError& e) {
            QFAIL((m.id + ": " + e.what()).c_str());
        }
        QCOMPARE(m.activeParams() <= m.totalParams(), true);
    }
    for (const char* id : {"gpt2-124m", "gpt2-355m", "tinyllama-1.1b", "llama-3.2-1b", "llama-3.2-3b", "llama-2-7b",
                           "llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b", "mistral-7b", "mixtral-8x7b",
                           "qwen2.5-72b", "deepseek-v3", "resnet18", "resnet50", "vit-b-16", "bert-base",
                           "gpt-oss-20b", "gpt-oss-120b", "qwen3-8b", "qwen3-32b", "qwen3-30b-a3b", "qwen3-235b-a22b",
                           "gemma-3-27b", "llama-3.3-70b", "llama-4-scout", "llama-4-maverick", "deepseek-r1", "kimi-k2"})
        QVERIFY2(gp::findPreset(id) != nullptr, id);
}

void TestModel::findPresetUnknown()
{
    QVERIFY(gp::findPreset("llama-9-1t") == nullptr);
    QVERIFY(gp::findPreset("") == nullptr);
    QCOMPARE(gp::findPreset("llama-3.1-8b")->name, std::string("Llama 3.1 8B"));
}

void TestModel::totalParams_data()
{
    QTest::addColumn<QString>("id");
    QTest::addColumn<double>("expected");
    // Published / HF-reported parameter counts.
    QTest::addRow("gpt2-124m") << "gpt2-124m" << 124.44e6;
    QTest::addRow("gpt2-355m") << "gpt2-355m" << 354.8e6;
    QTest::addRow("tinyllama-1.1b") << "tinyllama-1.1b" << 1.100e9;
    QTest::addRow("llama-3.2-1b") << "llama-3.2-1b" << 1.236e9;
    QTest::addRow("llama-3.2-3b") << "llama-3.2-3b" << 3.213e9;
    QTest::addRow("llama-2-7b") << "llama-2-7b" << 6.738e9;
    QTest::addRow("llama-2-13b") << "llama-2-13b" << 13.016e9;
    QTest::addRow("llama-2-70b") << "llama-2-70b" << 68.977e9;
    QTest::addRow("llama-3.1-8b") << "llama-3.1-8b" << 8.030e9;
    QTest::addRow("llama-3.1-70b") << "llama-3.1-70b" << 70.55e9;
    QTest::addRow("llama-3.1-405b") << "llama-3.1-405b" << 405.8e9;
    QTest::addRow("mistral-7b") << "mistral-7b" << 7.242e9;
    QTest::addRow("mixtral-8x7b") << "mixtral-8x7b" << 46.70e9;
    QTest::addRow("qwen2.5-7b") << "qwen2.5-7b" << 7.616e9;
    QTest::addRow("qwen2.5-72b") << "qwen2.5-72b" << 72.7e9;
    // The Hub's 685B: 671B main model + the 14B MTP module (DeepSeek-V3 README).
    QTest::addRow("deepseek-v3") << "deepseek-v3" << 685e9;
    // The spec's newer presets against their model cards / Hub totals (sources in
    // tests/data/hf-configs/README.md): gpt-oss card table 1, Qwen3 cards, Gemma 3
    // report table 1 (27.4B = 1.4B embedding + 25.6B + 0.4B vision), Llama cards.
    QTest::addRow("gpt-oss-20b") << "gpt-oss-20b" << 20.91e9;
    QTest::addRow("gpt-oss-120b") << "gpt-oss-120b" << 116.83e9;
    QTest::addRow("qwen3-8b") << "qwen3-8b" << 8.2e9;
    QTest::addRow("qwen3-32b") << "qwen3-32b" << 32.8e9;
    QTest::addRow("qwen3-30b-a3b") << "qwen3-30b-a3b" << 30.5e9;
    QTest::addRow("qwen3-235b-a22b") << "qwen3-235b-a22b" << 235e9;
    QTest::addRow("gemma-3-27b") << "gemma-3-27b" << 27.4e9;
    QTest::addRow("llama-3.3-70b") << "llama-3.3-70b" << 70.6e9;
    QTest::addRow("llama-4-scout") << "llama-4-scout" << 109e9;
    QTest::addRow("llama-4-maverick") << "llama-4-maverick" << 400e9;
    QTest::addRow("deepseek-r1") << "deepseek-r1" << 685e9;
    QTest::addRow("bert-base") << "bert-base" << 109.5e6;
    QTest::addRow("resnet18") << "resnet18" << 11.69e6;
    QTest::addRow("resnet50") << "resnet50" << 25.56e6;
    QTest::addRow("vit-b-16") << "vit-b-16" << 86.57e6;
}

void TestModel::totalParams()
{
    QFETCH(QString, id);
    QFETCH(double, expected);
    const double got = preset(id).totalParams();
    QVERIFY2(near(got, expected, 0.01), nearMessage(got, expected));
}

void TestModel::activeParams_data()
{
    QTest::addColumn<QString>("id");
    QTest::addColumn<double>("expected");
    QTest::addRow("mixtral-8x7b") << "mixtral-8x7b" << 12.88e9;
    // DeepSeek reports "37B activated"; the exact count with embeddings is 37.55B.
    QTest::addRow("deepseek-v3") << "deepseek-v3" << 37.55e9;
    // Dense: everything is active.
    QTest::addRow("llama-3.1-8b") << "llama-3.1-8b" << 8.030e9;
    QTest::addRow("resnet50") << "resnet50" << 25.56e6;
}

void TestModel::activeParams()
{
    QFETCH(QString, id);
    QFETCH(double, expected);
    const double got = preset(id).activeParams();
    QVERIFY2(near(got, expected, 0.01), nearMessage(got, expected));
}

void TestModel::embeddingAndMatmulParams_data()
{
    QTest::addColumn<QString>("id");
    QTest::addColumn<double>("embedding");
    QTest::addColumn<double>("matmul");
    // Untied: the LM head is already in the total; only the lookup is removed.
    QTest::addRow("llama-3.1-8b") << "llama-3.1-8b" << 128256.0 * 4096 << 8030261248.0 - 128256.0 * 4096;
    // Tied: the head matmul is added back, so matmul params equal the total.
    QTest::addRow("llama-3.2-1b") << "llama-3.2-1b" << 128256.0 * 2048 << 1235814400.0;
    // GPT-2: learned positions are embeddings too, the tied head is a matmul.
    QTest::addRow("gpt2-124m") << "gpt2-124m" << (50257.0 + 1024) * 768 << 124439808.0 - 1024.0 * 768;
    // BERT: word + position + token type; no LM head counted.
    QTest::addRow("bert-base") << "bert-base" << (30522.0 + 512 + 2) * 768 << 109482240.0 - (30522.0 + 512 + 2) * 768;
    QTest::addRow("resnet50") << "resnet50" << 0.0 << 0.0;
}

void TestModel::embeddingAndMatmulParams()
{
    QFETCH(QString, id);
    QFETCH(double, embedding);
    QFETCH(double, matmul);
    const ModelArch& m = preset(id);
    QCOMPARE(m.embeddingParams(), embedding);
    QCOMPARE(m.matmulParamsPerToken(), matmul);
}

void TestModel::kvElementsPerToken_data()
{
    QTest::addColumn<QString>("id");
    QTest::addColumn<double>("expected");
    QTest::addRow("llama-3.1-8b") << "llama-3.1-8b" << 2.0 * 32 * 8 * 128;
    QTest::addRow("llama-2-7b MHA") << "llama-2-7b" << 2.0 * 32 * 32 * 128;
    QTest::addRow("llama-3.1-70b") << "llama-3.1-70b" << 2.0 * 80 * 8 * 128;
    QTest::addRow("gpt2-124m") << "gpt2-124m" << 2.0 * 12 * 12 * 64;
    QTest::addRow("mixtral-8x7b") << "mixtral-8x7b" << 2.0 * 32 * 8 * 128;
    // MLA caches one 512-wide latent plus the 64-wide decoupled RoPE key.
    QTest::addRow("deepseek-v3 MLA") << "deepseek-v3" << 61.0 * (512 + 64);
    QTest::addRow("bert-base no cache") << "bert-base" << 0.0;
    QTest::addRow("resnet50 no cache") << "resnet50" << 0.0;
}

void TestModel::kvElementsPerToken()
{
    QFETCH(QString, id);
    QFETCH(double, expected);
    QCOMPARE(preset(id).kvElementsPerToken(), expected);
}

void TestModel::layerLinears_data()
{
    QTest::addColumn<QString>("id");
    QTest::addColumn<QString>("module");
    QTest::addColumn<qint64>("in");
    QTest::addColumn<qint64>("out");
    QTest::addColumn<int>("perLayer");
    QTest::addRow("llama-3.1-8b q") << "llama-3.1-8b" << "q_proj" << qint64(4096) << qint64(4096) << 1;
    QTest::addRow("llama-3.1-8b k") << "llama-3.1-8b" << "k_proj" << qint64(4096) << qint64(1024) << 1;
    QTest::addRow("llama-3.1-8b gate") << "llama-3.1-8b" << "gate_proj" << qint64(4096) << qint64(14336) << 1;
    QTest::addRow("llama-3.1-8b down") << "llama-3.1-8b" << "down_proj" << qint64(14336) << qint64(4096) << 1;
    QTest::addRow("mixtral up") << "mixtral-8x7b" << "up_proj" << qint64(4096) << qint64(14336) << 2;
    QTest::addRow("deepseek-v3 down") << "deepseek-v3" << "down_proj" << qint64(2048) << qint64(7168) << 9;
    QTest::addRow("deepseek-v3 kv_a") << "deepseek-v3" << "kv_a_proj_with_mqa" << qint64(7168) << qint64(576) << 1;
    QTest::addRow("gpt2 v") << "gpt2-124m" << "v_proj" << qint64(768) << qint64(768) << 1;
    QTest::addRow("gpt2 up") << "gpt2-124m" << "up_proj" << qint64(768) << qint64(3072) << 1;
}

void TestModel::layerLinears()
{
    QFETCH(QString, id);
    QFETCH(QString, module);
    QFETCH(qint64, in);
    QFETCH(qint64, out);
    QFETCH(int, perLayer);
    const auto linears = preset(id).layerLinears();
    bool found = false;
    for (const auto& l : linears) {
        if (l.name == module.toStdString()) {
            QVERIFY(!found);
            found = true;
            QCOMPARE(qint64(l.in), in);
            QCOMPARE(qint64(l.out), out);
            QCOMPARE(l.perLayer, perLayer);
        }
    }
    QVERIFY2(found, qPrintable(module));

    // GELU models have no gate_proj; SwiGLU ones do; vision models have none.
    for (const auto& l : preset("gpt2-124m").layerLinears())
        QVERIFY(l.name != "gate_proj");
    QVERIFY(preset("resnet50").layerLinears().empty());
}

void TestModel::visionPresets_data()
{
    QTest::addColumn<QString>("id");
    QTest::addColumn<double>("gflops");
    QTest::addColumn<double>("trainBytes");
    QTest::addRow("resnet18") << "resnet18" << 3.64 << 17e6;
    QTest::addRow("resnet50") << "resnet50" << 8.18 << 44e6; // calibrated: 5.93 GiB at batch 128 on H100
    QTest::addRow("vit-b-16") << "vit-b-16" << 35.1 << 70.5e6; // 38 B x h per patch token and layer (AMP, flash SDPA)
}

void TestModel::visionPresets()
{
    QFETCH(QString, id);
    QFETCH(double, gflops);
    QFETCH(double, trainBytes);
    const ModelArch& m = preset(id);
    QCOMPARE(m.family, ModelFamily::Vision);
    QVERIFY(!m.isLanguageModel());
    QVERIFY2(near(m.vision.gflopsPerImage, gflops, 0.01), nearMessage(m.vision.gflopsPerImage, gflops));
    QCOMPARE(m.vision.trainActivationBytesPerImage, trainBytes);
    QVERIFY(m.vision.inferActivationBytesPerImage > 0);
    QVERIFY(m.vision.inferActivationBytesPerImage < m.vision.trainActivationBytesPerImage);
    QCOMPARE(m.vision.nativeImageSize, 224);
    QVERIFY(m.vision.kernelsPerStep > 0);
}

void TestModel::threeFormsAgree_data()
{
    QTest::addColumn<QString>("id");
    QTest::addColumn<QString>("hfConfig");
    QTest::addColumn<QString>("explicitSpec");
    QTest::addRow("llama-3.1-8b") << "llama-3.1-8b" << kLlama31_8bConfig << kLlama31_8bExplicit;
    QTest::addRow("mixtral-8x7b") << "mixtral-8x7b" << kMixtralConfig << kMixtralExplicit;
    QTest::addRow("gpt2-124m") << "gpt2-124m" << kGpt2Config << kGpt2Explicit;
    QTest::addRow("bert-base") << "bert-base" << kBertConfig << kBertExplicit;
    QTest::addRow("qwen2.5-72b (hf only)") << "qwen2.5-72b" << kQwen25_72bConfig << "";
    QTest::addRow("deepseek-v3 (hf only)") << "deepseek-v3" << kDeepseekV3Config << "";
    QTest::addRow("llama-3.2-1b (explicit only)") << "llama-3.2-1b" << "" << kLlama32_1bExplicit;
}

void TestModel::threeFormsAgree()
{
    QFETCH(QString, id);
    QFETCH(QString, hfConfig);
    QFETCH(QString, explicitSpec);
    const ModelArch& p = preset(id);
    auto compare = [&](const ModelArch& m) {
        QCOMPARE(m.totalParams(), p.totalParams());
        QCOMPARE(m.activeParams(), p.activeParams());
        QCOMPARE(m.embeddingParams(), p.embeddingParams());
        QCOMPARE(m.matmulParamsPerToken(), p.matmulParamsPerToken());
        QCOMPARE(m.kvElementsPerToken(), p.kvElementsPerToken());
        QCOMPARE(m.family, p.family);
        QCOMPARE(m.layerLinears().size(), p.layerLinears().size());
        QVERIFY(!m.approximate);
    };
    if (!hfConfig.isEmpty()) {
        const ModelArch m = gp::modelFromHfConfig(nlohmann::json::parse(hfConfig.toStdString()), "model.hf_config");
        QCOMPARE(m.source, std::string("hf_config"));
        compare(m);
        if (QTest::currentTestFailed())
            return;
    }
    if (!explicitSpec.isEmpty()) {
        const ModelArch m = gp::modelFromExplicit(nlohmann::json::parse(explicitSpec.toStdString()), "model");
        QCOMPARE(m.source, std::string("explicit"));
        compare(m);
    }
}

void TestModel::hfConfigDetails()
{
    using nlohmann::json;
    // Name from _name_or_path, else model_type.
    QCOMPARE(gp::modelFromHfConfig(json::parse(kLlama31_8bConfig), "model.hf_config").name,
             std::string("meta-llama/Llama-3.1-8B"));
    QCOMPARE(gp::modelFromHfConfig(json::parse(kMixtralConfig), "model.hf_config").name, std::string("mixtral"));

    // No model_type: architectures decides (and says so); with neither, a config
    // with expert keys is refused rather than guessed to be a dense Llama.
    json cfg = json::parse(kMixtralConfig);
    cfg.erase("model_type");
    const ModelArch fromArch = gp::modelFromHfConfig(cfg, "model.hf_config");
    QCOMPARE(fromArch.moe.experts, 8);
    QVERIFY(!fromArch.readNotes.empty());
    cfg.erase("architectures");
    QVERIFY_EXCEPTION_THROWN(gp::modelFromHfConfig(cfg, "model.hf_config"), gp::InputError);
    cfg.erase("num_local_experts");
    const ModelArch asLlama = gp::modelFromHfConfig(cfg, "model.hf_config");
    QVERIFY(!asLlama.moe.enabled());
    QCOMPARE(asLlama.kvHeads, 8);
    QVERIFY(QString::fromStdString(asLlama.readNotes.front()).contains("Llama-style"));

    // num_key_value_heads defaults to the head count (MHA); head_dim to hidden/heads.
    json mha = json::parse(kLlama31_8bConfig);
    mha.erase("num_key_value_heads");
    const ModelArch m = gp::modelFromHfConfig(mha, "model.hf_config");
    QCOMPARE(m.kvHeads, 32);
    QCOMPARE(m.headDim, 128);

    // An explicit head_dim wins (Llama 3.2 1B lists 64 = 2048 / 32 anyway).
    json withHeadDim = json::parse(kLlama31_8bConfig);
    withHeadDim["head_dim"] = 96;
    QCOMPARE(gp::modelFromHfConfig(withHeadDim, "model.hf_config").headDim, 96);

    // GPT-2 ties by default; n_inner null means 4 x n_embd.
    const ModelArch gpt2 = gp::modelFromHfConfig(json::parse(kGpt2Config), "model.hf_config");
    QVERIFY(gpt2.tiedEmbeddings);
    QCOMPARE(gpt2.ffnHidden, std::int64_t(3072));
    QCOMPARE(gpt2.positional, gp::Positional::Learned);

    // Qwen2's q/k/v biases are counted: 80 layers x (8192 + 2 x 1024).
    json noBias = json::parse(kQwen25_72bConfig);
    noBias["model_type"] = "llama";
    const double diff = gp::modelFromHfConfig(json::parse(kQwen25_72bConfig), "model.hf_config").totalParams()
                      - gp::modelFromHfConfig(noBias, "model.hf_config").totalParams();
    QCOMPARE(diff, 80.0 * (8192 + 2 * 1024));
}

void TestModel::explicitDefaults()
{
    using nlohmann::json;
    const ModelArch dec = gp::modelFromExplicit(
        json::parse(R"({"layers": 2, "hidden": 1024, "heads": 16, "ffn_hidden": 4096, "vocab": 1000})"), "model");
    QCOMPARE(dec.family, ModelFamily::Decoder);
    QCOMPARE(dec.kvHeads, 16);
    QCOMPARE(dec.headDim, 64);
    QCOMPARE(dec.ffn, gp::FfnKind::SwiGLU);
    QCOMPARE(dec.positional, gp::Positional::Rope);
    QVERIFY(!dec.biases);
    QVERIFY(!dec.tiedEmbeddings);
    QVERIFY(!dec.moe.enabled());
    QVERIFY(!dec.name.empty());

    const ModelArch enc = gp::modelFromExplicit(
        json::parse(R"({"family": "encoder", "layers": 2, "hidden": 1024, "heads": 16, "ffn_hidden": 4096,
                        "vocab": 1000, "max_positions": 512})"),
        "model");
    QCOMPARE(enc.family, ModelFamily::Encoder);
    QCOMPARE(enc.ffn, gp::FfnKind::GELU);
    QCOMPARE(enc.positional, gp::Positional::Learned);
    QVERIFY(enc.biases);

    // expert_ffn_hidden defaults to ffn_hidden, shared to 0.
    const ModelArch moe = gp::modelFromExplicit(
        json::parse(R"({"layers": 2, "hidden": 1024, "heads": 16, "ffn_hidden": 4096, "vocab": 1000,
                        "moe": {"experts": 4, "active": 1}})"),
        "model");
    QCOMPARE(moe.moe.expertFfnHidden, std::int64_t(4096));
    QCOMPARE(moe.moe.shared, 0);
    QCOMPARE(moe.totalParams() - moe.activeParams(), 2.0 * 3 * (3.0 * 1024 * 4096));

    // Every bad key is reported at once, each with its own path.
    try {
        gp::modelFromExplicit(json::parse(R"({"layers": -4, "hidden": "big", "heads": 16, "ffn_hidden": 4096})"),
                              "model");
        QFAIL("no InputError thrown");
    } catch (const gp::InputError& e) {
        QCOMPARE(e.problems().size(), std::size_t(3));
        QCOMPARE(e.problems()[0].path, std::string("model.layers"));
        QCOMPARE(e.problems()[1].path, std::string("model.hidden"));
        QCOMPARE(e.problems()[2].path, std::string("model.vocab"));
    }
}
QTEST_APPLESS_MAIN(TestModel)
#include "tst_model.moc"
