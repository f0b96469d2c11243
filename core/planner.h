#pragma once
#include "estimate.h"

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
    double costKey = 0;           // what the ranking minimizes (USD, USD/h or USD per token)
    double timeKey = 0;           // tie-break and Pareto axis (hours, or TPOT ms)
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
};

struct PlanRequest {
    int top = 10;
    /// The constants every estimate uses (`--calibration FILE`); nullptr = built-in.
    const Calibration* calibration = nullptr;
};

/// Searches GPU type x count (up to hardware.max_count) x TP/PP/ZeRO x
/// precision/quantization x batch; keeps what fits and meets the targets;
/// ranks by cost, then time. Throws InputError for unknown GPU ids.
PlanResult plan(const Scenario& s, const Catalog& catalog, const PlanRequest& request = {});

std::string planToJson(const PlanResult& r);
std::string planToTable(const PlanResult& r);

} // namespace gp
