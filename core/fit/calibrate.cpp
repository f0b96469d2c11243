// The calibration fit and its leave-one-out cross-validation; the procedure is
// documented in calibrate.h.
#include "core/fit/calibrate.h"

#include "core/estimate/estimate.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <exception>
#include <set>
#include <thread>

namespace gp {

namespace {

using Rows = std::vector<ValidationRow>;

constexpr double kMissingRowLoss = 1e3; // a scored row the calibration makes unpredictable
constexpr double kGolden = 0.6180339887498949;

bool isUncertainty(const std::string& id) { return id.rfind("uncertainty_", 0) == 0; }

/// Calls f(0) .. f(n-1), on two threads when n is large enough to pay for one.
/// Each index is computed by exactly one thread and callers combine the
/// results in index order afterwards, so the outcome never depends on the
/// threads (deterministic, byte for byte).
template <class F>
void parallelFor(std::size_t n, const F& f)
{
    static const unsigned kThreads = std::min(2u, std::max(1u, std::thread::hardware_concurrency()));
    if (kThreads < 2 || n < 64) {
        for (std::size_t i = 0; i < n; ++i)
            f(i);
        return;
    }
    const std::size_t half = n / 2;
    std::exception_ptr failed;
    std::thread other([&] {
        try {
            for (std::size_t i = half; i < n; ++i)
                f(i);
        } catch (...) {
            failed = std::current_exception();
        }
    });
    std::exception_ptr mine;
    try {
        for (std::size_t i = 0; i < half; ++i)
            f(i);
    } catch (...) {
        mine = std::current_exception();
    }
    other.join();
    if (mine)
        std::rethrow_exception(mine);
    if (failed)
        std::rethrow_exception(failed);
}

/// The family a "family_<id>_..." constant belongs to (the longest id that
/// prefixes it: blackwell_gb2 before blackwell); "" for a base constant.
std::string familyOfConstant(const std::string& id)
{
    std::string best;
    for (ArchFamily f : kScaledFamilies) {
        const std::string prefix = std::string("family_") + archFamilyId(f) + "_";
        if (id.rfind(prefix, 0) == 0 && prefix.size() > best.size() + 8)
            best = archFamilyId(f);
    }
    return best;
}

/// The records a constant is fitted on: a family's constants on that family's
/// records only; the base constants (the Hopper values) on the Hopper records
/// of the measured dirs (not those of --family-dir, which stay held out). When
/// the measured dirs hold no Hopper record (a user calibrating to their own
/// runs on another GPU), the base constants are fitted on all of them.
bool fitsOn(const std::string& constantFamily, const ValidationCase& c, bool baseOnAll)
{
    if (!constantFamily.empty())
        return c.archFamily == constantFamily;
    return !c.familyOnly && (baseOnAll || c.archFamily == archFamilyId(ArchFamily::Hopper));
}

/// Metrics whose band is the throughput band.
bool isThroughputMetric(const std::string& m)
{
    return m != "memory_total_gib" && m.find("memory") == std::string::npos && m.find("reserved") == std::string::npos;
}

/// The current predictions of a set of records with one calibration, and the
/// weighted log loss of each record.
class Problem {
public:
    Problem(const ValidationSet& set, const Calibration& start, int exclude)
        : cal(start), m_set(set), m_exclude(exclude)
    {
        // A run measured on the user's own stack (not a published row) fits the
        // base constants whatever its GPU: that is what calibrating to your
        // runs means. Published rows of another family fit only its scales.
        m_ownRun.assign(set.cases.size(), false);
        m_baseOnAll = std::none_of(set.cases.begin(), set.cases.end(), [](const ValidationCase& c) {
            return !c.familyOnly && c.archFamily == archFamilyId(ArchFamily::Hopper);
        });
        m_rows.resize(set.cases.size());
        m_expected.assign(set.cases.size(), 0);
        parallelFor(set.cases.size(), [&](std::size_t i) {
            if (int(i) != exclude)
                m_rows[i] = predict(i);
        });
        for (std::size_t i = 0; i < set.cases.size(); ++i) {
            if (int(i) == exclude)
                continue;
            m_ownRun[i] = std::none_of(m_rows[i].begin(), m_rows[i].end(),
                                       [](const auto& r) { return r.metric.rfind("published_", 0) == 0; });
            for (const auto& r : m_rows[i])
                if (isScoredMetric(r.metric)) {
                    m_expected[i]++;
                    m_count[r.metric]++;
                }
        }
        m_loss.resize(set.cases.size());
        for (std::size_t i = 0; i < set.cases.size(); ++i)
            m_loss[i] = int(i) == exclude ? 0 : lossOf(i, m_rows[i]);
    }

