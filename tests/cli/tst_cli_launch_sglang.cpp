// gpuplanner-cli launch --for sglang: the KV pool SGLang sizes at start and the
// lines it logs (core/engines/sglangpool.cpp), by how SGLang treats the model's
// layers: one uniform pool (Llama 3.1 8B; Gemma 3, whose hybrid SWA pool SGLang
// switches off), the hybrid sliding-window pool (gpt-oss, Llama 4) and the hybrid
// Mamba / linear-state pool (Qwen3-Next, Granite 4.0-H; a custom model, whose
// conv / SSM split is not known, as a range). Every expected number is worked out by hand below.
#include "launch_files.h"

#include "core/calibration/calibration.h"
#include "core/engines/launchdetail.h"
#include "core/engines/sglangpool.h"
#include "core/hardware/catalog.h"
#include "core/scenario/scenario.h"

#include <QtTest>

#include <cmath>

class TestCliLaunchSglang : public QObject, protected gp::test::TempFiles {
    Q_OBJECT

private:
    static constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

    /// The serving example with `model` on `tp` x `gpu`, 16 users of 31,744 + 1,024 tokens.
    static nlohmann::json scenario(const nlohmann::json& model, const char* gpu, int tp, const char* precision = "bf16")
    {
        nlohmann::json j = nlohmann::json::parse(readFile(example("llama31-70b-serve-2xh100-tp")));
        j["model"] = model;
        j["workload"]["runtime"] = "serving";
        j["workload"]["inference"]["batch"] = 16;
        j["workload"]["inference"]["prompt_tokens"] = 31744;
        j["workload"]["inference"]["output_tokens"] = 1024;
        j["workload"]["inference"]["precision"] = precision;
        j["workload"]["inference"]["kv_precision"] = "bf16";
        j["hardware"] = {{"gpus", {gpu}}, {"count", tp}, {"tp", tp}};
        return j;
    }

    static nlohmann::json hf(const char* file)
    {
        return nlohmann::json{{"hf_config", nlohmann::json::parse(readFile(std::string(GP_TEST_DATA_DIR "/hf-configs/") + file))}};
    }

    static gp::SglangPool pool(const nlohmann::json& j)
    {
        const gp::Scenario s = gp::parseScenario(j.dump()).scenario;
        const gp::LaunchTarget t = gp::launchTargetForScenario(s, gp::Catalog::builtin());
        const gp::SglangPool p = gp::predictSglangPool(t, 0.9, gp::builtinCalibration());
        // The pool SGLang profiles: 0.9 x the engine's total - (weights + CUDA context).
        const double rest = 0.9 * gp::engineTotalBytes(t) - t.estimate.memory.weights -
                            gp::builtinCalibration().contextCudaMib * 1024 * 1024;
        if (std::abs(p.restBytes - rest) > 1e-3 * std::abs(rest))
            qWarning("restBytes %.0f, expected %.0f", p.restBytes, rest);
        return p;
    }

    /// serve.sh of `launch --for sglang` for scenario `j`.
    std::string serve(const nlohmann::json& j, const std::string& name)
    {
        const std::string file = path(name + ".gpuplan.json");
        gp::test::writeFile(file, j.dump());
        const std::string dir = path("out-" + name);
        const Result r = runCli({"launch", file, "--option", "0", "--for", "sglang", "-o", dir});
        if (r.code != 0)
            qWarning("%s", describe(r).constData());
        return r.code == 0 ? readFile(dir + "/serve.sh") : std::string();
    }

private slots:
    // Llama 3.1 8B, 1 H100: one pool over 32 layers x 8 KV heads x 128 x 2 (K, V) x
    // 2 B = 131,072 B a token; the header line is the one SGLang headers always had.
    void uniformLlamaUnchanged()
    {
        const nlohmann::json j = scenario(nlohmann::json{{"preset", "llama-3.1-8b"}}, "nvidia-h100-sxm", 1);
        const gp::SglangPool p = pool(j);
        QCOMPARE(p.kind, gp::SglangPool::Kind::Uniform);
        QCOMPARE(p.cellBytes, 131072.0);
        QCOMPARE(p.swaLayers, 0);
        QCOMPARE(p.maxTotalTokens, static_cast<long long>(std::floor(p.restBytes / 131072.0)));
        const std::string script = serve(j, "llama8b");
        char gib[32];
        std::snprintf(gib, sizeof gib, "%.2f", p.restBytes / kGiB);
        const std::string line = "# At start SGLang sizes its KV pool as --mem-fraction-static x GPU memory - (weights + CUDA "
                                 "context) and logs it as max_total_num_tokens: predicted " +
                                 gp::detail::grouped(p.maxTotalTokens) + " tokens (" + gib +
                                 " GiB / 128.0 KiB per token per GPU); activations and CUDA graphs must fit in the other 10%.\n";
        QVERIFY2(script.find(line) != std::string::npos, script.c_str());
        QVERIFY(script.find("sliding window memory pool") == std::string::npos);
        QVERIFY(script.find("Mamba") == std::string::npos);
    }

