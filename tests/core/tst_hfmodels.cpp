// Golden tests: the real config.json of the models people serve and fine-tune
// (tests/data/hf-configs, sources in its README) read into the counts their
// model cards, Hub safetensors totals and serving engines publish. The model
// cards' active parameters, summary lines, estimates and plans built on these
// files: tst_hfmodels2.cpp.
#include "hfmodels.h"

#include "core/model/presets.h"

class TestHfModels : public QObject {
    Q_OBJECT
private slots:
    void paramsMatchPublishedTotals_data();
    void paramsMatchPublishedTotals();
    void layerKinds();
    void kvPerTokenByLayerKind();
    void checkpointBytes();
    void configWithoutModelType();
    void unreadKeysAreSaid();
    void quantizationConfigs();
    void explicitFormLayerKinds();
    void mechanismsOfOtherTypes();
};

// Published totals: every number cites its source in tests/data/hf-configs/README.md.
void TestHfModels::paramsMatchPublishedTotals_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<double>("params");
    QTest::addColumn<double>("active"); // 0: a dense model (active = total)
    QTest::addColumn<double>("tolerance");
    // gpt-oss model card (arXiv 2508.10925, table 1): 20.91B / 116.83B total.
    QTest::newRow("gpt-oss-20b") << "gpt-oss-20b.json" << 20.91e9 << 0.0 << 0.01;
    QTest::newRow("gpt-oss-120b") << "gpt-oss-120b.json" << 116.83e9 << 0.0 << 0.01;
    // Qwen3 model cards: 8.2B, 32.8B, 30.5B (3.3B activated), 235B (22B activated).
    QTest::newRow("qwen3-8b") << "qwen3-8b.json" << 8.2e9 << 0.0 << 0.01;
    QTest::newRow("qwen3-32b") << "qwen3-32b.json" << 32.8e9 << 0.0 << 0.01;
    QTest::newRow("qwen3-30b-a3b") << "qwen3-30b-a3b.json" << 30.5e9 << 3.3e9 << 0.025;
    QTest::newRow("qwen3-235b-a22b") << "qwen3-235b-a22b.json" << 235e9 << 22e9 << 0.025;
    // Qwen3-Next-80B-A3B model card: 80B total (its 3B activated is rounded hard; not checked).
    QTest::newRow("qwen3-next-80b-a3b") << "qwen3-next-80b-a3b-thinking.json" << 80e9 << 0.0 << 0.01;
    // Llama 3.3 70B: the Hub's safetensors total 70.6B.
    QTest::newRow("llama-3.3-70b") << "llama-3.3-70b-instruct.json" << 70.6e9 << 0.0 << 0.01;
    // Llama 4 model cards: Scout 109B total (vision encoder included) / 17B active;
    // Maverick 400B / 17B (that copy has no vision_config).
    QTest::newRow("llama-4-scout") << "llama-4-scout-17b-16e-instruct.json" << 109e9 << 17e9 << 0.01;
    QTest::newRow("llama-4-maverick") << "llama-4-maverick-17b-128e-instruct.json" << 400e9 << 17e9 << 0.025;
    // DeepSeek-V3/R1: 685B on the Hub = 671B main model + 14B MTP module; 37B activated.
    QTest::newRow("deepseek-r1") << "deepseek-r1.json" << 685e9 << 37e9 << 0.025;
    // Kimi K2 model card: 1T total (the Hub: 1.03T), 32B activated.
    QTest::newRow("kimi-k2") << "kimi-k2-instruct.json" << 1.03e12 << 32e9 << 0.025;
    // Phi-4: the Hub's safetensors total 14.7B.
    QTest::newRow("phi-4") << "phi-4.json" << 14.7e9 << 0.0 << 0.01;
    // Nemotron-H-56B-Base-8K model card: 56B.
    QTest::newRow("nemotron-h-56b") << "nemotron-h-56b-base-8k.json" << 56e9 << 0.0 << 0.01;
    // DeepSeek-V2-Lite model card: 15.7B total (its 2.4B activated leaves out the
    // embedding table: checked in configWithoutModelType).
    QTest::newRow("deepseek-v2-lite") << "deepseek-v2-lite.json" << 15.7e9 << 0.0 << 0.025;
}

