// Measured records in measure.py's shape (train_llm, infer_llm, vision, ...):
// each becomes a scenario on its GPU and a case that estimates and scores it;
// and the helpers the published records share (validateparts.h).
#include "core/fit/validateparts.h"

#include "core/base/errors.h"
#include "core/base/units.h"
#include "core/calibration/calibration.h"
#include "core/hardware/catalog.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace gp::detail::fitrecord {

std::string lower(std::string s)
{
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return s;
}

bool has(const std::string& hay, const char* needle) { return hay.find(needle) != std::string::npos; }

Scenario baseScenario(const std::string& name)
{
    Scenario s;
    s.name = name;
    s.hardware = Hardware{};
    s.pricing = Pricing{};
    return s;
}

void setHfModel(Scenario& s, json config, const std::string& arch)
{
    if (!config.contains("model_type"))
        config["model_type"] = arch;
    s.modelSpec.form = ModelSpec::Form::HfConfig;
    s.modelSpec.jsonText = config.dump();
    s.model = resolveModel(s.modelSpec);
}

void setPreset(Scenario& s, std::string id)
{
    std::replace(id.begin(), id.end(), '_', '-');
    if (id == "vit-b-16" || id == "vitb16")
        id = "vit-b-16";
    s.modelSpec.form = ModelSpec::Form::Preset;
    s.modelSpec.presetId = id;
    s.model = resolveModel(s.modelSpec);
}

double sigmaFor(const GpuEstimate& e, const std::string& metric)
{
    return metric.find("memory") != std::string::npos || metric.find("reserved") != std::string::npos
               ? e.uncertainty.memory
               : e.uncertainty.throughput;
}

void add(Rows& rows, const std::string& record, const std::string& gpu, const std::string& metric, double predicted,
         double measured, double sigma)
{
    if (measured > 0 && std::isfinite(predicted))
        rows.push_back({record, gpu, metric, predicted, measured, -1, sigma});
}

std::string familyOf(const Scenario& s)
{
    if (s.model.family == ModelFamily::Vision)
        return s.model.id.find("vit") != std::string::npos ? "ViT" : "CNN";
    if (s.model.family == ModelFamily::Encoder)
        return "encoder";
    return s.model.moe.enabled() ? "MoE" : "decoder LLM";
}

void addCase(ValidationSet& set, const Scenario& s, const Gpu& gpu, Score score)
{
    ValidationCase c{s.name, gpu.id, familyOf(s), archFamilyId(archFamily(gpu)), false, {}, s.mode == Mode::Training};
    c.fp8Training = s.mode == Mode::Training && s.training.precision == TrainPrecision::FP8;
    c.predict = [s, gpu, score = std::move(score)](const EstimateOptions& o, Rows& rows) {
        const GpuEstimate e = estimateOn(s, gpu, o);
        score(e, [&](const char* metric, double predicted, double measured) {
            add(rows, s.name, gpu.id, metric, predicted, measured, sigmaFor(e, metric));
        });
    };
    Rows trial;
    c.predict(EstimateOptions{false}, trial);
    set.cases.push_back(std::move(c));
}

double num(const json& r, const char* key, double fallback)
{
    auto it = r.find(key);
    return it != r.end() && it->is_number() ? it->get<double>() : fallback;
}

