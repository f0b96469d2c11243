// Golden tests for the held-back checkpoints we have no config.json of (issue
// #17): Gemma 3 12B and 27B, GLM-4.5-Air, Granite 4.0-H Small and Tiny. Each
// config is built from its transformers configuration class's defaults plus
// the values a cited source publishes for that checkpoint, and nothing else
// (a key the sources do not give is left out, so the reader's default for it
// is what is tested). Parameters are checked against the published totals,
// the KV cache per sequence at 32k by layer kind against a hand computation.
// Also: keys whose default changed across transformers versions, and unknown
// keys that could change memory (ModelArch::readNotes).
#include "hfmodels.h"

class TestHfModels4 : public QObject {
    Q_OBJECT
private slots:
    void gemma3_12b();
    void gemma3_27b();
    void glm45Air();
    void graniteSmall();
    void graniteTiny();
    void versionDefaults();
    void qwenAndDeepseekDefaults();
    void unknownKeysReported();
};

namespace {

using json = nlohmann::json;

ModelArch read(const json& config)
{
    try {
        return gp::modelFromHfConfig(config, "model.hf_config");
    } catch (const gp::InputError& e) {
        qWarning("refused: %s", e.what());
        throw;
    }
}

bool hasNote(const ModelArch& m, const std::string& text)
{
    for (const auto& n : m.readNotes)
        if (n.find(text) != std::string::npos)
            return true;
    return false;
}

// transformers src/transformers/models/gemma3/convert_gemma3_weights_orbax_to_hf.py
// at 58827fc9025aaffb9f9939678e77d1ab031af782 (Google's conversion of the released
// checkpoints): _VISION_CONFIG, the SigLIP tower of the 4B/12B/27B models.
const char* kGemmaVision = R"({"hidden_size": 1152, "intermediate_size": 4304, "num_hidden_layers": 27,
    "num_attention_heads": 16, "num_channels": 3, "image_size": 896, "patch_size": 14, "vision_use_head": false})";

// SigLIP by hand (as tst_hfmodels3 does Pixtral): patch conv 3 x 14 x 14 x 1152 + bias
// 1152 = 678,528; positions (896 / 14)^2 x 1152 = 4,718,592; per layer q/k/v/o with
// biases 4 x (1152^2 + 1152) = 5,313,024, two LayerNorms 4,608, fc1/fc2 2 x 1152 x 4304
// = 9,916,416 + biases 5,456: 15,239,504 x 27 = 411,466,608; post LayerNorm 2,304.
// Tower 416,866,032 (the report's "417M vision encoder"); the projector adds
// 1152 x text hidden + its norm 1152.
constexpr double kSiglip = 678528.0 + 4718592.0 + 411466608.0 + 2304.0;

} // namespace

