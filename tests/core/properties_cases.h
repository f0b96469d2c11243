#pragma once
// The scenario generator of the property tests (tst_properties,
// tst_propertiesspeed): a few hundred valid scenarios drawn with a fixed seed
// (preset or size-only model, training or inference, every format, optimizer,
// checkpointing mode, runtime, pricing model and parallel layout, on random
// catalog GPUs), and the failure list that prints counterexamples as scenario
// JSON (gp::scenarioToJson) with the GPU id.
#include "core/hardware/catalog.h"
#include "core/base/errors.h"
#include "core/estimate/estimate.h"
#include "core/model/model.h"
#include "core/model/presets.h"
#include "core/scenario/scenario.h"
#include "core/base/units.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <vector>
#include <QtTest>

using Rng = std::mt19937;

/// A doubled size-only model may need at most 20% less memory than the smaller
/// one (discrete shape steps, see moreParamsNeverNeedLessMemory).
inline constexpr double kSizeOnlyDip = 0.8;

inline constexpr int kShownFailures = 3; // counterexamples printed per property

/// Scenarios per property: 300 (about a second in all), or GP_PROPERTY_CASES
/// for a deeper run. Every property draws from its own fixed seed.
inline int caseCount()
{
    static const int n = [] {
        bool ok = false;
        const int v = qEnvironmentVariableIntValue("GP_PROPERTY_CASES", &ok);
        return ok && v > 0 ? v : 300;
    }();
    return n;
}

// ---------------------------------------------------------------------------
// Random scenarios

inline int uniformInt(Rng& rng, int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }

inline double uniformReal(Rng& rng, double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); }

/// Log-uniform in [lo, hi]: sizes and lengths span orders of magnitude.
inline double logUniform(Rng& rng, double lo, double hi) { return std::exp(uniformReal(rng, std::log(lo), std::log(hi))); }

inline int logUniformInt(Rng& rng, int lo, int hi)
{
    return std::clamp(static_cast<int>(std::lround(logUniform(rng, lo, hi))), lo, hi);
}

inline bool coin(Rng& rng, double p = 0.5) { return std::bernoulli_distribution(p)(rng); }

template <class T, std::size_t N>
inline T pick(Rng& rng, const std::array<T, N>& choices)
{
    return choices[static_cast<std::size_t>(uniformInt(rng, 0, static_cast<int>(N) - 1))];
}

template <class T>
inline const T& pickFrom(Rng& rng, const std::vector<T>& choices)
{
    return choices[static_cast<std::size_t>(uniformInt(rng, 0, static_cast<int>(choices.size()) - 1))];
}

inline constexpr std::array kTrainPrecisions{gp::TrainPrecision::FP32,    gp::TrainPrecision::TF32, gp::TrainPrecision::AmpBF16,
                                      gp::TrainPrecision::AmpFP16, gp::TrainPrecision::BF16, gp::TrainPrecision::FP8};
inline constexpr std::array kOptimizers{gp::Optimizer::AdamW, gp::Optimizer::SGD, gp::Optimizer::SGDMomentum,
                                 gp::Optimizer::AdamW8bit};
inline constexpr std::array kCheckpointing{gp::Checkpointing::None, gp::Checkpointing::Selective, gp::Checkpointing::Full};
inline constexpr std::array kInferPrecisions{gp::InferPrecision::FP32, gp::InferPrecision::FP16, gp::InferPrecision::BF16,
                                      gp::InferPrecision::FP8,  gp::InferPrecision::INT8, gp::InferPrecision::INT4,
                                      gp::InferPrecision::FP4};
// FP4 is a weight format only.
inline constexpr std::array kKvPrecisions{gp::InferPrecision::FP32, gp::InferPrecision::FP16, gp::InferPrecision::BF16,
                                   gp::InferPrecision::FP8,  gp::InferPrecision::INT8, gp::InferPrecision::INT4};
