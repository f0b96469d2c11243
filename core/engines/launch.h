#pragma once
// From a plan to a running job: the files that run one configuration (a plan
// option, or the scenario as it stands) on a real serving or training stack.
// Every flag and config key written is checked against the engine's documented
// list (core/engines/enginecatalog.h); each file opens with the engine version, the
// predicted memory per GPU and speed with their uncertainty, and what the
// engine will report at start (vLLM: KV cache tokens and maximum concurrency;
// DeepSpeed: its model-state estimate).
#include "core/hardware/catalog.h"
#include "core/estimate/estimate.h"
#include "core/scenario/scenario.h"

#include <string>
#include <vector>

namespace gp {

struct Calibration;
struct PlanOption;

/// One configuration to launch: a single GPU type, its layout and batch.
struct LaunchTarget {
    Scenario scenario;     // hardware.gpus = {gpu}, count/tp/pp/zero/mig and the workload set to the configuration
    Gpu gpu;               // the whole GPU (a MIG slice is hardware.mig)
    GpuEstimate estimate;  // one replica, as the scenario's runtime runs it
    int replicas = 1;      // inference: copies behind a load balancer
    std::string what;      // "plan option 1: 2x NVIDIA H100 SXM, TP 2, fp8" / "the scenario as it stands"
};

/// The scenario as it stands (`--option 0`): hardware.gpus must name one GPU.
LaunchTarget launchTargetForScenario(const Scenario& s, const Catalog& catalog, const Calibration* calibration = nullptr);
/// A plan option of `s` (the app's "Launch files..." on a Planner row).
LaunchTarget launchTargetForOption(const Scenario& s, const PlanOption& option, const Catalog& catalog,
                                   const Calibration* calibration = nullptr);
/// option 0: the scenario; N >= 1: the plan's option of rank N. Throws InputError.
LaunchTarget launchTarget(const Scenario& s, const Catalog& catalog, int option, const Calibration* calibration = nullptr);

struct LaunchFile {
    std::string name;      // "serve.sh", "ds_config.json", ...
    std::string text;
    bool executable = false;
};

struct LaunchFiles {
    std::string engine;
    std::vector<LaunchFile> files;
    std::vector<std::string> commands; // the command lines, one per replica (the report lists them)
    std::vector<std::string> notes;    // what the engine does differently from the plan
};

/// The files for `engine` (an id of engineIds()). Throws InputError whose path is
/// "--for ENGINE" when the engine cannot run the configuration (a precision or
/// layout it lacks, MIG where GPUs must talk, a training engine for inference),
/// with the reason.
LaunchFiles generateLaunch(const LaunchTarget& t, const std::string& engine, const Calibration* calibration = nullptr);

/// vLLM's default --gpu-memory-utilization (EngineArgs.gpu_memory_utilization = 0.90).
inline constexpr double kVllmDefaultMemoryFraction = 0.9;

/// What vLLM's V1 engine logs at start for this configuration, computed the way
/// vllm/v1/core/kv_cache_utils.py computes it from the predicted memory:
/// available = fraction x GPU memory - (weights + activations + overhead);
/// num_blocks = available // (block_size x KV bytes per token per GPU);
/// tokens = num_blocks x block_size; concurrency = num_blocks / ceil(max_model_len / block_size).
struct KvStartup {
    int blockSize = 16;
    int maxModelLen = 0;
    double memoryFraction = kVllmDefaultMemoryFraction;
    double capacityBytes = 0;   // per GPU, the engine's total (engineTotalBytes)
    double nonKvBytes = 0;      // weights + activations + overhead per GPU (predicted)
    double availableBytes = 0;  // for the KV cache per GPU
    double kvBytesPerToken = 0; // per GPU (after the TP / PP split)
    long long numBlocks = 0;
    long long kvTokens = 0;
    double maxConcurrency = 0;
    int hybridGroups = 0;       // > 0: vLLM's hybrid KV cache manager (layers of several cache kinds)
};
/// A model whose layers keep different caches (sliding window, chunked, Mamba /
/// linear state beside full attention) is sized as vLLM's hybrid KV cache manager
/// does (launch.cpp, hybridKv): groups of layers drawing on one pool of blocks.
/// `maxNumBatchedTokens` (--max-num-batched-tokens) bounds what a windowed layer keeps.
KvStartup predictVllmKv(const LaunchTarget& t, double memoryFraction = kVllmDefaultMemoryFraction, int blockSize = 16,
                        int maxNumBatchedTokens = 8192);

/// The GPU memory an engine sees as its total (torch.cuda.mem_get_info()), per GPU:
/// the estimate's capacity less what the driver keeps out of CUDA's view.
double engineTotalBytes(const LaunchTarget& t);

/// KV cache bytes per token on one GPU of the target (K and V, all its layers).
double kvBytesPerTokenPerGpu(const LaunchTarget& t);

/// The Hugging Face repository of a preset ("meta-llama/Llama-3.1-8B-Instruct"), "" when none is known.
std::string modelRepoId(const Scenario& s);
/// The preset a Hugging Face id (or a path ending in its name) stands for, "" when none.
std::string presetForRepoId(const std::string& repo);

} // namespace gp
