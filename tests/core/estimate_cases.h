#pragma once
// Scenarios and hand-computed figures for the estimate tests (tst_estimate,
// tst_estimatecost): Llama 3.1 8B and ResNet-50 counted by hand, a catalog
// lookup that stops the test on an unknown id, scenario builders, relative
// comparisons, the estimate's notes and a check of its structure.
#include "tests/common/builtingpu.h"
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
#include <QtTest>

inline constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

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
inline constexpr double kLlama8bParams = 8'030'261'248.0;
// KV elements per token: K and V x 32 layers x 8 KV heads x 128 = 65,536.
inline constexpr double kLlama8bKvPerToken = 2.0 * 32 * 8 * 128;

// ResNet-50 (torchvision): 25,557,032 parameters.
inline constexpr double kResnet50Params = 25'557'032.0;

inline gp::Scenario scenario(const std::string& presetId, gp::Mode mode)
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

inline gp::Scenario training(const std::string& presetId) { return scenario(presetId, gp::Mode::Training); }
inline gp::Scenario inference(const std::string& presetId) { return scenario(presetId, gp::Mode::Inference); }

inline bool relNear(double actual, double expected, double tol)
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

inline bool anyNoteContains(const gp::GpuEstimate& e, const std::string& text)
{
    for (const auto& n : e.notes)
        if (n.find(text) != std::string::npos)
            return true;
    return false;
}

inline QByteArray notesText(const gp::GpuEstimate& e)
{
    QByteArray s;
    for (const auto& n : e.notes)
        s += "  note: " + QByteArray::fromStdString(n) + "\n";
    return s;
}

/// Empty when every number of the estimate is finite and non-negative and the
/// structure matches the workload; otherwise what is wrong.
inline std::string checkEstimate(const gp::Scenario& s, const gp::GpuEstimate& e)
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