void TestHfModels::paramsMatchPublishedTotals()
{
    QFETCH(QString, file);
    QFETCH(double, params);
    QFETCH(double, active);
    QFETCH(double, tolerance);
    const ModelArch m = load(file.toStdString());
    QVERIFY_NEAR(m.totalParams(), params, tolerance);
    if (active > 0)
        QVERIFY_NEAR(m.activeParams(), active, 0.03);
    else if (!m.moe.enabled())
        QCOMPARE(m.activeParams(), m.totalParams());
}

void TestHfModels::layerKinds()
{
    const ModelArch oss = load("gpt-oss-120b.json");
    QCOMPARE(oss.layers, 36);
    QCOMPARE(oss.slidingLayers, 18);
    QCOMPARE(oss.slidingWindow, 128);
    QCOMPARE(oss.fullAttentionLayers(), 18);
    QVERIFY(oss.attentionSinks);
    QCOMPARE(oss.quant.kind, gp::QuantKind::MXFP4);
    QVERIFY(oss.quant.expertsOnly);
    // OpenAI counts active parameters without the embedding table: 5.13B (120b), 3.61B (20b).
    QVERIFY_NEAR(oss.activeParams() - oss.embeddingParams(), 5.13e9, 0.01);
    const ModelArch oss20 = load("gpt-oss-20b.json");
    QVERIFY_NEAR(oss20.activeParams() - oss20.embeddingParams(), 3.61e9, 0.01);

    // Qwen3-Next: "12 x (3 x (Gated DeltaNet -> MoE) -> 1 x (Gated Attention -> MoE))".
    const ModelArch next = load("qwen3-next-80b-a3b-thinking.json");
    QCOMPARE(next.linearLayers, 36);
    QCOMPARE(next.fullAttentionLayers(), 12);
    QCOMPARE(next.linearKind, std::string("Gated DeltaNet"));
    QCOMPARE(next.moe.experts, 512);
    QCOMPARE(next.moe.active, 10);
    QCOMPARE(next.moe.shared, 1);

    // Llama 4: chunked attention (8192) on 3 of 4 layers, global NoPE on every 4th;
    // Maverick's experts on every second layer, dense FFN (16384) on the others.
    const ModelArch scout = load("llama-4-scout-17b-16e-instruct.json");
    QCOMPARE(scout.chunkedLayers, 36);
    QCOMPARE(scout.chunkSize, 8192);
    QCOMPARE(scout.moeLayers(), 48);
    const ModelArch maverick = load("llama-4-maverick-17b-128e-instruct.json");
    QCOMPARE(maverick.moeLayers(), 24);
    QCOMPARE(maverick.ffnHidden, std::int64_t(16384));

    // DeepSeek-R1: 3 dense layers, MLA, one MTP layer (14B on the Hub).
    const ModelArch r1 = load("deepseek-r1.json");
    QCOMPARE(r1.moeLayers(), 58);
    QCOMPARE(r1.mtpLayers, 1);
    QVERIFY_NEAR(r1.mtpParams(), 14e9, 0.05);
    QVERIFY_NEAR(r1.loadedParams(), 671e9, 0.01);

    // Nemotron-H: the pattern's 54 Mamba-2, 10 attention and 54 MLP blocks.
    const ModelArch nh = load("nemotron-h-56b-base-8k.json");
    QCOMPARE(nh.linearLayers, 54);
    QCOMPARE(nh.fullAttentionLayers(), 10);
    QCOMPARE(nh.mlpOnlyLayers, 54);
    QCOMPARE(nh.headDim, 128);

    // Phi-4's sliding_window equals its context: full attention.
    const ModelArch phi = load("phi-4.json");
    QCOMPARE(phi.slidingLayers, 0);
    QCOMPARE(phi.kvHeads, 10);
}

