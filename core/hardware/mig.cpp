#include "core/hardware/mig.h"

#include "core/hardware/catalog.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace gp {

namespace {

// NVIDIA MIG user guide, "Supported MIG Profiles": A100/H100/H200/B200 tables
// (fraction of SMs k/7, fraction of memory 1/8, 2/8, 4/8, 4/8, full) and the
// A30 table (1/4, 2/4, full of both), which the RTX PRO 6000 Blackwell shares
// (1g.24gb, 2g.48gb, 4g.96gb).
constexpr std::array kSevenWay{MigProfile{"1g", 1, 7, 1, 8}, MigProfile{"2g", 2, 7, 2, 8}, MigProfile{"3g", 3, 7, 4, 8},
    MigProfile{"4g", 4, 7, 4, 8}, MigProfile{"7g", 7, 7, 8, 8}};
constexpr std::array kFourWay{MigProfile{"1g", 1, 4, 1, 4}, MigProfile{"2g", 2, 4, 2, 4}, MigProfile{"4g", 4, 4, 4, 4}};
constexpr std::array kNames{std::string_view("1g"), std::string_view("2g"), std::string_view("3g"),
    std::string_view("4g"), std::string_view("7g")};

} // namespace

std::span<const std::string_view> migProfileNames()
{
    return kNames;
}

std::span<const MigProfile> migProfiles(const Gpu& g)
{
    if (g.vendor != "NVIDIA")
        return {}; // AMD's compute partitions (CPX/NPS) are not MIG instances
    if (g.migMaxInstances == 7)
        return kSevenWay;
    if (g.migMaxInstances == 4)
        return kFourWay;
    return {};
}

const MigProfile* findMigProfile(const Gpu& g, std::string_view name)
{
    for (const MigProfile& p : migProfiles(g))
        if (p.name == name)
            return &p;
    return nullptr;
}

std::string migUnsupportedMessage(const Gpu& g, std::string_view name)
{
    const auto offered = migProfiles(g);
    const std::string who = g.id + " (" + g.name + ")";
    if (offered.empty())
        return who + " has no MIG"
            + (g.migMaxInstances > 0 ? std::string(
                   ": its " + std::to_string(g.migMaxInstances) + " partitions are not NVIDIA MIG instances")
                                     : std::string())
            + "; remove \"mig\" or pick an A100, H100, H200, B200, B300, A30 or RTX PRO 6000";
    std::string list;
    for (const MigProfile& p : offered)
        list += (list.empty() ? "" : ", ") + std::string(p.name);
    return who + " offers MIG " + list + ", not \"" + std::string(name) + "\"";
}

std::string migProfileLabel(const Gpu& g, const MigProfile& p)
{
    return std::string(p.name) + "." + std::to_string(std::lround(g.memoryGb * p.memoryFraction())) + "gb";
}

namespace {

/// The SMs the catalog lists for profile `p` of `g`; 0 when it lists none.
int listedSms(const Gpu& g, const MigProfile& p)
{
    if (g.smCount <= 0)
        return 0;
    for (const auto& [name, sms] : g.migSms)
        if (name == p.name)
            return std::min(sms, g.smCount);
    return 0;
}

std::string fraction(int k, int n) { return std::to_string(k) + "/" + std::to_string(n); }

} // namespace

double migComputeShare(const Gpu& g, const MigProfile& p)
{
    const int sms = listedSms(g, p);
    return sms > 0 ? double(sms) / g.smCount : p.computeFraction();
}

std::string migSliceNote(const Gpu& g, const MigProfile& p)
{
    const int sms = listedSms(g, p);
    const std::string compute = sms > 0 ? std::to_string(sms) + " of its " + std::to_string(g.smCount) +
                                              " SMs (nvidia-smi mig -lgip)"
                                        : fraction(p.smSlices, p.smTotal) + " of its SMs (NVIDIA MIG user guide)";
    return "MIG " + migProfileLabel(g, p) + ": one slice of " + g.name + " with " + compute + " and " +
           fraction(p.memSlices, p.memTotal) + " of its memory and bandwidth, billed as " +
           fraction(p.smSlices, p.smTotal) + " of the GPU.";
}

Gpu migSlice(const Gpu& g, const MigProfile& p)
{
    // The peaks follow the slice's SMs (an A100's 7g.40gb has 98 of its 108 SMs:
    // the tensor peaks are 98/108 of the datasheet's); memory and bandwidth its
    // memory slices; price, purchase and power the compute slots it occupies
    // (k of 7 or 4: what a provider bills and what the rest of the GPU cannot use).
    const double compute = migComputeShare(g, p);
    const double slots = p.computeFraction();
    const double memory = p.memoryFraction();
    Gpu v = g;
    v.id = g.id + "-mig-" + std::string(p.name);
    v.name = g.name + " (MIG " + migProfileLabel(g, p) + ")";
    v.memoryGb *= memory;
    v.bandwidthGbps *= memory;
    for (double* peak :
        {&v.fp32Tflops, &v.tf32Tflops, &v.fp16Tflops, &v.bf16Tflops, &v.fp8Tflops, &v.int8Tops, &v.fp4Tflops})
        *peak *= compute;
    v.pricePerHour.typical *= slots;
    v.pricePerHour.low *= slots;
    v.pricePerHour.high *= slots;
    if (v.pricePerHour.spot)
        *v.pricePerHour.spot *= slots;
    v.purchaseUsd *= slots;
    v.tdpW *= slots;
    v.smCount = int(std::lround(g.smCount * compute));
    v.migSms.clear();
    v.migMaxInstances = 0;
    v.interconnectGbps = 0;
    return v;
}

} // namespace gp