// Gemma 3 12B: _VARIANTS["gemma3_12b"] of the conversion script above: vocab 262208,
// hidden 30 x 128 = 3840, intermediate 3840 x 8 / 2 = 15360, 16 heads, head_dim 256,
// 48 layers, 8 KV heads, sliding_window 1024, query_pre_attn_scalar 256. Everything
// else is Gemma3TextConfig's default (configuration_gemma3.py at 008f5c8c):
// sliding_window_pattern 6, tie_word_embeddings true, max_position_embeddings 131072.
// Published: Gemma 3 technical report (arXiv 2503.19786) table 1, 12B: 417M vision
// encoder, 1,012M embedding, 10,759M non-embedding parameters (12.19B in all).
// By hand: embedding 262208 x 3840 = 1,006,878,720 (tied head); per layer q 3840 x 4096
// = 15,728,640, k and v 3840 x 2048 = 2 x 7,864,320, o 15,728,640, q/k norms 512, GeGLU
// 3 x 3840 x 15360 = 176,947,200, 4 norms 15,360: 224,148,992 x 48 = 10,759,151,616
// (the report's 10,759M); final norm 3840. Vision 416,866,032 + 1152 x 3840 + 1152.
// KV at 32k: layer i is global when (i + 1) % 6 == 0: 8 full, 40 sliding (1024); one
// layer keeps 2 x 8 x 256 x 2 B = 8192 B per token: 8 x 32768 x 8192 = 2,147,483,648
// + 40 x 1024 x 8192 = 335,544,320 = 2,483,027,968 B.
void TestHfModels4::gemma3_12b()
{
    const ModelArch m = read(json::parse(std::string(R"({"model_type": "gemma3", "text_config": {
        "model_type": "gemma3_text", "vocab_size": 262208, "hidden_size": 3840, "intermediate_size": 15360,
        "num_attention_heads": 16, "head_dim": 256, "num_hidden_layers": 48, "num_key_value_heads": 8,
        "sliding_window": 1024, "query_pre_attn_scalar": 256}, "vision_config": )") + kGemmaVision + "}"));
    const double text = 1006878720.0 + 48 * 224148992.0 + 3840;
    const double vision = kSiglip + 1152.0 * 3840 + 1152;
    QCOMPARE(m.visionTowerParams, vision);
    QCOMPARE(m.totalParams(), text + vision);
    QCOMPARE(m.totalParams(), 12187325040.0);
    QVERIFY_NEAR(m.totalParams(), 417e6 + 1012e6 + 10759e6, 0.025);
    QVERIFY(m.tiedEmbeddings);
    QCOMPARE(m.maxPositions, std::int64_t(131072));
    QCOMPARE(m.fullAttentionLayers(), 8);
    QCOMPARE(m.slidingLayers, 40);
    QCOMPARE(m.slidingWindow, 1024);
    QCOMPARE(m.kvBytesPerSequence(32768, 2), 2483027968.0);
    QVERIFY(hasNote(m, "sliding_window_pattern absent: the configuration class's default 6"));
}

// Gemma 3 27B: _VARIANTS["gemma3_27b"]: vocab 262208, hidden 42 x 128 = 5376,
// intermediate 5376 x 4 = 21504, 32 heads, 62 layers, 16 KV heads, head_dim 128,
// sliding_window 1024, query_pre_attn_scalar 5376 / 32 = 168. Published (report
// table 1, 27B): 417M vision, 1,416M embedding, 25,600M non-embedding (27.43B).
// By hand: embedding 262208 x 5376 = 1,409,630,208; per layer q 5376 x 4096 =
// 22,020,096, k and v 5376 x 2048 = 2 x 11,010,048, o 22,020,096, q/k norms 256, GeGLU
// 3 x 5376 x 21504 = 346,816,512, 4 norms 21,504: 412,898,560 x 62 = 25,599,710,720;
// final norm 5376. KV at 32k: 10 full + 52 sliding; 2 x 16 x 128 x 2 B = 8192 B per
// token and layer: 10 x 32768 x 8192 = 2,684,354,560 + 52 x 1024 x 8192 = 436,207,616
// = 3,120,562,176 B.
void TestHfModels4::gemma3_27b()
{
    const ModelArch m = read(json::parse(std::string(R"({"model_type": "gemma3", "text_config": {
        "model_type": "gemma3_text", "vocab_size": 262208, "hidden_size": 5376, "intermediate_size": 21504,
        "num_attention_heads": 32, "num_hidden_layers": 62, "num_key_value_heads": 16, "head_dim": 128,
        "sliding_window": 1024, "query_pre_attn_scalar": 168}, "vision_config": )") + kGemmaVision + "}"));
    const double text = 1409630208.0 + 62 * 412898560.0 + 5376;
    QCOMPARE(m.totalParams(), text + kSiglip + 1152.0 * 5376 + 1152);
    QVERIFY_NEAR(m.totalParams(), 417e6 + 1416e6 + 25600e6, 0.025);
    QCOMPARE(m.fullAttentionLayers(), 10);
    QCOMPARE(m.slidingLayers, 52);
    QCOMPARE(m.kvBytesPerSequence(32768, 2), 3120562176.0);
    // Dense: a token passes every language-model weight, not the vision tower.
    QCOMPARE(m.modelCardActiveParams(), text);
}

