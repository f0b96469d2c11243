// The recommendation solver: enumerate, estimate (numbers only), filter, rank.
#include "core/plan/planner.h"
#include "core/plan/planoutput.h"
#include "core/plan/planserving.h"

#include "core/hardware/catalog.h"
#include "core/estimate/confidence.h"
#include "core/hardware/mig.h"
#include "core/scenario/scenario.h"
#include "core/base/textformat.h"
#include "core/base/units.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <cstdio>
#include <limits>
#include <map>

namespace gp {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// GPUs people ask about: if one misses the list, say why.
const char* const kPopular[] = {"nvidia-h100-sxm", "nvidia-h200-sxm", "nvidia-a100-80gb-sxm", "nvidia-l40s",
                                "nvidia-rtx-4090", "nvidia-l4",       "nvidia-b200",          "amd-mi300x"};

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

std::string num(double v, const char* f = "%.3g") { return formatDouble(f, v); }

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

void Solver::trainingCandidates(const Gpu& g)
{
    const Scenario& b = m_base;
    const ModelArch& model = b.model;
    const bool lm = model.isLanguageModel();
    // The optimization is defined by the global batch (sequences or images per
    // optimizer step); the layouts keep it, so a data-parallel width above it
    // (less than one sample per replica) is not an option.
    const int userDp = std::max(1, b.hardware.count / std::max(1, b.hardware.tp * b.hardware.pp));
    // training.global_batch_tokens: the batch to hold, in sequences; the layouts
    // then choose micro-batch, accumulation and data-parallel width under it.
    const bool heldTokens = b.training.globalBatchTokens && lm;
    const long long globalBatch =
        heldTokens ? std::max(1LL, static_cast<long long>(std::ceil(*b.training.globalBatchTokens / b.training.seqLen - 1e-9)))
                   : static_cast<long long>(b.training.microBatch) * b.training.gradAccum * userDp;
    // Formats: the allowed ones (hardware.precisions, default the workload's),
    // plus FP8 for 16-bit full training where the GPU has it (ranked only when
    // allowed; otherwise listed apart with its saving).
    std::vector<TrainPrecision> precisions{b.training.precision};
    for (const auto& name : b.hardware.precisions)
        for (TrainPrecision q : {TrainPrecision::FP32, TrainPrecision::TF32, TrainPrecision::AmpBF16, TrainPrecision::AmpFP16,
                                 TrainPrecision::BF16, TrainPrecision::FP8})
            if (toString(q) == name && std::find(precisions.begin(), precisions.end(), q) == precisions.end() &&
                (q != TrainPrecision::FP8 || g.supports(DType::FP8)))
                precisions.push_back(q);
    const bool sixteen = b.training.precision == TrainPrecision::AmpBF16 || b.training.precision == TrainPrecision::BF16 ||
                         b.training.precision == TrainPrecision::AmpFP16;
    if (sixteen && g.supports(DType::FP8) && lm && b.training.method == TrainMethod::Full &&
        std::find(precisions.begin(), precisions.end(), TrainPrecision::FP8) == precisions.end())
        precisions.push_back(TrainPrecision::FP8);
    const double price = priceOf(b, g);
    // Consumer and workstation cards are rented one box at a time (PCIe, no
    // InfiniBand fabric): a job stops at 8 of them.
    const bool boxOnly = g.tier == Tier::Consumer || g.tier == Tier::Workstation;
    const int maxCount = boxOnly ? std::min(8, b.hardware.maxCount) : b.hardware.maxCount;
    for (int count = 1; count <= maxCount; count *= 2) {
        for (int tp = 1; tp <= std::min(8, count); tp *= 2) {
            if (!lm && tp > 1)
                break;
            if (lm && !tpProblem(model, tp).empty())
                continue; // tp must divide the heads and the KV heads (or replicate them)
            for (int pp = 1; tp * pp <= count; pp *= 2) {
                if (count % (tp * pp) != 0)
                    continue;
                if (pp > 1 && (!lm || !ppProblem(model, pp).empty() || tp < std::min(8, count)))
                    break; // pipeline only once tensor parallelism is at a node's width
                const int dp = count / (tp * pp);
                if (dp > globalBatch) {
                    m_dpCap = globalBatch; // the user's global batch caps data parallelism
                    continue;
                }
                const long long perReplica = (globalBatch + dp - 1) / dp;
                for (int zero : {0, 1, 3}) {
                    if (dp == 1 && zero > 0)
                        break;
                    if (b.training.method != TrainMethod::Full && zero == 1)
                        continue; // adapters' states are tiny: only sharding the frozen base (ZeRO-3) buys memory
                    for (TrainPrecision prec : precisions) {
                        bool placed = false;
                        std::vector<Checkpointing> ckpts{b.training.checkpointing};
                        if (b.training.checkpointing != Checkpointing::Full && lm)
                            ckpts.push_back(Checkpointing::Full); // only if nothing fits without it
                        for (Checkpointing ck : ckpts) {
                            if (placed)
                                break;
                            // Holding global_batch_tokens, the micro-batch is free too: start
                            // at up to 16 sequences and halve until it fits.
                            const long long microStart =
                                heldTokens ? std::max<long long>(b.training.microBatch, 16) : b.training.microBatch;
                            for (int micro = int(std::min<long long>(microStart, perReplica)); micro >= 1;
                                 micro /= 2) {
                                m_work.hardware.count = count;
                                m_work.hardware.tp = tp;
                                m_work.hardware.pp = pp;
                                m_work.hardware.zero = zero;
                                m_work.training.precision = prec;
                                m_work.training.checkpointing = ck;
                                m_work.training.microBatch = micro;
                                m_work.training.gradAccum = int((perReplica + micro - 1) / micro);
                                GpuEstimate e = eval(g);
                                if (!e.fits || e.confidence.fits < m_conf) {
                                    noteMiss(g, e);
                                    continue;
                                }
                                placed = true;
                                if (!e.meetsTargets)
                                    noteMiss(g, e);
                                PlanOption o;
                                o.count = count;
                                o.tp = tp;
                                o.pp = pp;
                                o.zero = zero;
                                o.precision = std::string(toString(prec));
                                o.checkpointing = std::string(toString(ck));
                                o.microBatch = micro;
                                o.gradAccum = m_work.training.gradAccum;
                                o.usdPerHour = e.usdPerHour;
                                const auto& t = *e.training;
                                const double rate = lm ? t.tokensPerS : t.samplesPerS;
                                if (t.costUsd && t.hours) {
                                    o.costKey = *t.costUsd;
                                    o.timeKey = *t.hours;
                                } else {
                                    // No dataset size: rank by cost and time per million tokens/samples.
                                    o.costKey = rate > 0 && price > 0 ? e.usdPerHour / (rate * 3600) * 1e6 : kInf;
                                    o.timeKey = rate > 0 ? 1e6 / rate / 3600 : kInf;
                                }
                                // At the confidence: the time (and the cost with it) this
                                // option stays under with probability m_conf.
                                const double q = quantileFactor(e.uncertainty.throughput, rankP());
                                o.costKey *= q;
                                o.timeKey *= q;
                                o.confidence = e.confidence;
                                o.estimate = std::move(e);
                                keep(std::move(o), g);
                                break;
                            }
                        }
                    }
                }
            }
        }
    }
}

void Solver::inferenceCandidates(const Gpu& g)
{
    const Scenario& b = m_base;
    const ModelArch& model = b.model;
    const bool lm = model.isLanguageModel();
    std::vector<InferPrecision> precisions{b.inference.precision};
    for (const auto& name : b.hardware.precisions) // the allowed formats (hardware.precisions)
        for (InferPrecision q : {InferPrecision::FP32, InferPrecision::FP16, InferPrecision::BF16, InferPrecision::FP8,
                                 InferPrecision::INT8, InferPrecision::INT4, InferPrecision::FP4})
            if (toString(q) == name && std::find(precisions.begin(), precisions.end(), q) == precisions.end() &&
                (lm || q == b.inference.precision) &&
                // weight-only FP8 / FP4 on parts without those tensor cores are INT8's and INT4's case
                (q != InferPrecision::FP8 || g.supports(DType::FP8)) && (q != InferPrecision::FP4 || g.supports(DType::FP4)))
                precisions.push_back(q);
    auto weightBytes = [](InferPrecision p) {
        switch (p) {
        case InferPrecision::FP32: return 4.0;
        case InferPrecision::FP16:
        case InferPrecision::BF16: return 2.0;
        case InferPrecision::FP8:
        case InferPrecision::INT8: return 1.0;
        case InferPrecision::INT4:
        case InferPrecision::FP4: return 0.5;
        }
        return 2.0;
    };
    // precision "checkpoint" keeps the checkpoint's own storage: no requantization.
    if (lm && !b.inference.checkpointWeights) {
        for (InferPrecision q : {InferPrecision::FP8, InferPrecision::INT8, InferPrecision::INT4, InferPrecision::FP4}) {
            if (weightBytes(q) >= weightBytes(b.inference.precision) ||
                std::find(precisions.begin(), precisions.end(), q) != precisions.end())
                continue;
            if (q == InferPrecision::FP8 && !g.supports(DType::FP8))
                continue; // weight-only FP8 on older parts exists, but INT8 covers that case
            if (q == InferPrecision::FP4 && !g.supports(DType::FP4))
                continue; // likewise weight-only FP4: INT4 covers it
            precisions.push_back(q);
        }
    }
    const auto& tg = b.inference.targets;
    const bool slice = m_sliceOf.count(g.id) > 0;
    const int demand = std::max(1, b.inference.batch); // concurrent sequences to hold (spec: a demand)
    auto rateOf = [&](const GpuEstimate& e) { // requests/s one replica serves
        const auto& r = *e.inference;
        return r.tokensPerS ? *r.tokensPerS / std::max(1, b.inference.outputTokens) : r.samplesPerS.value_or(0);
    };
    for (int tp = 1; tp <= std::min(slice ? 1 : 8, b.hardware.maxCount); tp *= 2) {
        if (!lm && tp > 1)
            break;
        if (lm && !tpProblem(model, tp).empty())
            continue; // tp must divide the heads and the KV heads (or replicate them)
        for (InferPrecision prec : precisions) {
            m_work.hardware.count = tp;
            m_work.hardware.tp = tp;
            m_work.hardware.pp = 1;
            m_work.hardware.zero = 0;
            m_work.inference.precision = prec;
            if (b.inference.kvPrecision)
                m_work.inference.kvPrecision = b.inference.kvPrecision;
            auto at = [&](int batch) {
                m_work.inference.batch = batch;
                return eval(g);
            };
            // Continuous batching: one replica holds sequences while their KV
            // cache fits and the latency targets hold at its batch.
            const detail::ReplicaCapacity cap = detail::replicaCapacity(
                at, [&](const GpuEstimate& e) { noteMiss(g, e); }, tg, lm, 4096, m_conf);
            if (cap.users == 0)
                continue;
            // Replicas hold the demand; with a load they also serve its rate.
            double replicas = std::ceil(double(demand) / cap.users);
            std::string limit = cap.limit;
            GpuEstimate full = at(cap.users);
            if (tg.requestsPerS) {
                // The rate one replica serves at the confidence (its speed at the quantile).
                const double perReplica = rateOf(full) / quantileFactor(full.uncertainty.throughput, rankP());
                // In double: 1e9 requests/s overflowed an int into a negative count.
                const double forRate = perReplica > 0 ? std::max(1.0, std::ceil(*tg.requestsPerS / perReplica - 1e-9)) : kInf;
                if (forRate > replicas) {
                    replicas = forRate;
                    limit = "rate";
                }
            }
            if (replicas * tp > b.hardware.maxCount) {
                m_loadTooLarge = m_loadTooLarge || limit == "rate";
                Miss& miss = m_misses[g.id];
                miss.capacity = full.capacityBytes;
                if (miss.target.empty())
                    miss.target = (limit == "rate" ? "the load of " + num(*tg.requestsPerS, "%g") + " requests/s"
                                                   : std::to_string(demand) + " concurrent sequences") +
                                  " need " + num(replicas * tp, "%.3g") + " GPUs, more than hardware.max_count (" +
                                  std::to_string(b.hardware.maxCount) + ")";
                continue;
            }
            // Each replica carries its share of the demand; under a load, the
            // smallest batch at which the replicas serve the rate (a replica at
            // its capacity does, by the count above).
            int batch = static_cast<int>(std::ceil(demand / replicas));
            GpuEstimate e = batch == cap.users ? full : at(batch);
            auto sureRate = [&](const GpuEstimate& x) {
                return replicas * rateOf(x) / quantileFactor(x.uncertainty.throughput, rankP());
            };
            if (tg.requestsPerS && sureRate(e) < *tg.requestsPerS) {
                int lo = batch, hi = cap.users;
                while (hi - lo > 1) {
                    const int mid = lo + (hi - lo) / 2;
                    (sureRate(at(mid)) >= *tg.requestsPerS ? hi : lo) = mid;
                }
                batch = hi;
                e = at(hi);
            }
            if (!e.fits || !detail::meetsLatency(e, tg, m_conf)) {
                batch = cap.users; // latency or memory not monotone in the batch: take the checked one
                e = full;
            }
            const auto& r = *e.inference;
            PlanOption o;
            o.count = tp;
            o.tp = tp;
            o.precision = b.inference.checkpointWeights ? std::string("checkpoint") : std::string(toString(prec));
            o.microBatch = batch;
            o.replicas = static_cast<int>(replicas);
            o.usersPerReplica = cap.users;
            o.limit = limit;
            o.usdPerHour = e.usdPerHour * o.replicas;
            if (tg.requestsPerS)
                o.costKey = o.usdPerHour > 0 ? o.usdPerHour : kInf;
            else if (r.usdPerMillionTokens)
                o.costKey = *r.usdPerMillionTokens;
            else if (r.samplesPerS && e.usdPerHour > 0)
                o.costKey = e.usdPerHour / (*r.samplesPerS * 3600) * 1e6; // USD per million images
            else
                o.costKey = kInf;
            o.timeKey = r.tpotMs.value_or(r.latencyMs.value_or(0));
            // At the confidence: a speed-driven cost (USD per token) and the time
            // at their quantile; a load's replicas were sized at it above.
            const double q = quantileFactor(e.uncertainty.throughput, rankP());
            if (!tg.requestsPerS)
                o.costKey *= q;
            o.timeKey *= q;
            o.confidence.fits = e.confidence.fits;
            o.confidence.meetsTargets = e.confidence.latency;
            if (tg.requestsPerS && rateOf(e) > 0)
                o.confidence.meetsTargets = std::min(o.confidence.meetsTargets,
                                                     probabilityAtMost(1.0, replicas * rateOf(e) / *tg.requestsPerS,
                                                                       e.uncertainty.throughput));
            e.meetsTargets = true; // latency targets checked here; the demand and load are met by replicas
            e.targetMisses.clear();
            o.estimate = std::move(e);
            keep(std::move(o), g);
        }
    }
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

    // Why lines.
    if (training) {
        out.costLabel = m_base.training.datasetTokens || m_base.training.datasetSamples ? "cost to train (USD)"
                        : m_base.model.isLanguageModel() ? "USD per million tokens trained"
                                                         : "USD per million samples trained";
        out.timeLabel = m_base.training.datasetTokens || m_base.training.datasetSamples ? "hours"
                        : m_base.model.isLanguageModel() ? "hours per million tokens"
                                                         : "hours per million samples";
    } else {
        out.costLabel = m_base.inference.targets.requestsPerS ? "USD per hour for the load"
                        : m_base.model.isLanguageModel() ? "USD per million output tokens"
                                                         : "USD per million images";
        out.timeLabel = m_base.model.isLanguageModel() ? "TPOT (ms)" : "batch latency (ms)";
    }
    const PlanOption* first = distinct.empty() ? nullptr : &distinct.front();
    // Cheaper options the user did not allow: the best of each format (and of
    // consumer cards), listed apart with what they would save.
    std::stable_sort(disallowed.begin(), disallowed.end(), better);
    std::map<std::string, bool> asideSeen;
    for (auto& o : disallowed) {
        const std::string key = o.needs + "/" + (o.needs == "precision" ? o.precision : std::string());
        if (asideSeen[key] || (first && o.costKey >= first->costKey))
            continue;
        asideSeen[key] = true;
        o.saving = first && first->costKey > 0 ? 1 - o.costKey / first->costKey : 0;
        std::string why = std::to_string(o.count * o.replicas) + "x " + o.gpuName + " at " + o.precision;
        why += first ? ": " + num(o.saving * 100, "%.0f") + "% cheaper than rank 1" : ": no allowed option meets the targets";
        if (o.needs == "precision") {
            why += "; not ranked: " + o.precision + " is not in hardware.precisions (allowed: ";
            std::string allowed;
            if (m_base.hardware.precisions.empty())
                allowed = std::string(training ? toString(m_base.training.precision) : toString(m_base.inference.precision));
            for (const auto& a : m_base.hardware.precisions)
                allowed += (allowed.empty() ? "" : ", ") + a;
            why += allowed + "). Quality: " +
                   (o.precision == "fp8"   ? std::string("FP8 is usually within noise of 16-bit on benchmarks, but check your task")
                    : o.precision == "int8" ? std::string("INT8 weight-only loses little; check your task")
                    : o.precision == "int4" || o.precision == "fp4"
                        ? "4-bit weights lose measurable accuracy on some tasks (reasoning, code); evaluate before switching"
                        : "a different numeric format changes the results; evaluate before switching");
        } else {
            why += "; not ranked: a GeForce card, whose driver licence excludes data-centre use; allow it with "
                   "hardware.consumer or name it in hardware.gpus";
        }
        o.why = why;
        out.apart.push_back(o);
    }
    for (auto& o : out.options) {
        const auto& e = o.estimate;
        std::string why = (o.mig.empty() ? "fits in " + std::to_string(o.count) + "x " : "fits in a MIG " + o.mig + " slice of ") +
                          o.gpuName + " (" + detail::planLayout(o) + ", " +
                          num(units::bytesToGiB(e.memory.total()), "%.1f") + " of " +
                          num(units::bytesToGiB(e.capacityBytes), "%.0f") + " GiB per GPU) at " + o.precision;
        if (training) {
            const auto& t = *e.training;
            if (t.hours)
                why += ", " + num(*t.hours, "%.3g") + " h";
            if (t.costUsd)
                why += ", " + money(*t.costUsd);
            if (m_base.training.targets.deadlineHours && t.hours)
                why += ", " + num((1 - *t.hours / *m_base.training.targets.deadlineHours) * 100, "%.0f") +
                       "% inside the deadline";
            if (o.checkpointing != std::string(toString(m_base.training.checkpointing)))
                why += ", with " + o.checkpointing + " checkpointing";
            if (o.microBatch != m_base.training.microBatch || o.gradAccum != m_base.training.gradAccum)
                why += ", micro-batch " + std::to_string(o.microBatch) + " x " + std::to_string(o.gradAccum) +
                       " accumulation (global batch kept)";
        } else {
            const auto& r = *e.inference;
            const bool lmOut = m_base.model.isLanguageModel();
            why += ", " + std::to_string(o.replicas) + (o.replicas > 1 ? " replicas x " : " replica x ") +
                   std::to_string(o.microBatch) + (lmOut ? " users" : " images") + " (";
            if (o.usersPerReplica > o.microBatch)
                why += "up to " + std::to_string(o.usersPerReplica) + " per replica at the targets; ";
            why += "limit: " + detail::limitText(o.limit) + ")";
            if (r.tpotMs) {
                why += ": TPOT " + num(*r.tpotMs, "%.3g") + " ms";
                if (m_base.inference.targets.tpotMs)
                    why += " (" + num((1 - *r.tpotMs / *m_base.inference.targets.tpotMs) * 100, "%.0f") + "% headroom)";
                why += ", TTFT " + num(r.ttftMs.value_or(0), "%.3g") + " ms";
            } else if (r.latencyMs) {
                why += ": " + num(*r.latencyMs, "%.3g") + " ms per batch";
            }
            if (r.usdPerMillionTokens)
                why += ", " + money(*r.usdPerMillionTokens) + "/M tokens";
            if (o.precision == "int4" || o.precision == "int8" || o.precision == "fp4")
                why += " (check quality at " + o.precision + ")";
        }
        why += "; " + num(o.confidence.fits * o.confidence.meetsTargets * 100, "%.0f") + "% sure to fit" +
               (hasTargets() ? " and meet the targets" : "");
        if (e.uncertainty.throughput > 0.2)
            why += " (speed +/-" + num(e.uncertainty.throughput * 100, "%.0f") +
                   "%, 1 sigma: beyond the runs the calibration measured)";
        if (training && o.precision == "fp8" && m_base.training.precision != TrainPrecision::FP8)
            why += " (FP8 training needs Transformer Engine / torchao)";
        if (first && o.rank > 1 && first->costKey > 0)
            why += "; " + num(o.costKey / first->costKey, "%.2f") + "x the cost of rank 1";
        else if (distinct.size() > 1 && distinct[1].costKey > 0 && o.rank == 1) {
            const double saving = 1 - o.costKey / distinct[1].costKey;
            if (saving < 0.005)
                why += "; as cheap as " + std::to_string(distinct[1].count) + "x " + distinct[1].gpuName +
                       " (the next option: same cost, " + num(distinct[1].timeKey, "%.3g") + " instead of " +
                       num(o.timeKey, "%.3g") + " " + out.timeLabel + ")";
            else
                why += "; " + num(saving * 100, "%.0f") + "% cheaper than " + std::to_string(distinct[1].count) + "x " +
                       distinct[1].gpuName;
            // Its margin against its own 1-sigma speed error (log scale, as the errors are modelled).
            if (std::log(distinct[1].costKey / o.costKey) < e.uncertainty.throughput)
                why += " (within noise of #2: the margin is less than this estimate's +/-" +
                       num(e.uncertainty.throughput * 100, "%.0f") + "% speed uncertainty)";
        }
        o.why = why;
    }

    // Popular GPUs that lost.
    for (const char* id : kPopular) {
        const bool listed = std::any_of(out.options.begin(), out.options.end(), [&](const PlanOption& o) { return o.gpu == id; });
        if (listed || !m_catalog.find(id))
            continue;
        if (!m_base.hardware.gpus.empty() &&
            std::find(m_base.hardware.gpus.begin(), m_base.hardware.gpus.end(), id) == m_base.hardware.gpus.end())
            continue;
        auto it = std::find_if(distinct.begin(), distinct.end(), [&](const PlanOption& o) { return o.gpu == id; });
        std::string why;
        if (it != distinct.end()) {
            why = "best is rank " + std::to_string(it->rank) + " (" + std::to_string(it->count) + " GPUs, " +
                  detail::planLayout(*it) + "): " +
                  num(first && first->costKey > 0 ? it->costKey / first->costKey : 1, "%.2f") + "x the cost of rank 1";
        } else if (std::find(m_unpriced.begin(), m_unpriced.end(), id) != m_unpriced.end()) {
            why = "no price listed for the " + std::string(toString(m_base.pricing.model)) + " pricing model";
        } else {
            const Miss& miss = m_misses[id];
            if (!miss.target.empty())
                why = "misses a target at every size tried: " + miss.target +
                      (training && m_dpCap > 0 ? " (data parallelism capped at " + std::to_string(m_dpCap) +
                                                     " by the global batch; see the notes)"
                                               : "");
            else if (std::isfinite(miss.bestMemory))
                why = "does not fit: needs at least " + num(units::bytesToGiB(miss.bestMemory), "%.1f") +
                      " GiB per GPU of " + num(units::bytesToGiB(miss.capacity), "%.0f") + " at every size up to " +
                      std::to_string(training ? m_base.hardware.maxCount : std::min(8, m_base.hardware.maxCount)) + " GPUs";
            else
                why = "no configuration met the targets";
        }
        out.alternatives.push_back({id, why});
    }
    if (!m_unpriced.empty()) {
        std::string ids;
        for (const auto& id : m_unpriced)
            ids += (ids.empty() ? "" : ", ") + id;
        out.notes.push_back("Not ranked (no " + std::string(toString(m_base.pricing.model)) + " price listed): " + ids);
    }
    if (distinct.empty() && m_loadTooLarge)
        out.notes.push_back("No option can serve " + num(*m_base.inference.targets.requestsPerS, "%g") +
                            " requests/s within hardware.max_count (" + std::to_string(m_base.hardware.maxCount) +
                            ") GPUs; raise max_count or lower the load.");
    else if (distinct.empty())
        out.notes.push_back("No configuration fits and meets the targets; see the alternatives for the closest misses.");
    if (m_base.model.approximate)
        out.notes.push_back("The model shape was guessed from its size: " + m_base.model.shapeNote);
    if (training && m_dpCap > 0) {
        const bool held = m_base.training.globalBatchTokens && m_base.model.isLanguageModel();
        std::string note = "Data parallelism capped at " + std::to_string(m_dpCap) + " replicas by the global batch of " +
                           std::to_string(m_dpCap) + (m_base.model.isLanguageModel() ? " sequences" : " samples");
        if (held)
            note += " (workload.training.global_batch_tokens " + num(*m_base.training.globalBatchTokens, "%.6g") +
                    " / seq_len " + std::to_string(m_base.training.seqLen) + ")";
        else
            note += " (micro_batch x grad_accum x data-parallel GPUs of the scenario); larger jobs would change the "
                    "optimization. Set workload.training.global_batch_tokens to the batch you train with to let the "
                    "plan add data-parallel GPUs";
        out.notes.push_back(note + ".");
    }
    if (m_conf > 0.5)
        out.notes.push_back("Ranked at " + num(m_conf * 100, "%.0f") + "% confidence: an option is kept when it fits and "
                            "meets the targets with at least that probability, and its cost and time are the values it "
                            "stays under with that probability (the estimate's uncertainty, lognormal).");
    return out;
}

} // namespace

PlanResult plan(const Scenario& s, const Catalog& catalog, const PlanRequest& request)
{
    Solver solver(s, catalog, request);
    return solver.run();
}

} // namespace gp
