// Confidence of one estimate (see confidence.h for the model).
#include "core/estimate/confidence.h"

#include "core/calibration/calibration.h"
#include "core/estimate/sizing.h"
#include "core/scenario/scenario.h"

#include <algorithm>
#include <cstdio>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace gp {

double normalCdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

double normalQuantile(double p)
{
    if (!(p > 0))
        return -std::numeric_limits<double>::infinity();
    if (!(p < 1))
        return std::numeric_limits<double>::infinity();
    // Bisection on the CDF: 80 halvings of [-40, 40] reach double precision.
    double lo = -40, hi = 40;
    for (int i = 0; i < 80; ++i) {
        const double mid = 0.5 * (lo + hi);
        (normalCdf(mid) < p ? lo : hi) = mid;
    }
    return 0.5 * (lo + hi);
}

double probabilityAtMost(double value, double limit, double sigma)
{
    if (!(value > 0))
        return 1; // nothing to exceed
    if (!(limit > 0))
        return 0;
    if (!(sigma > 0))
        return value <= limit ? 1 : 0;
    return normalCdf(std::log(limit / value) / sigma);
}

double quantileFactor(double sigma, double p)
{
    if (!(sigma > 0))
        return 1;
    const double z = normalQuantile(std::clamp(p, 1e-9, 1 - 1e-9));
    return std::exp(sigma * z);
}

void fillConfidence(const Scenario& s, GpuEstimate& e)
{
    const double sm = e.uncertainty.memory;
    const double st = e.uncertainty.throughput;
    e.confidence.fits = probabilityAtMost(e.memory.total(), e.capacityBytes, sm);
    double meets = 1;
    double latency = 1;
    auto need = [&](const std::optional<double>& value, const std::optional<double>& target, bool isLatency) {
        if (!value || !target)
            return;
        const double p = probabilityAtMost(*value, *target, st);
        meets = std::min(meets, p);
        if (isLatency)
            latency = std::min(latency, p);
    };
    if (e.training && s.mode == Mode::Training) {
        const auto& t = *e.training;
        need(t.hours, s.training.targets.deadlineHours, true);
        need(t.costUsd, s.training.targets.budgetUsd, false); // cost grows with the time
    }
    if (e.inference && s.mode == Mode::Inference) {
        const auto& r = *e.inference;
        const auto& tg = s.inference.targets;
        need(r.ttftMs ? r.ttftMs : r.latencyMs, tg.ttftMs, true);
        need(r.tpotMs, tg.tpotMs, true);
        need(r.ttftP99Ms, tg.ttftP99Ms, true);
        if (tg.requestsPerS) {
            // The rate served falls as the times grow: P(rate >= target) = P(time <= time x rate / target).
            double served = 0;
            if (r.tokensPerS)
                served = *r.tokensPerS / std::max(1, s.inference.outputTokens);
            else if (r.samplesPerS)
                served = *r.samplesPerS;
            if (served > 0)
                meets = std::min(meets, probabilityAtMost(1.0, served / *tg.requestsPerS, st));
            else
                meets = 0;
        }
    }
    e.confidence.meetsTargets = meets;
    e.confidence.latency = latency;
}

namespace {

std::string percent(double sigma)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f", sigma * 100);
    return std::string("+-") + buf + "%";
}

/// Whether calibrate fitted the family's GEMM scale of a format (gemm8 for
/// fp8 / fp4 / int8, gemm16 otherwise) on the family's rows: a scale it left at
/// its start says so in fitted_on ("calibrate: not fitted ..."). A table
/// without the entry (a hand-written calibration) counts as fitted.
bool familyFormatFitted(const Calibration& c, ArchFamily fam, bool eightBit)
{
    const std::string id = std::string("family_") + archFamilyId(fam) + (eightBit ? "_gemm8_scale" : "_gemm16_scale");
    for (const CalibrationEntry& e : c.entries)
        if (e.id == id)
            return e.kind != "fitted" || (e.fittedOn.rfind("calibrate: not fitted", 0) != 0 &&
                                          e.fittedOn.find("rows yet") == std::string::npos);
    return true;
}

