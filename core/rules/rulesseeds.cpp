// The seeds' claims issue #12 added to the checked list: spot savings, PUE,
// H100 vs A100 training time, H200 vs H100 70B inference. Every figure comes
// from the catalog, the pricing model or the estimator.
#include "core/rules/rulesdetail.h"

#include "core/hardware/catalog.h"
#include "core/estimate/estimate.h"
#include "core/plan/rentbuy.h"
#include "core/scenario/scenario.h"

#include <algorithm>
#include <string>
#include <vector>

namespace gp::rulesdetail {

namespace {

std::string sharePct(double share) { return f("%.0f", share * 100) + "%"; }

/// Spot after the pricing model's restart allowance, against on-demand.
RuleCheck spotSavings(const Catalog& cat)
{
    const Scenario s = scenario(R"({"preset":"llama-3.1-8b"})", R"({"mode":"training"})");
    struct Row {
        std::string name;
        double vsTypical = 0; // 1 - spot cost / on-demand cost
        double vsHigh = 0;    // against the catalog's high (hyperscaler) rate
        double raw = 0;       // spot / typical price, before restarts
    };
    std::vector<Row> rows;
    double allowance = 0;
    for (const auto& g : cat.gpus()) {
        if (!g.pricePerHour.spot || g.pricePerHour.typical <= 0)
            continue;
        const RentVsBuy r = rentVsBuy(s, g, 1);
        const auto spot = std::find_if(r.curves.begin(), r.curves.end(),
                                       [](const CostCurve& c) { return c.label.rfind("Rent spot", 0) == 0; });
        if (spot == r.curves.end() || spot->usd.size() < 2)
            continue;
        // The spot curve's first month over the same busy hours: the price with the restart allowance.
        const double spotPerHour = spot->usd[1] / r.usedGpuHoursPerMonth;
        allowance = spotPerHour / *g.pricePerHour.spot - 1;
        const double high = std::max(g.pricePerHour.high, g.pricePerHour.typical);
        rows.push_back({g.name, 1 - spotPerHour / r.onDemandUsdPerGpuHour, 1 - spotPerHour / high,
                        1 - *g.pricePerHour.spot / g.pricePerHour.typical});
    }
    auto by = [&](double Row::*field) {
        std::vector<Row> sorted = rows;
        std::sort(sorted.begin(), sorted.end(), [&](const Row& a, const Row& b) { return a.*field < b.*field; });
        return sorted;
    };
    auto median = [](const std::vector<Row>& sorted, double Row::*field) {
        const std::size_t n = sorted.size();
        return n % 2 ? sorted[n / 2].*field : (sorted[n / 2 - 1].*field + sorted[n / 2].*field) / 2;
    };
    const auto typ = by(&Row::vsTypical);
    const auto high = by(&Row::vsHigh);
    const auto raw = by(&Row::raw);
    const double medTyp = median(typ, &Row::vsTypical);
    const double medHigh = median(high, &Row::vsHigh);
    const long reach = std::count_if(rows.begin(), rows.end(), [](const Row& r) { return r.vsTypical >= 0.6; });
    const bool inRange = medTyp >= 0.6 && medTyp <= 0.9;
    const bool inRangeHigh = medHigh >= 0.6 && medHigh <= 0.9;
    return {"spot-60-90", "Cloud spot instances can provide 60-90% cost savings for training when managed properly.",
            kSeed002, inRange ? "holds" : (inRangeHigh ? "depends" : "corrected"),
            std::to_string(rows.size()) + " catalog GPUs list a spot price. Spot price alone is " +
                sharePct(raw.front().raw) + "-" + sharePct(raw.back().raw) +
                " below the typical on-demand rate; after the " + sharePct(allowance) +
                " restart allowance a training job saves " + sharePct(typ.front().vsTypical) + " (" +
                typ.front().name + ") to " + sharePct(typ.back().vsTypical) + " (" + typ.back().name + "), median " +
                sharePct(medTyp) + "; " + std::to_string(reach) +
                " of them reach 60%. Against the high (hyperscaler) on-demand rate it saves " +
                sharePct(high.front().vsHigh) + "-" + sharePct(high.back().vsHigh) + ", median " + sharePct(medHigh) +
                ".",
            "Spot cost = spot price x busy hours x (1 + restarts from the last checkpoint). " +
                std::string(inRange ? "The claim holds against typical on-demand rates."
                                    : inRangeHigh ? "60-90% compares spot with hyperscaler list prices; against the "
                                                    "typical rate of marketplaces and specialty clouds the median "
                                                    "saving is " + sharePct(medTyp) + "."
                                                  : "Neither typical nor hyperscaler rates give 60-90% in the "
                                                    "median.")};
}

/// The seed's PUE ranges against the PUE the owning-cost model uses.
RuleCheck pueRanges(const Catalog& cat)
{
    const Gpu& h100 = *cat.find("nvidia-h100-sxm");
    Scenario s = scenario(R"({"preset":"llama-3.1-8b"})", R"({"mode":"training"})");
    const double def = defaultScenario().pricing.pue;
    auto at = [&](double pue) {
        s.pricing.pue = pue;
        return rentVsBuy(s, h100, 1);
    };
    const RentVsBuy lo = at(1.1), mid = at(def), hi = at(1.5);
    const double years = s.pricing.amortizationYears;
    const double energy3y = mid.energyUsdPerGpuHour * years * 8760;
    const bool air = def >= 1.3 && def <= 1.5;
    const bool liquid = def >= 1.1 && def <= 1.2;
    return {"pue-ranges",
            "Power usage effectiveness (PUE) multiplies actual costs. Air-cooled racks run 1.3-1.5 PUE while "
            "liquid-assisted cooling achieves 1.1-1.2 PUE.",
            kSeed002, air || liquid ? "holds" : "corrected",
            "Owning cost uses energy = TDP x PUE x $/kWh, PUE " + f("%.2g", def) + " by default (" +
                (air ? "the air-cooled range" : liquid ? "the liquid-cooled range" : "outside both ranges") +
                "; pricing.pue accepts 1-5). H100 SXM, " + f("%.0f", h100.tdpW) + " W at $" +
                f("%.2f", s.pricing.electricityUsdPerKwh) + "/kWh: $" + f("%.3f", lo.energyUsdPerGpuHour) +
                "/h at PUE 1.1, $" + f("%.3f", mid.energyUsdPerGpuHour) + " at " + f("%.2g", def) + ", $" +
                f("%.3f", hi.energyUsdPerGpuHour) + " at 1.5; break-even against $" +
                f("%.2f", mid.onDemandUsdPerGpuHour) + "/h on-demand after " +
                f("%.0f", lo.breakEvenGpuHours.value_or(0)) + " / " + f("%.0f", mid.breakEvenGpuHours.value_or(0)) +
                " / " + f("%.0f", hi.breakEvenGpuHours.value_or(0)) + " GPU-hours.",
            "PUE scales only the power bill: " + f("%.3g", years) + " years busy at PUE " + f("%.2g", def) + " is $" +
                f("%.0f", energy3y) + " of energy against a $" + f("%.0f", h100.purchaseUsd) +
                " purchase, so liquid cooling (1.1) vs a warm air-cooled room (1.5) moves the break-even by " +
                f("%.1f", (hi.breakEvenGpuHours.value_or(0) / lo.breakEvenGpuHours.value_or(1) - 1) * 100) +
                "%. Set pricing.pue to your facility's figure."};
}

/// "An H100 trains in roughly a third of the time an A100 needs."
RuleCheck h100ThirdOfA100(const Catalog& cat)
{
    Scenario s = scenario(R"({"preset":"llama-3.1-8b"})",
                          R"({"mode":"training","runtime":"optimized","training":{"precision":"amp_bf16","micro_batch":4,"seq_len":2048,"activation_checkpointing":"full","dataset_tokens":1e9}})",
                          R"(,"hardware":{"count":8,"zero":3})");
    const Gpu& a100 = *cat.find("nvidia-a100-80gb-sxm");
    const Gpu& h100 = *cat.find("nvidia-h100-sxm");
    const GpuEstimate a = estimateOn(s, a100);
    const GpuEstimate h = estimateOn(s, h100);
    s.training.precision = TrainPrecision::FP8;
    const GpuEstimate h8 = estimateOn(s, h100);
    const double bf16 = a.training->hours.value_or(0) / h.training->hours.value_or(1);
    const double fp8 = a.training->hours.value_or(0) / h8.training->hours.value_or(1);
    auto third = [](double r) { return r >= 2.5 && r <= 3.5; };
    return {"h100-third-of-a100",
            "An H100 trains in roughly a third of the time an A100 needs on the same model, because its FP16/BF16 "
            "throughput is roughly three times higher and FP8 unlocks another step.",
            kSeed001, third(bf16) ? "holds" : (third(fp8) || fp8 > 3.5 ? "depends" : "corrected"),
            "Llama 3.1 8B full fine-tune, 1e9 tokens on 8 GPUs (ZeRO-3, micro-batch 4 x 2048): " +
                f("%.2f", a.training->hours.value_or(0)) + " h on A100 80GB SXM, " +
                f("%.2f", h.training->hours.value_or(0)) + " h on H100 SXM at BF16 (" + f("%.2f", 1 / bf16) +
                " of the A100's time, " + f("%.2f", bf16) + "x faster), " + f("%.2f", h8.training->hours.value_or(0)) +
                " h with FP8 (" + f("%.2f", fp8) + "x).",
            "Dense BF16 peaks are " + f("%.0f", h100.bf16Tflops) + " vs " + f("%.0f", a100.bf16Tflops) + " TFLOPS (" +
                f("%.2f", h100.bf16Tflops / a100.bf16Tflops) + "x), but memory bandwidth is only " +
                f("%.2f", h100.bandwidthGbps / a100.bandwidthGbps) + "x (" + f("%.0f", h100.bandwidthGbps) + " vs " +
                f("%.0f", a100.bandwidthGbps) +
                " GB/s), so the memory-bound parts (normalization, activations, optimizer step) and communication "
                "shrink less than the matmuls: the H100 runs at " + f("%.0f", h.training->mfu * 100) +
                "% of its peak, the A100 at " + f("%.0f", a.training->mfu * 100) + "%. " +
                (third(bf16) ? "At BF16 the H100 is already within 2.5-3.5x; FP8 adds " + f("%.2f", fp8 / bf16) + "x."
                             : "FP8 on the H100 gives " + f("%.2f", fp8) + "x.")};
}

/// "The H200 doubles inference performance on Llama2 70B compared to H100."
RuleCheck h200Doubles(const Catalog& cat)
{
    const Gpu& h100 = *cat.find("nvidia-h100-sxm");
    const Gpu& h200 = *cat.find("nvidia-h200-sxm");
    Scenario s = scenario(R"({"preset":"llama-2-70b"})",
                          R"({"mode":"inference","runtime":"optimized","inference":{"precision":"fp8","batch":8,"prompt_tokens":2048,"output_tokens":128}})");
    auto tps = [](const GpuEstimate& e) { return e.inference->tokensPerS.value_or(0); };
    const GpuEstimate eqH100 = estimateOn(s, h100);
    const GpuEstimate eqH200 = estimateOn(s, h200);
    // The largest power-of-two batch whose weights and KV cache fit one GPU.
    auto largest = [&](const Gpu& g, int& batch) {
        GpuEstimate best;
        batch = 0;
        for (int b = 1; b <= 4096; b *= 2) {
            s.inference.batch = b;
            GpuEstimate e = estimateOn(s, g, EstimateOptions{false});
            if (!e.fits)
                break;
            best = std::move(e);
            batch = b;
        }
        return best;
    };
    int bH100 = 0, bH200 = 0;
    const GpuEstimate maxH100 = largest(h100, bH100);
    const GpuEstimate maxH200 = largest(h200, bH200);
    const double equal = tps(eqH200) / std::max(1e-9, tps(eqH100));
    const double atMax = bH100 > 0 ? tps(maxH200) / std::max(1e-9, tps(maxH100)) : 0;
    return {"h200-doubles-70b", "The H200 doubles inference performance on Llama2 70B compared to H100.", kSeed002,
            equal >= 1.8 ? "holds" : (atMax >= 1.8 ? "depends" : "corrected"),
            "Llama 2 70B, FP8, one GPU, 2048 prompt + 128 output tokens: at the same batch 8 the H200 makes " +
                f("%.0f", tps(eqH200)) + " tokens/s vs " + f("%.0f", tps(eqH100)) + " (" + f("%.2f", equal) +
                "x). At the largest batch that fits, H100 batch " + std::to_string(bH100) + " (" +
                f("%.1f", gib(maxH100.memory.total())) + " GiB) makes " + f("%.0f", tps(maxH100)) +
                " tokens/s, H200 batch " + std::to_string(bH200) + " (" + f("%.1f", gib(maxH200.memory.total())) +
                " GiB) " + f("%.0f", tps(maxH200)) + " (" + f("%.2f", atMax) + "x).",
            "Same Hopper die and peaks; decode reads the weights once per step, so at equal batch only the decode "
            "part gains, by at most the bandwidth ratio " + f("%.0f", h200.bandwidthGbps) + " / " +
                f("%.0f", h100.bandwidthGbps) + " = " + f("%.2f", h200.bandwidthGbps / h100.bandwidthGbps) +
                "x; the compute-bound prefill runs at the same speed. Doubling needs the larger batch that " +
                f("%.0f", h200.memoryGb) + " GB leaves room for: with 70 GB of FP8 weights, an H100 has little "
                "KV-cache space left. The seed names no batch or lengths."};
}

} // namespace

void appendSeedRules(std::vector<RuleCheck>& out, const Catalog& catalog)
{
    out.push_back(spotSavings(catalog));
    out.push_back(pueRanges(catalog));
    out.push_back(h100ThirdOfA100(catalog));
    out.push_back(h200Doubles(catalog));
}

} // namespace gp::rulesdetail
