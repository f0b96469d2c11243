// The estimate: structure over the whole preset x catalog grid and the memory
// terms that can be computed by hand. Cost arithmetic, capability fallbacks,
// monotonic behaviour and targets are in tst_estimatecost.cpp. Throughput
// constants are being calibrated, so they are never asserted to a number here.
#include <QtTest>

#include "estimate_cases.h"

class TestEstimate : public QObject {
    Q_OBJECT

private slots:
    // Structure over the whole grid
    void everyPresetEveryGpu_data();
    void everyPresetEveryGpu();
    void estimateOverCatalog();
    void unknownGpuIds();

    // Memory terms by hand
    void llama8bInferenceWeights();
    void inferenceWeightBytes_data();
    void inferenceWeightBytes();
    void llama8bKvCache();
    void kvPrecision_data();
    void kvPrecision();
    void optimizerStates_data();
    void optimizerStates();
    void fullFineTuneGradients();
    void loraTerms();
    void vision();
    void parallelSharding();
    void notFitStillReportsMemory();

};

// ---------------------------------------------------------------------------

void TestEstimate::everyPresetEveryGpu_data()
{
    QTest::addColumn<QString>("preset");
    for (const auto& m : gp::modelPresets())
        QTest::addRow("%s", m.id.c_str()) << QString::fromStdString(m.id);
}

void TestEstimate::everyPresetEveryGpu()
{
    QFETCH(QString, preset);
    const std::string id = preset.toStdString();
    struct Variant {
        const char* name;
        gp::Mode mode;
        gp::Runtime runtime;
    };
    const Variant variants[] = {{"training eager", gp::Mode::Training, gp::Runtime::Eager},
                                {"training optimized", gp::Mode::Training, gp::Runtime::Optimized},
                                {"inference eager", gp::Mode::Inference, gp::Runtime::Eager},
                                {"inference optimized", gp::Mode::Inference, gp::Runtime::Optimized}};
    for (const auto& v : variants) {
        gp::Scenario s = scenario(id, v.mode);
        s.runtime = v.runtime;
        s.training.datasetTokens = 1e9;
        s.training.datasetSamples.reset();
        if (!s.model.isLanguageModel()) {
            s.training.datasetTokens.reset();
            s.training.datasetSamples = 1e6;
        }
        QVERIFY(gp::validateScenario(s).empty());
        for (const auto& g : gp::Catalog::builtin().gpus()) {
            gp::GpuEstimate e;
            try {
                e = gp::estimateOn(s, g);
            } catch (const std::exception& ex) {
                QFAIL(qPrintable(QString("%1 on %2 (%3) threw: %4").arg(preset, g.id.c_str(), v.name, ex.what())));
            }
            const std::string problem = checkEstimate(s, e);
            QVERIFY2(problem.empty(), qPrintable(QString("%1 on %2 (%3): %4").arg(preset, g.id.c_str(), v.name,
                                                                                   problem.c_str())));
            QCOMPARE(e.gpuId, g.id);
            QCOMPARE_REL(e.capacityBytes, g.memoryGb * kGiB * 0.9956, 1e-12); // binary GB, as nvidia-smi shows
            // On-demand price for the whole job.
            QCOMPARE_REL(e.usdPerHour, s.hardware.count * g.pricePerHour.typical, 1e-12);
            if (s.mode == gp::Mode::Training && g.pricePerHour.typical > 0) {
                QVERIFY(e.training->hours.has_value());
                QVERIFY(e.training->costUsd.has_value());
            }
        }
    }
}

void TestEstimate::estimateOverCatalog()
{
    gp::Scenario s = inference("llama-3.2-1b");
    const gp::Catalog& cat = gp::Catalog::builtin();
    const gp::Estimate all = gp::estimate(s, cat);
    QCOMPARE(all.scenario, s.name);
    QCOMPARE(all.results.size(), cat.gpus().size());
    for (std::size_t i = 0; i < all.results.size(); ++i)
        QCOMPARE(all.results[i].gpuId, cat.gpus()[i].id);

    s.hardware.gpus = {"nvidia-l4", "nvidia-h100-sxm", "nvidia-l4"};
    const gp::Estimate listed = gp::estimate(s, cat);
    QCOMPARE(listed.results.size(), std::size_t(3));
    QCOMPARE(listed.results[0].gpuId, std::string("nvidia-l4"));
    QCOMPARE(listed.results[1].gpuId, std::string("nvidia-h100-sxm"));
    // Same input, same numbers: the estimate is a pure function.
    QCOMPARE(listed.results[2].memory.total(), listed.results[0].memory.total());
    QCOMPARE(*listed.results[2].inference->tpotMs, *listed.results[0].inference->tpotMs);
}

