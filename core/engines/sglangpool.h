#pragma once
// SGLang's KV pool at start (max_total_num_tokens), for the three ways SGLang sizes
// it: one uniform pool over every attention layer, the hybrid sliding-window pool
// (full and SWA layers in two pools, SWA ones at --swa-full-tokens-ratio of the
// full tokens) and the hybrid Mamba / linear-attention pool (a per-request state
// pool carved out first, the rest for the attention layers' KV). Read from
// sgl-project/sglang: python/sglang/srt/model_executor/pool_configurator.py and
// python/sglang/srt/mem_cache/kv_cache_configurator.py at 003fca80 (the index holds
// no copy of those two files at 001067ff, the commit resources/engines/sglang.json
// cites; its server_args.py at 001067ff has the same defaults:
// swa_full_tokens_ratio 0.8, disable_hybrid_swa_memory False,
// mamba_full_memory_ratio 0.9, max_mamba_cache_size None);
// python/sglang/srt/configs/model_config.py at 001adf56 (is_hybrid_swa_model,
// get_hybrid_layer_ids).
#include "core/engines/launch.h"

#include <string>
#include <vector>

namespace gp {

struct Calibration;

struct SglangPool {
    enum class Kind {
        Uniform,   // every attention layer keeps every token (DefaultPoolConfigurator)
        HybridSwa, // HybridSWAPoolConfigurator: gpt-oss (sliding), Llama 4 (chunked) layers
        Mamba,     // mambaish models: a state pool, then DefaultPoolConfigurator over the full-attention layers
    };
    Kind kind = Kind::Uniform;
    double memoryFraction = 0.9;
    double capacityBytes = 0;     // per GPU, the engine's total (engineTotalBytes)
    double restBytes = 0;         // --mem-fraction-static x total - (weights + CUDA context), per GPU
    double cellBytes = 0;         // bytes of one max_total_num_tokens token over the GPU's layers
    long long maxTotalTokens = 0; // the logged max_total_num_tokens
    // HybridSwa (Uniform: swaLayers / window are the windowed layers pooled like full ones)
    int fullLayers = 0;
    int swaLayers = 0;
    int window = 0;                  // sliding window or attention chunk, tokens
    double swaFullTokensRatio = 0.8; // --swa-full-tokens-ratio default (server_args.py)
    long long swaTokens = 0;         // swa_layer_tokens
    // Mamba
    int mambaLayers = 0;               // this GPU's state layers
    int attentionLayers = 0;           // this GPU's full-attention layers
    double mambaFullMemoryRatio = 0.9; // --mamba-full-memory-ratio default (server_args.py)
    bool stateSplitKnown = false;      // conv / SSM state elements known (Gated DeltaNet shape)
    double stateBytesPerRequest = 0;   // mamba_cache_per_req for this GPU (lower bound when !stateSplitKnown)
    double stateBytesPerRequestHigh = 0;
    double convBytes = 0, ssmBytes = 0; // the state pool's tensors, max_mamba_cache_size + 1 slots
    long long mambaCacheSize = 0;       // max_mamba_cache_size (lower bound when !stateSplitKnown)
    long long mambaCacheSizeHigh = 0;
    long long maxTotalTokensHigh = 0;   // == maxTotalTokens when stateSplitKnown
};

/// SGLang's pool for the target at --mem-fraction-static `memoryFraction`, from the
/// predicted weights and the calibrated CUDA context per GPU.
SglangPool predictSglangPool(const LaunchTarget& t, double memoryFraction, const Calibration& cal);

/// The serve.sh header lines: how SGLang sizes the pool for this model and the
/// start-up lines it logs. `chunk` and `batch` are --chunked-prefill-size and
/// --max-running-requests as written.
std::vector<std::string> sglangPoolHeader(const SglangPool& p, int chunk, int batch);

} // namespace gp