// KV cache bytes per token of each layer kind, bf16, hand-computed from the
// shapes the engines allocate (vLLM's KV cache spec per layer type).
void TestHfModels::kvPerTokenByLayerKind()
{
    // gpt-oss: K and V of 8 heads x 64 = 2048 B per token and layer; at 32k tokens
    // the 18 full layers hold 32768 tokens, the 18 sliding ones 128.
    const ModelArch oss = load("gpt-oss-120b.json");
    QCOMPARE(oss.kvElementsPerTokenPerLayer() * 2, 2048.0);
    QCOMPARE(oss.kvBytesPerSequence(32768, 2), 18 * 32768 * 2048.0 + 18 * 128 * 2048.0);
    // Without windows it would be 36 layers x 32768: 2x as much.
    QVERIFY_NEAR(oss.kvElementsPerToken() * 32768 * 2 / oss.kvBytesPerSequence(32768, 2), 1.992, 0.01);

    // DeepSeek-R1 MLA: the latent 512 + rope 64 = 576 values per token and layer
    // (vLLM's MLA cache; SGLang's "576-dim" MLA KV) x 61 layers x 2 B = 70,272 B/token.
    const ModelArch r1 = load("deepseek-r1.json");
    QCOMPARE(r1.kvElementsPerToken() * 2, 70272.0);
    QCOMPARE(r1.kvBytesPerSequence(32768, 2), 32768 * 70272.0);

    // Qwen3-Next: 12 gated-attention layers of 2 KV heads x 256 (2048 B/token) and
    // 36 Gated DeltaNet layers of fixed state: conv (2x2048 + 4096 channels x 3)
    // + 32 value heads x 128 x 128 = 548,864 values = 1,097,728 B (the spec's example).
    const ModelArch next = load("qwen3-next-80b-a3b-thinking.json");
    QCOMPARE(next.linearStateBytes, 1097728.0);
    QCOMPARE(next.kvBytesPerSequence(32768, 2), 12 * 32768 * 2048.0 + 36 * 1097728.0);

    // Llama 4 Scout: 8 KV heads x 128 = 4096 B/token and layer; 36 chunked layers
    // keep at most one chunk (8192), 12 global ones everything.
    const ModelArch scout = load("llama-4-scout-17b-16e-instruct.json");
    QCOMPARE(scout.kvBytesPerSequence(32768, 2), 12 * 32768 * 4096.0 + 36 * 8192 * 4096.0);

    // Nemotron-H 56B: 10 attention layers x 8 x 128 x 2 x 2 B, and 54 Mamba-2
    // layers of conv (16384 + 2 x 8 x 256 = 20480 channels x 3) + 256 heads x 64 x 256.
    const ModelArch nh = load("nemotron-h-56b-base-8k.json");
    QCOMPARE(nh.linearStateBytes, 2.0 * (20480 * 3 + 256 * 64 * 256));
    QCOMPARE(nh.kvBytesPerSequence(8192, 2), 10 * 8192 * 4096.0 + 54 * nh.linearStateBytes);

    // Qwen3-32B: 64 full layers x 8 x 128 x 2 x 2 B = 262,144 B/token.
    QCOMPARE(load("qwen3-32b.json").kvBytesPerSequence(1, 2), 262144.0);
}

void TestHfModels::checkpointBytes()
{
    // gpt-oss model card: checkpoints of 60.8 GiB (120b) and 12.8 GiB (20b):
    // MXFP4 experts (4.25 bits) and BF16 for the rest. The issue's 65.2 GB = 60.7 GiB.
    const ModelArch oss = load("gpt-oss-120b.json");
    QVERIFY_NEAR(oss.checkpointBytes(), 65.2 * kGB, 0.06);
    QVERIFY_NEAR(oss.checkpointBytes() / 1073741824.0, 60.8, 0.01);
    QVERIFY_NEAR(load("gpt-oss-20b.json").checkpointBytes() / 1073741824.0, 12.8, 0.01);
    // DeepSeek-R1 FP8 (128x128 blocks, fp32 scales; embeddings, head, norms and
    // routers BF16): the creator repository's safetensors, 688,586,727,753 B
    // (DeepSeek-V3's; R1 has the same shapes and format).
    QVERIFY_NEAR(load("deepseek-r1.json").checkpointBytes(), 688586727753.0, 0.01);
    // gpt-oss-20b: 13,780,162,412 B of safetensors.
    QVERIFY_NEAR(load("gpt-oss-20b.json").checkpointBytes(), 13780162412.0, 0.01);
    // Unquantized BF16: 2 B per parameter.
    const ModelArch q = load("qwen3-32b.json");
    QCOMPARE(q.checkpointBytes(), 2 * q.totalParams());
}