    Calibration cal;

    Rows predict(std::size_t i) const
    {
        EstimateOptions o{false};
        o.calibration = &cal;
        Rows rows;
        m_set.cases[i].predict(o, rows);
        return rows;
    }
    double lossOf(std::size_t i, const Rows& rows) const
    {
        double loss = 0;
        int scored = 0;
        for (const auto& r : rows) {
            if (!isScoredMetric(r.metric))
                continue;
            scored++;
            const double w = 1.0 / m_count.at(r.metric);
            if (!(r.predicted > 0)) {
                loss += w * kMissingRowLoss;
                continue;
            }
            const double e = std::log(r.predicted / r.measured);
            loss += w * e * e;
        }
        return loss + kMissingRowLoss * std::max(0, m_expected[i] - scored);
    }
    /// The loss of each of `cases` predicted with `cal` now (in parallel, in order).
    std::vector<double> lossesOf(const std::vector<std::size_t>& cases) const
    {
        std::vector<double> out(cases.size());
        parallelFor(cases.size(), [&](std::size_t k) { out[k] = lossOf(cases[k], predict(cases[k])); });
        return out;
    }
    double loss(std::size_t i) const { return m_loss[i]; }
    bool scored(std::size_t i) const { return m_expected[i] > 0; }
    bool active(std::size_t i) const { return int(i) != m_exclude && scored(i); }
    double total() const
    {
        double t = 0;
        for (double l : m_loss)
            t += l;
        return t;
    }
    /// The active records whose loss moves when `id` is scaled by 1.5 either way.
    std::vector<std::size_t> influenced(const CalibrationEntry e)
    {
        const double x0 = e.value;
        const std::string family = familyOfConstant(e.id);
        std::vector<std::size_t> out;
        std::vector<std::size_t> all;
        for (std::size_t i = 0; i < m_rows.size(); ++i)
            if (active(i))
                all.push_back(i);
        for (double f : {1.5, 1 / 1.5}) {
            const double x = std::clamp(x0 == 0 ? lowerBound(e) * f : x0 * f, lowerBound(e), e.max);
            cal.set(e.id, x);
            // Refresh the candidates at the current value first: a constant fitted on
            // other records (another family, the Hopper base) may have moved them
            // since they were last predicted. Then predict them at the nudged value.
            std::vector<std::size_t> cand;
            for (std::size_t i : all)
                if (fitsOn(family, m_set.cases[i], m_baseOnAll || m_ownRun[i]))
                    cand.push_back(i);
            if (f > 1) {
                cal.set(e.id, x0);
                parallelFor(cand.size(), [&](std::size_t k) {
                    m_rows[cand[k]] = predict(cand[k]);
                    m_loss[cand[k]] = lossOf(cand[k], m_rows[cand[k]]);
                });
                cal.set(e.id, x);
            }
            std::vector<Rows> moved(cand.size());
            parallelFor(cand.size(), [&](std::size_t k) { moved[k] = predict(cand[k]); });
            for (std::size_t k = 0; k < cand.size(); ++k) {
                const std::size_t i = cand[k];
                // A family scale counts only where it measurably moves a scored
                // prediction (0.01% for the x1.5 nudge): a rate a family's rows
                // barely touch (16-bit work in FP8 serving) would otherwise drift
                // on rounding noise and carry an arbitrary value to other formats.
                if (family.empty() ? lossOf(i, moved[k]) != m_loss[i] : movesMeasurably(moved[k], m_rows[i]))
                    out.push_back(i);
            }
        }
        cal.set(e.id, x0);
        std::sort(out.begin(), out.end());
        out.erase(std::unique(out.begin(), out.end()), out.end());
        return out;
    }
    static bool movesMeasurably(const Rows& now, const Rows& before)
    {
        if (now.size() != before.size())
            return true;
        for (std::size_t k = 0; k < now.size(); ++k)
            if (isScoredMetric(now[k].metric) &&
                (!(now[k].predicted > 0) || !(before[k].predicted > 0) ||
                 std::fabs(std::log(now[k].predicted / before[k].predicted)) > 1e-4))
                return true;
        return false;
    }
    /// Fits one constant on `cases` (coordinate search in log space); returns its new value.
    double fitOne(const CalibrationEntry e, const std::vector<std::size_t>& cases)
    {
        const double x0 = std::max(e.value, lowerBound(e));
        auto f = [&](double u) {
            cal.set(e.id, std::exp(u));
            double loss = 0;
            for (double l : lossesOf(cases)) // summed in case order, as before the threads
                loss += l;
            return loss;
        };
        double f0 = 0;
        for (std::size_t i : cases)
            f0 += m_loss[i];
        const double u0 = std::log(x0);
        const double best = minimize(f, std::log(lowerBound(e)), std::log(e.max), u0, f0);
        const double x = best == u0 ? e.value : std::exp(best);
        cal.set(e.id, x);
        parallelFor(cases.size(), [&](std::size_t k) {
            m_rows[cases[k]] = predict(cases[k]);
            m_loss[cases[k]] = lossOf(cases[k], m_rows[cases[k]]);
        });
        return x;
    }
    static double lowerBound(const CalibrationEntry& e) { return e.min > 0 ? e.min : e.max * 1e-6; }