    // Gemma 3 27B, 1 H100: SGLang turns its hybrid SWA pool off for Gemma 2/3
    // (arg_groups/overrides.py), so all 62 layers keep every token: 62 x 16 KV
    // heads x 128 x 2 x 2 B = 507,904 B (496 KiB) a token; the 52 sliding layers
    // (1,024 tokens) are named.
    void gemma3KeepsEveryTokenInEveryLayer()
    {
        const nlohmann::json j = scenario(nlohmann::json{{"preset", "gemma-3-27b"}}, "nvidia-h100-sxm", 1);
        const gp::SglangPool p = pool(j);
        QCOMPARE(p.kind, gp::SglangPool::Kind::Uniform);
        QCOMPARE(p.cellBytes, 507904.0);
        QCOMPARE(p.swaLayers, 52);
        QCOMPARE(p.window, 1024);
        QCOMPARE(p.maxTotalTokens, static_cast<long long>(std::floor(p.restBytes / 507904.0)));
        const std::string script = serve(j, "gemma3");
        QVERIFY2(script.find("/ 496.0 KiB per token per GPU") != std::string::npos, script.c_str());
        QVERIFY(script.find("# Its 52 windowed layers (1,024 tokens) keep every token too") != std::string::npos);
    }

    // gpt-oss-120b, 1 H200 (MXFP4 experts), BF16 KV: 18 full + 18 sliding (128)
    // layers of 8 KV heads x 64 x 2 x 2 B = 2,048 B a token a layer; a token costs
    // 18 x 2,048 + 0.8 x 18 x 2,048 = 66,355.2 B (64.8 KiB); swa tokens = 0.8 x full.
    // Llama 4 Scout, TP 4 on H200: 12 full + 36 chunked (8,192) layers of 8 / 4 = 2
    // KV heads x 128 x 2 x 2 B = 1,024 B: 12 x 1,024 + 0.8 x 36 x 1,024 = 41,779.2 B.
    void hybridSwaPool()
    {
        struct Case {
            nlohmann::json model;
            const char* gpu;
            int tp;
            const char* precision;
            int full, swa, window;
            double cell;
            const char* kib;
        };
        const std::vector<Case> cases = {
            {hf("gpt-oss-120b.json"), "nvidia-h200-sxm", 1, "checkpoint", 18, 18, 128, 66355.2, "64.8"},
            {hf("llama-4-scout-17b-16e-instruct.json"), "nvidia-h200-sxm", 4, "bf16", 12, 36, 8192, 41779.2, "40.8"},
        };
        int n = 0;
        for (const Case& c : cases) {
            const nlohmann::json j = scenario(c.model, c.gpu, c.tp, c.precision);
            const gp::SglangPool p = pool(j);
            QCOMPARE(p.kind, gp::SglangPool::Kind::HybridSwa);
            QCOMPARE(p.fullLayers, c.full);
            QCOMPARE(p.swaLayers, c.swa);
            QCOMPARE(p.window, c.window);
            QVERIFY(std::abs(p.cellBytes - c.cell) < 1e-6);
            QVERIFY(p.restBytes > 0);
            QCOMPARE(p.maxTotalTokens, static_cast<long long>(std::floor(std::floor(p.restBytes) / c.cell)));
            QCOMPARE(p.swaTokens, static_cast<long long>(std::floor(p.maxTotalTokens * 0.8)));
            const std::string script = serve(j, "swa" + std::to_string(n++));
            QVERIFY2(script.find("so a token costs " + std::string(c.kib) + " KiB per GPU") != std::string::npos, script.c_str());
            QVERIFY(script.find("#   Use sliding window memory pool. full_layer_tokens=" + std::to_string(p.maxTotalTokens) +
                                ", swa_layer_tokens=" + std::to_string(p.swaTokens) + "\n") != std::string::npos);
            QVERIFY(script.find("#   max_total_num_tokens=" + std::to_string(p.maxTotalTokens) + ", chunked_prefill_size=") !=
                    std::string::npos);
        }
    }

