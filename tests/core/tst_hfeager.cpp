// The `eager` runtime is Hugging Face transformers' own model code
// (core/estimate/hfeager.cpp): what it launches and computes where it differs
// from a lean stack, counted from the code that ran the round-4 measurements
// (transformers 5.17, tests/data/round4/README.md). Values by hand below.
#include "hfmodels.h"

#include "core/calibration/calibration.h"
#include "core/hardware/catalog.h"

namespace {

const std::string kH100 = R"({"gpus": ["nvidia-h100-sxm"]})";

std::string inference(const char* runtime, int batch, int prompt)
{
    return std::string(R"({"mode": "inference", "runtime": ")") + runtime + R"(", "inference": {"precision": "bf16", "batch": )" +
           std::to_string(batch) + R"(, "prompt_tokens": )" + std::to_string(prompt) + R"(, "output_tokens": 1}})";
}

gp::GpuEstimate estimateOn(const std::string& model, const std::string& workload)
{
    return gp::estimate(scenario(model, workload, kH100), gp::Catalog::builtin()).results.at(0);
}

std::string hfConfig(const char* file) { return R"({"hf_config": )" + readFile(file) + "}"; }

// Gemma 3 12B's text model (google/gemma-3-12b-it config.json, text_config, as
// measured in round 4) in the explicit form: 48 layers, 40 of them sliding
// within 1024 tokens; 16 query heads and 8 KV heads of 256.
const std::string kGemma3_12b = R"({"layers": 48, "hidden": 3840, "heads": 16, "kv_heads": 8, "head_dim": 256,
    "ffn_hidden": 15360, "vocab": 262208, "sliding_window": 1024, "sliding_layers": 40})";

bool startsWith(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

} // namespace

class TestHfEager : public QObject {
    Q_OBJECT
private slots:
    void gptOssDecodeLaunches();
    void eagerDecodeOverlapsLaunchesAndGpuWork();
    void gemma3SlidingPrefillAttention();
    void gemma3PrefillPeakMemory();
    void gptOssEagerAttentionScores();
    void trainingNormLaunches();
    void deltaNetTorchFallbackPrefill();
    void deltaNetTorchFallbackDecode();
    void deltaNetStateAsHfKeepsIt();
    void loraRecomputeUnderCheckpointing();
};

// gpt-oss-20b in bf16 decoding one token under HF: transformers 5 runs each
// MoE block as a router (6 launches) and the grouped_mm experts path (19:
// integrations/moe.py grouped_mm_experts_forward), in place of a dense MLP's 5,
// whatever the experts the batch touches. Per layer: kernels_layer_swiglu_amp
// (40.0) + 19 + 6 - 5 = 60, all 24 layers MoE, at kernel_s_decode_eager each:
// 60 x 24 x 55 us = 79.2 ms (printed as 60 kernels/layer). The training pass's per-expert loop (33 launches
// per touched expert: 40 + 4 x 33.18 = 172.7 per layer, 228 ms) is not charged.
void TestHfEager::gptOssDecodeLaunches()
{
    const gp::Calibration& c = gp::builtinCalibration();
    const double perLayer = c.kernelsLayerSwigluAmp + 19 + 6 - 5;
    QCOMPARE(perLayer, 60.0);
    for (int batch : {1, 8}) {
        const auto e = estimateOn(hfConfig("gpt-oss-20b.json"), inference("eager", batch, 4096));
        const gp::Term* t = term(e, "time.decode.overhead");
        QVERIFY2(startsWith(t->formula, "eager generate(): 60 kernels/layer"), t->formula.c_str());
        QVERIFY_NEAR(t->value, perLayer * 24 * c.kernelSDecodeEager * 1e3, 1e-9);
    }
}