inline constexpr std::array kPricingModels{gp::PricingModel::OnDemand, gp::PricingModel::Spot, gp::PricingModel::Reserved,
                                    gp::PricingModel::Purchase};
inline const std::vector<std::string> kLoraModules{"q_proj",  "k_proj",  "v_proj",   "o_proj",
                                            "gate_proj", "up_proj", "down_proj"};

/// Longest sequence the model's positions allow (learned positions are parameters).
inline int maxTrainSeq(const gp::ModelArch& m)
{
    if (m.isLanguageModel() && m.positional == gp::Positional::Learned && m.maxPositions > 0)
        return static_cast<int>(std::min<std::int64_t>(m.maxPositions, 1'000'000));
    return 1'000'000;
}

/// Prompt + output limit for generation (only decoders with learned positions have one).
inline int maxContext(const gp::ModelArch& m)
{
    if (m.family == gp::ModelFamily::Decoder && m.positional == gp::Positional::Learned && m.maxPositions > 0)
        return static_cast<int>(std::min<std::int64_t>(m.maxPositions, 1'000'000));
    return 1'000'000;
}

/// Fills the workload, pricing and runtime for s.model (which must be resolved).
inline void randomizeWorkload(Rng& rng, gp::Scenario& s)
{
    const bool lm = s.model.isLanguageModel();
    s.runtime = coin(rng) ? gp::Runtime::Eager : gp::Runtime::Optimized;

    auto& t = s.training;
    t.method = lm ? pick(rng, std::array{gp::TrainMethod::Full, gp::TrainMethod::Lora, gp::TrainMethod::Qlora})
                  : gp::TrainMethod::Full;
    t.loraRank = pick(rng, std::array{4, 8, 16, 32, 64, 128});
    t.loraTargets.clear();
    for (const auto& module : kLoraModules)
        if (coin(rng))
            t.loraTargets.push_back(module);
    if (t.loraTargets.empty())
        t.loraTargets.push_back(pickFrom(rng, kLoraModules));
    t.precision = pick(rng, kTrainPrecisions);
    t.optimizer = pick(rng, kOptimizers);
    t.microBatch = uniformInt(rng, 1, 64);
    t.seqLen = std::min(logUniformInt(rng, 128, 8192), maxTrainSeq(s.model));
    t.imageSize = 32 * uniformInt(rng, 2, 16);
    t.gradAccum = uniformInt(rng, 1, 16);
    t.checkpointing = pick(rng, kCheckpointing);
    t.datasetTokens.reset();
    t.datasetSamples.reset();
    if (coin(rng, 0.7)) {
        if (lm)
            t.datasetTokens = logUniform(rng, 1e6, 1e11);
        else
            t.datasetSamples = logUniform(rng, 1e3, 1e8);
    }
    t.epochs = uniformInt(rng, 1, 3);
    t.targets = {};
    if (coin(rng, 0.3))
        t.targets.deadlineHours = logUniform(rng, 1, 1e4);
    if (coin(rng, 0.3))
        t.targets.budgetUsd = logUniform(rng, 10, 1e7);

    auto& inf = s.inference;
    inf.precision = pick(rng, kInferPrecisions);
    inf.kvPrecision.reset();
    if (coin(rng, 0.3))
        inf.kvPrecision = pick(rng, kKvPrecisions);
    inf.batch = logUniformInt(rng, 1, 256);
    const int context = maxContext(s.model);
    inf.promptTokens = std::min(logUniformInt(rng, 16, 8192), context - 1 - context / 4);
    inf.outputTokens = std::min(logUniformInt(rng, 1, 2048), context - inf.promptTokens);
    inf.imageSize = 32 * uniformInt(rng, 2, 16);
    inf.targets = {};
    if (coin(rng, 0.3))
        inf.targets.ttftMs = logUniform(rng, 10, 1e4);
    if (coin(rng, 0.3))
        inf.targets.tpotMs = logUniform(rng, 1, 1e3);
    if (coin(rng, 0.3))
        inf.targets.requestsPerS = logUniform(rng, 0.1, 1e3);

    s.pricing.model = pick(rng, kPricingModels);
    s.pricing.utilization = uniformReal(rng, 0.3, 1.0);
    s.pricing.amortizationYears = uniformInt(rng, 1, 5);
    s.pricing.hostingUsdPerGpuYear = coin(rng) ? 0 : uniformReal(rng, 0, 5000);
}

