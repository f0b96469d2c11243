// Predicted vs measured: turns each measured record (measure.py's shape, or the
// published-runs shape) into a scenario, estimates it and compares.
#include "core/fit/validate.h"

#include "core/calibration/calibration.h"
#include "core/hardware/catalog.h"
#include "core/base/errors.h"
#include "core/estimate/estimate.h"
#include "core/base/fileread.h"
#include "core/base/jsonparse.h"
#include "core/base/jsonread.h"
#include "core/scenario/scenario.h"
#include "core/base/units.h"
#include "core/fit/validaterecorded.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

namespace gp {

using nlohmann::json;

namespace {

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

using Rows = std::vector<ValidationRow>;

/// The estimate's band for a metric: memory rows read the memory band, the rest the throughput band.
double sigmaFor(const GpuEstimate& e, const std::string& metric)
{
    return metric.find("memory") != std::string::npos || metric.find("reserved") != std::string::npos
               ? e.uncertainty.memory
               : e.uncertainty.throughput;
}

void add(Rows& rows, const std::string& record, const std::string& gpu, const std::string& metric, double predicted,
         double measured, double sigma = 0)
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

/// Emits (metric, predicted, measured) rows from one estimate.
using Score = std::function<void(const GpuEstimate&, const std::function<void(const char*, double, double)>&)>;

/// Adds a case that estimates `s` on `gpu` once per prediction. It is predicted
/// once here, so an estimate that throws skips the record now, not in a refit.
void addCase(ValidationSet& set, const Scenario& s, const Gpu& gpu, Score score)
{
    ValidationCase c{s.name, gpu.id, familyOf(s), archFamilyId(archFamily(gpu)), false, {}};
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

/// Reads a record's integers with bounds; every bad value is an error naming the
/// record and key (no record is estimated from a zero or negative size).
struct RecordReader {
    detail::JsonReader& jr;
    std::string where; // "measured-h100.json: [3] (train-llama)"
    int get(const json& obj, const std::string& parent, const char* key, int fallback, long long min = 1,
            long long max = 10'000'000)
    {
        if (!obj.is_object())
            return fallback;
        if (const auto it = obj.find(key); it != obj.end() && it->is_null())
            return fallback; // "not stated" in the published records
        return jr.integer(obj, parent.empty() ? where : where + "." + parent, key, min, max).value_or(fallback);
    }
    bool ok() const { return jr.errors.empty(); }
    /// A measured value: absent -> 0 (that metric is not scored); present, it must
    /// be a finite number in [lo, hi] (its unit's plausible range), else an error
    /// naming the key, with the likely unit mix-up, and 0.
    double measured(const json& r, const char* key, double lo, double hi, const char* unitHint)
    {
        const auto it = r.find(key);
        if (it == r.end() || it->is_null())
            return 0;
        const std::string path = where + "." + key;
        if (!it->is_number() || it->is_boolean()) {
            jr.error(path, "must be a number, got " + detail::describe(*it));
            return 0;
        }
        const double v = it->get<double>();
        if (!std::isfinite(v) || v <= 0) {
            jr.error(path, "must be a positive finite number, got " + detail::describe(*it));
            return 0;
        }
        if (v < lo || v > hi) {
            jr.error(path, "got " + detail::describe(*it) + ", outside the plausible range [" + formatShort(lo) + ", "
                               + formatShort(hi) + "]" + (*unitHint ? std::string(" (") + unitHint + ")" : std::string()));
            return 0;
        }
        return v;
    }
    static std::string formatShort(double v)
    {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.6g", v);
        return buf;
    }
};

/// Plausible ranges of measured speeds (units as measure.py writes them).
constexpr double kMinRate = 1e-3;   // tokens or images per second
constexpr double kMaxRate = 1e9;
constexpr double kMinMs = 1e-3;     // a step in milliseconds
constexpr double kMaxMs = 1e7;

double num(const json& r, const char* key, double fallback = 0)
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

/// One record in published.json's shape (id, category, model_arch, hardware, software, metric, value).
void validatePublished(const json& r, const Catalog& cat, ValidationSet& rep, RecordReader& rr)
{
    const std::string id = r.value("id", std::string("?"));
    const std::string category = r.value("category", "");
    const json& arch = r.value("model_arch", json::object());
    const json& hw = r.value("hardware", json::object());
    const json& sw = r.value("software", json::object());
    const std::string gpuId = gpuIdFromDeviceName(hw.value("gpu", std::string()));
    const Gpu* gpu = cat.find(gpuId);
    const std::string label = id + " " + r.value("model", std::string());
    if (!gpu) {
        rep.skipped.push_back(label + ": GPU \"" + hw.value("gpu", std::string()) + "\" not mapped to the catalog");
        return;
    }
    Scenario s = baseScenario(label);
    s.hardware.gpus = {gpuId};
    s.hardware.count = rr.get(hw, "hardware", "count", 1, 1, 1'000'000);
    for (const char* key : {"layers", "hidden", "heads", "kv_heads", "ffn_hidden", "vocab", "seq_len"})
        (void)rr.get(arch, "model_arch", key, 1);
    const bool hasOther = sw.is_object() && sw.contains("other") && sw["other"].is_object();
    const json& otherSw = hasOther ? sw["other"] : json::object();
    for (const char* key : {"tp", "pp", "grad_accum", "input_len", "output_len"})
        (void)rr.get(otherSw, "software.other", key, 1, 1, key[0] == 't' || key[0] == 'p' ? 1024 : 10'000'000);
    (void)rr.get(sw, "software", "micro_batch_per_gpu", 1);
    // The published figure (tokens/s, images/s or GiB): a positive finite number.
    (void)rr.measured(r, "value", kMinRate, kMaxRate, "");
    if (!rr.ok())
        return;
    const std::string precision = lower(sw.value("precision", std::string()));
    const std::string framework = lower(sw.value("framework", std::string()));
    const std::string modelName = lower(r.value("model", std::string()));
    auto explicitModel = [&] {
        json m = {{"family", "decoder"},
                  {"layers", arch.value("layers", 0)},
                  {"hidden", arch.value("hidden", 0)},
                  {"heads", arch.value("heads", 0)},
                  {"kv_heads", arch.value("kv_heads", arch.value("heads", 0))},
                  {"ffn_hidden", arch.value("ffn_hidden", 0)},
                  {"vocab", arch.value("vocab", 0)}};
        const bool gelu = arch.value("ffn_hidden", 0) == 4 * arch.value("hidden", 0);
        m["ffn"] = gelu ? "gelu" : "swiglu";
        if (gelu)
            m["positional"] = "rope"; // MPT uses ALiBi: no learned position table
        s.modelSpec.form = ModelSpec::Form::Explicit;
        s.modelSpec.jsonText = m.dump();
        s.model = resolveModel(s.modelSpec);
    };
    try {
        if (category == "training_throughput") {
            explicitModel();
            s.mode = Mode::Training;
            s.runtime = Runtime::Optimized;
            s.training.microBatch = sw.value("micro_batch_per_gpu", 1);
            s.training.seqLen = arch.value("seq_len", 2048);
            const std::string ac = lower(sw.value("activation_checkpointing", std::string("none")));
            s.training.checkpointing = has(ac, "selective") ? Checkpointing::Selective
                                       : has(ac, "full")    ? Checkpointing::Full
                                                            : Checkpointing::None;
            s.training.precision = TrainPrecision::AmpBF16;
            const std::string par = lower(sw.value("parallelism", std::string()));
            s.hardware.zero = has(par, "fsdp") || has(par, "zero-3") ? 3 : 0;
            const json& other = sw.value("other", json::object());
            if (other.is_object()) {
                s.hardware.tp = other.value("tp", 1);
                s.hardware.pp = other.value("pp", 1);
                s.training.gradAccum = other.value("grad_accum", 1);
                if (s.hardware.pp > 1 && !other.contains("grad_accum")) {
                    // A pipeline splits the local batch into micro-batches of 1.
                    s.training.gradAccum = s.training.microBatch;
                    s.training.microBatch = 1;
                }
            }
            addCase(rep, s, *gpu, [count = s.hardware.count, value = num(r, "value")](const GpuEstimate& e, const auto& add) {
                add("published_train_tokens_per_s_per_gpu", e.training->tokensPerS / count, value);
            });
        } else if (category == "training_memory") {
            if (has(lower(sw.value("optimizer", std::string())), "paged")) {
                rep.skipped.push_back(label + ": paged 8-bit AdamW with optimizer-in-backward keeps states in host "
                                              "memory and stores no gradients; not modelled");
                return;
            }
            explicitModel();
            s.mode = Mode::Training;
            s.runtime = has(lower(r.value("notes", std::string())), "torch.compile on") ? Runtime::Optimized : Runtime::Eager;
            s.training.microBatch = sw.value("micro_batch_per_gpu", 1);
            s.training.seqLen = arch.value("seq_len", 2048);
            const std::string mode = lower(r.value("mode", std::string()));
            const std::string optim = lower(sw.value("optimizer", std::string()));
            s.training.method = has(mode, "qlora") ? TrainMethod::Qlora : has(mode, "lora") ? TrainMethod::Lora : TrainMethod::Full;
            s.training.precision = TrainPrecision::BF16;
            s.training.optimizer = has(optim, "8bit") ? Optimizer::AdamW8bit : Optimizer::AdamW;
            s.training.checkpointing = Checkpointing::Full;
            if (s.training.method != TrainMethod::Full)
                s.training.loraTargets = {"q_proj", "v_proj", "o_proj"};
            // torchtune reports max_memory_reserved: no CUDA context.
            addCase(rep, s, *gpu, [value = num(r, "value")](const GpuEstimate& e, const auto& add) {
                add("published_peak_reserved_gib", units::bytesToGiB(e.memory.total()) - 620.0 / 1024, value);
            });
        } else if (category == "vision") {
            setPreset(s, has(modelName, "resnet-50") || has(modelName, "resnet50") ? "resnet50" : "resnet18");
            const bool train = has(lower(r.value("mode", std::string())), "training");
            s.mode = train ? Mode::Training : Mode::Inference;
            s.runtime = Runtime::Eager;
            const int batch = sw.value("micro_batch_per_gpu", 256);
            if (train) {
                s.training.microBatch = batch;
                s.training.optimizer = Optimizer::SGDMomentum;
                s.training.precision = has(precision, "fp16") ? TrainPrecision::AmpFP16 : TrainPrecision::AmpBF16;
            } else {
                s.inference.batch = batch;
                s.inference.precision = InferPrecision::FP16;
            }
            addCase(rep, s, *gpu, [train, value = num(r, "value")](const GpuEstimate& e, const auto& add) {
                add("published_vision_images_per_s", train ? e.training->samplesPerS : e.inference->samplesPerS.value_or(0),
                    value);
            });
        } else if (category == "inference" || category == "inference_per_gpu") {
            // Offline maximum-throughput runs: the engine grows the batch until the
            // KV cache fills the memory; we do the same and keep the best rate.
            explicitModel();
            s.mode = Mode::Inference;
            // Serving engines (paged KV, chunked prefill, in-flight batching) run
            // as the runtime "serving"; anything else as a static-cache stack.
            s.runtime = has(framework, "tensorrt") || has(framework, "vllm") || has(framework, "sglang")
                            ? Runtime::Serving
                            : Runtime::Optimized;
            const json other = sw.value("other", json::object()).is_object() ? sw.value("other", json::object()) : json::object();
            s.inference.promptTokens = other.value("input_len", 1024);
            s.inference.outputTokens = other.value("output_len", 1024);
            s.hardware.pp = other.value("pp", 1);
            s.hardware.tp = other.value("tp", s.hardware.count / std::max(1, s.hardware.pp));
            s.hardware.count = std::max(s.hardware.count, s.hardware.tp * s.hardware.pp);
            // "inference_per_gpu" rows give output tokens/s per GPU of the group.
            const double perGpu = category == "inference_per_gpu" ? double(s.hardware.count) : 1.0;
            s.inference.precision = has(precision, "fp4") ? InferPrecision::FP4
                                    : has(precision, "fp8") ? InferPrecision::FP8
                                    : has(precision, "int4") ? InferPrecision::INT4
                                    : has(precision, "int8") ? InferPrecision::INT8
                                                             : InferPrecision::BF16;
            ValidationCase c{label, gpuId, familyOf(s), archFamilyId(archFamily(*gpu)), false, {}};
            c.predict = [s, g = *gpu, value = num(r, "value"), perGpu](const EstimateOptions& o, Rows& rows) mutable {
                const double kvFraction = s.runtime == Runtime::Serving ? 0.95 : 1.0;
                if (s.runtime == Runtime::Serving) {
                    // The engine admits what its KV pool holds (core/estimate/servingload.h): the
                    // pool is kvFraction of the memory free after the weights and buffers,
                    // i.e. inference.memory_fraction = (others + kvFraction x free) / total.
                    s.inference.memoryFraction = 1.0;
                    s.inference.batch = 1;
                    const GpuEstimate one = estimateOn(s, g, o);
                    const double others = one.memory.total() - one.memory.kvCache;
                    if (others < one.capacityBytes)
                        s.inference.memoryFraction =
                            (others + kvFraction * (one.capacityBytes - others)) / one.capacityBytes;
                }
                double best = 0;
                int bestBatch = 0;
                double bestSigma = 0;
                // Paged KV caches admit requests by the memory they use now: on
                // average a running request is half-way through its output.
                const double inUse = (s.inference.promptTokens + s.inference.outputTokens / 2.0) /
                                     (s.inference.promptTokens + s.inference.outputTokens);
                // Batches 1, 2, 3, 4, 6, 8, 12, ... 2048. The rate grows with the
                // batch up to the largest one whose KV cache fits, so that one is
                // found by bisection (memory is monotone in the batch) and the best
                // rate is taken among it and the two below it.
                std::vector<int> batches;
                for (int step = 1; step < 40; ++step) {
                    const int batch = (step % 2 == 0 ? 2 : 3) << (step / 2) >> 1;
                    if (batch > 2048)
                        break;
                    batches.push_back(batch);
                }
                auto tryBatch = [&](std::size_t k, bool score) {
                    s.inference.batch = batches[k];
                    const GpuEstimate e = estimateOn(s, g, o);
                    // The engine gives its KV pool a fraction of the memory left free
                    // after weights and buffers (trtllm-bench: kv_cache_free_gpu_mem_fraction 0.95).
                    const double others = e.memory.total() - e.memory.kvCache;
                    if (others + e.memory.kvCache * inUse / kvFraction > e.capacityBytes)
                        return false;
                    if (score && e.inference->tokensPerS && *e.inference->tokensPerS > best) {
                        best = *e.inference->tokensPerS;
                        bestBatch = batches[k];
                        bestSigma = e.uncertainty.throughput;
                    }
                    return true;
                };
                std::size_t lo = 0;
                std::size_t hi = batches.size(); // batches[lo] fits (when any does), batches[hi] does not
                if (tryBatch(0, true)) {
                    while (hi - lo > 1) {
                        const std::size_t mid = (lo + hi) / 2;
                        (tryBatch(mid, false) ? lo : hi) = mid;
                    }
                    for (std::size_t k = lo > 2 ? lo - 2 : 1; k <= lo && k > 0; ++k)
                        tryBatch(k, true);
                }
                add(rows, s.name + " (batch " + std::to_string(bestBatch) + ")", g.id,
                    "published_infer_output_tokens_per_s", best / perGpu, value, bestSigma);
            };
            Rows trial;
            c.predict(EstimateOptions{false}, trial);
            rep.cases.push_back(std::move(c));
        } else {
            rep.skipped.push_back(label + ": category \"" + category + "\" not modelled");
        }
    } catch (const InputError& e) {
        rep.skipped.push_back(label + ": " + e.what());
    }
}

} // namespace

BadRecords::BadRecords(std::vector<Diagnostic> problems)
    : InputError(std::move(problems))
{
}

std::string gpuIdFromDeviceName(const std::string& raw)
{
    const std::string n = lower(raw);
    struct Rule {
        const char* a;
        const char* b;
        const char* id;
    };
    static const Rule rules[] = {
        {"gh200", "", "nvidia-gh200"},
        {"h200", "nvl", "nvidia-h200-nvl"},
        {"h200", "", "nvidia-h200-sxm"},
        {"h100", "nvl", "nvidia-h100-nvl"},
        {"h100", "pcie", "nvidia-h100-pcie"},
        {"h100", "", "nvidia-h100-sxm"},
        {"gb200", "", "nvidia-gb200"},
        {"gb300", "", "nvidia-gb300"},
        {"b200", "", "nvidia-b200"},
        {"b300", "", "nvidia-b300"},
        {"a100", "40gb", "nvidia-a100-40gb-sxm"},
        {"a100", "pcie", "nvidia-a100-80gb-pcie"},
        {"a100", "", "nvidia-a100-80gb-sxm"},
        {"a10g", "", "nvidia-a10g"},
        {"l40s", "", "nvidia-l40s"},
        {"l40", "", "nvidia-l40"},
        {"a40", "", "nvidia-a40"},
        {"a30", "", "nvidia-a30"},
        {"v100", "32", "nvidia-v100-sxm2-32gb"},
        {"v100", "", "nvidia-v100-sxm2-16gb"},
        {"rtx 6000 ada", "", "nvidia-rtx-6000-ada"},
        {"rtx pro 6000", "", "nvidia-rtx-pro-6000-blackwell"},
        {"rtx a6000", "", "nvidia-rtx-a6000"},
        {"a6000", "", "nvidia-rtx-a6000"},
        {"5090", "", "nvidia-rtx-5090"},
        {"5080", "", "nvidia-rtx-5080"},
        {"4090", "", "nvidia-rtx-4090"},
        {"4080", "", "nvidia-rtx-4080"},
        {"3090", "", "nvidia-rtx-3090"},
        {"mi300x", "", "amd-mi300x"},
        {"mi325x", "", "amd-mi325x"},
        {"mi355x", "", "amd-mi355x"},
        {"mi250", "", "amd-mi250x"},
        {"t4", "", "nvidia-t4"},
        {"l4", "", "nvidia-l4"},
        {"a10", "", "nvidia-a10"},
    };
    for (const auto& r : rules)
        if (has(n, r.a) && (r.b[0] == 0 || has(n, r.b)))
            return r.id;
    return std::string();
}

namespace {

/// The record key a metric's measured value comes from (for messages).
const char* measuredKey(const std::string& metric)
{
    if (metric == "memory_total_gib")
        return "peak_reserved_mib";
    if (metric == "train_tokens_per_s")
        return "tokens_per_s";
    if (metric == "decode_ms")
        return "decode_step_ms";
    if (metric == "prefill_ms")
        return "ttft_ms_prefill_only";
    if (metric == "vision_images_per_s")
        return "images_per_s";
    return "value";
}

/// How far a measured value may be from the built-in model's prediction before
/// it is taken for a unit mix-up (bytes vs MiB: 10^6, GiB vs MiB: ~10 with the
/// context added, per ms vs per s: 1000) rather than a model error. The worst
/// shipped record is off by 1.31x in memory and 1.77x in speed (all four data
/// directories); a record past these would drag a constant to its bound.
constexpr double kImplausibleMemoryFactor = 4;
constexpr double kImplausibleSpeedFactor = 10;

/// "" when every measured value of the case just added is within a factor of
/// kImplausible*Factor of its prediction, else the first that is not, as a message.
std::string implausibility(const ValidationCase& c, std::string& key)
{
    Rows rows;
    c.predict(EstimateOptions{false}, rows);
    for (const auto& row : rows) {
        if (!(row.predicted > 0) || !(row.measured > 0))
            continue;
        const double ratio = row.measured / row.predicted;
        const double factor = row.metric.find("memory") != std::string::npos || row.metric.find("reserved") != std::string::npos
                                  ? kImplausibleMemoryFactor
                                  : kImplausibleSpeedFactor;
        if (ratio > factor || ratio < 1 / factor) {
            key = measuredKey(row.metric);
            char buf[200];
            std::snprintf(buf, sizeof buf,
                          "measured %.6g is %.3g times %s the model's prediction %.6g (%s); a wrong unit? record "
                          "skipped",
                          row.metric == "memory_total_gib" ? row.measured * 1024 : row.measured,
                          ratio > 1 ? ratio : 1 / ratio, ratio > 1 ? "above" : "below",
                          row.metric == "memory_total_gib" ? row.predicted * 1024 : row.predicted,
                          row.metric == "memory_total_gib" ? "MiB with the context" : row.metric.c_str());
            return buf;
        }
    }
    return {};
}

/// Reads one file's records into `report`: usable records become cases; each
/// record with a bad value is skipped and named in report.problems (file,
/// record and key); records the model does not cover go to report.skipped.
/// Throws InputError when the text is not JSON records at all.
void loadText(const std::string& text, const std::string& origin, const Catalog& catalog, ValidationSet& report)
{
    // Depth-limited: a record's config is copied and dumped (recursive) further on.
    json doc = parseJson(text, origin);
    std::string arrayPath;
    if (doc.is_object() && doc.contains("records")) {
        doc = json(doc["records"]);
        arrayPath = "records";
    }
    if (!doc.is_array())
        throw InputError(origin, "must be a JSON array of measured records");
    std::string gpuId;
    double contextMib = 620;
    for (std::size_t i = 0; i < doc.size(); ++i) {
        const json& r = doc[i];
        if (!r.is_object() || !r.contains("name") || !r["name"].is_string() || r["name"] != "device")
            continue;
        const auto id = r.find("gpu_id");
        const auto name = r.find("gpu");
        const std::string where = origin + ": " + arrayPath + "[" + std::to_string(i) + "] (\"device\")";
        if (id != r.end() && !id->is_string())
            report.problems.push_back({where + ".gpu_id", "must be a string, got " + detail::describe(*id)});
        else if (id == r.end() && name != r.end() && !name->is_string())
            report.problems.push_back({where + ".gpu", "must be a string, got " + detail::describe(*name)});
        else
            gpuId = id != r.end() ? id->get<std::string>()
                                  : gpuIdFromDeviceName(name != r.end() ? name->get<std::string>() : std::string());
        contextMib = num(r, "context_overhead_mib", contextMib);
    }
    for (std::size_t i = 0; i < doc.size(); ++i) {
        const json& r = doc[i];
        if (!r.is_object())
            continue;
        detail::JsonReader jr;
        std::string where = origin + ": " + arrayPath + "[" + std::to_string(i) + "]";
        const auto id = r.find(r.contains("id") ? "id" : "name");
        if (id != r.end() && id->is_string())
            where += " (" + detail::describe(*id) + ")";
        // The text fields every reader below takes as strings: another type is
        // this record's problem, not an "internal error".
        for (const char* key : {"id", "name", "kind", "category", "metric", "gpu_id", "arch", "model"})
            if (const auto it = r.find(key); it != r.end() && !it->is_string() && !it->is_null())
                jr.error(where + "." + key, "must be a string, got " + detail::describe(*it));
        RecordReader rr{jr, where};
        const std::size_t before = report.cases.size();
        const std::size_t skippedBefore = report.skipped.size();
        std::string unknownGpu;
        try {
            if (!jr.errors.empty()) {
                // reported below
            } else if (r.contains("category") && r.contains("metric")) {
                validatePublished(r, catalog, report, rr);
            } else if (r.value("kind", std::string()) == "scenario_run") { // gpuplanner-cli record
                detail::addRecordedRun(r, catalog, report);
            } else if (r.contains("kind")) {
                const std::string recordGpu = r.value("gpu_id", gpuId);
                if (r.value("kind", "") != "micro" && !catalog.find(recordGpu) && r.value("ok", true))
                    unknownGpu = recordGpu;
                validateMeasured(r, recordGpu, contextMib, catalog, report, rr);
            }
        } catch (const std::exception& e) {
            // A value of the wrong JSON type somewhere in the record (nlohmann's
            // type_error), or a record the estimator refuses.
            jr.error(where, std::string("record skipped: ") + detail::stripExceptionTag(e.what()));
            report.cases.resize(before);
        }
        if (!unknownGpu.empty()) {
            // Not silently: a record on a GPU the catalog does not know is named.
            report.skipped.resize(skippedBefore);
            jr.error(where + ".gpu_id", "unknown GPU \"" + unknownGpu + "\" (not in the catalog); record skipped");
        }
        if (jr.errors.empty() && report.cases.size() == before + 1) {
            std::string key;
            if (const std::string why = implausibility(report.cases.back(), key); !why.empty()) {
                report.cases.pop_back();
                jr.error(where + "." + key, why);
            }
        }
        report.problems.insert(report.problems.end(), jr.errors.begin(), jr.errors.end());
        // A missing memory figure leaves memory unscored (the rest of the record is).
        if (jr.errors.empty() && r.contains("kind") && r.value("kind", std::string()) != "scenario_run"
            && r.value("ok", true) && report.cases.size() == before + 1 && !r.contains("peak_reserved_mib"))
            report.problems.push_back({where + ".peak_reserved_mib", "missing; memory_total_gib not scored for this record"});
    }
}

} // namespace

ValidationReport predictSet(const ValidationSet& set, const Calibration* calibration)
{
    ValidationReport report;
    EstimateOptions options{false};
    options.calibration = calibration;
    for (std::size_t i = 0; i < set.cases.size(); ++i) {
        const std::size_t from = report.rows.size();
        set.cases[i].predict(options, report.rows);
        for (std::size_t k = from; k < report.rows.size(); ++k)
            report.rows[k].caseIndex = int(i);
    }
    report.skipped = set.skipped;
    for (const auto& d : set.problems)
        report.skipped.push_back(d.text());
    summarize(report);
    return report;
}

void validateText(const std::string& text, const std::string& origin, const Catalog& catalog, ValidationReport& report)
{
    ValidationSet set;
    loadText(text, origin, catalog, set);
    if (!set.problems.empty()) {
        report.skipped.insert(report.skipped.end(), set.skipped.begin(), set.skipped.end());
        throw BadRecords(std::move(set.problems));
    }
    const ValidationReport part = predictSet(set);
    report.rows.insert(report.rows.end(), part.rows.begin(), part.rows.end());
    report.skipped.insert(report.skipped.end(), part.skipped.begin(), part.skipped.end());
}

void loadValidationText(const std::string& text, const std::string& origin, const Catalog& catalog, ValidationSet& set)
{
    loadText(text, origin, catalog, set);
}

ValidationSet loadValidationSet(const std::vector<std::string>& dirs, const Catalog& catalog,
                                const std::vector<std::string>& familyDirs)
{
    namespace fs = std::filesystem;
    ValidationSet set;
    std::vector<std::string> all = dirs;
    all.insert(all.end(), familyDirs.begin(), familyDirs.end());
    for (std::size_t di = 0; di < all.size(); ++di) {
        const std::string& dir = all[di];
        const bool familyOnly = di >= dirs.size();
        std::error_code ec;
        if (!fs::is_directory(dir, ec))
            throw InputError(dir, "not a directory");
        // Every *.json name, whatever it is: the reader says why one cannot be
        // read (a symlink loop, mode 000, a FIFO, 2 GiB), and never throws here.
        std::vector<fs::path> files;
        fs::directory_iterator it(dir, ec);
        for (; !ec && it != fs::directory_iterator(); it.increment(ec))
            if (it->path().extension() == ".json")
                files.push_back(it->path());
        if (ec)
            throw InputError(dir, "cannot read: " + ec.message());
        std::sort(files.begin(), files.end());
        for (const auto& f : files) {
            const std::size_t before = set.cases.size();
            const std::string name = f.filename().string();
            try {
                loadText(readTextFileBounded(f.string()), name, catalog, set);
            } catch (const InputError& e) {
                // The whole file is skipped: named, with why (path = the file).
                for (const auto& d : e.problems())
                    set.problems.push_back({(fs::path(dir) / name).generic_string(),
                                            d.path.empty() || d.path == f.string() || d.path == name
                                                ? d.message + "; file skipped"
                                                : d.path + ": " + d.message + "; file skipped"});
            }
            for (std::size_t i = before; i < set.cases.size(); ++i)
                set.cases[i].familyOnly = familyOnly;
            if (set.cases.size() > before)
                set.sources.push_back((fs::path(dir) / f.filename()).generic_string() + ": " +
                                      std::to_string(set.cases.size() - before) + " records");
        }
    }
    return set;
}

ValidationReport validateDirectory(const std::string& dir, const Catalog& catalog)
{
    return predictSet(loadValidationSet({dir}, catalog));
}

} // namespace gp