// An eager decode step launches asynchronously: the GPU's work runs while the host
// launches, and the step is the longer of the two. gpt-oss-20b at batch 1 is
// host-bound: its 79.2 ms of launches (above) are the step, the GPU's weight and
// KV reads (time.decode.memory) hidden under them. At batch 512 and a 32768-token
// prompt the KV reads (512 x 12 full layers x 32768 x 2 KB, 412 GB: more than the
// card holds, but the time is what is tested) outgrow the launches: the step is
// the GPU's work, the launches hidden. The optimized runtime's CUDA-graph floor adds to the GPU's work.
void TestHfEager::eagerDecodeOverlapsLaunchesAndGpuWork()
{
    const gp::Calibration& c = gp::builtinCalibration();
    const auto one = estimateOn(hfConfig("gpt-oss-20b.json"), inference("eager", 1, 4096));
    const double host = term(one, "time.decode.overhead")->value;
    QVERIFY_NEAR(host, 60 * 24 * c.kernelSDecodeEager * 1e3, 1e-9);
    QVERIFY(term(one, "time.decode.memory")->value < host);
    QCOMPARE(*one.inference->tpotMs, host);
    const auto many = estimateOn(hfConfig("gpt-oss-20b.json"), inference("eager", 512, 32768));
    const double gpu = term(many, "time.decode.memory")->value;
    QVERIFY(gpu > term(many, "time.decode.overhead")->value);
    QVERIFY_NEAR(*many.inference->tpotMs, gpu, 1e-12);
    const auto graph = estimateOn(hfConfig("gpt-oss-20b.json"), inference("optimized", 1, 4096));
    QVERIFY_NEAR(*graph.inference->tpotMs,
                 term(graph, "time.decode.memory")->value + term(graph, "time.decode.overhead")->value, 1e-12);
}

// Prefill of 32768 tokens. A sliding layer under HF's SDPA path gets an explicit
// (1, 1, s, s) bool mask once s >= 1024 (masking_utils._ignore_causal_mask_sdpa),
// and the masked kernel computes the whole product: 4 x s^2 x 16 x 256 =
// 4 x 1,073,741,824 x 4096 = 17.59 TFLOP per layer, at the FA2-class rate
// (attn_eff_hopper_blackwell). A serving or optimized runtime attends within
// the window: 4 x 4096 x (1024^2 / 2 + 31744 x 1024) = 0.5412 TFLOP per layer
// at the forward rate (attn_fwd_eff_hopper_blackwell). The 8 full layers are
// causal in both: 4 x 4096 x s^2 / 2 = 8.796 TFLOP each.
void TestHfEager::gemma3SlidingPrefillAttention()
{
    const gp::Calibration& c = gp::builtinCalibration();
    const double s = 32768;
    const double hq = 16 * 256;
    const double maskedLayer = 4 * s * s * hq;
    const double windowedLayer = 4 * hq * (1024.0 * 1024 / 2 + (s - 1024) * 1024);
    const double fullLayer = 4 * hq * s * s / 2;
    QVERIFY_NEAR(maskedLayer, 17.592186044416e12, 1e-12);
    QVERIFY_NEAR(windowedLayer, 0.541165879296e12, 1e-12);
    const double pk = gp::Catalog::builtin().find("nvidia-h100-sxm")->peakFlops(gp::DType::BF16);
    const double fwdRate = pk * c.attnFwdEffHopperBlackwell;
    const double maskedRate = pk * c.attnEffHopperBlackwell;
    const double hf = term(estimateOn(kGemma3_12b, inference("eager", 1, 32768)), "time.prefill.attention")->value;
    QVERIFY_NEAR(hf, (8 * fullLayer / fwdRate + 40 * maskedLayer / maskedRate) * 1e3, 1e-9);
    const double lean = term(estimateOn(kGemma3_12b, inference("optimized", 1, 32768)), "time.prefill.attention")->value;
    QVERIFY_NEAR(lean, (8 * fullLayer + 40 * windowedLayer) / fwdRate * 1e3, 1e-9);
    // Below the window HF skips the mask (is_causal): the same cost as the lean stack.
    const double hfShort = term(estimateOn(kGemma3_12b, inference("eager", 1, 1000)), "time.prefill.attention")->value;
    const double leanShort = term(estimateOn(kGemma3_12b, inference("optimized", 1, 1000)), "time.prefill.attention")->value;
    QVERIFY_NEAR(hfShort, leanShort, 1e-12);
}

