// Golden tests on more real config.json files (session 13, sources in
// tests/data/hf-configs/README.md): other sizes of the types we read (Qwen3
// 1.7B with tied embeddings, Qwen3-Coder-480B, Qwen2.5-7B, Mixtral 8x7B,
// Mistral NeMo with an explicit head_dim, Nemotron 3 Nano's MoE hybrid) and
// quantized checkpoints (ModelOpt FP8 written without quant_method, FP8 blocks
// with a modules_to_not_convert list, compressed-tensors FP8 whose ignore list
// keeps attention in BF16). Then the quantization formats on constructed
// configs (hand-computed), and what the reader says about a config it cannot
// type or a format it does not know.
#include "hfmodels.h"

class TestHfModels5 : public QObject {
    Q_OBJECT
private slots:
    void qwen3_1_7b();
    void qwen3_32bFp8PerTensor();
    void qwen3_30bA3bFp8Blocks();
    void llama4ScoutFp8Dynamic();
    void qwen3Coder480b();
    void mixtral8x7b();
    void mistralNemo();
    void qwen25_7b();
    void nemotron3Nano();
    void nemotron3SuperLatentMoe();
    void compressedTensorsInt4Experts();
    void kimiK25Wrapper();
    void modeloptNvfp4();
    void fp4Formats();
    void gptqLikeFormats();
    void unknownFormatsSaid();
    void typeNotTold();
    void hostileQuantization();
};

namespace {

using json = nlohmann::json;

bool hasNote(const ModelArch& m, const std::string& text)
{
    for (const auto& n : m.readNotes)
        if (n.find(text) != std::string::npos)
            return true;
    return false;
}

ModelArch read(const json& config) { return gp::modelFromHfConfig(config, "model.hf_config"); }

json file(const std::string& name) { return json::parse(gp::withoutPythonNumbers(readFile(name))); }

} // namespace

// Qwen/Qwen3-1.7B. Published: the checkpoint's model.safetensors.index.json
// "total_size": 3441149952 (root-hypercube/qwen3-mlx@3bdd51a9, whose config.json is
// this one key for key), bf16, so 1,720,574,976 parameters; model card 1.7B (1.4B
// non-embedding). By hand: tied embedding 151936 x 2048 = 311,164,928; per layer q
// and o 2048 x 2048, k and v 2048 x 1024 (12,582,912 in all), q/k norms 256, SwiGLU
// 3 x 2048 x 6144 = 37,748,736, two norms 4096: 50,336,000 x 28 = 1,409,408,000 (the
// card's 1.4B non-embedding); final norm 2048.
// KV at 32k: 28 x 2 x 8 x 128 x 2 B x 32768 = 3,758,096,384 B.
void TestHfModels5::qwen3_1_7b()
{
    const ModelArch m = load("qwen3-1.7b.json");
    QVERIFY(m.tiedEmbeddings);
    const double layer = 2048.0 * 2048 * 2 + 2048.0 * 1024 * 2 + 256 + 3 * 2048.0 * 6144 + 2 * 2048;
    QCOMPARE(layer, 50336000.0);
    QCOMPARE(m.totalParams(), 151936.0 * 2048 + 28 * layer + 2048);
    QCOMPARE(m.totalParams(), 1720574976.0);
    QCOMPARE(m.checkpointBytes(), 3441149952.0); // the published total_size, to the byte
    QCOMPARE(m.totalParams() - m.embeddingParams(), 1409410048.0);
    QVERIFY_NEAR(28 * layer, 1.4e9, 0.025);
    QCOMPARE(m.kvBytesPerSequence(32768, 2), 3758096384.0);
    QCOMPARE(m.slidingLayers, 0); // use_sliding_window false
}