    /// Pattern move after a sweep: a line search along (after - before) in log
    /// space (each constant clamped to its bounds), over every record. It speeds
    /// coordinate descent up along the valleys that coupled constants make.
    void patternMove(const std::vector<std::string>& ids, const std::vector<double>& before)
    {
        std::vector<double> after;
        for (const auto& id : ids)
            after.push_back(std::log(std::max(cal.find(id)->value, lowerBound(*cal.find(id)))));
        auto place = [&](double t) {
            for (std::size_t k = 0; k < ids.size(); ++k) {
                // Only the base constants move together, judged on the records they
                // are fitted on: a joint step over every family would let one
                // family's rows move the Hopper base.
                if (!familyOfConstant(ids[k]).empty())
                    continue;
                const CalibrationEntry& e = *cal.find(ids[k]);
                const double u = after[k] + (t - 1) * (after[k] - before[k]);
                cal.set(ids[k], std::clamp(std::exp(u), lowerBound(e), e.max));
            }
        };
        std::vector<std::size_t> all;
        for (std::size_t i = 0; i < m_rows.size(); ++i)
            if (active(i))
                all.push_back(i);
        std::vector<std::size_t> base; // the records the base constants are fitted on
        for (std::size_t i : all)
            if (fitsOn("", m_set.cases[i], m_baseOnAll || m_ownRun[i]))
                base.push_back(i);
        auto f = [&](double t) {
            place(t);
            double loss = 0;
            for (double l : lossesOf(base))
                loss += l;
            return loss;
        };
        double f1 = 0;
        for (double l : lossesOf(base))
            f1 += l;
        const double t = minimize(f, 1, 64, 1, f1);
        place(t);
        parallelFor(all.size(), [&](std::size_t k) {
            m_rows[all[k]] = predict(all[k]);
            m_loss[all[k]] = lossOf(all[k], m_rows[all[k]]);
        });
    }

private:
    bool m_baseOnAll = false; // no measured Hopper record: the base constants fit on every measured one
    std::vector<bool> m_ownRun; // a measured run (not a published row): fits the base constants on any GPU
    template <typename F>
    double minimize(F& f, double a, double b, double u0, double f0) const
    {
        double bestU = u0;
        double bestF = f0;
        auto eval = [&](double u) {
            const double v = f(u);
            if (v < bestF) {
                bestF = v;
                bestU = u;
            }
            return v;
        };
        // Bracket: walk from u0 in the direction that improves, growing the step.
        double step = 0.05;
        double lo = std::max(a, u0 - step);
        double hi = std::min(b, u0 + step);
        for (double dir : {1.0, -1.0}) {
            double prev = u0;
            double cur = std::clamp(u0 + dir * step, a, b);
            if (cur == u0 || !(eval(cur) < f0))
                continue;
            double fcur = bestF;
            double h = step;
            while (true) {
                h /= kGolden;
                const double next = std::clamp(cur + dir * h, a, b);
                if (next == cur) {
                    lo = std::min(prev, cur);
                    hi = std::max(prev, cur);
                    break;
                }
                const double fnext = eval(next);
                if (!(fnext < fcur)) {
                    lo = std::min(prev, next);
                    hi = std::max(prev, next);
                    break;
                }
                prev = cur;
                cur = next;
                fcur = fnext;
            }
            break;
        }
        // Golden-section search inside [lo, hi].
        double x1 = hi - kGolden * (hi - lo);
        double x2 = lo + kGolden * (hi - lo);
        double f1 = eval(x1);
        double f2 = eval(x2);
        while (hi - lo > m_precision) {
            if (f1 <= f2) {
                hi = x2;
                x2 = x1;
                f2 = f1;
                x1 = hi - kGolden * (hi - lo);
                f1 = eval(x1);
            } else {
                lo = x1;
                x1 = x2;
                f1 = f2;
                x2 = lo + kGolden * (hi - lo);
                f2 = eval(x2);
            }
        }
        return bestU;
    }

public:
    /// Golden-section stop, in ln(value): 1e-9, or coarser for many records.
    double m_precision = 1e-9;

private:
    const ValidationSet& m_set;
    int m_exclude;
    std::vector<Rows> m_rows;
    std::vector<double> m_loss;
    std::vector<int> m_expected;
    std::map<std::string, int> m_count;
};

double roundTo(double v, int digits)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    return std::strtod(buf, nullptr);
}

std::vector<const CalibrationEntry*> fittedEntries(const Calibration& c)
{
    std::vector<const CalibrationEntry*> out;
    for (const auto& e : c.entries)
        if (e.kind == "fitted" && !isUncertainty(e.id))
            out.push_back(&e);
    return out;
}

double rmsLog(const Rows& rows, const std::function<bool(const ValidationRow&)>& keep, int* n = nullptr)
{
    double sum = 0;
    int count = 0;
    for (const auto& r : rows)
        if (keep(r) && r.predicted > 0 && r.measured > 0) {
            const double e = std::log(r.predicted / r.measured);
            sum += e * e;
            count++;
        }
    if (n)
        *n = count;
    return count ? std::sqrt(sum / count) : 0;
}

/// Scored records with different measurements or predictions (the same run
/// given twice, or 50 times, counts once).
int distinctScoredRecords(const ValidationReport& rep)
{
    std::map<int, std::string> signature;
    for (const auto& r : rep.rows)
        if (isScoredMetric(r.metric)) {
            char buf[128];
            std::snprintf(buf, sizeof buf, "%s=%.17g/%.17g;", r.metric.c_str(), r.predicted, r.measured);
            signature[r.caseIndex] += r.gpu + ":" + buf;
        }
    std::set<std::string> distinct;
    for (const auto& [index, sig] : signature)
        distinct.insert(sig);
    return int(distinct.size());
}

} // namespace