/// One record in measure.py's shape.
void validateMeasured(const json& r, const std::string& gpuId, double contextMib, const Catalog& cat,
                      ValidationSet& rep, RecordReader& rr)
{
    const std::string kind = r.value("kind", "");
    const std::string name = r.value("name", kind);
    if (kind == "micro" || kind.empty())
        return;
    if (!r.value("ok", true)) {
        rep.skipped.push_back(name + ": run failed");
        return;
    }
    if (r.contains("scored") && r["scored"].is_boolean() && !r["scored"].get<bool>()) {
        rep.skipped.push_back(name + ": informational, not scored (" + r.value("note", std::string("see record")) + ")");
        return;
    }
    const Gpu* gpu = cat.find(gpuId);
    if (!gpu) {
        rep.skipped.push_back(name + ": unknown GPU \"" + gpuId + "\"");
        return;
    }
    Scenario s = baseScenario(name);
    s.hardware.gpus = {gpuId};
    // Memory in MiB, at most what the GPU has; without it (or with a bad one)
    // the memory metric is not scored, never scored as the context alone.
    // memory_gb as the catalog gives it (GiB for HBM parts: an H200's "141 GB" is 143,156 MiB).
    const double gpuMib = gpu->memoryGb * 1024;
    const double reservedMib = rr.measured(r, "peak_reserved_mib", 1, gpuMib * 1.05,
                                           "MiB, at most the GPU's memory: bytes or GiB instead of MiB?");
    const double measuredTotalGib = reservedMib > 0 ? (reservedMib + contextMib) / 1024 : 0;
    if (kind == "train_llm") {
        s.mode = Mode::Training;
        s.runtime = r.value("compiled", false) ? Runtime::Optimized : Runtime::Eager;
        setHfModel(s, r.at("config"), r.value("arch", std::string("llama")));
        auto& t = s.training;
        t.microBatch = rr.get(r, "", "micro_batch", 1);
        t.seqLen = rr.get(r, "", "seq_len", 1024);
        t.checkpointing = r.value("grad_checkpointing", false) ? Checkpointing::Full : Checkpointing::None;
        const std::string mode = r.value("precision_mode", std::string("amp_bf16"));
        t.precision = mode == "pure_bf16" || mode == "bf16" ? TrainPrecision::BF16
                      : mode == "fp32"                      ? TrainPrecision::FP32
                      : mode == "tf32"                      ? TrainPrecision::TF32
                      : mode == "amp_fp16"                  ? TrainPrecision::AmpFP16
                                                            : TrainPrecision::AmpBF16;
        const std::string optim = r.value("optimizer", std::string("adamw"));
        t.optimizer = optim == "sgd" ? Optimizer::SGDMomentum : optim == "adamw_8bit" ? Optimizer::AdamW8bit : Optimizer::AdamW;
        if (r.contains("lora") && r["lora"].is_object()) {
            t.method = TrainMethod::Lora;
            t.loraRank = rr.get(r["lora"], "lora", "r", 16, 1, 65536);
            t.loraTargets = r["lora"].value("targets", std::vector<std::string>{"q_proj", "v_proj"});
        }
        if (!rr.ok())
            return;
        const double tokens = rr.measured(r, "tokens_per_s", kMinRate, kMaxRate, "tokens per second");
        if (!rr.ok())
            return;
        addCase(rep, s, *gpu, [measuredTotalGib, tokens](const GpuEstimate& e, const auto& add) {
            add("memory_total_gib", units::bytesToGiB(e.memory.total()), measuredTotalGib);
            add("train_tokens_per_s", e.training->tokensPerS, tokens);
        });
    } else if (kind == "infer_llm") {
        s.mode = Mode::Inference;
        s.runtime = r.value("runtime", std::string("optimized")) == "eager" ? Runtime::Eager : Runtime::Optimized;
        setHfModel(s, r.at("config"), "llama");
        auto& in = s.inference;
        in.batch = rr.get(r, "", "batch", 1);
        in.promptTokens = rr.get(r, "", "context_len", 512);
        // The decode step was timed at context_len with a cache of context_len + 1.
        in.outputTokens = 1;
        if (!rr.ok())
            return;
        const double decode = rr.measured(r, "decode_step_ms", kMinMs, kMaxMs, "milliseconds");
        const double prefill = rr.measured(r, "ttft_ms_prefill_only", kMinMs, kMaxMs, "milliseconds");
        if (!rr.ok())
            return;
        addCase(rep, s, *gpu,
                [measuredTotalGib, decode, prefill](const GpuEstimate& e, const auto& add) {
                    add("memory_total_gib", units::bytesToGiB(e.memory.total()), measuredTotalGib);
                    add("decode_ms", e.inference->tpotMs.value_or(0), decode);
                    add("prefill_ms", e.inference->ttftMs.value_or(0), prefill);
                });
    } else if (kind == "train_vision" || kind == "infer_vision") {
        const bool train = kind == "train_vision";
        s.mode = train ? Mode::Training : Mode::Inference;
        s.runtime = Runtime::Eager;
        setPreset(s, r.value("arch", std::string("resnet50")));
        const std::string mode = r.value("precision_mode", std::string("amp_bf16"));
        if (train) {
            s.training.microBatch = rr.get(r, "", "batch", 32);
            s.training.imageSize = rr.get(r, "", "image_size", 224, 16, 8192);
            s.training.optimizer = Optimizer::SGDMomentum;
            s.training.precision = mode == "fp32" ? TrainPrecision::FP32 : mode == "amp_fp16" ? TrainPrecision::AmpFP16
                                                                                               : TrainPrecision::AmpBF16;
        } else {
            s.inference.batch = rr.get(r, "", "batch", 32);
            s.inference.imageSize = rr.get(r, "", "image_size", 224, 16, 8192);
            s.inference.precision = mode == "fp32" ? InferPrecision::FP32 : mode == "fp16" ? InferPrecision::FP16
                                                                                           : InferPrecision::BF16;
        }
        if (!rr.ok())
            return;
        const double images = rr.measured(r, "images_per_s", kMinRate, kMaxRate, "images per second");
        if (!rr.ok())
            return;
        addCase(rep, s, *gpu, [train, measuredTotalGib, images](const GpuEstimate& e, const auto& add) {
            add("memory_total_gib", units::bytesToGiB(e.memory.total()), measuredTotalGib);
            add("vision_images_per_s", train ? e.training->samplesPerS : e.inference->samplesPerS.value_or(0), images);
        });
    } else {
        rep.skipped.push_back(name + ": unknown kind \"" + kind + "\"");
    }
}

} // namespace gp::detail::fitrecord
