// Golden tests on the real config.json files found after session 10 (sources in
// tests/data/hf-configs/README.md): Mistral Small 3.1 (mistral3: the language
// model under text_config, a Pixtral vision tower beside it), GLM-4.5-Air
// (glm4_moe, as its MLX 4-bit conversion re-saves it) and Granite 4.0-H-350M
// (granitemoehybrid, as transformers 5.1.0 re-saves it). Like
// tst_hfmodels.cpp: the parameters against the model card, the KV cache by
// layer kind, and the summary line; tests/ui/tst_hfimport.cpp drops it on the app.
#include "hfmodels.h"

#include "core/hardware/catalog.h"

namespace {

bool hasNote(const ModelArch& m, const std::string& text)
{
    for (const auto& n : m.readNotes)
        if (n.find(text) != std::string::npos)
            return true;
    return false;
}

} // namespace

class TestHfModels3 : public QObject {
    Q_OBJECT
private slots:
    void mistralSmall31();
    void mistralSmall31Estimate();
    void glm45AirMlx();
    void glm45AirMlxEstimate();
    void granite40H350m();
    void granite40H350mEstimate();
    void medgemma27b();
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

// GLM-4.5-Air (zai-org/GLM-4.5-Air), read from the config.json of its LM Studio
// MLX 4-bit conversion (glm-4.5-air-mlx-4bit.json: mlx_lm re-saves the original keys
// sorted, 4-space indented, and adds "quantization" and "quantization_config"
// {"group_size": 64, "bits": 4}). Published: 106B total, 12B active (zai-org/GLM-4.5
// README, as deepwiki.com/zai-org/GLM-4.5 tabulates it; transformers' glm4_moe.md:
// "106 billion total parameters and 12 billion active parameters").
// By hand from the config (46 layers, hidden 4096, 96 heads and 8 KV heads of 128,
// attention_bias true, first_k_dense_replace 1, 128 routed experts of 1408 + 1 shared,
// top 8, untied, vocab 151552, one MTP layer):
//   embedding + head 2 x 151552 x 4096 = 1,241,513,984
//   attention per layer: q 4096 x 12288 + bias 12288, k and v 4096 x 1024 + bias 1024
//   each, o 12288 x 4096: 109,066,240; two norms 8192
//   dense FFN (layer 0) 3 x 4096 x 10944 = 134,479,872
//   MoE layer: 129 x 3 x 4096 x 1408 + router 4096 x 128 + its bias 128 = 2,232,418,432
//   loaded: 1,241,513,984 + 46 x 109,074,432 + 134,479,872 + 45 x 2,232,418,432
//           + final norm 4096 = 106,852,251,264 (0.8% over 106B; tst_hfmodels4's
//           held-back count from Glm4MoeConfig's defaults, 106,851,591,808, lacked the
//           q/k/v biases: 46 x 14,336 = 659,456)
//   MTP layer (num_nextn_predict_layers 1, not loaded): one MoE layer 109,066,240 + 8192
//           + 2,232,418,432, eh_proj 2 x 4096 x 4096 = 33,554,432, 3 norms 12,288, its
//           embedding and head 1,241,513,984: 3,616,573,568; in all 110,468,824,832
//   active: 46 x 109,074,432 + 134,479,872 + 45 x (9 x 3 x 4096 x 1408 + 524,288 + 128)
//           + 4096 + head 620,756,992 = 12,803,372,672; without the head 12,182,615,680
//           (1.5% over 12B)
// KV at 32k (vLLM FullAttentionSpec, every layer full): 46 x 2 x 8 x 128 x 2 B = 188,416 B
// per token, x 32768 = 6,174,015,488 B.
// MLX's affine 4-bit format (no quant_method; ml-explore/mlx-lm@d78bf58e mlx_lm/utils.py
// quantize_model): every Linear and Embedding whose input width divides by the group is
// quantized (the head and embedding table too, the MoEGate router and norms not), with a
// 16-bit scale and bias per 64 weights: 0.5 + 4 / 64 = 0.5625 B each. mlx_lm saves only
// the model's own parameters (utils.save_model) and glm4_moe's sanitize drops the MTP
// layer, so the checkpoint has none:
//   quantized: attention 46 x 109,051,904 = 5,016,387,584, dense FFN 134,479,872,
//   experts 45 x 129 x 3 x 4096 x 1408 = 100,435,230,720, embedding + head
//   1,241,513,984: 106,827,612,160 x 0.5625; the other 24,639,104 (biases, norms,
//   routers) x 2 B: 60,139,810,048 B.
void TestHfModels3::glm45AirMlx()
{
    const ModelArch m = load("glm-4.5-air-mlx-4bit.json");
    const double attention = 4096.0 * 12288 + 12288 + 2 * (4096.0 * 1024 + 1024) + 12288.0 * 4096;
    QCOMPARE(attention, 109066240.0);
    const double moe = 129 * 3 * 4096.0 * 1408 + 4096.0 * 128 + 128;
    QCOMPARE(moe, 2232418432.0);
    const double loaded = 2 * 151552.0 * 4096 + 46 * (attention + 8192) + 3 * 4096.0 * 10944 + 45 * moe + 4096;
    QCOMPARE(loaded, 106852251264.0);
    QCOMPARE(m.loadedParams(), loaded);
    QVERIFY_NEAR(m.loadedParams(), 106e9, 0.025);
    QCOMPARE(m.mtpLayers, 0); // not in the MLX checkpoint
    QCOMPARE(m.totalParams(), loaded);
    QCOMPARE(m.layers, 46);
    QCOMPARE(m.heads, 96);
    QCOMPARE(m.kvHeads, 8);
    QCOMPARE(m.headDim, 128);
    QCOMPARE(m.moe.experts, 128);
    QCOMPARE(m.moe.shared, 1);
    QCOMPARE(m.moe.denseLayers, 1);
    QCOMPARE(m.moeLayers(), 45);
    QVERIFY(!m.tiedEmbeddings);
    const double head = 151552.0 * 4096;
    const double active = 46 * (attention + 8192) + 3 * 4096.0 * 10944 + 45 * (9 * 3 * 4096.0 * 1408 + 4096.0 * 128 + 128) +
                          4096 + head;
    QCOMPARE(active, 12803372672.0);
    QCOMPARE(m.modelCardActiveParams(), active);
    QVERIFY_NEAR(m.modelCardActiveParams() - head, 12e9, 0.025);
    QCOMPARE(m.fullAttentionLayers(), 46);
    QCOMPARE(m.kvBytesPerSequence(32768, 2), 46 * 2 * 8 * 128 * 2 * 32768.0);
    QCOMPARE(m.kvBytesPerSequence(32768, 2), 6174015488.0);
    QCOMPARE(m.quant.kind, gp::QuantKind::Affine);
    QCOMPARE(m.quant.bits, 4);
    QCOMPARE(m.quant.groupSize, 64);
    const double quantized = 46 * (4096.0 * 12288 + 2 * 4096.0 * 1024 + 12288.0 * 4096) + 3 * 4096.0 * 10944 +
                             45 * 129 * 3 * 4096.0 * 1408 + 2 * 151552.0 * 4096;
    QCOMPARE(quantized, 106827612160.0);
    QCOMPARE(m.checkpointBytes(), quantized * (0.5 + 4.0 / 64) + (loaded - quantized) * 2);
    QCOMPARE(m.checkpointBytes(), 60139810048.0);
    QVERIFY(hasNote(m, "MLX conversion: the multi-token-prediction layer (num_nextn_predict_layers 1) is not in the "
                       "checkpoint"));
    for (const auto& n : m.readNotes)
        QVERIFY2(n.find("not read") == std::string::npos, n.c_str()); // quantization and its copy both read
    QCOMPARE(QString::fromStdString(m.summary()),
             QString("glm4_moe: 106.9B parameters (12.8B active), 46 layers, 128 experts (8 active, 1 shared), weights in "
                     "MLX int4 (group 64): 56.0 GiB"));
}

// The estimate's model block says what was read: the checkpoint's parameters (no MTP
// layer in an MLX conversion) and 6,174,015,488 B of KV per 32k sequence; 8 users at 32k
// hold 8 of them.
void TestHfModels3::glm45AirMlxEstimate()
{
    const auto e = gp::estimate(scenario(R"({"hf_config": )" + readFile("glm-4.5-air-mlx-4bit.json") + "}",
                                         R"({"mode": "inference", "runtime": "serving", "inference": {"batch": 8,
                                             "prompt_tokens": 31744, "output_tokens": 1024}})",
                                         R"({"gpus": ["nvidia-h200-sxm"]})"),
                                gp::Catalog::builtin());
    QCOMPARE(e.model.params, 106852251264.0);
    QCOMPARE(*e.model.kvBytesPerSequence, 6174015488.0);
    QVERIFY_NEAR(e.results[0].memory.kvCache, 8 * 6174015488.0, 1e-9);
}