void TestHfModels::configWithoutModelType()
{
    // DeepSeek-V2-Lite without model_type: told from architectures, read as
    // MLA + MoE, said in a note (was 2.7B read as a Llama).
    nlohmann::json cfg = nlohmann::json::parse(readFile("deepseek-v2-lite.json"));
    cfg.erase("model_type");
    const ModelArch lite = gp::modelFromHfConfig(cfg, "model.hf_config");
    QVERIFY_NEAR(lite.totalParams(), 15.7e9, 0.025);
    QVERIFY_NEAR(lite.activeParams() - lite.embeddingParams(), 2.4e9, 0.03);
    QVERIFY(!lite.readNotes.empty());
    QVERIFY(QString::fromStdString(lite.readNotes.front()).contains("DeepseekV2ForCausalLM"));

    // Neither model_type nor architectures, but MLA keys: refused, never guessed.
    cfg.erase("architectures");
    try {
        gp::modelFromHfConfig(cfg, "model.hf_config");
        QFAIL("expected a refusal");
    } catch (const gp::InputError& e) {
        QVERIFY(QString::fromStdString(e.what()).contains("model.hf_config.model_type"));
        QVERIFY(QString::fromStdString(e.what()).contains("kv_lora_rank"));
        QVERIFY(QString::fromStdString(e.what()).contains("gpt_oss"));
    }

    // A plain Llama-shaped config without either: read as Llama, with a warning.
    nlohmann::json llama = nlohmann::json::parse(readFile("llama-3.3-70b-instruct.json"));
    llama.erase("model_type");
    llama.erase("architectures");
    const ModelArch l = gp::modelFromHfConfig(llama, "model.hf_config");
    QCOMPARE(l.totalParams(), load("llama-3.3-70b-instruct.json").totalParams());
    QVERIFY(QString::fromStdString(l.readNotes.front()).contains("read as a Llama-style decoder"));
}

void TestHfModels::unreadKeysAreSaid()
{
    nlohmann::json cfg = nlohmann::json::parse(readFile("qwen3-8b.json"));
    cfg["num_experts_shared_per_layer"] = 4;
    const ModelArch m = gp::modelFromHfConfig(cfg, "model.hf_config");
    bool said = false;
    for (const auto& n : m.readNotes)
        said = said || n.find("num_experts_shared_per_layer") != std::string::npos;
    QVERIFY(said);
    // The real configs leave nothing memory-relevant unread.
    for (const char* f : {"gpt-oss-20b.json", "gpt-oss-120b.json", "qwen3-8b.json", "qwen3-32b.json", "qwen3-30b-a3b.json",
                          "qwen3-235b-a22b.json", "qwen3-next-80b-a3b-thinking.json", "llama-3.3-70b-instruct.json",
                          "llama-4-scout-17b-16e-instruct.json", "llama-4-maverick-17b-128e-instruct.json",
                          "deepseek-r1.json", "kimi-k2-instruct.json", "phi-4.json", "nemotron-h-56b-base-8k.json",
                          "deepseek-v2-lite.json"})
        for (const auto& n : load(f).readNotes)
            QVERIFY2(n.find("not read") == std::string::npos, n.c_str());
    // Nemotron-H's Infinity (Python json) is read as null.
    QVERIFY(gp::withoutPythonNumbers(R"({"a": [0.0, Infinity], "b": "Infinity", "c": -Infinity, "d": NaN})")
            == R"({"a": [0.0, null], "b": "Infinity", "c": null, "d": null})");
}