bool FittedConstant::atBound() const
{
    const double span = max - min;
    return value <= min + 1e-3 * span || value >= max - 1e-3 * span;
}

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
    const ValidationReport rep = predictSet(set, &p.cal);
    for (std::size_t i = 0; i < set.cases.size(); ++i)
        fit.records += done.scored(i) ? 1 : 0;
    for (const auto& r : rep.rows)
        fit.rows += isScoredMetric(r.metric) ? 1 : 0;
    for (const auto& id : ids) {
        const CalibrationEntry& e = *done.cal.find(id);
        const auto cases = done.influenced(e);
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
    const int distinct = distinctScoredRecords(rep);
    if (options.leaveOneOut && distinct < moved) {
        for (const char* id : {"uncertainty_memory", "uncertainty_throughput_training", "uncertainty_throughput_inference",
                               "uncertainty_throughput_vision"})
            fit.uncertaintyNotes.push_back(std::string(id) + ": kept (leave-one-out needs at least " +
                                           std::to_string(moved) + " distinct records, one per fitted constant; got " +
                                           std::to_string(distinct) + ")");
    } else if (options.leaveOneOut) {
        fit.cross = crossValidate(set, fit.calibration, options);
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
        // Each family's throughput band: its own rows' leave-one-out residuals
        // (at least 3 rows; otherwise 0, and estimates use the wide band).
        for (ArchFamily f : kScaledFamilies) {
            const std::string id = std::string("uncertainty_family_") + archFamilyId(f) + "_throughput";
            int n = 0;
            const double rms = rmsLog(
                fit.cross.leaveOneOut.rows,
                [&](const ValidationRow& r) {
                    return isScoredMetric(r.metric) && isThroughputMetric(r.metric) &&
                           set.cases[std::size_t(r.caseIndex)].archFamily == archFamilyId(f);
                },
                &n);
            const CalibrationEntry& e = *fit.calibration.find(id);
            if (n < 3) {
                fit.calibration.set(id, 0.0);
                fit.uncertaintyNotes.push_back(id + ": 0, " + std::to_string(n) +
                                               " scored throughput rows (fewer than 3): uncertainty_unmeasured_family applies");
                continue;
            }
            fit.calibration.set(id, std::clamp(roundTo(rms, 3), e.min, e.max));
            fit.uncertaintyNotes.push_back(id + ": RMS of the leave-one-out ln(predicted/measured) of the " +
                                           std::to_string(n) + " scored throughput rows of " + archFamilyLabel(f) + " GPUs");
        }
    }
    return fit;
}