// GLM-4.5-Air: Glm4MoeConfig's defaults (configuration_glm4_moe.py at c7ec229a, whose
// docstring calls them the "GLM-4-MOE-100B-A10B style configuration"): vocab 151552,
// hidden 4096, intermediate 10944, 46 layers, 96 heads, 8 KV heads, 128 routed experts
// of 1408, top 8, 1 shared, first_k_dense_replace 1, untied, no attention bias. The
// class has no head_dim: 128 from the GLM-4.5 report (arXiv 2508.06471, as
// emergentmind.com/topics/glm-4-5-air quotes it: "96 heads, head dimension 128"); one
// MTP layer (the same page and apxml.com/models/glm-45-air: "a Multi-Token Prediction
// (MTP) layer"). Published: 106B total, 12B active (zai-org/GLM-4.5 README, as
// deepwiki.com/zai-org/GLM-4.5 tabulates it).
// By hand: embedding + head 2 x 151552 x 4096 = 1,241,513,984; attention per layer q
// 4096 x 12288 = 50,331,648, k and v 4096 x 1024 = 2 x 4,194,304, o 50,331,648:
// 109,051,904; norms 8192; dense FFN 3 x 4096 x 10944 = 134,479,872; MoE layer (128
// routed + 1 shared) x 3 x 4096 x 1408 = 2,231,894,016 + router 4096 x 128 + its
// score-correction bias 128 = 2,232,418,432. Loaded: 1,241,513,984 + 46 x (109,051,904
// + 8192) + 134,479,872 + 45 x 2,232,418,432 + final norm 4096 = 106,851,591,808
// (0.8% over 106B). The MTP layer (not loaded) adds one more layer, eh_proj,
// 3 norms and its embedding/head copies. KV at 32k: 46 full layers x 2 x 8 x 128 x 2 B
// = 4096 B per token and layer: 46 x 32768 x 4096 = 6,174,015,488 B.
void TestHfModels4::glm45Air()
{
    const ModelArch m = read(json::parse(R"({"model_type": "glm4_moe", "head_dim": 128,
        "num_nextn_predict_layers": 1})"));
    QCOMPARE(m.layers, 46);
    QCOMPARE(m.moe.experts, 128);
    QCOMPARE(m.moe.shared, 1);
    QCOMPARE(m.moe.denseLayers, 1);
    QCOMPARE(m.moeLayers(), 45);
    QVERIFY(!m.tiedEmbeddings);
    const double attention = 2 * 4096.0 * 12288 + 2 * 4096.0 * 1024;
    const double moe = 129 * 3 * 4096.0 * 1408 + 4096.0 * 128 + 128;
    QCOMPARE(moe, 2232418432.0);
    const double loaded = 2 * 151552.0 * 4096 + 46 * (attention + 8192) + 3 * 4096.0 * 10944 + 45 * moe + 4096;
    QCOMPARE(m.loadedParams(), loaded);
    QCOMPARE(m.loadedParams(), 106851591808.0);
    QVERIFY_NEAR(m.loadedParams(), 106e9, 0.025);
    QCOMPARE(m.mtpLayers, 1);
    QVERIFY(m.totalParams() > m.loadedParams());
    // Active: attention and norms, the dense FFN, 8 routed + 1 shared experts and the
    // router per MoE layer, the head: 12,802,713,216; the published 12B matches it
    // without the head (12.18B, 1.5% over).
    const double active = 46 * (attention + 8192) + 3 * 4096.0 * 10944
                        + 45 * (9 * 3 * 4096.0 * 1408 + 4096.0 * 128 + 128) + 4096 + 151552.0 * 4096;
    QCOMPARE(m.modelCardActiveParams(), active);
    QVERIFY_NEAR(m.modelCardActiveParams() - 151552.0 * 4096, 12e9, 0.025);
    QCOMPARE(m.kvBytesPerSequence(32768, 2), 6174015488.0);
    QVERIFY(hasNote(m, "n_shared_experts absent: the configuration class's default 1"));
    QVERIFY(hasNote(m, "first_k_dense_replace absent: the configuration class's default 1"));
}

