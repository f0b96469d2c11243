// The planner: plan() runs the solver, which enumerates the GPUs (and MIG slices),
// keeps what fits and meets the targets at the plan's confidence, and ranks it:
// feasible, then cheapest, then fastest, one option per GPU and size, and the
// cost-vs-time front. The candidates of each GPU are in plancandidates.cpp, the
// why lines and notes in planwhy.cpp.
#include "core/plan/plansolver.h"

#include "core/base/errors.h"
#include "core/base/textformat.h"
#include "core/hardware/mig.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace gp {

namespace plansolver {

// Through the one formatter (textformat.h): any double, no fixed buffer.
std::string money(double v)
{
    if (v >= 1e6)
        return formatDouble("$%.2fM", v / 1e6);
    if (v >= 1000)
        return formatDouble("$%.0f", v);
    if (v >= 10)
        return formatDouble("$%.1f", v);
    return formatDouble("$%.3g", v);
}

std::string num(double v, const char* f) { return formatDouble(f, v); }

double priceOf(const Scenario& s, const Gpu& g)
{
    // Same pricing rules as the estimate: ask it for one GPU-hour.
    switch (s.pricing.model) {
    case PricingModel::OnDemand: return g.pricePerHour.typical;
    case PricingModel::Spot: return g.pricePerHour.spot.value_or(g.pricePerHour.typical);
    case PricingModel::Reserved: return g.pricePerHour.typical * 0.6;
    case PricingModel::Purchase: return g.purchaseUsd;
    }
    return 0;
}

void Solver::noteMiss(const Gpu& g, const GpuEstimate& e)
{
    Miss& m = m_misses[g.id];
    m.capacity = e.capacityBytes;
    if (!e.fits) {
        m.bestMemory = std::min(m.bestMemory, e.memory.total());
    } else if (!e.meetsTargets && m.target.empty() && !e.targetMisses.empty()) {
        m.target = e.targetMisses.front();
    } else if (m.target.empty() && e.confidence.fits * e.confidence.meetsTargets < m_conf) {
        m.target = "fits and meets the targets at the point estimate, but only " +
                   num(e.confidence.fits * e.confidence.meetsTargets * 100, "%.0f") + "% sure to (confidence " +
                   num(m_conf * 100, "%.0f") + "% asked)";
    }
}

void Solver::keep(PlanOption o, const Gpu& g)
{
    o.gpu = g.id;
    o.gpuName = g.name;
    if (auto it = m_sliceOf.find(g.id); it != m_sliceOf.end()) {
        o.gpu = it->second.first;
        o.mig = it->second.second;
        o.gpuName = m_catalog.find(o.gpu)->name;
    }
    o.fits = o.estimate.fits;
    // Sure enough: P(fits) x P(meets) at least the plan's confidence (independent
    // memory and speed errors; confidence.h).
    o.meetsTargets = o.estimate.fits && o.estimate.meetsTargets &&
                     o.confidence.fits * o.confidence.meetsTargets >= m_conf - 1e-12;
    if (!allowedPrecision(o.precision))
        o.needs = "precision";
    else if (consumerNotAllowed(g))
        o.needs = "consumer";
    m_all.push_back(std::move(o));
}
bool Solver::hasTargets() const
{
    if (m_base.mode == Mode::Training)
        return m_base.training.targets.deadlineHours || m_base.training.targets.budgetUsd;
    const auto& t = m_base.inference.targets;
    return t.ttftMs || t.tpotMs || t.requestsPerS || t.ttftP99Ms;
}

PlanResult Solver::run()
{
    PlanResult out;
    out.scenario = m_base.name;
    const bool training = m_base.mode == Mode::Training;
    std::vector<const Gpu*> gpus;
    if (m_base.hardware.gpus.empty()) {
        for (const auto& g : m_catalog.gpus())
            gpus.push_back(&g);
    } else {
        std::vector<Diagnostic> problems;
        for (std::size_t i = 0; i < m_base.hardware.gpus.size(); ++i) {
            const Gpu* g = m_catalog.find(m_base.hardware.gpus[i]);
            if (!g)
                problems.push_back({"hardware.gpus[" + std::to_string(i) + "]",
                                    m_catalog.unknownIdMessage(m_base.hardware.gpus[i])});
            else
                gpus.push_back(g);
        }
        if (!problems.empty())
            throw InputError(std::move(problems));
    }
    for (const Gpu* g : gpus) {
        if (priceOf(m_base, *g) <= 0) {
            m_unpriced.push_back(g->id);
            continue;
        }
        if (training) {
            trainingCandidates(*g);
        } else {
            inferenceCandidates(*g);
            // MIG: a small model can serve from a slice. NVIDIA's 7-way parts split
            // into 1g (1/7 of the SMs, 1/8 of memory and bandwidth) and 3g (3/7,
            // 4/8) instances (core/hardware/mig.h); a slice is billed as its share of the GPU.
            if (g->migMaxInstances >= 7 && g->vendor == "NVIDIA") {
                for (const char* name : {"1g", "3g"}) {
                    const MigProfile* profile = findMigProfile(*g, name);
                    if (!profile)
                        continue;
                    m_slices.push_back(migSlice(*g, *profile));
                    m_sliceOf[m_slices.back().id] = {g->id, name};
                    inferenceCandidates(m_slices.back());
                }
            }
        }
    }

    // Feasible, then cheapest, then fastest.
    out.confidence = m_conf;
    std::vector<PlanOption> feasible;
    std::vector<PlanOption> disallowed; // feasible, but need what the user did not allow
    for (auto& o : m_all)
        if (o.meetsTargets && std::isfinite(o.costKey))
            (o.needs.empty() ? feasible : disallowed).push_back(o);
    out.feasible = static_cast<long long>(feasible.size());
    out.considered = m_considered;
    auto better = [](const PlanOption& a, const PlanOption& b) {
        if (a.costKey != b.costKey)
            return a.costKey < b.costKey;
        if (a.timeKey != b.timeKey)
            return a.timeKey < b.timeKey;
        return a.count < b.count;
    };
    std::stable_sort(feasible.begin(), feasible.end(), better); // full ties keep the enumeration order
    // One option per GPU type and size (training) or per GPU type, TP and format
    // (inference): the list shows choices, not near-duplicate layouts.
    std::vector<PlanOption> distinct;
    std::map<std::string, bool> seen;
    for (auto& o : feasible) {
        const std::string key = o.gpu + o.mig + "/" + std::to_string(o.count) + (training ? "" : "/" + o.precision);
        if (seen[key])
            continue;
        seen[key] = true;
        distinct.push_back(std::move(o));
    }
    for (std::size_t i = 0; i < distinct.size(); ++i)
        distinct[i].rank = int(i) + 1;

    // Pareto front on (cost, time) over the distinct options.
    std::vector<int> front;
    double bestTime = kInf;
    for (const auto& o : distinct) { // sorted by cost, then time
        if (o.timeKey < bestTime) {
            front.push_back(o.rank);
            bestTime = o.timeKey;
        }
    }
    out.pareto = front;

    const std::size_t top = static_cast<std::size_t>(std::max(1, m_request.top));
    for (const auto& o : distinct)
        if (static_cast<std::size_t>(o.rank) <= top ||
            std::find(front.begin(), front.end(), o.rank) != front.end())
            out.options.push_back(o);
    std::stable_sort(disallowed.begin(), disallowed.end(), better);
    explain(out, distinct, disallowed);
    return out;
}

} // namespace plansolver

PlanResult plan(const Scenario& s, const Catalog& catalog, const PlanRequest& request)
{
    plansolver::Solver solver(s, catalog, request);
    return solver.run();
}

} // namespace gp
