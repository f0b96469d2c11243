#pragma once
// Internal to the planner (planner.cpp, plancandidates.cpp, planwhy.cpp): the
// solver that enumerates GPU x count x layout x format x batch, keeps what fits
// and meets the targets, ranks it and explains the ranking.
#include "core/plan/planner.h"

#include "core/hardware/catalog.h"
#include "core/scenario/scenario.h"

#include <algorithm>
#include <deque>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace gp::plansolver {

constexpr double kInf = std::numeric_limits<double>::infinity();

/// A dollar figure through the one formatter (textformat.h): $1.23M, $1234, $12.3, $1.23.
std::string money(double v);
/// Any double through the one formatter, printf-style.
std::string num(double v, const char* f = "%.3g");
/// What one GPU costs under the scenario's pricing model (per hour, or to buy).
double priceOf(const Scenario& s, const Gpu& g);

/// Why a GPU missed: its smallest memory need seen, or a target it missed.
struct Miss {
    double bestMemory = kInf; // smallest per-GPU need seen, bytes
    double capacity = 0;
    std::string target;       // a target miss text of the closest feasible-memory option
};
class Solver {
public:
    Solver(const Scenario& s, const Catalog& c, const PlanRequest& r)
        : m_base(s)
        , m_work(s)
        , m_catalog(c)
        , m_request(r)
    {
        m_work.hardware.mig.clear(); // the search tries whole GPUs and MIG slices itself
        // A load is split over replicas: each replica is estimated with its users
        // in the system (closed loop), and the replicas are sized for the rate.
        m_work.inference.targets.requestsPerS.reset();
        m_conf = std::clamp(r.confidence.value_or(s.hardware.confidence), 0.0, 1.0);
    }

    PlanResult run();

private:
    void trainingCandidates(const Gpu& g);
    void inferenceCandidates(const Gpu& g);
    GpuEstimate eval(const Gpu& g)
    {
        ++m_considered;
        return estimateOn(m_work, g, EstimateOptions{false, m_request.calibration});
    }
    void keep(PlanOption o, const Gpu& g);
    /// The why lines of the options and of those set apart, the popular GPUs that
    /// lost and the plan's notes (planwhy.cpp). `distinct` are the ranked options.
    void explain(PlanResult& out, const std::vector<PlanOption>& distinct, std::vector<PlanOption>& disallowed);
    void noteMiss(const Gpu& g, const GpuEstimate& e);
    bool hasTargets() const;

    const Scenario& m_base;
    Scenario m_work;
    const Catalog& m_catalog;
    PlanRequest m_request;
    std::vector<PlanOption> m_all;
    std::map<std::string, Miss> m_misses;
    std::vector<std::string> m_unpriced;
    std::deque<Gpu> m_slices; // MIG slices as virtual GPUs (stable addresses)
    std::map<std::string, std::pair<std::string, std::string>> m_sliceOf; // slice id -> (base id, slice)
    long long m_considered = 0;
    bool m_loadTooLarge = false; // an option was dropped: its replicas exceeded max_count
    double m_conf = 0.9;         // keep what fits and meets the targets with this probability
    /// The probability costs and times are taken at: the confidence, never below
    /// the point estimate (at 0.5 and below, the point: a plan is never ranked optimistically).
    double rankP() const { return std::max(m_conf, 0.5); }
    long long m_dpCap = 0;       // training: a layout was skipped because its data-parallel width exceeded this global batch
    /// Whether the user allowed this format (hardware.precisions, default the workload's own).
    bool allowedPrecision(std::string_view name) const
    {
        const auto& allowed = m_base.hardware.precisions;
        if (allowed.empty()) {
            if (m_base.mode == Mode::Inference && m_base.inference.checkpointWeights)
                return name == "checkpoint"; // the checkpoint's own storage is the workload's format
            return name == (m_base.mode == Mode::Training ? toString(m_base.training.precision)
                                                          : toString(m_base.inference.precision));
        }
        return std::find(allowed.begin(), allowed.end(), name) != allowed.end();
    }
    /// Serving on a GeForce-class card the user did not allow (hardware.consumer) nor name.
    bool consumerNotAllowed(const Gpu& g) const
    {
        if (m_base.mode == Mode::Training || g.tier != Tier::Consumer || m_base.hardware.consumer)
            return false;
        std::string id = g.id;
        if (auto it = m_sliceOf.find(g.id); it != m_sliceOf.end())
            id = it->second.first;
        const auto& named = m_base.hardware.gpus;
        return std::find(named.begin(), named.end(), id) == named.end();
    }
};

} // namespace gp::plansolver