// Granite 4.0-H Small: GraniteMoeHybridConfig (configuration_granitemoehybrid.py at
// 008f5c8c) plus the published GGUF metadata of IBM's checkpoint
// (ollama.com/ibm/granite4:small-h-q6_K/blobs/a15d0868faf9): 40 blocks, embedding 4096,
// 32 heads, 72 experts of 768, 10 used, shared FFN 1536, SSM inner 8192 with
// time_step_rank (= Mamba heads) 128, state 128, 1 group, conv 4, vocab 100352, rope
// dimension 128 (head_dim). Attention at layers 5, 15, 25, 35, Mamba-2 elsewhere
// (hf.kigml.com/deucebucket/Granite-4.0-H-Small-Cerebellum-GGUF). Not published in what
// we found: num_key_value_heads and tie_word_embeddings, so the class defaults apply
// (KV heads = heads, untied). Published: 32B total, 9B active (ibm.com/granite/docs).
// By hand: embedding and head 2 x 100352 x 4096 = 822,083,584; attention layer q/o
// 2 x 4096^2, k/v 2 x 4096 x 4096 (32 KV heads x 128) = 67,108,864; Mamba layer in_proj
// 4096 x (2 x 8192 + 2 x 128 + 128) = 68,681,728, conv (8192 + 256) x 4 + 8448 = 42,240,
// dt_bias/A_log/D 384, norm 8192, out_proj 8192 x 4096 = 33,554,432: 102,286,976 x 36;
// MoE per layer 72 x 3 x 4096 x 768 + shared 3 x 4096 x 1536 + router 4096 x 72 =
// 698,646,528 x 40; norms 2 x 4096 x 40 + 4096. Total 32,719,043,072 (2.2% over 32B;
// tied embeddings and 8 KV heads, if the real config has them, give 32.2B).
// KV at 32k: 4 layers x 2 x 32 x 128 x 2 B x 32768 = 2,147,483,648; Mamba state 36 x
// 2 B x ((8192 + 256) x 3 + 128 x 64 x 128) = 36 x 2,147,840 = 77,322,240 B.
void TestHfModels4::graniteSmall()
{
    json c = json::parse(R"({"model_type": "granitemoehybrid", "num_hidden_layers": 40, "hidden_size": 4096,
        "num_attention_heads": 32, "num_local_experts": 72, "intermediate_size": 768, "num_experts_per_tok": 10,
        "shared_intermediate_size": 1536, "mamba_n_heads": 128, "mamba_d_state": 128, "mamba_n_groups": 1,
        "mamba_d_conv": 4, "vocab_size": 100352})");
    json types = json::array();
    for (int i = 0; i < 40; ++i)
        types.push_back(i % 10 == 5 ? "attention" : "mamba");
    c["layer_types"] = types;
    const ModelArch m = read(c);
    QCOMPARE(m.linearLayers, 36);
    QCOMPARE(m.fullAttentionLayers(), 4);
    QCOMPARE(m.kvHeads, 32);
    QCOMPARE(m.headDim, 128);
    QVERIFY(!m.tiedEmbeddings);
    QCOMPARE(m.linearLayerParams, 102286976.0);
    const double moe = 72 * 3 * 4096.0 * 768 + 3 * 4096.0 * 1536 + 4096.0 * 72;
    QCOMPARE(moe, 698646528.0);
    const double total = 822083584.0 + 4 * 67108864.0 + 36 * 102286976.0 + 40 * moe + 40 * 2 * 4096.0 + 4096;
    QCOMPARE(m.totalParams(), total);
    QVERIFY_NEAR(m.totalParams(), 32e9, 0.025);
    // Active: 10 of 72 experts, the head, no input embedding: 8,903,784,960.
    const double active = total - 822083584.0 / 2 - 40 * 62 * 3 * 4096.0 * 768;
    QCOMPARE(m.modelCardActiveParams(), active);
    QVERIFY_NEAR(m.modelCardActiveParams(), 9e9, 0.025);
    QCOMPARE(m.kvBytesPerSequence(32768, 2), 2147483648.0 + 77322240.0);
    QVERIFY(hasNote(m, "mamba_d_head absent"));
}

