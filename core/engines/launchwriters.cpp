// The launch files of each engine. Every flag goes through Cmd::flag and every
// config key through Keys::key, which refuse what the engine's documented list
// (resources/engines/<engine>.json) does not hold: a renamed flag fails here and
// in tst_launch, never at the user's start-up.
#include "core/engines/launch.h"

#include "core/calibration/calibration.h"
#include "core/engines/enginecatalog.h"
#include "core/base/errors.h"
#include "core/engines/launchdetail.h"
#include "core/estimate/sizing.h"
#include "core/base/units.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace gp {

namespace {

using namespace detail;
using nlohmann::ordered_json;
using units::bytesToGiB;

constexpr int kGpusPerNode = 8;

/// A command line whose flags are checked against the engine's list.
class Cmd {
public:
    Cmd(const EngineSpec& spec, std::string program) : m_spec(spec) { m_tokens.push_back(std::move(program)); }
    Cmd& word(const std::string& w)
    {
        m_tokens.push_back(w);
        return *this;
    }
    Cmd& flag(const std::string& f, const std::string& value = std::string())
    {
        if (!m_spec.hasFlag(f))
            throw std::logic_error("launch: " + m_spec.name + " " + m_spec.version + " does not document the flag " + f);
        if (!value.empty() && !m_spec.accepts(f, value))
            throw std::logic_error("launch: " + m_spec.name + " does not accept " + f + " " + value);
        m_tokens.push_back(f);
        if (!value.empty())
            m_tokens.push_back(value);
        return *this;
    }
    /// One line per flag, continued with backslashes.
    std::string text(const std::string& prefix = std::string()) const
    {
        std::string out = prefix + m_tokens[0];
        for (std::size_t i = 1; i < m_tokens.size(); ++i) {
            const bool isFlag = m_tokens[i].rfind("-", 0) == 0;
            out += isFlag ? " \\\n    " + m_tokens[i] : " " + m_tokens[i];
        }
        return out;
    }
    std::string oneLine(const std::string& prefix = std::string()) const
    {
        std::string out = prefix;
        for (std::size_t i = 0; i < m_tokens.size(); ++i)
            out += (i ? " " : "") + m_tokens[i];
        return out;
    }

private:
    const EngineSpec& m_spec;
    std::vector<std::string> m_tokens;
};

/// Checks a dotted config key (and value) against the engine's documented keys.
void key(const EngineSpec& spec, const std::string& k, const std::string& value = std::string(), bool script = false)
{
    if (!(script ? spec.scriptKeys.count(k) > 0 : spec.hasKey(k)))
        throw std::logic_error("launch: " + spec.name + " " + spec.version + " does not document the key " + k);
    if (!value.empty() && !spec.accepts(k, value))
        throw std::logic_error("launch: " + spec.name + " does not accept " + k + ": " + value);
}

std::string str(long long v) { return std::to_string(v); }
std::string str(int v) { return std::to_string(v); }

std::string deviceList(int first, int count)
{
    std::string out;
    for (int i = 0; i < count; ++i)
        out += (i ? "," : "") + std::to_string((first + i) % kGpusPerNode);
    return out;
}

std::string modelArg(const Scenario& s, std::vector<std::string>& lines)
{
    const std::string repo = modelRepoId(s);
    if (!repo.empty())
        return repo;
    lines.push_back("MODEL: the checkpoint (local path or Hugging Face id) of " +
                    (s.model.name.empty() ? std::string("the scenario's model") : s.model.name) +
                    "; set it before running (MODEL=/path/to/checkpoint ./serve.sh)");
    return "\"$MODEL\"";
}

// ---------------------------------------------------------------- checks

void checkMig(const LaunchTarget& t, const std::string& id)
{
    const Hardware& h = t.scenario.hardware;
    if (!h.mig.empty() && (h.count > 1 || h.tp > 1 || h.pp > 1))
        refuse(id, "a MIG slice cannot join other GPUs: MIG has no GPU-to-GPU peer-to-peer (NVIDIA MIG user guide), so "
                   "NCCL cannot run tensor or pipeline parallelism across slices; launch one slice per replica");
}

void checkServing(const LaunchTarget& t, const EngineSpec& spec)
{
    if (t.scenario.mode != Mode::Inference)
        refuse(spec.id, spec.name + " is a serving engine and the scenario is a training workload; use torchrun-fsdp, "
                                    "deepspeed, accelerate or torchtune");
    if (!t.scenario.model.isLanguageModel())
        refuse(spec.id, spec.name + " serves language models; " + t.scenario.model.name +
                            " is a vision model (serve it with TorchServe, Triton or plain PyTorch)");
    checkMig(t, spec.id);
}

void checkTraining(const LaunchTarget& t, const EngineSpec& spec)
{
    if (t.scenario.mode != Mode::Training)
        refuse(spec.id, spec.name + " is a training engine and the scenario is an inference workload; use vllm, sglang "
                                    "or trtllm");
    const Hardware& h = t.scenario.hardware;
    if (h.tp > 1 || h.pp > 1)
        refuse(spec.id, spec.name + " has no tensor or pipeline parallel plan for an arbitrary model (the option uses TP " +
                            str(h.tp) + ", PP " + str(h.pp) + "); use Megatron-LM or torchtitan, or a plan with TP 1, PP 1");
    checkMig(t, spec.id);
}

/// The estimate a serving engine runs: paged KV cache, chunked prefill (runtime "serving").
LaunchTarget servingTarget(const LaunchTarget& t, const Calibration* cal, std::vector<std::string>& notes)
{
    if (t.scenario.runtime == Runtime::Serving)
        return t;
    LaunchTarget s = t;
    s.scenario.runtime = Runtime::Serving;
    EstimateOptions o;
    o.calibration = cal;
    s.estimate = estimateOn(s.scenario, s.gpu, o);
    notes.push_back("The scenario's runtime is \"" + std::string(toString(t.scenario.runtime)) +
                    "\"; the figures here are re-estimated for a serving engine (runtime \"serving\": paged KV cache, "
                    "chunked prefill, continuous batching).");
    return s;
}

std::string torchDtype(InferPrecision p, const Gpu& g)
{
    switch (p) {
    case InferPrecision::FP32: return "float32";
    case InferPrecision::FP16: return "float16";
    case InferPrecision::BF16: return "bfloat16";
    default: return g.supports(DType::BF16) ? "bfloat16" : "float16"; // activations of a quantized model
    }
}

struct Serving {
    LaunchTarget t;
    detail::Plan plan;
    std::vector<std::string> head;
    std::vector<std::string> notes;
    int maxModelLen = 0;
    int batch = 0;
    int chunk = 0;
};

Serving prepareServing(const LaunchTarget& t0, const EngineSpec& spec, const Calibration* cal)
{
    checkServing(t0, spec);
    Serving s{t0, {}, {}, {}, 0, 0, 0};
    s.t = servingTarget(t0, cal, s.notes);
    s.plan = detail::makePlan(s.t.scenario, s.t.gpu, false, cal);
    s.head = headerLines(s.t, s.t.estimate, spec);
    const InferenceWorkload& in = s.t.scenario.inference;
    s.maxModelLen = in.promptTokens + in.outputTokens;
    s.batch = in.batch;
    s.chunk = int(std::lround((cal ? *cal : builtinCalibration()).servingChunkTokens));
    if (s.t.scenario.hardware.count > kGpusPerNode)
        s.notes.push_back("One replica spans " + str((s.t.scenario.hardware.count + kGpusPerNode - 1) / kGpusPerNode) +
                          " hosts of " + str(kGpusPerNode) + " GPUs: start it with the engine's multi-node launcher (vLLM: a "
                          "Ray cluster; TensorRT-LLM: mpirun with trtllm-llmapi-launch); CUDA_VISIBLE_DEVICES below numbers "
                          "each host's GPUs.");
    return s;
}

void replicaLines(std::vector<std::string>& head, const LaunchTarget& t, int port0, const std::string& engineDp)
{
    if (t.replicas <= 1)
        return;
    head.push_back("Replicas: " + str(t.replicas) + " independent servers (one command each below, ports " + str(port0) + "-" +
                   str(port0 + t.replicas - 1) + "), each holding " + str(t.scenario.inference.batch) +
                   " sequences. Put a load balancer in front that sends each new request to the least-busy replica "
                   "(least outstanding requests, e.g. nginx least_conn or an Envoy/K8s Service)" +
                   (engineDp.empty() ? std::string(".") : "; or run one server with " + engineDp + " " + str(t.replicas) +
                                                              " and let the engine balance."));
    if (t.replicas * t.scenario.hardware.count > kGpusPerNode)
        head.push_back("Replicas past the first " + str(kGpusPerNode) +
                       " GPUs run on other hosts: run those lines there (CUDA_VISIBLE_DEVICES numbers the host's GPUs).");
}

std::string script(const std::vector<std::string>& head, const std::vector<std::string>& commands, bool background)
{
    std::string out = "#!/usr/bin/env bash\n" + commentBlock(head, "#") + "set -euo pipefail\n\n";
    for (std::size_t i = 0; i < commands.size(); ++i) {
        if (commands.size() > 1)
            out += "# replica " + str(int(i) + 1) + " of " + str(int(commands.size())) + "\n";
        out += commands[i] + (background && commands.size() > 1 ? " &" : "") + "\n\n";
    }
    if (background && commands.size() > 1)
        out += "wait\n";
    return out;
}

std::string cudaDevices(const LaunchTarget& t, int replica)
{
    const Hardware& h = t.scenario.hardware;
    if (!h.mig.empty())
        return "CUDA_VISIBLE_DEVICES=MIG-UUID_FROM_nvidia-smi_-L ";
    // ROCm selects devices with HIP_VISIBLE_DEVICES (AMD's HIP environment variables).
    const std::string var = t.gpu.vendor == "AMD" ? "HIP_VISIBLE_DEVICES=" : "CUDA_VISIBLE_DEVICES=";
    return var + deviceList(replica * h.count, h.count) + " ";
}

// ---------------------------------------------------------------- vLLM

LaunchFiles writeVllm(const LaunchTarget& t0, const EngineSpec& spec, const Calibration* cal)
{
    Serving s = prepareServing(t0, spec, cal);
    const LaunchTarget& t = s.t;
    const Hardware& h = t.scenario.hardware;
    const InferPrecision prec = t.scenario.inference.precision;
    std::string quant;
    switch (prec) {
    case InferPrecision::FP8: quant = "fp8"; break;
    case InferPrecision::INT4:
        quant = "awq";
        s.notes.push_back("INT4: --quantization awq loads an AWQ INT4 checkpoint; point the model at one of " + t.scenario.model.name + ".");
        break;
    case InferPrecision::INT8:
        refuse(spec.id, "vLLM has no INT8 weight quantization of a 16-bit checkpoint at load time; serve a W8A8 INT8 "
                        "checkpoint (llm-compressor), whose config.json selects the kernels, or plan with fp8");
    case InferPrecision::FP4:
        if (!t.gpu.supports(DType::FP4) || t.gpu.vendor != "NVIDIA")
            refuse(spec.id, "--quantization modelopt_fp4 serves NVIDIA's NVFP4 checkpoints on FP4 tensor cores (Blackwell); " +
                                t.gpu.name + " is not one (AMD's MXFP4 checkpoints load through AMD Quark, which launch does not write)");
        quant = "modelopt_fp4";
        s.notes.push_back("FP4: --quantization modelopt_fp4 loads an NVFP4 checkpoint (TensorRT Model Optimizer); point the model at one.");
        break;
    default: break;
    }
    std::string kvDtype = "auto";
    if (s.plan.kvBytes == 1) {
        if (t.scenario.inference.kvPrecision == InferPrecision::INT8)
            refuse(spec.id, "vLLM has no INT8 KV cache (--kv-cache-dtype: auto, bfloat16, fp8, fp8_e4m3, fp8_e5m2, ...); use kv_precision fp8");
        kvDtype = "fp8";
    } else if (s.plan.kvBytes < 1) {
        refuse(spec.id, "vLLM has no 4-bit KV cache; use kv_precision fp8 or bf16");
    }
    const double fraction = t.scenario.inference.memoryFraction; // inference.memory_fraction (default 0.9, vLLM's)
    const KvStartup k = predictVllmKv(t, fraction);
    if (k.availableBytes <= 0 || k.numBlocks <= 0)
        refuse(spec.id, "no memory left for vLLM's KV cache: the predicted weights, activations and overhead take " +
                            num(bytesToGiB(k.nonKvBytes), 1) + " GiB per GPU, over --gpu-memory-utilization " + num(fraction, 2) +
                            " x " + num(bytesToGiB(k.capacityBytes), 1) + " GiB; vLLM would stop at start");
    std::vector<std::string> head = s.head;
    head.push_back("At start vLLM's V1 engine logs (vllm/v1/core/kv_cache_utils.py), computed here the same way from the "
                   "predicted non-KV memory per GPU (" + num(bytesToGiB(k.nonKvBytes), 2) + " GiB) and " + num(fraction, 2) +
                   " x " + num(bytesToGiB(k.capacityBytes), 2) + " GiB, KV " + num(k.kvBytesPerToken / 1024, 1) +
                   " KiB per token per GPU, block size " + str(k.blockSize) + ":");
    head.push_back("  GPU KV cache size: " + grouped(k.kvTokens) + " tokens");
    head.push_back("  Maximum concurrency for " + grouped(k.maxModelLen) + " tokens per request: " + num(k.maxConcurrency, 2) + "x");
    if (k.maxConcurrency < s.batch)
        head.push_back("WARNING: that holds fewer full-length sequences than --max-num-seqs " + str(s.batch) +
                       "; vLLM admits requests by the blocks they use now, and preempts when the cache fills.");
    replicaLines(head, t, 8000, "--data-parallel-size");
    for (const auto& n : s.notes)
        head.push_back(n);
    LaunchFiles out;
    out.engine = spec.id;
    const std::string model = modelArg(t.scenario, head);
    std::vector<std::string> commands;
    for (int r = 0; r < t.replicas; ++r) {
        Cmd c(spec, "vllm");
        c.word("serve").word(model);
        c.flag("--tensor-parallel-size", str(h.tp));
        if (h.pp > 1)
            c.flag("--pipeline-parallel-size", str(h.pp));
        c.flag("--dtype", torchDtype(prec, t.gpu));
        if (!quant.empty())
            c.flag("--quantization", quant);
        c.flag("--kv-cache-dtype", kvDtype);
        c.flag("--max-model-len", str(s.maxModelLen));
        c.flag("--max-num-seqs", str(s.batch));
        c.flag("--max-num-batched-tokens", str(s.chunk));
        c.flag("--gpu-memory-utilization", num(fraction, 2));
        c.flag("--port", str(8000 + r));
        commands.push_back(c.text(cudaDevices(t, r)));
        out.commands.push_back(c.oneLine(cudaDevices(t, r)));
    }
    out.files.push_back({"serve.sh", script(head, commands, true), true});
    out.notes = s.notes;
    return out;
}

// ---------------------------------------------------------------- SGLang

LaunchFiles writeSglang(const LaunchTarget& t0, const EngineSpec& spec, const Calibration* cal)
{
    Serving s = prepareServing(t0, spec, cal);
    const LaunchTarget& t = s.t;
    const Hardware& h = t.scenario.hardware;
    const InferPrecision prec = t.scenario.inference.precision;
    std::string quant;
    switch (prec) {
    case InferPrecision::FP8: quant = "fp8"; break;
    case InferPrecision::INT4:
        quant = "awq";
        s.notes.push_back("INT4: --quantization awq loads an AWQ INT4 checkpoint; point --model-path at one.");
        break;
    case InferPrecision::INT8:
        quant = "w8a8_int8";
        s.notes.push_back("INT8: --quantization w8a8_int8 loads a W8A8 INT8 checkpoint; point --model-path at one.");
        break;
    case InferPrecision::FP4:
        if (!t.gpu.supports(DType::FP4) || t.gpu.vendor != "NVIDIA")
            refuse(spec.id, "--quantization modelopt_fp4 serves NVIDIA's NVFP4 checkpoints on FP4 tensor cores (Blackwell); " +
                                t.gpu.name + " is not one (AMD's MXFP4 checkpoints load through AMD Quark, which launch does not write)");
        quant = "modelopt_fp4";
        s.notes.push_back("FP4: --quantization modelopt_fp4 loads an NVFP4 checkpoint; point --model-path at one.");
        break;
    default: break;
    }
    std::string kvDtype = "auto";
    if (s.plan.kvBytes == 1) {
        if (t.scenario.inference.kvPrecision == InferPrecision::INT8)
            refuse(spec.id, "SGLang has no INT8 KV cache (--kv-cache-dtype: auto, fp8_e5m2, fp8_e4m3, bf16, ...); use kv_precision fp8");
        kvDtype = "fp8_e4m3";
    } else if (s.plan.kvBytes < 1) {
        refuse(spec.id, "SGLang's 4-bit KV cache (fp4_e2m1) is for MXFP4 models only; use kv_precision fp8 or bf16");
    }
    const double fraction = t.scenario.inference.memoryFraction; // inference.memory_fraction (default 0.9, vLLM's)
    const Calibration& c0 = cal ? *cal : builtinCalibration();
    const double context = c0.contextCudaMib * units::kMiB;
    const double total = engineTotalBytes(t);
    const double pool = fraction * total - t.estimate.memory.weights - context;
    const double perToken = kvBytesPerTokenPerGpu(t);
    if (pool <= 0)
        refuse(spec.id, "no memory left for SGLang's KV pool: weights " + num(bytesToGiB(t.estimate.memory.weights), 1) +
                            " GiB per GPU over --mem-fraction-static " + num(fraction, 2) + " x " +
                            num(bytesToGiB(total), 1) + " GiB");
    std::vector<std::string> head = s.head;
    head.push_back("At start SGLang sizes its KV pool as --mem-fraction-static x GPU memory - (weights + CUDA context) and "
                   "logs it as max_total_num_tokens: predicted " + grouped(static_cast<long long>(std::floor(pool / perToken))) +
                   " tokens (" + num(bytesToGiB(pool), 2) + " GiB / " + num(perToken / 1024, 1) + " KiB per token per GPU); "
                   "activations and CUDA graphs must fit in the other " + pct(1 - fraction) + ".");
    replicaLines(head, t, 30000, "--dp-size");
    for (const auto& n : s.notes)
        head.push_back(n);
    LaunchFiles out;
    out.engine = spec.id;
    const std::string model = modelArg(t.scenario, head);
    std::vector<std::string> commands;
    for (int r = 0; r < t.replicas; ++r) {
        Cmd c(spec, "python");
        c.word("-m").word("sglang.launch_server");
        c.flag("--model-path", model);
        c.flag("--tp-size", str(h.tp));
        if (h.pp > 1)
            c.flag("--pp-size", str(h.pp));
        c.flag("--dtype", torchDtype(prec, t.gpu));
        if (!quant.empty())
            c.flag("--quantization", quant);
        c.flag("--kv-cache-dtype", kvDtype);
        c.flag("--context-length", str(s.maxModelLen));
        c.flag("--max-running-requests", str(s.batch));
        c.flag("--chunked-prefill-size", str(s.chunk));
        c.flag("--mem-fraction-static", num(fraction, 2));
        c.flag("--port", str(30000 + r));
        commands.push_back(c.text(cudaDevices(t, r)));
        out.commands.push_back(c.oneLine(cudaDevices(t, r)));
    }
    out.files.push_back({"serve.sh", script(head, commands, true), true});
    out.notes = s.notes;
    return out;
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
    std::string kvDtype = "auto";
    if (s.plan.kvBytes == 1) {
        if (t.scenario.inference.kvPrecision == InferPrecision::INT8)
            refuse(spec.id, "the PyTorch backend's KV cache (kv_cache_config.dtype) is auto or fp8, not int8; use kv_precision fp8");
        kvDtype = "fp8";
    } else if (s.plan.kvBytes < 1) {
        refuse(spec.id, "TensorRT-LLM's PyTorch backend has no 4-bit KV cache (kv_cache_config.dtype: auto, fp8)");
    }
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
    replicaLines(head, t, 8000, "");
    for (const auto& n : s.notes)
        head.push_back(n);
    LaunchFiles out;
    out.engine = spec.id;
    const std::string model = modelArg(t.scenario, head);
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
    std::vector<std::string> commands;
    for (int r = 0; r < t.replicas; ++r) {
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
        c.flag("--port", str(8000 + r));
        commands.push_back(c.text(cudaDevices(t, r)));
        out.commands.push_back(c.oneLine(cudaDevices(t, r)));
    }
    out.files.push_back({"serve.sh", script(head, commands, true), true});
    out.files.push_back({"extra_llm_api_options.yaml", yaml, false});
    out.notes = s.notes;
    return out;
}

// ---------------------------------------------------------------- training

struct Training {
    const LaunchTarget& t;
    const TrainingWorkload& w;
    const Hardware& h;
    std::vector<std::string> head;
    int nodes = 1;
    int perNode = 1;
    long long globalBatch = 0;
};

Training prepareTraining(const LaunchTarget& t, const EngineSpec& spec)
{
    checkTraining(t, spec);
    Training tr{t, t.scenario.training, t.scenario.hardware, headerLines(t, t.estimate, spec), 1, 1, 0};
    tr.perNode = std::min(tr.h.count, kGpusPerNode);
    tr.nodes = (tr.h.count + kGpusPerNode - 1) / kGpusPerNode;
    tr.globalBatch = static_cast<long long>(tr.w.microBatch) * tr.w.gradAccum * tr.h.count;
    tr.head.push_back("Batch: micro-batch " + str(tr.w.microBatch) + " per GPU x " + str(tr.w.gradAccum) +
                      " accumulation steps x " + str(tr.h.count) + " GPUs = " + str(tr.globalBatch) +
                      (t.scenario.model.isLanguageModel() ? " sequences of " + str(tr.w.seqLen) + " tokens" : " images") +
                      " per optimizer step.");
    return tr;
}

std::string scriptArgsNote(const Training& tr)
{
    std::string lora;
    if (tr.w.method != TrainMethod::Full) {
        lora = ", LoRA rank " + str(tr.w.loraRank) + " on";
        for (const auto& m : tr.w.loraTargets)
            lora += " " + m;
        if (tr.w.method == TrainMethod::Qlora)
            lora += " over a 4-bit NF4 base (QLoRA)";
    }
    return "train.py is yours: it builds the model" + lora + ", the data and the optimizer (" +
           std::string(toString(tr.w.optimizer)) + "); activation checkpointing " +
           std::string(toString(tr.w.checkpointing)) + " is the model's setting (e.g. model.gradient_checkpointing_enable()).";
}

// ---------------------------------------------------------------- torchrun + FSDP2

LaunchFiles writeTorchrunFsdp(const LaunchTarget& t, const EngineSpec& spec, const Calibration*)
{
    Training tr = prepareTraining(t, spec);
    const TrainingWorkload& w = tr.w;
    const Hardware& h = tr.h;
    if (w.precision == TrainPrecision::FP8)
        refuse(spec.id, "FSDP's mixed precision policy has no FP8 matmuls (that needs torchao float8 or Transformer Engine "
                        "in your script); use accelerate (mixed_precision fp8) or plan with bf16");
    ordered_json cfg;
    std::vector<std::string> notes;
    const bool fsdp = h.zero >= 2 && h.count > 1;
    if (fsdp) {
        key(spec, "fully_shard");
        key(spec, "fully_shard.reshard_after_forward");
        ordered_json fs;
        fs["reshard_after_forward"] = h.zero == 3;
        key(spec, "fully_shard.mp_policy");
        ordered_json mp = nullptr;
        switch (w.precision) {
        case TrainPrecision::AmpBF16: mp = {{"param_dtype", "bfloat16"}, {"reduce_dtype", "float32"}}; break;
        case TrainPrecision::AmpFP16:
            mp = {{"param_dtype", "float16"}, {"reduce_dtype", "float32"}};
            notes.push_back("fp16: FSDP2 needs a gradient scaler in your script (torch.amp.GradScaler).");
            break;
        case TrainPrecision::BF16:
            mp = {{"param_dtype", "bfloat16"}, {"reduce_dtype", "bfloat16"}};
            notes.push_back("Pure bf16: cast the model to bfloat16 before fully_shard, so no fp32 master copy is kept.");
            break;
        default: break; // fp32 / tf32: no policy
        }
        if (!mp.is_null()) {
            key(spec, "fully_shard.mp_policy.param_dtype");
            key(spec, "fully_shard.mp_policy.reduce_dtype");
        }
        fs["mp_policy"] = mp;
        key(spec, "fully_shard.offload_policy");
        fs["offload_policy"] = nullptr;
        cfg["fully_shard"] = fs;
    }
    const bool zero1 = h.zero == 1 && h.count > 1;
    if (zero1) {
        // ZeRO-1 is DDP with torch.distributed.optim.ZeroRedundancyOptimizer
        // (FSDP has no optimizer-only sharding).
        key(spec, "zero_redundancy_optimizer");
        key(spec, "zero_redundancy_optimizer.optimizer_class");
        key(spec, "zero_redundancy_optimizer.parameters_as_bucket_view");
        key(spec, "zero_redundancy_optimizer.overlap_with_ddp");
        const char* cls = w.optimizer == Optimizer::AdamW       ? "torch.optim.AdamW"
                          : w.optimizer == Optimizer::AdamW8bit ? "bitsandbytes.optim.AdamW8bit"
                                                                : "torch.optim.SGD";
        cfg["zero_redundancy_optimizer"] = {{"optimizer_class", cls}, {"parameters_as_bucket_view", false}, {"overlap_with_ddp", false}};
    }
    if (w.precision == TrainPrecision::TF32)
        notes.push_back("TF32: set torch.backends.cuda.matmul.allow_tf32 = True in your script.");
    ordered_json tj;
    auto put = [&](const char* k, ordered_json v) {
        key(spec, std::string("training.") + k, std::string(), true);
        tj[k] = std::move(v);
    };
    key(spec, "training", std::string(), true);
    put("strategy", fsdp    ? (h.zero == 3 ? "fsdp2_full_shard" : "fsdp2_shard_grad_op")
                    : zero1 ? "ddp_zero_redundancy_optimizer"
                            : (h.count > 1 ? "ddp" : "single_gpu"));
    put("micro_batch_size", w.microBatch);
    put("gradient_accumulation_steps", w.gradAccum);
    put("global_batch_size", tr.globalBatch);
    if (t.scenario.model.isLanguageModel())
        put("seq_len", w.seqLen);
    else
        put("image_size", w.imageSize);
    put("activation_checkpointing", std::string(toString(w.checkpointing)));
    put("optimizer", std::string(toString(w.optimizer)));
    put("precision", std::string(toString(w.precision)));
    if (w.method != TrainMethod::Full) {
        put("lora_rank", w.loraRank);
        put("lora_targets", w.loraTargets);
    }
    if (fsdp) {
        const int shard = h.shardGroup > 0 ? h.shardGroup : h.count;
        put("data_parallel_shard", shard);
        put("data_parallel_replicate", h.count / std::max(1, shard));
    }
    cfg["training"] = tj;
    std::vector<std::string> head = tr.head;
    head.push_back(fsdp ? "FSDP2: fully_shard each transformer block, then the root, with the fully_shard arguments of "
                          "fsdp_config.json (reshard_after_forward " + std::string(h.zero == 3 ? "True: ZeRO-3" : "False: ZeRO-2") + ")."
                  : zero1 ? "ZeRO 1: DistributedDataParallel with torch.distributed.optim.ZeroRedundancyOptimizer (the "
                            "optimizer states sharded over the " + str(h.count) + " GPUs), as in fsdp_config.json."
                  : (h.count > 1 ? "ZeRO 0: plain DistributedDataParallel, no sharding." : "One GPU: no sharding."));
    head.push_back(scriptArgsNote(tr));
    head.push_back("At start torchrun logs the rendezvous and world size " + str(h.count) + "; read the peak memory with "
                   "torch.cuda.max_memory_reserved() (+ the CUDA context) against the prediction above.");
    for (const auto& n : notes)
        head.push_back(n);
    Cmd c(spec, "torchrun");
    if (tr.nodes == 1) {
        c.flag("--standalone").flag("--nnodes", "1").flag("--nproc-per-node", str(tr.perNode));
    } else {
        c.flag("--nnodes", str(tr.nodes)).flag("--nproc-per-node", str(tr.perNode));
        c.flag("--rdzv-backend", "c10d").flag("--rdzv-endpoint", "\"$HEAD_NODE:29500\"").flag("--rdzv-id", "gpuplanner");
        head.push_back("Multi-node: run this line on each of the " + str(tr.nodes) + " hosts with HEAD_NODE set to the first.");
    }
    c.word("train.py").word("fsdp_config.json");
    LaunchFiles out;
    out.engine = spec.id;
    out.files.push_back({"launch.sh", script(head, {c.text()}, false), true});
    out.files.push_back({"fsdp_config.json", cfg.dump(2) + "\n", false});
    out.commands.push_back(c.oneLine());
    out.notes = notes;
    return out;
}

// ---------------------------------------------------------------- DeepSpeed

double largestLayerParams(const ModelArch& m)
{
    double largest = double(m.vocab) * m.hidden;
    for (const auto& l : m.layerLinears())
        largest = std::max(largest, double(l.in) * l.out);
    return largest;
}

LaunchFiles writeDeepspeed(const LaunchTarget& t, const EngineSpec& spec, const Calibration*)
{
    Training tr = prepareTraining(t, spec);
    const TrainingWorkload& w = tr.w;
    const Hardware& h = tr.h;
    if (w.precision == TrainPrecision::FP8)
        refuse(spec.id, "DeepSpeed's config has no FP8 training mode (bf16 / fp16 sections only); use accelerate "
                        "(mixed_precision fp8) or plan with bf16");
    if (w.optimizer == Optimizer::AdamW8bit)
        refuse(spec.id, "DeepSpeed has no 8-bit AdamW among its optimizers (deepspeed/runtime/config.py "
                        "DEEPSPEED_OPTIMIZERS) or in torch.optim; plan with adamw");
    std::vector<std::string> notes;
    ordered_json cfg;
    auto put = [&](const std::string& k, ordered_json v) {
        key(spec, k);
        cfg[k] = std::move(v);
    };
    put("train_batch_size", tr.globalBatch);
    put("train_micro_batch_size_per_gpu", w.microBatch);
    put("gradient_accumulation_steps", w.gradAccum);
    const std::string optType = w.optimizer == Optimizer::AdamW ? "AdamW" : "SGD";
    key(spec, "optimizer.type", optType);
    key(spec, "optimizer.params");
    ordered_json params = ordered_json::object();
    if (w.optimizer == Optimizer::SGDMomentum) {
        notes.push_back("sgd_momentum: give torch.optim.SGD its momentum in optimizer.params (the plan counts one "
                        "momentum buffer per parameter).");
    }
    put("optimizer", ordered_json{{"type", optType}, {"params", params}});
    if (w.precision == TrainPrecision::AmpBF16 || w.precision == TrainPrecision::BF16) {
        key(spec, "bf16.enabled");
        put("bf16", ordered_json{{"enabled", true}});
        if (w.precision == TrainPrecision::BF16)
            notes.push_back("DeepSpeed's bf16 mode keeps fp32 master weights in the optimizer: the plan's pure-bf16 "
                            "optimizer figure is lower than what DeepSpeed will hold.");
    } else if (w.precision == TrainPrecision::AmpFP16) {
        key(spec, "fp16.enabled");
        put("fp16", ordered_json{{"enabled", true}});
    } else if (w.precision == TrainPrecision::TF32) {
        notes.push_back("TF32: DeepSpeed runs fp32; set torch.backends.cuda.matmul.allow_tf32 = True in your script.");
    }
    key(spec, "zero_optimization.stage");
    key(spec, "zero_optimization.overlap_comm");
    key(spec, "zero_optimization.contiguous_gradients");
    put("zero_optimization", ordered_json{{"stage", h.zero}, {"overlap_comm", h.count > 1}, {"contiguous_gradients", true}});
    put("gradient_clipping", 1.0);
    put("steps_per_print", 10);
    // DeepSpeed's own model-state estimate.
    std::vector<std::string> head = tr.head;
    const double P = t.scenario.model.isLanguageModel() ? t.scenario.model.totalParams() : t.scenario.model.vision.params;
    const int gpn = tr.perNode;
    const int nodes = tr.nodes;
    const double total = double(gpn) * nodes;
    char line[160];
    if (h.zero == 2 || h.zero == 3) {
        const bool z3 = h.zero == 3;
        const double largest = t.scenario.model.isLanguageModel() ? largestLayerParams(t.scenario.model) : 0;
        if (z3 && largest <= 0) {
            head.push_back("DeepSpeed's ZeRO-3 estimate needs the largest layer's parameters, which the catalog does not "
                           "give for this vision model.");
        } else {
            const double gpu = z3 ? 4 * largest + std::floor(18 * P / total) : 2 * P + std::floor(18 * P / total);
            const double cpu = z3 ? largest * 4 * gpn * 1.5 : P * 4 * gpn * 1.5;
            head.push_back(std::string("DeepSpeed's model-state estimate, as ") +
                           (z3 ? "deepspeed.runtime.zero.stage3.estimate_zero3_model_states_mem_needs_all_cold(total_params=" +
                                     num(P, 0) + ", largest_layer_params=" + num(largest, 0)
                               : "deepspeed.runtime.zero.stage_1_and_2.estimate_zero2_model_states_mem_needs_all_cold("
                                 "total_params=" + num(P, 0)) +
                           ", num_gpus_per_node=" + str(gpn) + ", num_nodes=" + str(nodes) + ") prints it for this layout "
                           "(no offload; " + (z3 ? "4 x largest layer" : "2 bytes/param") + " + 18 bytes/param / " +
                           num(total, 0) + " GPUs; it counts every parameter as trainable):");
            std::snprintf(line, sizeof line, " %7.2fGB | %6.2fGB | %s", cpu / (1 << 30), gpu / (1 << 30),
                          z3 ? "offload_param=none, offload_optimizer=none, zero_init=1" : "offload_optimizer=none");
            head.push_back("  per CPU  |  per GPU |   Options");
            head.push_back(line);
        }
    } else {
        head.push_back("ZeRO stage " + str(h.zero) + ": DeepSpeed's estimate_zero2/3_model_states_mem_needs cover stages 2 "
                       "and 3 only; compare the prediction above with the engine's \"MA ... Max_MA ... CA\" memory lines.");
    }
    head.push_back(scriptArgsNote(tr));
    head.push_back("ds_config.json cannot hold comments (JSON); this script's header is its header.");
    for (const auto& n : notes)
        head.push_back(n);
    Cmd c(spec, "deepspeed");
    if (nodes > 1) {
        c.flag("--hostfile", "hostfile").flag("--num_nodes", str(nodes));
        head.push_back("Multi-node: list the " + str(nodes) + " hosts in ./hostfile (\"host slots=" + str(gpn) + "\").");
    }
    c.flag("--num_gpus", str(gpn));
    c.word("train.py");
    c.flag("--deepspeed").flag("--deepspeed_config", "ds_config.json");
    LaunchFiles out;
    out.engine = spec.id;
    out.files.push_back({"launch.sh", script(head, {c.text()}, false), true});
    out.files.push_back({"ds_config.json", cfg.dump(2) + "\n", false});
    out.commands.push_back(c.oneLine());
    out.notes = notes;
    return out;
}

// ---------------------------------------------------------------- accelerate

LaunchFiles writeAccelerate(const LaunchTarget& t, const EngineSpec& spec, const Calibration*)
{
    Training tr = prepareTraining(t, spec);
    const TrainingWorkload& w = tr.w;
    const Hardware& h = tr.h;
    std::vector<std::string> notes;
    std::string yaml;
    auto put = [&](const std::string& k, const std::string& v, int indent = 0) {
        key(spec, k, v);
        const std::string leaf = k.substr(k.rfind('.') == std::string::npos ? 0 : k.rfind('.') + 1);
        yaml += std::string(indent, ' ') + leaf + ": " + v + "\n";
    };
    std::string distributed = h.count == 1 ? "NO" : "MULTI_GPU";
    if (h.count > 1 && (h.zero == 1 || h.zero == 2))
        distributed = "DEEPSPEED";
    else if (h.count > 1 && h.zero == 3)
        distributed = "FSDP";
    std::string mixed = "no";
    switch (w.precision) {
    case TrainPrecision::AmpBF16: mixed = "bf16"; break;
    case TrainPrecision::AmpFP16: mixed = "fp16"; break;
    case TrainPrecision::FP8: mixed = "fp8"; notes.push_back("fp8: accelerate runs FP8 through Transformer Engine, MS-AMP or torchao; install one (fp8_config picks the backend)."); break;
    case TrainPrecision::BF16: notes.push_back("Pure bf16: load the model in torch.bfloat16; mixed_precision stays \"no\" (no autocast, no fp32 master)."); break;
    case TrainPrecision::TF32: notes.push_back("TF32: set torch.backends.cuda.matmul.allow_tf32 = True in your script."); break;
    default: break;
    }
    put("compute_environment", "LOCAL_MACHINE");
    put("debug", "false");
    put("distributed_type", distributed);
    put("downcast_bf16", "'no'");
    if (distributed == "DEEPSPEED") {
        key(spec, "deepspeed_config");
        yaml += "deepspeed_config:\n";
        put("deepspeed_config.gradient_accumulation_steps", str(w.gradAccum), 2);
        put("deepspeed_config.offload_optimizer_device", "none", 2);
        put("deepspeed_config.offload_param_device", "none", 2);
        put("deepspeed_config.zero3_init_flag", "false", 2);
        put("deepspeed_config.zero_stage", str(h.zero), 2);
    } else if (distributed == "FSDP") {
        key(spec, "fsdp_config");
        yaml += "fsdp_config:\n";
        put("fsdp_config.fsdp_version", "2", 2);
        put("fsdp_config.fsdp_reshard_after_forward", "true", 2);
        put("fsdp_config.fsdp_auto_wrap_policy", "TRANSFORMER_BASED_WRAP", 2);
        put("fsdp_config.fsdp_activation_checkpointing", w.checkpointing == Checkpointing::Full ? "true" : "false", 2);
        put("fsdp_config.fsdp_offload_params", "false", 2);
        put("fsdp_config.fsdp_state_dict_type", "SHARDED_STATE_DICT", 2);
        put("fsdp_config.fsdp_cpu_ram_efficient_loading", "true", 2);
        if (h.shardGroup > 0)
            notes.push_back("HSDP (shard groups of " + str(h.shardGroup) + "): set parallelism_config (dp_shard_size " +
                            str(h.shardGroup) + ", dp_replicate_size " + str(h.count / h.shardGroup) + ").");
    }
    put("machine_rank", "0");
    put("main_training_function", "main");
    put("mixed_precision", mixed);
    put("num_machines", str(tr.nodes));
    put("num_processes", str(h.count));
    put("rdzv_backend", "static");
    put("same_network", "true");
    put("use_cpu", "false");
    std::vector<std::string> head = tr.head;
    head.push_back("Layout: distributed_type " + distributed +
                   (distributed == "DEEPSPEED" ? " (ZeRO stage " + str(h.zero) + ")"
                    : distributed == "FSDP"    ? " (FSDP2 full shard: ZeRO-3)"
                                               : std::string()) +
                   ", mixed_precision " + mixed + ".");
    head.push_back(scriptArgsNote(tr));
    head.push_back("The arguments after train.py are transformers TrainingArguments names (a Trainer-based script); "
                   "micro-batch and accumulation are the script's settings, not accelerate's.");
    head.push_back("accelerate prints no memory figure at start: compare torch.cuda.max_memory_reserved() plus the CUDA "
                   "context (nvidia-smi's figure) with the prediction above; the Trainer logs train_samples_per_second "
                   "at the end (gpuplanner-cli record reads it).");
    for (const auto& n : notes)
        head.push_back(n);
    Cmd c(spec, "accelerate");
    c.word("launch").flag("--config_file", "accelerate_config.yaml");
    c.word("train.py").word("--per_device_train_batch_size").word(str(w.microBatch));
    c.word("--gradient_accumulation_steps").word(str(w.gradAccum));
    if (w.checkpointing != Checkpointing::None)
        c.word("--gradient_checkpointing");
    std::string cfgText = commentBlock(tr.head, "#") + commentBlock({"accelerate config (keys of src/accelerate/commands/config/config_args.py and cluster.py)"}, "#") + yaml;
    LaunchFiles out;
    out.engine = spec.id;
    out.files.push_back({"launch.sh", script(head, {c.text()}, false), true});
    out.files.push_back({"accelerate_config.yaml", cfgText, false});
    out.commands.push_back(c.oneLine());
    out.notes = notes;
    return out;
}

// ---------------------------------------------------------------- torchtune

LaunchFiles writeTorchtune(const LaunchTarget& t, const EngineSpec& spec, const Calibration* cal)
{
    Training tr = prepareTraining(t, spec);
    const TrainingWorkload& w = tr.w;
    const Hardware& h = tr.h;
    const Scenario& s = t.scenario;
    if (!s.model.isLanguageModel())
        refuse(spec.id, "torchtune fine-tunes language models; " + s.model.name + " is a vision model");
    const auto& presets = spec.doc.at("presets");
    if (s.modelSpec.form != ModelSpec::Form::Preset || !presets.contains(s.modelSpec.presetId)) {
        std::string list;
        for (const auto& [k, v] : presets.items())
            list += (list.empty() ? "" : ", ") + k;
        refuse(spec.id, "torchtune " + spec.version + " ships recipe configs for these presets only: " + list + "; " +
                            (s.model.name.empty() ? std::string("this model") : s.model.name) + " has none");
    }
    if (w.precision == TrainPrecision::AmpBF16 || w.precision == TrainPrecision::AmpFP16 || w.precision == TrainPrecision::FP8)
        refuse(spec.id, "torchtune trains in one dtype (dtype: bf16 or fp32, torchtune/training/precision.py), with no "
                        "autocast mixed precision or FP8; plan with precision bf16");
    if (w.checkpointing == Checkpointing::Selective)
        refuse(spec.id, "torchtune checkpoints whole layers (enable_activation_checkpointing) or none; plan with "
                        "activation_checkpointing full or none");
    if (w.optimizer == Optimizer::SGD || w.optimizer == Optimizer::SGDMomentum)
        refuse(spec.id, "torchtune's recipe configs ship AdamW optimizers; plan with adamw or adamw_8bit");
    if (h.count > 1 && h.zero != 3)
        refuse(spec.id, "torchtune's distributed recipes always shard fully (FSDP2, ZeRO-3); the option uses ZeRO " +
                            str(h.zero) + " on " + str(h.count) + " GPUs");
    const auto& fam = presets.at(s.modelSpec.presetId);
    const std::string prefix = fam.at("family").get<std::string>() + "/" + fam.at("size").get<std::string>() + "_";
    const bool single = h.count == 1;
    const std::string method = w.method == TrainMethod::Full ? "full" : "lora";
    const std::string recipe = method + "_finetune_" + (single ? "single_device" : "distributed");
    std::string config;
    for (const auto& [name, c] : spec.doc.at("configs").items()) {
        if (name.rfind(prefix, 0) != 0 || c.at("recipe").get<std::string>() != recipe)
            continue;
        const bool isQ = name.find("qlora") != std::string::npos;
        if ((w.method == TrainMethod::Qlora) != isQ)
            continue;
        if (config.empty() || name.size() < config.size())
            config = name;
    }
    if (config.empty())
        refuse(spec.id, "torchtune " + spec.version + " has no " + recipe + " config for " + s.model.name + " (" +
                            std::string(toString(w.method)) + "); its configs for this model are in recipes/configs/" +
                            fam.at("family").get<std::string>() + "/");
    const auto& cfg = spec.doc.at("configs").at(config);
    std::set<std::string> keys;
    for (const auto& k : cfg.at("keys"))
        keys.insert(k.get<std::string>());
    std::vector<std::string> overrides;
    auto set = [&](const std::string& k, const std::string& v) {
        if (!keys.count(k))
            throw std::logic_error("launch: torchtune config " + config + " has no key " + k);
        overrides.push_back(k + "=" + v);
    };
    std::vector<std::string> notes;
    set("batch_size", str(w.microBatch));
    set("gradient_accumulation_steps", str(w.gradAccum));
    set("dtype", w.precision == TrainPrecision::BF16 ? "bf16" : "fp32");
    set("enable_activation_checkpointing", w.checkpointing == Checkpointing::Full ? "True" : "False");
    set("tokenizer.max_seq_len", str(w.seqLen));
    set("optimizer._component_", w.optimizer == Optimizer::AdamW8bit ? "bitsandbytes.optim.PagedAdamW8bit" : "torch.optim.AdamW");
    if (keys.count("optimizer_in_bwd"))
        set("optimizer_in_bwd", "False");
    if (w.method != TrainMethod::Full) {
        set("model.lora_rank", str(w.loraRank));
        std::string attn;
        bool mlp = false;
        for (const auto& m : w.loraTargets) {
            if (m == "q_proj" || m == "k_proj" || m == "v_proj")
                attn += (attn.empty() ? "" : ",") + m;
            else if (m == "o_proj")
                attn += std::string(attn.empty() ? "" : ",") + "output_proj";
            else if (m == "gate_proj" || m == "up_proj" || m == "down_proj")
                mlp = true;
        }
        set("model.lora_attn_modules", "'[" + attn + "]'"); // quoted: [ ] are shell globs
        set("model.apply_lora_to_mlp", mlp ? "True" : "False");
        if (mlp)
            notes.push_back("torchtune's apply_lora_to_mlp puts adapters on all three MLP projections (w1, w2, w3).");
    }
    const auto loss = cfg.find("loss_component");
    if (loss != cfg.end() && loss->is_string() && loss->get<std::string>().find("LinearCrossEntropyLoss") != std::string::npos)
        notes.push_back("torchtune's LinearCrossEntropyLoss computes the loss in chunks and never holds the whole logits: "
                        "expect a lower peak than the plan's, which keeps the logits whole.");
    std::vector<std::string> head = tr.head;
    const Calibration& c0 = cal ? *cal : builtinCalibration();
    const double reserved = t.estimate.memory.total() - c0.contextCudaMib * units::kMiB;
    head.push_back("Recipe " + recipe + " with config " + config + " (" + cfg.at("file").get<std::string>() + "), overridden below.");
    head.push_back("torchtune logs each step (log_peak_memory_stats: True) as \"Step N | name:value\" lines: predicted "
                   "peak_memory_reserved ~ " + num(bytesToGiB(reserved), 2) + " GiB (the total above less the CUDA context, "
                   "which torch does not reserve), tokens_per_second_per_gpu ~ " +
                   num(t.estimate.training ? t.estimate.training->tokensPerS / h.count : 0, 0) + ".");
    for (const auto& n : notes)
        head.push_back(n);
    Cmd c(spec, "tune");
    c.word("run");
    if (!single)
        c.flag("--nproc_per_node", str(tr.perNode));
    c.word(recipe).flag("--config", config);
    for (const auto& o : overrides)
        c.word(o);
    LaunchFiles out;
    out.engine = spec.id;
    out.files.push_back({"launch.sh", script(head, {c.text()}, false), true});
    out.commands.push_back(c.oneLine());
    out.notes = notes;
    return out;
}

} // namespace

LaunchFiles generateLaunch(const LaunchTarget& t, const std::string& engine, const Calibration* calibration)
{
    const EngineSpec& spec = engineSpec(engine);
    if (engine == "vllm")
        return writeVllm(t, spec, calibration);
    if (engine == "sglang")
        return writeSglang(t, spec, calibration);
    if (engine == "trtllm")
        return writeTrtllm(t, spec, calibration);
    if (engine == "torchrun-fsdp")
        return writeTorchrunFsdp(t, spec, calibration);
    if (engine == "deepspeed")
        return writeDeepspeed(t, spec, calibration);
    if (engine == "accelerate")
        return writeAccelerate(t, spec, calibration);
    return writeTorchtune(t, spec, calibration);
}

} // namespace gp
