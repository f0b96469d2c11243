#pragma once
// Internal to the core: the resolved configuration of one scenario on one GPU and
// the memory / performance models that read it. Kept out of the public headers.
#include "core/calibration/calibration.h"
#include "core/hardware/catalog.h"
#include "core/estimate/estimate.h"
#include "core/scenario/scenario.h"

#include <string>
#include <vector>

namespace gp::detail {

/// What actually runs on this GPU after capability fallbacks (T4 has no BF16, ...).
struct Plan {
    const Scenario* s = nullptr;
    const Gpu* gpu = nullptr;
    const ModelArch* m = nullptr;
    const Calibration* cal = nullptr;       // fitted constants; makePlan sets it (built-in by default)
    std::vector<ModelArch::Linear> linears; // m->layerLinears(), computed once
    bool training = true;
    bool optimized = false;
    bool serving = false;   // runtime "serving" on a language model: paged KV, chunked prefill, continuous batching
    double admitted = 0;    // serving: sequences whose KV fits the engine's memory_fraction at once (memorymodel sets it)

    // Training formats
    TrainPrecision precision = TrainPrecision::AmpBF16;
    DType compute = DType::BF16;       // format the matmuls run in
    double weightBytes = 4;            // bytes per stored (master) weight
    double gradBytes = 4;
    double stateBytes = 4;             // optimizer state element size
    double actBytes = 2;               // activation element size in matmuls
    double residualBytes = 4;          // residual stream element size
    bool autocast = true;              // AMP: fp32 params, 16-bit matmuls
    // Inference formats
    InferPrecision inferPrecision = InferPrecision::BF16;
    double kvBytes = 2;

    // Parallel layout
    int count = 1, tp = 1, pp = 1, dp = 1, zero = 0;
    int shard = 1; // GPUs ZeRO shards over: dp, or hardware.shard_group (HSDP: replicated across dp / shard groups)

    std::vector<std::string> notes;
    std::vector<Term> terms;
    bool explain = true; // keep the terms (formulas cost string work; the solver skips them)

    /// Records a term; the formula is only built when explaining.
    template <class Formula>
    void term(const char* key, const std::string& label, double value, const char* unit, Formula&& formula)
    {
        if (explain)
            terms.push_back({key, label, value, unit, formula()});
    }
};

/// Resolves formats and fallbacks; records what changed in plan.notes. A null
/// calibration means builtinCalibration().
Plan makePlan(const Scenario& s, const Gpu& gpu, bool explain = true, const Calibration* calibration = nullptr);

/// Bytes per parameter of the model states on one GPU (full fine-tuning, after
/// the ZeRO stage's sharding over Plan::shard; tensor/pipeline split not applied).
struct StateBytes {
    double weights = 0;   // stored parameters (ZeRO-3: the shard)
    double gradients = 0; // gradients at the end of backward and the step
    double optimizer = 0; // optimizer states, fp32 master weights included under mixed precision
    double gathered = 0;  // ZeRO-3: bytes per parameter of an all-gathered unit (16-bit params or grads)
};
StateBytes stateBytesPerParam(const Plan& p);

/// Training: parameters the optimizer updates.
double trainableParams(const Plan& p);

/// Bytes autograd keeps per token per transformer layer without checkpointing
/// (AMP: fp32 residual and norms, 16-bit casts per linear; see memorymodel.cpp).
double activationBytesPerTokenLayer(const Plan& p);

/// Inference: bytes alive per prompt token at the prefill peak (one layer's
/// live tensors, the whole batch in one pass; see memorymodel.cpp).
double prefillLiveBytesPerToken(const Plan& p);

MemoryBreakdown trainingMemory(Plan& p);
MemoryBreakdown inferenceMemory(Plan& p);

/// Fills throughput / latency fields (not cost).
TrainingResult trainingPerformance(Plan& p);
InferenceResult inferencePerformance(Plan& p);

/// Relative 1-sigma uncertainty from the calibration residuals (see perfmodel.cpp).
Uncertainty uncertaintyFor(const Plan& p);

std::string fmt(double v, int precision = 3);   // "%.*g"
std::string fmtGiB(double bytes);               // "12.3 GiB"

} // namespace gp::detail