// Qwen/Qwen3-32B-FP8-Static-PerTensor: NVIDIA ModelOpt's export, whose
// quantization_config names quant_algo "FP8" and producer modelopt but no
// quant_method; ignore ["lm_head"]. Per-tensor FP8: every linear of the decoder
// layers 1 byte a weight (one scale per tensor). By hand (Qwen3-32B, 64 layers,
// hidden 5120, 64 heads and 8 KV heads of 128, FFN 25600, untied): per layer q 5120 x
// 8192, k and v 5120 x 1024, o 8192 x 5120, SwiGLU 3 x 5120 x 25600 = 487,587,840 x
// 64 = 31,205,621,760 in FP8; embedding and head 2 x 151936 x 5120 = 1,555,824,640,
// norms 64 x 10,496 + 5120 in bf16: 31,205,621,760 + 2 x 1,556,501,504 = 34,318,624,768 B.
void TestHfModels5::qwen3_32bFp8PerTensor()
{
    const ModelArch m = load("qwen3-32b-fp8-static-pertensor.json");
    QCOMPARE(m.totalParams(), 32762123264.0);
    QCOMPARE(m.quant.kind, gp::QuantKind::FP8);
    QCOMPARE(m.quant.method, std::string("modelopt"));
    const double fp8 = 64 * (2 * 5120.0 * 8192 + 2 * 5120.0 * 1024 + 3 * 5120.0 * 25600);
    QCOMPARE(fp8, 31205621760.0);
    QCOMPARE(m.checkpointBytes(), fp8 + 2 * (m.totalParams() - fp8));
    QCOMPARE(m.checkpointBytes(), 34318624768.0);
    QVERIFY(!hasNote(m, "not read"));
    QCOMPARE(QString::fromStdString(m.summary()),
             QString("qwen3: 32.8B parameters, 64 layers, weights in FP8: 32.0 GiB"));
}

// Qwen/Qwen3-30B-A3B-FP8: quant_method fp8, 128 x 128 blocks, modules_to_not_convert
// naming lm_head and every layer's norms and router (mlp.gate): all 16-bit already,
// so nothing more is kept. By hand: per layer attention q 2048 x 4096, k and v 2048 x
// 512, o 4096 x 2048 = 18,874,368, experts 128 x 3 x 2048 x 768 = 603,979,776: x 48 =
// 29,896,998,912 in FP8 with an fp32 scale per 128 x 128 block (1 + 4 / 16384 B); the
// other 635,123,712 (embedding, head, norms, routers) bf16:
// 29,896,998,912 x 1.000244140625 + 1,270,247,424 = 31,174,545,408 B.
void TestHfModels5::qwen3_30bA3bFp8Blocks()
{
    const ModelArch m = load("qwen3-30b-a3b-fp8.json");
    QCOMPARE(m.totalParams(), load("qwen3-30b-a3b.json").totalParams());
    QCOMPARE(m.quant.kind, gp::QuantKind::FP8Block);
    QCOMPARE(m.quant.groupSize, 128);
    QCOMPARE(m.quant.kept.attention, 0.0);
    QCOMPARE(m.quant.kept.experts, 0.0);
    const double fp8 = 48 * (2048.0 * 4096 * 2 + 2 * 2048.0 * 512 + 128 * 3 * 2048.0 * 768);
    QCOMPARE(fp8, 29896998912.0);
    QCOMPARE(m.checkpointBytes(), fp8 * (1 + 4.0 / 16384) + 2 * (m.totalParams() - fp8));
    QCOMPARE(m.checkpointBytes(), 31174545408.0);
    QVERIFY(!hasNote(m, "ignore list"));
}

// RedHatAI/Llama-4-Scout-17B-16E-Instruct-FP8-dynamic: compressed-tensors, FP8
// weights per channel on the Linear layers; its ignore list names the vision
// tower, the projector, lm_head, and every language layer's q/k/v/o_proj and router.
// So only the experts are FP8: 48 MoE layers x (16 routed + 1 shared) x 3 x 5120 x
// 8192 = 102,676,561,920 at 1 B; the rest (attention, embeddings, head, norms,
// routers, the vision tower) bf16. The shape is Llama-4-Scout's (the same config
// but for the quantization and "for_llm_compressor").
void TestHfModels5::llama4ScoutFp8Dynamic()
{
    const ModelArch m = load("llama-4-scout-17b-16e-instruct-fp8-dynamic.json");
    const ModelArch bf16 = load("llama-4-scout-17b-16e-instruct.json");
    QCOMPARE(m.totalParams(), bf16.totalParams());
    QCOMPARE(m.quant.kind, gp::QuantKind::FP8);
    QCOMPARE(m.quant.kept.attention, 1.0);
    QCOMPARE(m.quant.kept.experts, 0.0);
    QCOMPARE(m.quant.kept.shared, 0.0);
    const double fp8 = 48 * 17 * 3 * 5120.0 * 8192;
    QCOMPARE(fp8, 102676561920.0);
    QCOMPARE(m.checkpointBytes(), fp8 + 2 * (m.totalParams() - fp8));
    QCOMPARE(m.checkpointBytes(), 114607025152.0);
    QVERIFY(hasNote(m, "the ignore list keeps in 16-bit: attention"));
    QVERIFY(!hasNote(m, "not matched"));
}