/// A valid layout: count = tp x pp x dp <= 64, and tp and pp split the model
/// (issue #20: tp divides the heads and KV heads, pp at most the layers).
inline void randomizeLayout(Rng& rng, gp::Scenario& s)
{
    auto& h = s.hardware;
    do {
        h.tp = pick(rng, std::array{1, 2, 4, 8});
        h.pp = pick(rng, std::array{1, 2, 4});
        h.count = h.tp * h.pp * pick(rng, std::array{1, 2, 4, 8});
    } while (h.count > 64 || !gp::tpProblem(s.model, h.tp).empty() || !gp::ppProblem(s.model, h.pp).empty());
    h.zero = uniformInt(rng, 0, 3);
    h.networkGbps = pick(rng, std::array{100.0, 400.0, 3200.0});
}

inline const gp::Gpu& randomGpu(Rng& rng)
{
    return pickFrom(rng, gp::Catalog::builtin().gpus());
}

inline void setPreset(gp::Scenario& s, const std::string& id)
{
    s.modelSpec = {};
    s.modelSpec.form = gp::ModelSpec::Form::Preset;
    s.modelSpec.presetId = id;
    s.model = gp::resolveModel(s.modelSpec);
}

inline void setParams(gp::Scenario& s, double params, gp::ModelFamily family, const gp::MoeSpec& moe)
{
    s.modelSpec = {};
    s.modelSpec.form = gp::ModelSpec::Form::Params;
    s.modelSpec.params = params;
    s.modelSpec.family = family;
    s.modelSpec.moe = moe;
    s.model = gp::resolveModel(s.modelSpec);
}

struct Case {
    gp::Scenario s;
    const gp::Gpu* gpu = nullptr;
};

/// Any preset (language and vision), any mode, workload, layout and GPU.
inline Case randomCase(Rng& rng)
{
    Case c;
    c.s.name = "property";
    setPreset(c.s, pickFrom(rng, gp::modelPresets()).id);
    c.s.mode = coin(rng) ? gp::Mode::Training : gp::Mode::Inference;
    randomizeWorkload(rng, c.s);
    randomizeLayout(rng, c.s);
    c.gpu = &randomGpu(rng);
    c.s.hardware.gpus = {c.gpu->id};
    return c;
}

// ---------------------------------------------------------------------------
// Reporting

inline QString describe(const gp::Scenario& s, const gp::Gpu& gpu)
{
    return QStringLiteral("on %1 (estimateOn with the catalog entry):\n%2")
        .arg(QString::fromStdString(gpu.id), QString::fromStdString(gp::scenarioToJson(s)));
}

/// Collects counterexamples; prints the first few and fails the test at the end.
class Failures {
public:
    void add(const QString& what, const gp::Scenario& s, const gp::Gpu& gpu)
    {
        ++m_count;
        if (m_count <= kShownFailures)
            qWarning().noquote() << "counterexample" << m_count << ":" << what << describe(s, gpu);
        if (m_first.isEmpty())
            m_first = what;
    }
    int count() const { return m_count; }
    QByteArray summary(int cases) const
    {
        return QStringLiteral("%1 of %2 cases violate the property; first: %3").arg(m_count).arg(cases).arg(m_first).toUtf8();
    }

private:
    int m_count = 0;
    QString m_first;
};

#define VERIFY_NO_FAILURES(failures, cases) QVERIFY2((failures).count() == 0, (failures).summary(cases).constData())

