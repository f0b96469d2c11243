// Writers for the estimate document (spec: gpuplanner-estimate v1), CSV and a
// plain-text table.
#include "core/estimate/estimate.h"
#include "core/estimate/confidence.h"

#include "core/base/textformat.h"
#include "core/base/units.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <sstream>

namespace gp {

using nlohmann::ordered_json;

namespace {

double gib(double bytes) { return round4(units::bytesToGiB(bytes)); }

ordered_json resultJson(const GpuEstimate& r)
{
    ordered_json j;
    j["gpu"] = r.gpuId;
    j["count"] = r.count;
    j["fits"] = r.fits;
    ordered_json m;
    m["weights"] = gib(r.memory.weights);
    if (r.training) {
        m["gradients"] = gib(r.memory.gradients);
        m["optimizer"] = gib(r.memory.optimizer);
    }
    m["activations"] = gib(r.memory.activations);
    if (r.inference && !r.inference->samplesPerS) // language models only
        m["kv_cache"] = gib(r.memory.kvCache);
    m["overhead"] = gib(r.memory.overhead);
    m["total"] = gib(r.memory.total());
    j["memory_gib"] = m;
    if (r.training) {
        const auto& t = *r.training;
        ordered_json o;
        if (t.tokensPerS > 0)
            o["tokens_per_s"] = round4(t.tokensPerS);
        o["samples_per_s"] = round4(t.samplesPerS);
        o["step_ms"] = round4(t.stepMs);
        o["mfu"] = round4(t.mfu);
        if (t.hours)
            o["hours"] = round4(*t.hours);
        if (t.costUsd)
            o["cost_usd"] = round4(*t.costUsd);
        j["training"] = o;
    }
    if (r.inference) {
        const auto& i = *r.inference;
        ordered_json o;
        auto put = [&](const char* key, const std::optional<double>& v) {
            if (v)
                o[key] = round4(*v);
        };
        put("ttft_ms", i.ttftMs);
        put("ttft_p99_ms", i.ttftP99Ms);
        put("tpot_ms", i.tpotMs);
        put("tokens_per_s", i.tokensPerS);
        put("samples_per_s", i.samplesPerS);
        put("latency_ms", i.latencyMs);
        put("usd_per_million_tokens", i.usdPerMillionTokens);
        if (i.admitted)
            o["admitted_sequences"] = *i.admitted; // extension key: what the engine holds at once
        j["inference"] = o;
    }
    ordered_json cost = ordered_json::object();
    if (r.usdPerHour > 0)
        cost["usd_per_hour"] = round4(r.usdPerHour);
    j["cost"] = cost;
    // Extension keys beside the spec's two: where each band comes from (issue #16).
    j["uncertainty"] = {{"memory", round4(r.uncertainty.memory)},
                        {"throughput", round4(r.uncertainty.throughput)},
                        {"throughput_origin", bandOrigin(r.uncertainty, true)},
                        {"memory_origin", bandOrigin(r.uncertainty, false)}};
    j["confidence"] = {{"fits", round4(r.confidence.fits)}, {"meets_targets", round4(r.confidence.meetsTargets)}};
    j["capacity_gib"] = gib(r.capacityBytes);
    j["meets_targets"] = r.meetsTargets && r.fits;
    if (!r.targetMisses.empty())
        j["target_misses"] = r.targetMisses;
    j["compute_precision"] = r.computePrecision;
    if (r.approximate)
        j["approximate"] = true;
    if (!r.notes.empty())
        j["notes"] = r.notes;
    return j;
}

// Through the one formatter (textformat.h): a cost of 3.48e300 is "3.48e+300", not 63 digits.
std::string num(double v, int prec = 3)
{
    if (!std::isfinite(v))
        return "-";
    return formatFixed(v, prec);
}

std::string sig(double v)
{
    if (!std::isfinite(v))
        return "-";
    return formatDouble(std::fabs(v) >= 100 && std::fabs(v) < 1e5 ? "%.0f" : "%.3g", v);
}

} // namespace

std::string estimateToJson(const Estimate& e)
{
    ordered_json doc;
    doc["format"] = "gpuplanner-estimate";
    doc["version"] = 1;
    doc["scenario"] = e.scenario;
    if (e.model.params > 0) {
        ordered_json model;
        model["params"] = e.model.params;
        model["active_params"] = e.model.activeParams;
        if (e.model.kvBytesPerSequence)
            model["kv_bytes_per_sequence"] = *e.model.kvBytesPerSequence;
        doc["model"] = model;
    }
    ordered_json results = ordered_json::array();
    for (const auto& r : e.results)
        results.push_back(resultJson(r));
    doc["results"] = results;
    if (!e.warnings.empty())
        doc["warnings"] = e.warnings;
    return doc.dump(2, ' ', false, ordered_json::error_handler_t::replace) + "\n";
}

std::string estimateToCsv(const Estimate& e)
{
    std::ostringstream out;
    out << "gpu,count,fits,meets_targets,memory_total_gib,capacity_gib,weights_gib,gradients_gib,optimizer_gib,"
           "activations_gib,kv_cache_gib,overhead_gib,tokens_per_s,samples_per_s,step_ms,mfu,hours,cost_usd,ttft_ms,"
           "tpot_ms,latency_ms,usd_per_million_tokens,usd_per_hour,uncertainty_memory,uncertainty_throughput\n";
    auto opt = [](const std::optional<double>& v) { return v ? num(*v, 6) : std::string(); };
    for (const auto& r : e.results) {
        const auto& m = r.memory;
        out << r.gpuId << ',' << r.count << ',' << (r.fits ? "true" : "false") << ','
            << (r.meetsTargets && r.fits ? "true" : "false") << ',' << num(units::bytesToGiB(m.total())) << ','
            << num(units::bytesToGiB(r.capacityBytes)) << ',' << num(units::bytesToGiB(m.weights)) << ','
            << num(units::bytesToGiB(m.gradients)) << ',' << num(units::bytesToGiB(m.optimizer)) << ','
            << num(units::bytesToGiB(m.activations)) << ',' << num(units::bytesToGiB(m.kvCache)) << ','
            << num(units::bytesToGiB(m.overhead)) << ',';
        if (r.training) {
            const auto& t = *r.training;
            out << (t.tokensPerS > 0 ? num(t.tokensPerS, 1) : "") << ',' << num(t.samplesPerS, 3) << ','
                << num(t.stepMs, 3) << ',' << num(t.mfu, 4) << ',' << opt(t.hours) << ',' << opt(t.costUsd) << ",,,,,";
        } else {
            const auto& i = *r.inference;
            out << opt(i.tokensPerS) << ',' << opt(i.samplesPerS) << ",,,,," << opt(i.ttftMs) << ',' << opt(i.tpotMs)
                << ',' << opt(i.latencyMs) << ',' << opt(i.usdPerMillionTokens) << ',';
        }
        out << (r.usdPerHour > 0 ? num(r.usdPerHour, 4) : "") << ',' << num(r.uncertainty.memory, 3) << ','
            << num(r.uncertainty.throughput, 3) << '\n';
    }
    return out.str();
}

std::string estimateToTable(const Estimate& e)
{
    std::ostringstream out;
    out << e.scenario << "\n";
    const bool training = !e.results.empty() && e.results.front().training.has_value();
    char line[512];
    if (training)
        std::snprintf(line, sizeof line, "%-30s %4s %-4s %17s %12s %9s %6s %10s %10s %11s %6s\n", "gpu", "n", "fits",
                      "VRAM GiB need/has", "tok|img /s", "step ms", "MFU", "hours", "$/h", "cost $", "+/-");
    else
        std::snprintf(line, sizeof line, "%-30s %4s %-4s %17s %10s %9s %11s %10s %9s %6s\n", "gpu", "n", "fits",
                      "VRAM GiB need/has", "TTFT ms", "TPOT ms", "tokens/s", "$/h", "$/Mtok", "+/-");
    out << line;
    for (const auto& r : e.results) {
        const std::string memText = formatDouble("%.1f", units::bytesToGiB(r.memory.total())) + "/" +
                                    formatDouble("%.0f", units::bytesToGiB(r.capacityBytes));
        const char* mem = memText.c_str();
        const std::string fits = r.fits ? (r.meetsTargets ? "yes" : "yes*") : "no";
        const std::string usd = r.usdPerHour > 0 ? num(r.usdPerHour, 2) : "-";
        if (r.training) {
            const auto& t = *r.training;
            std::snprintf(line, sizeof line, "%-30s %4d %-4s %17s %12s %9s %6s %10s %10s %11s %5.0f%%\n", r.gpuId.c_str(),
                          r.count, fits.c_str(), mem, sig(t.tokensPerS > 0 ? t.tokensPerS : t.samplesPerS).c_str(),
                          sig(t.stepMs).c_str(), num(t.mfu * 100, 1).c_str(), t.hours ? sig(*t.hours).c_str() : "-",
                          usd.c_str(), t.costUsd ? sig(*t.costUsd).c_str() : "-", r.uncertainty.throughput * 100);
        } else {
            const auto& i = *r.inference;
            const bool vision = i.samplesPerS.has_value();
            std::snprintf(line, sizeof line, "%-30s %4d %-4s %17s %10s %9s %11s %10s %9s %5.0f%%\n", r.gpuId.c_str(),
                          r.count, fits.c_str(), mem, vision ? sig(*i.latencyMs).c_str() : sig(*i.ttftMs).c_str(),
                          vision ? "-" : sig(*i.tpotMs).c_str(),
                          vision ? sig(*i.samplesPerS).c_str() : sig(*i.tokensPerS).c_str(), usd.c_str(),
                          i.usdPerMillionTokens ? num(*i.usdPerMillionTokens, 3).c_str() : "-",
                          r.uncertainty.throughput * 100);
        }
        out << line;
    }
    out << "yes* = fits but misses a target; +/- = 1-sigma throughput uncertainty"
        << (training ? "" : "; vision rows show batch latency in the TTFT column and images/s") << "\n";
    return out.str();
}

} // namespace gp