// Qwen/Qwen3-Coder-480B-A35B-Instruct. Model card: "480B in total and 35B activated"
// (Qwen's activated count includes the embedding table, as the Qwen3-30B-A3B card's
// does). By hand: per layer attention q 6144 x 12288, k and v 6144 x 1024, o 12288 x
// 6144 = 163,577,856, q/k norms 256, two norms 12,288, 160 experts x 3 x 6144 x 2560
// = 7,549,747,200, router 6144 x 160; x 62, + embedding and head 2 x 151936 x 6144 +
// final norm = 480,154,875,392. Active: 8 experts, + the head: 34,541,270,528; with
// the table 35,474,765,312 (1.4% over 35B). KV at 32k: 62 x 2 x 8 x 128 x 2 B x 32768.
void TestHfModels5::qwen3Coder480b()
{
    const ModelArch m = load("qwen3-coder-480b-a35b-instruct.json");
    const double h = 6144, attention = 163577856, table = 151936.0 * 6144;
    QCOMPARE(attention, h * 12288 * 2 + 2 * h * 1024);
    const double layer = attention + 256 + 2 * h + 160 * 3 * h * 2560 + h * 160;
    QCOMPARE(m.totalParams(), 2 * table + 62 * layer + h);
    QCOMPARE(m.totalParams(), 480154875392.0);
    QVERIFY_NEAR(m.totalParams(), 480e9, 0.025);
    QCOMPARE(m.moe.shared, 0); // shared_expert_intermediate_size 0
    QCOMPARE(m.modelCardActiveParams(), 62 * (attention + 256 + 2 * h + 8 * 3 * h * 2560 + h * 160) + h + table);
    QCOMPARE(m.modelCardActiveParams() + table, 35474765312.0);
    QVERIFY_NEAR(m.modelCardActiveParams() + table, 35e9, 0.025);
    QCOMPARE(m.kvBytesPerSequence(32768, 2), 62 * 2 * 8 * 128 * 2 * 32768.0);
}

// mistralai/Mixtral-8x7B-v0.1. Mistral AI ("Mixtral of experts", mistral.ai/news/
// mixtral-of-experts): "Mixtral has 46.7B total parameters but only uses 12.9B
// parameters per token". By hand: per layer attention 4096 x 4096 x 2 + 2 x 4096 x
// 1024, 8 experts x 3 x 4096 x 14336, router 4096 x 8, two norms; x 32, + embedding
// and head 2 x 32000 x 4096 + final norm = 46,702,792,704. Per token 2 experts:
// 12,748,853,248 with the head, 12,879,925,248 with the embedding table too (what
// Mistral counts). sliding_window null: every layer full; KV 32 x 2 x 8 x 128 x 2 B
// x 32768 = 4,294,967,296 B.
void TestHfModels5::mixtral8x7b()
{
    const ModelArch m = load("mixtral-8x7b-v0.1.json");
    QCOMPARE(m.totalParams(), 46702792704.0);
    QVERIFY_NEAR(m.totalParams(), 46.7e9, 0.025);
    QCOMPARE(m.modelCardActiveParams(), 12748853248.0);
    QCOMPARE(m.activeParams(), 12879925248.0);
    QVERIFY_NEAR(m.activeParams(), 12.9e9, 0.025);
    QCOMPARE(m.slidingLayers, 0);
    QCOMPARE(m.kvBytesPerSequence(32768, 2), 4294967296.0);
}

// mistralai/Mistral-Nemo-Instruct-2407: head_dim 128 with hidden 5120 and 32 heads
// (not 5120 / 32 = 160). Model card: "a 12B model". By hand: per layer q 5120 x
// 4096, k and v 5120 x 1024, o 4096 x 5120, SwiGLU 3 x 5120 x 14336, two norms:
// 272,640,000 x 40 + embedding and head 2 x 131072 x 5120 + final norm =
// 12,247,782,400 (2.1% over 12B). KV: 40 x 2 x 8 x 128 x 2 B x 32768 = 5,368,709,120 B.
void TestHfModels5::mistralNemo()
{
    const ModelArch m = load("mistral-nemo-instruct-2407.json");
    QCOMPARE(m.headDim, 128);
    const double layer = 5120.0 * 4096 * 2 + 2 * 5120.0 * 1024 + 3 * 5120.0 * 14336 + 2 * 5120;
    QCOMPARE(layer, 272640000.0);
    QCOMPARE(m.totalParams(), 40 * layer + 2 * 131072.0 * 5120 + 5120);
    QVERIFY_NEAR(m.totalParams(), 12e9, 0.025);
    QCOMPARE(m.kvBytesPerSequence(32768, 2), 5368709120.0);
}

