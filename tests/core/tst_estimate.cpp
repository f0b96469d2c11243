// The estimate: structure over the whole preset x catalog grid, memory terms
// that can be computed by hand, cost arithmetic, capability fallbacks and
// monotonic behaviour. Throughput constants are being calibrated, so they are
// never asserted to a number here, only to their shape and direction.
#include <QtTest>

#include "core/calibration/calibration.h"
#include "core/hardware/catalog.h"
#include "core/base/errors.h"
#include "core/estimate/estimate.h"
#include "core/model/model.h"
#include "core/model/presets.h"
#include "core/scenario/scenario.h"

#include <cmath>
#include <string>
#include <vector>

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// Llama 3.1 8B, counted by hand from its config (32 x 4096, 32 heads, 8 KV
// heads of 128, SwiGLU 14336, vocab 128256, untied, RMSNorm):
//   embeddings          128256 x 4096                          =   525,336,576
//   per layer: q, o     2 x 4096 x 4096                         =    33,554,432
//              k, v     2 x 4096 x 1024                         =     8,388,608
//              MLP      3 x 4096 x 14336                        =   176,160,768
//              norms    2 x 4096                                =         8,192
//              layer total                                      =   218,112,000
//   32 layers                                                   = 6,979,584,000
//   final norm 4096 + LM head 128256 x 4096                     =   525,340,672
//   total                                                       = 8,030,261,248
constexpr double kLlama8bParams = 8'030'261'248.0;
// KV elements per token: K and V x 32 layers x 8 KV heads x 128 = 65,536.
constexpr double kLlama8bKvPerToken = 2.0 * 32 * 8 * 128;

// ResNet-50 (torchvision): 25,557,032 parameters.
constexpr double kResnet50Params = 25'557'032.0;

const gp::Gpu& gpu(const char* id)
{
    const gp::Gpu* g = gp::Catalog::builtin().find(id);
    if (!g)
        qFatal("catalog lacks %s", id);
    return *g;
}

gp::Scenario scenario(const std::string& presetId, gp::Mode mode)
{
    gp::Scenario s;
    s.name = presetId;
    s.modelSpec.form = gp::ModelSpec::Form::Preset;
    s.modelSpec.presetId = presetId;
    s.model = gp::resolveModel(s.modelSpec);
    s.mode = mode;
    s.runtime = gp::Runtime::Eager;
    auto& t = s.training;
    t.method = gp::TrainMethod::Full;
    t.precision = gp::TrainPrecision::AmpBF16;
    t.optimizer = gp::Optimizer::AdamW;
    t.microBatch = 1;
    t.seqLen = 256;
    t.imageSize = 224;
    t.checkpointing = gp::Checkpointing::None;
    auto& i = s.inference;
    i.precision = gp::InferPrecision::BF16;
    i.batch = 1;
    i.promptTokens = 128;
    i.outputTokens = 32;
    return s;
}

gp::Scenario training(const std::string& presetId) { return scenario(presetId, gp::Mode::Training); }
gp::Scenario inference(const std::string& presetId) { return scenario(presetId, gp::Mode::Inference); }

bool relNear(double actual, double expected, double tol)
{
    if (actual == expected)
        return true;
    return std::abs(actual - expected) <= tol * std::max(std::abs(actual), std::abs(expected));
}

