#pragma once
// The fitted and empirical constants of the memory and performance models, as
// data: resources/calibration/builtin-calibration.json is compiled in, and a
// user file with the same entries can replace it (refits, other clusters).
// Structural constants (bytes per element, 6N FLOPs, the causal 0.5, tensor
// counts) are physics and stay in the code.
#include <array>
#include <string>
#include <vector>

namespace gp {

struct EstimateOptions;
struct GpuEstimate;
struct Gpu;
struct Scenario;

/// One constant of the table, with where its value comes from.
struct CalibrationEntry {
    std::string id;        // stable key, e.g. "gemm_eff_bf16"
    double value = 0;
    std::string unit;      // "fraction of the dense datasheet peak", "s per kernel launch", ...
    double min = 0;        // physical bounds the value must lie in (inclusive)
    double max = 0;
    std::string kind;      // "fitted" | "measured" | "literature" | "assumed"
    std::string fittedOn;  // the runs, datasheet or paper behind the value
    std::string form;      // why the model uses it in this form
};

/// Architecture families, decided from the catalog's architecture and vendor
/// fields (never a GPU's name). Hopper is the family the project measured: the
/// base constants are its values. Every other family has scale factors on the
/// rates (FamilyConstants) that `calibrate` fits on that family's rows only; a
/// family without rows keeps them at 1 (the Hopper values, scaled by nothing).
/// Its bands are per kind (BandKind): a kind it has no published rows of gets
/// the wide band uncertainty_unmeasured_family.
enum class ArchFamily {
    Hopper,
    Blackwell,    // sm_100 dies (B200, B300, GB200, GB300)
    BlackwellGb2, // GB2xx dies, sm_120 (RTX 50, RTX PRO 6000 Blackwell)
    Ada,
    Ampere,
    Cdna,         // CDNA 3 and CDNA 4 (MI300X, MI325X, MI355X)
    Gaudi,
    Tpu,
    Other,        // Volta, Turing, CDNA 2, anything unknown: no constants of its own
};
constexpr int kArchFamilyCount = 9;
/// Families with scale constants of their own (all but Hopper and Other).
constexpr std::array<ArchFamily, 7> kScaledFamilies{ArchFamily::Blackwell, ArchFamily::BlackwellGb2, ArchFamily::Ada,
                                                    ArchFamily::Ampere,    ArchFamily::Cdna,         ArchFamily::Gaudi,
                                                    ArchFamily::Tpu};
ArchFamily archFamily(const Gpu& gpu);
/// "hopper", "blackwell", "blackwell_gb2", "ada", "ampere", "cdna", "gaudi", "tpu", "other".
const char* archFamilyId(ArchFamily f);
/// "Hopper", "Blackwell (sm_100)", ... for reports and notes.
const char* archFamilyLabel(ArchFamily f);

/// What a band covers (issue #16: uncertainty by distance from measurement).
/// Training: training throughput (tokens/s, images/s); inference: serving and
/// inference throughput (prefill, decode, max-throughput serving, images/s);
/// memory: the peak memory of either.
enum class BandKind { Training, Inference, Memory };
constexpr int kBandKindCount = 3;
/// "training", "inference", "memory": the id suffix of uncertainty_family_<family>_<kind>.
const char* bandKindId(BandKind k);

/// One family's scale factors on the Hopper-fitted rates, and its bands per
/// kind (relative 1-sigma; 0 = the family has no published rows of that kind:
/// throughput then takes the wide band uncertainty_unmeasured_family, memory the
/// measured Hopper band widened for another architecture).
struct FamilyConstants {
    double gemm16 = 1;     // tensor-core work (GEMMs and flash attention) in 16-bit and fp32/tf32 formats
    double gemm8 = 1;      // the same in fp8 / int8 / fp4 formats
    double bandwidth = 1;  // achieved memory bandwidth (elementwise and decode streaming)
    double collective = 1; // tensor/data-parallel collective bus bandwidth
    double vllmStock = 1;  // a stock vLLM offline benchmark's throughput / the tuned engine's (published rows only)
    /// Board power (W) at which the family's GPUs hold their tensor clock under
    /// dense GEMM load; a part rated below it sustains tdp / clockPowerW of its
    /// datasheet tensor rate (0 = no power term).
    double clockPowerW = 0;
    double uncertaintyTraining = 0;  // RMS of the leave-one-out log residuals of its training throughput rows
    double uncertaintyInference = 0; // ... of its serving/inference throughput rows
    double uncertaintyMemory = 0;    // ... of its scored memory rows
    /// The band of one kind (0 = no rows of that kind).
    double band(BandKind k) const
    {
        return k == BandKind::Training ? uncertaintyTraining
               : k == BandKind::Inference ? uncertaintyInference
                                          : uncertaintyMemory;
    }
};

/// Every constant the models read, by name. Obtain one from builtinCalibration()
/// or loadCalibration(); the members mirror `entries`.
struct Calibration {
    // GEMM ceilings (fraction of the dense peak at 8192^3) and shape constant
    double gemmEffFp32 = 0;
    double gemmEffTf32 = 0;
    double gemmEffFp16 = 0;
    double gemmEffBf16 = 0;
    double gemmEffFp8 = 0;
    double gemmEffOther = 0;
    double gemmShapeC = 0;
    // Bandwidth
    double bandwidthEff = 0;
    double decodeBandwidthEff = 0;
    // Attention (flash / SDPA) efficiency
    double attnEffHopperBlackwell = 0;
    double attnEffNvidia = 0;
    double attnEffNonNvidia = 0;
    // Elementwise and loss traffic
    double ewTrafficEager = 0;
    double ewTrafficOptimized = 0;
    double trainGemmDerateOptimized = 0;
    double logitTrafficEager = 0;
    double logitTrafficOptimized = 0;
    // Host / launch costs (seconds)
    double kernelSTrainEager = 0;
    double kernelSTrainOptimized = 0;
    double kernelSInferEager = 0;
    double kernelSInferOptimized = 0;
    double kernelSDecodeEager = 0;
    double decodeLayerSGraph = 0;
    double decodeGemmMinRows = 0;
    // Effective kernel launches per layer forward
    double kernelsLayerSwigluAmp = 0;
    double kernelsLayerSwiglu = 0;
    double kernelsLayerGeluAmp = 0;
    double kernelsLayerGelu = 0;
    double kernelsPerExpert = 0;
    double kernelsPerLoraTarget = 0;
    double kernelsOptimizedFusion = 0;
    double kernelsOptimizedMin = 0;
    // Prefill
    double prefillEwFactor = 0;
    double prefillKernelsLayerOptimized = 0;
    double prefillKernelsLayerEager = 0;
    // Vision
    double convEff = 0;
    double visionEwTraffic = 0;
    double visionCheckpointFullFactor = 0;
    // Communication
    double fsdpOverlap = 0;
    double ddpOverlap = 0;
    double pcieEff = 0;
    double allReduceLatencySBase = 0;
    double allReduceLatencySPerGpu = 0;
    // Memory
    double contextCudaMib = 0;
    double contextRocmMib = 0;
    double contextOtherMib = 0;
    double buffersTrainEagerMib = 0;
    double buffersTrainOptimizedMib = 0;
    double buffersInferMib = 0;
    double allocatorSlack = 0;
    double allocatorSlackCheckpoint = 0;
    double allocatorSlackTransient = 0;
    double allocatorSlackWeights = 0;
    double activationOptimizedFactor = 0;
    double activationSelectiveFactor = 0;
    double activationGpt2Extra = 0;
    double buffersInferVisionMib = 0;
    double usableMemoryFraction = 0;
    // Uncertainty (relative 1-sigma): base residuals and widenings in quadrature
    double uncertaintyMemory = 0;
    double uncertaintyThroughputTraining = 0;
    double uncertaintyThroughputInference = 0;
    double uncertaintyThroughputVision = 0;
    double uncertaintyWidenThroughputOtherNvidia = 0;
    double uncertaintyWidenThroughputNonNvidia = 0;
    double uncertaintyWidenMemoryOtherNvidia = 0;
    double uncertaintyWidenMemoryNonNvidia = 0;
    double uncertaintyWidenThroughputApproximate = 0;
    double uncertaintyWidenMemoryApproximate = 0;
    double uncertaintyWidenThroughputMultiGpu = 0;
    double uncertaintyWidenMemoryMultiGpu = 0;
    double uncertaintyWidenThroughputQlora = 0;
    double uncertaintyWidenThroughputMoe = 0;
    double uncertaintyWidenMemoryMoe = 0;
    double uncertaintyWidenThroughputOptimizedTraining = 0;
    // Round-2 performance terms (perfmodel.cpp)
    double attnFwdEffHopperBlackwell = 0;
    // Serving engines (runtime "serving": inferencememory.cpp, inferenceperf.cpp)
    double servingChunkTokens = 0;
    double servingKvBlockTokens = 0;
    double servingEngineMib = 0;
    double kernelSDevice = 0;
    double kernelSTrainCnnEager = 0;
    double convEffHopperBlackwell = 0;
    // Issue #16: per-architecture families and collectives
    double uncertaintyUnmeasuredFamily = 0; // throughput band of a family without published rows of that kind
    double nvlinkBusEff = 0;                // NCCL all-reduce bus bandwidth / NVLink per-direction bandwidth
    double nvlinkBusEffDecode = 0;          // the same at a decode step's all-reduce (a few MB: below NCCL's peak)
    double servingPpHostSPerSeq = 0;        // serving with pipeline parallel: host seconds per sequence per micro-batch hop, not overlapped
    double servingStepSPerSeq = 0;          // serving: host seconds per running sequence per engine step, not overlapped
    double servingDecodeAllreduceEff = 0;   // serving: share of nvlink_bus_eff_decode a decode step's TP all-reduce reaches in the engine
    double attnTritonShare = 0;             // Triton FlashAttention (fwd + bwd) / the flash-attention rate of attn_eff_*
    std::array<FamilyConstants, kArchFamilyCount> families{}; // indexed by ArchFamily; Hopper and Other stay at 1