const char* kindWord(const Uncertainty& u)
{
    if (u.family == ArchFamily::Hopper && u.vision)
        return "vision";
    return u.kind == BandKind::Training ? "training" : "inference";
}

/// ", widened for 8 GPUs, QLoRA and MoE" for the bits set (memory: the shape, GPUs, MoE).
std::string widenedText(unsigned bits, bool throughput)
{
    std::vector<std::string> parts;
    if (bits & kWidenedApproximate)
        parts.push_back("a model shape guessed from its size");
    if (bits & kWidenedMultiGpu)
        parts.push_back("several GPUs");
    if (throughput && (bits & kWidenedQlora))
        parts.push_back("QLoRA");
    if (bits & kWidenedMoe)
        parts.push_back("MoE");
    if (throughput && (bits & kWidenedOptimizedTraining))
        parts.push_back("an optimized training stack");
    std::string out;
    for (std::size_t i = 0; i < parts.size(); ++i)
        out += (i == 0 ? ", widened for " : i + 1 == parts.size() ? " and " : ", ") + parts[i];
    return out;
}

} // namespace

std::string bandOrigin(const Uncertainty& u, bool throughput)
{
    const std::string family = archFamilyLabel(u.family);
    const BandSource source = throughput ? u.throughputSource : u.memorySource;
    std::string out;
    switch (source) {
    case BandSource::Measured:
        out = throughput ? std::string("the leave-one-out band of the Hopper ") + kindWord(u) + " runs the project measured"
                         : std::string("the leave-one-out band of the Hopper runs the project measured");
        break;
    case BandSource::Published:
        out = std::string("the leave-one-out band of the published ") + (throughput ? kindWord(u) : "memory") +
              " rows of " + family;
        break;
    case BandSource::Unmeasured:
        if (throughput && u.formatUnfitted)
            out = "fewer than 3 published training rows in this format (16-bit or fp8) for " + family;
        else
            out = std::string("fewer than 3 published ") + (throughput ? kindWord(u) : "memory") + " rows for " + family +
                  (throughput ? "" : ": the measured Hopper band, widened for another architecture");
        break;
    }
    return out + widenedText(u.widened, throughput);
}

std::string bandSummary(const Uncertainty& u)
{
    return "speed " + percent(u.throughput) + " (" + bandOrigin(u, true) + "); memory " + percent(u.memory) + " (" +
           bandOrigin(u, false) + ")";
}

std::string unmeasuredBandNote(const Uncertainty& u, const Calibration& c)
{
    if (u.throughputSource != BandSource::Unmeasured)
        return std::string();
    const FamilyConstants& f = c.families[std::size_t(u.family)];
    const BandKind other = u.kind == BandKind::Training ? BandKind::Inference : BandKind::Training;
    const std::string family = archFamilyLabel(u.family);
    const std::string kind = kindWord(u);
    if (u.formatUnfitted)
        return "Fewer than 3 published training results for " + family +
               " GPUs run in this format (16-bit or fp8): the family's training band comes from its rows in the other "
               "format, and this format's speed applies the Hopper-fitted efficiency to the datasheet, so the "
               "throughput band is the wide one (" +
               percent(c.uncertaintyUnmeasuredFamily) +
               " at 1 sigma, uncertainty_unmeasured_family: how far the Hopper-fitted efficiencies land on the other "
               "families' published rows with nothing of the family fitted).";
    std::string why = "Fewer than 3 published " + kind + " results for " + family + " GPUs, too few for a band of their own: ";
    why += f.band(other) > 0 ? std::string("its speed scales are fitted on its published rows, mostly ") + bandKindId(other) +
                                   ", "
                             : std::string("the speed applies the Hopper-fitted efficiencies to this datasheet, ");
    return why + "so the throughput band is the wide one (" + percent(c.uncertaintyUnmeasuredFamily) +
           " at 1 sigma, uncertainty_unmeasured_family: how far the Hopper-fitted efficiencies land on the other "
           "families' published rows with nothing of the family fitted).";
}

