#pragma once
#include "core/calibration/calibration.h"

#include <optional>
#include <string>
#include <vector>

namespace gp {

class Catalog;
struct Calibration;
struct Gpu;
struct Scenario;

/// One term of a computation, kept so every number can explain itself.
struct Term {
    std::string key;      // e.g. "memory.activations"
    std::string label;    // "Activations"
    double value = 0;
    std::string unit;     // "GiB", "ms", "tokens/s", "USD/h", ...
    std::string formula;  // "34 x s x b x h x L bytes = 34 x 1024 x 8 x 4096 x 32"
};

/// Per-GPU device memory at the peak of the job, in bytes.
struct MemoryBreakdown {
    double weights = 0;
    double gradients = 0;
    double optimizer = 0;
    double activations = 0;
    double kvCache = 0;
    double overhead = 0;  // CUDA context, allocator caching, library workspaces
    double total() const { return weights + gradients + optimizer + activations + kvCache + overhead; }
};

struct TrainingResult {
    double tokensPerS = 0;   // whole job; 0 for vision
    double samplesPerS = 0;  // whole job
    double stepMs = 0;       // one optimizer step (micro_batch x grad_accum per GPU)
    double mfu = 0;          // model FLOPs / (peak x time), 0..1
    std::optional<double> hours;   // dataset x epochs / throughput (needs a dataset size)
    std::optional<double> costUsd;
};

struct InferenceResult {
    // Language models
    std::optional<double> ttftMs;
    std::optional<double> ttftP99Ms;  // serving: 99th percentile of the TTFT under the load
    std::optional<double> tpotMs;
    std::optional<double> tokensPerS;
    std::optional<double> usdPerMillionTokens;
    std::optional<int> admitted;      // serving: sequences the engine holds at once (its KV blocks in memory_fraction)
    // Vision models
    std::optional<double> samplesPerS;
    std::optional<double> latencyMs;
};

/// Relative 1-sigma error bands from the calibration residuals.
/// Where a band comes from, by distance from measurement (issue #16).
enum class BandSource {
    Measured,   // Hopper: the leave-one-out band of the runs the project measured
    Published,  // the leave-one-out band of the family's published rows of this kind
    Unmeasured, // the family has no published rows of this kind: the wide band (throughput) or
                // the measured band widened for another architecture (memory)
};

/// What widened a throughput band beyond its base (Uncertainty::widened bits).
enum Widening : unsigned {
    kWidenedApproximate = 1u << 0, // a model shape guessed from its size
    kWidenedMultiGpu = 1u << 1,
    kWidenedQlora = 1u << 2,
    kWidenedMoe = 1u << 3,
    kWidenedOptimizedTraining = 1u << 4,
};

struct Uncertainty {
    double memory = 0;     // relative 1-sigma
    double throughput = 0; // relative 1-sigma
    // Where they come from (confidence.h: bandOrigin writes it out).
    BandSource throughputSource = BandSource::Measured;
    BandSource memorySource = BandSource::Measured;
    BandKind kind = BandKind::Training;   // the throughput band's kind: Training or Inference
    bool vision = false;                  // a vision model (Hopper: the vision band)
    ArchFamily family = ArchFamily::Hopper;
    unsigned widened = 0;                 // Widening bits
    /// Training in a format (16-bit, or fp8/fp4) whose GEMM scale the family's
    /// published rows did not fit (fewer than 3 of that format): the wide band,
    /// although the family has a training band from rows in the other format.
    bool formatUnfitted = false;
};

/// How sure the estimate is (core/estimate/confidence.h): probabilities from the
/// uncertainty, lognormal around the prediction.
struct Confidence {
    double fits = 1;          // P(memory at the peak <= capacity)
    double meetsTargets = 1;  // P(every target met): one speed error moves all times, so the min over targets
    double latency = 1;       // P(the latency targets alone: TTFT, TPOT, TTFT p99, deadline); not written out
};

/// The estimate for one GPU type in the scenario's configuration.
struct GpuEstimate {
    std::string gpuId;
    std::string gpuName;
    int count = 1;
    bool fits = false;
    double capacityBytes = 0;   // per GPU
    MemoryBreakdown memory;     // per GPU
    std::optional<TrainingResult> training;
    std::optional<InferenceResult> inference;
    double usdPerHour = 0;      // whole job (count GPUs), for the pricing model
    Uncertainty uncertainty;
    Confidence confidence;
    bool meetsTargets = true;
    std::vector<std::string> targetMisses; // why a target is missed
    std::vector<std::string> notes;        // fallbacks, warnings, assumptions
    std::string computePrecision;          // format the tensor cores run, e.g. "bf16"
    bool approximate = false;              // model shape guessed from a size
    std::vector<Term> terms;               // how the numbers were computed
};

/// The model as read (the estimate document's `model` block).
struct ModelFacts {
    double params = 0;        // every parameter (vision tower and MTP head included)
    double activeParams = 0;  // per token
    std::optional<double> kvBytesPerSequence; // inference on a language model: prompt + output tokens at kv_precision
};

/// The model block of a scenario: counts, and the KV cache plus recurrent state
/// one sequence holds (windows applied, unpaged) at the default or given KV format.
ModelFacts modelFacts(const Scenario& s);

struct Estimate {
    std::string scenario;
    double confidence = 0.9; // the scenario's hardware.confidence: a recommendation ranks at it (confidence.h)
    ModelFacts model;
    std::vector<GpuEstimate> results;
    std::vector<std::string> warnings;
};

struct EstimateOptions {
    bool explain = true; // fill GpuEstimate::terms (the "why this number" formulas)
    /// The constants to use (a user's refit, `--calibration FILE`); nullptr means
    /// builtinCalibration(). Not owned: must outlive the call.
    const Calibration* calibration = nullptr;
};

/// Estimates the scenario on one GPU.
GpuEstimate estimateOn(const Scenario& s, const Gpu& gpu, const EstimateOptions& options = {});
/// Estimates on every GPU the scenario names (or the whole catalog).
/// Throws InputError for unknown GPU ids.
Estimate estimate(const Scenario& s, const Catalog& catalog, const EstimateOptions& options = {});

/// The output document of `gpuplanner-cli estimate` (spec: gpuplanner-estimate v1).
std::string estimateToJson(const Estimate& e);
std::string estimateToCsv(const Estimate& e);
std::string estimateToTable(const Estimate& e);

} // namespace gp
