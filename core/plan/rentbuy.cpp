// Rent vs buy: monthly cost curves and break-even points.
#include "core/plan/rentbuy.h"

#include "core/hardware/catalog.h"
#include "core/base/errors.h"
#include "core/scenario/scenario.h"
#include "core/base/textformat.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace gp {

namespace {

constexpr double kHoursPerMonth = 8760.0 / 12;
// Reserved capacity: 1-3 year commitments list 35-45% below on-demand at the
// large providers; it is billed for every hour, used or not.
constexpr double kReservedShare = 0.6;
// Spot training loses work to preemptions: restart from the last checkpoint.
constexpr double kSpotRestartOverhead = 1.15;

std::string money(double v) { return formatDouble(v >= 100 ? "$%.0f" : "$%.2f", v); }

} // namespace

RentVsBuy rentVsBuy(const Scenario& s, const Gpu& g, int count)
{
    RentVsBuy r;
    r.gpu = g.id;
    r.gpuName = g.name;
    r.count = count;
    const auto& pr = s.pricing;
    const bool training = s.mode == Mode::Training;
    r.usedGpuHoursPerMonth = kHoursPerMonth * pr.utilization * count;
    r.onDemandUsdPerGpuHour = g.pricePerHour.typical;
    r.spotUsdPerGpuHour = g.pricePerHour.spot;
    r.reservedUsdPerGpuHour = g.pricePerHour.typical * kReservedShare;
    r.purchaseUsdPerGpu = g.purchaseUsd;
    r.energyUsdPerGpuHour = g.tdpW / 1000 * pr.pue * pr.electricityUsdPerKwh;
    r.hostingUsdPerGpuYear = pr.hostingUsdPerGpuYear;
    if (r.onDemandUsdPerGpuHour <= 0 && r.purchaseUsdPerGpu <= 0)
        throw InputError("hardware.gpus", g.id + " has neither a rental nor a purchase price in the catalog");

    const int months = std::max(1, int(std::lround(pr.amortizationYears * 12)));
    auto curve = [&](const std::string& label, auto&& monthly, double upfront) {
        CostCurve c{label, {}};
        double total = upfront;
        c.usd.push_back(total);
        for (int m = 1; m <= months; ++m) {
            total += monthly();
            c.usd.push_back(total);
        }
        r.curves.push_back(std::move(c));
    };
    const double used = r.usedGpuHoursPerMonth;
    if (r.onDemandUsdPerGpuHour > 0) {
        curve("Rent on-demand", [&] { return used * r.onDemandUsdPerGpuHour; }, 0);
        if (r.spotUsdPerGpuHour)
            curve(training ? "Rent spot (+15% restarts)" : "Rent spot",
                  [&] { return used * *r.spotUsdPerGpuHour * (training ? kSpotRestartOverhead : 1.0); }, 0);
        curve("Rent reserved (all hours billed)",
              [&] { return kHoursPerMonth * count * r.reservedUsdPerGpuHour; }, 0);
    }
    if (r.purchaseUsdPerGpu > 0)
        curve("Own", [&] { return used * r.energyUsdPerGpuHour + r.hostingUsdPerGpuYear / 12 * count; },
              r.purchaseUsdPerGpu * count);

    if (r.onDemandUsdPerGpuHour > 0 && r.purchaseUsdPerGpu > 0) {
        const double margin = r.onDemandUsdPerGpuHour - r.energyUsdPerGpuHour;
        if (margin > 0) {
            const double fixed = r.purchaseUsdPerGpu + r.hostingUsdPerGpuYear * pr.amortizationYears;
            r.breakEvenGpuHours = fixed / margin;
            r.breakEvenUtilization = *r.breakEvenGpuHours / (pr.amortizationYears * 8760);
        }
        const auto& rent = r.curves.front().usd;
        const auto& own = r.curves.back().usd;
        for (int m = 0; m <= months; ++m)
            if (own[std::size_t(m)] <= rent[std::size_t(m)]) {
                r.breakEvenMonth = m;
                break;
            }
        // Through the one formatter (textformat.h): any double, no fixed buffer.
        if (r.breakEvenUtilization && *r.breakEvenUtilization <= 1) {
            r.verdict = "Owning pays off after " + formatDouble("%.0f", *r.breakEvenGpuHours) + " busy GPU-hours (" +
                        formatPercent(*r.breakEvenUtilization) + " utilization over " +
                        formatDouble("%.3g", pr.amortizationYears) + " years)" +
                        (r.hostingUsdPerGpuYear > 0 ? " including hosting" : " before hosting and staff") + "; at " +
                        formatPercent(pr.utilization) + " utilization " +
                        (r.breakEvenMonth ? "buying wins from month " + std::to_string(*r.breakEvenMonth)
                                          : std::string("renting on-demand stays cheaper over the whole period")) +
                        ".";
        } else {
            r.verdict = "Renting on-demand stays cheaper: even at 100% utilization the purchase is not earned back in " +
                        formatDouble("%.3g", pr.amortizationYears) + " years.";
        }
    } else if (r.purchaseUsdPerGpu <= 0) {
        r.verdict = "No purchase price listed: rent.";
    } else {
        r.verdict = "No rental price listed: owning is the only option priced.";
    }
    if (!training && r.spotUsdPerGpuHour)
        r.notes.push_back("Spot capacity can be reclaimed at any time: serving on spot risks dropped requests and "
                          "missed latency targets; keep the baseline on on-demand or reserved.");
    if (training && r.spotUsdPerGpuHour)
        r.notes.push_back("Spot training includes 15% for restarts from the last checkpoint after preemptions.");
    if (r.hostingUsdPerGpuYear <= 0 && r.purchaseUsdPerGpu > 0)
        r.notes.push_back("Owning excludes hosting, networking and staff (pricing.hosting_usd_per_gpu_year); a small "
                          "team's staff alone is quoted at $225-300k over 3 years.");
    return r;
}