// ibm-granite/granite-4.0-h-350m, read from its config.json as transformers 5.1.0
// re-saves it (AutoConfig.from_pretrained + save_pretrained: "dtype" for torch_dtype,
// "rope_parameters" for rope_theta, the Mamba time-step keys with {"__float__":
// "Infinity"}). Published: the checkpoint's 370 tensors hold 340M parameters, 649MB
// in bf16 (the same repository's GRANITE_IMPLEMENTATION.md and commit message,
// counted from the real weights); the name says 350M.
// By hand from the config (32 layers: attention at 10, 13, 17, 27, Mamba-2 elsewhere;
// hidden 768, 12 heads and 4 KV heads of 64, dense (num_local_experts 0) shared MLP of
// 2048 in every layer, tied embeddings, vocab 100352):
//   embedding 100352 x 768 = 77,070,336 (tied: no head)
//   attention layer: q and o 768 x 768, k and v 768 x 256: 1,572,864
//   Mamba-2 layer (48 heads of 32, d_state 128, 1 group, d_conv 4): in_proj 768 x
//     (1536 + 1792 + 48) = 2,592,768, conv1d 1792 x 4 + bias 1792 = 8,960, A_log, D
//     and dt_bias 3 x 48 = 144, gated norm 1536, out_proj 1536 x 768 = 1,179,648:
//     3,783,056
//   SwiGLU shared MLP: 768 x 4096 + 2048 x 768 = 4,718,592; two norms 1,536
//   in all: 77,070,336 + 4 x 1,572,864 + 28 x 3,783,056 + 32 x (4,718,592 + 1,536)
//           + final norm 768 = 340,332,224 (+0.1% vs 340M; 2 B each = 680,664,448 B =
//           649.1 MiB, the 649MB of the repository's bf16 safetensors)
// KV at 32k: the 4 attention layers 4 x 2 x 4 x 64 x 2 B = 4,096 B per token, x 32768 =
// 134,217,728 B; each Mamba-2 layer keeps a conv window (1536 + 2 x 128) x 3 x 2 B =
// 10,752 B and an SSM state 48 x 32 x 128 x 2 B = 393,216 B per sequence (vLLM
// MambaSpec): 28 x 403,968 = 11,311,104 B. In all 145,528,832 B per 32k sequence.
void TestHfModels3::granite40H350m()
{
    const ModelArch m = load("granite-4.0-h-350m-transformers5.json");
    const double attention = 2 * 768.0 * 768 + 2 * 768.0 * 256;
    QCOMPARE(attention, 1572864.0);
    const double mamba = 768.0 * (1536 + 1792 + 48) + 1792 * 4 + 1792 + 3 * 48 + 1536 + 1536.0 * 768;
    QCOMPARE(mamba, 3783056.0);
    const double mlp = 768.0 * 4096 + 2048.0 * 768;
    QCOMPARE(mlp, 4718592.0);
    const double total = 100352.0 * 768 + 4 * attention + 28 * mamba + 32 * (mlp + 2 * 768) + 768;
    QCOMPARE(total, 340332224.0);
    QCOMPARE(m.totalParams(), total);
    QVERIFY_NEAR(m.totalParams(), 340e6, 0.025);
    QCOMPARE(qRound(2 * m.totalParams() / 1048576.0 * 10), 6491);
    QCOMPARE(m.layers, 32);
    QCOMPARE(m.heads, 12);
    QCOMPARE(m.kvHeads, 4);
    QCOMPARE(m.headDim, 64);
    QCOMPARE(m.linearLayers, 28);
    QCOMPARE(m.fullAttentionLayers(), 4);
    QCOMPARE(m.ffnHidden, std::int64_t(2048));
    QVERIFY(m.tiedEmbeddings);
    QCOMPARE(m.moe.experts, 0);
    QCOMPARE(m.linearStateBytes, 2.0 * ((1536 + 2 * 128) * 3 + 48 * 32 * 128));
    QCOMPARE(m.kvBytesPerSequence(32768, 2), 4 * 2 * 4 * 64 * 2 * 32768.0 + 28 * 403968.0);
    QCOMPARE(m.kvBytesPerSequence(32768, 2), 145528832.0);
    // transformers 5's keys (dtype, rope_parameters, time_step_limit/min/max, a float
    // written as {"__float__": "Infinity"}) are read or known not to change memory: no note.
    QCOMPARE(m.storageBytes, 2.0);
    QVERIFY2(m.readNotes.empty(), m.readNotes.empty() ? "" : m.readNotes.front().c_str());
    QCOMPARE(QString::fromStdString(m.summary()),
             QString("granitemoehybrid: 340M parameters, 32 layers: 4 full + 28 Mamba-2"));
}

