#pragma once
// The limits `trtllm-bench throughput` gives a TensorRT-LLM engine when the
// command line names none (max_batch_size, max_num_tokens, chunking, CUDA
// graph batch sizes), read from NVIDIA/TensorRT-LLM:
//  - tensorrt_llm/bench/build/tuning.py (calc_engine_setting, finetune_setting):
//    the KV requests that 0.95 of (total device memory - parameters x bytes)
//    holds at ISL + OSL, capped at 4096 and divided by pp; max_batch_size
//    rounded up (to 32 below 256, min 64; to 128 below 1024; else to 256);
//    max_num_tokens = that x (1 + ISL / OSL), capped at 32768 and rounded up
//    (to 256 below 4096, min 2048; to 512 below 8192; else to 1024).
//    The same code at v0.17 (trtllm-bench build) and in the 1.x line.
//  - tensorrt_llm/bench/build/dataclasses.py (param_count): v0.17 counts the
//    16-bit HF checkpoint's parameters; the 1.x line sums the element counts of
//    every dtype of the checkpoint it serves (an NVFP4 checkpoint stores two
//    FP4 values per U8 element and one FP8 scale per 16 values).
//  - tensorrt_llm/bench/benchmark/utils/general.py (get_settings, PyTorch
//    backend): chunked prefill off unless asked, so max_num_tokens is at least
//    the longest prompt + max_batch_size.
//  - tensorrt_llm/_torch/pyexecutor/model_engine.py (_filter_cuda_graph_batch_sizes):
//    the listed CUDA graph batch sizes up to min(max_batch_size, max_num_tokens),
//    plus that bound itself when a listed size exceeds it (padding on).
//  - docs/source/performance/perf-overview.md @ 00f37686 (and @ 03e27c7d for
//    1.2): llm_options.yml cuda_graph_config {enable_padding: true,
//    batch_sizes: [1, 2, 4, ..., 256, 384, 512, 1024, 2048, 4096, 8192]}.
#include "core/scenario/scenario.h"

#include <vector>

namespace gp {

/// How the run was made: v0.17 built a TensorRT engine (`trtllm-bench build`,
/// in-flight batching with chunked context, no CUDA graphs); the 1.x line runs
/// the PyTorch backend with the perf overview's CUDA graph list and padding.
enum class TrtllmBackend { TensorRtEngine, PyTorch };

struct TrtllmBenchInput {
    const ModelArch* model = nullptr;
    InferPrecision precision = InferPrecision::FP8; // the checkpoint's / build's quantization
    double kvBytesPerElement = 1;                   // FP8 KV cache for FP8 and NVFP4 runs, else 2
    int tp = 1;
    int pp = 1;
    double deviceMemoryGiB = 80;                    // NVML's total memory of one GPU
    int inputLen = 1024;
    int outputLen = 1024;
    double kvFreeFraction = 0.95;                   // --kv_cache_free_gpu_mem_fraction
    TrtllmBackend backend = TrtllmBackend::PyTorch;
};

/// The settings trtllm-bench derives (see above).
ServingEngineLimits trtllmBenchLimits(const TrtllmBenchInput& in);

/// The CUDA graph batch sizes of the perf overview's llm_options.yml.
const std::vector<int>& trtllmPerfOverviewGraphSizes();

} // namespace gp