// Granite 4.0-H Tiny: the class defaults plus the GGUF metadata of IBM's checkpoint
// (ollama.com/library/granite4:tiny-h/blobs/9811e90b0eec): 40 blocks, embedding 1536,
// 12 heads, 64 experts of 512, 6 used, shared FFN 1024, SSM inner 3072 with 48 heads,
// state 128, 1 group, conv 4, vocab 100352; 4 KV heads and head_dim 128
// (fitmyllm.com/model/granite-4.0-tiny-7b). The attention layers' places are not in
// these sources: the reader's count comes from layer_types, given here as 4 attention
// layers at the Small's places (the family's 9:1 ratio, ibm.com/granite/docs).
// Published: 7B total, 1B active (ibm.com/granite/docs).
// By hand: embedding and head 2 x 100352 x 1536 = 308,281,344; attention layer q/o
// 2 x 1536^2 + k/v 2 x 1536 x 512 = 6,291,456; Mamba layer in_proj 1536 x (2 x 3072 +
// 256 + 48) = 9,904,128, conv 3328 x 5 = 16,640, 144 + norm 3072, out_proj 3072 x 1536 =
// 4,718,592: 14,642,576; MoE 64 x 3 x 1536 x 512 + 3 x 1536 x 1024 + 1536 x 64 =
// 155,811,840. KV at 32k: 4 x 2 x 4 x 128 x 2 B x 32768 = 268,435,456 B; Mamba state
// 36 x 2 B x ((3072 + 256) x 3 + 48 x 64 x 128) = 36 x 806,400 = 29,030,400 B.
void TestHfModels4::graniteTiny()
{
    json c = json::parse(R"({"model_type": "granitemoehybrid", "num_hidden_layers": 40, "hidden_size": 1536,
        "num_attention_heads": 12, "num_key_value_heads": 4, "num_local_experts": 64, "intermediate_size": 512,
        "num_experts_per_tok": 6, "shared_intermediate_size": 1024, "mamba_n_heads": 48, "mamba_d_state": 128,
        "mamba_n_groups": 1, "mamba_d_conv": 4, "vocab_size": 100352})");
    json types = json::array();
    for (int i = 0; i < 40; ++i)
        types.push_back(i % 10 == 5 ? "attention" : "mamba");
    c["layer_types"] = types;
    const ModelArch m = read(c);
    QCOMPARE(m.headDim, 128);
    QCOMPARE(m.linearLayerParams, 14642576.0);
    const double moe = 64 * 3 * 1536.0 * 512 + 3 * 1536.0 * 1024 + 1536.0 * 64;
    QCOMPARE(moe, 155811840.0);
    const double total = 308281344.0 + 4 * 6291456.0 + 36 * 14642576.0 + 40 * moe + 40 * 2 * 1536.0 + 1536;
    QCOMPARE(m.totalParams(), total);
    QVERIFY_NEAR(m.totalParams(), 7e9, 0.025);
    QCOMPARE(m.totalParams(), 7093177920.0); // 1.3% over 7B
    // Active: 6 of 64 experts, the shared MLP, the head: 1,465,470,528. IBM's "1B
    // activated" is rounded far below it (without the head still 1.31B); not compared.
    const double active = total - 308281344.0 / 2 - 40 * 58 * 3 * 1536.0 * 512;
    QCOMPARE(m.modelCardActiveParams(), active);
    QCOMPARE(m.modelCardActiveParams(), 1465470528.0);
    QCOMPARE(m.kvBytesPerSequence(32768, 2), 268435456.0 + 29030400.0);
}