inline QString num(double v) { return QString::number(v, 'g', 17); }

inline double total(const gp::GpuEstimate& e) { return e.memory.total(); }

/// "12 x 768, ffn 3072, vocab 50257" (the shape a size-only model resolved to).
inline QString shape(const gp::ModelArch& m)
{
    if (!m.isLanguageModel())
        return QStringLiteral("vision");
    QString s = QStringLiteral("%1 x %2, ffn %3, vocab %4%5")
                    .arg(m.layers)
                    .arg(m.hidden)
                    .arg(m.ffnHidden)
                    .arg(m.vocab)
                    .arg(m.tiedEmbeddings ? QStringLiteral(" tied") : QString());
    if (m.moe.enabled())
        s += QStringLiteral(", %1 experts of %2").arg(m.moe.experts).arg(m.moe.expertFfnHidden);
    return s;
}

/// First number in the estimate that is NaN, infinite or negative (or an MFU
/// above 1), if any.
inline std::optional<QString> badNumber(const gp::GpuEstimate& e)
{
    std::optional<QString> bad;
    auto check = [&](const char* name, double v) {
        if (!bad && (!std::isfinite(v) || v < 0))
            bad = QStringLiteral("%1 = %2").arg(QLatin1String(name), num(v));
    };
    auto checkOpt = [&](const char* name, const std::optional<double>& v) {
        if (v)
            check(name, *v);
    };
    check("capacityBytes", e.capacityBytes);
    check("memory.weights", e.memory.weights);
    check("memory.gradients", e.memory.gradients);
    check("memory.optimizer", e.memory.optimizer);
    check("memory.activations", e.memory.activations);
    check("memory.kvCache", e.memory.kvCache);
    check("memory.overhead", e.memory.overhead);
    check("memory.total", e.memory.total());
    check("usdPerHour", e.usdPerHour);
    check("uncertainty.memory", e.uncertainty.memory);
    check("uncertainty.throughput", e.uncertainty.throughput);
    if (e.training) {
        const auto& t = *e.training;
        check("training.tokensPerS", t.tokensPerS);
        check("training.samplesPerS", t.samplesPerS);
        check("training.stepMs", t.stepMs);
        check("training.mfu", t.mfu);
        if (!bad && t.mfu > 1)
            bad = QStringLiteral("training.mfu = %1 (more than the peak)").arg(num(t.mfu));
        checkOpt("training.hours", t.hours);
        checkOpt("training.costUsd", t.costUsd);
    }
    if (e.inference) {
        const auto& i = *e.inference;
        checkOpt("inference.ttftMs", i.ttftMs);
        checkOpt("inference.tpotMs", i.tpotMs);
        checkOpt("inference.tokensPerS", i.tokensPerS);
        checkOpt("inference.usdPerMillionTokens", i.usdPerMillionTokens);
        checkOpt("inference.samplesPerS", i.samplesPerS);
        checkOpt("inference.latencyMs", i.latencyMs);
    }
    for (const auto& term : e.terms)
        if (!bad && !std::isfinite(term.value))
            bad = QStringLiteral("term %1 = %2").arg(QString::fromStdString(term.key), num(term.value));
    return bad;
}

/// a >= b, allowing for rounding in the last bits.
inline bool notLess(double a, double b) { return a >= b - 1e-12 * std::abs(b); }
/// a <= b, allowing for rounding in the last bits.
inline bool notMore(double a, double b) { return a <= b + 1e-12 * std::abs(b); }