void TestEstimate::unknownGpuIds()
{
    gp::Scenario s = inference("llama-3.2-1b");
    s.hardware.gpus = {"nvidia-h100-sxm", "nvidia-h100-sxn", "nvidia-rtx-4091"};
    try {
        (void)gp::estimate(s, gp::Catalog::builtin());
        QFAIL("no InputError");
    } catch (const gp::InputError& e) {
        QCOMPARE(e.problems().size(), std::size_t(2)); // every unknown id at once
        QCOMPARE(e.problems()[0].path, std::string("hardware.gpus[1]"));
        QCOMPARE(e.problems()[1].path, std::string("hardware.gpus[2]"));
        QVERIFY(e.problems()[0].message.find("did you mean \"nvidia-h100-sxm\"") != std::string::npos);
        QVERIFY(e.problems()[1].message.find("nvidia-rtx-4090") != std::string::npos);
    }
}

// ---------------------------------------------------------------------------
// Memory terms

void TestEstimate::llama8bInferenceWeights()
{
    const gp::Scenario s = inference("llama-3.1-8b");
    QCOMPARE(s.model.totalParams(), kLlama8bParams);
    const gp::GpuEstimate e = gp::estimateOn(s, gpu("nvidia-h100-sxm"));
    // bf16: 2 bytes x 8.03e9 = 16.06e9 bytes = 14.96 GiB.
    QCOMPARE_REL(e.memory.weights, 2 * 8.03e9, 0.005);
    QCOMPARE_REL(e.memory.weights, 2 * kLlama8bParams, 1e-12);
    QCOMPARE_REL(e.memory.weights / kGiB, 14.957, 1e-4);
}

void TestEstimate::inferenceWeightBytes_data()
{
    QTest::addColumn<int>("precision");
    QTest::addColumn<double>("minBytesPerParam");
    QTest::addColumn<double>("maxBytesPerParam");
    // fp32/fp16/bf16 store every weight at that width. Quantized formats keep the
    // embeddings and an untied head (6.5% of Llama 3.1 8B) in 16-bit and add
    // scales: int8 ~ 1 + 2/128, int4 ~ 0.5 + 4/128 bytes per quantized weight.
    QTest::addRow("fp32") << int(gp::InferPrecision::FP32) << 4.0 << 4.0;
    QTest::addRow("fp16") << int(gp::InferPrecision::FP16) << 2.0 << 2.0;
    QTest::addRow("bf16") << int(gp::InferPrecision::BF16) << 2.0 << 2.0;
    QTest::addRow("fp8") << int(gp::InferPrecision::FP8) << 1.0 << 1.2;
    QTest::addRow("int8") << int(gp::InferPrecision::INT8) << 1.0 << 1.2;
    QTest::addRow("int4") << int(gp::InferPrecision::INT4) << 0.5 << 0.75;
}

void TestEstimate::inferenceWeightBytes()
{
    QFETCH(int, precision);
    QFETCH(double, minBytesPerParam);
    QFETCH(double, maxBytesPerParam);
    gp::Scenario s = inference("llama-3.1-8b");
    s.inference.precision = static_cast<gp::InferPrecision>(precision);
    const gp::GpuEstimate e = gp::estimateOn(s, gpu("nvidia-h100-sxm"));
    const double perParam = e.memory.weights / kLlama8bParams;
    QVERIFY2(perParam >= minBytesPerParam * (1 - 1e-12) && perParam <= maxBytesPerParam * (1 + 1e-12),
             QByteArray::number(perParam, 'g', 8));
}

