// Golden tests on the real config.json files (tests/data/hf-configs, sources
// in its README), continued from tst_hfmodels.cpp: active parameters as the
// model cards count them, the summary line of every file, and the estimates
// and plans built on these models.
#include "hfmodels.h"

#include "core/hardware/catalog.h"
#include "core/plan/planner.h"

class TestHfModels2 : public QObject {
    Q_OBJECT
private slots:
    void olmo2_13b();
    void activeParamsFollowModelCards_data();
    void activeParamsFollowModelCards();
    void summaryLines_data();
    void summaryLines();
    void checkpointPrecisionEstimate();
    void servingKvFollowsLayerKinds();
    void scenarioKeysRoundTrip();
    void prefillAttentionFollowsWindows();
    void planServesGptOss120b();
    void planQloraQwen3_32b();
    void dump();
};

// OLMo 2 13B (olmo2): the checkpoint's safetensors index gives the exact count,
// 54,864,793,600 B of float32 = 13,716,198,400 parameters. By hand from the
// config: embedding and untied head 2 x 100352 x 5120 = 1,027,604,480; per layer
// q/k/v/o 4 x 5120^2 = 104,857,600, q_norm and k_norm over all 40 x 128 = 5120
// features (OLMo 2 normalises q and k whole, not per head) 10,240, SwiGLU
// 3 x 5120 x 13824 = 212,336,640, post-attention and post-feedforward norms
// 10,240: 317,214,720 x 40 = 12,688,588,800; final norm 5120.
// KV cache (MHA, 40 kv heads x 128, bf16): 40 layers x 2 x 5120 x 2 B = 819,200 B
// per token, x 32768 = 26,843,545,600 B per sequence at 32k, every layer full.
void TestHfModels2::olmo2_13b()
{
    const ModelArch m = load("olmo-2-1124-13b.json");
    QCOMPARE(m.totalParams(), 1027604480.0 + 40 * 317214720.0 + 5120);
    QCOMPARE(m.totalParams(), 54864793600.0 / 4);
    QCOMPARE(m.modelCardActiveParams(), m.totalParams());
    QCOMPARE(m.qkNorm, ModelArch::QkNorm::Full);
    QCOMPARE(m.fullAttentionLayers(), 40);
    QCOMPARE(m.kvHeads, 40);
    // torch_dtype float32: the checkpoint is 4 B a parameter, the index's total exactly.
    QCOMPARE(m.storageBytes, 4.0);
    QCOMPARE(m.checkpointBytes(), 54864793600.0);
    QCOMPARE(m.kvBytesPerSequence(32768, 2), 26843545600.0);
    QVERIFY(m.readNotes.empty());
}

// Active parameters: one rule, OpenAI's (gpt-oss model card, arXiv 2508.10925,
// table 1: 116.83B total, 5.13B active; 20.91B, 3.61B): every parameter one
// token's forward pass multiplies by (attention, norms, the shared experts and
// the routed ones it picks, the LM head), without the input embedding table (a
// row lookup), the MTP layers and the vision tower. DeepSeek (V2-Lite's card:
// 2.4B activated) and Moonshot (Kimi K2: 32B) count the same way. Qwen's and
// Meta's cards count the embedding table too: the Qwen3 cards list "Number of
// Parameters: 30.5B in total and 3.3B activated" beside "Number of Parameters
// (Non-Embedding): 29.9B" (huggingface.co/Qwen/Qwen3-30B-A3B), and Llama 4's 17B
// is reached only with it (17.17B with, 16.14B without, for Scout); for them the
// card's figure is the rule's plus the embedding table (vocab x hidden).
void TestHfModels2::activeParamsFollowModelCards_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<double>("card");
    QTest::addColumn<bool>("cardCountsEmbedding");
    // Embedding tables: gpt-oss 201088 x 2880 = 0.579B; DeepSeek-V2-Lite 102400 x
    // 2048 = 0.210B; DeepSeek-R1 129280 x 7168 = 0.927B; Kimi K2 163840 x 7168 =
    // 1.174B; Qwen3-30B-A3B 151936 x 2048 = 0.311B; Qwen3-235B-A22B 151936 x 4096 =
    // 0.622B; Llama 4 202048 x 5120 = 1.034B.
    QTest::newRow("gpt-oss-120b") << "gpt-oss-120b.json" << 5.13e9 << false;
    QTest::newRow("gpt-oss-20b") << "gpt-oss-20b.json" << 3.61e9 << false;
    QTest::newRow("deepseek-v2-lite") << "deepseek-v2-lite.json" << 2.4e9 << false;
    QTest::newRow("deepseek-r1") << "deepseek-r1.json" << 37e9 << false;
    QTest::newRow("kimi-k2") << "kimi-k2-instruct.json" << 32e9 << false;
    QTest::newRow("qwen3-30b-a3b") << "qwen3-30b-a3b.json" << 3.3e9 << true;
    QTest::newRow("qwen3-235b-a22b") << "qwen3-235b-a22b.json" << 22e9 << true;
    QTest::newRow("llama-4-scout") << "llama-4-scout-17b-16e-instruct.json" << 17e9 << true;
    QTest::newRow("llama-4-maverick") << "llama-4-maverick-17b-128e-instruct.json" << 17e9 << true;
}

