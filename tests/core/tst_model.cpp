#include <QtTest>

#include "core/base/errors.h"
#include "core/model/hfconfig.h"
#include "core/model/model.h"
#include "tests/common/hfconfigs.h"
#include "core/model/presets.h"
#include "core/model/sizeonly.h"

#include <nlohmann/json.hpp>

#include <cctype>
#include <cmath>
#include <set>
#include <string>

using gp::ModelArch;
using gp::ModelFamily;
using gp::test::kBertConfig;
using gp::test::kDeepseekV3Config;
using gp::test::kGpt2Config;
using gp::test::kLlama31_8bConfig;
using gp::test::kMixtralConfig;
using gp::test::kQwen25_72bConfig;

namespace {

const ModelArch& preset(const QString& id)
{
    const ModelArch* m = gp::findPreset(id.toStdString());
    if (!m)
        qFatal("missing preset %s", qPrintable(id));
    return *m;
}

/// QVERIFY with a readable message for "within `tolerance` (relative)".
bool near(double actual, double expected, double tolerance)
{
    return std::abs(actual - expected) <= tolerance * std::abs(expected);
}

QByteArray nearMessage(double actual, double expected)
{
    return QByteArray("got ") + QByteArray::number(actual, 'g', 10) + ", expected "
         + QByteArray::number(expected, 'g', 10);
}

// The explicit scenario form of the models in tests/common/hfconfigs.h.
const char* kLlama31_8bExplicit = R"({"family": "decoder", "layers": 32, "hidden": 4096, "heads": 32,
  "kv_heads": 8, "ffn_hidden": 14336, "ffn": "swiglu", "vocab": 128256, "positional": "rope",
  "max_positions": 131072})";
const char* kMixtralExplicit = R"({"layers": 32, "hidden": 4096, "heads": 32, "kv_heads": 8,
  "ffn_hidden": 14336, "vocab": 32000, "moe": {"experts": 8, "active": 2}})";
const char* kGpt2Explicit = R"({"layers": 12, "hidden": 768, "heads": 12, "ffn_hidden": 3072, "ffn": "gelu",
  "vocab": 50257, "tied_embeddings": true, "positional": "learned", "max_positions": 1024})";
const char* kBertExplicit = R"({"family": "encoder", "layers": 12, "hidden": 768, "heads": 12,
  "ffn_hidden": 3072, "vocab": 30522, "max_positions": 512})";
const char* kLlama32_1bExplicit = R"({"layers": 16, "hidden": 2048, "heads": 32, "kv_heads": 8,
  "head_dim": 64, "ffn_hidden": 8192, "vocab": 128256, "tied_embeddings": true})";

} // namespace

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
    void inputErrors_data();
    void inputErrors();
    void validateRejects_data();
    void validateRejects();
    void fromParams_data();
    void fromParams();
    void fromParamsMoe_data();
    void fromParamsMoe();
    void fromParamsOtherFamilies();
    void fromParamsRejects();
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