// Keys a config.json may leave out whose default differs across versions or from
// what an older reader assumed: each reads as its class documents (and says so).
void TestHfModels4::versionDefaults()
{
    // GraniteMoeHybridConfig: tie_word_embeddings defaults to false (PretrainedConfig's
    // true does not apply); mamba_d_head "auto" = mamba_expand x hidden / mamba_n_heads.
    json granite = json::parse(R"({"model_type": "granitemoehybrid", "hidden_size": 1024,
        "intermediate_size": 512, "num_attention_heads": 8, "num_hidden_layers": 4, "vocab_size": 1000,
        "mamba_n_heads": 16, "mamba_d_head": "auto", "layer_types": ["mamba", "mamba", "mamba", "attention"]})");
    const ModelArch g = read(granite);
    QVERIFY(!g.tiedEmbeddings);
    QCOMPARE(g.linearLayers, 3);
    QCOMPARE(g.attentionLayers(), 1);
    QCOMPARE(g.moe.experts, 8);      // num_local_experts default
    QCOMPARE(g.moe.active, 2);       // num_experts_per_tok default
    QCOMPARE(g.moe.sharedFfnHidden, std::int64_t(1024)); // shared_intermediate_size default
    // d_head 2 x 1024 / 16 = 128; d_state default 256: state 2 B x ((2048 + 512) x 3 + 16 x 128 x 256).
    QCOMPARE(g.linearStateBytes, 2.0 * ((2048 + 2 * 256) * 3 + 16 * 128 * 256));
    QVERIFY(hasNote(g, "mamba_d_state absent: the configuration class's default 256"));
    // No layer_types: the class makes every layer Mamba (layers_block_type), which the
    // estimate does not model: refused with the key named, not read as all attention.
    granite.erase("layer_types");
    try {
        read(granite);
        QFAIL("a granitemoehybrid config without layer_types was accepted");
    } catch (const gp::InputError& e) {
        QVERIFY(std::string(e.what()).find("layer_types: absent") != std::string::npos);
    }
    // The legacy name of layer_types (GraniteMoeHybridConfig.attribute_map).
    const ModelArch g2 = read(json::parse(R"({"model_type": "granitemoehybrid", "hidden_size": 1024,
        "intermediate_size": 512, "num_attention_heads": 8, "num_hidden_layers": 2, "vocab_size": 1000,
        "layers_block_type": ["mamba", "attention"]})"));
    QCOMPARE(g2.linearLayers, 1);
    QCOMPARE(g2.fullAttentionLayers(), 1);

    // Gemma 3: transformers >= 4.53 writes _sliding_window_pattern (and layer_types);
    // without layer_types the private name is read as the pattern.
    const ModelArch gm = read(json::parse(R"({"model_type": "gemma3_text", "num_hidden_layers": 12,
        "_sliding_window_pattern": 3, "sliding_window": 512})"));
    QCOMPARE(gm.fullAttentionLayers(), 4);
    QCOMPARE(gm.slidingLayers, 8);

    // Llama4TextConfig: attention_chunk_size defaults to 8192 (chunked RoPE layers,
    // every 4th layer global); null turns chunking off.
    const char* llama4 = R"({"model_type": "llama4_text", "hidden_size": 5120, "intermediate_size": 8192,
        "num_attention_heads": 40, "num_key_value_heads": 8, "head_dim": 128, "num_hidden_layers": 48,
        "num_local_experts": 16, "num_experts_per_tok": 1, "vocab_size": 202048})";
    const ModelArch l = read(json::parse(llama4));
    QCOMPARE(l.chunkSize, 8192);
    QCOMPARE(l.chunkedLayers, 36);
    QVERIFY(hasNote(l, "attention_chunk_size absent: the configuration class's default 8192"));
    json off = json::parse(llama4);
    off["attention_chunk_size"] = nullptr;
    QCOMPARE(read(off).chunkedLayers, 0);
    // moe_layers (transformers >= 4.57) instead of interleave_moe_layer_step.
    json every2 = json::parse(llama4);
    json layers = json::array();
    for (int i = 1; i < 48; i += 2)
        layers.push_back(i);
    every2["moe_layers"] = layers;
    QCOMPARE(read(every2).moeLayers(), 24);
    every2["moe_layers"] = json::array({0, 5});
    QVERIFY_THROWS_EXCEPTION(gp::InputError, read(every2));

    // Qwen3NextConfig: the linear-attention and MoE keys have defaults.
    const ModelArch q = read(json::parse(R"({"model_type": "qwen3_next", "num_hidden_layers": 8})"));
    QCOMPARE(q.linearLayers, 6);     // full_attention_interval 4
    QCOMPARE(q.moe.experts, 512);
    QCOMPARE(q.moe.active, 10);
    QCOMPARE(q.headDim, 256);
    // Gated DeltaNet state: conv (2 x 16 x 128 + 32 x 128) x 3 + 32 value heads x 128 x 128, bf16.
    QCOMPARE(q.linearStateBytes, 2.0 * ((2 * 16 * 128 + 32 * 128) * 3 + 32 * 128 * 128));

    // NemotronHConfig (transformers 5): layers_block_type instead of
    // hybrid_override_pattern, legacy mamba_* names, "moe" blocks.
    const ModelArch n = read(json::parse(R"({"model_type": "nemotron_h", "hidden_size": 2048,
        "num_attention_heads": 16, "num_key_value_heads": 2, "head_dim": 128, "vocab_size": 1000,
        "layers_block_type": ["mamba", "moe", "attention", "moe"], "mamba_num_heads": 32, "mamba_head_dim": 64,
        "ssm_state_size": 128, "mamba_n_groups": 4, "n_routed_experts": 16, "num_experts_per_tok": 2,
        "moe_intermediate_size": 512, "moe_shared_expert_intermediate_size": 1024})"));
    QCOMPARE(n.layers, 4);
    QCOMPARE(n.linearLayers, 1);
    QCOMPARE(n.fullAttentionLayers(), 1);
    QCOMPARE(n.moeLayers(), 2);
    // relu2 experts (up, down): 16 x 2 x 2048 x 512 + shared 2 x 2048 x 1024 + router 2048 x 16 + bias 16.
    QCOMPARE(n.totalParams() - read(json::parse(R"({"model_type": "nemotron_h", "hidden_size": 2048,
        "num_attention_heads": 16, "num_key_value_heads": 2, "head_dim": 128, "vocab_size": 1000,
        "layers_block_type": ["mamba", "mlp", "attention", "mlp"], "intermediate_size": 1, "mamba_num_heads": 32,
        "mamba_head_dim": 64, "ssm_state_size": 128, "mamba_n_groups": 4})")).totalParams(),
             2 * (16 * 2 * 2048.0 * 512 + 2 * 2048.0 * 1024 + 2048.0 * 16 + 16) - 2 * (2 * 2048.0 * 1));
    // n_groups 4 (read from mamba_n_groups): conv over 32 x 64 + 2 x 4 x 128 channels.
    QCOMPARE(n.linearStateBytes, 2.0 * ((2048 + 2 * 4 * 128) * 3 + 32 * 64 * 128));

    // GptOssConfig: OpenAI's config names the top-k experts_per_token.
    const ModelArch o = read(json::parse(R"({"model_type": "gpt_oss", "hidden_size": 2880, "head_dim": 64,
        "intermediate_size": 2880, "num_attention_heads": 64, "num_key_value_heads": 8, "num_hidden_layers": 4,
        "num_local_experts": 32, "experts_per_token": 4, "vocab_size": 201088})"));
    QCOMPARE(o.moe.active, 4);
}