// Qwen/Qwen2.5-7B-Instruct. Model card: "Number of Parameters: 7.61B; Number of
// Paramaters (Non-Embedding): 6.53B". By hand: per layer q 3584 x 3584 + bias, k and v
// 3584 x 512 + biases, o 3584 x 3584, SwiGLU 3 x 3584 x 18944, two norms; x 28, +
// embedding and head 2 x 152064 x 3584 + final norm = 7,615,616,512; without the
// embedding and head 6,525,621,760. use_sliding_window false: every layer full;
// KV 28 x 2 x 4 x 128 x 2 B x 32768 = 1,879,048,192 B.
void TestHfModels5::qwen25_7b()
{
    const ModelArch m = load("qwen2.5-7b-instruct.json");
    const double layer = 2 * 3584.0 * 3584 + 3584 + 2 * (3584.0 * 512 + 512) + 3 * 3584.0 * 18944 + 2 * 3584;
    QCOMPARE(m.totalParams(), 28 * layer + 2 * 152064.0 * 3584 + 3584);
    QCOMPARE(m.totalParams(), 7615616512.0);
    QVERIFY_NEAR(m.totalParams(), 7.61e9, 0.025);
    QVERIFY_NEAR(m.totalParams() - 2 * 152064.0 * 3584, 6.53e9, 0.025);
    QCOMPARE(m.slidingLayers, 0);
    QCOMPARE(m.kvBytesPerSequence(32768, 2), 1879048192.0);
}

// nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16: 52 blocks "MEMEM*EMEMEM*...": 23 Mamba-2,
// 23 MoE (128 relu2 experts of 1856 + one shared of 3712, top 6), 6 attention (32
// heads, 2 KV heads of 128). Published: 31.6B total, 3.2B active (NVIDIA's model card
// as open-source-ai.tech/models/nemotron-3-nano summarises it: "a 31.6B-total /
// 3.2B-active hybrid Mamba-Transformer MoE. 52 layers (23 MoE, 23 Mamba-2, 6 GQA)").
// By hand (hidden 2688, one norm per block): attention q 2688 x 4096, k and v 2688 x
// 256, o 4096 x 2688, norm: 23,399,040; Mamba-2 (64 heads of 64, 8 groups, state
// 128, conv 4 with bias): in_proj 2688 x (2 x 4096 + 2 x 8 x 128 + 64), conv 6144 x 4
// + 6144, 192, gated norm 4096, out_proj 4096 x 2688, norm: 38,744,896; MoE 128 x 2 x
// 2688 x 1856 + 2 x 2688 x 3712 + router 2688 x 128 + bias 128 + norm:
// 1,297,468,160; embedding and head 2 x 131072 x 2688; final norm. Total
// 31,577,940,288; active (6 experts, the head, no table) 3,227,754,816.
// State: mamba_ssm_cache_dtype "float32" (vLLM's NemotronH hook keeps the SSM state
// in it): per Mamba layer conv 2 B x 6144 x 3 = 36,864 + SSM 4 B x 64 x 64 x 128 =
// 2,097,152. At 32k: 6 x 2 x 2 x 128 x 2 B x 32768 = 201,326,592 + 23 x 2,134,016 =
// 250,408,960 B.
void TestHfModels5::nemotron3Nano()
{
    const ModelArch m = load("nemotron-3-nano-30b-a3b-bf16.json");
    QCOMPARE(m.linearLayers, 23);
    QCOMPARE(m.attentionLayers(), 6);
    QCOMPARE(m.moeLayers(), 23);
    const double h = 2688;
    const double attention = h * 4096 * 2 + 2 * h * 256 + h;
    const double mamba = h * (2 * 4096 + 2 * 8 * 128 + 64) + 6144 * 4 + 6144 + 3 * 64 + 4096 + 4096 * h + h;
    const double moe = 128 * 2 * h * 1856 + 2 * h * 3712 + h * 128 + 128 + h;
    QCOMPARE(attention + mamba + moe, 23399040.0 + 38744896.0 + 1297468160.0);
    QCOMPARE(m.totalParams(), 2 * 131072 * h + 6 * attention + 23 * mamba + 23 * moe + h);
    QCOMPARE(m.totalParams(), 31577940288.0);
    QVERIFY_NEAR(m.totalParams(), 31.6e9, 0.025);
    QCOMPARE(m.modelCardActiveParams(), 3227754816.0);
    QVERIFY_NEAR(m.modelCardActiveParams(), 3.2e9, 0.025);
    QCOMPARE(m.linearStateBytes, 2.0 * 6144 * 3 + 4.0 * 64 * 64 * 128);
    QCOMPARE(m.kvBytesPerSequence(32768, 2), 250408960.0);
    QVERIFY(hasNote(m, "mamba_ssm_cache_dtype float32"));
}

// nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-FP8: LatentMoE (moe_latent_size 1024): the
// router reads the 4096-wide hidden state, fc1_latent_proj brings it to 1024, 512
// relu2 experts (top 22) run 1024 -> 2688 -> 1024, fc2_latent_proj brings the sum
// back; the shared expert (5376) works on the hidden state (NemotronHMoE.forward, as
// TensorRT-LLM's and MLX ports quote it). Published: the model's name, 120B total and
// 12B active. By hand (88 blocks: 40 Mamba-2, 40 MoE, 8 attention; one norm a block):
// attention q and o 4096 x 4096, k and v 4096 x 256, norm: 35,655,680; Mamba-2 (128
// heads of 64, 8 groups, state 128) in_proj 4096 x 18560, conv 10240 x 4 + bias,
// 384, gated norm 8192, out_proj 8192 x 4096, norm: 109,640,064; MoE 512 x 2 x 1024 x
// 2688 + latent projections 2 x 4096 x 1024 + shared 2 x 4096 x 5376 + router 4096 x
// 512 + bias 512 + norm: 2,873,102,848; embedding and head 2 x 131072 x 4096; final
// norm. Loaded 120,668,707,840 (0.6% over 120B); the MTP layer ("*E") is not loaded.
// Active without the table: 22 experts, the latent projections, shared, router:
// 12,233,366,528 (1.9% over 12B). State at 32k: 8 x 2 x 2 x 128 x 2 B x 32768 =
// 268,435,456 + 40 x (2 B x 10240 x 3 + 4 B x 128 x 64 x 128) = 438,665,216 B. Its FP8
// format is in hf_quant_config.json only: config.json says nothing, BF16 is counted.
void TestHfModels5::nemotron3SuperLatentMoe()
{
    const ModelArch m = load("nemotron-3-super-120b-a12b-fp8.json");
    const double h = 4096;
    const double attention = 2 * h * 4096 + 2 * h * 256 + h;
    const double mamba = h * 18560 + 10240 * 4 + 10240 + 384 + 8192 + 8192 * h + h;
    const double moe = 512 * 2 * 1024 * 2688.0 + 2 * h * 1024 + 2 * h * 5376 + h * 512 + 512 + h;
    QCOMPARE(attention + mamba + moe, 35655680.0 + 109640064.0 + 2873102848.0);
    QCOMPARE(m.loadedParams(), 2 * 131072 * h + 8 * attention + 40 * mamba + 40 * moe + h);
    QCOMPARE(m.loadedParams(), 120668707840.0);
    QVERIFY_NEAR(m.loadedParams(), 120e9, 0.025);
    QCOMPARE(m.moe.expertFfnHidden, std::int64_t(672)); // 2688 x 1024 / 4096
    const double activeMoe = 22 * 2 * 1024 * 2688.0 + 2 * h * 1024 + 2 * h * 5376 + h * 512 + 512 + h;
    QCOMPARE(m.modelCardActiveParams(), 8 * attention + 40 * mamba + 40 * activeMoe + 131072 * h + h);
    QCOMPARE(m.modelCardActiveParams(), 12233366528.0);
    QVERIFY_NEAR(m.modelCardActiveParams(), 12e9, 0.025);
    QCOMPARE(m.kvBytesPerSequence(32768, 2), 438665216.0);
    QVERIFY(hasNote(m, "moe_latent_size 1024"));
    QVERIFY(!m.quant.quantized());
}