void TestModel::inputErrors_data()
{
    QTest::addColumn<QString>("form"); // "hf" or "explicit"
    QTest::addColumn<QString>("json");
    QTest::addColumn<QString>("path");     // the first problem's path
    QTest::addColumn<QString>("fragment"); // must appear in what()

    QTest::addRow("hf missing hidden_size")
        << "hf" << R"({"model_type": "llama", "num_hidden_layers": 32, "num_attention_heads": 32,
                      "intermediate_size": 14336, "vocab_size": 32000})"
        << "model.hf_config.hidden_size" << "model.hf_config.hidden_size: missing";
    QTest::addRow("hf string instead of int")
        << "hf" << R"({"model_type": "mistral", "num_hidden_layers": "abc", "hidden_size": 4096,
                      "num_attention_heads": 32, "intermediate_size": 14336, "vocab_size": 32000})"
        << "model.hf_config.num_hidden_layers"
        << R"(model.hf_config.num_hidden_layers: must be a positive integer, got "abc")";
    QTest::addRow("hf unknown model_type")
        << "hf" << R"({"model_type": "mamba", "hidden_size": 768})"
        << "model.hf_config.model_type" << "supported: llama, llama4, llama4_text, mistral, mistral3, mixtral";
    QTest::addRow("hf no model_type, not llama-like")
        << "hf" << R"({"d_model": 768})" << "model.hf_config.model_type" << "model.hf_config.model_type: missing";
    QTest::addRow("hf kv heads do not divide")
        << "hf" << R"({"model_type": "llama", "num_hidden_layers": 2, "hidden_size": 4096, "num_attention_heads": 32,
                      "num_key_value_heads": 5, "intermediate_size": 14336, "vocab_size": 32000})"
        << "model.hf_config.num_key_value_heads" << "must divide num_attention_heads (32)";
    QTest::addRow("hf gpt2 bad n_embd")
        << "hf" << R"({"model_type": "gpt2", "n_layer": 12, "n_embd": 0, "n_head": 12, "vocab_size": 50257})"
        << "model.hf_config.n_embd" << "model.hf_config.n_embd: must be a positive integer, got 0";
    QTest::addRow("hf not an object") << "hf" << R"([1, 2])" << "model.hf_config" << "must be a JSON object";

    QTest::addRow("explicit negative layers")
        << "explicit" << R"({"layers": -4, "hidden": 4096, "heads": 32, "ffn_hidden": 14336, "vocab": 32000})"
        << "model.layers" << "model.layers: must be a positive integer, got -4";
    QTest::addRow("explicit string hidden")
        << "explicit" << R"({"layers": 4, "hidden": "big", "heads": 32, "ffn_hidden": 14336, "vocab": 32000})"
        << "model.hidden" << R"(model.hidden: must be a positive integer, got "big")";
    QTest::addRow("explicit missing vocab")
        << "explicit" << R"({"layers": 4, "hidden": 4096, "heads": 32, "ffn_hidden": 14336})"
        << "model.vocab" << "model.vocab: missing";
    QTest::addRow("explicit too many layers")
        << "explicit" << R"({"layers": 5000, "hidden": 4096, "heads": 32, "ffn_hidden": 14336, "vocab": 32000})"
        << "model.layers" << "model.layers: must be at most 1000, got 5000";
    QTest::addRow("explicit kv_heads > heads")
        << "explicit" << R"({"layers": 4, "hidden": 4096, "heads": 32, "kv_heads": 64, "ffn_hidden": 14336,
                            "vocab": 32000})"
        << "model.kv_heads" << "model.kv_heads: must be at most heads (32), got 64";
    QTest::addRow("explicit kv_heads does not divide")
        << "explicit" << R"({"layers": 4, "hidden": 4096, "heads": 32, "kv_heads": 6, "ffn_hidden": 14336,
                            "vocab": 32000})"
        << "model.kv_heads" << "must divide heads (32)";
    QTest::addRow("explicit moe active > experts")
        << "explicit" << R"({"layers": 4, "hidden": 4096, "heads": 32, "ffn_hidden": 14336, "vocab": 32000,
                            "moe": {"experts": 8, "active": 9}})"
        << "model.moe.active" << "model.moe.active: must be at most moe.experts (8), got 9";
    QTest::addRow("explicit moe experts string")
        << "explicit" << R"({"layers": 4, "hidden": 4096, "heads": 32, "ffn_hidden": 14336, "vocab": 32000,
                            "moe": {"experts": "eight", "active": 2}})"
        << "model.moe.experts" << R"(model.moe.experts: must be a positive integer, got "eight")";
    QTest::addRow("explicit bad ffn")
        << "explicit" << R"({"layers": 4, "hidden": 4096, "heads": 32, "ffn_hidden": 14336, "vocab": 32000,
                            "ffn": "relu"})"
        << "model.ffn" << R"(must be one of "swiglu", "gelu", got "relu")";
    QTest::addRow("explicit bad family")
        << "explicit" << R"({"family": "vision", "layers": 4, "hidden": 4096, "heads": 32, "ffn_hidden": 14336,
                            "vocab": 32000})"
        << "model.family" << R"(must be one of "decoder", "encoder")";
    QTest::addRow("explicit learned without max_positions")
        << "explicit" << R"({"layers": 4, "hidden": 768, "heads": 12, "ffn_hidden": 3072, "vocab": 50257,
                            "positional": "learned"})"
        << "model.max_positions" << "model.max_positions: missing";
    QTest::addRow("explicit tied not bool")
        << "explicit" << R"({"layers": 4, "hidden": 768, "heads": 12, "ffn_hidden": 3072, "vocab": 50257,
                            "tied_embeddings": "yes"})"
        << "model.tied_embeddings" << "must be true or false";
    QTest::addRow("explicit vocab too big")
        << "explicit" << R"({"layers": 4, "hidden": 768, "heads": 12, "ffn_hidden": 3072, "vocab": 1000000000})"
        << "model.vocab" << "model.vocab: must be at most 100000000";
    QTest::addRow("explicit fractional heads")
        << "explicit" << R"({"layers": 4, "hidden": 768, "heads": 12.5, "ffn_hidden": 3072, "vocab": 50257})"
        << "model.heads" << "model.heads: must be a positive integer, got 12.5";
    QTest::addRow("explicit head_dim not derivable")
        << "explicit" << R"({"layers": 4, "hidden": 1000, "heads": 12, "ffn_hidden": 3072, "vocab": 50257})"
        << "model.head_dim" << "not a multiple of heads (12)";
}