    // Qwen3-Next-80B-A3B, TP 2 on H200. A Gated DeltaNet layer's state per GPU:
    // conv (2 x 16 x 128 + 32 x 128) / 2 = 4,096 channels x 3 positions x 2 B =
    // 24,576 B, SSM 32 / 2 heads x 128 x 128 x 4 B (float32) = 1,048,576 B; x 36
    // layers = 38,633,472 B a request. The state pool: 0.9 / 1.9 of the pool,
    // max_mamba_cache_size = floor((budget - P) / P), its size + 1 slots taken
    // out; the KV of the 12 attention layers: 2 / 2 = 1 KV head x 256 x 2 x 2 B =
    // 1,024 B a layer, 12,288 B a token.
    void qwen3NextMambaPool()
    {
        const nlohmann::json j = scenario(hf("qwen3-next-80b-a3b-thinking.json"), "nvidia-h200-sxm", 2);
        const gp::SglangPool p = pool(j);
        QCOMPARE(p.kind, gp::SglangPool::Kind::Mamba);
        QVERIFY(p.stateSplitKnown);
        QCOMPARE(p.mambaLayers, 36);
        QCOMPARE(p.attentionLayers, 12);
        QCOMPARE(p.cellBytes, 12288.0);
        const double perReq = 38633472.0;
        QCOMPARE(p.stateBytesPerRequest, perReq);
        const long long size = static_cast<long long>(std::floor((p.restBytes * 0.9 / 1.9 - perReq) / perReq));
        QVERIFY(size > 0);
        QCOMPARE(p.mambaCacheSize, size);
        const long long tokens =
            static_cast<long long>(std::floor(std::floor(p.restBytes - double(size + 1) * perReq) / 12288.0));
        QVERIFY(std::llabs(p.maxTotalTokens - tokens) <= 1); // GiB round trip in SGLang's float arithmetic
        QCOMPARE(p.convBytes, double(size + 1) * 24576.0 * 36);
        QCOMPARE(p.ssmBytes, double(size + 1) * 1048576.0 * 36);
        const std::string script = serve(j, "qwen3next");
        char conv[32], ssm[32];
        std::snprintf(conv, sizeof conv, "%.2f", p.convBytes / kGiB);
        std::snprintf(ssm, sizeof ssm, "%.2f", p.ssmBytes / kGiB);
        QVERIFY2(script.find("#   Mamba Cache is allocated. max_mamba_cache_size: " + std::to_string(size) +
                             ", conv_state size: " + conv + "GB, ssm_state size: " + ssm + "GB\n") != std::string::npos,
                 script.c_str());
        QVERIFY(script.find("#   KV Cache is allocated. #tokens: " + std::to_string(p.maxTotalTokens) + ",") != std::string::npos);
        QVERIFY(script.find("#   max_total_num_tokens=" + std::to_string(p.maxTotalTokens) + ", chunked_prefill_size=8192") !=
                std::string::npos);
        QVERIFY(script.find("slots of 36.8 MiB") != std::string::npos);
        QVERIFY(script.find("at most " + gp::detail::grouped(size / 3) + ".") != std::string::npos);
    }

