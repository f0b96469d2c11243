#pragma once
#include "core/base/errors.h"
#include "core/model/model.h"

#include <optional>
#include <string>
#include <vector>

namespace gp {

enum class Mode { Training, Inference };
enum class Runtime { Eager, Optimized, Serving };
enum class TrainMethod { Full, Lora, Qlora };
enum class TrainPrecision { FP32, TF32, AmpBF16, AmpFP16, BF16, FP8 };
enum class Optimizer { AdamW, SGD, SGDMomentum, AdamW8bit };
enum class Checkpointing { None, Selective, Full };
// FP4 (NVFP4 weights) is an extension of the spec's list; it stays last so the
// other values keep their numbers.
enum class InferPrecision { FP32, FP16, BF16, FP8, INT8, INT4, FP4 };
enum class PricingModel { OnDemand, Spot, Reserved, Purchase };

struct TrainingTargets {
    std::optional<double> deadlineHours;
    std::optional<double> budgetUsd;
};

struct TrainingWorkload {
    TrainMethod method = TrainMethod::Full;
    int loraRank = 16;
    std::vector<std::string> loraTargets{"q_proj", "k_proj", "v_proj", "o_proj"};
    TrainPrecision precision = TrainPrecision::AmpBF16;
    Optimizer optimizer = Optimizer::AdamW;
    int microBatch = 8;
    int seqLen = 1024;
    int imageSize = 224;
    int gradAccum = 1;
    Checkpointing checkpointing = Checkpointing::None;
    std::optional<double> datasetTokens;
    std::optional<double> datasetSamples;
    double epochs = 1;
    TrainingTargets targets;
    // The global batch (tokens per optimizer step) to hold; the planner then
    // chooses micro-batch, accumulation and data-parallel width under it.
    std::optional<double> globalBatchTokens;
    bool chunkedLoss = false;          // loss in chunks: logits never whole (torchtune)
    bool optimizerInBackward = false;  // each gradient applied and freed at once (torchtune)
    // Not a scenario key: set by `validate` for published runs whose framework
    // states Triton FlashAttention (LLM Foundry's attn_impl: triton), which runs
    // at attn_triton_share of the flash-attention rate the model is fitted on.
    bool tritonAttention = false;
    // Not a scenario key either: torchtitan's selective activation checkpointing
    // (torchtitan/parallelisms/parallelize_llama.py), which `validate` sets from a
    // run's selective_ac_option. 0: `selective` as the spec means it (attention
    // only, free with flash attention); -1 ('op'): every second matmul of a block
    // and its non-matmul ops recomputed, attention saved; N > 0: every N-th block
    // recomputed whole.
    int selectiveRecompute = 0;
};

struct InferenceTargets {
    std::optional<double> ttftMs;
    std::optional<double> tpotMs;
    std::optional<double> requestsPerS;
    std::optional<double> ttftP99Ms;
};

/// A serving engine's own scheduling limits, where a run states them (validate
/// sets them for published TensorRT-LLM rows, core/engines/trtllmbench.h); no
/// scenario key: a plan's engine is sized by the planner. Zero / empty: the
/// calibration's generic engine (serving_chunk_tokens, the KV pool only).
struct ServingEngineLimits {
    int maxBatch = 0;       // max_batch_size: sequences scheduled at once
    int maxNumTokens = 0;   // max_num_tokens: tokens one engine step may carry
    bool wholePrompts = false; // chunked prefill off: a prompt enters one step whole
    /// CUDA graphs with padding: a step that only decodes runs the graph of the
    /// smallest listed batch at least its own (dummy sequences fill the rest);
    /// a step that carries a prompt runs without graph, unpadded.
    std::vector<int> graphBatchSizes;
};

struct InferenceWorkload {
    InferPrecision precision = InferPrecision::BF16;
    std::optional<InferPrecision> kvPrecision; // default: precision (int4 -> fp16; fp4 -> fp8, or fp16 without FP8)
    /// precision "checkpoint": the weights as the checkpoint stores them
    /// (ModelArch::quant); `precision` then holds the compute format chosen.
    bool checkpointWeights = false;
    int batch = 1;
    int promptTokens = 1024;
    int outputTokens = 256;
    int imageSize = 224;
    double memoryFraction = 0.9;  // serving: share of GPU memory the engine may use (vLLM gpu_memory_utilization)
    InferenceTargets targets;
    ServingEngineLimits engine;   // serving: the engine's stated limits (no JSON key)
};

struct Hardware {
    std::vector<std::string> gpus;  // empty = the whole catalog ("all")
    int count = 1;
    int tp = 1;
    int pp = 1;
    int zero = 0;
    int shardGroup = 0; // extension key shard_group: GPUs per ZeRO shard group (HSDP); 0 = all data-parallel GPUs
    int maxCount = 1024;
    double networkGbps = 400;
    std::string mig;                // "" = whole GPUs; "1g".."7g" = one MIG slice of one GPU (count 1)
    std::vector<std::string> precisions; // plan: formats it may choose (mode's precision names); empty = the workload's own
    bool consumer = false;          // plan: rank GeForce-class cards for serving
    double confidence = 0.9;        // plan: rank at this probability of fitting and meeting the targets
};

struct Pricing {
    PricingModel model = PricingModel::OnDemand;
    double utilization = 1.0;
    double electricityUsdPerKwh = 0.12;
    double pue = 1.3;
    double amortizationYears = 3;
    double hostingUsdPerGpuYear = 0; // owned GPUs: rack, network, staff share (extension key)
};

/// How the model was given, so a saved scenario keeps the user's form.
struct ModelSpec {
    enum class Form { Preset, Explicit, HfConfig, Params };
    Form form = Form::Preset;
    std::string presetId;          // Form::Preset
    std::string jsonText;          // Form::Explicit / HfConfig: the object as written
    double params = 0;             // Form::Params
    std::optional<ModelFamily> family; // Form::Params
    MoeSpec moe;                   // Form::Params
};

struct Scenario {
    std::string name;
    ModelSpec modelSpec;
    ModelArch model;               // resolved from modelSpec
    Mode mode = Mode::Training;
    Runtime runtime = Runtime::Eager;
    TrainingWorkload training;
    InferenceWorkload inference;
    Hardware hardware;
    Pricing pricing;
};

struct ParsedScenario {
    Scenario scenario;
    std::vector<Diagnostic> warnings; // unknown keys and other non-fatal notes
    std::vector<Diagnostic> problems; // keepProblems only: what validateScenario found
};

/// Parses and validates a scenario document (UTF-8 JSON text). Throws
/// InputError listing every problem, each naming its key path. keepProblems:
/// a document that reads cleanly and only breaks the range and cross-field
/// rules (validateScenario) is returned with those in `problems` instead (the
/// app's crash recovery restores such an autosave and shows them).
ParsedScenario parseScenario(std::string_view text, bool keepProblems = false);

/// Reads a Hugging Face config.json (as a file's text) into a model spec,
/// refusing oversized, too deeply nested or unreadable input; throws InputError.
ModelSpec hfConfigSpecFromText(std::string_view text, const std::string& origin);

/// Resolves scenario.modelSpec into scenario.model; throws InputError.
ModelArch resolveModel(const ModelSpec& spec);

/// Serializes to the scenario format (pretty JSON, stable key order).
std::string scenarioToJson(const Scenario& s);

/// Checks ranges and cross-field rules without parsing (for the UI); empty when valid.
std::vector<Diagnostic> validateScenario(const Scenario& s);

/// Why tensor parallelism of degree `tp` cannot split the model (it must divide
/// the attention heads, and the KV heads or be a multiple of them, as vLLM
/// replicates KV heads); empty when it can or the model has no heads.
std::string tpProblem(const ModelArch& m, int tp);
/// Why `pp` pipeline stages cannot split the model (at most one per layer); empty when they can.
std::string ppProblem(const ModelArch& m, int pp);

/// The built-in default scenario (the one the app starts on).
Scenario defaultScenario();

std::string_view toString(Mode v);
std::string_view toString(Runtime v);
std::string_view toString(TrainMethod v);
std::string_view toString(TrainPrecision v);
std::string_view toString(Optimizer v);
std::string_view toString(Checkpointing v);
std::string_view toString(InferPrecision v);
std::string_view toString(PricingModel v);

} // namespace gp
