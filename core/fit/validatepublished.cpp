// Published records (published.json's shape: id, category, model_arch,
// hardware, software, metric, value) as validation cases.
#include "core/fit/validateparts.h"

#include "core/base/errors.h"
#include "core/base/units.h"
#include "core/calibration/calibration.h"
#include "core/engines/trtllmbench.h"
#include "core/estimate/memoryonly.h"
#include "core/hardware/catalog.h"

#include <algorithm>
#include <cmath>

namespace gp::detail::fitrecord {

namespace {

/// A fine-tuning framework's peak-memory row (torchtune's README tables), mapped
/// setting by setting from `software` (the recipe config at the cited commit):
/// the scenario keys of the same names where the spec has them; a setting the
/// spec has no key for (activation offloading, FSDP CPU offload) or a batch whose
/// size the data sets (unpacked, padded per batch) skips the row, named.
void validateTrainingMemory(const json& r, Scenario& s, const Gpu& gpu, ValidationSet& rep, const std::string& label)
{
    const json& sw = r.value("software", json::object());
    const json& other = sw.contains("other") && sw["other"].is_object() ? sw["other"] : json::object();
    const std::string optim = lower(sw.value("optimizer", std::string()));
    const std::string par = lower(sw.value("parallelism", std::string()));
    auto flag = [&](const char* key) {
        const auto it = other.find(key);
        return it != other.end() && it->is_boolean() && it->get<bool>();
    };
    if (flag("activation_offloading")) {
        rep.skipped.push_back(label + ": activation offloading (checkpointed layer inputs kept in host memory) "
                                      "has no scenario key; not modelled");
        return;
    }
    if (flag("fsdp_cpu_offload") || has(par, "cpu offload")) {
        rep.skipped.push_back(label + ": FSDP CPU offload (parameters, gradients and optimizer states in host "
                                      "memory) has no scenario key; not modelled");
        return;
    }
    if (other.contains("packed") && !flag("packed")) {
        rep.skipped.push_back(label + ": unpacked data padded per batch to its longest sample: the sequence "
                                      "length is set by the data set, not by a scenario");
        return;
    }
    s.mode = Mode::Training;
    s.runtime = flag("compile") ? Runtime::Optimized : Runtime::Eager;
    auto& t = s.training;
    t.microBatch = sw.value("micro_batch_per_gpu", 1);
    t.seqLen = r.value("model_arch", json::object()).value("seq_len", 2048);
    t.gradAccum = other.value("grad_accum", 1);
    const std::string mode = lower(r.value("mode", std::string()));
    t.method = has(mode, "qlora") ? TrainMethod::Qlora : has(mode, "lora") ? TrainMethod::Lora : TrainMethod::Full;
    // torchtune builds the model in cfg.dtype (bf16): weights, gradients and
    // optimizer states all bf16, no autocast and no fp32 master copy.
    t.precision = TrainPrecision::BF16;
    t.optimizer = has(optim, "8bit") ? Optimizer::AdamW8bit : Optimizer::AdamW;
    const std::string ac = lower(sw.value("activation_checkpointing", std::string("none")));
    t.checkpointing = has(ac, "selective") ? Checkpointing::Selective
                      : has(ac, "full")    ? Checkpointing::Full
                                           : Checkpointing::None;
    t.chunkedLoss = flag("chunked_loss");
    t.optimizerInBackward = flag("optimizer_in_backward");
    if (t.method != TrainMethod::Full) {
        t.loraRank = other.value("lora_rank", t.loraRank);
        // torchtune's lora_attn_modules (output_proj is HF's o_proj) and apply_lora_to_mlp.
        t.loraTargets.clear();
        if (const auto it = other.find("lora_targets"); it != other.end() && it->is_array())
            for (const auto& name : *it)
                if (name.is_string())
                    t.loraTargets.push_back(name == "output_proj" ? std::string("o_proj") : name.get<std::string>());
        if (flag("lora_mlp"))
            for (const char* mlp : {"gate_proj", "up_proj", "down_proj"})
                t.loraTargets.emplace_back(mlp);
    }
    // FSDP (torchtune's distributed recipes): full shard over the job's GPUs.
    s.hardware.zero = has(par, "fsdp") && s.hardware.count > 1 ? 3 : 0;
    // The statistic: PyTorch's caching-allocator counters (torchtune's
    // training.get_memory_stats: active_bytes.all.peak, max_memory_allocated):
    // the allocated tensors, without the CUDA context and the allocator's cache.
    // bitsandbytes' paged optimizers put their states in CUDA managed memory
    // (bitsandbytes/functional.py get_paged: cget_managed_ptr), which those
    // counters never see.
    const bool paged = has(optim, "paged");
    addCase(rep, s, gpu, [paged, value = num(r, "value")](const GpuEstimate& e, const auto& add) {
        const double allocated = e.memory.total() - e.memory.overhead - (paged ? e.memory.optimizer : 0);
        add("published_peak_memory_allocated_gib", units::bytesToGiB(allocated), value);
    });
}

} // namespace

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
    // A variant whose name maps to a catalog part but whose peak, bandwidth or
    // power the catalog does not hold (torchtitan's 96 GB HBM2e H100s at 500 W):
    // the record says why, and it is not scored against the catalog part.
    if (const auto it = hw.find("not_in_catalog"); it != hw.end() && it->is_string() && !it->get<std::string>().empty()) {
        rep.skipped.push_back(label + ": " + it->get<std::string>());
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
        if (const json& o = arch.value("other", json()); o.is_object() && o.value("tied_embeddings", false))
            m["tied_embeddings"] = true; // Llama 3.2 1B/3B: the head is the embedding table
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
            // LoRA fine-tunes (MLPerf llama2_70b_lora) and FP8 runs say so in mode / precision.
            s.training.precision = has(precision, "fp8") ? TrainPrecision::FP8 : TrainPrecision::AmpBF16;
            if (has(lower(r.value("mode", std::string())), "lora")) {
                s.training.method = TrainMethod::Lora;
                s.training.loraRank = rr.get(sw.value("other", json::object()), "software.other", "lora_rank", 16);
            }
            const std::string par = lower(sw.value("parallelism", std::string()));
            s.hardware.zero = has(par, "fsdp") || has(par, "zero-3") ? 3 : 0;
            const json& other = sw.value("other", json::object());
            if (other.is_object()) {
                s.hardware.tp = other.value("tp", 1);
                s.hardware.pp = other.value("pp", 1);
                s.training.gradAccum = other.value("grad_accum", 1);
                // torchtitan rows state torch.compile and Float8 linears: without
                // compile the model runs its PyTorch ops one kernel each (eager);
                // Float8 (torchao) runs the linears' GEMMs in FP8.
                if (const auto it = other.find("torch_compile"); it != other.end() && it->is_boolean())
                    s.runtime = it->get<bool>() ? Runtime::Optimized : Runtime::Eager;
                if (const auto it = other.find("float8"); it != other.end() && it->is_boolean() && it->get<bool>())
                    s.training.precision = TrainPrecision::FP8;
                // LLM Foundry's MPT runs name their attention kernel (attn_config.attn_impl).
                s.training.tritonAttention = other.value("attn_impl", std::string()) == "triton";
                // torchtitan's selective AC: 'op' or every N-th block (selective_ac_option).
                if (s.training.checkpointing == Checkpointing::Selective) {
                    const std::string sac = other.value("selective_ac_option", std::string());
                    if (sac == "op")
                        s.training.selectiveRecompute = -1;
                    else if (!sac.empty() && sac.find_first_not_of("0123456789") == std::string::npos && sac.size() < 4)
                        s.training.selectiveRecompute = std::max(1, std::stoi(sac));
                }
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
            explicitModel();
            validateTrainingMemory(r, s, *gpu, rep, label);
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
            // A stock vLLM offline benchmark (vLLM's benchmark_throughput, as AMD's ROCm
            // performance page runs it) reaches the family's vllm_stock_scale of the
            // tuned engines the serving model stands for; MLPerf submissions and the
            // TensorRT-LLM tables are tuned engines and keep 1.
            const bool stockVllm = category == "inference" && has(framework, "vllm");
            // trtllm-bench throughput sizes the engine itself when the command names
            // no limits (core/engines/trtllmbench.h): max_batch_size and max_num_tokens
            // from the run's ISL/OSL and memory; the PyTorch backend (1.x) also runs
            // the perf overview's CUDA graphs with padding and whole prompts.
            const bool trtllmBench = category == "inference" && has(framework, "tensorrt") && has(framework, "trtllm-bench");
            const TrtllmBackend backend = has(framework, "pytorch") ? TrtllmBackend::PyTorch : TrtllmBackend::TensorRtEngine;
            ValidationCase c{label, gpuId, familyOf(s), archFamilyId(archFamily(*gpu)), false, {}, s.mode == Mode::Training};
            c.predict = [s, g = *gpu, value = num(r, "value"), perGpu, stockVllm, trtllmBench,
                         backend](const EstimateOptions& o, Rows& rows) mutable {
                if (trtllmBench) {
                    // The engine's memory is the calibration in use's usable share of the GPU.
                    TrtllmBenchInput in;
                    in.model = &s.model;
                    in.precision = s.inference.precision;
                    in.kvBytesPerElement = s.inference.precision == InferPrecision::FP8 ||
                                                   s.inference.precision == InferPrecision::FP4
                                               ? 1.0
                                               : 2.0;
                    in.tp = s.hardware.tp;
                    in.pp = s.hardware.pp;
                    in.deviceMemoryGiB =
                        g.memoryGb * (o.calibration ? *o.calibration : builtinCalibration()).usableMemoryFraction;
                    in.inputLen = s.inference.promptTokens;
                    in.outputLen = s.inference.outputTokens;
                    in.backend = backend;
                    s.inference.engine = trtllmBenchLimits(in);
                }
                const double kvFraction = s.runtime == Runtime::Serving ? 0.95 : 1.0;
                if (s.runtime == Runtime::Serving) {
                    // The engine admits what its KV pool holds (core/estimate/servingload.h): the
                    // pool is kvFraction of the memory free after the weights and buffers,
                    // i.e. inference.memory_fraction = (others + kvFraction x free) / total.
                    s.inference.memoryFraction = 1.0;
                    s.inference.batch = 1;
                    const MemoryFit one = memoryOn(s, g, o); // memory only: estimateOn's, bit for bit
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
                // The engine gives its KV pool a fraction of the memory left free
                // after weights and buffers (trtllm-bench: kv_cache_free_gpu_mem_fraction 0.95).
                auto fits = [&](const MemoryBreakdown& m, double capacityBytes) {
                    const double others = m.total() - m.kvCache;
                    return !(others + m.kvCache * inUse / kvFraction > capacityBytes);
                };
                auto tryBatch = [&](std::size_t k, bool score) {
                    s.inference.batch = batches[k];
                    if (!score) {
                        // The bisection asks only whether the batch fits: the memory
                        // model alone (memoryonly.h), not the whole estimate.
                        const MemoryFit m = memoryOn(s, g, o);
                        return fits(m.memory, m.capacityBytes);
                    }
                    const GpuEstimate e = estimateOn(s, g, o);
                    if (!fits(e.memory, e.capacityBytes))
                        return false;
                    if (e.inference->tokensPerS && *e.inference->tokensPerS > best) {
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
                    // An engine that states its limits fills them: offline, every request is
                    // queued at once and it admits what its KV pool and max_batch_size hold.
                    const bool fills = s.inference.engine.maxBatch > 0;
                    for (std::size_t k = lo > 2 && !fills ? lo - 2 : std::max<std::size_t>(lo, 1); k <= lo && k > 0; ++k)
                        tryBatch(k, true);
                }
                if (stockVllm)
                    best *= (o.calibration ? *o.calibration : builtinCalibration()).family(g).vllmStock;
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

} // namespace gp::detail::fitrecord