void TestModel::inputErrors()
{
    QFETCH(QString, form);
    QFETCH(QString, json);
    QFETCH(QString, path);
    QFETCH(QString, fragment);
    const auto doc = nlohmann::json::parse(json.toStdString());
    try {
        if (form == "hf")
            gp::modelFromHfConfig(doc, "model.hf_config");
        else
            gp::modelFromExplicit(doc, "model");
        QFAIL("no InputError thrown");
    } catch (const gp::InputError& e) {
        const QString what = QString::fromStdString(e.what());
        QVERIFY2(what.contains(fragment), qPrintable(what));
        // Each case has one fault; later checks must not pile on follow-up noise.
        QCOMPARE(e.problems().size(), std::size_t(1));
        QCOMPARE(QString::fromStdString(e.problems().front().path), path);
    }
}

void TestModel::validateRejects_data()
{
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("path");
    QTest::addRow("layers 0") << "layers" << "model.layers";
    QTest::addRow("kv heads not dividing") << "kvHeads" << "model.kv_heads";
    QTest::addRow("moe active > experts") << "moeActive" << "model.moe.active";
    QTest::addRow("experts too many") << "experts" << "model.moe.experts";
    QTest::addRow("vision params 0") << "vision" << "model.vision.params";
}

void TestModel::validateRejects()
{
    QFETCH(QString, field);
    QFETCH(QString, path);
    ModelArch m = field == "vision" ? preset("resnet50") : preset("mixtral-8x7b");
    if (field == "layers")
        m.layers = 0;
    else if (field == "kvHeads")
        m.kvHeads = 7;
    else if (field == "moeActive")
        m.moe.active = 9;
    else if (field == "experts")
        m.moe.experts = 5000;
    else if (field == "vision")
        m.vision.params = 0;
    try {
        m.validate("model");
        QFAIL("no InputError thrown");
    } catch (const gp::InputError& e) {
        QCOMPARE(QString::fromStdString(e.problems().front().path), path);
    }
}

void TestModel::fromParams_data()
{
    QTest::addColumn<double>("params");
    QTest::addRow("100M") << 1e8;
    QTest::addRow("350M") << 3.5e8;
    QTest::addRow("1B") << 1e9;
    QTest::addRow("3B") << 3e9;
    QTest::addRow("7B") << 7e9;
    QTest::addRow("13B") << 13e9;
    QTest::addRow("34B") << 34e9;
    QTest::addRow("70B") << 70e9;
    QTest::addRow("175B") << 175e9;
    QTest::addRow("400B") << 4e11;
    QTest::addRow("1T (extrapolated)") << 1e12;
    QTest::addRow("20M (below the table)") << 2e7;
}

void TestModel::fromParams()
{
    QFETCH(double, params);
    const ModelArch m = gp::modelFromParams(params, ModelFamily::Decoder, {});
    // The documented tolerance (README, "Size-only models"; tst_sizeonly checks
    // it at every 1% from 0.1B to 2T): hidden steps of 128 are a larger share of
    // a small model. Below 0.1B the steps are coarser still.
    const double tolerance = params < 1e8 ? 0.15 : params < 1e9 ? 0.08 : params < 1e10 ? 0.045 : 0.03;
    QVERIFY2(near(m.totalParams(), params, tolerance), nearMessage(m.totalParams(), params));
    QVERIFY(m.approximate);
    QCOMPARE(m.source, std::string("params"));
    QVERIFY(m.name.find("approximate") != std::string::npos);
    QVERIFY(m.shapeNote.find("approximate") != std::string::npos);
    QCOMPARE(m.family, ModelFamily::Decoder);
    QCOMPARE(m.ffn, gp::FfnKind::SwiGLU);
    QCOMPARE(m.heads % m.kvHeads, 0);
    // Heads of 128 in whole KV groups; between anchors the query width may
    // differ from hidden by less than one group.
    QCOMPARE(m.headDim, 128);
    QVERIFY2(std::abs(m.heads * m.headDim - m.hidden) <= m.kvHeads * m.headDim,
             qPrintable(QString::fromStdString(m.shapeNote)));
    // A modern FFN is 2.5-5.4x the hidden size (Qwen2.5 32B: 27648 / 5120); the
    // path between known shapes keeps it there.
    const double ratio = double(m.ffnHidden) / m.hidden;
    QVERIFY2(ratio > 2.0 && ratio < 5.5, qPrintable(QString::fromStdString(m.shapeNote)));
    try {
        m.validate("model");
    } catch (const gp::InputError& e) {
        QFAIL(e.what());
    }
}