void TestEstimate::llama8bKvCache()
{
    gp::Scenario s = inference("llama-3.1-8b");
    s.inference.batch = 8;
    s.inference.promptTokens = 1024;
    s.inference.outputTokens = 256;
    QCOMPARE(s.model.kvElementsPerToken(), kLlama8bKvPerToken);
    const gp::GpuEstimate e = gp::estimateOn(s, gpu("nvidia-h100-sxm"));
    // 8 sequences x (1024 + 256) tokens x 65,536 elements x 2 bytes
    //   = 1,342,177,280 bytes = exactly 1.25 GiB.
    QCOMPARE_REL(e.memory.kvCache, 8.0 * 1280 * 65536 * 2, 1e-12);
    QCOMPARE_REL(e.memory.kvCache / kGiB, 1.25, 1e-12);
}

void TestEstimate::kvPrecision_data()
{
    QTest::addColumn<int>("precision");
    QTest::addColumn<int>("kvPrecision"); // -1: not given (follows precision)
    QTest::addColumn<double>("bytesPerElement");
    QTest::addRow("bf16") << int(gp::InferPrecision::BF16) << -1 << 2.0;
    QTest::addRow("fp32") << int(gp::InferPrecision::FP32) << -1 << 4.0;
    QTest::addRow("fp8") << int(gp::InferPrecision::FP8) << -1 << 1.0;
    QTest::addRow("int8") << int(gp::InferPrecision::INT8) << -1 << 1.0;
    QTest::addRow("int4 keeps fp16 KV") << int(gp::InferPrecision::INT4) << -1 << 2.0;
    QTest::addRow("bf16 weights, fp8 KV") << int(gp::InferPrecision::BF16) << int(gp::InferPrecision::FP8) << 1.0;
    QTest::addRow("int4 weights, int4 KV") << int(gp::InferPrecision::INT4) << int(gp::InferPrecision::INT4) << 0.5;
    QTest::addRow("fp8 weights, fp32 KV") << int(gp::InferPrecision::FP8) << int(gp::InferPrecision::FP32) << 4.0;
}

void TestEstimate::kvPrecision()
{
    QFETCH(int, precision);
    QFETCH(int, kvPrecision);
    QFETCH(double, bytesPerElement);
    gp::Scenario s = inference("llama-3.1-8b");
    s.inference.batch = 8;
    s.inference.promptTokens = 1024;
    s.inference.outputTokens = 256;
    s.inference.precision = static_cast<gp::InferPrecision>(precision);
    if (kvPrecision >= 0)
        s.inference.kvPrecision = static_cast<gp::InferPrecision>(kvPrecision);
    const gp::GpuEstimate e = gp::estimateOn(s, gpu("nvidia-h100-sxm"));
    QCOMPARE_REL(e.memory.kvCache, 8.0 * 1280 * kLlama8bKvPerToken * bytesPerElement, 1e-12);
}

void TestEstimate::optimizerStates_data()
{
    QTest::addColumn<int>("precision");
    QTest::addColumn<int>("optimizer");
    QTest::addColumn<double>("bytesPerParam");
    QTest::addColumn<double>("tolerance");
    // Full fine-tune, optimizer states per parameter:
    //   AdamW, fp32 states (AMP / fp32 / tf32): m and v = 2 x 4 = 8 bytes
    //   AdamW, pure bf16 states:                 2 x 2 = 4 bytes
    //   AdamW 8-bit (bitsandbytes):             2 x 1 byte + block scales ~ 2 bytes
    //   SGD with momentum, fp32:                 4 bytes; plain SGD: none
    QTest::addRow("amp_bf16 adamw") << int(gp::TrainPrecision::AmpBF16) << int(gp::Optimizer::AdamW) << 8.0 << 1e-12;
    QTest::addRow("amp_fp16 adamw") << int(gp::TrainPrecision::AmpFP16) << int(gp::Optimizer::AdamW) << 8.0 << 1e-12;
    QTest::addRow("fp32 adamw") << int(gp::TrainPrecision::FP32) << int(gp::Optimizer::AdamW) << 8.0 << 1e-12;
    QTest::addRow("tf32 adamw") << int(gp::TrainPrecision::TF32) << int(gp::Optimizer::AdamW) << 8.0 << 1e-12;
    QTest::addRow("bf16 adamw") << int(gp::TrainPrecision::BF16) << int(gp::Optimizer::AdamW) << 4.0 << 1e-12;
    QTest::addRow("amp_bf16 adamw_8bit") << int(gp::TrainPrecision::AmpBF16) << int(gp::Optimizer::AdamW8bit) << 2.0
                                         << 0.05;
    QTest::addRow("amp_bf16 sgd_momentum")
        << int(gp::TrainPrecision::AmpBF16) << int(gp::Optimizer::SGDMomentum) << 4.0 << 1e-12;
    QTest::addRow("amp_bf16 sgd") << int(gp::TrainPrecision::AmpBF16) << int(gp::Optimizer::SGD) << 0.0 << 0.0;
}