void TestHfModels2::activeParamsFollowModelCards()
{
    QFETCH(QString, file);
    QFETCH(double, card);
    QFETCH(bool, cardCountsEmbedding);
    const ModelArch m = load(file.toStdString());
    QVERIFY(m.moe.enabled());
    QVERIFY(!m.tiedEmbeddings);
    // The rule, exactly: what a token passes through less the embedding table.
    QCOMPARE(m.modelCardActiveParams(), m.activeParams() - m.embeddingParams());
    const double embedding = double(m.vocab) * m.hidden;
    QCOMPARE(m.embeddingParams(), embedding);
    QVERIFY_NEAR(m.modelCardActiveParams() + (cardCountsEmbedding ? embedding : 0.0), card, 0.025);
}

// The line under the model in the app, for every real file: the total (tested
// against the cards in tst_hfmodels), the active count by the rule above, the
// layer kinds read from layer_types / the patterns, the experts, and what the
// checkpoint stores. A dense model's active count is its total and not shown.
void TestHfModels2::summaryLines_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("line");
    QTest::newRow("gpt-oss-20b") << "gpt-oss-20b.json"
                            << QString("gpt_oss: 20.9B parameters (3.6B active), 24 layers: 12 full + 12 sliding (128), 32 "
                                       "experts (4 active), experts in MXFP4: 12.8 GiB");
    QTest::newRow("gpt-oss-120b") << "gpt-oss-120b.json"
                            << QString("gpt_oss: 116.8B parameters (5.1B active), 36 layers: 18 full + 18 sliding (128), 128 "
                                       "experts (4 active), experts in MXFP4: 60.8 GiB");
    QTest::newRow("qwen3-8b") << "qwen3-8b.json"
                            << QString("qwen3: 8.2B parameters, 36 layers");
    QTest::newRow("qwen3-32b") << "qwen3-32b.json"
                            << QString("qwen3: 32.8B parameters, 64 layers");
    QTest::newRow("qwen3-30b-a3b") << "qwen3-30b-a3b.json"
                            << QString("qwen3_moe: 30.5B parameters (3.0B active), 48 layers, 128 experts (8 active)");
    QTest::newRow("qwen3-235b-a22b") << "qwen3-235b-a22b.json"
                            << QString("qwen3_moe: 235.1B parameters (21.6B active), 94 layers, 128 experts (8 active)");
    QTest::newRow("qwen3-next-80b-a3b-thinking") << "qwen3-next-80b-a3b-thinking.json"
                            << QString("qwen3_next: 79.7B parameters (3.6B active), 48 layers: 12 full + 36 Gated DeltaNet, 512 "
                                       "experts (10 active, 1 shared)");
    QTest::newRow("llama-3.3-70b-instruct") << "llama-3.3-70b-instruct.json"
                            << QString("llama: 70.6B parameters, 80 layers");
    QTest::newRow("llama-4-scout-17b-16e-instruct") << "llama-4-scout-17b-16e-instruct.json"
                            << QString("llama4: 108.6B parameters (16.1B active), 48 layers: 12 full + 36 chunked (8192), 16 "
                                       "experts (1 active, 1 shared), vision tower 872M");
    QTest::newRow("llama-4-maverick-17b-128e-instruct") << "llama-4-maverick-17b-128e-instruct.json"
                            << QString("llama4: 400.7B parameters (16.2B active), 48 layers: 12 full + 36 chunked (8192), 128 "
                                       "experts (1 active, 1 shared)");
    QTest::newRow("deepseek-r1") << "deepseek-r1.json"
                            << QString("deepseek_v3: 684.5B parameters (36.6B active), 61 layers, MLA (latent 512), 256 experts "
                                       "(8 active, 1 shared), MTP head 13.5B, weights in FP8 (128x128 blocks): 641.2 GiB");
    QTest::newRow("kimi-k2-instruct") << "kimi-k2-instruct.json"
                            << QString("kimi_k2: 1026.4B parameters (31.7B active), 61 layers, MLA (latent 512), 384 experts (8 "
                                       "active, 1 shared), weights in FP8 (128x128 blocks): 958.5 GiB");
    QTest::newRow("phi-4") << "phi-4.json"
                            << QString("microsoft/phi-4: 14.7B parameters, 40 layers");
    QTest::newRow("nemotron-h-56b-base-8k") << "nemotron-h-56b-base-8k.json"
                            << QString("nemotron_h: 56.3B parameters, 118 layers: 10 full + 54 Mamba-2 + 54 MLP-only");
    QTest::newRow("olmo-2-1124-13b") << "olmo-2-1124-13b.json" << QString("olmo2: 13.7B parameters, 40 layers");
    QTest::newRow("deepseek-v2-lite") << "deepseek-v2-lite.json"
                            << QString("deepseek_v2: 15.7B parameters (2.5B active), 27 layers, MLA (latent 512), 64 experts (6 "
                                       "active, 2 shared)");
}

