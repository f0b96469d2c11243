// The launch writers' shared parts: the checked config keys, the checks each
// writer makes (serving or training workload, MIG), the serving writers' common
// header, KV dtype, replica lines and serve.sh, the training writers' batch line,
// and generateLaunch, which picks the engine's writer. The writers themselves are
// in launchserving.cpp (vLLM, SGLang, TensorRT-LLM) and launchtraining.cpp.
#include "core/engines/launchwriting.h"

#include "core/calibration/calibration.h"
#include "core/base/errors.h"
#include "core/base/units.h"

#include <algorithm>
#include <cmath>

namespace gp {

namespace launchwriter {

using namespace detail;

/// Checks a dotted config key (and value) against the engine's documented keys.
void key(const EngineSpec& spec, const std::string& k, const std::string& value, bool script)
{
    if (!(script ? spec.scriptKeys.count(k) > 0 : spec.hasKey(k)))
        throw std::logic_error("launch: " + spec.name + " " + spec.version + " does not document the key " + k);
    if (!value.empty() && !spec.accepts(k, value))
        throw std::logic_error("launch: " + spec.name + " does not accept " + k + ": " + value);
}

namespace {

std::string deviceList(int first, int count)
{
    std::string out;
    for (int i = 0; i < count; ++i)
        out += (i ? "," : "") + std::to_string((first + i) % kGpusPerNode);
    return out;
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
    if ((h.tp > 1 || h.pp > 1) && t.scenario.training.method != TrainMethod::Full)
        refuse(spec.id, spec.name + " runs LoRA and QLoRA data parallel, with the frozen base sharded by ZeRO-3 / FSDP, "
                                    "never tensor or pipeline parallel (the option uses TP " +
                            str(h.tp) + ", PP " + str(h.pp) + "); set hardware.tp and hardware.pp to 1, or take a plan option (they are data parallel)");
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

std::string cudaDevices(const LaunchTarget& t, int replica)
{
    const Hardware& h = t.scenario.hardware;
    if (!h.mig.empty())
        return "CUDA_VISIBLE_DEVICES=MIG-UUID_FROM_nvidia-smi_-L ";
    // ROCm selects devices with HIP_VISIBLE_DEVICES (AMD's HIP environment variables).
    const std::string var = t.gpu.vendor == "AMD" ? "HIP_VISIBLE_DEVICES=" : "CUDA_VISIBLE_DEVICES=";
    return var + deviceList(replica * h.count, h.count) + " ";
}
} // namespace

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

std::string torchDtype(InferPrecision p, const Gpu& g)
{
    switch (p) {
    case InferPrecision::FP32: return "float32";
    case InferPrecision::FP16: return "float16";
    case InferPrecision::BF16: return "bfloat16";
    default: return g.supports(DType::BF16) ? "bfloat16" : "float16"; // activations of a quantized model
    }
}

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

std::string kvCacheDtype(const Serving& s, const EngineSpec& spec, const std::string& fp8Name, const std::string& int8Why,
                         const std::string& fourBitWhy)
{
    if (s.plan.kvBytes == 1) {
        if (s.t.scenario.inference.kvPrecision == InferPrecision::INT8)
            refuse(spec.id, int8Why);
        return fp8Name;
    }
    if (s.plan.kvBytes < 1)
        refuse(spec.id, fourBitWhy);
    return "auto";
}

void requireNvfp4(const LaunchTarget& t, const EngineSpec& spec)
{
    if (!t.gpu.supports(DType::FP4) || t.gpu.vendor != "NVIDIA")
        refuse(spec.id, "--quantization modelopt_fp4 serves NVIDIA's NVFP4 checkpoints on FP4 tensor cores (Blackwell); " +
                            t.gpu.name + " is not one (AMD's MXFP4 checkpoints load through AMD Quark, which launch does not write)");
}

LaunchFiles serveScript(const Serving& s, std::vector<std::string> head, const EngineSpec& spec, int port0,
                        const std::string& engineDp, const ReplicaCommand& command)
{
    const LaunchTarget& t = s.t;
    replicaLines(head, t, port0, engineDp);
    for (const auto& n : s.notes)
        head.push_back(n);
    LaunchFiles out;
    out.engine = spec.id;
    const std::string model = modelArg(t.scenario, head);
    std::vector<std::string> commands;
    for (int r = 0; r < t.replicas; ++r) {
        const Cmd c = command(model, port0 + r);
        commands.push_back(c.text(cudaDevices(t, r)));
        out.commands.push_back(c.oneLine(cudaDevices(t, r)));
    }
    out.files.push_back({"serve.sh", script(head, commands, true), true});
    out.notes = s.notes;
    return out;
}

// ---------------------------------------------------------------- training

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

LaunchFiles trainingFiles(const EngineSpec& spec, const std::vector<std::string>& head, const Cmd& c,
                          const std::vector<std::string>& notes, const std::string& configName, const std::string& configText)
{
    LaunchFiles out;
    out.engine = spec.id;
    out.files.push_back({"launch.sh", script(head, {c.text()}, false), true});
    if (!configName.empty())
        out.files.push_back({configName, configText, false});
    out.commands.push_back(c.oneLine());
    out.notes = notes;
    return out;
}

} // namespace launchwriter

LaunchFiles generateLaunch(const LaunchTarget& t, const std::string& engine, const Calibration* calibration)
{
    using namespace launchwriter;
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