namespace detail {

Uncertainty uncertaintyFor(const Plan& p)
{
    // 1-sigma relative errors: the RMS of the leave-one-out log residuals of the
    // calibration runs (set by `calibrate`, core/fit/calibrate.h), widened for what
    // the calibration did not cover.
    const Calibration& c = *p.cal;
    Uncertainty u;
    u.family = p.arch;
    u.kind = p.training ? BandKind::Training : BandKind::Inference;
    u.vision = !p.m->isLanguageModel();
    double mem = c.uncertaintyMemory;
    double thr = p.training ? c.uncertaintyThroughputTraining : c.uncertaintyThroughputInference;
    if (u.vision)
        thr = c.uncertaintyThroughputVision;
    auto widen = [](double base, double extra) { return std::sqrt(base * base + extra * extra); };
    // By distance from measurement, per kind: the family the project measured
    // (Hopper) keeps its leave-one-out bands; a family with published rows of
    // the workload's kind (training, or serving/inference) gets their
    // leave-one-out residuals; one without, the wide band
    // uncertainty_unmeasured_family (the estimate's notes say so). Memory: the
    // family's published memory rows, else the measured band widened.
    if (p.arch != ArchFamily::Hopper) {
        const double published = p.family->band(u.kind);
        u.throughputSource = published > 0 ? BandSource::Published : BandSource::Unmeasured;
        thr = published > 0 ? published : c.uncertaintyUnmeasuredFamily;
        // A training band from rows of one format does not cover the other: a
        // job whose GEMM scale (gemm16 or gemm8) calibrate left unfitted for the
        // family (fewer than 3 of its training rows in that format: CDNA's are
        // FP8 but one) runs on an extrapolated speed and takes the wide band.
        if (p.training && published > 0 && !familyFormatFitted(c, p.arch, isEightBitCompute(p.compute))) {
            u.throughputSource = BandSource::Unmeasured;
            u.formatUnfitted = true;
            thr = std::max(published, c.uncertaintyUnmeasuredFamily);
        }
        const double memory = p.family->band(BandKind::Memory);
        u.memorySource = memory > 0 ? BandSource::Published : BandSource::Unmeasured;
        mem = memory > 0 ? memory
                         : widen(mem, p.nvidia ? c.uncertaintyWidenMemoryOtherNvidia : c.uncertaintyWidenMemoryNonNvidia);
    }
    if (p.m->approximate) {
        thr = widen(thr, c.uncertaintyWidenThroughputApproximate);
        mem = widen(mem, c.uncertaintyWidenMemoryApproximate);
        u.widened |= kWidenedApproximate;
    }
    if (p.count > 1) {
        thr = widen(thr, c.uncertaintyWidenThroughputMultiGpu);
        mem = widen(mem, c.uncertaintyWidenMemoryMultiGpu);
        u.widened |= kWidenedMultiGpu;
    }
    if (p.training && p.s->training.method == TrainMethod::Qlora) {
        thr = widen(thr, c.uncertaintyWidenThroughputQlora);
        u.widened |= kWidenedQlora;
    }
    if (p.m->moe.enabled()) {
        thr = widen(thr, c.uncertaintyWidenThroughputMoe);
        mem = widen(mem, c.uncertaintyWidenMemoryMoe);
        u.widened |= kWidenedMoe;
    }
    if (p.optimized && p.training) {
        thr = widen(thr, c.uncertaintyWidenThroughputOptimizedTraining);
        u.widened |= kWidenedOptimizedTraining;
    }
    u.memory = mem;
    u.throughput = thr;
    return u;
}

} // namespace detail

} // namespace gp