void TestHfModels2::summaryLines()
{
    QFETCH(QString, file);
    QFETCH(QString, line);
    const ModelArch m = load(file.toStdString());
    QCOMPARE(QString::fromStdString(m.summary()), line);
    if (!m.moe.enabled())
        QCOMPARE(m.modelCardActiveParams(), m.totalParams());
}

void TestHfModels2::checkpointPrecisionEstimate()
{
    const gp::Scenario s = scenario(R"({"preset": "gpt-oss-120b"})",
                                    R"({"mode": "inference", "runtime": "serving", "inference": {"precision": "checkpoint",
                                        "batch": 1, "prompt_tokens": 1024, "output_tokens": 256}})",
                                    R"({"gpus": ["nvidia-h100-sxm"]})");
    QVERIFY(s.inference.checkpointWeights);
    const gp::Estimate e = gp::estimate(s, gp::Catalog::builtin());
    QCOMPARE(e.results.size(), std::size_t(1));
    const auto& r = e.results[0];
    // MXFP4 experts + BF16 rest: the model card's 60.8 GiB.
    QVERIFY_NEAR(r.memory.weights / kGiB, 60.8, 0.01);
    QCOMPARE(r.computePrecision, std::string("bf16"));
    QVERIFY(r.fits);
    // The estimate's model block.
    QCOMPARE(e.model.params, s.model.totalParams());
    QVERIFY_NEAR(e.model.params, 116.83e9, 0.001);
    QCOMPARE(*e.model.kvBytesPerSequence, (18 * 1280 + 18 * 128) * 2048.0);
    const auto doc = nlohmann::json::parse(gp::estimateToJson(e));
    QCOMPARE(doc["model"]["params"].get<double>(), e.model.params);
    // As OpenAI's card counts (arXiv 2508.10925, table 1: 5.13B active): no input
    // embedding table (201,088 x 2,880 = 0.579B), the LM head counted.
    QCOMPARE(doc["model"]["active_params"].get<double>(), s.model.modelCardActiveParams());
    QCOMPARE(doc["model"]["active_params"].get<double>(), s.model.activeParams() - 201088.0 * 2880);
    QVERIFY_NEAR(doc["model"]["active_params"].get<double>(), 5.13e9, 0.001);
    QCOMPARE(doc["model"]["kv_bytes_per_sequence"].get<double>(), *e.model.kvBytesPerSequence);
    // DeepSeek-R1 at checkpoint precision computes in FP8 on the H100 and loads
    // its FP8 weights without the MTP layer.
    const gp::Scenario r1 = scenario(R"({"preset": "deepseek-r1"})",
                                     R"({"mode": "inference", "runtime": "serving", "inference": {"precision": "checkpoint"}})",
                                     R"({"gpus": ["nvidia-h200-sxm"], "count": 8, "tp": 8})");
    const auto er1 = gp::estimate(r1, gp::Catalog::builtin());
    QCOMPARE(er1.results[0].computePrecision, std::string("fp8"));
    QVERIFY_NEAR(er1.results[0].memory.weights * 8, r1.model.loadedCheckpointBytes(), 1e-9);
}

