// Size-only models (core/model/sizeonly.cpp): the sizes people type map to the real
// shapes of that size, and the shape, the parameter count and every estimate
// grow with the size, step by step (issue #11 part 4).
#include <QtTest>

#include "core/hardware/catalog.h"
#include "core/estimate/estimate.h"
#include "core/model/model.h"
#include "core/model/presets.h"
#include "core/scenario/scenario.h"
#include "core/model/sizeonly.h"

#include <cmath>
#include <functional>
#include <optional>
#include <string>
#include <vector>

using gp::ModelArch;
using gp::ModelFamily;

namespace {

/// "40 x 5120, 40 heads (8 KV), ffn 14848, vocab 128256 untied, 12.95B".
QString describe(const ModelArch& m)
{
    QString s = QStringLiteral("%1 x %2, %3 heads (%4 KV), ffn %5, vocab %6 %7, %8B")
                    .arg(m.layers)
                    .arg(m.hidden)
                    .arg(m.heads)
                    .arg(m.kvHeads)
                    .arg(m.ffnHidden)
                    .arg(m.vocab)
                    .arg(m.tiedEmbeddings ? QStringLiteral("tied") : QStringLiteral("untied"))
                    .arg(m.totalParams() / 1e9, 0, 'f', 4);
    if (m.moe.enabled())
        s += QStringLiteral(", %1 experts of %2").arg(m.moe.experts).arg(m.moe.expertFfnHidden);
    return s;
}

gp::MoeSpec moeOf(int experts, int active)
{
    gp::MoeSpec m;
    m.experts = experts;
    m.active = active;
    return m;
}

/// The sizes of the property test: 0.1B to 2T in 1% steps (996 sizes).
std::vector<double> sweep()
{
    std::vector<double> sizes;
    for (double n = 1e8; n <= 2e12; n *= 1.01)
        sizes.push_back(n);
    return sizes;
}

/// The documented tolerance of the total (README, "Size-only models"): the
/// steps of the rounded dimensions (hidden in 128s, whole layers) are a larger
/// share of a small model, and an MoE's dense base is a fraction of its size.
double tolerance(double params, ModelFamily family, bool moe)
{
    if (moe)
        return params < 1e9 ? 0.15 : params < 1e10 ? 0.08 : 0.035;
    if (family == ModelFamily::Encoder)
        return params < 1e9 ? 0.08 : 0.03;
    return params < 1e9 ? 0.08 : params < 1e10 ? 0.045 : 0.03;
}

/// Every dimension of `b` is at least that of `a` (an untied model is "more"
/// than a tied one: it adds the LM head).
bool grows(const ModelArch& a, const ModelArch& b)
{
    return b.layers >= a.layers && b.hidden >= a.hidden && b.heads >= a.heads && b.kvHeads >= a.kvHeads
        && b.ffnHidden >= a.ffnHidden && b.vocab >= a.vocab && b.moe.expertFfnHidden >= a.moe.expertFfnHidden
        && (a.tiedEmbeddings || !b.tiedEmbeddings);
}

gp::Scenario sizedScenario(double params, ModelFamily family, const gp::MoeSpec& moe)
{
    gp::Scenario s;
    s.name = "size-only";
    s.modelSpec.form = gp::ModelSpec::Form::Params;
    s.modelSpec.params = params;
    s.modelSpec.family = family;
    s.modelSpec.moe = moe;
    s.model = gp::resolveModel(s.modelSpec);
    s.hardware.gpus = {"nvidia-h100-sxm"};
    return s;
}

struct Metric {
    const char* name;
    std::function<double(const gp::GpuEstimate&)> value;
};

struct Workload {
    const char* name;
    std::function<void(gp::Scenario&)> apply;
    std::vector<Metric> metrics;
};

} // namespace

class TestSizeOnly : public QObject {
    Q_OBJECT

private slots:
    void realSizesGetRealShapes_data();
    void realSizesGetRealShapes();
    void llama3SizesAreTheRealModels();
    void encoderAndMoeSizes();
    void noteNamesTheRule();
    void shapeAndTotalGrowWithSize_data();
    void shapeAndTotalGrowWithSize();
    void estimatesGrowWithSize_data();
    void estimatesGrowWithSize();
};