// Qwen2/Qwen3 (configuration_qwen3.py): use_sliding_window defaults to false, and
// when on only layers from max_window_layers (default 28) slide. DeepseekV3Config:
// n_shared_experts 1, first_k_dense_replace 3, q_lora_rank 1536.
void TestHfModels4::qwenAndDeepseekDefaults()
{
    const char* qwen = R"({"model_type": "qwen3", "hidden_size": 4096, "intermediate_size": 12288,
        "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128, "num_hidden_layers": 36,
        "vocab_size": 151936, "sliding_window": 4096})";
    // A window written, the switch left out: off (was: every layer sliding).
    QCOMPARE(read(json::parse(qwen)).slidingLayers, 0);
    json on = json::parse(qwen);
    on["use_sliding_window"] = true;
    const ModelArch q = read(on);
    QCOMPARE(q.slidingLayers, 36 - 28);
    QCOMPARE(q.slidingWindow, 4096);
    // KV at 32k, 2 x 8 x 128 x 2 B = 4096 B per token and layer: 28 full x 32768 + 8 x 4096.
    QCOMPARE(q.kvBytesPerSequence(32768, 2), 4096.0 * (28 * 32768 + 8 * 4096));
    on["max_window_layers"] = 30;
    QCOMPARE(read(on).slidingLayers, 6);

    const char* dsv3 = R"({"model_type": "deepseek_v3", "hidden_size": 7168, "intermediate_size": 18432,
        "moe_intermediate_size": 2048, "num_attention_heads": 128, "num_hidden_layers": 61,
        "n_routed_experts": 256, "num_experts_per_tok": 8, "kv_lora_rank": 512, "qk_rope_head_dim": 64,
        "qk_nope_head_dim": 128, "v_head_dim": 128, "vocab_size": 129280})";
    const ModelArch d = read(json::parse(dsv3));
    QCOMPARE(d.moe.shared, 1);
    QCOMPARE(d.moe.denseLayers, 3);
    QCOMPARE(d.mlaQLoraRank, 1536);
    QVERIFY(hasNote(d, "first_k_dense_replace absent: the configuration class's default 3"));
    // The full DeepSeek-V3 shape with its defaults is the 671B of the model card
    // (huggingface.co/deepseek-ai/DeepSeek-V3: "671B total parameters").
    QVERIFY_NEAR(d.loadedParams(), 671e9, 0.025);
    json lite = json::parse(dsv3);
    lite["q_lora_rank"] = nullptr; // DeepSeek-V2-Lite writes null: no query compression
    QCOMPARE(read(lite).mlaQLoraRank, -1);
}