void TestHfModels2::servingKvFollowsLayerKinds()
{
    // gpt-oss-120b, 64 users at 32k tokens (31744 + 1024), on 2 x H100 (tp 2):
    // 64 x (18 x 32768 + 18 x 128) x 2048 B / 2 = 36.14 GiB per GPU.
    const std::string workload = R"({"mode": "inference", "runtime": "RUNTIME", "inference": {"precision": "checkpoint",
        "batch": 64, "prompt_tokens": 31744, "output_tokens": 1024}})";
    auto run = [&](const std::string& runtime) {
        std::string w = workload;
        w.replace(w.find("RUNTIME"), 7, runtime);
        return gp::estimate(scenario(R"({"preset": "gpt-oss-120b"})", w,
                                     R"({"gpus": ["nvidia-h100-sxm"], "count": 2, "tp": 2})"),
                            gp::Catalog::builtin())
            .results[0];
    };
    const auto serving = run("serving");
    QVERIFY_NEAR(serving.memory.kvCache / kGiB, 64 * (18 * 32768 + 18 * 128) * 2048.0 / 2 / kGiB, 1e-9);
    QVERIFY_NEAR(serving.memory.kvCache / kGiB, 36.14, 0.001);
    QVERIFY(term(serving, "memory.kv_cache")->formula.find("hybrid KV cache manager") != std::string::npos);
    // HF (eager): right after the prefill its DynamicSlidingWindowLayer still holds
    // a slice of the prompt's full-length K/V (round 4's cache_after_prefill), so
    // the peak holds all 36 layers at 31744 tokens: 64 x 36 x 31744 x 2048 B / 2.
    const auto eager = run("eager");
    QVERIFY_NEAR(eager.memory.kvCache, 64 * 36 * 31744 * 2048.0 / 2, 1e-9);
    QVERIFY(term(eager, "memory.kv_cache")->formula.find("DynamicSlidingWindowLayer") != std::string::npos);
    QVERIFY(term(eager, "memory.kv_cache")->formula.find("prefill peak") != std::string::npos);
    // Qwen3-Next: 12 attention layers x 2048 B/token + 36 x 1,097,728 B of state.
    const auto next = gp::estimate(
        scenario(R"({"hf_config": )" + readFile("qwen3-next-80b-a3b-thinking.json") + "}",
                 R"({"mode": "inference", "runtime": "serving", "inference": {"batch": 8, "prompt_tokens": 32000,
                     "output_tokens": 768}})",
                 R"({"gpus": ["nvidia-h200-sxm"], "count": 2, "tp": 2})"),
        gp::Catalog::builtin());
    QVERIFY_NEAR(next.results[0].memory.kvCache, 8 * (12 * 32768 * 2048.0 + 36 * 1097728.0) / 2, 1e-9);
    // Decode reads the windows: gpt-oss's KV read at 32k is half what 36 full layers would read.
    QVERIFY(term(serving, "time.decode.memory") != nullptr);
}

