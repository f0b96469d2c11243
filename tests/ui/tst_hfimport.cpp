// Dropping the real config.json of each newer model type on the window: the
// model opens and the line under it says what was read.
#include "ui/documentmanager.h"
#include "ui/mainwindow.h"
#include "ui/numberfield.h"
#include "ui/scenariomodel.h"
#include "ui/scenarioform.h"
#include "ui/settings.h"
#include "window_fixture.h"

#include <QDir>
#include <QDropEvent>
#include <QFile>
#include <QLabel>
#include <QMessageBox>
#include <QMimeData>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QUrl>
#include <QtTest>

using namespace gp::ui;


class TestHfImport : public QObject, protected WindowFixture
{
    Q_OBJECT
private:
    /// Copies tests/data/hf-configs/<file> to <tmp>/<model>/config.json, as it
    /// sits in a downloaded model folder, and drops it on the window.
    QString drop(MainWindow& w, const QString& file, const QString& model)
    {
        QDir(m_dir.path()).mkpath(model);
        const QString path = m_dir.filePath(model + QStringLiteral("/config.json"));
        QFile::remove(path);
        if (!QFile::copy(QStringLiteral(GP_TEST_DATA_DIR "/hf-configs/") + file, path))
            return QStringLiteral("copy failed");
        QMimeData mime;
        mime.setUrls({QUrl::fromLocalFile(path)});
        QDropEvent ev(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        // The window's handler, as a drop on it runs it (QApplication::notify
        // delivers drops only inside a platform drag, which offscreen has not).
        static_cast<QObject&>(w).event(&ev);
        auto* info = w.findChild<QLabel*>(QStringLiteral("modelInfo"));
        return info ? info->text() : QStringLiteral("no modelInfo label");
    }

private slots:
    void initTestCase() { setUpWindowTests(); }

    void init() { m_errors.clear(); }

    void dropsEachNewType_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("line");
        // Hand-checked against the model cards (tests/data/hf-configs/README.md); active
        // parameters as OpenAI counts them, without the embedding table (tst_hfmodels2).
        QTest::newRow("gpt_oss") << "gpt-oss-120b.json" << "gpt-oss-120b"
                                 << "gpt-oss-120b: 116.8B parameters (5.1B active), 36 layers: 18 full + 18 sliding (128), "
                                    "128 experts (4 active), experts in MXFP4: 60.8 GiB";
        QTest::newRow("qwen3") << "qwen3-32b.json" << "Qwen3-32B" << "Qwen3-32B: 32.8B parameters, 64 layers";
        QTest::newRow("qwen3_moe") << "qwen3-30b-a3b.json" << "Qwen3-30B-A3B"
                                   << "Qwen3-30B-A3B: 30.5B parameters (3.0B active), 48 layers, 128 experts (8 active)";
        QTest::newRow("qwen3_next") << "qwen3-next-80b-a3b-thinking.json" << "Qwen3-Next-80B-A3B-Thinking"
                                    << "Qwen3-Next-80B-A3B-Thinking: 79.7B parameters (3.6B active), 48 layers: 12 full + "
                                       "36 Gated DeltaNet, 512 experts (10 active, 1 shared)";
        QTest::newRow("llama4") << "llama-4-scout-17b-16e-instruct.json" << "Llama-4-Scout-17B-16E-Instruct"
                                << "Llama-4-Scout-17B-16E-Instruct: 108.6B parameters (16.1B active), 48 layers: 12 full "
                                   "+ 36 chunked (8192), 16 experts (1 active, 1 shared), vision tower 872M";
        QTest::newRow("deepseek_v3") << "deepseek-r1.json" << "DeepSeek-R1"
                                     << "DeepSeek-R1: 684.5B parameters (36.6B active), 61 layers, MLA (latent 512), 256 "
                                        "experts (8 active, 1 shared), MTP head 13.5B, weights in FP8 (128x128 blocks): "
                                        "641.2 GiB";
        QTest::newRow("kimi_k2") << "kimi-k2-instruct.json" << "Kimi-K2-Instruct"
                                 << "Kimi-K2-Instruct: 1026.4B parameters (31.7B active), 61 layers, MLA (latent 512), 384 "
                                    "experts (8 active, 1 shared), weights in FP8 (128x128 blocks): 958.5 GiB";
        QTest::newRow("phi3") << "phi-4.json" << "phi-4" << "microsoft/phi-4: 14.7B parameters, 40 layers";
        QTest::newRow("nemotron_h") << "nemotron-h-56b-base-8k.json" << "Nemotron-H-56B-Base-8K"
                                    << "Nemotron-H-56B-Base-8K: 56.3B parameters, 118 layers: 10 full + 54 Mamba-2 + 54 "
                                       "MLP-only";
        QTest::newRow("llama") << "llama-3.3-70b-instruct.json" << "Llama-3.3-70B-Instruct"
                               << "Llama-3.3-70B-Instruct: 70.6B parameters, 80 layers";
        QTest::newRow("olmo2") << "olmo-2-1124-13b.json" << "OLMo-2-1124-13B"
                               << "OLMo-2-1124-13B: 13.7B parameters, 40 layers";
        // mistral3: the language model under text_config, the Pixtral tower beside it
        // (hand-computed in tst_hfmodels3: 23,572,403,200 + 438,958,080).
        QTest::newRow("mistral3") << "mistral-small-3.1-24b-instruct-2503.json" << "Mistral-Small-3.1-24B-Instruct-2503"
                                  << "Mistral-Small-3.1-24B-Instruct-2503: 24.0B parameters, 40 layers, vision tower 439M";
        // glm4_moe, from GLM-4.5-Air's MLX 4-bit conversion: 106,852,251,264 parameters (the
        // MTP layer is not in an MLX checkpoint), MLX affine int4 with a 16-bit scale and
        // bias per 64 weights: 60,139,810,048 B (hand-computed in tst_hfmodels3).
        QTest::newRow("glm4_moe") << "glm-4.5-air-mlx-4bit.json" << "GLM-4.5-Air-MLX-4bit"
                                  << "GLM-4.5-Air-MLX-4bit: 106.9B parameters (12.8B active), 46 layers, 128 experts (8 "
                                     "active, 1 shared), weights in MLX int4 (group 64): 56.0 GiB";
        // granitemoehybrid, Granite 4.0-H-350M as transformers 5.1.0 re-saves it:
        // 340,332,224 parameters, 4 attention + 28 Mamba-2 layers (hand-computed in tst_hfmodels3).
        // gemma3 (the language model in text_config, a SigLIP tower beside it): Gemma 3
        // 27B's architecture as MedGemma 27B's config.json has it, 27,432,406,640
        // parameters = its index's bf16 total_size / 2 (hand-computed in tst_hfmodels3).
        QTest::newRow("gemma3") << "medgemma-27b-it.json" << "medgemma-27b-it"
                                << "medgemma-27b-it: 27.4B parameters, 62 layers: 10 full + 52 sliding (1024), vision tower 423M";
        QTest::newRow("granitemoehybrid") << "granite-4.0-h-350m-transformers5.json" << "granite-4.0-h-350m"
                                          << "granite-4.0-h-350m: 340M parameters, 32 layers: 4 full + 28 Mamba-2";
    }

