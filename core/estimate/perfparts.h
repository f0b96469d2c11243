#pragma once
// Internal to the core: the rates the performance models share (perfmodel.cpp)
// and the vision models' timing (visionperf.cpp).
#include "core/base/precision.h"

#include <string>

namespace gp {
struct Gpu;
struct InferenceResult;
} // namespace gp

namespace gp::detail {

struct Plan;

/// Tensor-core generation (SM major version) from the catalog's architecture; 0 = unknown.
int smMajor(const Gpu& g);
/// Flash attention efficiency (training: forward + backward) and forward-only (prefill).
double attnEff(const Plan& p);
double attnFwdEff(const Plan& p);
/// Attention FLOP/s in the plan's format (fp32 inputs: the memory-efficient kernel on CUDA cores).
double attnRate(const Plan& p, bool forwardOnly);
bool attnFp32(const Plan& p);
double attnEffUsed(const Plan& p, bool forwardOnly);
/// "peak x 0.25" (or the fp32 kernel's) for the terms' formulas.
std::string attnRateText(const Plan& p, bool forwardOnly);
/// Achieved share of the format's peak for an m x n x k GEMM.
double gemmEff(const Plan& p, DType t, double m, double n, double k);
/// Dense peak of the format (falls back to the best 16-bit / fp32 rate).
double peak(const Plan& p, DType t);
/// Streaming bandwidth (bytes/s) elementwise kernels reach.
double bandwidth(const Plan& p);

/// One training micro-batch of a vision model: seconds, useful FLOPs, and the
/// peak MFU is taken against (the rate the convolutions run at).
struct VisionStep {
    double seconds = 0;
    double modelFlops = 0;
    double mfuPeak = 0;
};
VisionStep visionTrainingStep(Plan& p, double tKernel);
/// Fills latency and images/s of a vision model's inference.
void visionInference(Plan& p, InferenceResult& r);

} // namespace gp::detail