void TestSizeOnly::realSizesGetRealShapes_data()
{
    QTest::addColumn<double>("params");
    QTest::addColumn<int>("layers");
    QTest::addColumn<int>("hidden");
    QTest::addColumn<int>("heads");
    QTest::addColumn<int>("kvHeads");
    // Layers x hidden of the real model of that size; heads of 128 and the
    // KV heads of the family (Qwen2.5 0.5B: 2 KV heads of 64, the same KV width
    // as 1 of 128 here).
    QTest::addRow("124M: GPT-2 small") << 124e6 << 12 << 768 << 6 << 1;
    QTest::addRow("0.5B: Qwen2.5 0.5B") << 0.5e9 << 24 << 896 << 7 << 1;
    QTest::addRow("3B: Llama 3.2 3B") << 3e9 << 28 << 3072 << 24 << 8;
    QTest::addRow("7B: Llama 2 7B, Mistral 7B") << 7e9 << 32 << 4096 << 32 << 8;
    QTest::addRow("7.24B: Mistral 7B") << 7.24e9 << 32 << 4096 << 32 << 8;
    QTest::addRow("8B: Llama 3.1 8B") << 8e9 << 32 << 4096 << 32 << 8;
    QTest::addRow("13B: Llama 2 13B") << 13e9 << 40 << 5120 << 40 << 8;
    QTest::addRow("32B: Qwen2.5 32B") << 32e9 << 64 << 5120 << 40 << 8;
    QTest::addRow("70B: Llama 2/3.1 70B") << 70e9 << 80 << 8192 << 64 << 8;
    QTest::addRow("72B: Qwen2.5 72B") << 72e9 << 80 << 8192 << 64 << 8;
    QTest::addRow("405B: Llama 3.1 405B") << 405e9 << 126 << 16384 << 128 << 8;
}

void TestSizeOnly::realSizesGetRealShapes()
{
    QFETCH(double, params);
    QFETCH(int, layers);
    QFETCH(int, hidden);
    QFETCH(int, heads);
    QFETCH(int, kvHeads);
    const ModelArch m = gp::modelFromParams(params, ModelFamily::Decoder, {});
    const QString got = describe(m);
    QVERIFY2(m.layers == layers && m.hidden == hidden, qPrintable(got));
    QVERIFY2(m.heads == heads && m.kvHeads == kvHeads, qPrintable(got));
    QCOMPARE(m.headDim, 128);
    QVERIFY2(std::abs(m.totalParams() / params - 1) <= 0.02, qPrintable(got));
}

void TestSizeOnly::llama3SizesAreTheRealModels()
{
    // At their own sizes the path passes through Llama 3.1 8B, 70B and 405B
    // exactly: every dimension and so every estimate is the preset's.
    for (const char* id : {"llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b"}) {
        const ModelArch& real = *gp::findPreset(id);
        const ModelArch m = gp::modelFromParams(real.totalParams(), ModelFamily::Decoder, {});
        QCOMPARE(m.layers, real.layers);
        QCOMPARE(m.hidden, real.hidden);
        QCOMPARE(m.heads, real.heads);
        QCOMPARE(m.kvHeads, real.kvHeads);
        QCOMPARE(m.headDim, real.headDim);
        QCOMPARE(m.ffnHidden, real.ffnHidden);
        QCOMPARE(m.vocab, real.vocab);
        QCOMPARE(m.tiedEmbeddings, real.tiedEmbeddings);
        QCOMPARE(m.totalParams(), real.totalParams());
    }
    // 8,030,261,248 (Llama 3.1 8B) from "8B".
    QCOMPARE(gp::modelFromParams(8e9, ModelFamily::Decoder, {}).totalParams(), 8030261248.0);
    // "3B": Llama 3.2 3B's 28 x 3072 with FFN 7424 (its 8192 would be 3.21B):
    // 128256 x 3072 (394,002,432) + 28 x (2 x 3072 x 3072 + 2 x 3072 x 1024
    // + 3 x 3072 x 7424 + 2 x 3072 = 93,591,552) + 3072 = 3,014,568,960.
    const ModelArch three = gp::modelFromParams(3e9, ModelFamily::Decoder, {});
    QCOMPARE(three.ffnHidden, std::int64_t(7424));
    QVERIFY(three.tiedEmbeddings);
    QCOMPARE(three.totalParams(), 3014568960.0);
}

