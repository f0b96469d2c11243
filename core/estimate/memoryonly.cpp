// The memory side of an estimate alone (memoryonly.h): the same steps as
// estimateWith in estimate.cpp up to the memory breakdown, and no further.
#include "core/estimate/memoryonly.h"

#include "core/base/errors.h"
#include "core/base/units.h"
#include "core/calibration/calibration.h"
#include "core/estimate/sizing.h"
#include "core/hardware/mig.h"

#include <optional>

namespace gp {

MemoryFit memoryOn(const Scenario& s, const Gpu& whole, const EstimateOptions& options)
{
    // hardware.mig: one slice, modelled as a GPU of its own (as estimateWith does).
    std::optional<Gpu> slice;
    if (!s.hardware.mig.empty()) {
        const MigProfile* profile = findMigProfile(whole, s.hardware.mig);
        if (!profile)
            throw InputError("hardware.mig", migUnsupportedMessage(whole, s.hardware.mig));
        slice = migSlice(whole, *profile);
    }
    const Gpu& gpu = slice ? *slice : whole;
    detail::Plan plan = detail::makePlan(s, gpu, false, options.calibration);
    MemoryFit out;
    // estimate.cpp's capacityBytes(): usable_memory_fraction of the binary size.
    out.capacityBytes = gpu.memoryGb * units::kGiB * plan.cal->usableMemoryFraction;
    if (plan.serving) // a serving engine uses its share of the GPU (inference.memory_fraction)
        out.capacityBytes *= s.inference.memoryFraction;
    out.memory = plan.training ? detail::trainingMemory(plan) : detail::inferenceMemory(plan);
    return out;
}

} // namespace gp
