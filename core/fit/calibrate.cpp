// The calibration fit; the procedure is documented in calibrate.h, the
// leave-one-out cross-validation is in crossvalidate.cpp.
#include "core/fit/calibrate.h"

#include "core/fit/fitproblem.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace gp {

using namespace detail::fitting;

bool FittedConstant::atBound() const
{
    const double span = max - min;
    return value <= min + 1e-3 * span || value >= max - 1e-3 * span;
}

namespace {

/// uncertainty_unmeasured_family: how far the Hopper-fitted constants land on
/// another architecture's datasheet when nothing of that family is fitted. Every
/// scored throughput row of a GPU outside Hopper is predicted with the fit's
/// constants and every family scale at 1 (the Hopper values, scaled by nothing)
/// and no family power term (family_*_clock_power_w 0); the band is the RMS of
/// those ln(predicted/measured), pooled over the families and kinds (at least 3
/// rows; otherwise the start's value is kept).
void setUnmeasuredBand(const ValidationSet& set, CalibrationFit& fit)
{
    const char* id = "uncertainty_unmeasured_family";
    Calibration atOne = fit.calibration;
    auto endsWith = [](const std::string& s, std::string_view tail) {
        return s.size() > tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
    };
    for (const CalibrationEntry& e : fit.calibration.entries)
        if (e.id.rfind("family_", 0) == 0 && endsWith(e.id, "_scale"))
            atOne.set(e.id, 1.0);
        else if (e.id.rfind("family_", 0) == 0 && endsWith(e.id, "_clock_power_w"))
            atOne.set(e.id, 0.0);
    EstimateOptions o{false};
    o.calibration = &atOne;
    std::vector<Rows> out(set.cases.size());
    parallelFor(set.cases.size(), [&](std::size_t j) {
        if (set.cases[j].archFamily != archFamilyId(ArchFamily::Hopper))
            set.cases[j].predict(o, out[j]);
    });
    Rows rows;
    std::set<std::string> families;
    for (std::size_t j = 0; j < out.size(); ++j)
        for (const auto& r : out[j])
            if (isScoredMetric(r.metric) && bandKindOf(r.metric, set.cases[j]) != BandKind::Memory && r.predicted > 0 &&
                r.measured > 0) {
                rows.push_back(r);
                families.insert(set.cases[j].archFamily);
            }
    int n = 0;
    const double rms = rmsLog(rows, [](const ValidationRow&) { return true; }, &n);
    const CalibrationEntry& e = *fit.calibration.find(id);
    if (n < 3) {
        fit.uncertaintyNotes.push_back(std::string(id) + ": kept (" + std::to_string(n) +
                                       " scored throughput rows outside Hopper, fewer than 3)");
        return;
    }
    fit.calibration.set(id, std::clamp(roundTo(rms, 3), e.min, e.max));
    fit.uncertaintyNotes.push_back(std::string(id) + ": RMS of ln(predicted/measured) of the " + std::to_string(n) +
                                   " scored throughput rows of " + std::to_string(families.size()) +
                                   " architecture families other than Hopper, predicted with every family scale at 1 "
                                   "(the Hopper-fitted constants on their datasheets)");
}

} // namespace