// Right after a 32k prefill HF's DynamicSlidingWindowLayer keeps a slice of the
// prefill's full-length K/V, so every one of the 48 layers holds 32768 tokens x
// 2 x 8 x 256 x 2 B = 12,884,901,888 B (round 4 measured 12,884,902,208 B of
// cache storage); a lean runtime keeps 8 x 32769 + 40 x 1024 tokens x 8192 B =
// 2,683,093,504 B. The SDPA mask adds 32768^2 x 1 B = 1,073,741,824 B.
void TestHfEager::gemma3PrefillPeakMemory()
{
    const auto hf = estimateOn(kGemma3_12b, inference("eager", 1, 32768));
    const auto lean = estimateOn(kGemma3_12b, inference("optimized", 1, 32768));
    QCOMPARE(term(hf, "memory.kv_cache")->value * kGiB, 12884901888.0);
    QCOMPARE(term(lean, "memory.kv_cache")->value * kGiB, 8 * 32769 * 8192.0 + 40 * 1024 * 8192.0);
    QVERIFY_NEAR((term(hf, "memory.activations")->value - term(lean, "memory.activations")->value) * kGiB, 1073741824.0, 1e-9);
}

// gpt-oss has no SDPA path under HF (attention sinks): eager attention keeps
// three score tensors of 1 x 64 heads x 4096 x 4097 (the sink column) x 2 B
// alive at the peak = 6,444,023,808 B, and all 24 layers keep 4096 tokens of
// K/V at the prefill: 24 x 4096 x 2 x 8 x 64 x 2 B = 201,326,592 B (round 4
// measured 201,326,688 B). Its prefill streams 15 accesses x 2 B over
// 64 x 4096^2 x 24 = 25,769,803,776 scores.
void TestHfEager::gptOssEagerAttentionScores()
{
    const auto hf = estimateOn(hfConfig("gpt-oss-20b.json"), inference("eager", 1, 4096));
    const auto lean = estimateOn(hfConfig("gpt-oss-20b.json"), inference("optimized", 1, 4096));
    QVERIFY_NEAR((term(hf, "memory.activations")->value - term(lean, "memory.activations")->value) * kGiB, 6444023808.0, 1e-9);
    QCOMPARE(term(hf, "memory.kv_cache")->value * kGiB, 201326592.0);
    const std::string f = term(hf, "time.prefill.attention")->formula;
    QVERIFY2(f.find("HF eager attention") != std::string::npos && f.find("25.8G scores x 2 B") != std::string::npos, f.c_str());
}

// LoRA r16 on q/k/v/o in pure bf16 with checkpointing: a SwiGLU layer launches
// kernels_layer_swiglu (21.06) + 6 per adapted linear x 4 = 45.06; OLMo 2's q
// and k norms add 2 HF RMSNorms of 8 launches (61.06), Gemma 3's sandwich norms
// 2 more (77.06); each x layers x 4 passes (forward, recompute, backward x 2).
void TestHfEager::trainingNormLaunches()
{
    const gp::Calibration& c = gp::builtinCalibration();
    const std::string lora = R"({"mode": "training", "runtime": "eager", "training": {"method": "lora", "lora_rank": 16,
        "lora_targets": ["q_proj", "k_proj", "v_proj", "o_proj"], "precision": "bf16", "micro_batch": 2, "seq_len": 2048,
        "activation_checkpointing": "full"}})";
    const double base = c.kernelsLayerSwiglu + 4 * c.kernelsPerLoraTarget;
    auto launches = [&](const std::string& model, double perLayer, int layers) {
        const std::string f = term(estimateOn(model, lora), "time.overhead")->formula;
        const std::string want = QString::number(perLayer, 'g', 3).toStdString() + " kernels/layer x " +
                                 std::to_string(layers) + " layers x 4 passes";
        QVERIFY2(startsWith(f, want), (f + " | want " + want).c_str());
    };
    launches(hfConfig("olmo-2-1124-13b.json"), base + 2 * 8, 40);
    launches(hfConfig("qwen3-8b.json"), base + 2 * 8, 36);
    // Gemma 3 in the explicit form has no q/k norms nor sandwich norms: the base count.
    launches(kGemma3_12b, base, 48);
}

