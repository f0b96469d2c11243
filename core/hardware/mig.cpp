#include "core/hardware/mig.h"

#include "core/hardware/catalog.h"

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

Gpu migSlice(const Gpu& g, const MigProfile& p)
{
    const double compute = p.computeFraction();
    const double memory = p.memoryFraction();
    Gpu v = g;
    v.id = g.id + "-mig-" + std::string(p.name);
    v.name = g.name + " (MIG " + migProfileLabel(g, p) + ")";
    v.memoryGb *= memory;
    v.bandwidthGbps *= memory;
    for (double* peak :
        {&v.fp32Tflops, &v.tf32Tflops, &v.fp16Tflops, &v.bf16Tflops, &v.fp8Tflops, &v.int8Tops, &v.fp4Tflops})
        *peak *= compute;
    v.pricePerHour.typical *= compute;
    v.pricePerHour.low *= compute;
    v.pricePerHour.high *= compute;
    if (v.pricePerHour.spot)
        *v.pricePerHour.spot *= compute;
    v.purchaseUsd *= compute;
    v.tdpW *= compute;
    v.migMaxInstances = 0;
    v.interconnectGbps = 0;
    return v;
}

} // namespace gp