void TestEstimate::optimizerStates()
{
    QFETCH(int, precision);
    QFETCH(int, optimizer);
    QFETCH(double, bytesPerParam);
    QFETCH(double, tolerance);
    gp::Scenario s = training("llama-3.1-8b");
    s.training.precision = static_cast<gp::TrainPrecision>(precision);
    s.training.optimizer = static_cast<gp::Optimizer>(optimizer);
    const gp::GpuEstimate e = gp::estimateOn(s, gpu("nvidia-h100-sxm"));
    // 8 bytes x 8,030,261,248 = 64,242,089,984 bytes (59.8 GiB) for AdamW.
    QCOMPARE_REL(e.memory.optimizer, bytesPerParam * kLlama8bParams, tolerance);
    if (bytesPerParam == 0)
        QCOMPARE(e.memory.optimizer, 0.0);
}

void TestEstimate::fullFineTuneGradients()
{
    // AMP keeps fp32 master weights and fp32 gradients. With micro-batch 1 x 256
    // tokens the activations (~2.5 GB) are far below the gradients (32 GB), so
    // the peak is at the end of backward with every gradient allocated:
    // 4 bytes x 8,030,261,248 = 32,121,044,992 bytes.
    const gp::Scenario s = training("llama-3.1-8b");
    const gp::GpuEstimate e = gp::estimateOn(s, gpu("nvidia-h100-sxm"));
    QCOMPARE_REL(e.memory.gradients, 4 * kLlama8bParams, 1e-12);
    // fp32 master weights at least (plus 16-bit autocast copies without checkpointing).
    QVERIFY(e.memory.weights >= 4 * kLlama8bParams);
    QVERIFY(e.memory.weights <= 6 * kLlama8bParams);
    // Weights 32.1 + grads 32.1 + AdamW 64.2 GB: cannot fit in 80 GB.
    QVERIFY(!e.fits);

    // Full checkpointing: no autocast copies kept, weights are the fp32 masters.
    gp::Scenario c = s;
    c.training.checkpointing = gp::Checkpointing::Full;
    QCOMPARE_REL(gp::estimateOn(c, gpu("nvidia-h100-sxm")).memory.weights, 4 * kLlama8bParams, 1e-12);

    // Pure bf16: weights and gradients 2 bytes each.
    gp::Scenario b = c;
    b.training.precision = gp::TrainPrecision::BF16;
    const gp::GpuEstimate eb = gp::estimateOn(b, gpu("nvidia-h100-sxm"));
    QCOMPARE_REL(eb.memory.weights, 2 * kLlama8bParams, 1e-12);
    QCOMPARE_REL(eb.memory.gradients, 2 * kLlama8bParams, 1e-12);
}

