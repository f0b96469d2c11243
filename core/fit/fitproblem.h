#pragma once
// Internal to the fit (calibrate.cpp, crossvalidate.cpp): the records' current
// predictions and losses under one calibration, and the one-constant line
// search the coordinate descent is made of. The procedure is in calibrate.h.
#include "core/calibration/calibration.h"
#include "core/estimate/estimate.h"
#include "core/fit/calibrate.h"
#include "core/fit/validate.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cmath>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace gp::detail::fitting {

using Rows = std::vector<ValidationRow>;

constexpr double kMissingRowLoss = 1e3; // a scored row the calibration makes unpredictable
constexpr double kGolden = 0.6180339887498949;

inline bool isUncertainty(const std::string& id) { return id.rfind("uncertainty_", 0) == 0; }

/// The fit's second thread, started on first use and kept for the process
/// (a thread per parallel loop cost ~10% of the fit once estimates got fast).
/// share(work) runs `work` on it while the caller runs its own share; false
/// (nothing started) when it is busy with another caller's loop, whose caller
/// then does all the work itself. wait() returns once the helper's `work` ran.
class Helper {
public:
    static Helper& get();
    bool share(const std::function<void()>& work);
    void wait();
    ~Helper();

private:
    Helper();
    void loop();
    std::atomic<bool> m_busy{false}; // a caller's loop holds the helper (a flag, not a mutex: a nested loop just finds it busy)
    std::mutex m_mutex;
    std::condition_variable m_changed;
    const std::function<void()>* m_work = nullptr;
    bool m_done = false;
    bool m_stop = false;
    std::thread m_thread;
};

/// Calls f(0) .. f(n-1), on two threads when n is large enough to pay for one.
/// Each index is computed by exactly one thread (the threads take the next
/// index in turn, so a few slow records do not leave one idle) and callers
/// combine the results in index order afterwards, so the outcome never
/// depends on the threads (deterministic, byte for byte). If calls throw, the
/// exception of the lowest index is rethrown.
template <class F>
void parallelFor(std::size_t n, const F& f)
{
    static const unsigned kThreads = std::min(2u, std::max(1u, std::thread::hardware_concurrency()));
    if (kThreads < 2 || n < 8) {
        for (std::size_t i = 0; i < n; ++i)
            f(i);
        return;
    }
    std::atomic<std::size_t> next{0};
    struct Failure {
        std::size_t index = SIZE_MAX;
        std::exception_ptr error;
    };
    auto work = [&](Failure& failure) {
        for (std::size_t i = next++; i < n; i = next++) {
            try {
                f(i);
            } catch (...) {
                if (i < failure.index)
                    failure = {i, std::current_exception()};
            }
        }
    };
    Failure theirs;
    const std::function<void()> helperWork = [&] { work(theirs); };
    Helper& helper = Helper::get();
    const bool shared = helper.share(helperWork);
    Failure mine;
    work(mine);
    if (shared)
        helper.wait();
    if (mine.error && mine.index < theirs.index)
        std::rethrow_exception(mine.error);
    if (theirs.error)
        std::rethrow_exception(theirs.error);
}