void TestModel::fromParamsMoe_data()
{
    QTest::addColumn<double>("params");
    QTest::addColumn<int>("experts");
    QTest::addColumn<int>("active");
    QTest::addColumn<int>("shared");
    QTest::addRow("47B 8x2") << 46.7e9 << 8 << 2 << 0;
    QTest::addRow("671B 256x8+1") << 671e9 << 256 << 8 << 1;
    QTest::addRow("1T 384x8+1") << 1e12 << 384 << 8 << 1;
    QTest::addRow("16B 64x6+2") << 16e9 << 64 << 6 << 2;
}

void TestModel::fromParamsMoe()
{
    QFETCH(double, params);
    QFETCH(int, experts);
    QFETCH(int, active);
    QFETCH(int, shared);
    gp::MoeSpec moe;
    moe.experts = experts;
    moe.active = active;
    moe.shared = shared;
    const ModelArch m = gp::modelFromParams(params, ModelFamily::Decoder, moe);
    // MoE: the dense base is a fraction of the size, so its steps weigh more
    // (README, "Size-only models").
    QVERIFY2(near(m.totalParams(), params, params < 1e10 ? 0.08 : 0.035), nearMessage(m.totalParams(), params));
    QCOMPARE(m.moe.experts, experts);
    QCOMPARE(m.moe.active, active);
    QVERIFY(m.moe.expertFfnHidden > 0);
    QVERIFY(m.activeParams() < m.totalParams());
    QVERIFY(m.approximate);
    try {
        m.validate("model");
    } catch (const gp::InputError& e) {
        QFAIL(e.what());
    }
}

void TestModel::fromParamsOtherFamilies()
{
    const ModelArch enc = gp::modelFromParams(3.4e8, ModelFamily::Encoder, {});
    QCOMPARE(enc.family, ModelFamily::Encoder);
    // BERT-large's shape (335M).
    QVERIFY2(near(enc.totalParams(), 3.4e8, 0.02), nearMessage(enc.totalParams(), 3.4e8));
    QCOMPARE(enc.layers, 24);
    QCOMPARE(enc.hidden, 1024);
    QCOMPARE(enc.ffn, gp::FfnKind::GELU);
    QVERIFY(enc.approximate);
    QCOMPARE(enc.name, std::string("~340M (approximate shape)"));
    gp::MoeSpec moe;
    moe.experts = 8;
    moe.active = 2;
    QCOMPARE(gp::modelFromParams(46.7e9, ModelFamily::Decoder, moe).name,
             std::string("~46.7B MoE 8x2 (approximate shape)"));

    const ModelArch vis = gp::modelFromParams(3e8, ModelFamily::Vision, {});
    QCOMPARE(vis.family, ModelFamily::Vision);
    QCOMPARE(vis.totalParams(), 3e8);
    QVERIFY(vis.vision.gflopsPerImage > preset("vit-b-16").vision.gflopsPerImage);
    QVERIFY(vis.approximate);
    QVERIFY(!vis.shapeNote.empty());
}

void TestModel::fromParamsRejects()
{
    QVERIFY_THROWS_EXCEPTION(gp::InputError, gp::modelFromParams(-5, ModelFamily::Decoder, {}));
    QVERIFY_THROWS_EXCEPTION(gp::InputError, gp::modelFromParams(std::nan(""), ModelFamily::Decoder, {}));
    gp::MoeSpec bad;
    bad.experts = 8;
    bad.active = 9;
    try {
        gp::modelFromParams(1e10, ModelFamily::Decoder, bad);
        QFAIL("no InputError thrown");
    } catch (const gp::InputError& e) {
        QCOMPARE(e.problems().front().path, std::string("model.moe.active"));
    }
}

QTEST_APPLESS_MAIN(TestModel)
#include "tst_model.moc"
