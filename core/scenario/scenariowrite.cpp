// Writing a scenario: scenarioToJson (the file a save writes, which reading takes
// back), the app's default scenario, and each enum's word in the file (toString).
#include "core/scenario/scenario.h"
#include "core/scenario/scenarioname.h"
#include "core/scenario/scenariowords.h"

#include <nlohmann/json.hpp>

#include <array>

namespace gp {

using nlohmann::json;
using namespace scenariowords;

std::string scenarioToJson(const Scenario& s)
{
    json doc = json::object();
    doc["format"] = "gpuplanner-scenario";
    doc["version"] = kFormatVersion;
    doc["name"] = s.name;
    json m = json::object();
    switch (s.modelSpec.form) {
    case ModelSpec::Form::Preset:
        m["preset"] = s.modelSpec.presetId;
        break;
    case ModelSpec::Form::Explicit:
        m = json::parse(s.modelSpec.jsonText);
        break;
    case ModelSpec::Form::HfConfig:
        m["hf_config"] = json::parse(s.modelSpec.jsonText);
        break;
    case ModelSpec::Form::Params:
        m["params"] = s.modelSpec.params;
        if (s.modelSpec.family)
            m["family"] = std::array{"decoder", "encoder", "vision"}[static_cast<int>(*s.modelSpec.family)];
        if (s.modelSpec.moe.enabled())
        {
            m["moe"] = {{"experts", s.modelSpec.moe.experts},
                        {"active", s.modelSpec.moe.active},
                        {"shared", s.modelSpec.moe.shared}};
            if (s.modelSpec.moe.expertFfnHidden > 0)
                m["moe"]["expert_ffn_hidden"] = s.modelSpec.moe.expertFfnHidden;
        }
        break;
    }
    doc["model"] = m;
    const auto& t = s.training;
    json tr = {{"method", toString(t.method)},
               {"lora_rank", t.loraRank},
               {"lora_targets", t.loraTargets},
               {"precision", toString(t.precision)},
               {"optimizer", toString(t.optimizer)},
               {"micro_batch", t.microBatch},
               {"seq_len", t.seqLen},
               {"image_size", t.imageSize},
               {"grad_accum", t.gradAccum},
               {"activation_checkpointing", toString(t.checkpointing)},
               {"epochs", t.epochs}};
    if (t.datasetTokens)
        tr["dataset_tokens"] = *t.datasetTokens;
    if (t.globalBatchTokens)
        tr["global_batch_tokens"] = *t.globalBatchTokens;
    if (t.chunkedLoss)
        tr["chunked_loss"] = true;
    if (t.optimizerInBackward)
        tr["optimizer_in_backward"] = true;
    if (t.datasetSamples)
        tr["dataset_samples"] = *t.datasetSamples;
    if (t.targets.deadlineHours || t.targets.budgetUsd) {
        json tg = json::object();
        if (t.targets.deadlineHours)
            tg["deadline_hours"] = *t.targets.deadlineHours;
        if (t.targets.budgetUsd)
            tg["budget_usd"] = *t.targets.budgetUsd;
        tr["targets"] = tg;
    }
    const auto& i = s.inference;
    json in = {{"precision", i.checkpointWeights ? std::string_view("checkpoint") : toString(i.precision)},
               {"batch", i.batch},
               {"prompt_tokens", i.promptTokens},
               {"output_tokens", i.outputTokens},
               {"image_size", i.imageSize}};
    if (i.kvPrecision)
        in["kv_precision"] = toString(*i.kvPrecision);
    if (i.memoryFraction != 0.9)
        in["memory_fraction"] = i.memoryFraction;
    if (i.targets.ttftMs || i.targets.tpotMs || i.targets.requestsPerS || i.targets.ttftP99Ms) {
        json tg = json::object();
        if (i.targets.ttftMs)
            tg["ttft_ms"] = *i.targets.ttftMs;
        if (i.targets.tpotMs)
            tg["tpot_ms"] = *i.targets.tpotMs;
        if (i.targets.requestsPerS)
            tg["requests_per_s"] = *i.targets.requestsPerS;
        if (i.targets.ttftP99Ms)
            tg["ttft_p99_ms"] = *i.targets.ttftP99Ms;
        in["targets"] = tg;
    }
    doc["workload"] = {{"mode", toString(s.mode)}, {"runtime", toString(s.runtime)}, {"training", tr}, {"inference", in}};
    const auto& h = s.hardware;
    json hw = {{"count", h.count}, {"tp", h.tp}, {"pp", h.pp}, {"zero", h.zero}, {"max_count", h.maxCount},
               {"network_gbps", h.networkGbps}};
    if (h.shardGroup > 0)
        hw["shard_group"] = h.shardGroup;
    if (h.gpus.empty())
        hw["gpus"] = "all";
    else
        hw["gpus"] = h.gpus;
    if (!h.mig.empty())
        hw["mig"] = h.mig;
    if (!h.precisions.empty())
        hw["precisions"] = h.precisions;
    if (h.consumer)
        hw["consumer"] = true;
    if (h.confidence != 0.9)
        hw["confidence"] = h.confidence;
    doc["hardware"] = hw;
    const auto& p = s.pricing;
    doc["pricing"] = {{"model", toString(p.model)},
                      {"utilization", p.utilization},
                      {"electricity_usd_per_kwh", p.electricityUsdPerKwh},
                      {"pue", p.pue},
                      {"amortization_years", p.amortizationYears},
                      {"hosting_usd_per_gpu_year", p.hostingUsdPerGpuYear}};
    return doc.dump(2) + "\n";
}

Scenario defaultScenario()
{
    Scenario s;
    s.modelSpec.form = ModelSpec::Form::Preset;
    s.modelSpec.presetId = "llama-3.1-8b";
    s.model = resolveModel(s.modelSpec);
    s.mode = Mode::Training;
    s.runtime = Runtime::Eager;
    s.training.method = TrainMethod::Lora;
    s.training.loraRank = 16;
    s.training.precision = TrainPrecision::BF16;
    s.training.optimizer = Optimizer::AdamW;
    s.training.microBatch = 4;
    s.training.seqLen = 2048;
    s.training.checkpointing = Checkpointing::Full;
    s.training.datasetTokens = 100e6;
    s.training.epochs = 2;
    s.inference.precision = InferPrecision::BF16;
    s.inference.batch = 16;
    s.inference.promptTokens = 1024;
    s.inference.outputTokens = 256;
    s.inference.targets.ttftMs = 1000;
    s.inference.targets.tpotMs = 50;
    s.name = autoScenarioName(s); // "Llama 3.1 8B: LoRA fine-tune": it follows the content
    return s;
}

std::string_view toString(Mode v) { return kModes[static_cast<std::size_t>(v)]; }
std::string_view toString(Runtime v) { return kRuntimes[static_cast<std::size_t>(v)]; }
std::string_view toString(TrainMethod v) { return kMethods[static_cast<std::size_t>(v)]; }
std::string_view toString(TrainPrecision v) { return kTrainPrecisions[static_cast<std::size_t>(v)]; }
std::string_view toString(Optimizer v) { return kOptimizers[static_cast<std::size_t>(v)]; }
std::string_view toString(Checkpointing v) { return kCheckpointing[static_cast<std::size_t>(v)]; }
std::string_view toString(InferPrecision v) { return kInferPrecisions[static_cast<std::size_t>(v)]; }
std::string_view toString(PricingModel v) { return kPricingModels[static_cast<std::size_t>(v)]; }

} // namespace gp
