// The calibration fit and its leave-one-out cross-validation; the procedure is
// documented in calibrate.h.
#include "calibrate.h"

#include "estimate.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

namespace gp {

namespace {

using Rows = std::vector<ValidationRow>;

constexpr double kMissingRowLoss = 1e3; // a scored row the calibration makes unpredictable
constexpr double kGolden = 0.6180339887498949;

bool isUncertainty(const std::string& id) { return id.rfind("uncertainty_", 0) == 0; }

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
/// of the measured dirs (not those of --family-dir, which stay held out).
bool fitsOn(const std::string& constantFamily, const ValidationCase& c)
{
    if (!constantFamily.empty())
        return c.archFamily == constantFamily;
    return c.archFamily == archFamilyId(ArchFamily::Hopper) && !c.familyOnly;
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
        m_rows.resize(set.cases.size());
        m_expected.assign(set.cases.size(), 0);
        for (std::size_t i = 0; i < set.cases.size(); ++i) {
            if (int(i) == exclude)
                continue;
            m_rows[i] = predict(i);
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
        for (double f : {1.5, 1 / 1.5}) {
            const double x = std::clamp(x0 == 0 ? lowerBound(e) * f : x0 * f, lowerBound(e), e.max);
            cal.set(e.id, x);
            for (std::size_t i = 0; i < m_rows.size(); ++i) {
                if (!active(i) || !fitsOn(family, m_set.cases[i]))
                    continue;
                if (f > 1) {
                    // Refresh the record at the current value first: a constant fitted
                    // on other records (another family, the Hopper base) may have
                    // moved it since it was last predicted.
                    cal.set(e.id, x0);
                    m_rows[i] = predict(i);
                    m_loss[i] = lossOf(i, m_rows[i]);
                    cal.set(e.id, x);
                }
                const Rows rows = predict(i);
                // A family scale counts only where it measurably moves a scored
                // prediction (0.01% for the x1.5 nudge): a rate a family's rows
                // barely touch (16-bit work in FP8 serving) would otherwise drift
                // on rounding noise and carry an arbitrary value to other formats.
                if (family.empty() ? lossOf(i, rows) != m_loss[i] : movesMeasurably(rows, m_rows[i]))
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
            for (std::size_t i : cases)
                loss += lossOf(i, predict(i));
            return loss;
        };
        double f0 = 0;
        for (std::size_t i : cases)
            f0 += m_loss[i];
        const double u0 = std::log(x0);
        const double best = minimize(f, std::log(lowerBound(e)), std::log(e.max), u0, f0);
        const double x = best == u0 ? e.value : std::exp(best);
        cal.set(e.id, x);
        for (std::size_t i : cases) {
            m_rows[i] = predict(i);
            m_loss[i] = lossOf(i, m_rows[i]);
        }
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
        auto f = [&](double t) {
            place(t);
            double loss = 0;
            for (std::size_t i = 0; i < m_rows.size(); ++i)
                if (active(i) && fitsOn("", m_set.cases[i]))
                    loss += lossOf(i, predict(i));
            return loss;
        };
        double f1 = 0;
        for (std::size_t i = 0; i < m_rows.size(); ++i)
            if (active(i) && fitsOn("", m_set.cases[i]))
                f1 += lossOf(i, predict(i));
        const double t = minimize(f, 1, 64, 1, f1);
        place(t);
        for (std::size_t i = 0; i < m_rows.size(); ++i)
            if (active(i)) {
                m_rows[i] = predict(i);
                m_loss[i] = lossOf(i, m_rows[i]);
            }
    }

private:
    template <typename F>
    static double minimize(F& f, double a, double b, double u0, double f0)
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
        while (hi - lo > 1e-9) {
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
    for (fit.sweeps = 0; fit.sweeps < options.maxSweeps;) {
        fit.sweeps++;
        std::vector<double> before;
        std::vector<double> values;
        for (const auto& id : ids) {
            values.push_back(p.cal.find(id)->value);
            before.push_back(std::log(std::max(values.back(), Problem::lowerBound(*p.cal.find(id)))));
        }
        double change = 0;
        for (const auto& id : ids) {
            const CalibrationEntry e = *p.cal.find(id);
            const auto cases = p.influenced(e);
            if (cases.empty())
                continue;
            const double x = p.fitOne(e, cases);
            change = std::max(change, std::fabs(x / e.value - 1));
        }
        if (change < options.tolerance)
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
    if (options.leaveOneOut) {
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