std::string rentVsBuyToJson(const std::vector<RentVsBuy>& rows)
{
    using nlohmann::ordered_json;
    ordered_json doc;
    doc["format"] = "gpuplanner-rent-vs-buy";
    doc["version"] = 1;
    ordered_json arr = ordered_json::array();
    for (const auto& r : rows) {
        ordered_json j;
        j["gpu"] = r.gpu;
        j["count"] = r.count;
        j["used_gpu_hours_per_month"] = r.usedGpuHoursPerMonth;
        j["on_demand_usd_per_gpu_hour"] = r.onDemandUsdPerGpuHour;
        if (r.spotUsdPerGpuHour)
            j["spot_usd_per_gpu_hour"] = *r.spotUsdPerGpuHour;
        j["reserved_usd_per_gpu_hour"] = r.reservedUsdPerGpuHour;
        j["purchase_usd_per_gpu"] = r.purchaseUsdPerGpu;
        j["energy_usd_per_gpu_hour"] = r.energyUsdPerGpuHour;
        j["hosting_usd_per_gpu_year"] = r.hostingUsdPerGpuYear;
        if (r.breakEvenGpuHours)
            j["break_even_gpu_hours"] = *r.breakEvenGpuHours;
        if (r.breakEvenUtilization)
            j["break_even_utilization"] = *r.breakEvenUtilization;
        if (r.breakEvenMonth)
            j["break_even_month"] = *r.breakEvenMonth;
        ordered_json curves = ordered_json::array();
        for (const auto& c : r.curves)
            curves.push_back({{"label", c.label}, {"cumulative_usd_by_month", c.usd}});
        j["curves"] = curves;
        j["verdict"] = r.verdict;
        if (!r.notes.empty())
            j["notes"] = r.notes;
        arr.push_back(j);
    }
    doc["results"] = arr;
    return doc.dump(2) + "\n";
}

std::string rentVsBuyToTable(const std::vector<RentVsBuy>& rows)
{
    std::ostringstream out;
    char line[256];
    std::snprintf(line, sizeof line, "%-26s %5s %9s %9s %10s %9s %12s %8s\n", "gpu", "count", "rent $/h", "spot $/h",
                  "buy $", "power $/h", "break-even h", "util");
    out << line;
    for (const auto& r : rows) {
        // Cells through the one formatter: a break-even of 1e300% is "1e+302%",
        // not -9223372036854775808% (lround overflow).
        std::string row = r.gpu;
        row.resize(std::max<std::size_t>(row.size(), 26), ' ');
        row += ' ';
        auto cell = [&row](const std::string& text, std::size_t width) {
            row += (text.size() < width ? std::string(width - text.size(), ' ') : std::string()) + text + " ";
        };
        cell(std::to_string(r.count), 5);
        cell(formatDouble("%.2f", r.onDemandUsdPerGpuHour), 9);
        cell(r.spotUsdPerGpuHour ? money(*r.spotUsdPerGpuHour) : "-", 9);
        cell(formatDouble("%.0f", r.purchaseUsdPerGpu), 10);
        cell(formatDouble("%.3f", r.energyUsdPerGpuHour), 9);
        cell(r.breakEvenGpuHours ? formatDouble("%.0f", *r.breakEvenGpuHours) : "-", 12);
        cell(r.breakEvenUtilization ? formatPercent(*r.breakEvenUtilization) : "-", 8);
        row.pop_back();
        out << row << "\n    " << r.verdict << "\n";
        for (const auto& n : r.notes)
            out << "    note: " << n << "\n";
    }
    return out.str();
}

} // namespace gp