CalibrationFit fitCalibration(const ValidationSet& set, const Calibration& start, const CalibrateOptions& options)
{
    Problem p(set, start, -1);
    CalibrationFit fit;
    fit.sources = set.sources;
    fit.objectiveStart = p.total();
    std::vector<std::string> ids;
    for (const auto* e : fittedEntries(start))
        ids.push_back(e->id);
    std::size_t scoredRecords = 0;
    for (std::size_t i = 0; i < set.cases.size(); ++i)
        scoredRecords += p.scored(i) ? 1 : 0;
    // Many records: stop early, below the rounding of the result (calibrate.h).
    const bool large = scoredRecords > std::size_t(std::max(0, options.exactLooRecords));
    const double tolerance = large ? std::max(options.tolerance, options.largeSetTolerance) : options.tolerance;
    if (large)
        p.m_precision = 1e-5; // 0.001% in value: far below the 4-significant-digit rounding
    double objective = p.total();
    std::vector<std::vector<std::size_t>> influence(ids.size());
    for (fit.sweeps = 0; fit.sweeps < options.maxSweeps;) {
        fit.sweeps++;
        if (large && fit.sweeps > 1) {
            // ... and once a sweep gains less than that share of the objective.
            const double now = p.total();
            if (objective - now < options.largeSetTolerance * objective)
                break;
            objective = now;
        }
        std::vector<double> before;
        std::vector<double> values;
        for (const auto& id : ids) {
            values.push_back(p.cal.find(id)->value);
            before.push_back(std::log(std::max(values.back(), Problem::lowerBound(*p.cal.find(id)))));
        }
        double change = 0;
        for (std::size_t k = 0; k < ids.size(); ++k) {
            const std::string& id = ids[k];
            const CalibrationEntry e = *p.cal.find(id);
            // Which records a constant moves is a matter of the model's structure:
            // with many records it is found once, not at every sweep (2 N predictions each).
            if (!large || fit.sweeps == 1)
                influence[k] = p.influenced(e);
            const auto& cases = influence[k];
            if (cases.empty())
                continue;
            const double x = p.fitOne(e, cases);
            change = std::max(change, std::fabs(x / e.value - 1));
        }
        if (change < tolerance)
            break;
        p.patternMove(ids, before);
        for (std::size_t k = 0; k < ids.size(); ++k)
            change = std::max(change, std::fabs(p.cal.find(ids[k])->value / values[k] - 1));
    }
    if (options.round)
        for (const auto& id : ids) {
            const CalibrationEntry& e = *p.cal.find(id);
            p.cal.set(id, std::clamp(roundTo(e.value, 4), e.min, e.max));
        }
    // Statistics with the final values.
    Problem done(set, p.cal, -1);
    fit.objectiveEnd = done.total();
    const ValidationReport rep = done.report(); // = predictSet(set, &p.cal)
    for (std::size_t i = 0; i < set.cases.size(); ++i)
        fit.records += done.scored(i) ? 1 : 0;
    for (const auto& r : rep.rows)
        fit.rows += isScoredMetric(r.metric) ? 1 : 0;
    std::vector<std::vector<std::size_t>> finalInfluence; // per id, at the final values (the cross-validation reuses them)
    for (const auto& id : ids) {
        const CalibrationEntry& e = *done.cal.find(id);
        finalInfluence.push_back(done.influenced(e, true));
        const auto& cases = finalInfluence.back();
        const std::set<int> in(cases.begin(), cases.end());
        int n = 0;
        const double rms = rmsLog(
            rep.rows, [&](const ValidationRow& r) { return in.count(r.caseIndex) && isScoredMetric(r.metric); }, &n);
        fit.fitted.push_back({id, start.find(id)->value, e.value, e.min, e.max, int(cases.size()), n, rms});
    }
    fit.calibration = done.cal;
    // Leave-one-out bands need records to leave out: at least as many distinct
    // records (one run measured twice is one) as constants the fit moved, else
    // each refit just re-fits the record's twin and the band says ~0%.
    int moved = 0;
    for (const auto& f : fit.fitted)
        moved += f.records > 0 ? 1 : 0;
    if (options.leaveOneOut && !options.setBands) {
        fit.cross = crossValidateFrom(set, fit.calibration, options, done, finalInfluence, rep);
        return fit;
    }
    const int distinct = distinctScoredRecords(rep);
    if (options.leaveOneOut && distinct < moved) {
        for (const char* id : {"uncertainty_memory", "uncertainty_throughput_training", "uncertainty_throughput_inference",
                               "uncertainty_throughput_vision"})
            fit.uncertaintyNotes.push_back(std::string(id) + ": kept (leave-one-out needs at least " +
                                           std::to_string(moved) + " distinct records, one per fitted constant; got " +
                                           std::to_string(distinct) + ")");
    } else if (options.leaveOneOut) {
        // = crossValidate(set, fit.calibration, options): `done` is the Problem at
        // those values, with every constant's records and the in-sample rows.
        fit.cross = crossValidateFrom(set, fit.calibration, options, done, finalInfluence, rep);
        struct Group {
            const char* id;
            std::vector<std::string> metrics;
        };
        const Group groups[] = {{"uncertainty_memory", {"memory_total_gib"}},
                                {"uncertainty_throughput_training", {"train_tokens_per_s"}},
                                {"uncertainty_throughput_inference", {"decode_ms", "prefill_ms"}},
                                {"uncertainty_throughput_vision", {"vision_images_per_s"}}};
        for (const auto& g : groups) {
            int n = 0;
            const double rms = rmsLog(
                fit.cross.leaveOneOut.rows,
                [&](const ValidationRow& r) {
                    return std::find(g.metrics.begin(), g.metrics.end(), r.metric) != g.metrics.end();
                },
                &n);
            const CalibrationEntry& e = *fit.calibration.find(g.id);
            if (n == 0) {
                fit.uncertaintyNotes.push_back(std::string(g.id) + ": kept (no rows)");
                continue;
            }
            fit.calibration.set(g.id, std::clamp(roundTo(rms, 3), e.min, e.max));
            std::string metrics;
            for (const auto& m : g.metrics)
                metrics += (metrics.empty() ? "" : " + ") + m;
            fit.uncertaintyNotes.push_back(std::string(g.id) + ": RMS of the leave-one-out ln(predicted/measured) of the " +
                                           std::to_string(n) + " " + metrics + " rows");
        }
        // Each family's band per kind (training, inference, memory): the
        // leave-one-out residuals of its own rows of that kind (at least 3;
        // otherwise 0: throughput takes uncertainty_unmeasured_family, memory
        // uncertainty_memory widened for another architecture).
        for (ArchFamily f : kScaledFamilies)
            for (BandKind k : {BandKind::Training, BandKind::Inference, BandKind::Memory}) {
                const std::string id = std::string("uncertainty_family_") + archFamilyId(f) + "_" + bandKindId(k);
                int n = 0;
                const double rms = rmsLog(
                    fit.cross.leaveOneOut.rows,
                    [&](const ValidationRow& r) {
                        const ValidationCase& c = set.cases[std::size_t(r.caseIndex)];
                        return isScoredMetric(r.metric) && c.archFamily == archFamilyId(f) &&
                               bandKindOf(r.metric, c) == k;
                    },
                    &n);
                const CalibrationEntry& e = *fit.calibration.find(id);
                const std::string rows = std::to_string(n) + " scored " + bandKindId(k) + " rows";
                if (n < 3) {
                    fit.calibration.set(id, 0.0);
                    fit.uncertaintyNotes.push_back(id + ": 0, " + rows + " (fewer than 3): " +
                                                   (k == BandKind::Memory
                                                        ? "uncertainty_memory widened for another architecture applies"
                                                        : "uncertainty_unmeasured_family applies"));
                    continue;
                }
                fit.calibration.set(id, std::clamp(roundTo(rms, 3), e.min, e.max));
                fit.uncertaintyNotes.push_back(id + ": RMS of the leave-one-out ln(predicted/measured) of the " + rows +
                                               " of " + archFamilyLabel(f) + " GPUs");
            }
        setUnmeasuredBand(set, fit);
    }
    return fit;
}

} // namespace gp
