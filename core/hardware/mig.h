#pragma once
#include <span>
#include <string>
#include <string_view>

namespace gp {

struct Gpu;

/// One NVIDIA MIG GPU-instance profile, as the MIG user guide's "Supported MIG
/// Profiles" tables give it (docs.nvidia.com/datacenter/tesla/mig-user-guide/
/// supported-mig-profiles.html): a share of the SMs and a share of the memory
/// slices. A memory slice brings its memory controllers and L2, so bandwidth
/// follows the memory share. On the 7-way parts (A100, H100, H200, B200, ...)
/// 3g.40gb of an H100 80GB = 3/7 of the SMs and 4/8 of the memory.
struct MigProfile {
    std::string_view name; // "1g", "2g", "3g", "4g", "7g" (the scenario's hardware.mig)
    int smSlices = 0;
    int smTotal = 0; // 7 (7-way parts) or 4 (A30, RTX PRO 6000 Blackwell)
    int memSlices = 0;
    int memTotal = 0; // 8 or 4
    double computeFraction() const { return double(smSlices) / smTotal; }
    double memoryFraction() const { return double(memSlices) / memTotal; }
};

/// The profile names the scenario format allows, whatever the GPU.
std::span<const std::string_view> migProfileNames();
/// The MIG profiles `g` offers: none unless it is an NVIDIA part whose catalog
/// entry has MIG with 7 or 4 instances.
std::span<const MigProfile> migProfiles(const Gpu& g);
/// The profile `name` of `g`; nullptr when the GPU does not offer it.
const MigProfile* findMigProfile(const Gpu& g, std::string_view name);
/// Why `name` cannot run on `g`: "nvidia-l4 (NVIDIA L4) has no MIG" or
/// "nvidia-a30 (A30) offers MIG 1g, 2g, 4g, not 3g".
std::string migUnsupportedMessage(const Gpu& g, std::string_view name);
/// NVIDIA's name of the instance on `g`, e.g. "3g.40gb" (memory rounded to GB).
std::string migProfileLabel(const Gpu& g, const MigProfile& p);
/// The share of `g`'s compute a slice of profile `p` has: its SMs / the GPU's SMs
/// where the catalog lists them (sm_count, mig_sms: A100 1g.5gb = 14 of 108), else
/// the MIG guide's fraction of compute slots (k/7 or k/4).
double migComputeShare(const Gpu& g, const MigProfile& p);
/// What an estimate on the slice says: "MIG 3g.40gb: one slice of H100 SXM5 80GB
/// with 60 of its 132 SMs and 4/8 of its memory and bandwidth, billed as 3/7 of the GPU."
std::string migSliceNote(const Gpu& g, const MigProfile& p);
/// One slice of `g` as a GPU of its own: every peak scaled by migComputeShare,
/// memory and bandwidth by the memory share, power and price by the compute
/// slots it occupies (a slice is billed as k/7 or k/4 of the GPU); no MIG, no
/// GPU-to-GPU link. Its id is `<id>-mig-<name>`.
Gpu migSlice(const Gpu& g, const MigProfile& p);

} // namespace gp