void TestEstimate::loraTerms()
{
    // LoRA rank 16 on q/k/v/o of Llama 3.1 8B: r x (in + out) per module per layer
    //   q, o: 16 x (4096 + 4096) = 131,072 each
    //   k, v: 16 x (4096 + 1024) =  81,920 each
    //   per layer 425,984; x 32 layers = 13,631,488 trainable parameters.
    constexpr double trainable = 13'631'488;
    gp::Scenario s = training("llama-3.1-8b");
    s.training.method = gp::TrainMethod::Lora;
    s.training.loraRank = 16;
    s.training.loraTargets = {"q_proj", "k_proj", "v_proj", "o_proj"};
    s.training.precision = gp::TrainPrecision::BF16;
    s.training.checkpointing = gp::Checkpointing::Full;
    const gp::GpuEstimate e = gp::estimateOn(s, gpu("nvidia-rtx-4090"));
    // Frozen base in bf16 + fp32 adapters: 2 x 8,030,261,248 + 4 x 13,631,488
    //   = 16,060,522,496 + 54,525,952 = 16,115,048,448 bytes.
    QCOMPARE_REL(e.memory.weights, 2 * kLlama8bParams + 4 * trainable, 1e-12);
    // AdamW states for the adapters only, fp32: 8 x 13,631,488 = 109,051,904 bytes.
    QCOMPARE_REL(e.memory.optimizer, 8 * trainable, 1e-12);
    // Adapter gradients (fp32) are tiny: at most 4 x 13.6M.
    QVERIFY(e.memory.gradients <= 4 * trainable * (1 + 1e-12));

    // Targets add up: all seven projections at rank 8, per layer
    //   q, o        8 x (4096 + 4096)  = 65,536 each
    //   k, v        8 x (4096 + 1024)  = 40,960 each
    //   gate, up    8 x (4096 + 14336) = 147,456 each
    //   down        8 x (14336 + 4096) = 147,456
    //   = 2 x 65,536 + 2 x 40,960 + 3 x 147,456 = 655,360; x 32 layers = 20,971,520.
    gp::Scenario all = s;
    all.training.loraRank = 8;
    all.training.loraTargets = {"q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"};
    QCOMPARE_REL(gp::estimateOn(all, gpu("nvidia-rtx-4090")).memory.optimizer, 8 * 20'971'520.0, 1e-12);

    // QLoRA: the base in 4-bit is well under the bf16 base.
    gp::Scenario q = s;
    q.training.method = gp::TrainMethod::Qlora;
    const gp::GpuEstimate eq = gp::estimateOn(q, gpu("nvidia-rtx-4090"));
    QVERIFY_LESS(eq.memory.weights, 0.5 * e.memory.weights);
    QVERIFY(eq.memory.weights > 0.5 * kLlama8bParams); // 4 bits per weight at least
}

void TestEstimate::vision()
{
    // ResNet-50, AMP bf16, SGD with momentum:
    //   fp32 weights 4 B + 16-bit autocast copies 2 B = 6 B x 25,557,032
    //   fp32 gradients 4 B, momentum 4 B per parameter.
    gp::Scenario s = training("resnet50");
    s.training.optimizer = gp::Optimizer::SGDMomentum;
    s.training.microBatch = 256;
    const gp::GpuEstimate e = gp::estimateOn(s, gpu("nvidia-h100-sxm"));
    QCOMPARE_REL(e.memory.weights, 6 * kResnet50Params, 1e-12);
    // Batch 256 peaks at the start of backward: the activations (256 x 44 MB)
    // outweigh the 4 B gradients, which are allocated as activations are freed.
    QCOMPARE(e.memory.gradients, 0.0);
    QCOMPARE_REL(e.memory.optimizer, 4 * kResnet50Params, 1e-12);
    QCOMPARE(e.training->tokensPerS, 0.0);
    QVERIFY(e.training->samplesPerS > 0);

    // Inference in fp32: 4 B x 25,557,032 = 102,228,128 bytes; bf16 half of it.
    gp::Scenario i = inference("resnet50");
    i.inference.precision = gp::InferPrecision::FP32;
    i.inference.batch = 100;
    QCOMPARE_REL(gp::estimateOn(i, gpu("nvidia-h100-sxm")).memory.weights, 4 * kResnet50Params, 1e-12);
    i.inference.precision = gp::InferPrecision::BF16;
    const gp::GpuEstimate ib = gp::estimateOn(i, gpu("nvidia-h100-sxm"));
    QCOMPARE_REL(ib.memory.weights, 2 * kResnet50Params, 1e-12);
    QCOMPARE(ib.memory.kvCache, 0.0);
    // Images/s is batch / latency.
    QCOMPARE_REL(*ib.inference->samplesPerS, 100 / (*ib.inference->latencyMs / 1e3), 1e-9);

    // Activations scale with the image area: 448 px is 4x the activations of 224 px.
    gp::Scenario big = s;
    big.training.imageSize = 448;
    QCOMPARE_REL(gp::estimateOn(big, gpu("nvidia-h100-sxm")).memory.activations, 4 * e.memory.activations, 1e-9);
}