// compressed-tensors int4 on the routed experts only, the form of Moonshot's
// natively int4 Kimi K2 checkpoints (pack-quantized, group 32, symmetric: packed
// int4 + one bf16 scale per 32, no zero point) with regex ignore entries for
// attention, shared experts and the dense layer's MLP. Constructed on Kimi K2's real
// config (not a copied quantized config): the routed experts, 60 MoE layers x 384 x 3
// x 7168 x 2048 = 1,014,686,023,680, take 0.5 + 2 / 32 B; everything else bf16:
// 570,760,888,320 + 2 x 11,722,208,768 = 594,205,305,856 B.
void TestHfModels5::compressedTensorsInt4Experts()
{
    json c = file("kimi-k2-instruct.json");
    c["quantization_config"] = json::parse(R"({"quant_method": "compressed-tensors", "format": "pack-quantized",
        "config_groups": {"group_0": {"targets": ["Linear"], "weights": {"num_bits": 4, "type": "int",
            "strategy": "group", "group_size": 32, "symmetric": true}}},
        "ignore": ["lm_head", "re:.*self_attn.*", "re:.*shared_experts.*", "re:.*mlp\\.(gate|up|gate_up|down)_proj.*"]})");
    const ModelArch m = read(c);
    QCOMPARE(m.quant.kind, gp::QuantKind::IntGroup);
    QCOMPARE(m.quant.bits, 4);
    QCOMPARE(m.quant.groupSize, 32);
    QVERIFY(!m.quant.zeroPoint);
    QCOMPARE(m.quant.kept.attention, 1.0);
    QCOMPARE(m.quant.kept.shared, 1.0);
    QCOMPARE(m.quant.kept.denseFfn, 1.0);
    QCOMPARE(m.quant.kept.experts, 0.0);
    const double experts = 60 * 384 * 3 * 7168.0 * 2048;
    QCOMPARE(experts, 1014686023680.0);
    QCOMPARE(m.checkpointBytes(), experts * (0.5 + 2.0 / 32) + 2 * (m.totalParams() - experts));
    QCOMPARE(m.checkpointBytes(), 594205305856.0);
    QVERIFY(hasNote(m, "the ignore list keeps in 16-bit: attention, dense FFNs, shared experts"));
}

// moonshotai/Kimi-K2.5 (kimi_k25): Kimi K2's language model in text_config (model_type
// kimi_k2, the same shape as kimi-k2-instruct.json) beside a MoonViT vision tower, and
// its quantization_config inside text_config: the compressed-tensors int4 experts of
// the constructed case above, so the same 594,205,305,856 B. The tower is said, not
// counted (MoonViT's shape is not read).
void TestHfModels5::kimiK25Wrapper()
{
    const ModelArch m = load("kimi-k2.5.json");
    const ModelArch k2 = load("kimi-k2-instruct.json");
    QCOMPARE(m.totalParams(), k2.totalParams());
    QCOMPARE(m.modelCardActiveParams(), k2.modelCardActiveParams());
    QCOMPARE(m.kvBytesPerSequence(32768, 2), k2.kvBytesPerSequence(32768, 2));
    QCOMPARE(m.quant.kind, gp::QuantKind::IntGroup);
    QCOMPARE(m.checkpointBytes(), 594205305856.0);
    QVERIFY(hasNote(m, "model.hf_config.text_config.quantization_config: the ignore list keeps in 16-bit: attention, "
                       "dense FFNs, shared experts"));
    QVERIFY(hasNote(m, "vision_config: the vision tower (MoonViT) is not counted"));
    for (const auto& n : m.readNotes)
        QVERIFY2(n.find("not read") == std::string::npos, n.c_str());
}

// ModelOpt NVFP4 (quant_method "modelopt", quant_algo "NVFP4", group 16: E2M1 values
// and one E4M3 scale byte per 16 = 0.5625 B), attention left in bf16 by an ignore list
// naming one layer's self_attn per entry, as NVIDIA's exports write it. Constructed on
// Qwen3-8B's real config (36 layers, hidden 4096, FFN 12288): the MLPs, 36 x 3 x
// 4096 x 12288 = 5,435,817,984, in NVFP4; the other 2,754,917,376 bf16:
// 3,057,647,616 + 5,509,834,752 = 8,567,482,368 B.
void TestHfModels5::modeloptNvfp4()
{
    json c = file("qwen3-8b.json");
    json ignore = json::array({"lm_head"});
    for (int i = 0; i < 36; ++i)
        ignore.push_back("model.layers." + std::to_string(i) + ".self_attn*");
    c["quantization_config"] = {{"quant_method", "modelopt"}, {"quant_algo", "NVFP4"}, {"ignore", ignore},
                                {"config_groups", {{"group_0", {{"targets", {"Linear"}},
                                    {"weights", {{"num_bits", 4}, {"type", "float"}, {"group_size", 16}}}}}}}};
    const ModelArch m = read(c);
    QCOMPARE(m.quant.kind, gp::QuantKind::NVFP4);
    QCOMPARE(m.quant.groupSize, 16);
    QCOMPARE(m.quant.bytesPerParam(), 0.5625);
    QCOMPARE(m.quant.kept.attention, 1.0);
    const double mlp = 36 * 3 * 4096.0 * 12288;
    QCOMPARE(mlp, 5435817984.0);
    QCOMPARE(m.checkpointBytes(), mlp * 0.5625 + 2 * (m.totalParams() - mlp));
    QCOMPARE(m.checkpointBytes(), 8567482368.0);
    QVERIFY(QString::fromStdString(m.summary()).endsWith("weights in NVFP4: 8.0 GiB"));
    // Half the layers' attention kept: half the attention bytes at 16 bits.
    ignore = json::array();
    for (int i = 0; i < 36; i += 2)
        ignore.push_back("model.layers." + std::to_string(i) + ".self_attn.q_proj");
    c["quantization_config"]["ignore"] = ignore;
    QCOMPARE(read(c).quant.kept.attention, 0.5);
}