void TestHfModels::quantizationConfigs()
{
    nlohmann::json cfg = nlohmann::json::parse(readFile("qwen3-32b.json"));
    // AWQ int4, group 128: 0.5 B + (fp16 scale + 4-bit zero) / 128 per weight.
    cfg["quantization_config"] = {{"quant_method", "awq"}, {"bits", 4}, {"group_size", 128}, {"zero_point", true}};
    ModelArch awq = gp::modelFromHfConfig(cfg, "model.hf_config");
    QCOMPARE(awq.quant.bytesPerParam(), 0.5 + 2.5 / 128);
    const double embHead = 2.0 * 151936 * 5120;
    const double linear = awq.totalParams() - embHead - 64 * (2 * 5120 + 2 * 128) - 5120;
    QVERIFY_NEAR(awq.checkpointBytes(), linear * (0.5 + 2.5 / 128) + (awq.totalParams() - linear) * 2, 1e-9);
    // GPTQ reads the same keys; bitsandbytes NF4 with double quant: 4.127 bits.
    cfg["quantization_config"] = {{"quant_method", "bitsandbytes"}, {"load_in_4bit", true},
                                  {"bnb_4bit_quant_type", "nf4"}, {"bnb_4bit_use_double_quant", true}};
    ModelArch nf4 = gp::modelFromHfConfig(cfg, "model.hf_config");
    QCOMPARE(nf4.quant.kind, gp::QuantKind::NF4);
    QVERIFY_NEAR(nf4.quant.bytesPerParam(), 0.5 + 1.0 / 64 + 4.0 / 16384, 1e-12);
    // An unknown method is said, and the weights stay at their dtype.
    cfg["quantization_config"] = {{"quant_method", "hqq"}};
    ModelArch other = gp::modelFromHfConfig(cfg, "model.hf_config");
    QCOMPARE(other.checkpointBytes(), 2 * other.totalParams());
    QVERIFY(QString::fromStdString(other.readNotes.back()).contains("hqq"));
}

void TestHfModels::explicitFormLayerKinds()
{
    // The spec's example: gpt-oss-120b's attention typed by hand.
    const auto spec = nlohmann::json::parse(R"({"layers": 36, "hidden": 2880, "heads": 64, "kv_heads": 8,
        "head_dim": 64, "ffn_hidden": 2880, "vocab": 201088, "sliding_window": 128, "sliding_layers": 18,
        "moe": {"experts": 128, "active": 4}})");
    const ModelArch m = gp::modelFromExplicit(spec, "model");
    QCOMPARE(m.kvBytesPerSequence(32768, 2), load("gpt-oss-120b.json").kvBytesPerSequence(32768, 2));
    const auto hybrid = nlohmann::json::parse(R"({"layers": 48, "hidden": 2048, "heads": 16, "kv_heads": 2,
        "head_dim": 256, "ffn_hidden": 5120, "vocab": 151936, "linear_layers": 36, "linear_state_bytes": 1097728})");
    const ModelArch h = gp::modelFromExplicit(hybrid, "model");
    QCOMPARE(h.kvBytesPerSequence(32768, 2), 12 * 32768 * 2048.0 + 36 * 1097728.0);
    // More sliding layers than attention layers: refused with the key path.
    auto bad = spec;
    bad["sliding_layers"] = 40;
    try {
        gp::modelFromExplicit(bad, "model");
        QFAIL("expected a refusal");
    } catch (const gp::InputError& e) {
        QVERIFY(QString::fromStdString(e.what()).contains("model.sliding_layers"));
    }
}