    void dropsEachNewType()
    {
        QFETCH(QString, file);
        QFETCH(QString, model);
        QFETCH(QString, line);
        auto w = makeWindow();
        const QString text = drop(*w, file, model);
        QVERIFY2(text != QStringLiteral("copy failed"), qPrintable(file));
        QVERIFY2(m_errors.isEmpty(), qPrintable(m_errors.join(QLatin1Char('\n'))));
        QCOMPARE(w->documentManager()->model()->scenario().modelSpec.form, gp::ModelSpec::Form::HfConfig);
        QVERIFY2(text.startsWith(line + QStringLiteral(" <i>(")), qPrintable(text));
    }

    // What the reader assumed is said under the line (a config without model_type).
    void notesUnderTheLine()
    {
        auto w = makeWindow();
        QFile in(QStringLiteral(GP_TEST_DATA_DIR "/hf-configs/deepseek-v2-lite.json"));
        QVERIFY(in.open(QIODevice::ReadOnly));
        QByteArray text = in.readAll();
        text.replace("\"model_type\": \"deepseek_v2\",", "");
        QDir(m_dir.path()).mkpath(QStringLiteral("DeepSeek-V2-Lite"));
        const QString path = m_dir.filePath(QStringLiteral("DeepSeek-V2-Lite/config.json"));
        QFile out(path);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(text);
        out.close();
        w->form()->importHfConfig(path);
        QVERIFY2(m_errors.isEmpty(), qPrintable(m_errors.join(QLatin1Char('\n'))));
        const QString info = w->findChild<QLabel*>(QStringLiteral("modelInfo"))->text();
        QVERIFY2(info.startsWith(QStringLiteral("DeepSeek-V2-Lite: 15.7B parameters (2.5B active), 27 layers, MLA")), qPrintable(info));
        QVERIFY2(info.contains(QStringLiteral("model_type absent: read as &quot;deepseek_v2&quot; from architectures")), qPrintable(info));
    }

    // The architecture fields show the layer kinds read, and editing one keeps them
    // in the explicit form the edit turns the model into.
    void formShowsLayerKinds()
    {
        auto w = makeWindow();
        auto field = [&](const char* label) {
            for (auto* f : w->findChildren<NumberField*>())
                if (f->accessibleName() == QStringLiteral("Model %1").arg(QLatin1String(label)))
                    return f;
            return static_cast<NumberField*>(nullptr);
        };
        drop(*w, QStringLiteral("qwen3-next-80b-a3b-thinking.json"), QStringLiteral("Qwen3-Next"));
        QVERIFY(field("Linear layers") && field("State bytes") && field("Sliding layers") && field("Window"));
        QCOMPARE(field("Linear layers")->value(), std::optional<double>(36));
        QCOMPARE(field("State bytes")->value(), std::optional<double>(1097728));
        drop(*w, QStringLiteral("gpt-oss-120b.json"), QStringLiteral("gpt-oss-120b"));
        QCOMPARE(field("Sliding layers")->value(), std::optional<double>(18));
        QCOMPARE(field("Window")->value(), std::optional<double>(128));
        QCOMPARE(field("Linear layers")->value(), std::optional<double>(0));
        // A wider window typed by hand: the explicit model keeps 18 sliding layers of 256.
        field("Window")->setValue(256);
        const auto& s = w->documentManager()->model()->scenario();
        QCOMPARE(s.modelSpec.form, gp::ModelSpec::Form::Explicit);
        QCOMPARE(s.model.slidingLayers, 18);
        QCOMPARE(s.model.slidingWindow, 256);
        QCOMPARE(s.model.kvBytesPerSequence(32768, 2), (18 * 32768 + 18 * 256) * 2048.0);
        QVERIFY2(m_errors.isEmpty(), qPrintable(m_errors.join(QLatin1Char('\n'))));
    }
};

QTEST_MAIN(TestHfImport)
#include "tst_hfimport.moc"