// 4-bit float weights in compressed-tensors: group 16 is NVFP4 (nvfp4-pack-quantized),
// group 32 MXFP4 (mxfp4-pack-quantized, E8M0 scales): 0.5 + 1/32 B, every Linear (not
// only the experts, unlike gpt-oss's mxfp4 quant_method). MLX's modes: "mxfp4".
void TestHfModels5::fp4Formats()
{
    json c = file("qwen3-8b.json");
    c["quantization_config"] = json::parse(R"({"quant_method": "compressed-tensors", "format": "mxfp4-pack-quantized",
        "config_groups": {"group_0": {"targets": ["Linear"], "weights": {"num_bits": 4, "type": "float",
            "group_size": 32}}}, "ignore": ["lm_head"]})");
    ModelArch m = read(c);
    QCOMPARE(m.quant.kind, gp::QuantKind::MXFP4);
    QVERIFY(!m.quant.expertsOnly);
    QCOMPARE(m.quant.bytesPerParam(), 0.5 + 1.0 / 32);
    c["quantization_config"]["config_groups"]["group_0"]["weights"]["group_size"] = 16;
    QCOMPARE(read(c).quant.kind, gp::QuantKind::NVFP4);
    // MLX: the embedding table is quantized too (tied head: once).
    c.erase("quantization_config");
    c["quantization"] = {{"group_size", 32}, {"bits", 4}, {"mode", "mxfp4"}};
    m = read(c);
    QCOMPARE(m.quant.kind, gp::QuantKind::MXFP4);
    QVERIFY(m.quant.embeddingsQuantized);
    const double linears = 36 * (2 * 4096.0 * 4096 + 2 * 4096.0 * 1024 + 3 * 4096.0 * 12288);
    const double quantized = linears + 2 * 151936.0 * 4096; // Qwen3-8B's head is untied
    QCOMPARE(m.checkpointBytes(), quantized * (0.5 + 1.0 / 32) + 2 * (m.totalParams() - quantized));
}

// GPTQ and AutoRound (which packs as GPTQ does): packed int4, per group of 128 a 16-bit
// scale and a packed 4-bit zero point: 0.5 + 2.5 / 128 B a weight, on every linear of
// the decoder layers. On Qwen2.5-7B's real config: 28 x (2 x 3584 x 3584 + 2 x 3584 x
// 512 + 3 x 3584 x 18944) = 6,525,288,448 quantized; the other 1,090,328,064
// (embedding, head, biases, norms) 2 B.
void TestHfModels5::gptqLikeFormats()
{
    json c = file("qwen2.5-7b-instruct.json");
    c["quantization_config"] = {{"quant_method", "gptq"}, {"bits", 4}, {"group_size", 128}, {"desc_act", false},
                                {"sym", true}};
    ModelArch m = read(c);
    const double linears = 28 * (2 * 3584.0 * 3584 + 2 * 3584.0 * 512 + 3 * 3584.0 * 18944);
    QCOMPARE(linears, 6525288448.0);
    QCOMPARE(m.checkpointBytes(), linears * (0.5 + 2.5 / 128) + 2 * (m.totalParams() - linears));
    QCOMPARE(QString::fromStdString(m.quant.label()), QString("GPTQ int4 (group 128)"));
    c["quantization_config"]["quant_method"] = "auto-round";
    m = read(c);
    QCOMPARE(m.checkpointBytes(), linears * (0.5 + 2.5 / 128) + 2 * (m.totalParams() - linears));
    QCOMPARE(QString::fromStdString(m.quant.label()), QString("AutoRound int4 (group 128)"));
    // mxfp4 is the MoE experts' format (transformers converts nothing else): on a
    // dense model it is said and not applied.
    c["quantization_config"] = {{"quant_method", "mxfp4"}};
    m = read(c);
    QVERIFY(!m.quant.quantized());
    QVERIFY(hasNote(m, "quant_method \"mxfp4\" on a dense model (transformers converts MoE experts only) not read"));
}

