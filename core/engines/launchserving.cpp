// The serving engines' launch files: vLLM, SGLang and TensorRT-LLM (serve.sh, and
// TensorRT-LLM's extra_llm_api_options.yaml). Each writes its quantization and KV
// cache flags and the KV pool the engine logs at start; the header, replica lines
// and serve.sh they share are in launchwriting.cpp.
#include "core/engines/launchwriting.h"
#include "core/engines/sglangpool.h"

#include "core/calibration/calibration.h"
#include "core/base/errors.h"
#include "core/base/units.h"

#include <cmath>

namespace gp::launchwriter {

using namespace detail;
using units::bytesToGiB;

namespace {

/// The settings vLLM and SGLang both take, in this order, under each engine's names
/// (--dtype, --quantization, --kv-cache-dtype and --port are the same in both).
struct ServerFlagNames {
    const char* tp;       // tensor parallel size
    const char* pp;       // pipeline parallel size (written only above 1)
    const char* maxLen;   // prompt + output tokens
    const char* batch;    // sequences in flight
    const char* chunk;    // tokens per scheduler step (chunked prefill)
    const char* fraction; // share of GPU memory the engine takes
};

constexpr ServerFlagNames kVllmFlags{"--tensor-parallel-size", "--pipeline-parallel-size", "--max-model-len",
                                     "--max-num-seqs", "--max-num-batched-tokens", "--gpu-memory-utilization"};
constexpr ServerFlagNames kSglangFlags{"--tp-size", "--pp-size", "--context-length", "--max-running-requests",
                                       "--chunked-prefill-size", "--mem-fraction-static"};

Cmd serverFlags(Cmd& c, const Serving& s, const ServerFlagNames& n, const std::string& quant, const std::string& kvDtype,
                double fraction, int port)
{
    const Hardware& h = s.t.scenario.hardware;
    c.flag(n.tp, str(h.tp));
    if (h.pp > 1)
        c.flag(n.pp, str(h.pp));
    c.flag("--dtype", torchDtype(s.t.scenario.inference.precision, s.t.gpu));
    if (!quant.empty())
        c.flag("--quantization", quant);
    c.flag("--kv-cache-dtype", kvDtype);
    c.flag(n.maxLen, str(s.maxModelLen));
    c.flag(n.batch, str(s.batch));
    c.flag(n.chunk, str(s.chunk));
    c.flag(n.fraction, num(fraction, 2));
    c.flag("--port", str(port));
    return c;
}

/// What vLLM and SGLang write for a weight precision other than 16 bits: the
/// --quantization word and the note that says which checkpoint it loads. An engine
/// with no INT8 word (vLLM) refuses INT8 with its own reason.
struct QuantWords {
    const char* model;      // how the note names the model flag ("the model", "--model-path")
    const char* int8;       // --quantization for a W8A8 INT8 checkpoint, or nullptr
    const char* int8Refusal; // why INT8 is refused when int8 is nullptr
    const char* fp4Source;  // " (TensorRT Model Optimizer)" or ""
    bool int4NamesModel;    // the INT4 note names the model whose AWQ checkpoint to use
};

constexpr QuantWords kVllmQuant{"the model", nullptr,
                                "vLLM has no INT8 weight quantization of a 16-bit checkpoint at load time; serve a W8A8 "
                                "INT8 checkpoint (llm-compressor), whose config.json selects the kernels, or plan with fp8",
                                " (TensorRT Model Optimizer)", true};
constexpr QuantWords kSglangQuant{"--model-path", "w8a8_int8", nullptr, "", false};

std::string quantization(Serving& s, const EngineSpec& spec, const QuantWords& w)
{
    const LaunchTarget& t = s.t;
    const std::string point = std::string("; point ") + w.model + " at ";
    switch (t.scenario.inference.precision) {
    case InferPrecision::FP8: return "fp8";
    case InferPrecision::INT4:
        s.notes.push_back("INT4: --quantization awq loads an AWQ INT4 checkpoint" + point +
                          (w.int4NamesModel ? "one of " + t.scenario.model.name + "." : std::string("one.")));
        return "awq";
    case InferPrecision::INT8:
        if (!w.int8)
            refuse(spec.id, w.int8Refusal);
        s.notes.push_back(std::string("INT8: --quantization ") + w.int8 + " loads a W8A8 INT8 checkpoint" + point + "one.");
        return w.int8;
    case InferPrecision::FP4:
        requireNvfp4(t, spec);
        s.notes.push_back(std::string("FP4: --quantization modelopt_fp4 loads an NVFP4 checkpoint") + w.fp4Source + point +
                          "one.");
        return "modelopt_fp4";
    default: return {};
    }
}

} // namespace

// ---------------------------------------------------------------- vLLM

LaunchFiles writeVllm(const LaunchTarget& t0, const EngineSpec& spec, const Calibration* cal)
{
    Serving s = prepareServing(t0, spec, cal);
    const LaunchTarget& t = s.t;
    const std::string quant = quantization(s, spec, kVllmQuant);
    const std::string kvDtype =
        kvCacheDtype(s, spec, "fp8", "vLLM has no INT8 KV cache (--kv-cache-dtype: auto, bfloat16, fp8, fp8_e4m3, fp8_e5m2, ...); use kv_precision fp8",
                     "vLLM has no 4-bit KV cache; use kv_precision fp8 or bf16");
    const double fraction = t.scenario.inference.memoryFraction; // inference.memory_fraction (default 0.9, vLLM's)
    const KvStartup k = predictVllmKv(t, fraction, 16, s.chunk);
    if (k.availableBytes <= 0 || k.numBlocks <= 0)
        refuse(spec.id, "no memory left for vLLM's KV cache: the predicted weights, activations and overhead take " +
                            num(bytesToGiB(k.nonKvBytes), 1) + " GiB per GPU, over --gpu-memory-utilization " + num(fraction, 2) +
                            " x " + num(bytesToGiB(k.capacityBytes), 1) + " GiB; vLLM would stop at start");
    std::vector<std::string> head = s.head;
    head.push_back("At start vLLM's V1 engine logs (vllm/v1/core/kv_cache_utils.py), computed here the same way from the "
                   "predicted non-KV memory per GPU (" + num(bytesToGiB(k.nonKvBytes), 2) + " GiB) and " + num(fraction, 2) +
                   " x " + num(bytesToGiB(k.capacityBytes), 2) + " GiB, KV " + num(k.kvBytesPerToken / 1024, 1) +
                   " KiB per token per GPU, block size " + str(k.blockSize) +
                   (k.hybridGroups > 0 ? ", hybrid KV cache manager: " + str(k.hybridGroups) +
                                             " groups of layers on one pool, windowed and state layers holding only what "
                                             "they need"
                                       : std::string()) +
                   ":");
    head.push_back("  GPU KV cache size: " + grouped(k.kvTokens) + " tokens");
    head.push_back("  Maximum concurrency for " + grouped(k.maxModelLen) + " tokens per request: " + num(k.maxConcurrency, 2) + "x");
    if (k.maxConcurrency < s.batch)
        head.push_back("WARNING: that holds fewer full-length sequences than --max-num-seqs " + str(s.batch) +
                       "; vLLM admits requests by the blocks they use now, and preempts when the cache fills.");
    return serveScript(s, head, spec, 8000, "--data-parallel-size", [&](const std::string& model, int port) {
        Cmd c(spec, "vllm");
        c.word("serve").word(model);
        return serverFlags(c, s, kVllmFlags, quant, kvDtype, fraction, port);
    });
}

// ---------------------------------------------------------------- SGLang

LaunchFiles writeSglang(const LaunchTarget& t0, const EngineSpec& spec, const Calibration* cal)
{
    Serving s = prepareServing(t0, spec, cal);
    const LaunchTarget& t = s.t;
    const std::string quant = quantization(s, spec, kSglangQuant);
    const std::string kvDtype =
        kvCacheDtype(s, spec, "fp8_e4m3", "SGLang has no INT8 KV cache (--kv-cache-dtype: auto, fp8_e5m2, fp8_e4m3, bf16, ...); use kv_precision fp8",
                     "SGLang's 4-bit KV cache (fp4_e2m1) is for MXFP4 models only; use kv_precision fp8 or bf16");
    const double fraction = t.scenario.inference.memoryFraction; // inference.memory_fraction (default 0.9, vLLM's)
    const Calibration& c0 = cal ? *cal : builtinCalibration();
    // The pool SGLang sizes and the lines it logs, by how it treats this model's
    // layers (sglangpool.cpp: uniform, hybrid sliding-window, Mamba / linear state).
    const SglangPool pool = predictSglangPool(t, fraction, c0);
    if (pool.restBytes <= 0)
        refuse(spec.id, "no memory left for SGLang's KV pool: weights " + num(bytesToGiB(t.estimate.memory.weights), 1) +
                            " GiB per GPU over --mem-fraction-static " + num(fraction, 2) + " x " +
                            num(bytesToGiB(pool.capacityBytes), 1) + " GiB");
    std::vector<std::string> head = s.head;
    for (const std::string& line : sglangPoolHeader(pool, s.chunk, s.batch))
        head.push_back(line);
    return serveScript(s, head, spec, 30000, "--dp-size", [&](const std::string& model, int port) {
        Cmd c(spec, "python");
        c.word("-m").word("sglang.launch_server");
        c.flag("--model-path", model);
        return serverFlags(c, s, kSglangFlags, quant, kvDtype, fraction, port);
    });
}

// ---------------------------------------------------------------- TensorRT-LLM

LaunchFiles writeTrtllm(const LaunchTarget& t0, const EngineSpec& spec, const Calibration* cal)
{
    if (t0.gpu.vendor != "NVIDIA")
        refuse(spec.id, "TensorRT-LLM runs on NVIDIA GPUs only; " + t0.gpu.name + " is " + t0.gpu.vendor +
                            " (use vllm or sglang, which run on ROCm)");
    Serving s = prepareServing(t0, spec, cal);
    const LaunchTarget& t = s.t;
    const Hardware& h = t.scenario.hardware;
    const InferPrecision prec = t.scenario.inference.precision;
    if (prec == InferPrecision::FP4 && !t.gpu.supports(DType::FP4))
        refuse(spec.id, "FP4 weights need FP4 tensor cores (Blackwell); " + t.gpu.name + " has none");
    if (prec == InferPrecision::FP8 || prec == InferPrecision::FP4 || prec == InferPrecision::INT4 || prec == InferPrecision::INT8)
        s.notes.push_back("The PyTorch backend reads the quantization from the checkpoint: point MODEL at a " +
                          std::string(toString(prec)) + " checkpoint made with TensorRT Model Optimizer.");
    const std::string kvDtype =
        kvCacheDtype(s, spec, "fp8", "the PyTorch backend's KV cache (kv_cache_config.dtype) is auto or fp8, not int8; use kv_precision fp8",
                     "TensorRT-LLM's PyTorch backend has no 4-bit KV cache (kv_cache_config.dtype: auto, fp8)");
    // --kv_cache_free_gpu_memory_fraction is a share of the memory left after the
    // weights and buffers: the same KV pool as vLLM's 0.9 of the whole GPU.
    const double fraction = t.scenario.inference.memoryFraction; // inference.memory_fraction (default 0.9, vLLM's)
    const double cap = engineTotalBytes(t);
    const double nonKv = t.estimate.memory.total() - t.estimate.memory.kvCache;
    const double free = cap - nonKv;
    const double pool = fraction * cap - nonKv;
    if (pool <= 0 || free <= 0)
        refuse(spec.id, "no memory left for the KV cache: the predicted weights, activations and overhead take " +
                            num(bytesToGiB(nonKv), 1) + " GiB per GPU of " + num(bytesToGiB(cap), 1) + " GiB");
    const double freeFraction = std::floor(pool / free * 100) / 100;
    const double perToken = kvBytesPerTokenPerGpu(t);
    const int tokensPerBlock = 32;
    const long long tokens = static_cast<long long>(std::floor(freeFraction * free / perToken / tokensPerBlock)) * tokensPerBlock;
    std::vector<std::string> head = s.head;
    head.push_back("At start the KV cache manager takes --kv_cache_free_gpu_memory_fraction " + num(freeFraction, 2) +
                   " of the memory left free after the weights and buffers (predicted " + num(bytesToGiB(free), 2) +
                   " GiB per GPU): " + num(bytesToGiB(freeFraction * free), 2) + " GiB, about " + grouped(tokens) +
                   " tokens (blocks of " + str(tokensPerBlock) + ", " + num(perToken / 1024, 1) + " KiB per token per GPU); "
                   "the same pool as vLLM's --gpu-memory-utilization " + num(fraction, 2) + ".");
    LaunchFiles out = serveScript(s, head, spec, 8000, "", [&](const std::string& model, int port) {
        Cmd c(spec, "trtllm-serve");
        c.word(model);
        c.flag("--backend", "pytorch");
        c.flag("--tp_size", str(h.tp));
        c.flag("--pp_size", str(h.pp));
        c.flag("--max_batch_size", str(s.batch));
        c.flag("--max_num_tokens", str(s.chunk));
        c.flag("--max_seq_len", str(s.maxModelLen));
        c.flag("--kv_cache_free_gpu_memory_fraction", num(freeFraction, 2));
        c.flag("--config", "extra_llm_api_options.yaml");
        c.flag("--port", str(port));
        return c;
    });
    // The YAML given to --config (extra_llm_api_options).
    std::vector<std::string> yamlHead = s.head;
    yamlHead.push_back("Extra LLM API options for trtllm-serve --config (keys of tensorrt_llm/llmapi/llm_args.py).");
    std::string yaml = commentBlock(yamlHead, "#");
    key(spec, "dtype");
    yaml += "dtype: " + torchDtype(prec, t.gpu) + "\n";
    key(spec, "kv_cache_config");
    key(spec, "kv_cache_config.dtype", kvDtype);
    key(spec, "kv_cache_config.free_gpu_memory_fraction");
    yaml += "kv_cache_config:\n  dtype: " + kvDtype + "\n  free_gpu_memory_fraction: " + num(freeFraction, 2) + "\n";
    key(spec, "enable_chunked_prefill");
    yaml += "enable_chunked_prefill: true\n";
    out.files.push_back({"extra_llm_api_options.yaml", yaml, false});
    return out;
}

} // namespace gp::launchwriter
