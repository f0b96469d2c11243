// Checking a scenario as a whole: the field ranges, the layout against the model
// (TP divides the heads and KV heads, PP at most the layers), ZeRO and HSDP against
// the GPU count, and the workload's own consistency. Every problem names its JSON
// path, as reading does (scenario.cpp).
#include "core/scenario/scenario.h"
#include "core/scenario/scenariowords.h"

#include "core/hardware/mig.h"

#include <algorithm>

namespace gp {

using namespace scenariowords;

std::string tpProblem(const ModelArch& m, int tp)
{
    if (tp <= 1 || !m.isLanguageModel() || m.heads <= 0)
        return {};
    if (m.heads % tp != 0)
        return "must divide the " + std::to_string(m.heads) + " attention heads of " + m.name + ", got " +
               std::to_string(tp);
    const int kv = m.kvHeads > 0 ? m.kvHeads : m.heads;
    // vLLM / TensorRT-LLM: below the KV heads tp divides them; above, each KV
    // head is replicated on tp / kv_heads GPUs, which needs tp a multiple of them.
    if (tp <= kv ? kv % tp != 0 : tp % kv != 0)
        return "must divide the " + std::to_string(kv) + " KV heads of " + m.name +
               " (or be a multiple of them, each KV head then replicated), got " + std::to_string(tp);
    return {};
}

std::string ppProblem(const ModelArch& m, int pp)
{
    if (pp <= 1 || !m.isLanguageModel() || m.layers <= 0)
        return {};
    if (pp > m.layers)
        return "must be at most the " + std::to_string(m.layers) + " layers of " + m.name + " (one stage holds at "
               "least one layer), got " + std::to_string(pp);
    return {};
}

std::vector<Diagnostic> validateScenario(const Scenario& s)
{
    std::vector<Diagnostic> d;
    const auto& t = s.training;
    const auto& inf = s.inference;
    const bool lm = s.model.isLanguageModel();
    if (s.mode == Mode::Training) {
        if (t.microBatch < 1)
            d.push_back({"workload.training.micro_batch", "must be a positive integer, got " + std::to_string(t.microBatch)});
        if (t.seqLen < 1)
            d.push_back({"workload.training.seq_len", "must be a positive integer, got " + std::to_string(t.seqLen)});
        if (t.gradAccum < 1)
            d.push_back({"workload.training.grad_accum", "must be a positive integer, got " + std::to_string(t.gradAccum)});
        if (t.method != TrainMethod::Full && !lm)
            d.push_back({"workload.training.method", "LoRA/QLoRA apply to transformer language models, not to " +
                                                         s.model.name});
        if (t.method != TrainMethod::Full && t.loraTargets.empty())
            d.push_back({"workload.training.lora_targets", "must name at least one module"});
        if (lm && s.model.maxPositions > 0 && s.model.positional == Positional::Learned &&
            t.seqLen > s.model.maxPositions)
            d.push_back({"workload.training.seq_len", "is " + std::to_string(t.seqLen) + " but " + s.model.name +
                                                          " has learned positions for at most " +
                                                          std::to_string(s.model.maxPositions) + " tokens"});
    } else {
        if (inf.batch < 1)
            d.push_back({"workload.inference.batch", "must be a positive integer, got " + std::to_string(inf.batch)});
        if (inf.kvPrecision == InferPrecision::FP4)
            d.push_back({"workload.inference.kv_precision", "fp4 is a weight format (NVFP4); give the KV cache fp8, "
                                                            "fp16, bf16, int8 or int4"});
        if (lm && s.model.family == ModelFamily::Decoder && s.model.positional == Positional::Learned &&
            s.model.maxPositions > 0 &&
            static_cast<long long>(inf.promptTokens) + inf.outputTokens > s.model.maxPositions)
            d.push_back({"workload.inference.prompt_tokens",
                         "prompt + output = " + std::to_string(static_cast<long long>(inf.promptTokens) + inf.outputTokens) +
                             " tokens exceeds the " + std::to_string(s.model.maxPositions) +
                             " learned positions of " + s.model.name});
    }
    const auto& h = s.hardware;
    if (h.count < 1)
        d.push_back({"hardware.count", "must be a positive integer"});
    else if (h.tp * h.pp > h.count)
        d.push_back({"hardware.count", "must be at least tp x pp = " + std::to_string(h.tp * h.pp) + ", got " +
                                           std::to_string(h.count)});
    else if (h.count % (h.tp * h.pp) != 0)
        d.push_back({"hardware.count", "must be a multiple of tp x pp = " + std::to_string(h.tp * h.pp) + ", got " +
                                           std::to_string(h.count)});
    else if (const std::string problem = shardGroupProblem(h); !problem.empty())
        d.push_back({"hardware.shard_group", problem});
    if (s.mode == Mode::Training && s.runtime == Runtime::Serving)
        d.push_back({"workload.runtime", "\"serving\" (a serving engine: vLLM, TensorRT-LLM, SGLang) is for mode "
                                         "\"inference\"; training runs \"eager\" or \"optimized\""});
    if (s.mode == Mode::Training && t.datasetTokens && t.datasetSamples)
        d.push_back({"workload.training.dataset_samples", "give dataset_tokens or dataset_samples, not both"});
    if (!h.mig.empty()) {
        // One slice of one GPU: MIG instances have no GPU-to-GPU path (no NVLink,
        // no P2P), so tensor/pipeline/data parallelism over slices is not modelled.
        const auto names = migProfileNames();
        if (std::find(names.begin(), names.end(), h.mig) == names.end())
            d.push_back({"hardware.mig", "must be one of \"1g\", \"2g\", \"3g\", \"4g\", \"7g\", got \"" + h.mig + "\""});
        else if (h.count != 1)
            d.push_back({"hardware.mig", "runs on one slice of one GPU: hardware.count must be 1, got " +
                                             std::to_string(h.count)});
        else if (h.gpus.empty())
            d.push_back({"hardware.mig", "needs hardware.gpus to name GPUs with MIG (e.g. nvidia-h100-sxm): \"all\" "
                                         "includes GPUs without it"});
    }
    if (s.pricing.utilization <= 0 || s.pricing.utilization > 1)
        d.push_back({"pricing.utilization", "must be in (0, 1]"});
    if (lm) {
        if (const std::string problem = tpProblem(s.model, h.tp); !problem.empty())
            d.push_back({"hardware.tp", problem});
        if (const std::string problem = ppProblem(s.model, h.pp); !problem.empty())
            d.push_back({"hardware.pp", problem});
    }
    for (std::size_t i = 0; i < h.precisions.size(); ++i) {
        const auto& names = s.mode == Mode::Training ? std::span<const std::string_view>(kTrainPrecisions)
                                                     : std::span<const std::string_view>(kInferPrecisions);
        if (std::find(names.begin(), names.end(), h.precisions[i]) == names.end())
            d.push_back({"hardware.precisions[" + std::to_string(i) + "]",
                         "\"" + h.precisions[i] + "\" is not " +
                             (s.mode == Mode::Training ? "a training precision (fp32, tf32, amp_bf16, amp_fp16, bf16, fp8)"
                                                       : "an inference precision (fp32, fp16, bf16, fp8, int8, int4, fp4)")});
    }
    if (!(h.confidence >= 0 && h.confidence <= 1))
        d.push_back({"hardware.confidence", "must be a probability in [0, 1]"});
    if (!(inf.memoryFraction > 0 && inf.memoryFraction <= 1))
        d.push_back({"workload.inference.memory_fraction", "must be in (0, 1]"});
    if (t.globalBatchTokens && !(*t.globalBatchTokens >= 1))
        d.push_back({"workload.training.global_batch_tokens", "must be a positive number of tokens"});
    return d;
}

} // namespace gp
