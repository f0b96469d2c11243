// The plan's output: the JSON document and the text table (`gpuplanner-cli plan`).
#include "core/plan/planner.h"
#include "core/plan/planoutput.h"
#include "core/estimate/confidence.h"

#include "core/base/textformat.h"
#include "core/base/units.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace gp {

std::string detail::planLayout(const PlanOption& o)
{
    std::string s;
    if (o.tp > 1)
        s += "TP" + std::to_string(o.tp);
    if (o.pp > 1)
        s += std::string(s.empty() ? "" : " ") + "PP" + std::to_string(o.pp);
    const int dp = o.count / (o.tp * o.pp);
    if (dp > 1)
        s += std::string(s.empty() ? "" : " ") + "DP" + std::to_string(dp) + (o.zero ? " ZeRO-" + std::to_string(o.zero) : "");
    if (!o.mig.empty())
        return "MIG " + o.mig + " slice";
    return s.empty() ? "single GPU" : s;
}

std::string planToJson(const PlanResult& r)
{
    using nlohmann::ordered_json;
    ordered_json doc;
    doc["format"] = "gpuplanner-plan";
    doc["version"] = 1;
    doc["scenario"] = r.scenario;
    doc["confidence"] = round4(r.confidence);
    auto optionJson = [](const PlanOption& o) {
        ordered_json j;
        if (o.rank > 0)
            j["rank"] = o.rank;
        j["gpu"] = o.gpu;
        if (!o.mig.empty())
            j["mig"] = o.mig;
        j["count"] = o.count;
        j["tp"] = o.tp;
        j["pp"] = o.pp;
        j["zero"] = o.zero;
        j["replicas"] = o.replicas;
        j["precision"] = o.precision;
        j["micro_batch"] = o.microBatch;
        if (o.estimate.training) {
            j["grad_accum"] = o.gradAccum;
            j["activation_checkpointing"] = o.checkpointing;
        }
        j["fits"] = o.fits;
        j["meets_targets"] = o.meetsTargets;
        j["usd_per_hour"] = round4(o.usdPerHour);
        j["memory_gib_per_gpu"] = round4(units::bytesToGiB(o.estimate.memory.total()));
        if (o.estimate.training) {
            const auto& t = *o.estimate.training;
            ordered_json tr;
            if (t.tokensPerS > 0)
                tr["tokens_per_s"] = round4(t.tokensPerS);
            else
                tr["samples_per_s"] = round4(t.samplesPerS);
            if (t.hours)
                tr["hours"] = round4(*t.hours);
            if (t.costUsd)
                tr["cost_usd"] = round4(*t.costUsd);
            j["training"] = tr;
        }
        if (o.estimate.inference) {
            const auto& i = *o.estimate.inference;
            ordered_json in;
            if (i.ttftMs)
                in["ttft_ms"] = round4(*i.ttftMs);
            if (i.tpotMs)
                in["tpot_ms"] = round4(*i.tpotMs);
            if (i.tokensPerS)
                in["tokens_per_s"] = round4(*i.tokensPerS * o.replicas);
            if (i.usdPerMillionTokens)
                in["usd_per_million_tokens"] = round4(*i.usdPerMillionTokens);
            if (i.samplesPerS)
                in["samples_per_s"] = round4(*i.samplesPerS * o.replicas);
            if (i.latencyMs)
                in["latency_ms"] = round4(*i.latencyMs);
            j["inference"] = in;
            // Extension keys: what one replica holds at the targets, and why no more.
            j["users_per_replica"] = o.usersPerReplica;
            j["limit"] = o.limit;
        }
        j["confidence"] = {{"fits", round4(o.confidence.fits)}, {"meets_targets", round4(o.confidence.meetsTargets)}};
        // Extension keys: the bands the confidence comes from, and where each comes from (issue #16).
        const Uncertainty& u = o.estimate.uncertainty;
        j["uncertainty"] = {{"memory", round4(u.memory)},
                            {"throughput", round4(u.throughput)},
                            {"throughput_origin", bandOrigin(u, true)},
                            {"memory_origin", bandOrigin(u, false)}};
        if (!o.needs.empty()) {
            j["needs"] = o.needs;
            j["saving"] = round4(o.saving);
        }
        j["why"] = o.why;
        return j;
    };
    ordered_json options = ordered_json::array();
    for (const auto& o : r.options)
        options.push_back(optionJson(o));
    doc["options"] = options;
    // Extension key: cheaper options that need what the user did not allow
    // (another precision, a consumer card for serving), not ranked.
    ordered_json apart = ordered_json::array();
    for (const auto& o : r.apart)
        apart.push_back(optionJson(o));
    doc["not_ranked"] = apart;
    doc["pareto"] = r.pareto;
    ordered_json alts = ordered_json::array();
    for (const auto& a : r.alternatives)
        alts.push_back({{"gpu", a.gpu}, {"why", a.why}});
    doc["alternatives"] = alts;
    doc["cost_key"] = r.costLabel;
    doc["time_key"] = r.timeLabel;
    doc["considered"] = r.considered;
    doc["feasible"] = r.feasible;
    if (!r.notes.empty())
        doc["notes"] = r.notes;
    return doc.dump(2, ' ', false, ordered_json::error_handler_t::replace) + "\n";
}

std::string planToTable(const PlanResult& r)
{
    std::ostringstream out;
    out << r.scenario << "\n" << r.considered << " configurations estimated, " << r.feasible
        << " fit and meet the targets with probability " << round4(r.confidence) << " or more. Ranked by "
        << r.costLabel << ", then " << r.timeLabel << ", at that confidence.\n\n";
    for (const auto& o : r.options) {
        const bool onFront = std::find(r.pareto.begin(), r.pareto.end(), o.rank) != r.pareto.end();
        char line[160];
        std::snprintf(line, sizeof line, "%3d%s %-24s x%-5d %-24s %-7s %12.4g %12.4g\n", o.rank, onFront ? "*" : " ",
                      o.gpu.c_str(), o.count * o.replicas, detail::planLayout(o).c_str(), o.precision.c_str(), o.costKey, o.timeKey);
        out << line;
        if (o.estimate.inference)
            out << "      replicas x batch: " << o.replicas << " x " << o.microBatch << ", one replica holds "
                << o.usersPerReplica << " at the targets (limit: " << o.limit << ")\n";
        out << "      " << o.why << "\n";
    }
    out << "(* = on the cost-vs-time Pareto front; columns: " << r.costLabel << ", " << r.timeLabel << ")\n";
    if (!r.apart.empty()) {
        out << "\nNot ranked (need what the scenario does not allow):\n";
        for (const auto& o : r.apart)
            out << "  " << o.why << "\n";
    }
    if (!r.alternatives.empty()) {
        out << "\nPopular alternatives:\n";
        for (const auto& a : r.alternatives)
            out << "  " << a.gpu << ": " << a.why << "\n";
    }
    for (const auto& n : r.notes)
        out << "note: " << n << "\n";
    return out.str();
}

} // namespace gp
