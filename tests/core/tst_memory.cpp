// Memory terms counted from the tensors alive at the peak, computed by hand: the
// whole-batch prefill transient of the `optimized` runtime, the allocator's
// reserve beyond it, no_grad vision inference and the ViT-B/16 training peak.
#include <QtTest>

#include "core/calibration/calibration.h"
#include "core/hardware/catalog.h"
#include "core/estimate/estimate.h"
#include "core/model/model.h"
#include "core/scenario/scenario.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

const gp::Gpu& h100()
{
    const gp::Gpu* g = gp::Catalog::builtin().find("nvidia-h100-sxm");
    if (!g)
        qFatal("catalog lacks nvidia-h100-sxm");
    return *g;
}

gp::Scenario preset(const std::string& id, gp::Mode mode, gp::Runtime runtime)
{
    gp::Scenario s;
    s.name = id;
    s.modelSpec.form = gp::ModelSpec::Form::Preset;
    s.modelSpec.presetId = id;
    s.model = gp::resolveModel(s.modelSpec);
    s.mode = mode;
    s.runtime = runtime;
    s.hardware.gpus = {"nvidia-h100-sxm"};
    s.inference.precision = gp::InferPrecision::BF16;
    s.training.precision = gp::TrainPrecision::AmpBF16;
    s.training.optimizer = gp::Optimizer::SGDMomentum;
    return s;
}

bool relNear(double actual, double expected, double tol)
{
    return actual == expected || std::abs(actual - expected) <= tol * std::max(std::abs(actual), std::abs(expected));
}

#define QCOMPARE_REL(actual, expected, tol)                                                                           \
    do {                                                                                                              \
        const double a_ = (actual);                                                                                   \
        const double e_ = (expected);                                                                                 \
        QVERIFY2(relNear(a_, e_, (tol)), QByteArray(#actual) + " = " + QByteArray::number(a_, 'g', 15)                \
                                             + ", expected " + QByteArray::number(e_, 'g', 15));                    \
    } while (false)

// Llama 3 8B / Mistral 7B layer (h 4096, 32 heads and 8 KV heads of 128, SwiGLU
// 14336), live at the MLP product of a bf16 prefill, in elements per token:
//   layer input, residual after attention, normed MLP input   3 x 4096 = 12288
//   fused QKV output (4096 + 2 x 1024) + attention output 4096       = 10240
//   gate/up output 2 x 14336 + SiLU 14336 + product 14336            = 57344
//   total 79872 elements x 2 B = 159744 B per token
constexpr double kLlama8bPrefillBytesPerToken = 159744;

} // namespace

class TestMemory : public QObject {
    Q_OBJECT
private slots:
    void prefillWholeBatch();
    void prefillTensorParallel();
    void prefillOverhead();
    void visionInference();
    void vitTraining();
};

