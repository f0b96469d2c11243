// validate / calibrate: the records `gpuplanner-cli record` writes (kind
// "scenario_run"): a scenario rebuilt from a serving or training log and what
// the log measured. Metrics:
//   serving_non_kv_gib     (scored, the memory bound): weights + activations +
//                          overhead per GPU, as the vLLM log implies it:
//                          gpu_memory_utilization x GPU memory (engineTotalBytes) - the KV cache memory it reports
//   vllm_kv_cache_tokens, vllm_max_concurrency: what vLLM logged at start vs
//                          launch's prediction (core/engines/launch.h predictVllmKv)
//   serving_ttft_ms, serving_tpot_ms, serving_output_tokens_per_s: `vllm bench serve` means
//   memory_total_gib, train_tokens_per_s, vision_images_per_s: torchtune / HF Trainer logs
#include "core/fit/validaterecorded.h"

#include "core/calibration/calibration.h"
#include "core/hardware/catalog.h"
#include "core/base/errors.h"
#include "core/estimate/estimate.h"
#include "core/engines/launch.h"
#include "core/scenario/scenario.h"
#include "core/base/units.h"

#include <cmath>

namespace gp::detail {

using nlohmann::json;

namespace {

double num(const json& m, const char* key)
{
    const auto it = m.find(key);
    return it != m.end() && it->is_number() ? it->get<double>() : 0;
}

std::string familyOf(const ModelArch& m)
{
    if (m.family == ModelFamily::Vision)
        return m.id.find("vit") != std::string::npos ? "ViT" : "CNN";
    if (m.family == ModelFamily::Encoder)
        return "encoder";
    return m.moe.enabled() ? "MoE" : "decoder LLM";
}

} // namespace

void addRecordedRun(const json& r, const Catalog& catalog, ValidationSet& set)
{
    const std::string name = r.value("name", std::string("recorded"));
    const std::string format = r.value("log_format", std::string());
    if (!r.contains("scenario") || !r["scenario"].is_object() || !r.contains("measured") || !r["measured"].is_object()) {
        set.skipped.push_back(name + ": a scenario_run record needs the objects \"scenario\" and \"measured\"");
        return;
    }
    Scenario s;
    try {
        s = parseScenario(r["scenario"].dump()).scenario;
    } catch (const InputError& e) {
        set.skipped.push_back(name + ": scenario: " + e.what());
        return;
    }
    if (s.hardware.gpus.size() != 1 || !catalog.find(s.hardware.gpus.front())) {
        set.skipped.push_back(name + ": the scenario must name one catalog GPU");
        return;
    }
    const Gpu gpu = *catalog.find(s.hardware.gpus.front());
    const json m = r["measured"];
    s.name = name;
    ValidationCase c{name, gpu.id, familyOf(s.model), archFamilyId(archFamily(gpu)), false, {}, s.mode == Mode::Training};
    c.fp8Training = s.mode == Mode::Training && s.training.precision == TrainPrecision::FP8;
    auto row = [name, gid = gpu.id](std::vector<ValidationRow>& rows, const char* metric, double predicted, double measured) {
        if (measured > 0 && std::isfinite(measured) && std::isfinite(predicted))
            rows.push_back({name, gid, metric, predicted, measured});
    };
    if (format == "vllm-server") {
        const double fraction = num(m, "gpu_memory_utilization") > 0 ? num(m, "gpu_memory_utilization") : kVllmDefaultMemoryFraction;
        // The measured non-KV memory, fixed once with the built-in constants
        // (the GPU's memory and the KV bytes per token do not depend on a fit).
        LaunchTarget t0{s, gpu, estimateOn(s, gpu, EstimateOptions{false}), 1, name};
        const double perToken = kvBytesPerTokenPerGpu(t0);
        const double kvBytes = num(m, "available_kv_cache_gib") > 0 ? num(m, "available_kv_cache_gib") * units::kGiB
                                                                     : num(m, "kv_cache_tokens") * perToken;
        const double nonKv = kvBytes > 0 ? (fraction * engineTotalBytes(t0) - kvBytes) / units::kGiB : 0;
        const double tokens = num(m, "kv_cache_tokens");
        const double concurrency = num(m, "max_concurrency");
        c.predict = [s, gpu, fraction, nonKv, tokens, concurrency, row](const EstimateOptions& o, std::vector<ValidationRow>& rows) {
            LaunchTarget t{s, gpu, estimateOn(s, gpu, o), 1, s.name};
            const KvStartup k = predictVllmKv(t, fraction);
            row(rows, "serving_non_kv_gib", k.nonKvBytes / units::kGiB, nonKv);
            row(rows, "vllm_kv_cache_tokens", double(k.kvTokens), tokens);
            row(rows, "vllm_max_concurrency", k.maxConcurrency, concurrency);
        };
    } else if (format == "vllm-bench") {
        c.predict = [s, gpu, m, row](const EstimateOptions& o, std::vector<ValidationRow>& rows) {
            const GpuEstimate e = estimateOn(s, gpu, o);
            if (!e.inference)
                return;
            row(rows, "serving_ttft_ms", e.inference->ttftMs.value_or(NAN), num(m, "ttft_ms"));
            row(rows, "serving_tpot_ms", e.inference->tpotMs.value_or(NAN), num(m, "tpot_ms"));
            row(rows, "serving_output_tokens_per_s", e.inference->tokensPerS.value_or(NAN), num(m, "output_tokens_per_s"));
        };
    } else if (format == "torchtune") {
        const double reserved = num(m, "peak_memory_reserved_gib");
        const double tokens = num(m, "tokens_per_second_per_gpu") * s.hardware.count;
        c.predict = [s, gpu, reserved, tokens, row](const EstimateOptions& o, std::vector<ValidationRow>& rows) {
            const double context = (o.calibration ? *o.calibration : builtinCalibration()).contextCudaMib / 1024;
            const GpuEstimate e = estimateOn(s, gpu, o);
            // torch's reserved peak holds no CUDA context; nvidia-smi's total does.
            row(rows, "memory_total_gib", units::bytesToGiB(e.memory.total()), reserved > 0 ? reserved + context : 0);
            if (e.training)
                row(rows, "train_tokens_per_s", e.training->tokensPerS, tokens);
        };
    } else if (format == "hf-trainer") {
        const double samples = num(m, "train_samples_per_s");
        c.predict = [s, gpu, samples, row](const EstimateOptions& o, std::vector<ValidationRow>& rows) {
            const GpuEstimate e = estimateOn(s, gpu, o);
            if (!e.training)
                return;
            if (s.model.isLanguageModel())
                row(rows, "train_tokens_per_s", e.training->tokensPerS, samples * s.training.seqLen);
            else
                row(rows, "vision_images_per_s", e.training->samplesPerS, samples);
        };
    } else {
        set.skipped.push_back(name + ": unknown log_format \"" + format + "\"");
        return;
    }
    std::vector<ValidationRow> trial;
    try {
        c.predict(EstimateOptions{false}, trial);
    } catch (const std::exception& e) {
        set.skipped.push_back(name + ": " + e.what());
        return;
    }
    set.cases.push_back(std::move(c));
}

} // namespace gp::detail
