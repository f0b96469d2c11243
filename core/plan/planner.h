#pragma once
#include "core/estimate/estimate.h"

#include <optional>
#include <string>
#include <vector>

namespace gp {

class Catalog;
struct Scenario;

/// One configuration the solver considered: GPU type x count x layout x format x batch.
struct PlanOption {
    int rank = 0;                 // 1 = best (cheapest, then fastest)
    std::string gpu;
    std::string gpuName;
    std::string mig;              // MIG slice ("1g", "3g") when serving on a slice of one GPU
    int count = 1;                // GPUs per replica
    int tp = 1, pp = 1, zero = 0;
    int replicas = 1;             // inference: copies serving the load
    int usersPerReplica = 0;      // inference: concurrent sequences one replica holds at the targets
    std::string limit;            // inference: what caps usersPerReplica or sets the replicas:
                                  // "kv_memory" ("memory" for vision), "ttft", "tpot", "rate", "compute"
    std::string precision;        // training or inference format, as in the scenario spec
    std::string checkpointing;    // training
    int microBatch = 0;           // training: per GPU; inference: concurrent sequences per replica
                                  // (replicas x microBatch >= inference.batch, the demand)
    int gradAccum = 1;
    bool fits = false;
    bool meetsTargets = false;
    double usdPerHour = 0;        // all GPUs of all replicas
    double costKey = 0;           // what the ranking minimizes (USD, USD/h or USD per token), at the plan's
                                  // confidence: the point cost x the time quantile (confidence.h)
    double timeKey = 0;           // tie-break and Pareto axis (hours, or TPOT ms), at the confidence too
    Confidence confidence;        // P(fits), P(meets the targets, the load included) of this option
    std::string needs;            // what the user did not allow: "" (ranked), "precision", "consumer"
    double saving = 0;            // unranked options: share of rank 1's cost they would save
    GpuEstimate estimate;         // numbers for one replica
    std::string why;
};

/// A popular GPU that did not make the list, and why.
struct PlanAlternative {
    std::string gpu;
    std::string why;
};

struct PlanResult {
    std::string scenario;
    std::vector<PlanOption> options;      // the top N, then Pareto members beyond it
    std::vector<int> pareto;              // ranks on the cost-vs-time front
    std::vector<PlanAlternative> alternatives;
    std::string costLabel;                // what costKey is: "cost to train (USD)", ...
    std::string timeLabel;                // what timeKey is
    long long considered = 0;             // configurations estimated
    long long feasible = 0;               // that fit and meet the targets
    std::vector<std::string> notes;
    double confidence = 0.9;              // the probability the ranked options fit and meet the targets with
    /// Cheaper options that need what the user did not allow (another precision,
    /// a consumer card for serving): not ranked, listed with their saving.
    std::vector<PlanOption> apart;
};

struct PlanRequest {
    // A constructor (not an aggregate), so PlanRequest{top} and PlanRequest{top, calibration} stay complete.
    PlanRequest(int top_ = 10, const Calibration* calibration_ = nullptr)
        : top(top_)
        , calibration(calibration_)
    {
    }
    int top = 10;
    /// The constants every estimate uses (`--calibration FILE`); nullptr = built-in.
    const Calibration* calibration = nullptr;
    /// `--confidence P`; unset = hardware.confidence.
    std::optional<double> confidence;
};

/// Searches GPU type x count (up to hardware.max_count) x TP/PP/ZeRO x
/// precision/quantization x batch; keeps what fits and meets the targets;
/// ranks by cost, then time. Throws InputError for unknown GPU ids.
PlanResult plan(const Scenario& s, const Catalog& catalog, const PlanRequest& request = {});

std::string planToJson(const PlanResult& r);
std::string planToTable(const PlanResult& r);

} // namespace gp