void TestMemory::prefillWholeBatch()
{
    // Mistral 7B, batch 4 x 16384 prompt tokens in one pass: 65536 tokens.
    //   65536 x 159744 = 10,468,982,784 B
    //   logits of the last position only: 4 x 32000 x (2 B product + 4 B fp32 copy) = 768,000 B
    gp::Scenario s = preset("mistral-7b", gp::Mode::Inference, gp::Runtime::Optimized);
    s.inference.batch = 4;
    s.inference.promptTokens = 16384;
    s.inference.outputTokens = 1;
    const gp::GpuEstimate e = gp::estimateOn(s, h100());
    QCOMPARE(e.memory.activations, 10'468'982'784.0 + 768'000.0);
    // KV cache: 4 x 16385 x 65536 elements x 2 B = 8,590,458,880 B (8192.5 MiB, as measured).
    QCOMPARE(e.memory.kvCache, 8'590'458'880.0);

    // No chunking: 256 x 4096 = 1,048,576 tokens are all live at once.
    s.inference.batch = 256;
    s.inference.promptTokens = 4096;
    const gp::GpuEstimate big = gp::estimateOn(s, h100());
    QCOMPARE(big.memory.activations, 1'048'576.0 * kLlama8bPrefillBytesPerToken + 256.0 * 32000 * 6);

    // Llama 3.1 8B, batch 128 x 512: 65536 x 159744 + 128 x 128256 x 6 = 10,567,483,392 B.
    gp::Scenario l = preset("llama-3.1-8b", gp::Mode::Inference, gp::Runtime::Optimized);
    l.inference.batch = 128;
    l.inference.promptTokens = 512;
    l.inference.outputTokens = 1;
    QCOMPARE(gp::estimateOn(l, h100()).memory.activations, 10'567'483'392.0);
}

void TestMemory::prefillTensorParallel()
{
    // TP 2: the 3 h full-width tensors stay whole on each rank, the rest halves:
    //   2 B x (12288 + (10240 + 57344) / 2) = 92160 B per token; 4 x 1024 tokens
    //   + last-token logits split over the head: 4 x 32000 x 6 / 2.
    gp::Scenario s = preset("mistral-7b", gp::Mode::Inference, gp::Runtime::Optimized);
    s.inference.batch = 4;
    s.inference.promptTokens = 1024;
    s.inference.outputTokens = 1;
    s.hardware.count = 2;
    s.hardware.tp = 2;
    QCOMPARE(gp::estimateOn(s, h100()).memory.activations, 4096.0 * 92160 + 4.0 * 32000 * 6 / 2);
}

void TestMemory::prefillOverhead()
{
    // Runtime overhead = CUDA context 620 MiB + workspaces 64 MiB + allocator
    // reserve: 2% of weights, 6% of the KV cache, allocator_slack_transient (fitted) of the prefill transient.
    gp::Scenario s = preset("mistral-7b", gp::Mode::Inference, gp::Runtime::Optimized);
    s.inference.batch = 4;
    s.inference.promptTokens = 16384;
    s.inference.outputTokens = 1;
    const gp::GpuEstimate e = gp::estimateOn(s, h100());
    const double expected = (620 + 64) * kMiB + 0.02 * e.memory.weights + 0.06 * e.memory.kvCache +
                            gp::builtinCalibration().allocatorSlackTransient * e.memory.activations;
    QCOMPARE_REL(e.memory.overhead, expected, 1e-12);
}

void TestMemory::visionInference()
{
    // ResNet-50 bf16, batch 256, no_grad: the first downsampling bottleneck keeps
    // 2.76M elements per image = 5.5e6 B; 256 x 5.5e6 = 1.408e9 B.
    gp::Scenario s = preset("resnet50", gp::Mode::Inference, gp::Runtime::Eager);
    s.inference.batch = 256;
    const gp::GpuEstimate e = gp::estimateOn(s, h100());
    QCOMPARE_REL(e.memory.activations, 1.408e9, 1e-12);
    // Overhead: context 620 MiB + cuDNN workspaces buffers_infer_vision_mib (fitted)
    // + 2% of the 2 x 25,557,032 B of weights + allocator_slack_transient (fitted)
    // of the transient.
    const gp::Calibration& c = gp::builtinCalibration();
    QCOMPARE_REL(e.memory.overhead,
                 (620 + c.buffersInferVisionMib) * kMiB + 0.02 * 2 * 25'557'032 + c.allocatorSlackTransient * 1.408e9, 1e-12);
    // fp32 doubles the live tensors.
    s.inference.precision = gp::InferPrecision::FP32;
    QCOMPARE_REL(gp::estimateOn(s, h100()).memory.activations, 2 * 1.408e9, 1e-12);
}

void TestMemory::vitTraining()
{
    // ViT-B/16 (86,567,656 params), AMP bf16, SGD with momentum, batch 64.
    // Per patch token and layer: fp32 LayerNorm inputs 8h, bf16 casts for the
    // in-projection and fc1 4h, flash SDPA q/k/v and output 8h, out-projection
    // input 2h, GELU input and output 16h = 38h = 29184 B; x 197 tokens x 12
    // layers = 68.99e6 B, + image, patch cast and final norm = 70.5e6 B per image.
    constexpr double params = 86'567'656;
    gp::Scenario s = preset("vit-b-16", gp::Mode::Training, gp::Runtime::Eager);
    s.training.microBatch = 64;
    const gp::GpuEstimate e = gp::estimateOn(s, h100());
    QCOMPARE_REL(e.memory.activations, 64 * 70.5e6, 1e-12);
    QCOMPARE_REL(e.memory.weights, 6 * params, 1e-12);   // fp32 masters + bf16 autocast copies
    QCOMPARE_REL(e.memory.optimizer, 4 * params, 1e-12); // momentum
    // The peak is the start of backward: the fp32 gradients (4 x 86.6M = 346 MB)
    // are allocated as the 4.5 GB of activations are freed.
    QCOMPARE(e.memory.gradients, 0.0);
    // Batch 1: 70.5 MB of activations < 346 MB of gradients: the end of backward
    // wins, with only the fp32 input image alive (3 x 224 x 224 x 4 = 602,112 B).
    s.training.microBatch = 1;
    const gp::GpuEstimate one = gp::estimateOn(s, h100());
    QCOMPARE_REL(one.memory.gradients, 4 * params, 1e-12);
    QCOMPARE(one.memory.activations, 602'112.0);
}

QTEST_GUILESS_MAIN(TestMemory)
#include "tst_memory.moc"