// Readers whose real config.json could not be copied here, on shapes typed from
// the model cards; each value below is computed by hand from those shapes.
void TestHfModels::mechanismsOfOtherTypes()
{
    using nlohmann::json;
    // Gemma 3 27B (gemma3 with text_config): 62 layers, every 6th global, the
    // others a 1024-token window; head_dim 128 explicit (5376 / 32 = 168); vocab
    // from Gemma3TextConfig's default 262208 (said in a note); SigLIP tower.
    const json gemma = json::parse(R"({"architectures": ["Gemma3ForConditionalGeneration"], "model_type": "gemma3",
        "text_config": {"head_dim": 128, "hidden_size": 5376, "intermediate_size": 21504, "model_type": "gemma3_text",
        "num_attention_heads": 32, "num_hidden_layers": 62, "num_key_value_heads": 16, "sliding_window": 1024},
        "vision_config": {"hidden_size": 1152, "image_size": 896, "intermediate_size": 4304, "num_attention_heads": 16,
        "num_hidden_layers": 27, "patch_size": 14}})");
    const ModelArch g = gp::modelFromHfConfig(gemma, "model.hf_config");
    QCOMPARE(g.slidingLayers, 52);
    QCOMPARE(g.fullAttentionLayers(), 10);
    QCOMPARE(g.headDim, 128);
    QCOMPARE(g.vocab, std::int64_t(262208));
    QVERIFY(g.tiedEmbeddings);
    // Gemma 3 report (arXiv 2503.19786) table 1: 417M vision encoder, 27.4B in all.
    QVERIFY_NEAR(g.visionTowerParams, 417e6, 0.05);
    QVERIFY_NEAR(g.totalParams(), 27.4e9, 0.01);
    // KV per token: 16 x 128 x 2 x 2 B = 8192 B per layer; at 32k: 10 full + 52 x 1024.
    QCOMPARE(g.kvBytesPerSequence(32768, 2), 10 * 32768 * 8192.0 + 52 * 1024 * 8192.0);
    bool saidVocab = false;
    for (const auto& n : g.readNotes)
        saidVocab = saidVocab || n.find("vocab_size absent") != std::string::npos;
    QVERIFY(saidVocab);

    // Gemma 2 (no layer_types): even layers slide over 4096 tokens.
    const ModelArch g2 = gp::modelFromHfConfig(json::parse(R"({"model_type": "gemma2", "hidden_size": 3584,
        "num_hidden_layers": 42, "num_attention_heads": 16, "num_key_value_heads": 8, "head_dim": 256,
        "intermediate_size": 14336, "vocab_size": 256000, "sliding_window": 4096})"), "model.hf_config");
    QCOMPARE(g2.slidingLayers, 21);
    QCOMPARE(g2.slidingWindow, 4096);
    // Gemma 2 9B is 9.24B (the Hub's safetensors total), not the 10.2B a Llama reading gave.
    QVERIFY_NEAR(g2.totalParams(), 9.24e9, 0.01);

    // GLM-4.5-Air (glm4_moe): 46 layers, the first dense (10944), 45 MoE of 128
    // experts (1408) + 1 shared, top 8; one MTP layer. Model card: 106B total,
    // 12B active; the Hub's safetensors total (with the MTP layer) 110B.
    const ModelArch glm = gp::modelFromHfConfig(json::parse(R"({"model_type": "glm4_moe", "attention_bias": true,
        "first_k_dense_replace": 1, "head_dim": 128, "hidden_size": 4096, "intermediate_size": 10944,
        "moe_intermediate_size": 1408, "n_routed_experts": 128, "n_shared_experts": 1, "num_attention_heads": 96,
        "num_experts_per_tok": 8, "num_hidden_layers": 46, "num_key_value_heads": 8, "num_nextn_predict_layers": 1,
        "tie_word_embeddings": false, "vocab_size": 151552})"), "model.hf_config");
    QCOMPARE(glm.moeLayers(), 45);
    QVERIFY_NEAR(glm.loadedParams(), 106e9, 0.025);
    QVERIFY_NEAR(glm.totalParams(), 110e9, 0.025);
    // GLM's 12B active leaves out the embedding and the head (2 x 151552 x 4096).
    QVERIFY_NEAR(glm.activeParams() - 2.0 * 151552 * 4096, 12e9, 0.025);

    // OLMo 2 7B (olmo2): q_norm and k_norm over the whole projections (4096 each
    // with MHA): 32 layers x 8192 more than a Llama of the same shape.
    const json olmo = json::parse(R"({"model_type": "olmo2", "hidden_size": 4096, "intermediate_size": 11008,
        "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 32, "vocab_size": 100352})");
    json asLlama = olmo;
    asLlama["model_type"] = "llama";
    const ModelArch olmo7 = gp::modelFromHfConfig(olmo, "model.hf_config");
    QCOMPARE(olmo7.totalParams() - gp::modelFromHfConfig(asLlama, "model.hf_config").totalParams(), 32.0 * 8192);
    // OLMo-2-1124-7B on the Hub: 7.3B.
    QVERIFY_NEAR(olmo7.totalParams(), 7.3e9, 0.01);
    qInfo("shapes: gemma-3-27b %.4fB (vision %.3fB), gemma-2-9b %.4fB, glm-4.5-air %.4fB (loaded %.4fB, active %.4fB), "
          "olmo-2-7b %.4fB", g.totalParams() / 1e9, g.visionTowerParams / 1e9, g2.totalParams() / 1e9,
          glm.totalParams() / 1e9, glm.loadedParams() / 1e9, glm.activeParams() / 1e9, olmo7.totalParams() / 1e9);

    // Granite 4.0-H (granitemoehybrid): Mamba-2 layers from layer_types, each
    // with d_inner = 48 x 64 = 3072... here a 4-layer shape checked by hand:
    // hidden 1024, 3 mamba + 1 attention, 16 heads x 64, d_state 128, 1 group,
    // conv 4. Mamba state: conv (1024 + 2 x 128) x 3 + 16 x 64 x 128 = 134,912 values.
    const ModelArch granite = gp::modelFromHfConfig(json::parse(R"({"model_type": "granitemoehybrid",
        "hidden_size": 1024, "intermediate_size": 512, "shared_intermediate_size": 2048, "num_local_experts": 0,
        "num_attention_heads": 8, "num_key_value_heads": 4, "num_hidden_layers": 4, "vocab_size": 49160,
        "layer_types": ["mamba", "mamba", "mamba", "attention"], "mamba_n_heads": 16, "mamba_d_head": 64,
        "mamba_d_state": 128, "mamba_n_groups": 1, "mamba_d_conv": 4, "mamba_expand": 1})"), "model.hf_config");
    QCOMPARE(granite.linearLayers, 3);
    QCOMPARE(granite.fullAttentionLayers(), 1);
    QCOMPARE(granite.ffnHidden, std::int64_t(2048));
    QCOMPARE(granite.linearStateBytes, 2.0 * ((1024 + 2 * 128) * 3 + 16 * 64 * 128));
    // in_proj 1024 x (2 x 1024 + 2 x 128 + 16) + conv (1280 x 4 + 1280) + 3 x 16 + norm 1024 + out_proj 1024 x 1024.
    QCOMPARE(granite.linearLayerParams,
             1024.0 * (2 * 1024 + 2 * 128 + 16) + 1280.0 * 4 + 1280 + 3 * 16 + 1024 + 1024.0 * 1024);

    // Mistral Small 3.1 (mistral3): the language model in text_config, a Pixtral tower beside it.
    const ModelArch ms = gp::modelFromHfConfig(json::parse(R"({"model_type": "mistral3", "spatial_merge_size": 2,
        "text_config": {"model_type": "mistral", "head_dim": 128, "hidden_size": 5120, "intermediate_size": 32768,
        "num_attention_heads": 32, "num_hidden_layers": 40, "num_key_value_heads": 8, "vocab_size": 131072,
        "sliding_window": null, "max_position_embeddings": 131072},
        "vision_config": {"hidden_size": 1024, "intermediate_size": 4096, "num_hidden_layers": 24,
        "num_attention_heads": 16, "patch_size": 14}})"), "model.hf_config");
    QCOMPARE(ms.slidingLayers, 0);
    // Mistral-Small-3.1-24B: 24.0B on the Hub (text 23.57B + Pixtral 0.44B).
    QVERIFY_NEAR(ms.totalParams(), 24.0e9, 0.01);
    qInfo("shapes: mistral-small-3.1 %.4fB (vision %.3fB)", ms.totalParams() / 1e9, ms.visionTowerParams / 1e9);
}

QTEST_APPLESS_MAIN(TestHfModels)
#include "tst_hfmodels.moc"
