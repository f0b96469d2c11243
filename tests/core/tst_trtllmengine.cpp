// A TensorRT-LLM engine as trtllm-bench sizes it (core/engines/trtllmbench.h)
// and what its limits do in the serving model (inferencememory.cpp,
// inferenceperf.cpp): max_batch_size caps the admitted sequences,
// max_num_tokens bounds the step and its transient, and CUDA graphs with
// padding run a decode-only step at the next captured batch.
#include "tests/common/estimateterms.h"
#include <QtTest>

#include "core/calibration/calibration.h"
#include "core/engines/trtllmbench.h"
#include "core/fit/validate.h"
#include "core/estimate/estimate.h"
#include "core/hardware/catalog.h"
#include "tests/common/builtingpu.h"
#include "core/model/model.h"
#include "core/model/presets.h"
#include "core/scenario/scenario.h"

#include <cmath>
#include <string>
#include <vector>

namespace {

gp::ModelArch preset(const char* id)
{
    gp::ModelSpec spec;
    spec.form = gp::ModelSpec::Form::Preset;
    spec.presetId = id;
    return gp::resolveModel(spec);
}

gp::Scenario serving(const char* presetId, gp::InferPrecision precision, int users, int prompt, int output)
{
    gp::Scenario s;
    s.name = presetId;
    s.modelSpec.form = gp::ModelSpec::Form::Preset;
    s.modelSpec.presetId = presetId;
    s.model = gp::resolveModel(s.modelSpec);
    s.mode = gp::Mode::Inference;
    s.runtime = gp::Runtime::Serving;
    s.inference.precision = precision;
    s.inference.batch = users;
    s.inference.promptTokens = prompt;
    s.inference.outputTokens = output;
    return s;
}

} // namespace

class TestTrtllmEngine : public QObject {
    Q_OBJECT
private slots:
    void benchLimitsOfAV017Engine()
    {
        // Llama 3.1 70B FP8 (FP8 KV) on one H100 (NVML 80 x 0.9956 GiB), 500/2000:
        // (79.648 - 70.5537 GB of FP8 parameters) x 0.95 / (2 x 80 x 8 x 128 B / 2^30
        // x 2500 tokens) = 22.65 requests: max_batch_size max(64, 32) = 64; tokens
        // 22.65 x 1.25 = 28.3 -> the floor 2048. The TensorRT engine chunks the
        // context and runs no CUDA graphs.
        const gp::ModelArch m = preset("llama-3.1-70b");
        gp::TrtllmBenchInput in;
        in.model = &m;
        in.precision = gp::InferPrecision::FP8;
        in.deviceMemoryGiB = 80 * 0.9956;
        in.inputLen = 500;
        in.outputLen = 2000;
        in.backend = gp::TrtllmBackend::TensorRtEngine;
        const gp::ServingEngineLimits l = gp::trtllmBenchLimits(in);
        QCOMPARE(l.maxBatch, 64);
        QCOMPARE(l.maxNumTokens, 2048);
        QCOMPARE(l.wholePrompts, false);
        QVERIFY(l.graphBatchSizes.empty());
    }

    void benchLimitsOfThePyTorchBackend()
    {
        // Llama 3.1 405B FP8 on 8 x H100, 1000/2000: (8 x 79.648 - 405.853e9 B / 2^30)
        // x 0.95 / (2 x 126 x 8 x 128 B / 2^30 x 3000) = 341.5 requests -> max_batch_size
        // 128 x ceil(341.5 / 128) = 384; tokens 341.5 x 1.5 = 512 -> 2048, and with
        // chunked prefill off at least 1000 + 384. CUDA graphs: the perf overview's
        // list up to min(384, 2048) = 384, which it holds.
        const gp::ModelArch m = preset("llama-3.1-405b");
        gp::TrtllmBenchInput in;
        in.model = &m;
        in.precision = gp::InferPrecision::FP8;
        in.tp = 8;
        in.deviceMemoryGiB = 80 * 0.9956;
        in.inputLen = 1000;
        in.outputLen = 2000;
        const gp::ServingEngineLimits l = gp::trtllmBenchLimits(in);
        QCOMPARE(l.maxBatch, 384);
        QCOMPARE(l.maxNumTokens, 2048);
        QCOMPARE(l.wholePrompts, true);
        QCOMPARE(l.graphBatchSizes, (std::vector<int>{1, 2, 4, 8, 16, 32, 64, 128, 256, 384}));

        // NVFP4 on 4 x B200 (180 x 0.9956 GiB): the checkpoint's elements are the
        // linear weights x (1/2 + 1/16) + the 16-bit embedding and head (2 x 128256 x
        // 16384), x 0.5 B = 106.9 GiB; (716.8 - 106.9) x 0.95 / (2.4e-4 GiB x 3000) =
        // 803.3 requests -> 128 x 7 = 896; the graphs end with 896 itself (1024 > 896).
        in.precision = gp::InferPrecision::FP4;
        in.tp = 4;
        in.deviceMemoryGiB = 180 * 0.9956;
        const gp::ServingEngineLimits b = gp::trtllmBenchLimits(in);
        QCOMPARE(b.maxBatch, 896);
        QCOMPARE(b.maxNumTokens, 2048);
        QCOMPARE(b.graphBatchSizes, (std::vector<int>{1, 2, 4, 8, 16, 32, 64, 128, 256, 384, 512, 896}));

        // Pipeline parallel divides the requests by pp: Llama 3.3 70B NVFP4 on 8 RTX PRO
        // 6000 (96 GB), pp 8, 1000/2000: 1547.6 requests / 8 = 193.4 -> 32 x 7 = 224 per
        // micro-batch.
        const gp::ModelArch m70 = preset("llama-3.3-70b");
        in.model = &m70;
        in.tp = 1;
        in.pp = 8;
        in.deviceMemoryGiB = 96 * 0.9956;
        const gp::ServingEngineLimits r = gp::trtllmBenchLimits(in);
        QCOMPARE(r.maxBatch, 224);
        QCOMPARE(r.maxNumTokens, 2048);
        QCOMPARE(r.graphBatchSizes, (std::vector<int>{1, 2, 4, 8, 16, 32, 64, 128, 224}));
    }