    /// The constants of `gpu`'s family (all 1 for Hopper and Other).
    const FamilyConstants& family(const Gpu& gpu) const { return families[std::size_t(archFamily(gpu))]; }

    std::vector<CalibrationEntry> entries; // in file order, one per member above
    std::vector<std::string> warnings;     // e.g. unknown ids, which are ignored
    std::string source;                    // the file it was read from ("" = built-in), for reports

    /// The entry with this id, or nullptr.
    const CalibrationEntry* find(const std::string& id) const;
    /// Sets the entry and its member; false for an unknown id. No bounds check:
    /// meant for tests and refits, which validate through loadCalibration.
    bool set(const std::string& id, double value);
};

/// Number of constants a calibration file must give (the members above).
int calibrationConstantCount();

/// The compiled-in table (resources/calibration/builtin-calibration.json),
/// parsed and validated once.
const Calibration& builtinCalibration();

/// The calibration format version this program writes (2: per-kind family
/// bands). It also reads version 1 (one throughput band per family,
/// uncertainty_family_<id>_throughput): that band applies to training and
/// inference alike, and the family memory bands are 0.
constexpr int kCalibrationFormatVersion = 2;

/// Parses and validates a calibration document: every known id exactly once,
/// each value a finite number within the built-in entry's [min, max] (and the
/// file's own min/max when it gives them). Unknown ids go to warnings. Throws
/// InputError naming the key path (e.g. "constants[3].value") of every problem.
Calibration loadCalibration(const std::string& jsonText);

/// estimateOn (estimate.h) with these constants instead of the built-in ones;
/// `calibration` is only read during the call.
GpuEstimate estimateOn(const Scenario& s, const Gpu& gpu, const EstimateOptions& options,
                       const Calibration& calibration);

} // namespace gp