void TestHfModels2::scenarioKeysRoundTrip()
{
    const std::string text = R"({"format": "gpuplanner-scenario", "version": 1, "name": "rt",
        "model": {"layers": 48, "hidden": 2048, "heads": 16, "kv_heads": 2, "head_dim": 256, "ffn_hidden": 5120,
                  "vocab": 151936, "sliding_window": 128, "sliding_layers": 6, "linear_layers": 36,
                  "linear_state_bytes": 1097728},
        "workload": {"mode": "inference", "inference": {"precision": "checkpoint"}}})";
    const auto first = gp::parseScenario(text);
    QVERIFY(first.scenario.inference.checkpointWeights);
    QCOMPARE(first.scenario.model.linearLayers, 36);
    QCOMPARE(first.scenario.model.slidingLayers, 6);
    const std::string saved = gp::scenarioToJson(first.scenario);
    const auto again = gp::parseScenario(saved);
    QCOMPARE(gp::scenarioToJson(again.scenario), saved);
    QVERIFY(again.scenario.inference.checkpointWeights);
    QCOMPARE(again.scenario.model.kvBytesPerSequence(32768, 2), first.scenario.model.kvBytesPerSequence(32768, 2));
    QCOMPARE(nlohmann::json::parse(saved)["workload"]["inference"]["precision"], "checkpoint");
    // What the reader assumed is a warning, never silent.
    bool warned = false;
    for (const auto& w : again.warnings)
        warned = warned || w.text().find("linear_layers") != std::string::npos;
    QVERIFY(warned);
}

void TestHfModels2::prefillAttentionFollowsWindows()
{
    // The same explicit shape with and without gpt-oss's 18 sliding layers of 128:
    // prefill attention over s = 32768 tokens costs, per sliding layer, 128^2 / 2 +
    // (s - 128) x 128 query-key pairs instead of s^2 / 2.
    const std::string shape = R"("layers": 36, "hidden": 2880, "heads": 64, "kv_heads": 8, "head_dim": 64,
        "ffn_hidden": 2880, "vocab": 201088, "moe": {"experts": 128, "active": 4})";
    const std::string workload = R"({"mode": "inference", "runtime": "optimized", "inference": {"batch": 1,
        "prompt_tokens": 32768, "output_tokens": 1}})";
    auto attention = [&](const std::string& extra) {
        const auto e = gp::estimate(scenario("{" + shape + extra + "}", workload, R"({"gpus": ["nvidia-h100-sxm"]})"),
                                    gp::Catalog::builtin());
        return term(e.results[0], "time.prefill.attention")->value;
    };
    const double full = attention("");
    const double windowed = attention(R"(, "sliding_window": 128, "sliding_layers": 18)");
    const double s = 32768;
    const double expected = (18 * s * s / 2 + 18 * (128.0 * 128 / 2 + (s - 128) * 128)) / (36 * s * s / 2);
    QVERIFY_NEAR(windowed / full, expected, 1e-9);
    QVERIFY(windowed / full < 0.51);
}

void TestHfModels2::planServesGptOss120b()
{
    // 64 users at 32k context on H100s, the checkpoint's MXFP4 experts: 60.8 GiB
    // of weights and 1.13 GiB of KV per user (18 full layers x 32768 tokens + 18
    // sliding x 128, 2048 B each) = 133 GiB in all: two H100s (2 x 0.9 x 79.6 GiB)
    // hold it (36 full layers would keep 2.26 GiB per user, 205 GiB in all).
    const gp::Scenario s = scenario(R"({"preset": "gpt-oss-120b"})",
                                    R"({"mode": "inference", "runtime": "serving", "inference": {"precision": "checkpoint",
                                        "batch": 64, "prompt_tokens": 31744, "output_tokens": 1024}})",
                                    R"({"gpus": ["nvidia-h100-sxm"], "max_count": 8})");
    // Ranked on the point estimates (confidence 0): the memory mechanics alone. At
    // the default 90% confidence the 7% headroom of two GPUs is under the memory
    // band's 1.28 sigma, so the plan takes more GPUs (checked below).
    gp::PlanRequest point;
    point.confidence = 0.0;
    const gp::PlanResult r = gp::plan(s, gp::Catalog::builtin(), point);
    QVERIFY(!r.options.empty());
    const gp::PlanResult sure = gp::plan(s, gp::Catalog::builtin());
    QVERIFY(!sure.options.empty());
    QVERIFY(sure.options.front().count * sure.options.front().replicas > 2);
    const auto& best = r.options.front();
    QCOMPARE(best.precision, std::string("checkpoint"));
    QCOMPARE(best.count * best.replicas, 2);
    QVERIFY(best.replicas * best.microBatch >= 64);
    QVERIFY_NEAR(best.estimate.memory.weights / kGiB, 60.77 / best.count, 0.01);
    QVERIFY_NEAR(best.estimate.memory.kvCache / kGiB,
                 best.microBatch * (18 * 32768 + 18 * 128) * 2048.0 / best.count / kGiB, 1e-6);
}

