// The planner's candidates on one GPU: for training, each count, ZeRO stage,
// checkpointing and micro-batch that keeps the global batch; for inference, each
// count, TP/PP layout and format, sized to the users a replica holds at the
// targets and to the replicas the load needs (planserving.h).
#include "core/plan/plansolver.h"

#include "core/plan/planserving.h"
#include "core/estimate/confidence.h"

#include <algorithm>
#include <cmath>

namespace gp::plansolver {

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
            // LoRA and QLoRA run on the adapter stacks (peft under accelerate,
            // DeepSpeed or FSDP; torchtune's LoRA recipes), which spread a job
            // over GPUs by data parallelism and shard the frozen base with
            // ZeRO-3 / FSDP (huggingface/peft docs/source/accelerate/
            // deepspeed.md and fsdp.md; bitsandbytes docs fsdp_qlora.md for
            // 4-bit bases): none has tensor or pipeline parallelism, and every
            // training target of `launch` refuses TP/PP. So adapter plans are
            // data parallel, and each one is an option `launch` can write.
            if (tp > 1 && b.training.method != TrainMethod::Full)
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

} // namespace gp::plansolver