// Qwen3-Next-80B-A3B (48 layers: 36 Gated DeltaNet + 12 full attention, all
// MoE with a shared expert; linear heads 16 key / 32 value of 128, conv 4)
// under HF without fla / causal-conv1d: transformers' torch_chunk_gated_delta_rule
// (core/estimate/hfeager.cpp counts it). A 2048-token prompt is 32 chunks of 64;
// per DeltaNet layer 30 (projections, reorders, gates, gated norm, out_proj) + 8
// (q and k repeat_interleave'd from 16 to 32 heads) + 4 (conv state, conv,
// silu) + 428 (l2norms, casts, pads, masks, the 63-step Python loop x 6, ...) +
// 18 x 32 chunks = 1046 launches, 1028 beyond the 18 of the Llama attention
// block the fitted per-layer count holds. Each MoE layer: 19 grouped_mm + 6
// router - 5 dense MLP + 6 shared expert = 26. Prefill launches:
// (46 x 48 + 26 x 48 + 1028 x 36) x kernel_s_infer_eager.
// Its fp32 matmuls per value head and chunk: 2 x 64^2 x (3 x 128 + 2 x 128) +
// 6 x 64 x 128 x 128 = 5,242,880 + 6,291,456 = 11,534,336 FLOP; x 32 heads x
// 32 chunks x 36 layers = 425,201,762,304 FLOP at the H100's 67 TFLOP/s fp32.
void TestHfEager::deltaNetTorchFallbackPrefill()
{
    const gp::Calibration& c = gp::builtinCalibration();
    QCOMPARE(30.0 + 8 + 4 + 428 + 18 * 32 - 18, 1028.0);
    const std::string model = hfConfig("qwen3-next-80b-a3b-thinking.json");
    const auto hf = estimateOn(model, inference("eager", 1, 2048));
    const gp::Term* launches = term(hf, "time.prefill.overhead");
    QVERIFY_NEAR(launches->value, (46.0 * 48 + 26.0 * 48 + 1028.0 * 36) * c.kernelSInferEager * 1e3, 1e-9);
    QVERIFY2(launches->formula.find("Gated DeltaNet layers: +1028 for HF's torch chunked rule over 32 chunks") != std::string::npos,
             launches->formula.c_str());
    const double flops = 11534336.0 * 32 * 32 * 36;
    QCOMPARE(flops, 425201762304.0);
    const auto lean = estimateOn(model, inference("optimized", 1, 2048));
    const double extra = term(hf, "time.prefill.attention")->value - term(lean, "time.prefill.attention")->value;
    QVERIFY_NEAR(extra, flops / 67e12 * 1e3, 1e-9);
    // A serving engine runs fla's kernels: no torch fallback.
    QVERIFY(term(lean, "time.prefill.overhead")->formula.find("DeltaNet") == std::string::npos);
    // One more token past 2048 opens a 33rd chunk: 18 launches per DeltaNet layer more.
    const double longer = term(estimateOn(model, inference("eager", 1, 2049)), "time.prefill.overhead")->value;
    QVERIFY_NEAR(longer - launches->value, 18.0 * 36 * c.kernelSInferEager * 1e3, 1e-9);
}