void TestHfModels2::planQloraQwen3_32b()
{
    // QLoRA of Qwen3-32B (rank 16 on q/k/v/o): the NF4 base is the 64 layers'
    // 31.21B parameters x 0.516 B + the embedding and head (2 x 151936 x 5120) in
    // bf16 = 16.10 + 3.11 GB = 17.89 GiB. head_dim 128 is explicit (64 heads x 128
    // = 8192 > hidden 5120): the adapters are 64 x 16 x (5120 + 8192 + 2 x (5120 +
    // 1024) + 8192 + 5120) = 39.85M parameters, 0.148 GiB in fp32, and AdamW keeps
    // 0.297 GiB of moments for them.
    const gp::Scenario s = scenario(R"({"preset": "qwen3-32b"})",
                                    R"({"mode": "training", "runtime": "eager", "training": {"method": "qlora",
                                        "lora_rank": 16, "micro_batch": 1, "seq_len": 2048, "dataset_tokens": 1e7}})",
                                    R"({"gpus": ["nvidia-h100-sxm", "nvidia-l40s"], "max_count": 4})");
    const double layers = s.model.loadedParams() - 2.0 * 151936 * 5120;
    QVERIFY_NEAR(layers, 31.21e9, 0.001);
    const gp::PlanResult r = gp::plan(s, gp::Catalog::builtin());
    QVERIFY(!r.options.empty());
    bool sawH100 = false;
    for (const auto& o : r.options) {
        if (o.count != 1 || o.tp != 1)
            continue;
        // Weights: the NF4 base, the bf16 embedding and head, the fp32 adapters.
        QVERIFY_NEAR(o.estimate.memory.weights / kGiB,
                     (layers * 0.516 + 2.0 * 2 * 151936 * 5120 + 64 * 16 * 38912.0 * 4) / kGiB, 0.002);
        // AdamW: two fp32 moments per adapter parameter.
        QVERIFY_NEAR(o.estimate.memory.optimizer / kGiB, 64 * 16 * 38912.0 * 8 / kGiB, 0.01);
        sawH100 = sawH100 || o.gpu == "nvidia-h100-sxm";
    }
    QVERIFY(sawH100);
}

void TestHfModels2::dump()
{
    for (const char* f : {"gpt-oss-20b.json", "gpt-oss-120b.json", "qwen3-8b.json", "qwen3-32b.json", "qwen3-30b-a3b.json",
                          "qwen3-235b-a22b.json", "qwen3-next-80b-a3b-thinking.json", "llama-3.3-70b-instruct.json",
                          "llama-4-scout-17b-16e-instruct.json", "llama-4-maverick-17b-128e-instruct.json",
                          "deepseek-r1.json", "kimi-k2-instruct.json", "phi-4.json", "nemotron-h-56b-base-8k.json",
                          "deepseek-v2-lite.json", "olmo-2-1124-13b.json"}) {
        const ModelArch m = load(f);
        qInfo("%s total %.4fB active %.4fB (model card rule %.4fB) mtp %.3fB ckpt %.3f GB kv32k %.4f GB | %s", f, m.totalParams() / 1e9,
              m.activeParams() / 1e9, m.modelCardActiveParams() / 1e9, m.mtpParams() / 1e9, m.checkpointBytes() / 1e9,
              m.kvBytesPerSequence(32768, 2) / 1e9, m.summary().c_str());
        for (const auto& n : m.readNotes)
            qInfo("    note: %s", n.c_str());
    }
}

QTEST_APPLESS_MAIN(TestHfModels2)
#include "tst_hfmodels2.moc"
