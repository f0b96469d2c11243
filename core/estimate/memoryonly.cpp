// The memory side of an estimate alone (memoryonly.h): the same steps as
// estimateWith in estimate.cpp up to the memory breakdown (the MIG slice and the
// job's capacity from the same functions), and no further.
#include "core/estimate/memoryonly.h"

#include "core/estimate/sizing.h"

#include <optional>

namespace gp {

MemoryFit memoryOn(const Scenario& s, const Gpu& whole, const EstimateOptions& options)
{
    const std::optional<Gpu> slice = detail::migSliceFor(s, whole);
    const Gpu& gpu = slice ? *slice : whole;
    detail::Plan plan = detail::makePlan(s, gpu, false, options.calibration);
    MemoryFit out;
    out.capacityBytes = detail::jobCapacityBytes(plan, gpu);
    out.memory = plan.training ? detail::trainingMemory(plan) : detail::inferenceMemory(plan);
    return out;
}

} // namespace gp