/// Differences between two estimates' numbers (empty when identical).
inline QString numberDifferences(const gp::GpuEstimate& a, const gp::GpuEstimate& b)
{
    QStringList diffs;
    auto cmp = [&](const char* name, double x, double y) {
        if (!(x == y))
            diffs << QStringLiteral("%1: %2 vs %3").arg(QLatin1String(name), num(x), num(y));
    };
    auto cmpOpt = [&](const char* name, const std::optional<double>& x, const std::optional<double>& y) {
        if (x.has_value() != y.has_value())
            diffs << QStringLiteral("%1: present in one only").arg(QLatin1String(name));
        else if (x)
            cmp(name, *x, *y);
    };
    cmp("count", a.count, b.count);
    cmp("fits", a.fits, b.fits);
    cmp("capacityBytes", a.capacityBytes, b.capacityBytes);
    cmp("memory.weights", a.memory.weights, b.memory.weights);
    cmp("memory.gradients", a.memory.gradients, b.memory.gradients);
    cmp("memory.optimizer", a.memory.optimizer, b.memory.optimizer);
    cmp("memory.activations", a.memory.activations, b.memory.activations);
    cmp("memory.kvCache", a.memory.kvCache, b.memory.kvCache);
    cmp("memory.overhead", a.memory.overhead, b.memory.overhead);
    cmp("usdPerHour", a.usdPerHour, b.usdPerHour);
    cmp("uncertainty.memory", a.uncertainty.memory, b.uncertainty.memory);
    cmp("uncertainty.throughput", a.uncertainty.throughput, b.uncertainty.throughput);
    cmp("meetsTargets", a.meetsTargets, b.meetsTargets);
    if (a.targetMisses != b.targetMisses)
        diffs << QStringLiteral("targetMisses differ");
    if (a.computePrecision != b.computePrecision)
        diffs << QStringLiteral("computePrecision differs");
    if (a.training.has_value() != b.training.has_value()) {
        diffs << QStringLiteral("training result present in one only");
    } else if (a.training) {
        const auto& x = *a.training;
        const auto& y = *b.training;
        cmp("training.tokensPerS", x.tokensPerS, y.tokensPerS);
        cmp("training.samplesPerS", x.samplesPerS, y.samplesPerS);
        cmp("training.stepMs", x.stepMs, y.stepMs);
        cmp("training.mfu", x.mfu, y.mfu);
        cmpOpt("training.hours", x.hours, y.hours);
        cmpOpt("training.costUsd", x.costUsd, y.costUsd);
    }
    if (a.inference.has_value() != b.inference.has_value()) {
        diffs << QStringLiteral("inference result present in one only");
    } else if (a.inference) {
        const auto& x = *a.inference;
        const auto& y = *b.inference;
        cmpOpt("inference.ttftMs", x.ttftMs, y.ttftMs);
        cmpOpt("inference.tpotMs", x.tpotMs, y.tpotMs);
        cmpOpt("inference.tokensPerS", x.tokensPerS, y.tokensPerS);
        cmpOpt("inference.usdPerMillionTokens", x.usdPerMillionTokens, y.usdPerMillionTokens);
        cmpOpt("inference.samplesPerS", x.samplesPerS, y.samplesPerS);
        cmpOpt("inference.latencyMs", x.latencyMs, y.latencyMs);
    }
    return diffs.join(QStringLiteral("; "));
}

inline const gp::Term* findTerm(const gp::GpuEstimate& e, const std::string& key)
{
    const auto it = std::find_if(e.terms.begin(), e.terms.end(), [&](const gp::Term& t) { return t.key == key; });
    return it == e.terms.end() ? nullptr : &*it;
}

/// Preset families whose members grow in every dimension that costs memory
/// (layers, width, FFN, KV heads x head dim, vocabulary), smallest first.
/// (Llama 2 70B is not after 13B: its GQA cache is smaller than 13B's MHA one.)
inline const std::vector<std::vector<std::string>> kPresetChains = {
    {"llama-3.2-1b", "llama-3.2-3b", "llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b"},
    {"llama-2-7b", "llama-2-13b"},
    {"qwen2.5-7b", "qwen2.5-72b"},
    {"gpt2-124m", "gpt2-355m"},
    {"resnet18", "resnet50"},
};
