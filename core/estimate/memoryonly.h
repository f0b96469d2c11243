#pragma once
// The memory side of an estimate alone: what estimateOn(s, gpu, options) puts in
// GpuEstimate::memory and ::capacityBytes, without running the performance model.
// For searches that only ask "does this batch fit" (the fit's maximum-throughput
// batch search in core/fit/validatepublished.cpp): the memory model reads no
// performance constant, so the answer is the full estimate's, bit for bit
// (tst_calibrate compares them).
#include "core/estimate/estimate.h"

namespace gp {

struct MemoryFit {
    MemoryBreakdown memory;  // == estimateOn(...).memory
    double capacityBytes = 0; // == estimateOn(...).capacityBytes (a serving engine's memory_fraction applied)
};

/// Throws InputError for an unknown MIG profile, as estimateOn does.
MemoryFit memoryOn(const Scenario& s, const Gpu& gpu, const EstimateOptions& options = {});

} // namespace gp