    // Granite 4.0-H 350M: 28 Mamba-2 layers of 48 heads x 32 x d_state 128, one
    // group, conv kernel 4; 4 attention layers of 4 KV heads x 64. On 1 H100: conv
    // (1,536 + 2 x 1 x 128) x 3 = 5,376 x 2 B = 10,752 B, SSM 48 x 32 x 128 x 4 B =
    // 786,432 B; 797,184 B a layer, x 28 = 22,321,152 B a request; KV 4 x 4 x 64 x
    // 2 x 2 B = 4,096 B a token. On TP 2 the one group is replicated to 2
    // (extra_groups_for_head_shards): conv (1,536 + 2 x 2 x 128) / 2 x 3 = 3,072 x
    // 2 B = 6,144 B, SSM 24 x 32 x 128 x 4 B = 393,216 B; x 28 = 11,182,080 B; KV
    // 4 x 2 x 64 x 2 x 2 B = 2,048 B.
    void mamba2StatePool()
    {
        struct Case {
            int tp;
            double perReq, convPerSlot, ssmPerSlot, cell;
        };
        for (const Case& c : {Case{1, 22321152.0, 10752.0 * 28, 786432.0 * 28, 4096.0},
                              Case{2, 11182080.0, 6144.0 * 28, 393216.0 * 28, 2048.0}}) {
            const nlohmann::json j = scenario(hf("granite-4.0-h-350m-transformers5.json"), "nvidia-h100-sxm", c.tp);
            const gp::SglangPool p = pool(j);
            QCOMPARE(p.kind, gp::SglangPool::Kind::Mamba);
            QVERIFY(p.stateSplitKnown);
            QCOMPARE(p.mambaLayers, 28);
            QCOMPARE(p.attentionLayers, 4);
            QCOMPARE(p.cellBytes, c.cell);
            QCOMPARE(p.stateBytesPerRequest, c.perReq);
            const long long size = static_cast<long long>(std::floor((p.restBytes * 0.9 / 1.9 - c.perReq) / c.perReq));
            QCOMPARE(p.mambaCacheSize, size);
            QCOMPARE(p.convBytes, double(size + 1) * c.convPerSlot);
            QCOMPARE(p.ssmBytes, double(size + 1) * c.ssmPerSlot);
            const long long tokens =
                static_cast<long long>(std::floor(std::floor(p.restBytes - double(size + 1) * c.perReq) / c.cell));
            QVERIFY(std::llabs(p.maxTotalTokens - tokens) <= 1);
            const std::string script = serve(j, "granite" + std::to_string(c.tp));
            QVERIFY2(script.find("#   Mamba Cache is allocated. max_mamba_cache_size: " + std::to_string(size) + ",") !=
                         std::string::npos,
                     script.c_str());
        }
    }

    // A custom model gives only its bf16 state total (linear_state_bytes
    // 1,097,728 a layer, 36 layers, TP 2: 19,759,104 B a request); SGLang's
    // float32 SSM state puts a request between that and twice that, so the state
    // pool is given as a range; the 12 attention layers' KV (2 / 2 KV heads x 256 x
    // 2 x 2 B = 1,024 B a layer) gets what is left either way, within one request.
    void mambaStateSplitUnknownGivesARange()
    {
        const nlohmann::json model = {{"layers", 48},       {"hidden", 2048},          {"heads", 16},
                                      {"kv_heads", 2},      {"head_dim", 256},         {"ffn_hidden", 5120},
                                      {"vocab", 151936},    {"linear_layers", 36},     {"linear_state_bytes", 1097728}};
        const nlohmann::json j = scenario(model, "nvidia-h200-sxm", 2);
        const gp::SglangPool p = pool(j);
        QCOMPARE(p.kind, gp::SglangPool::Kind::Mamba);
        QVERIFY(!p.stateSplitKnown);
        QCOMPARE(p.mambaLayers, 36);
        QCOMPARE(p.attentionLayers, 12);
        QCOMPARE(p.cellBytes, 12288.0);
        const double s = 19759104.0;
        QCOMPARE(p.stateBytesPerRequest, s);
        QCOMPARE(p.stateBytesPerRequestHigh, 2 * s);
        QCOMPARE(p.mambaCacheSizeHigh, static_cast<long long>(std::floor((p.restBytes * 0.9 / 1.9 - s) / s)));
        QCOMPARE(p.mambaCacheSize, static_cast<long long>(std::floor((p.restBytes * 0.9 / 1.9 - 2 * s) / (2 * s))));
        QVERIFY(p.maxTotalTokens <= p.maxTotalTokensHigh);
        QVERIFY(std::abs(p.maxTotalTokens * 12288.0 - p.restBytes / 1.9) <= 2 * s + 12288);
        const std::string script = serve(j, "custom");
        QVERIFY2(script.find("max_mamba_cache_size is known only as " + gp::detail::grouped(p.mambaCacheSize) + " to " +
                             gp::detail::grouped(p.mambaCacheSizeHigh)) != std::string::npos,
                 script.c_str());
        QVERIFY(script.find("Mamba Cache is allocated") == std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestCliLaunchSglang)
#include "tst_cli_launch_sglang.moc"