// A format the reader does not know is said, never counted silently at 16 bits as
// if it were read.
void TestHfModels5::unknownFormatsSaid()
{
    json c = file("qwen3-8b.json");
    c["quantization_config"] = {{"quant_method", "fp_quant"}};
    ModelArch m = read(c);
    QVERIFY(!m.quant.quantized());
    QVERIFY(hasNote(m, "quant_method \"fp_quant\" not read; the weights are counted at the checkpoint's torch_dtype"));
    c["quantization_config"] = {{"quant_method", "modelopt"}, {"quant_algo", "MIXED_PRECISION"}};
    m = read(c);
    QVERIFY(!m.quant.quantized());
    QVERIFY(hasNote(m, "quant_algo \"MIXED_PRECISION\" (a format per layer, quantized_layers) not read"));
    c["quantization_config"] = json::parse(R"({"quant_method": "compressed-tensors", "config_groups": {"group_0":
        {"targets": ["Linear"], "weights": {"num_bits": 6, "type": "float"}}}})");
    QVERIFY(hasNote(read(c), "weights of 6 bits, type \"float\" not read"));
}

// A config whose type cannot be told: refused with the known types, or read from
// architectures with a line saying so (spec: "never guessed in silence").
void TestHfModels5::typeNotTold()
{
    json c = file("qwen3-1.7b.json");
    c["model_type"] = "phimoe"; // Phi-3.5-MoE: not a type we read
    try {
        read(c);
        QFAIL("an unknown model_type was read");
    } catch (const gp::InputError& e) {
        const QString what = QString::fromStdString(e.what());
        QVERIFY(what.contains("model.hf_config.model_type: unsupported model type \"phimoe\""));
        QVERIFY(what.contains(QString::fromStdString(gp::knownHfModelTypes())));
        QVERIFY(what.contains("qwen3_next") && what.contains("nemotron_h") && what.contains("bert"));
    }
    c.erase("model_type");
    const ModelArch m = read(c);
    QVERIFY(hasNote(m, "model_type absent: read as \"qwen3\" from architectures (Qwen3ForCausalLM)"));
    QCOMPARE(m.totalParams(), 1720574976.0); // q/k norms and the tied head as qwen3 has them
    c.erase("architectures");
    const ModelArch guessed = read(c);
    QVERIFY(hasNote(guessed, "model_type and architectures absent: read as a Llama-style decoder"));
    QCOMPARE(guessed.totalParams(), 1720574976.0 - 28 * 256.0); // Llama has no q/k norms: said, not hidden
}

// Malformed quantization entries: a clear error naming the field or a note, never a
// crash, and never a silent 16-bit count.
void TestHfModels5::hostileQuantization()
{
    json c = file("qwen3-8b.json");
    c["quantization_config"] = "fp8";
    try {
        read(c);
        QFAIL("a string quantization_config was read");
    } catch (const gp::InputError& e) {
        QVERIFY(QString::fromStdString(e.what()).contains("model.hf_config.quantization_config: must be an object"));
    }
    // Ignore entries of every odd kind: numbers, nulls, layers past the model, a
    // 20-digit index, bare words. Only layer 3's attention is kept.
    c["quantization_config"] = {{"quant_method", "fp8"}, {"weight_block_size", {128, 128}},
                                {"modules_to_not_convert", {1, nullptr, "model.layers.99999999999999999999.mlp",
                                                            "model.layers.36.self_attn", "model.layers.", "layers.x",
                                                            "model.layers.3.self_attn.q_proj", "lm_head", ""}}};
    ModelArch m = read(c);
    QCOMPARE(m.quant.kind, gp::QuantKind::FP8Block);
    QCOMPARE(m.quant.kept.attention, 1.0 / 36);
    QCOMPARE(m.quant.kept.denseFfn, 0.0);
    QVERIFY(hasNote(m, "2 ignore-list entries not matched to a layer kind (counted as quantized)"));
    // MLX with bits of the wrong type: said, counted at the torch_dtype.
    c.erase("quantization_config");
    c["quantization"] = {{"group_size", 64}, {"bits", "four"}};
    m = read(c);
    QVERIFY(!m.quant.quantized());
    QVERIFY(hasNote(m, "MLX quantization of 0 bits, group 64 not read"));
    c["quantization"] = {{"group_size", 64}, {"bits", 4}, {"mode", "mxfp8"}};
    QVERIFY(hasNote(read(c), "MLX quantization mode \"mxfp8\" not read"));
}

QTEST_APPLESS_MAIN(TestHfModels5)
#include "tst_hfmodels5.moc"