void TestEstimate::parallelSharding()
{
    const gp::Gpu& h100 = gpu("nvidia-h100-sxm");
    // Inference, TP 2: each GPU holds half the weights and half the KV cache.
    gp::Scenario i = inference("llama-3.1-8b");
    i.inference.batch = 8;
    const gp::GpuEstimate one = gp::estimateOn(i, h100);
    i.hardware.count = 2;
    i.hardware.tp = 2;
    const gp::GpuEstimate two = gp::estimateOn(i, h100);
    QCOMPARE_REL(two.memory.weights, one.memory.weights / 2, 1e-12);
    QCOMPARE_REL(two.memory.kvCache, one.memory.kvCache / 2, 1e-12);
    QCOMPARE(two.count, 2);

    // Training, full checkpointing (weights = fp32 masters only):
    gp::Scenario t = training("llama-3.1-8b");
    t.training.checkpointing = gp::Checkpointing::Full;
    const gp::GpuEstimate base = gp::estimateOn(t, h100);
    //   TP 2 x PP 2 on 4 GPUs: weights and AdamW states / 4. Each pipeline stage
    //   holds 16 layers plus either the embedding or the LM head, which are the
    //   same size in Llama 3.1 8B, so every stage holds exactly n / 2.
    gp::Scenario mp = t;
    mp.hardware.count = 4;
    mp.hardware.tp = 2;
    mp.hardware.pp = 2;
    const gp::GpuEstimate emp = gp::estimateOn(mp, h100);
    QCOMPARE_REL(emp.memory.weights, 4 * kLlama8bParams / 4, 1e-12);
    QCOMPARE_REL(emp.memory.optimizer, 8 * kLlama8bParams / 4, 1e-12);
    //   Plain data parallel on 8 GPUs: every GPU holds everything.
    gp::Scenario dp = t;
    dp.hardware.count = 8;
    const gp::GpuEstimate edp = gp::estimateOn(dp, h100);
    QCOMPARE_REL(edp.memory.weights, base.memory.weights, 1e-12);
    QCOMPARE_REL(edp.memory.optimizer, base.memory.optimizer, 1e-12);
    //   ZeRO-1 on 8 (DeepSpeed): the fp32 master weights join the AdamW states
    //   in the shard: (4 + 8) B x n / 8 = 1.5 n bytes; the model itself is 16-bit.
    dp.hardware.zero = 1;
    const gp::GpuEstimate z1 = gp::estimateOn(dp, h100);
    QCOMPARE_REL(z1.memory.optimizer, 1.5 * kLlama8bParams, 1e-12);
    QCOMPARE_REL(z1.memory.weights, 2 * kLlama8bParams, 1e-12);
    //   ZeRO-3 on 8 (FSDP): the fp32 shard 4 B x n / 8, plus the unsharded bf16
    //   blocks in flight (current params and grads, prefetched params): 3 x 2 B x
    //   218,112,128 (one layer's share of n without embeddings and head:
    //   (8,030,261,248 - 2 x 525,336,576) / 32, the final norm spread over the
    //   layers) = 4,015,130,624 + 1,308,672,768 = 5,323,803,392 bytes.
    dp.hardware.zero = 3;
    const gp::GpuEstimate z3 = gp::estimateOn(dp, h100);
    const double layerParams = (kLlama8bParams - 2 * 525'336'576.0) / 32;
    QCOMPARE(layerParams, 218'112'128.0);
    QCOMPARE_REL(z3.memory.weights, 4 * kLlama8bParams / 8 + 3 * 2 * layerParams, 1e-12);
    QCOMPARE(z3.memory.weights, 5'323'803'392.0);
    QCOMPARE_REL(z3.memory.optimizer, kLlama8bParams, 1e-12);
    QVERIFY_LESS(z3.memory.total(), base.memory.total());
}

void TestEstimate::notFitStillReportsMemory()
{
    // Llama 3.1 405B in bf16 on one RTX 4090: 2 B x ~405.9e9 = ~756 GiB of weights.
    const gp::GpuEstimate e = gp::estimateOn(inference("llama-3.1-405b"), gpu("nvidia-rtx-4090"));
    QVERIFY(!e.fits);
    QVERIFY(e.memory.weights > 700 * kGiB);
    QVERIFY(!e.meetsTargets);
    QVERIFY(!e.targetMisses.empty());
    QVERIFY2(e.targetMisses[0].find("GiB") != std::string::npos, e.targetMisses[0].c_str());
    QVERIFY(e.inference->tpotMs.has_value()); // performance is still estimated
}
QTEST_APPLESS_MAIN(TestEstimate)
#include "tst_estimate.moc"