// The estimate's model block: 340,332,224 parameters and 145,528,832 B per 32k
// sequence; 8 users at 32k hold 8 of them.
void TestHfModels3::granite40H350mEstimate()
{
    const auto e = gp::estimate(scenario(R"({"hf_config": )" +
                                             gp::withoutPythonNumbers(readFile("granite-4.0-h-350m-transformers5.json")) +
                                             "}",
                                         R"({"mode": "inference", "runtime": "serving", "inference": {"batch": 8,
                                             "prompt_tokens": 31744, "output_tokens": 1024}})",
                                         R"({"gpus": ["nvidia-l4"]})"),
                                gp::Catalog::builtin());
    QCOMPARE(e.model.params, 340332224.0);
    QCOMPARE(*e.model.kvBytesPerSequence, 145528832.0);
    QVERIFY_NEAR(e.results[0].memory.kvCache, 8 * 145528832.0, 1e-9);
}

// Gemma 3 27B's architecture, read from the config.json of Google's MedGemma 27B
// multimodal (google/medgemma-27b-it, "base_model: google/gemma-3-27b-pt", "uses the
// same decoder-only transformer architecture as Gemma 3"), as a vendored copy of its
// Hub folder keeps it (medgemma-27b-it.json; transformers 4.54.0.dev0 writes the
// expanded layer_types). Published: that folder's model.safetensors.index.json,
// "total_size": 54864813280 bytes of bfloat16 = 27,432,406,640 parameters.
// By hand (62 layers, hidden 5376, 32 heads and 16 KV heads of 128, GeGLU 21504,
// four norms a layer and q/k norms of 128, tied embeddings of 262208):
//   embedding 262208 x 5376 = 1,409,630,208
//   layer: q and o 5376 x 4096, k and v 5376 x 2048 (66,060,288), q/k norms 256,
//     MLP 3 x 5376 x 21504 = 346,816,512, norms 4 x 5376: 412,898,560; x 62 =
//     25,599,710,720 (the Gemma 3 report's 25,600M non-embedding), final norm 5376
//   SigLIP tower (27 layers of 1152, MLP 4304, patches of 14 at 896): patch embedding
//     678,528, positions 4096 x 1152 = 4,718,592, layers 27 x 15,239,504, post norm
//     2,304: 416,866,032; projector 1152 x 5376 + norm 1152 = 6,194,304
//   in all 27,432,406,640 = the index's total_size / 2, to the parameter
// KV at 32k (vLLM: a sliding layer keeps its window): 10 full layers x 32768 + 52
// sliding layers x 1024 tokens, 2 x 16 x 128 x 2 B = 8,192 B each: 3,120,562,176 B.
void TestHfModels3::medgemma27b()
{
    const ModelArch m = load("medgemma-27b-it.json");
    const double layer = 2 * 5376.0 * 4096 + 2 * 5376.0 * 2048 + 256 + 3 * 5376.0 * 21504 + 4 * 5376;
    QCOMPARE(layer, 412898560.0);
    const double vision = 678528 + 4718592 + 27 * 15239504.0 + 2304;
    QCOMPARE(vision, 416866032.0);
    const double total = 262208.0 * 5376 + 62 * layer + 5376 + vision + 1152.0 * 5376 + 1152;
    QCOMPARE(total, 54864813280.0 / 2);
    QCOMPARE(m.totalParams(), total);
    QCOMPARE(m.layers, 62);
    QCOMPARE(m.slidingLayers, 52);
    QCOMPARE(m.slidingWindow, 1024);
    QCOMPARE(m.fullAttentionLayers(), 10);
    QCOMPARE(m.headDim, 128);
    QCOMPARE(m.kvHeads, 16);
    QVERIFY(m.tiedEmbeddings);
    QCOMPARE(m.kvBytesPerSequence(32768, 2), (10 * 32768.0 + 52 * 1024.0) * 8192);
    QCOMPARE(m.kvBytesPerSequence(32768, 2), 3120562176.0);
    // Every key is read or known not to change memory (the image token ids, rope
    // settings, softcapping): no note.
    QVERIFY2(m.readNotes.empty(), m.readNotes.empty() ? "" : m.readNotes.front().c_str());
    QCOMPARE(QString::fromStdString(m.summary()),
             QString("gemma3: 27.4B parameters, 62 layers: 10 full + 52 sliding (1024), vision tower 423M"));
}

QTEST_APPLESS_MAIN(TestHfModels3)
#include "tst_hfmodels3.moc"
