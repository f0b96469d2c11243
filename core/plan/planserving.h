#pragma once
// Internal (core only): how many users one serving replica holds at the
// targets, and how a demand splits over replicas (planner.cpp).
#include <functional>
#include <string>

namespace gp {
struct GpuEstimate;
struct InferenceTargets;
} // namespace gp

namespace gp::detail {

/// The largest per-replica batch that fits and meets the latency targets, and
/// what stops one more sequence.
struct ReplicaCapacity {
    int users = 0;     // 0: not even one sequence fits and meets the targets
    std::string limit; // "kv_memory" (vision: "memory"), "ttft", "tpot", or "compute" at the search cap
};

/// Whether the estimate meets the TTFT and TPOT targets (vision: TTFT bounds the
/// batch latency); with `confidence` > 0, also that it fits and meets them with
/// at least that probability (GpuEstimate::confidence: fits x latency).
bool meetsLatency(const GpuEstimate& e, const InferenceTargets& t, double confidence = 0);

/// What an estimate that does not fit or misses a target runs into.
std::string limitOf(const GpuEstimate& e, const InferenceTargets& t, bool languageModel, double confidence = 0);

/// Searches batch 1..maxBatch (doubling, then bisecting: memory and latency grow
/// with the batch) for the replica's capacity. `eval(batch)` estimates one
/// replica at that batch; `onMiss` sees every estimate that fails.
ReplicaCapacity replicaCapacity(const std::function<GpuEstimate(int)>& eval,
                                const std::function<void(const GpuEstimate&)>& onMiss, const InferenceTargets& t,
                                bool languageModel, int maxBatch, double confidence = 0);

/// "KV memory", "TPOT", ... for the option's why text.
std::string limitText(const std::string& limit);

} // namespace gp::detail
