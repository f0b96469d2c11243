// Golden tests on the real config.json files found after session 10 (sources in
// tests/data/hf-configs/README.md): Mistral Small 3.1 (mistral3: the language
// model under text_config, a Pixtral vision tower beside it). Like
// tst_hfmodels.cpp: the parameters against the model card, the KV cache by
// layer kind, and the summary line; tests/ui/tst_hfimport.cpp drops it on the app.
#include "hfmodels.h"

#include "core/hardware/catalog.h"

class TestHfModels3 : public QObject {
    Q_OBJECT
private slots:
    void mistralSmall31();
    void mistralSmall31Estimate();
};

// mistralai/Mistral-Small-3.1-24B-Instruct-2503. Model card (build.nvidia.com/
// mistralai/mistral-small-3_1-24b-instruct-2503/modelcard, quoting Mistral's:
// "With 24 billion parameters"; "Model Parameters: 24 billion").
// By hand from the config:
//   language model (text_config): embedding and untied head (tie_word_embeddings
//   absent: Mistral's default false) 2 x 131072 x 5120 = 1,342,177,280; per layer
//   q 5120 x (32 x 128) = 20,971,520, k and v 5120 x (8 x 128) = 2 x 5,242,880,
//   o 20,971,520, SwiGLU 3 x 5120 x 32768 = 503,316,480, two RMSNorms 10,240:
//   555,755,520 x 40 = 22,230,220,800; final norm 5120. In all 23,572,403,200.
//   vision tower (vision_config, Pixtral): patch conv 3 x 14 x 14 x 1024 = 602,112,
//   ln_pre 1024; per layer q/k/v/o 4 x 1024^2 = 4,194,304, SwiGLU 3 x 1024 x 4096 =
//   12,582,912, two norms 2048: 16,779,264 x 24 = 402,702,336; projector: norm 1024,
//   patch merger (spatial_merge_size 2: 4 x 1024 -> 1024) 4,194,304, linear_1
//   1024 -> 5120 and linear_2 5120 -> 5120 without bias (multimodal_projector_bias
//   false) 5,242,880 + 26,214,400. In all 438,958,080.
//   Total 24,011,361,280: 0.05% over the card's 24 billion.
// KV cache (vLLM FullAttentionSpec: sliding_window null, every layer full): 40 x
// 2 x 8 x 128 x 2 B = 163,840 B per token, x 32768 = 5,368,709,120 B per sequence.
void TestHfModels3::mistralSmall31()
{
    const ModelArch m = load("mistral-small-3.1-24b-instruct-2503.json");
    const double language = 2 * 131072.0 * 5120 + 40 * 555755520.0 + 5120;
    const double vision = 602112.0 + 1024 + 24 * 16779264.0 + 1024 + 4194304.0 + 5242880.0 + 26214400.0;
    QCOMPARE(language, 23572403200.0);
    QCOMPARE(vision, 438958080.0);
    QCOMPARE(m.visionTowerParams, vision);
    QCOMPARE(m.totalParams(), language + vision);
    QVERIFY_NEAR(m.totalParams(), 24e9, 0.025);
    // The language model is what generates: the vision tower is not in a token's path.
    QCOMPARE(m.activeParams(), language);
    QCOMPARE(m.modelCardActiveParams(), language);
    QVERIFY(!m.moe.enabled());
    QVERIFY(!m.tiedEmbeddings);
    QCOMPARE(m.layers, 40);
    QCOMPARE(m.hidden, 5120);
    QCOMPARE(m.heads, 32);
    QCOMPARE(m.kvHeads, 8);
    QCOMPARE(m.headDim, 128);
    QCOMPARE(m.ffnHidden, std::int64_t(32768));
    QCOMPARE(m.vocab, std::int64_t(131072));
    QCOMPARE(m.fullAttentionLayers(), 40);
    QCOMPARE(m.slidingLayers, 0);
    QCOMPARE(m.linearLayers, 0);
    QCOMPARE(m.kvBytesPerSequence(32768, 2), 40 * 2 * 8 * 128 * 2 * 32768.0);
    QCOMPARE(m.kvBytesPerSequence(32768, 2), 5368709120.0);
    QCOMPARE(m.storageBytes, 2.0); // torch_dtype bfloat16
    QCOMPARE(m.checkpointBytes(), 2 * (language + vision));
    QVERIFY(m.readNotes.empty());
    QCOMPARE(QString::fromStdString(m.summary()), QString("mistral3: 24.0B parameters, 40 layers, vision tower 439M"));
}

// The estimate's model block says what was read: serving 8 users at 32k on one
// H200 keeps 8 x 5,368,709,120 B of KV, and loads every weight in bf16.
void TestHfModels3::mistralSmall31Estimate()
{
    const auto e = gp::estimate(scenario(R"({"hf_config": )" + readFile("mistral-small-3.1-24b-instruct-2503.json") + "}",
                                         R"({"mode": "inference", "runtime": "serving", "inference": {"batch": 8,
                                             "prompt_tokens": 31744, "output_tokens": 1024}})",
                                         R"({"gpus": ["nvidia-h200-sxm"]})"),
                                gp::Catalog::builtin());
    QCOMPARE(e.model.params, 24011361280.0);
    QCOMPARE(*e.model.kvBytesPerSequence, 5368709120.0);
    QVERIFY_NEAR(e.results[0].memory.kvCache, 8 * 5368709120.0, 1e-9);
    QVERIFY_NEAR(e.results[0].memory.weights, 2 * 24011361280.0, 1e-9);
}

QTEST_APPLESS_MAIN(TestHfModels3)
#include "tst_hfmodels3.moc"