CrossValidation crossValidate(const ValidationSet& set, const Calibration& full, const CalibrateOptions& options)
{
    CrossValidation cv;
    cv.inSample = predictSet(set, &full);
    for (const auto& c : set.cases) {
        cv.families.push_back(c.family);
        cv.archFamilies.push_back(c.archFamily);
    }
    Problem base(set, full, -1);
    const auto entries = fittedEntries(full);
    std::vector<std::vector<std::size_t>> influence;
    for (const auto* e : entries)
        influence.push_back(base.influenced(*e));
    std::size_t scoredRecords = 0;
    for (std::size_t j = 0; j < set.cases.size(); ++j)
        scoredRecords += base.scored(j) ? 1 : 0;
    if (scoredRecords > std::size_t(std::max(0, options.exactLooRecords))) {
        // Many records: each refit without record j is the one-step Newton
        // update from the full fit (the influence-function approximation; it
        // differs from the exact refit by O(1/N^2)): per constant k, in log
        // space, u_k - (G_k - g_jk) / (H_k - h_jk), with g and h the first and
        // second derivatives of each record's loss (central differences) and
        // G, H their sums over the records k moves. Linear in N.
        std::vector<std::vector<double>> g(entries.size());
        std::vector<std::vector<double>> h(entries.size());
        std::vector<double> sumG(entries.size(), 0);
        std::vector<double> sumH(entries.size(), 0);
        std::vector<double> u0(entries.size());
        constexpr double kStep = 1e-3; // in ln(value)
        for (std::size_t k = 0; k < entries.size(); ++k) {
            const CalibrationEntry& e = *entries[k];
            u0[k] = std::log(std::max(e.value, Problem::lowerBound(e)));
            base.cal.set(e.id, std::exp(u0[k] + kStep));
            const std::vector<double> up = base.lossesOf(influence[k]);
            base.cal.set(e.id, std::exp(u0[k] - kStep));
            const std::vector<double> down = base.lossesOf(influence[k]);
            base.cal.set(e.id, e.value);
            for (std::size_t m = 0; m < influence[k].size(); ++m) {
                const double l0 = base.loss(influence[k][m]);
                g[k].push_back((up[m] - down[m]) / (2 * kStep));
                h[k].push_back((up[m] - 2 * l0 + down[m]) / (kStep * kStep));
                sumG[k] += g[k].back();
                sumH[k] += h[k].back();
            }
        }
        std::vector<Rows> out(set.cases.size());
        parallelFor(set.cases.size(), [&](std::size_t j) {
            Calibration c = full;
            EstimateOptions oj{false};
            oj.calibration = &c;
            if (base.scored(j)) {
                for (std::size_t k = 0; k < entries.size(); ++k) {
                    const auto& cases = influence[k];
                    const auto at = std::lower_bound(cases.begin(), cases.end(), j);
                    if (at == cases.end() || *at != j)
                        continue;
                    const std::size_t m = std::size_t(at - cases.begin());
                    const double curvature = sumH[k] - h[k][m];
                    if (!(curvature > 0))
                        continue; // flat or concave without j: keep the full fit's value
                    const CalibrationEntry& e = *entries[k];
                    const double u = std::clamp(u0[k] - (sumG[k] - g[k][m]) / curvature,
                                                std::log(Problem::lowerBound(e)), std::log(e.max));
                    c.set(e.id, std::exp(u));
                }
            }
            set.cases[j].predict(oj, out[j]);
        });
        for (std::size_t j = 0; j < set.cases.size(); ++j)
            for (auto& r : out[j]) {
                r.caseIndex = int(j);
                cv.leaveOneOut.rows.push_back(r);
            }
        cv.leaveOneOut.skipped = set.skipped;
        summarize(cv.leaveOneOut);
        return cv;
    }
    EstimateOptions o{false};
    for (std::size_t j = 0; j < set.cases.size(); ++j) {
        Rows rows;
        bool moved = false; // does any fitted constant move this record?
        for (const auto& cases : influence)
            moved = moved || std::binary_search(cases.begin(), cases.end(), j);
        if (!base.scored(j) || !moved) {
            // Nothing to refit without it (e.g. a held-out Hopper --family-dir row):
            // its leave-one-out prediction is the full fit's.
            o.calibration = &full;
            set.cases[j].predict(o, rows);
        } else {
            Problem p(set, full, int(j));
            for (int sweep = 0; sweep < options.looSweeps; ++sweep)
                for (std::size_t k = 0; k < entries.size(); ++k) {
                    const auto& cases = influence[k];
                    if (!std::binary_search(cases.begin(), cases.end(), j))
                        continue;
                    std::vector<std::size_t> others;
                    for (std::size_t i : cases)
                        if (i != j)
                            others.push_back(i);
                    if (!others.empty())
                        p.fitOne(*p.cal.find(entries[k]->id), others);
                }
            o.calibration = &p.cal;
            set.cases[j].predict(o, rows);
        }
        for (auto& r : rows) {
            r.caseIndex = int(j);
            cv.leaveOneOut.rows.push_back(r);
        }
    }
    cv.leaveOneOut.skipped = set.skipped;
    summarize(cv.leaveOneOut);
    return cv;
}

} // namespace gp