#define QCOMPARE_REL(actual, expected, tol)                                                                           \
    do {                                                                                                              \
        const double a_ = (actual);                                                                                   \
        const double e_ = (expected);                                                                                 \
        QVERIFY2(relNear(a_, e_, (tol)), QByteArray(#actual) + " = " + QByteArray::number(a_, 'g', 15)                \
                                             + ", expected " + QByteArray::number(e_, 'g', 15) + " (rel tol "       \
                                             + QByteArray::number((tol)) + ")");                                      \
    } while (false)

#define QVERIFY_LESS(smaller, larger)                                                                                 \
    do {                                                                                                              \
        const double s_ = (smaller);                                                                                  \
        const double l_ = (larger);                                                                                   \
        QVERIFY2(s_ < l_, QByteArray(#smaller) + " = " + QByteArray::number(s_, 'g', 10) + " is not < " #larger " = "  \
                              + QByteArray::number(l_, 'g', 10));                                                     \
    } while (false)

bool anyNoteContains(const gp::GpuEstimate& e, const std::string& text)
{
    for (const auto& n : e.notes)
        if (n.find(text) != std::string::npos)
            return true;
    return false;
}

QByteArray notesText(const gp::GpuEstimate& e)
{
    QByteArray s;
    for (const auto& n : e.notes)
        s += "  note: " + QByteArray::fromStdString(n) + "\n";
    return s;
}

/// Empty when every number of the estimate is finite and non-negative and the
/// structure matches the workload; otherwise what is wrong.
std::string checkEstimate(const gp::Scenario& s, const gp::GpuEstimate& e)
{
    auto bad = [](double v) { return !std::isfinite(v) || v < 0; };
    const auto& m = e.memory;
    const std::pair<const char*, double> mem[] = {{"weights", m.weights},       {"gradients", m.gradients},
                                                  {"optimizer", m.optimizer},   {"activations", m.activations},
                                                  {"kv_cache", m.kvCache},      {"overhead", m.overhead},
                                                  {"capacity", e.capacityBytes}, {"usd_per_hour", e.usdPerHour},
                                                  {"uncertainty.memory", e.uncertainty.memory},
                                                  {"uncertainty.throughput", e.uncertainty.throughput}};
    for (const auto& [name, v] : mem)
        if (bad(v))
            return std::string(name) + " = " + std::to_string(v);
    if (!(m.total() > 0))
        return "memory total is 0";
    if (m.overhead <= 0)
        return "no runtime overhead";
    if (e.fits != (m.total() <= e.capacityBytes))
        return "fits disagrees with total <= capacity";
    if (!e.fits && e.meetsTargets && e.targetMisses.empty())
        return "does not fit but no target miss says so";
    if (e.meetsTargets != e.targetMisses.empty())
        return "meetsTargets disagrees with targetMisses";
    if (!(e.uncertainty.memory > 0 && e.uncertainty.memory < 1 && e.uncertainty.throughput > 0 &&
          e.uncertainty.throughput < 1))
        return "uncertainty outside (0, 1)";
    if (e.computePrecision.empty())
        return "no compute precision";
    if (e.gpuId.empty() || e.gpuName.empty())
        return "no GPU id/name";
    if (e.count != s.hardware.count)
        return "count differs from the scenario";
    const bool lm = s.model.isLanguageModel();
    if (s.mode == gp::Mode::Training) {
        if (!e.training || e.inference)
            return "training result shape";
        const auto& t = *e.training;
        for (double v : {t.tokensPerS, t.samplesPerS, t.stepMs, t.mfu})
            if (bad(v))
                return "training value " + std::to_string(v);
        if (!(t.samplesPerS > 0 && t.stepMs > 0 && t.mfu > 0 && t.mfu <= 1))
            return "training zero or mfu > 1: mfu " + std::to_string(t.mfu);
        if (lm && !relNear(t.tokensPerS, t.samplesPerS * s.training.seqLen, 1e-9))
            return "tokens/s != samples/s x seq_len";
        if (!lm && t.tokensPerS != 0)
            return "vision model with tokens/s";
        if (m.kvCache != 0)
            return "training with a KV cache";
        if (t.hours && bad(*t.hours))
            return "hours";
        if (t.costUsd && bad(*t.costUsd))
            return "cost";
    } else {
        if (!e.inference || e.training)
            return "inference result shape";
        const auto& i = *e.inference;
        if (lm) {
            if (!i.ttftMs || !i.tpotMs || !i.tokensPerS || i.samplesPerS || i.latencyMs)
                return "language-model inference keys";
            if (!(*i.ttftMs > 0 && *i.tpotMs > 0 && *i.tokensPerS > 0))
                return "zero latency or throughput";
        } else {
            if (i.ttftMs || i.tpotMs || i.tokensPerS || !i.samplesPerS || !i.latencyMs)
                return "vision inference keys";
            if (!(*i.samplesPerS > 0 && *i.latencyMs > 0))
                return "zero latency or throughput";
        }
        for (const auto& v : {i.ttftMs, i.tpotMs, i.tokensPerS, i.usdPerMillionTokens, i.samplesPerS, i.latencyMs})
            if (v && bad(*v))
                return "inference value " + std::to_string(*v);
        if (m.gradients != 0 || m.optimizer != 0)
            return "inference with gradients or optimizer states";
    }
    bool totalTerm = false;
    for (const auto& t : e.terms) {
        if (!std::isfinite(t.value))
            return "term " + t.key + " not finite";
        if (t.key.empty() || t.label.empty() || t.unit.empty())
            return "term without key/label/unit";
        if (t.key == "memory.total") {
            totalTerm = true;
            if (!relNear(t.value, m.total() / kGiB, 1e-9))
                return "memory.total term differs from the breakdown";
        }
    }
    if (!totalTerm)
        return "no memory.total term";
    return {};
}

} // namespace

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

    // Cost arithmetic
    void onDemandPrice();
    void trainingCost();
    void otherPricingModels();
    void purchasePrice();
    void inferenceThroughputAndCost();
    void noPriceNoCost();

    // Fallbacks and notes
    void t4HasNoBf16();
    void a100HasNoFp8();
    void h100RunsFp8();
    void inferenceFallbacks();

    // Monotonic properties
    void activationsGrowWithMicroBatch();
    void activationsGrowWithSeqLen();
    void checkpointingSavesMemory();
    void bandwidthLowersTpot_data();
    void bandwidthLowersTpot();
    void batchRaisesDecodeThroughput();
    void promptRaisesTtft();
    void fasterGpuTrainsFaster();
    void dataParallelScales();
    void optimizedRuntimeFaster();

    // Targets and uncertainty
    void targets();
    void uncertaintyWidens();
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

// ---------------------------------------------------------------------------
// Cost

void TestEstimate::onDemandPrice()
{
    gp::Scenario s = training("llama-3.2-1b");
    s.hardware.count = 8;
    const gp::Gpu& g = gpu("nvidia-h100-sxm");
    const gp::GpuEstimate e = gp::estimateOn(s, g);
    // 8 x the typical on-demand price per GPU-hour.
    QCOMPARE_REL(e.usdPerHour, 8 * g.pricePerHour.typical, 1e-12);
    QVERIFY(g.pricePerHour.typical > 0);
}

void TestEstimate::trainingCost()
{
    gp::Scenario s = training("llama-3.2-1b");
    s.training.datasetTokens = 2e9;
    s.training.epochs = 3;
    s.pricing.utilization = 0.7;
    s.hardware.count = 2;
    const gp::GpuEstimate e = gp::estimateOn(s, gpu("nvidia-a100-80gb-sxm"));
    const auto& t = *e.training;
    QVERIFY(t.hours && t.costUsd);
    // hours = tokens x epochs / (tokens/s) / 3600
    QCOMPARE_REL(*t.hours, 2e9 * 3 / t.tokensPerS / 3600, 1e-12);
    // cost = hours x usd_per_hour / utilization (idle paid hours count)
    QCOMPARE_REL(*t.costUsd, *t.hours * e.usdPerHour / 0.7, 1e-12);
    QCOMPARE_REL(e.usdPerHour, 2 * 1.5, 1e-12);
    // samples/s = micro_batch x grad_accum x data-parallel replicas / step time
    QCOMPARE_REL(t.samplesPerS, double(s.training.microBatch) * s.training.gradAccum * 2 / (t.stepMs / 1e3), 1e-12);

    // Vision: dataset_samples drives the time.
    gp::Scenario v = training("resnet18");
    v.training.datasetSamples = 10000;
    v.training.epochs = 1;
    const gp::GpuEstimate ev = gp::estimateOn(v, gpu("nvidia-t4"));
    QCOMPARE_REL(*ev.training->hours, 10000 / ev.training->samplesPerS / 3600, 1e-12);
    QCOMPARE_REL(*ev.training->costUsd, *ev.training->hours * 0.35, 1e-12);

    // No dataset: no time, no cost, and nothing made up.
    const gp::GpuEstimate none = gp::estimateOn(training("llama-3.2-1b"), gpu("nvidia-h100-sxm"));
    QVERIFY(!none.training->hours);
    QVERIFY(!none.training->costUsd);
}

void TestEstimate::otherPricingModels()
{
    gp::Scenario s = inference("llama-3.2-1b");
    s.hardware.count = 4;
    for (const auto& g : gp::Catalog::builtin().gpus()) {
        const QByteArray where = QByteArray::fromStdString(g.id);
        s.pricing.model = gp::PricingModel::Spot;
        const double spot = g.pricePerHour.spot ? *g.pricePerHour.spot : g.pricePerHour.typical;
        QVERIFY2(relNear(gp::estimateOn(s, g).usdPerHour, 4 * spot, 1e-12), where);
        // Reserved: 60% of the typical on-demand price.
        s.pricing.model = gp::PricingModel::Reserved;
        QVERIFY2(relNear(gp::estimateOn(s, g).usdPerHour, 4 * 0.6 * g.pricePerHour.typical, 1e-12), where);
    }
    // Spot training takes longer (restarts after preemption), never shorter.
    gp::Scenario t = training("llama-3.2-1b");
    t.training.datasetTokens = 1e9;
    const gp::GpuEstimate onDemand = gp::estimateOn(t, gpu("nvidia-h100-sxm"));
    t.pricing.model = gp::PricingModel::Spot;
    const gp::GpuEstimate spotRun = gp::estimateOn(t, gpu("nvidia-h100-sxm"));
    QVERIFY(*spotRun.training->hours >= *onDemand.training->hours);
    QCOMPARE_REL(spotRun.training->tokensPerS, onDemand.training->tokensPerS, 1e-12);
    QCOMPARE_REL(*spotRun.training->costUsd, *spotRun.training->hours * spotRun.usdPerHour, 1e-12);

    // A spot request without a spot price says it used on-demand.
    s.pricing.model = gp::PricingModel::Spot;
    const gp::GpuEstimate h200 = gp::estimateOn(s, gpu("nvidia-h200-sxm"));
    QVERIFY(!gpu("nvidia-h200-sxm").pricePerHour.spot);
    QVERIFY2(anyNoteContains(h200, "spot"), notesText(h200));
}

void TestEstimate::purchasePrice()
{
    // Owned H100 SXM: $30,000 over 3 years at 50% utilization, 700 W, PUE 1.3, $0.12/kWh:
    //   capital 30000 / (3 x 8760 x 0.5) = 2.2831 $/h
    //   energy  0.7 kW x 1.3 x 0.12      = 0.1092 $/h
    gp::Scenario s = training("llama-3.2-1b");
    s.pricing.model = gp::PricingModel::Purchase;
    s.pricing.utilization = 0.5;
    s.pricing.amortizationYears = 3;
    s.pricing.pue = 1.3;
    s.pricing.electricityUsdPerKwh = 0.12;
    s.training.datasetTokens = 1e9;
    s.hardware.count = 2;
    const gp::Gpu& g = gpu("nvidia-h100-sxm");
    QCOMPARE(g.purchaseUsd, 30000.0);
    QCOMPARE(g.tdpW, 700.0);
    const double perGpu = 30000.0 / (3 * 8760 * 0.5) + 0.7 * 1.3 * 0.12;
    const gp::GpuEstimate e = gp::estimateOn(s, g);
    QCOMPARE_REL(e.usdPerHour, 2 * perGpu, 1e-12);
    // Capital is already spread over the used hours: no division by utilization.
    QCOMPARE_REL(*e.training->costUsd, *e.training->hours * e.usdPerHour, 1e-12);
    // Hosting (rack, network, staff share) per GPU-year, spread over the used
    // hours too: $2,190 / (8760 x 0.5) = $0.50 per GPU-hour more.
    s.pricing.hostingUsdPerGpuYear = 2190;
    QCOMPARE_REL(gp::estimateOn(s, g).usdPerHour, 2 * (perGpu + 0.5), 1e-12);
    s.pricing.hostingUsdPerGpuYear = 0;

    // No purchase price (TPUs are rent-only): no cost, and a note.
    const gp::GpuEstimate tpu = gp::estimateOn(s, gpu("google-tpu-v5p"));
    QCOMPARE(tpu.usdPerHour, 0.0);
    QVERIFY(!tpu.training->costUsd);
    QVERIFY2(anyNoteContains(tpu, "purchase"), notesText(tpu));
}

void TestEstimate::inferenceThroughputAndCost()
{
    gp::Scenario s = inference("llama-3.1-8b");
    s.runtime = gp::Runtime::Optimized;
    s.inference.batch = 16;
    s.inference.promptTokens = 1000;
    s.inference.outputTokens = 200;
    s.pricing.utilization = 0.8;
    const gp::GpuEstimate e = gp::estimateOn(s, gpu("nvidia-h100-sxm"));
    const auto& i = *e.inference;
    // tokens/s over a full cycle = batch x output / (prefill + output x TPOT).
    const double cycleS = (*i.ttftMs + 200 * *i.tpotMs) / 1e3;
    QCOMPARE_REL(*i.tokensPerS, 16 * 200 / cycleS, 1e-9);
    // $/Mtok = (usd_per_hour / utilization) / (tokens/s x 3600) x 1e6
    QVERIFY(i.usdPerMillionTokens.has_value());
    QCOMPARE_REL(*i.usdPerMillionTokens, e.usdPerHour / 0.8 / (*i.tokensPerS * 3600) * 1e6, 1e-12);

    // Data-parallel replicas multiply throughput; latency stays.
    s.hardware.count = 2;
    const gp::GpuEstimate two = gp::estimateOn(s, gpu("nvidia-h100-sxm"));
    QCOMPARE_REL(*two.inference->tokensPerS, 2 * *i.tokensPerS, 1e-9);
    QCOMPARE_REL(*two.inference->tpotMs, *i.tpotMs, 1e-12);
    QCOMPARE_REL(*two.inference->usdPerMillionTokens, *i.usdPerMillionTokens, 1e-9);
}

void TestEstimate::noPriceNoCost()
{
    const gp::Gpu& g = gpu("amd-mi210");
    QCOMPARE(g.pricePerHour.typical, 0.0);
    gp::Scenario t = training("llama-3.2-1b");
    t.training.datasetTokens = 1e9;
    const gp::GpuEstimate et = gp::estimateOn(t, g);
    QCOMPARE(et.usdPerHour, 0.0);
    QVERIFY(et.training->hours.has_value());
    QVERIFY(!et.training->costUsd.has_value());
    QVERIFY2(anyNoteContains(et, "price"), notesText(et));
    const gp::GpuEstimate ei = gp::estimateOn(inference("llama-3.2-1b"), g);
    QVERIFY(!ei.inference->usdPerMillionTokens.has_value());
}

// ---------------------------------------------------------------------------
// Fallbacks

void TestEstimate::t4HasNoBf16()
{
    const gp::Gpu& t4 = gpu("nvidia-t4");
    QVERIFY(!t4.supports(gp::DType::BF16));
    const gp::GpuEstimate e = gp::estimateOn(training("llama-3.2-1b"), t4);
    QVERIFY2(anyNoteContains(e, "BF16"), notesText(e));
    QCOMPARE(e.computePrecision, std::string("fp16"));
    // The same on a GPU that has BF16: no such note.
    const gp::GpuEstimate l4 = gp::estimateOn(training("llama-3.2-1b"), gpu("nvidia-l4"));
    QVERIFY2(!anyNoteContains(l4, "BF16"), notesText(l4));
    QCOMPARE(l4.computePrecision, std::string("bf16"));
    // Volta neither.
    const gp::GpuEstimate v100 = gp::estimateOn(training("llama-3.2-1b"), gpu("nvidia-v100-sxm2-32gb"));
    QVERIFY2(anyNoteContains(v100, "BF16"), notesText(v100));
}

void TestEstimate::a100HasNoFp8()
{
    gp::Scenario s = training("llama-3.2-1b");
    s.training.precision = gp::TrainPrecision::FP8;
    const gp::GpuEstimate e = gp::estimateOn(s, gpu("nvidia-a100-80gb-sxm"));
    QVERIFY2(anyNoteContains(e, "FP8"), notesText(e));
    QCOMPARE(e.computePrecision, std::string("bf16"));
    // FP8 -> BF16 -> FP16 on a T4, each step reported.
    const gp::GpuEstimate t4 = gp::estimateOn(s, gpu("nvidia-t4"));
    QVERIFY2(anyNoteContains(t4, "FP8") && anyNoteContains(t4, "BF16"), notesText(t4));
    QCOMPARE(t4.computePrecision, std::string("fp16"));
}

void TestEstimate::h100RunsFp8()
{
    gp::Scenario s = training("llama-3.2-1b");
    s.training.precision = gp::TrainPrecision::FP8;
    const gp::GpuEstimate e = gp::estimateOn(s, gpu("nvidia-h100-sxm"));
    QVERIFY2(!anyNoteContains(e, "FP8"), notesText(e));
    QCOMPARE(e.computePrecision, std::string("fp8"));
}

void TestEstimate::inferenceFallbacks()
{
    gp::Scenario s = inference("llama-3.2-1b");
    const gp::GpuEstimate t4 = gp::estimateOn(s, gpu("nvidia-t4"));
    QVERIFY2(anyNoteContains(t4, "BF16"), notesText(t4));
    QCOMPARE(t4.computePrecision, std::string("fp16"));
    s.inference.precision = gp::InferPrecision::FP8;
    const gp::GpuEstimate a100 = gp::estimateOn(s, gpu("nvidia-a100-80gb-sxm"));
    QVERIFY2(anyNoteContains(a100, "FP8"), notesText(a100));
    // FP8 weights are still 1 byte in memory when the matmul dequantizes them.
    const gp::GpuEstimate h100 = gp::estimateOn(s, gpu("nvidia-h100-sxm"));
    QCOMPARE_REL(a100.memory.weights, h100.memory.weights, 1e-12);
    QCOMPARE(h100.computePrecision, std::string("fp8"));
    // Eager generate() says it is host-bound.
    s.runtime = gp::Runtime::Eager;
    const gp::GpuEstimate eager = gp::estimateOn(s, gpu("nvidia-h100-sxm"));
    QVERIFY2(anyNoteContains(eager, "optimized engine") || anyNoteContains(eager, "vLLM"), notesText(eager));
}

// ---------------------------------------------------------------------------
// Monotonic properties

void TestEstimate::activationsGrowWithMicroBatch()
{
    for (const char* id : {"llama-3.2-1b", "gpt2-124m", "mixtral-8x7b", "resnet50", "bert-base"}) {
        gp::Scenario s = training(id);
        s.training.seqLen = 512;
        double previous = 0;
        double previousTotal = 0;
        for (int mb : {1, 2, 4, 8, 16, 64}) {
            s.training.microBatch = mb;
            const gp::GpuEstimate e = gp::estimateOn(s, gpu("nvidia-h100-sxm"));
            QVERIFY2(e.memory.activations > previous, qPrintable(QString("%1 micro_batch %2").arg(id).arg(mb)));
            QVERIFY2(e.memory.total() > previousTotal, qPrintable(QString("%1 micro_batch %2").arg(id).arg(mb)));
            previous = e.memory.activations;
            previousTotal = e.memory.total();
        }
    }
}

void TestEstimate::activationsGrowWithSeqLen()
{
    gp::Scenario s = training("llama-3.2-1b");
    s.training.microBatch = 4;
    double previous = 0;
    for (int seq : {128, 512, 2048, 8192, 32768}) {
        s.training.seqLen = seq;
        const double act = gp::estimateOn(s, gpu("nvidia-h100-sxm")).memory.activations;
        QVERIFY2(act > previous, qPrintable(QString("seq_len %1").arg(seq)));
        previous = act;
    }
}

void TestEstimate::checkpointingSavesMemory()
{
    gp::Scenario s = training("llama-3.2-1b");
    s.training.microBatch = 8;
    s.training.seqLen = 2048;
    auto total = [&](gp::Checkpointing c) {
        s.training.checkpointing = c;
        return gp::estimateOn(s, gpu("nvidia-h100-sxm"));
    };
    const gp::GpuEstimate none = total(gp::Checkpointing::None);
    const gp::GpuEstimate sel = total(gp::Checkpointing::Selective);
    const gp::GpuEstimate full = total(gp::Checkpointing::Full);
    QVERIFY_LESS(sel.memory.activations, none.memory.activations);
    QVERIFY_LESS(full.memory.activations, sel.memory.activations);
    QVERIFY_LESS(full.memory.total(), none.memory.total());
    // Recompute costs time.
    QVERIFY_LESS(none.training->stepMs, full.training->stepMs);
}

void TestEstimate::bandwidthLowersTpot_data()
{
    QTest::addColumn<QString>("slower");
    QTest::addColumn<QString>("faster");
    QTest::addColumn<bool>("optimized");
    // Same tensor peaks, different memory bandwidth.
    QTest::addRow("H100 SXM 3.35 vs H200 SXM 4.8 TB/s") << "nvidia-h100-sxm" << "nvidia-h200-sxm" << true;
    QTest::addRow("H100 SXM vs H200 SXM, eager") << "nvidia-h100-sxm" << "nvidia-h200-sxm" << false;
    QTest::addRow("A100 40GB 1.56 vs A100 80GB SXM 2.04 TB/s") << "nvidia-a100-40gb-sxm" << "nvidia-a100-80gb-sxm"
                                                               << true;
    QTest::addRow("H200 NVL vs H100 NVL (same peaks)") << "nvidia-h100-nvl" << "nvidia-h200-nvl" << true;
}

void TestEstimate::bandwidthLowersTpot()
{
    QFETCH(QString, slower);
    QFETCH(QString, faster);
    QFETCH(bool, optimized);
    const gp::Gpu& a = gpu(qPrintable(slower));
    const gp::Gpu& b = gpu(qPrintable(faster));
    QCOMPARE(a.bf16Tflops, b.bf16Tflops);
    QVERIFY(a.bandwidthGbps < b.bandwidthGbps);
    for (int batch : {1, 8, 32}) {
        gp::Scenario s = inference("llama-3.1-8b");
        s.runtime = optimized ? gp::Runtime::Optimized : gp::Runtime::Eager;
        s.inference.batch = batch;
        const double ta = *gp::estimateOn(s, a).inference->tpotMs;
        const double tb = *gp::estimateOn(s, b).inference->tpotMs;
        QVERIFY2(tb < ta, qPrintable(QString("batch %1: %2 ms vs %3 ms").arg(batch).arg(tb).arg(ta)));
    }
}

void TestEstimate::batchRaisesDecodeThroughput()
{
    gp::Scenario s = inference("llama-3.1-8b");
    s.runtime = gp::Runtime::Optimized;
    double previousTokens = 0;
    double previousTpot = 0;
    for (int batch : {1, 2, 8, 32, 128}) {
        s.inference.batch = batch;
        const gp::GpuEstimate e = gp::estimateOn(s, gpu("nvidia-h100-sxm"));
        QVERIFY2(*e.inference->tokensPerS > previousTokens, qPrintable(QString("batch %1").arg(batch)));
        QVERIFY2(*e.inference->tpotMs >= previousTpot, qPrintable(QString("batch %1").arg(batch)));
        QVERIFY2(e.memory.kvCache > 0, qPrintable(QString("batch %1").arg(batch)));
        previousTokens = *e.inference->tokensPerS;
        previousTpot = *e.inference->tpotMs;
    }
}

void TestEstimate::promptRaisesTtft()
{
    gp::Scenario s = inference("llama-3.1-8b");
    s.runtime = gp::Runtime::Optimized;
    double previous = 0;
    for (int prompt : {64, 512, 4096, 32768}) {
        s.inference.promptTokens = prompt;
        const double ttft = *gp::estimateOn(s, gpu("nvidia-h100-sxm")).inference->ttftMs;
        QVERIFY2(ttft > previous, qPrintable(QString("prompt %1").arg(prompt)));
        previous = ttft;
    }
}

void TestEstimate::fasterGpuTrainsFaster()
{
    gp::Scenario s = training("llama-3.2-1b");
    s.training.microBatch = 8;
    s.training.seqLen = 2048;
    // Each is ahead of the previous in both peak and bandwidth.
    double previous = 0;
    for (const char* id : {"nvidia-t4", "nvidia-a100-80gb-sxm", "nvidia-h100-sxm", "nvidia-b200"}) {
        const double tps = gp::estimateOn(s, gpu(id)).training->tokensPerS;
        QVERIFY2(tps > previous, id);
        previous = tps;
    }
}

void TestEstimate::dataParallelScales()
{
    gp::Scenario s = training("llama-3.2-1b");
    s.training.microBatch = 8;
    s.training.seqLen = 1024;
    const gp::GpuEstimate one = gp::estimateOn(s, gpu("nvidia-h100-sxm"));
    s.hardware.count = 8;
    const gp::GpuEstimate eight = gp::estimateOn(s, gpu("nvidia-h100-sxm"));
    // More replicas: more throughput, never more than linear; steps no faster.
    QVERIFY_LESS(one.training->tokensPerS, eight.training->tokensPerS);
    QVERIFY(eight.training->tokensPerS <= 8 * one.training->tokensPerS * (1 + 1e-12));
    QVERIFY(eight.training->stepMs >= one.training->stepMs * (1 - 1e-12));
    QCOMPARE_REL(eight.usdPerHour, 8 * one.usdPerHour, 1e-12);
}

void TestEstimate::optimizedRuntimeFaster()
{
    gp::Scenario t = training("llama-3.2-1b");
    t.training.microBatch = 4;
    t.training.seqLen = 1024;
    const double eagerStep = gp::estimateOn(t, gpu("nvidia-h100-sxm")).training->stepMs;
    t.runtime = gp::Runtime::Optimized;
    const double optStep = gp::estimateOn(t, gpu("nvidia-h100-sxm")).training->stepMs;
    QVERIFY_LESS(optStep, eagerStep);

    gp::Scenario i = inference("llama-3.1-8b");
    const double eagerTpot = *gp::estimateOn(i, gpu("nvidia-h100-sxm")).inference->tpotMs;
    i.runtime = gp::Runtime::Optimized;
    const double optTpot = *gp::estimateOn(i, gpu("nvidia-h100-sxm")).inference->tpotMs;
    QVERIFY_LESS(optTpot, eagerTpot);
}

// ---------------------------------------------------------------------------

void TestEstimate::targets()
{
    gp::Scenario s = inference("llama-3.2-1b");
    s.runtime = gp::Runtime::Optimized;
    s.inference.targets.ttftMs = 1e6;
    s.inference.targets.tpotMs = 1e6;
    const gp::GpuEstimate ok = gp::estimateOn(s, gpu("nvidia-h100-sxm"));
    QVERIFY(ok.fits);
    QVERIFY(ok.meetsTargets);
    QVERIFY(ok.targetMisses.empty());

    s.inference.targets.ttftMs = 1e-3;
    s.inference.targets.tpotMs = 1e-3;
    s.inference.targets.requestsPerS = 1e9;
    const gp::GpuEstimate miss = gp::estimateOn(s, gpu("nvidia-h100-sxm"));
    QVERIFY(!miss.meetsTargets);
    QCOMPARE(miss.targetMisses.size(), std::size_t(3));
    QVERIFY(miss.targetMisses[0].find("TTFT") != std::string::npos);
    QVERIFY(miss.targetMisses[1].find("TPOT") != std::string::npos);
    QVERIFY(miss.targetMisses[2].find("replicas") != std::string::npos);

    gp::Scenario t = training("llama-3.2-1b");
    t.training.datasetTokens = 1e12;
    t.training.targets.deadlineHours = 1;
    t.training.targets.budgetUsd = 1;
    const gp::GpuEstimate late = gp::estimateOn(t, gpu("nvidia-h100-sxm"));
    QVERIFY(!late.meetsTargets);
    QCOMPARE(late.targetMisses.size(), std::size_t(2));
}

void TestEstimate::uncertaintyWidens()
{
    const gp::Scenario s = training("llama-3.2-1b");
    const gp::GpuEstimate hopper = gp::estimateOn(s, gpu("nvidia-h100-sxm"));
    const gp::GpuEstimate ampere = gp::estimateOn(s, gpu("nvidia-a100-80gb-sxm"));
    const gp::GpuEstimate amd = gp::estimateOn(s, gpu("amd-mi300x"));
    const gp::GpuEstimate tpu = gp::estimateOn(s, gpu("google-tpu-v5p"));
    // Distance from measurement (issue #16): the measured family (Hopper) is
    // tightest; Ampere and CDNA have published rows and get their leave-one-out
    // band; TPU has none and gets the wide band.
    QVERIFY_LESS(hopper.uncertainty.throughput, ampere.uncertainty.throughput);
    QVERIFY_LESS(hopper.uncertainty.throughput, amd.uncertainty.throughput);
    QVERIFY_LESS(ampere.uncertainty.throughput, tpu.uncertainty.throughput);
    QVERIFY_LESS(amd.uncertainty.throughput, tpu.uncertainty.throughput);
    QCOMPARE(tpu.uncertainty.throughput, gp::builtinCalibration().uncertaintyUnmeasuredFamily);
    QVERIFY2(anyNoteContains(amd, "AMD") || anyNoteContains(amd, "ROCm"), notesText(amd));
    QVERIFY2(anyNoteContains(tpu, "TPU"), notesText(tpu));
    // Multi-GPU adds communication uncertainty.
    gp::Scenario m = s;
    m.hardware.count = 8;
    QVERIFY_LESS(hopper.uncertainty.throughput, gp::estimateOn(m, gpu("nvidia-h100-sxm")).uncertainty.throughput);
}

QTEST_APPLESS_MAIN(TestEstimate)
#include "tst_estimate.moc"
