#pragma once
// Internal to the core: the resolved configuration of one scenario on one GPU and
// the memory / performance models that read it. Kept out of the public headers.
#include "core/calibration/calibration.h"
#include "core/hardware/catalog.h"
#include "core/estimate/estimate.h"
#include "core/scenario/scenario.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gp {
struct MigProfile;
}

namespace gp::detail {

/// The modules a LoRA adapter can target (bits of Plan::loraModules).
enum LoraModule : unsigned {
    kLoraQ = 1u << 0,
    kLoraK = 1u << 1,
    kLoraV = 1u << 2,
    kLoraO = 1u << 3,
    kLoraGate = 1u << 4,
    kLoraUp = 1u << 5,
    kLoraDown = 1u << 6,
    // MLA's projections (DeepSeek-V3's module names)
    kLoraQA = 1u << 7,
    kLoraQB = 1u << 8,
    kLoraKvA = 1u << 9,
    kLoraKvB = 1u << 10,
};

/// The LoraModule bit of a module name (0 for a name no layer has).
unsigned loraModuleBit(std::string_view name);

/// One linear projection of a transformer layer, as ModelArch::layerLinears()
/// lists it, without the heap: `targeted` says whether a LoRA adapter sits on
/// it (training.lora_targets names it; false unless the method is LoRA-like).
struct LayerLinear {
    const char* name = "";
    unsigned bit = 0; // its LoraModule bit
    std::int64_t in = 0;
    std::int64_t out = 0;
    int perLayer = 1;
    bool targeted = false;
};

/// The layer's linears (at most eight: MLA's five or q/k/v/o, plus two or three
/// FFN matrices), built once per plan in a fixed array.
struct LayerLinears {
    std::array<LayerLinear, 8> items{};
    int count = 0;
    const LayerLinear* begin() const { return items.data(); }
    const LayerLinear* end() const { return items.data() + count; }
    bool empty() const { return count == 0; }
    void add(const char* name, unsigned bit, std::int64_t in, std::int64_t out, int perLayer)
    {
        items[std::size_t(count++)] = {name, bit, in, out, perLayer, false};
    }
};

/// ModelArch::layerLinears() (same names, shapes and order; tst_perfmodel
/// checks every preset), computed with no allocation.
LayerLinears layerLinears(const ModelArch& m);

/// What actually runs on this GPU after capability fallbacks (T4 has no BF16, ...).
struct Plan {
    const Scenario* s = nullptr;
    const Gpu* gpu = nullptr;
    const ModelArch* m = nullptr;
    const Calibration* cal = nullptr;       // fitted constants; makePlan sets it (built-in by default)
    LayerLinears linears;                   // m->layerLinears(), computed once (no heap; planinputs.cpp)
    double loadedParams = 0;                // m->loadedParams(), language models (read once)
    double embeddingParams = 0;             // m->embeddingParams(), language models
    unsigned loraModules = 0;               // LoraModule bits training.lora_targets names (LoRA-like methods)
    bool training = true;
    bool optimized = false;
    bool serving = false;   // runtime "serving" on a language model: paged KV, chunked prefill, continuous batching
    double admitted = 0;    // serving: sequences whose KV fits the engine's memory_fraction at once (inferencememory sets it)

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

    // The GPU's traits, read once from its catalog strings (makePlan)
    ArchFamily arch = ArchFamily::Other;
    const FamilyConstants* family = nullptr; // cal->family(*gpu)
    bool nvidia = false;                     // vendor "NVIDIA"
    bool amd = false;                        // vendor "AMD"
    int sm = 0;                              // smMajor(*gpu) on an NVIDIA part, else 0
    int nodeSize = 8;                        // GPUs of one scale-up domain (NVLink/xGMI/ICI island)
    bool bridged = false;                    // interconnect is an NVLink bridge (pairs only)
    double gemmRef = 1;                      // the GEMM shape factor at 8192^3 (gemmEff's normalization)

    std::vector<std::string> notes;
    std::vector<Term> terms;
    bool explain = true; // keep the terms (formulas cost string work; the solver skips them)

    /// Records a term; the formula is only built when explaining.
    /// The label is a `const char*` so that nothing is built when not explaining.
    template <class Formula>
    void term(const char* key, const char* label, double value, const char* unit, Formula&& formula)
    {
        if (explain)
            terms.push_back({key, label, value, unit, formula()});
    }
};

/// Sets linears' `targeted` and Plan::loraModules from training.lora_targets.
void markLoraTargets(Plan& p, const std::vector<std::string>& targets);
/// Reads the GPU's traits (family, vendor, SM generation, scale-up domain) into
/// the plan; p.cal must be set.
void setGpuTraits(Plan& p, const Gpu& gpu);

/// Resolves formats and fallbacks; records what changed in plan.notes. A null
/// calibration means builtinCalibration().
Plan makePlan(const Scenario& s, const Gpu& gpu, bool explain = true, const Calibration* calibration = nullptr);

/// hardware.mig: the slice the job runs on, modelled as a GPU of its own
/// (core/hardware/mig.h); nullopt for a whole GPU. `profile`, when given, gets
/// the slice's profile. Throws InputError naming hardware.mig when `whole` lacks it.
std::optional<Gpu> migSliceFor(const Scenario& s, const Gpu& whole, const MigProfile** profile = nullptr);

/// Memory the job may use on `gpu`: usable_memory_fraction of its binary size
/// (an "80 GB" H100 shows 81559 MiB), a serving engine's share of that
/// (inference.memory_fraction).
double jobCapacityBytes(const Plan& p, const Gpu& gpu);

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
/// live tensors, the whole batch in one pass; see inferencememory.cpp).
double prefillLiveBytesPerToken(const Plan& p);

/// CUDA context + runtime modules (a fixed per-process reservation).
double contextBytes(const Plan& p);

MemoryBreakdown trainingMemory(Plan& p);
MemoryBreakdown inferenceMemory(Plan& p);

/// Fills throughput / latency fields (not cost).
TrainingResult trainingPerformance(Plan& p);
InferenceResult inferencePerformance(Plan& p);

/// Relative 1-sigma uncertainty from the calibration residuals (see estimate.cpp).
Uncertainty uncertaintyFor(const Plan& p);

std::string fmt(double v, int precision = 3);   // "%.*g"
std::string fmtGiB(double bytes);               // "12.30 GiB"
std::string fmtReadable(double v);              // fmt(v) below 1,000; "3,480" (rounded, grouped) from there
std::string fixed2(double v);                   // printf("%.2f", v), byte for byte

} // namespace gp::detail