void TestSizeOnly::encoderAndMoeSizes()
{
    // BERT-base and BERT-large at their sizes.
    const ModelArch base = gp::modelFromParams(110e6, ModelFamily::Encoder, {});
    QCOMPARE(base.layers, 12);
    QCOMPARE(base.hidden, 768);
    QCOMPARE(base.heads, 12);
    QCOMPARE(base.ffnHidden, std::int64_t(3072));
    QCOMPARE(base.vocab, std::int64_t(30522));
    const ModelArch large = gp::modelFromParams(340e6, ModelFamily::Encoder, {});
    QCOMPARE(large.layers, 24);
    QCOMPARE(large.hidden, 1024);
    QCOMPARE(large.heads, 16);
    QCOMPARE(large.ffnHidden, std::int64_t(4096));
    // Mixtral 8x7B's size with 8 experts, 2 active: Mistral 7B's 32 x 4096 base.
    const ModelArch mix = gp::modelFromParams(46.7e9, ModelFamily::Decoder, moeOf(8, 2));
    QCOMPARE(mix.layers, 32);
    QCOMPARE(mix.hidden, 4096);
    QCOMPARE(mix.kvHeads, 8);
    QVERIFY2(std::abs(mix.totalParams() / 46.7e9 - 1) <= 0.03, qPrintable(describe(mix)));
}

void TestSizeOnly::noteNamesTheRule()
{
    const std::string note = gp::modelFromParams(13e9, ModelFamily::Decoder, {}).shapeNote;
    QVERIFY2(note.find("40 layers x 5120 hidden (40 heads of 128, 8 KV heads), SwiGLU FFN width 14848")
                 != std::string::npos,
             note.c_str());
    QVERIFY2(note.find("the shape of Llama 2 13B") != std::string::npos, note.c_str());
    QVERIFY2(note.find("so no dimension shrinks as the size grows") != std::string::npos, note.c_str());
    const std::string between = gp::modelFromParams(20e9, ModelFamily::Decoder, {}).shapeNote;
    QVERIFY2(between.find("between Llama 2 13B") != std::string::npos, between.c_str());
    QVERIFY2(between.find("and Qwen2.5 32B") != std::string::npos, between.c_str());
    const std::string beyond = gp::modelFromParams(1e12, ModelFamily::Decoder, {}).shapeNote;
    QVERIFY2(beyond.find("beyond Llama 3.1 405B, extrapolated") != std::string::npos, beyond.c_str());
}

void TestSizeOnly::shapeAndTotalGrowWithSize_data()
{
    QTest::addColumn<int>("family");
    QTest::addColumn<int>("experts");
    QTest::addColumn<int>("active");
    QTest::addRow("decoder") << int(ModelFamily::Decoder) << 0 << 0;
    QTest::addRow("encoder") << int(ModelFamily::Encoder) << 0 << 0;
    QTest::addRow("moe 8x2") << int(ModelFamily::Decoder) << 8 << 2;
    QTest::addRow("moe 64x4") << int(ModelFamily::Decoder) << 64 << 4;
}

void TestSizeOnly::shapeAndTotalGrowWithSize()
{
    QFETCH(int, family);
    QFETCH(int, experts);
    QFETCH(int, active);
    const auto fam = static_cast<ModelFamily>(family);
    const gp::MoeSpec moe = experts > 0 ? moeOf(experts, active) : gp::MoeSpec{};
    std::optional<ModelArch> prev;
    double prevSize = 0;
    for (const double n : sweep()) {
        const ModelArch m = gp::modelFromParams(n, fam, moe);
        const double err = m.totalParams() / n - 1;
        const double tol = tolerance(n, fam, experts > 0);
        if (std::abs(err) > tol)
            QFAIL(qPrintable(QStringLiteral("%1: %2 (%3%, tolerance %4%)")
                                 .arg(n, 0, 'g', 5)
                                 .arg(describe(m))
                                 .arg(100 * err, 0, 'f', 2)
                                 .arg(100 * tol)));
        if (prev && !(grows(*prev, m) && m.totalParams() >= prev->totalParams()))
            QFAIL(qPrintable(QStringLiteral("%1: %2, then %3: %4")
                                 .arg(prevSize, 0, 'g', 5)
                                 .arg(describe(*prev))
                                 .arg(n, 0, 'g', 5)
                                 .arg(describe(m))));
        prev = m;
        prevSize = n;
    }
}