// A decode step (seq_len 1, the state cached) runs torch_causal_conv1d_update
// and torch_recurrent_gated_delta_rule: 30 + 8 + 38 (conv update 4, l2norms 10,
// casts 9, scaling and zeros 2, one loop step 11, the final cast 2) = 76 per
// DeltaNet layer, 58 beyond the attention block. Per layer on average:
// kernels_layer_swiglu_amp (40) + 26 (MoE) + 58 x 36 / 48 = 109.5, x 48 layers
// x kernel_s_decode_eager; the same at batch 8 (the ops are batched).
void TestHfEager::deltaNetTorchFallbackDecode()
{
    const gp::Calibration& c = gp::builtinCalibration();
    const double perLayer = c.kernelsLayerSwigluAmp + 26 + 58.0 * 36 / 48;
    QCOMPARE(perLayer, 109.5);
    for (int batch : {1, 8}) {
        const auto e = estimateOn(hfConfig("qwen3-next-80b-a3b-thinking.json"), inference("eager", batch, 2048));
        const gp::Term* t = term(e, "time.decode.overhead");
        QVERIFY2(startsWith(t->formula, "eager generate(): 110 kernels/layer") &&
                     t->formula.find("Gated DeltaNet: HF's torch recurrent rule") != std::string::npos,
                 t->formula.c_str());
        QVERIFY_NEAR(t->value, perLayer * 48 * c.kernelSDecodeEager * 1e3, 1e-9);
    }
}

// HF's cache keeps a Gated DeltaNet layer's conv state over the whole kernel
// (F.pad to conv_kernel_size = 4 positions of 2 x 16 x 128 + 32 x 128 = 8192
// channels, bf16: 65,536 B) and the recurrent state in fp32 (32 x 128 x 128 x
// 4 B = 2,097,152 B): 2,162,688 B per layer, what round 4 measured for each of
// its Qwen3-Next linear layers. At a 2048-token prompt + 1 output token the 12
// full layers keep 2049 tokens x 2 x 2 heads x 256 x 2 B = 50,356,224 B, the 36
// DeltaNet layers 36 x 2,162,688 = 77,856,768 B. The lean runtime's bf16 state
// with kernel - 1 conv positions: 2 x (8192 x 3 + 524,288) = 1,097,728 B a layer.
void TestHfEager::deltaNetStateAsHfKeepsIt()
{
    QCOMPARE(8192.0 * 4 * 2 + 32.0 * 128 * 128 * 4, 2162688.0);
    const std::string model = hfConfig("qwen3-next-80b-a3b-thinking.json");
    const auto hf = estimateOn(model, inference("eager", 1, 2048));
    QCOMPARE(term(hf, "memory.kv_cache")->value * kGiB, 50356224.0 + 77856768.0);
    const auto lean = estimateOn(model, inference("optimized", 1, 2048));
    QCOMPARE(term(lean, "memory.kv_cache")->value * kGiB, 50356224.0 + 36 * 1097728.0);
}

// peft's LoRA linear sits inside the checkpointed decoder layer, so full
// checkpointing reruns the adapters' forward (2 of their 6 FLOP per parameter
// and token) with the base's. With F the base's forward GEMM time and A the
// adapters' fwd + bwd time: full fine-tuning takes 3F (no checkpointing), LoRA
// 2F + A (the frozen base has no weight grads) and, checkpointed, 3F + A x 4/3.
// So A = LoRA(none) - 2/3 full(none) and the recompute adds F + A / 3.
void TestHfEager::loraRecomputeUnderCheckpointing()
{
    auto gemm = [](const char* method, const char* ckpt) {
        const std::string w = std::string(R"({"mode": "training", "runtime": "eager", "training": {"method": ")") + method +
                              R"(", "lora_rank": 16, "lora_targets": ["q_proj", "k_proj", "v_proj", "o_proj"], "precision": "bf16",
            "micro_batch": 4, "seq_len": 2048, "activation_checkpointing": ")" + ckpt + R"("}})";
        return term(estimateOn(hfConfig("olmo-2-1124-13b.json"), w), "time.gemm")->value;
    };
    const double full = gemm("full", "none");
    const double lora = gemm("lora", "none");
    const double f = full / 3;
    const double a = lora - 2 * f;
    QVERIFY(a > 0);
    QVERIFY_NEAR(gemm("full", "full"), 4 * f, 1e-12);
    QVERIFY_NEAR(gemm("lora", "full"), 3 * f + a * 4 / 3, 1e-12);
}

QTEST_APPLESS_MAIN(TestHfEager)
#include "tst_hfeager.moc"