/// The family a "family_<id>_..." constant belongs to (the longest id that
/// prefixes it: blackwell_gb2 before blackwell); "" for a base constant; "*"
/// for an engine's own constant (serving_step_s_per_seq, serving_pp_host_s_per_seq,
/// serving_decode_allreduce_eff, attn_triton_share),
/// fitted on every record it moves whatever its family (but the held-out
/// Hopper --family-dir rows).
std::string familyOfConstant(const std::string& id);
/// The records a constant is fitted on: a family's constants on that family's
/// records only; the base constants (the Hopper values) on the Hopper records
/// of the measured dirs (not those of --family-dir, which stay held out). When
/// the measured dirs hold no Hopper record (a user calibrating to their own
/// runs on another GPU), the base constants are fitted on all of them.
bool fitsOn(const std::string& constantFamily, const ValidationCase& c, bool baseOnAll);
/// Metrics whose band is the throughput band.
bool isThroughputMetric(const std::string& m);
double roundTo(double v, int digits);
/// The entries the fit moves: kind "fitted", not an uncertainty_* band.
std::vector<const CalibrationEntry*> fittedEntries(const Calibration& c);
/// RMS of ln(predicted / measured) over the rows `keep` accepts; `n` gets their count.
double rmsLog(const Rows& rows, const std::function<bool(const ValidationRow&)>& keep, int* n = nullptr);
/// Scored records with different measurements or predictions (the same run
/// given twice, or 50 times, counts once).
int distinctScoredRecords(const ValidationReport& rep);

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
    /// predictSet(set, &cal) from the rows as they are (every record current, none excluded).
    ValidationReport report() const
    {
        ValidationReport out;
        for (std::size_t i = 0; i < m_rows.size(); ++i)
            for (ValidationRow r : m_rows[i]) {
                r.caseIndex = int(i);
                out.rows.push_back(std::move(r));
            }
        out.skipped = m_set.skipped;
        for (const auto& d : m_set.problems)
            out.skipped.push_back(d.text());
        summarize(out);
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
    /// `current`: every row was predicted at the current values and none moved
    /// since (a Problem just built): the candidates need no refresh.
    std::vector<std::size_t> influenced(const CalibrationEntry e, bool current = false)
    {
        const double x0 = e.value;
        const std::string family = familyOfConstant(e.id);
        // A family's 16-bit GEMM scale is fitted on its 16-bit runs only: in an
        // FP8 training run it moves the bf16 attention alone, and four FP8 runs
        // of CDNA (MLPerf LoRA and Llama 3.1 8B) took it to its bound 2.5 through
        // that side term, every bf16 MI300X job to 2.5x Hopper's efficiency.
        const bool gemm16 = !family.empty() && family != "*" && e.id.size() > 13 &&
                            e.id.compare(e.id.size() - 13, 13, "_gemm16_scale") == 0;
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
                if (fitsOn(family, m_set.cases[i], m_baseOnAll || m_ownRun[i]) &&
                    !(gemm16 && m_set.cases[i].fp8Training))
                    cand.push_back(i);
            if (f > 1 && !current) {
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
        // A family scale that fewer than 3 records move is not fitted (kept at its
        // value, 1 from the shipped start): with the family's other scales as free
        // as it, one or two runs would push it to a bound through a side term (the
        // bf16 attention inside CDNA's two FP8 LoRA rows took the 16-bit scale to
        // 2.5, every bf16 MI300X job to its datasheet peak). The same threshold
        // gives a family a band of its own.
        if (!family.empty() && family != "*" && out.size() < kMinFamilyRecords)
            out.clear();
        return out;
    }
    static constexpr std::size_t kMinFamilyRecords = 3;
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
        double f0 = 0;
        for (std::size_t i : cases)
            f0 += m_loss[i];
        // The rows of the best point so far (minimize keeps the same one: the
        // first strictly below f0 and every later strict improvement), so the
        // result need not be predicted once more.
        std::vector<Rows> bestRows;
        double bestLoss = f0;
        auto f = [&](double u) {
            cal.set(e.id, std::exp(u));
            std::vector<Rows> rows(cases.size());
            std::vector<double> losses(cases.size());
            parallelFor(cases.size(), [&](std::size_t k) {
                rows[k] = predict(cases[k]);
                losses[k] = lossOf(cases[k], rows[k]);
            });
            double loss = 0;
            for (double l : losses) // summed in case order, as before the threads
                loss += l;
            if (loss < bestLoss) {
                bestLoss = loss;
                bestRows = std::move(rows);
            }
            return loss;
        };
        const double u0 = std::log(x0);
        const double best = minimize(f, std::log(lowerBound(e)), std::log(e.max), u0, f0);
        const double x = best == u0 ? e.value : std::exp(best);
        cal.set(e.id, x);
        if (best != u0 && bestRows.size() == cases.size()) {
            // Predicted at exactly this calibration (cal.set(e.id, exp(best))) during the search.
            for (std::size_t k = 0; k < cases.size(); ++k) {
                m_rows[cases[k]] = std::move(bestRows[k]);
                m_loss[cases[k]] = lossOf(cases[k], m_rows[cases[k]]);
            }
            return x;
        }
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
        std::vector<std::pair<double, double>> seen{{u0, f0}}; // every (u, f(u)) so far
        auto eval = [&](double u) {
            const double v = f(u);
            seen.emplace_back(u, v);
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
        // Brent's method inside [lo, hi] (parabolic steps through the three best
        // points, a golden-section step where a parabola would not shrink the
        // bracket; Brent 1973, ch. 5), from the best point of the bracketing and
        // the two next-best points it evaluated, until the bracket is narrower
        // than m_precision.
        double x = bestU;
        double fx = bestF;
        double w = x, fw = fx, v = x, fv = fx;
        std::sort(seen.begin(), seen.end(), [](const auto& l, const auto& r) { return l.second < r.second; });
        for (const auto& [u, fu] : seen) {
            if (u < lo || u > hi || u == x || u == w)
                continue;
            if (w == x) {
                w = u;
                fw = fu;
            } else {
                v = u;
                fv = fu;
                break;
            }
        }
        constexpr double kCGold = 1 - kGolden;
        const double tol1 = m_precision / 4;
        const double tol2 = 2 * tol1;
        // With three points known a parabola may be tried at once.
        double e = v != w ? hi - lo : 0;
        double d = e;
        for (int iteration = 0; iteration < 200; ++iteration) {
            const double xm = (lo + hi) / 2;
            if (std::fabs(x - xm) <= tol2 - (hi - lo) / 2)
                break;
            bool golden = true;
            if (std::fabs(e) > tol1) {
                const double r = (x - w) * (fx - fv);
                double q = (x - v) * (fx - fw);
                double p = (x - v) * q - (x - w) * r;
                q = 2 * (q - r);
                if (q > 0)
                    p = -p;
                q = std::fabs(q);
                const double previous = e;
                e = d;
                if (std::fabs(p) < std::fabs(q * previous / 2) && p > q * (lo - x) && p < q * (hi - x)) {
                    d = p / q;
                    const double u = x + d;
                    if (u - lo < tol2 || hi - u < tol2)
                        d = xm > x ? tol1 : -tol1;
                    golden = false;
                }
            }
            if (golden) {
                e = x >= xm ? lo - x : hi - x;
                d = kCGold * e;
            }
            const double u = std::fabs(d) >= tol1 ? x + d : x + (d > 0 ? tol1 : -tol1);
            const double fu = eval(u);
            if (fu <= fx) {
                (u >= x ? lo : hi) = x;
                v = w;
                fv = fw;
                w = x;
                fw = fx;
                x = u;
                fx = fu;
            } else {
                (u < x ? lo : hi) = u;
                if (fu <= fw || w == x) {
                    v = w;
                    fv = fw;
                    w = u;
                    fw = fu;
                } else if (fu <= fv || v == x || v == w) {
                    v = u;
                    fv = fu;
                }
            }
        }
        return bestU;
    }

public:
    /// Line-search stop (bracket width), in ln(value): 1e-9, or coarser for many records.
    double m_precision = 1e-9;

private:
    const ValidationSet& m_set;
    int m_exclude;
    std::vector<Rows> m_rows;
    std::vector<double> m_loss;
    std::vector<int> m_expected;
    std::map<std::string, int> m_count;
};

/// crossValidate (calibrate.h) around `base`, a Problem built at `full`, with
/// influence[k] = base.influenced() of fittedEntries(full)[k] and `inSample` =
/// predictSet(set, &full): the fit has them already and passes them on.
CrossValidation crossValidateFrom(const ValidationSet& set, const Calibration& full, const CalibrateOptions& options,
                                  Problem& base, const std::vector<std::vector<std::size_t>>& influence,
                                  ValidationReport inSample);

} // namespace gp::detail::fitting