    void maxBatchCapsTheAdmittedSequences()
    {
        // Llama 3.1 8B BF16 on one H100, 500 users of 128 + 2048 tokens: the KV pool
        // alone admits more than 100; an engine whose max_batch_size is 100 holds 100,
        // and with pp 2 (one such micro-batch per stage) 200.
        gp::Scenario s = serving("llama-3.1-8b", gp::InferPrecision::BF16, 500, 128, 2048);
        const gp::GpuEstimate free = gp::estimateOn(s, gpu("nvidia-h100-sxm"));
        QVERIFY(free.inference->admitted && *free.inference->admitted > 200);
        s.inference.engine.maxBatch = 100;
        QCOMPARE(*gp::estimateOn(s, gpu("nvidia-h100-sxm")).inference->admitted, 100);
        s.hardware.count = 2;
        s.hardware.pp = 2;
        QCOMPARE(*gp::estimateOn(s, gpu("nvidia-h100-sxm")).inference->admitted, 200);
    }

    void maxNumTokensBoundsTheStepTransient()
    {
        // Llama 3.1 70B FP8 on one H200, 64 users of 1000-token prompts: the prefill
        // transient is one layer's live tensors for the tokens of one step,
        // 2 B x (3 x 8192 + 8192 + 2 x 1024 + 8192 + 4 x 28672) = 315392 B a token.
        // The calibration's chunk is 8192 tokens; an engine with max_num_tokens 2048
        // holds 6144 x 315392 B = 1.8047 GiB less, before the allocator's share.
        gp::Scenario s = serving("llama-3.1-70b", gp::InferPrecision::FP8, 64, 1000, 100);
        const gp::GpuEstimate wide = gp::estimateOn(s, gpu("nvidia-h200-sxm"));
        s.inference.engine.maxNumTokens = 2048;
        const gp::GpuEstimate narrow = gp::estimateOn(s, gpu("nvidia-h200-sxm"));
        QCOMPARE(gp::builtinCalibration().servingChunkTokens, 8192.0);
        const double expected = 6144.0 * 315392 / (1024.0 * 1024 * 1024);
        QVERIFY(std::abs(termValue(wide, "memory.activations") - termValue(narrow, "memory.activations") - expected) < 1e-6);
    }

    void paddingCostsRowsOnlyWhereTheStepIsComputeBound()
    {
        // Llama 3.1 70B FP8 on one H200, 16 users of 128 + 2048 tokens: the decode GEMMs
        // at 16 (or 32) rows wait for the weights, so replaying the graph of 32 costs
        // nothing (one GPU: no all-reduce rows either).
        gp::Scenario s = serving("llama-3.1-70b", gp::InferPrecision::FP8, 16, 128, 2048);
        const double plain = *gp::estimateOn(s, gpu("nvidia-h200-sxm")).inference->tpotMs;
        s.inference.engine.graphBatchSizes = {32};
        QCOMPARE(*gp::estimateOn(s, gpu("nvidia-h200-sxm")).inference->tpotMs, plain);

        // Llama 3.1 8B FP8 on one H100, 400 users of 128 + 2048 tokens (every user's
        // KV fits): at ~400 rows the GEMMs are compute-bound (2 x 8e9 x 400 FLOP against
        // 8 GB of weights), and padding to 1024 lengthens the decode-only steps (the
        // share 1 - 400 / 2048 that carries no prompt).
        gp::Scenario c = serving("llama-3.1-8b", gp::InferPrecision::FP8, 400, 128, 2048);
        const gp::GpuEstimate cp = gp::estimateOn(c, gpu("nvidia-h100-sxm"));
        QVERIFY(cp.inference->admitted && *cp.inference->admitted >= 400);
        c.inference.engine.graphBatchSizes = {1024};
        const gp::GpuEstimate cg = gp::estimateOn(c, gpu("nvidia-h100-sxm"));
        QVERIFY(*cg.inference->tpotMs > *cp.inference->tpotMs * 1.05);
        // A step of prompts only (output 1 token: every step carries a prompt) runs
        // without graph: padding changes nothing.
        c.inference.outputTokens = 1;
        c.inference.engine.graphBatchSizes.clear();
        const double noGraph = *gp::estimateOn(c, gpu("nvidia-h100-sxm")).inference->tokensPerS;
        c.inference.engine.graphBatchSizes = {1024};
        QCOMPARE(*gp::estimateOn(c, gpu("nvidia-h100-sxm")).inference->tokensPerS, noGraph);
    }