// A key the reader does not know that could change memory is said in readNotes;
// known-irrelevant ones (token ids, scalings, chunk sizes) are not.
void TestHfModels4::unknownKeysReported()
{
    const ModelArch g = read(json::parse(R"({"model_type": "gemma3_text", "num_hidden_layers": 6,
        "altup_num_inputs": 4, "hidden_size_per_layer_input": 256, "query_pre_attn_scalar": 256,
        "rope_local_base_freq": 10000.0})"));
    bool said = false;
    for (const auto& n : g.readNotes) {
        if (n.rfind("not read:", 0) == 0) {
            said = true;
            QVERIFY(n.find("altup_num_inputs") != std::string::npos);
            QVERIFY(n.find("hidden_size_per_layer_input") != std::string::npos);
            QVERIFY(n.find("query_pre_attn_scalar") == std::string::npos);
            QVERIFY(n.find("rope_local_base_freq") == std::string::npos);
        }
    }
    QVERIFY(said);
    const ModelArch granite = read(json::parse(R"({"model_type": "granitemoehybrid", "hidden_size": 1024,
        "intermediate_size": 512, "num_attention_heads": 8, "num_hidden_layers": 2, "vocab_size": 1000,
        "layer_types": ["mamba", "attention"], "mamba_chunk_size": 256, "moe_latent_size": 512})"));
    QVERIFY(hasNote(granite, "not read: moe_latent_size"));
    QVERIFY(!hasNote(granite, "mamba_chunk_size"));
    // Nemotron-H's transformers-5 keys that change neither memory nor time are known.
    const ModelArch nemo = read(json::parse(R"({"model_type": "nemotron_h", "hidden_size": 1024,
        "num_attention_heads": 8, "num_key_value_heads": 2, "vocab_size": 1000, "intermediate_size": 2048,
        "hybrid_override_pattern": "M*-", "mamba_num_heads": 16, "mamba_head_dim": 64, "n_groups": 1,
        "moe_shared_expert_overlap": true, "mtp_layers_block_type": ["attention", "moe"], "conv_kernel": 4})"));
    QVERIFY(!hasNote(nemo, "not read"));
}

QTEST_APPLESS_MAIN(TestHfModels4)
#include "tst_hfmodels4.moc"
