// The planner's explanations: the cost and time labels, the why line of each
// ranked option and of each cheaper option set apart (a format or a consumer card
// the user did not allow), why each popular GPU lost, and the plan's notes.
#include "core/plan/plansolver.h"

#include "core/plan/planoutput.h"
#include "core/estimate/confidence.h"
#include "core/plan/planserving.h"
#include "core/base/units.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace gp::plansolver {

namespace {

// GPUs people ask about: if one misses the list, say why.
const char* const kPopular[] = {"nvidia-h100-sxm", "nvidia-h200-sxm", "nvidia-a100-80gb-sxm", "nvidia-l40s",
                                "nvidia-rtx-4090", "nvidia-l4",       "nvidia-b200",          "amd-mi300x"};

} // namespace

void Solver::explain(PlanResult& out, const std::vector<PlanOption>& distinct, std::vector<PlanOption>& disallowed)
{
    const bool training = m_base.mode == Mode::Training;
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
        // The speed band and where it comes from (issue #16: by distance from measurement).
        why += " (speed +/-" + num(e.uncertainty.throughput * 100, "%.0f") + "% at 1 sigma: " +
               bandOrigin(e.uncertainty) + ")";
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
}

} // namespace gp::plansolver
