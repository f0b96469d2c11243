// Leave-one-out cross-validation around a full fit (calibrate.h): exact
// refits for a small set, the one-step Newton update for a large one.
#include "core/fit/calibrate.h"

#include "core/fit/fitproblem.h"

#include <algorithm>
#include <cmath>

namespace gp {

using namespace detail::fitting;

CrossValidation crossValidate(const ValidationSet& set, const Calibration& full, const CalibrateOptions& options)
{
    Problem base(set, full, -1);
    std::vector<std::vector<std::size_t>> influence;
    for (const auto* e : fittedEntries(full))
        influence.push_back(base.influenced(*e, true));
    return crossValidateFrom(set, full, options, base, influence, base.report());
}

CrossValidation detail::fitting::crossValidateFrom(const ValidationSet& set, const Calibration& full,
                                                   const CalibrateOptions& options, Problem& base,
                                                   const std::vector<std::vector<std::size_t>>& influence,
                                                   ValidationReport inSample)
{
    CrossValidation cv;
    cv.inSample = std::move(inSample);
    for (const auto& c : set.cases) {
        cv.families.push_back(c.family);
        cv.archFamilies.push_back(c.archFamily);
    }
    const auto entries = fittedEntries(full);
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