    void servingDecodeAllReduceShare()
    {
        // Llama 3.1 70B FP8 on 8 x H100 (TP 8), 16 users of 128 + 2048 tokens: each
        // decode all-reduce carries 16 x 8192 x 2 B = 262144 B, of which NVLink moves
        // 2 x 7/8 of it at 450 GB/s x nvlink_bus_eff_decode 0.642 = 288.9 GB/s:
        // 1.588 us, x 2 per layer x 80 layers = 0.254 ms a step. At half that share
        // (serving_decode_allreduce_eff 0.5 instead of 1) a step takes 0.254 ms more.
        gp::Scenario s = serving("llama-3.1-70b", gp::InferPrecision::FP8, 16, 128, 2048);
        s.hardware.count = 8;
        s.hardware.tp = 8;
        gp::Calibration full = gp::builtinCalibration();
        full.set("serving_decode_allreduce_eff", 1.0);
        QCOMPARE(full.nvlinkBusEffDecode, 0.642);
        gp::Calibration half = full;
        half.set("serving_decode_allreduce_eff", 0.5);
        const gp::EstimateOptions o;
        const double a = *gp::estimateOn(s, gpu("nvidia-h100-sxm"), o, full).inference->tpotMs;
        const double b = *gp::estimateOn(s, gpu("nvidia-h100-sxm"), o, half).inference->tpotMs;
        const double expected = 2 * 80 * (2.0 * 262144 * 7 / 8) / (450e9 * 0.642) * 1e3;
        QVERIFY2(std::abs((b - a) - expected) < 0.03 * expected, qPrintable(QString::number(b - a)));
        // The static-cache runtime (no engine) keeps the isolated rate.
        s.runtime = gp::Runtime::Optimized;
        s.inference.batch = 16;
        QCOMPARE(*gp::estimateOn(s, gpu("nvidia-h100-sxm"), o, half).inference->tpotMs,
                 *gp::estimateOn(s, gpu("nvidia-h100-sxm"), o, full).inference->tpotMs);
    }
    // validate re-sizes a trtllm-bench row's engine with the calibration it is given:
    // the memory the heuristic sees is that calibration's usable_memory_fraction of
    // the GPU. The built-in table given explicitly predicts every row bit for bit as
    // no table does; a table that leaves the engine 30% less memory admits fewer
    // sequences, so the KV-bound rows predict fewer tokens/s and none more than 1%
    // more (the 405B rows on 4x B200 / GB200 gain 0.1% and 0.7%: a smaller batch
    // replays a CUDA graph with less padding).
    void validateSizesTheEngineWithTheCalibrationInUse()
    {
        const gp::ValidationSet set = gp::loadValidationSet({GP_TEST_DATA_DIR "/published"}, gp::Catalog::builtin());
        const gp::ValidationReport base = gp::predictSet(set);
        const gp::ValidationReport same = gp::predictSet(set, &gp::builtinCalibration());
        QCOMPARE(same.rows.size(), base.rows.size());
        for (std::size_t i = 0; i < base.rows.size(); ++i)
            QCOMPARE(same.rows[i].predicted, base.rows[i].predicted);
        gp::Calibration less = gp::builtinCalibration();
        less.usableMemoryFraction *= 0.7;
        const gp::ValidationReport tight = gp::predictSet(set, &less);
        QCOMPARE(tight.rows.size(), base.rows.size());
        int bench = 0, lower = 0;
        for (std::size_t i = 0; i < base.rows.size(); ++i) {
            const std::string& label = set.cases[base.rows[i].caseIndex].record;
            if (label.rfind("TRT", 0) != 0)
                continue;
            ++bench;
            QVERIFY2(tight.rows[i].predicted <= base.rows[i].predicted * 1.01, label.c_str());
            lower += tight.rows[i].predicted < base.rows[i].predicted * 0.99;
        }
        QVERIFY(bench > 0);
        QVERIFY(lower > 0);
    }
};

QTEST_GUILESS_MAIN(TestTrtllmEngine)
#include "tst_trtllmengine.moc"
