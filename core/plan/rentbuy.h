#pragma once
#include <optional>
#include <string>
#include <vector>

namespace gp {

struct Gpu;
struct Scenario;

/// Cumulative cost in USD at the end of each month (index 0 = day one).
struct CostCurve {
    std::string label;
    std::vector<double> usd;
};

/// Renting on-demand / spot / reserved versus owning, for `count` GPUs busy a
/// `pricing.utilization` share of every hour over `pricing.amortization_years`.
struct RentVsBuy {
    std::string gpu;
    std::string gpuName;
    int count = 1;
    double usedGpuHoursPerMonth = 0;
    double onDemandUsdPerGpuHour = 0;
    std::optional<double> spotUsdPerGpuHour;
    double reservedUsdPerGpuHour = 0;
    double purchaseUsdPerGpu = 0;
    double energyUsdPerGpuHour = 0;       // TDP x PUE x $/kWh while busy
    double hostingUsdPerGpuYear = 0;
    std::optional<double> breakEvenGpuHours;    // per GPU, owning vs on-demand
    std::optional<double> breakEvenUtilization; // share of the amortization period
    std::optional<int> breakEvenMonth;          // first month owning is cheaper at this utilization
    std::vector<CostCurve> curves;              // on-demand, spot, reserved, own
    std::string verdict;
    std::vector<std::string> notes;
};

/// Throws InputError when the GPU has neither a rental nor a purchase price.
RentVsBuy rentVsBuy(const Scenario& s, const Gpu& gpu, int count);

std::string rentVsBuyToJson(const std::vector<RentVsBuy>& r);
std::string rentVsBuyToTable(const std::vector<RentVsBuy>& r);

} // namespace gp