void TestSizeOnly::estimatesGrowWithSize_data()
{
    QTest::addColumn<int>("family");
    QTest::addColumn<int>("experts");
    QTest::addColumn<int>("active");
    QTest::addRow("decoder") << int(ModelFamily::Decoder) << 0 << 0;
    QTest::addRow("moe 8x2") << int(ModelFamily::Decoder) << 8 << 2;
}

/// On one GPU (an H100 SXM; the memory need not fit), training (full, AMP
/// bf16, AdamW, micro-batch 1, 2048 tokens) and inference (bf16, batch 1,
/// 1024 + 256 tokens), eager and optimized: the peak memory and every time
/// (step, 1 / tokens per s, TTFT, TPOT) never decrease from one size to the
/// next, 1% larger.
void TestSizeOnly::estimatesGrowWithSize()
{
    QFETCH(int, family);
    QFETCH(int, experts);
    QFETCH(int, active);
    const auto fam = static_cast<ModelFamily>(family);
    const gp::MoeSpec moe = experts > 0 ? moeOf(experts, active) : gp::MoeSpec{};
    const gp::Gpu& gpu = *gp::Catalog::builtin().find("nvidia-h100-sxm");
    auto memory = [](const gp::GpuEstimate& e) { return e.memory.total(); };
    const std::vector<Workload> workloads = {
        {"training",
         [](gp::Scenario& s) {
             s.mode = gp::Mode::Training;
             s.training.method = gp::TrainMethod::Full;
             s.training.precision = gp::TrainPrecision::AmpBF16;
             s.training.optimizer = gp::Optimizer::AdamW;
             s.training.microBatch = 1;
             s.training.seqLen = 2048;
         },
         {{"memory", memory},
          {"step time", [](const gp::GpuEstimate& e) { return e.training->stepMs; }},
          {"1 / tokens per s", [](const gp::GpuEstimate& e) { return 1 / e.training->tokensPerS; }}}},
        {"inference",
         [](gp::Scenario& s) {
             s.mode = gp::Mode::Inference;
             s.inference.precision = gp::InferPrecision::BF16;
             s.inference.batch = 1;
             s.inference.promptTokens = 1024;
             s.inference.outputTokens = 256;
         },
         {{"memory", memory},
          {"TTFT", [](const gp::GpuEstimate& e) { return *e.inference->ttftMs; }},
          {"TPOT", [](const gp::GpuEstimate& e) { return *e.inference->tpotMs; }},
          {"1 / tokens per s", [](const gp::GpuEstimate& e) { return 1 / *e.inference->tokensPerS; }}}},
    };
    int checked = 0;
    for (const auto& w : workloads) {
        for (const gp::Runtime runtime : {gp::Runtime::Eager, gp::Runtime::Optimized}) {
            std::optional<gp::GpuEstimate> prev;
            double prevSize = 0;
            ModelArch prevModel;
            for (const double n : sweep()) {
                gp::Scenario s = sizedScenario(n, fam, moe);
                s.runtime = runtime;
                w.apply(s);
                const gp::GpuEstimate e = gp::estimateOn(s, gpu, gp::EstimateOptions{false});
                if (prev) {
                    for (const auto& metric : w.metrics) {
                        const double a = metric.value(*prev);
                        const double b = metric.value(e);
                        ++checked;
                        if (!(b >= a))
                            QFAIL(qPrintable(
                                QStringLiteral("%1, %2, %3: %4 (%5) gives %6, %7 (%8) only %9")
                                    .arg(QLatin1String(w.name),
                                         runtime == gp::Runtime::Eager ? QStringLiteral("eager")
                                                                       : QStringLiteral("optimized"),
                                         QLatin1String(metric.name), QString::number(prevSize, 'g', 5),
                                         describe(prevModel), QString::number(a, 'g', 8),
                                         QString::number(n, 'g', 5), describe(s.model), QString::number(b, 'g', 8))));
                    }
                }
                prev = e;
                prevSize = n;
                prevModel = s.model;
            }
        }
    }
    QVERIFY(checked > 10000);
}

QTEST_APPLESS_MAIN(TestSizeOnly)
#include "tst_sizeonly.moc"
