#include "core/estimate/estimate.h"

#include "core/calibration/calibration.h"
#include "core/estimate/confidence.h"
#include "core/hardware/catalog.h"
#include "core/hardware/mig.h"
#include "core/estimate/sizing.h"
#include "core/base/units.h"

#include <algorithm>
#include <cmath>

namespace gp {

namespace detail {

namespace {

DType trainCompute(TrainPrecision p)
{
    switch (p) {
    case TrainPrecision::FP32: return DType::FP32;
    case TrainPrecision::TF32: return DType::TF32;
    case TrainPrecision::AmpBF16:
    case TrainPrecision::BF16: return DType::BF16;
    case TrainPrecision::AmpFP16: return DType::FP16;
    case TrainPrecision::FP8: return DType::FP8;
    }
    return DType::BF16;
}

} // namespace

Plan makePlan(const Scenario& s, const Gpu& gpu, bool explain, const Calibration* calibration)
{
    Plan p;
    p.explain = explain;
    p.cal = calibration ? calibration : &builtinCalibration();
    p.s = &s;
    p.gpu = &gpu;
    p.m = &s.model;
    p.training = s.mode == Mode::Training;
    if (s.model.isLanguageModel()) {
        p.linears = layerLinears(s.model);
        p.loadedParams = s.model.loadedParams();
        p.embeddingParams = s.model.embeddingParams();
        if (p.training && s.training.method != TrainMethod::Full)
            markLoraTargets(p, s.training.loraTargets);
    }
    setGpuTraits(p, gpu);
    // A serving engine decodes in CUDA graphs with fused kernels, like `optimized`;
    // what it adds (paged KV, chunked prefill, continuous batching) is for
    // language models: a vision model under `serving` runs as `optimized`.
    p.optimized = s.runtime == Runtime::Optimized || s.runtime == Runtime::Serving;
    p.serving = s.runtime == Runtime::Serving && s.mode == Mode::Inference && s.model.isLanguageModel();
    p.count = s.hardware.count;
    p.tp = s.hardware.tp;
    p.pp = s.hardware.pp;
    p.dp = std::max(1, p.count / std::max(1, p.tp * p.pp));
    p.zero = s.hardware.zero;
    // HSDP: shard inside groups of shard_group GPUs, replicate across groups (a
    // group that does not divide dp, as a planner layout may give, shards over all).
    const int group = s.hardware.shardGroup;
    p.shard = p.zero > 0 && group > 0 && group < p.dp && p.dp % group == 0 ? group : p.dp;

    if (p.training) {
        TrainPrecision prec = s.training.precision;
        // Capability fallbacks, each reported.
        if (prec == TrainPrecision::FP8 && !gpu.supports(DType::FP8)) {
            p.notes.push_back(gpu.name + " has no FP8 tensor cores (Hopper/Ada or newer needed): estimated with amp_bf16.");
            prec = TrainPrecision::AmpBF16;
        }
        if ((prec == TrainPrecision::AmpBF16 || prec == TrainPrecision::BF16) && !gpu.supports(DType::BF16)) {
            // Pure fp16 training diverges without loss scaling; the usable fallback is AMP fp16.
            p.notes.push_back(gpu.name + " has no BF16: estimated with amp_fp16 (fp32 master weights, loss scaling).");
            prec = TrainPrecision::AmpFP16;
        }
        if (prec == TrainPrecision::TF32 && !gpu.supports(DType::TF32)) {
            p.notes.push_back(gpu.name + " has no TF32: estimated with fp32.");
            prec = TrainPrecision::FP32;
        }
        if (prec == TrainPrecision::AmpFP16 && !gpu.supports(DType::FP16)) {
            p.notes.push_back(gpu.name + " has no FP16 matmul rate listed: estimated with fp32.");
            prec = TrainPrecision::FP32;
        }
        p.precision = prec;
        p.compute = trainCompute(prec);
        switch (prec) {
        case TrainPrecision::FP32:
        case TrainPrecision::TF32:
            p.weightBytes = p.gradBytes = p.stateBytes = 4;
            p.actBytes = p.residualBytes = 4;
            p.autocast = false;
            break;
        case TrainPrecision::BF16:
            p.weightBytes = p.gradBytes = p.stateBytes = 2;
            p.actBytes = p.residualBytes = 2;
            p.autocast = false;
            break;
        case TrainPrecision::AmpBF16:
        case TrainPrecision::AmpFP16:
        case TrainPrecision::FP8:
            p.weightBytes = p.gradBytes = p.stateBytes = 4;
            p.actBytes = 2;
            p.residualBytes = 4;
            p.autocast = true;
            break;
        }
        if (s.training.method != TrainMethod::Full) {
            // Frozen base in 16-bit, adapters in fp32 (peft's default): no autocast
            // weight copies of the base.
            p.autocast = p.autocast && s.training.precision != TrainPrecision::BF16;
        }
    } else {
        InferPrecision prec = s.inference.precision;
        if (s.inference.checkpointWeights) {
            // precision "checkpoint": FP8 checkpoints compute in FP8 where the GPU
            // has it (vLLM's block-FP8 GEMMs); MXFP4 experts (gpt-oss on Hopper:
            // Triton MoE kernels dequantize in the matmul), AWQ/GPTQ/bitsandbytes
            // and unquantized checkpoints compute in 16-bit.
            const QuantKind q = s.model.quant.kind;
            prec = q == QuantKind::FP8Block || q == QuantKind::FP8 ? InferPrecision::FP8 : InferPrecision::BF16;
            if (explain)
                p.notes.push_back("precision checkpoint: weights as " + s.model.name + " stores them (" +
                                  (s.model.quant.quantized() ? s.model.quant.label() : std::string("unquantized")) +
                                  "), computed in " + (prec == InferPrecision::FP8 ? "FP8 where the GPU has it" : "16-bit") +
                                  "; KV cache in BF16 unless kv_precision says otherwise.");
        }
        p.inferPrecision = prec;
        p.actBytes = 2;
        switch (prec) {
        case InferPrecision::FP32:
            p.compute = DType::FP32;
            p.actBytes = 4;
            break;
        case InferPrecision::FP16: p.compute = DType::FP16; break;
        case InferPrecision::BF16:
            p.compute = DType::BF16;
            if (!gpu.supports(DType::BF16)) {
                p.notes.push_back(gpu.name + " has no BF16: estimated with fp16.");
                p.compute = DType::FP16;
            }
            break;
        case InferPrecision::FP8:
            if (gpu.supports(DType::FP8)) {
                p.compute = DType::FP8;
            } else {
                p.compute = gpu.supports(DType::BF16) ? DType::BF16 : DType::FP16;
                p.notes.push_back(gpu.name + " has no FP8 tensor cores: FP8 weights are dequantized to 16-bit in the "
                                             "matmul (weight-only, e.g. Marlin); compute runs at the 16-bit rate.");
            }
            break;
        case InferPrecision::INT8:
        case InferPrecision::INT4:
            // Weight-only quantization (GPTQ/AWQ/bitsandbytes class): 16-bit compute.
            p.compute = gpu.supports(DType::BF16) ? DType::BF16 : DType::FP16;
            break;
        case InferPrecision::FP4:
            // NVFP4 weights: FP4 tensor cores where the catalog lists an FP4 rate
            // (Blackwell), else weight-only (dequantized to 16-bit in the matmul).
            if (gpu.supports(DType::FP4)) {
                p.compute = DType::FP4;
            } else {
                p.compute = gpu.supports(DType::BF16) ? DType::BF16 : DType::FP16;
                p.notes.push_back(gpu.name + " has no FP4 tensor cores (Blackwell needed): FP4 weights are dequantized "
                                             "to 16-bit in the matmul (weight-only); compute runs at the 16-bit rate, "
                                             "decode reads 4.5 bits per weight.");
            }
            break;
        }
        // Default KV format: the weights' one, except INT4 weights keep an FP16
        // cache and FP4 weights an FP8 one (FP16 where the GPU has no FP8).
        InferPrecision kvDefault = s.inference.checkpointWeights ? InferPrecision::BF16 : prec;
        if (prec == InferPrecision::INT4)
            kvDefault = InferPrecision::FP16;
        else if (prec == InferPrecision::FP4)
            kvDefault = gpu.supports(DType::FP8) ? InferPrecision::FP8 : InferPrecision::FP16;
        InferPrecision kv = s.inference.kvPrecision.value_or(kvDefault);
        switch (kv) {
        case InferPrecision::FP32: p.kvBytes = 4; break;
        case InferPrecision::FP16:
        case InferPrecision::BF16: p.kvBytes = 2; break;
        case InferPrecision::FP8:
        case InferPrecision::INT8: p.kvBytes = 1; break;
        case InferPrecision::INT4:
        case InferPrecision::FP4: p.kvBytes = 0.5; break; // FP4 is refused as kv_precision (validateScenario)
        }
        if (!p.optimized && s.model.isLanguageModel())
            p.notes.push_back("Eager generate() (HF transformers) is bound by the host, not the GPU: measured ~80 ms per "
                              "output token on an H100 for both a 1.1B and an 8B model. Serve with an optimized engine "
                              "(vLLM, TensorRT-LLM, SGLang) to get the GPU's speed.");
        if (p.serving && explain)
            p.notes.push_back("Serving engine: TTFT is one new request's prompt, prefilled in chunks beside the decode "
                              "of the other running sequences; TPOT includes the batch's prefill interleaved with decode "
                              "(continuous batching); memory is what the engine needs (paged KV cache), not what "
                              "gpu_memory_utilization preallocates. Speeds are a tuned engine's (TensorRT-LLM, or "
                              "vLLM/SGLang as MLPerf submitters tune them).");
        // Serving speeds stand for a tuned engine (TensorRT-LLM, or vLLM/SGLang as MLPerf submitters
        // tune them). Where the published rows show that a stock vLLM container reaches less
        // (the family's fitted vllm_stock_scale, below 1), the user is told how much less.
        if (p.serving && s.model.isLanguageModel()) {
            const double stock = p.cal->family(gpu).vllmStock;
            if (stock < 0.995)
                p.notes.push_back("Stock vLLM on " + std::string(archFamilyLabel(archFamily(gpu))) +
                                  ": these speeds are a tuned engine's (TensorRT-LLM, or vLLM/SGLang tuned as in MLPerf "
                                  "submissions); the published offline runs of stock vLLM containers reached " +
                                  fmt(stock, 2) + "x of it, so expect about " + fmt(stock, 2) +
                                  "x these tokens/s with a stock vLLM image.");
        }
    }
    if (gpu.isTpu())
        p.notes.push_back("TPU: estimated with the same roofline model (JAX/XLA, no CUDA context); calibration runs were "
                          "on NVIDIA GPUs, so the uncertainty is larger.");
    else if (p.amd)
        p.notes.push_back("AMD Instinct: ROCm kernels reach a lower share of peak than CUDA on many shapes; uncertainty "
                          "is larger than for NVIDIA parts.");
    else if (gpu.vendor == "Intel")
        p.notes.push_back("Intel Gaudi: SynapseAI graph mode; uncertainty is larger than for NVIDIA parts.");
    return p;
}

std::optional<Gpu> migSliceFor(const Scenario& s, const Gpu& whole, const MigProfile** profile)
{
    if (s.hardware.mig.empty())
        return std::nullopt;
    const MigProfile* found = findMigProfile(whole, s.hardware.mig);
    if (!found)
        throw InputError("hardware.mig", migUnsupportedMessage(whole, s.hardware.mig));
    if (profile)
        *profile = found;
    return migSlice(whole, *found);
}

double jobCapacityBytes(const Plan& p, const Gpu& gpu)
{
    const double usable = gpu.memoryGb * units::kGiB * p.cal->usableMemoryFraction;
    return p.serving ? usable * p.s->inference.memoryFraction : usable;
}

} // namespace detail

namespace {

struct Price {
    double perGpuHour = 0;
    std::string note;
};

Price pricePerGpuHour(const Scenario& s, const Gpu& g)
{
    const auto& pr = g.pricePerHour;
    Price out;
    switch (s.pricing.model) {
    case PricingModel::OnDemand:
        out.perGpuHour = pr.typical;
        break;
    case PricingModel::Spot:
        if (pr.spot) {
            out.perGpuHour = *pr.spot;
        } else {
            out.perGpuHour = pr.typical;
            if (pr.typical > 0)
                out.note = "No spot price listed for " + g.name + ": on-demand price used.";
        }
        break;
    case PricingModel::Reserved:
        // 1-3 year commitments list 35-45% below on-demand at the large providers.
        out.perGpuHour = pr.typical * 0.6;
        if (pr.typical > 0)
            out.note = "Reserved = 60% of the typical on-demand price (1-3 year commitment).";
        break;
    case PricingModel::Purchase:
        if (g.purchaseUsd > 0) {
            const double hours = s.pricing.amortizationYears * 8760 * s.pricing.utilization;
            const double energy = g.tdpW / 1000 * s.pricing.pue * s.pricing.electricityUsdPerKwh;
            const double hosting = s.pricing.hostingUsdPerGpuYear / (8760 * s.pricing.utilization);
            out.perGpuHour = g.purchaseUsd / hours + energy + hosting;
        } else {
            out.note = "No purchase price listed for " + g.name + ".";
        }
        return out;
    }
    if (out.perGpuHour <= 0)
        out.note = "No rental price listed for " + g.name + ".";
    return out;
}

GpuEstimate estimateWith(const Scenario& s, const Gpu& whole, const EstimateOptions& options, const Calibration* calibration)
{
    const MigProfile* profile = nullptr;
    const std::optional<Gpu> slice = detail::migSliceFor(s, whole, &profile);
    const Gpu& gpu = slice ? *slice : whole;
    detail::Plan plan = detail::makePlan(s, gpu, options.explain, calibration);
    if (profile)
        plan.notes.push_back(migSliceNote(whole, *profile));
    GpuEstimate e;
    e.gpuId = whole.id;
    e.gpuName = gpu.name;
    e.count = plan.count;
    e.capacityBytes = detail::jobCapacityBytes(plan, gpu);
    e.approximate = s.model.approximate;
    e.computePrecision = std::string(dtypeName(plan.compute));

    e.memory = plan.training ? detail::trainingMemory(plan) : detail::inferenceMemory(plan);
    e.fits = e.memory.total() <= e.capacityBytes;
    plan.term("memory.total", "Total at the peak", units::bytesToGiB(e.memory.total()), "GiB",
              [&] { return std::string("weights + gradients + optimizer + activations + KV cache + overhead; capacity " +
                  detail::fmtGiB(e.capacityBytes)); });
    if (!e.fits)
        e.targetMisses.push_back("needs " + detail::fmtGiB(e.memory.total()) + " per GPU, has " +
                                 detail::fmtGiB(e.capacityBytes));

    const Price price = pricePerGpuHour(s, gpu);
    if (!price.note.empty())
        plan.notes.push_back(price.note);
    e.usdPerHour = price.perGpuHour * plan.count;
    // Rent: idle paid hours count against the job (divide by utilization);
    // purchase already spreads the capital over the used hours.
    const double effectiveUsdPerHour =
        s.pricing.model == PricingModel::Purchase ? e.usdPerHour : e.usdPerHour / s.pricing.utilization;

    if (plan.training) {
        TrainingResult r = detail::trainingPerformance(plan);
        const auto& t = s.training;
        double work = 0;
        double rate = 0;
        if (t.datasetTokens && s.model.isLanguageModel()) {
            work = *t.datasetTokens * t.epochs;
            rate = r.tokensPerS;
        } else if (t.datasetSamples) {
            work = *t.datasetSamples * t.epochs;
            rate = r.samplesPerS;
        } else if (t.datasetTokens && !s.model.isLanguageModel()) {
            plan.notes.push_back("dataset_tokens does not apply to a vision model: give dataset_samples.");
        }
        if (work > 0 && rate > 0) {
            r.hours = work / rate / 3600;
            if (s.pricing.model == PricingModel::Spot) {
                // Preemptions: restart from the last checkpoint.
                *r.hours *= 1.15;
                plan.notes.push_back("Spot: +15% time for restarts from the last checkpoint after preemptions.");
            }
            if (effectiveUsdPerHour > 0)
                r.costUsd = *r.hours * effectiveUsdPerHour;
            plan.term("cost.hours", "Time to train", *r.hours, "h",
                      [&] { return std::string(detail::fmt(work) + (s.model.isLanguageModel() ? " tokens" : " samples") + " / " +
                          detail::fmt(rate) + " per s / 3600"); });
            if (r.costUsd)
                plan.term("cost.total", "Cost to train", *r.costUsd, "USD",
                          [&] { return std::string(detail::fmt(*r.hours) + " h x $" + detail::fmt(e.usdPerHour) + "/h" +
                              (s.pricing.model == PricingModel::Purchase
                                   ? std::string(" (owned: amortization + energy)")
                                   : " / utilization " + detail::fmt(s.pricing.utilization))); });
        }
        if (t.targets.deadlineHours && r.hours && *r.hours > *t.targets.deadlineHours)
            e.targetMisses.push_back("takes " + detail::fmtReadable(*r.hours) + " h, deadline " +
                                     detail::fmtReadable(*t.targets.deadlineHours) + " h");
        if (t.targets.budgetUsd && r.costUsd && *r.costUsd > *t.targets.budgetUsd)
            e.targetMisses.push_back("costs $" + detail::fmtReadable(*r.costUsd) + ", budget $" +
                                     detail::fmtReadable(*t.targets.budgetUsd));
        plan.term("perf.step", "Step time", r.stepMs, "ms", [&] { return std::string("per optimizer step (micro_batch x grad_accum per GPU)"); });
        e.training = r;
    } else {
        InferenceResult r = detail::inferencePerformance(plan);
        if (s.pricing.model == PricingModel::Spot)
            plan.notes.push_back("Serving on spot capacity is risky: instances can be reclaimed at any time.");
        const auto& tg = s.inference.targets;
        if (r.tokensPerS && *r.tokensPerS > 0 && effectiveUsdPerHour > 0) {
            r.usdPerMillionTokens = effectiveUsdPerHour / (*r.tokensPerS * 3600) * 1e6;
            plan.term("cost.per_million", "Cost per million output tokens", *r.usdPerMillionTokens, "USD",
                      [&] { return std::string("$" + detail::fmt(effectiveUsdPerHour) + "/h / (" + detail::fmt(*r.tokensPerS) +
                          " tokens/s x 3600) x 1e6"); });
        }
        if (tg.ttftMs && r.ttftMs && *r.ttftMs > *tg.ttftMs)
            e.targetMisses.push_back("TTFT " + detail::fmtReadable(*r.ttftMs) + " ms > target " + detail::fmtReadable(*tg.ttftMs) + " ms");
        if (tg.ttftP99Ms && r.ttftP99Ms && *r.ttftP99Ms > *tg.ttftP99Ms)
            e.targetMisses.push_back("TTFT p99 " + detail::fmtReadable(*r.ttftP99Ms) + " ms > target " +
                                     detail::fmtReadable(*tg.ttftP99Ms) + " ms");
        if (tg.tpotMs && r.tpotMs && *r.tpotMs > *tg.tpotMs)
            e.targetMisses.push_back("TPOT " + detail::fmtReadable(*r.tpotMs) + " ms > target " + detail::fmtReadable(*tg.tpotMs) + " ms");
        if (tg.requestsPerS) {
            double served = 0;
            if (r.tokensPerS)
                served = *r.tokensPerS / s.inference.outputTokens;
            else if (r.samplesPerS)
                served = *r.samplesPerS;
            if (served < *tg.requestsPerS)
                e.targetMisses.push_back("serves " + detail::fmt(served) + " requests/s < target " +
                                         detail::fmt(*tg.requestsPerS) + " (needs about " +
                                         detail::fmt(std::ceil(*tg.requestsPerS / std::max(served, 1e-9)), 4) +
                                         " replicas)");
        }
        e.inference = r;
    }
    e.meetsTargets = e.targetMisses.empty();
    e.uncertainty = detail::uncertaintyFor(plan);
    if (const std::string why = unmeasuredBandNote(e.uncertainty, *plan.cal); !why.empty())
        plan.notes.push_back(why);
    fillConfidence(s, e);
    e.notes = std::move(plan.notes);
    e.terms = std::move(plan.terms);
    return e;
}

} // namespace

GpuEstimate estimateOn(const Scenario& s, const Gpu& gpu, const EstimateOptions& options)
{
    return estimateWith(s, gpu, options, options.calibration);
}

GpuEstimate estimateOn(const Scenario& s, const Gpu& gpu, const EstimateOptions& options, const Calibration& calibration)
{
    return estimateWith(s, gpu, options, &calibration);
}

ModelFacts modelFacts(const Scenario& s)
{
    ModelFacts f;
    f.params = s.model.totalParams();
    f.activeParams = s.model.isLanguageModel() ? s.model.modelCardActiveParams() : f.params;
    if (s.mode == Mode::Inference && s.model.family == ModelFamily::Decoder) {
        // The GPU-independent default KV format (estimateOn's, FP8 assumed for FP4 weights).
        InferPrecision kv = s.inference.checkpointWeights ? InferPrecision::BF16 : s.inference.precision;
        if (kv == InferPrecision::INT4)
            kv = InferPrecision::FP16;
        else if (kv == InferPrecision::FP4)
            kv = InferPrecision::FP8;
        kv = s.inference.kvPrecision.value_or(kv);
        const double bytes = kv == InferPrecision::FP32                                 ? 4
                           : kv == InferPrecision::FP8 || kv == InferPrecision::INT8 ? 1
                           : kv == InferPrecision::INT4 || kv == InferPrecision::FP4 ? 0.5
                                                                                      : 2;
        f.kvBytesPerSequence =
            s.model.kvBytesPerSequence(double(s.inference.promptTokens) + s.inference.outputTokens, bytes);
    }
    return f;
}

Estimate estimate(const Scenario& s, const Catalog& catalog, const EstimateOptions& options)
{
    Estimate out;
    out.scenario = s.name;
    out.confidence = s.hardware.confidence;
    out.model = modelFacts(s);
    if (s.hardware.gpus.empty() && !s.hardware.mig.empty())
        throw InputError("hardware.mig", "needs hardware.gpus to name GPUs with MIG (e.g. nvidia-h100-sxm): \"all\" "
                                         "includes GPUs without it");
    if (s.hardware.gpus.empty()) {
        for (const auto& g : catalog.gpus())
            out.results.push_back(estimateOn(s, g, options));
        return out;
    }
    std::vector<Diagnostic> problems;
    for (std::size_t i = 0; i < s.hardware.gpus.size(); ++i) {
        const auto& id = s.hardware.gpus[i];
        if (!catalog.find(id))
            problems.push_back({"hardware.gpus[" + std::to_string(i) + "]",
                                catalog.unknownIdMessage(id)});
    }
    if (problems.empty() && !s.hardware.mig.empty()) {
        for (const auto& id : s.hardware.gpus)
            if (const Gpu* g = catalog.find(id); !findMigProfile(*g, s.hardware.mig))
                problems.push_back({"hardware.mig", migUnsupportedMessage(*g, s.hardware.mig)});
    }
    if (!problems.empty())
        throw InputError(std::move(problems));
    for (const auto& id : s.hardware.gpus)
        out.results.push_back(estimateOn(s, *catalog.find(id), options));
    return out;
}

} // namespace gp
