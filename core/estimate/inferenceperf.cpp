// Performance model of inference (the model itself: perfrates.cpp): prefill as
// one forward pass, decode as a roofline plus a per-layer floor, and a serving
// engine's continuous batching under load (servingload.h).
#include "core/estimate/perfparts.h"
#include "core/estimate/servingload.h"
#include "core/estimate/sizing.h"

#include "core/base/units.h"

#include <algorithm>
#include <cmath>

namespace gp::detail {

namespace {

/// Continuous batching with chunked prefill (runtime "serving") under load: the
/// `batch` users in the system (closed loop) or targets.requests_per_s (open
/// loop), queueing for prefill and for KV blocks included (servingload.h).
/// `forward(tokens, head, attnFlops)` times one pass; `decodeStep` is the decode
/// step of the whole batch, of which `kvReadS` reads its KV cache and
/// max(`weightReadS`, `gemmS`) streams the weights (`gemmS`: their GEMMs at the
/// batch's rows, `minRows` the smallest tile; `gemmAt(decoding)` the GEMM
/// efficiency at the rows of a step that decodes `decoding` sequences). Returns
/// the requests per second served.
template <class GemmAt, class Forward>
double servingLatency(Plan& p, InferenceResult& r, double decodeStep, double kvReadS, double weightReadS, double gemmS,
                      double rowCommS, double minRows, GemmAt&& gemmAt, Forward&& forward)
{
    const auto& inf = p.s->inference;
    const double batch = std::max(1, inf.batch);
    const double prompt = std::max(1, inf.promptTokens);
    const double kvPerSeq = kvReadS / batch;
    const double attnPrompt = attentionFlops(p, 1, prompt);
    EngineShape shape;
    shape.promptTokens = prompt;
    shape.outputTokens = std::max(1, inf.outputTokens);
    // The engine's own max_num_tokens where the run states it: per micro-batch, so a
    // round of pp micro-batches (the load model's step) carries pp times that.
    shape.chunkTokens = std::max(1.0, inf.engine.maxNumTokens > 0 ? double(inf.engine.maxNumTokens) * p.pp
                                                                   : p.cal->servingChunkTokens);
    shape.admitted = p.admitted;
    shape.wholePrompts = inf.engine.wholePrompts;
    // A step decodes `decoding` sequences (the decode roofline, its KV reads
    // scaled from the batch's) and carries `prefillTokens` prompt tokens (a
    // forward pass over them and the decodes, with their share of a prompt's
    // causal attention); a step is never faster than its decodes alone.
    // The decode step at `decoding` sequences: the weight roofline at its own
    // rows, its KV reads, and the rest of the batch's step (per-layer floor, TP).
    const double weightS = std::max(weightReadS, gemmS);
    const double rows = std::max(minRows, batch);
    // The TP all-reduces (rowCommS at the whole batch) carry one row per decoding sequence, as the KV reads do.
    // The GEMMs of a step that decodes fewer sequences than the batch (a full KV pool: the engine holds
    // `admitted`) do fewer FLOPs but at the efficiency of their fewer rows: fewer tiles fill the SMs.
    const double effBatch = gemmAt(batch);
    // Each step costs the engine host time per running sequence (sampling it, appending its token,
    // checking its stop, answering it: serving_step_s_per_seq) that the GPU's work does not hide; with
    // pipeline parallel each stage also relays a micro-batch's sampled tokens and updates its requests on
    // the host (serving_pp_host_s_per_seq): a round grows by both per sequence.
    const double hostPerSeq = p.cal->servingStepSPerSeq + (p.pp > 1 ? p.cal->servingPpHostSPerSeq : 0.0);
    // A step of `decoding` sequences whose GEMMs and all-reduces carry `rowsN` rows
    // (the KV reads and the host work stay the real sequences').
    auto decodeAt = [=](double decoding, double rowsN) {
        return decodeStep - weightS - kvReadS - rowCommS +
               std::max(weightReadS, gemmS * std::max(minRows, rowsN) / rows * effBatch / gemmAt(rowsN)) +
               rowCommS / batch * rowsN + (kvPerSeq + hostPerSeq) * decoding;
    };
    auto decodeOnly = [=](double decoding) { return decodeAt(decoding, decoding); };
    // CUDA graphs with padding (an engine that states its graph batch sizes): a step
    // that only decodes replays the graph of the next captured batch, dummy
    // sequences filling the rows; a step that carries a prompt runs without graph.
    // In the steady state a request's prompt rides in one step and it then decodes
    // for output_tokens steps, so decoding / output_tokens of the steps carry one.
    const std::vector<int>& graphs = inf.engine.graphBatchSizes;
    const double out = std::max(1, inf.outputTokens);
    const int stages = std::max(1, p.pp);
    auto paddedRows = [&graphs, stages](double decoding) {
        const double microRows = decoding / stages; // each micro-batch in flight replays its own graph
        const auto it = std::lower_bound(graphs.begin(), graphs.end(), microRows - 1e-9,
                                         [](int size, double v) { return double(size) < v; });
        return it == graphs.end() ? decoding : double(*it) * stages; // beyond the largest graph: eager, unpadded
    };
    auto decodeStepMean = [=](double decoding) {
        if (graphs.empty() || decoding < 1)
            return decodeOnly(decoding);
        const double prompted = std::min(1.0, decoding / out);
        return prompted * decodeOnly(decoding) + (1 - prompted) * decodeAt(decoding, paddedRows(decoding));
    };
    shape.step = [=, &forward](double prefillTokens, double decoding) {
        if (prefillTokens <= 0)
            return decodeStepMean(decoding);
        const double pass = forward(prefillTokens + decoding, 1 + decoding, attnPrompt * prefillTokens / prompt) +
                            (kvPerSeq + hostPerSeq) * decoding;
        return std::max(pass, decodeOnly(decoding));
    };
    shape.promptCost = [=, &forward](double prefillTokens, double decoding) {
        return forward(prefillTokens + decoding, 1 + decoding, attnPrompt * prefillTokens / prompt) -
               (decoding >= 1 ? forward(decoding, decoding, 0) : 0);
    };
    const LoadResult load = inf.targets.requestsPerS ? openLoop(shape, *inf.targets.requestsPerS)
                                                     : closedLoop(shape, inf.batch);
    r.ttftMs = load.ttftS * 1e3;
    r.ttftP99Ms = load.ttftP99S * 1e3;
    r.tpotMs = load.tpotS * 1e3;
    if (p.admitted >= 1)
        r.admitted = static_cast<int>(std::min(p.admitted, 1e9));
    if (load.saturated && p.explain)
        p.notes.push_back("The load of " + fmt(*inf.targets.requestsPerS) + " requests/s is above what this replica serves (" +
                          fmt(load.requestsPerS) + " requests/s with the engine full): the queue grows without bound; "
                          "TTFT shown with the engine full.");
    p.term("time.serving.ttft", "Serving: time to first token (mean, under load)", load.ttftS * 1e3, "ms", [&] {
        return std::string(inf.targets.requestsPerS ? "open loop at " + fmt(*inf.targets.requestsPerS) + " requests/s"
                                                    : "closed loop, " + std::to_string(inf.batch) + " users") +
               ": half a step " + " + KV-block wait " + fmt(load.kvWaitS * 1e3) + " ms + prefill queue and the prompt's "
               "own chunked prefill " + fmt(load.prefillS * 1e3) + " ms (chunk " + fmt(shape.chunkTokens) + " tokens, " +
               fmt(load.decoding) + " sequences decoding, prefill " + fmt(load.utilization * 100) + "% of engine time)";
    });
    p.term("time.serving.ttft_p99", "Serving: time to first token (p99)", load.ttftP99S * 1e3, "ms",
           [&] { return std::string("one step + KV-block wait + own prefill + the queue's p99 wait (M/G/1 heavy-traffic tail)"); });
    p.term("time.serving.tpot", "Serving: time per output token", load.tpotS * 1e3, "ms", [&] {
        return "decode step of " + fmt(load.decoding) + " sequences, stretched by the prompt tokens riding in the steps (" +
               fmt(load.utilization * 100) + "% of engine time)";
    });
    return load.requestsPerS;
}

} // namespace

InferenceResult inferencePerformance(Plan& p)
{
    const Scenario& s = *p.s;
    const ModelArch& m = *p.m;
    const auto& inf = s.inference;
    const Calibration& c = *p.cal;
    InferenceResult r;
    const double bw = bandwidth(p);

    if (!m.isLanguageModel()) {
        visionInference(p, r);
        return r;
    }

    const int layers = (m.layers + p.pp - 1) / p.pp;
    double f = double(m.ffnHidden);
    if (m.moe.enabled())
        f = double(m.moe.expertFfnHidden) * (m.moe.active + m.moe.shared);
    const double tk = p.optimized ? c.kernelSInferOptimized : c.kernelSInferEager;
    // HF's forward-only MoE block (router + grouped GEMMs) launches a fixed
    // number of kernels beyond the dense MLP, whatever the experts touched.
    const double moeForward = hfMoeForwardKernelsPerLayer(p);
    // Gated DeltaNet layers under HF's torch fallback: its chunked rule's
    // launches (a Python loop per chunk and one inside the chunk) and fp32 matmuls.
    const HfDeltaNet deltaPre = hfDeltaNetForward(p, inf.batch, inf.promptTokens, false);
    const double stageShare = double(layers) / std::max(1, m.layers);
    const double kernelsPre = (c.prefillKernelsLayerOptimized * layers *
                                   (p.optimized ? 1 : c.prefillKernelsLayerEager / c.prefillKernelsLayerOptimized) +
                               (moeForward * m.moeLayers() + deltaPre.kernels * m.linearLayers) * stageShare) * tk;
    const double deltaPreS = deltaPre.flops * m.linearLayers * stageShare / peak(p, DType::FP32);
    // One forward pass over `tokens` tokens (`head` of them need logits) whose
    // attention costs `attnFlops`: GEMMs, attention, elementwise traffic,
    // launches and the TP all-reduces, across every pipeline stage in turn.
    // HF's SDPA path on windowed layers past their window: the masked kernel
    // computes the whole s x s product at the FA2-class (mma.sync) rate.
    const MaskedAttention masked = hfMaskedAttention(p, inf.batch, inf.promptTokens);
    // Attention sinks under HF: eager attention, the scores materialized; its
    // products run as batched GEMMs and the softmax chain streams the scores.
    const EagerScores scores = hfEagerScores(p, inf.batch, inf.promptTokens);
    const double scoresS =
        scores.elements > 0
            ? scores.flops / 2 / (peak(p, p.compute) * gemmEff(p, p.compute, inf.promptTokens, inf.promptTokens, m.headDim)) +
                  scores.flops / 2 / (peak(p, p.compute) * gemmEff(p, p.compute, inf.promptTokens, m.headDim, inf.promptTokens)) +
                  scores.bytes / bw
            : 0;
    auto forwardSeconds = [&](double tokens, double head, double passAttnFlops, GemmWork& gemm, double& attnS) {
        gemm = forwardGemms(p, tokens, head, p.compute);
        attnS = scores.elements > 0 ? scoresS : passAttnFlops / attnRate(p, true);
        if (masked.layers > 0 && !p.serving)
            attnS += masked.flops / attnRate(p, false) - masked.replaced / attnRate(p, true);
        attnS += deltaPreS;
        // Norms, activation, residuals: ~ (8 h + 10 ffn) x 2 B written and read.
        // (fitted with the kernel cost on the three prefill runs: 4.4% mean error)
        const double ewBytes = c.prefillEwFactor * (8.0 * m.hidden + 10.0 * f) * 2 * tokens * layers / p.tp;
        double sec = gemm.seconds + attnS + ewBytes / bw + kernelsPre;
        // Weight-only quantized formats dequantize in the GEMM: compute stays 16-bit.
        if (p.tp > 1)
            sec += 2.0 * layers * (allReduceSeconds(p, tokens * m.hidden * 2, p.tp) + allReduceLatency(p, p.tp));
        // One batch crosses every pipeline stage in turn, its activations sent
        // from each stage to the next.
        return sec * p.pp + (p.pp - 1) * stageSendSeconds(p, tokens * m.hidden * 2 / p.tp);
    };
    // Prefill: one forward over batch x prompt tokens; logits for the last token only.
    const double attnF = attentionFlops(p, inf.batch, inf.promptTokens);
    GemmWork pre;
    double attn = 0;
    const double prefill = forwardSeconds(double(inf.batch) * inf.promptTokens, inf.batch, attnF, pre, attn);
    r.ttftMs = prefill * 1e3;
    // A serving engine pipelines the prefill too: with m = min(pp, batch)
    // micro-batches in flight the stages work in parallel, and the batch's
    // prefill occupies the pipeline (m + pp - 1) micro-batch stage times
    // instead of pp whole-batch ones (its throughput share; TTFT stays the
    // stages in turn).
    const double inFlight = p.serving && p.pp > 1 ? std::min(p.pp, inf.batch) : 1;
    const double prefillCycle = prefill * (inFlight + p.pp - 1) / (inFlight * p.pp);
    p.term("time.prefill.gemm", "Prefill matmuls", pre.seconds * 1e3, "ms",
           [&] { return std::string(fmt(pre.flops / 1e12) + " TFLOP at " + fmt(pre.flops / pre.seconds / 1e12) + " TFLOP/s achieved"); });
    p.term("time.prefill.attention", "Prefill attention", attn * 1e3, "ms", [&] {
        if (scores.elements > 0)
            return "HF eager attention (attention sinks, no SDPA path): " + fmt(scores.flops / 1e12) +
                   " TFLOP of QK^T and PV over the whole s x s as batched GEMMs + " + fmt(kHfEagerScoreAccesses) +
                   " accesses x " + fmt(scores.elements / 1e9) + "G scores x " + fmt(p.actBytes) + " B / bandwidth";
        if (masked.layers > 0)
            return fmt((attnF - masked.replaced) / 1e12) + " TFLOP / (" + attnRateText(p, true) + ") + " +
                   std::to_string(masked.layers) + " windowed layers through HF's SDPA mask: " + fmt(masked.flops / 1e12) +
                   " TFLOP (the whole s x s product) / (" + attnRateText(p, false) + ")";
        if (deltaPreS > 0)
            return fmt(attnF / 1e12) + " TFLOP / (" + attnRateText(p, true) + ") + " + std::to_string(m.linearLayers) +
                   " Gated DeltaNet layers through HF's torch chunked rule: " +
                   fmt(deltaPre.flops * m.linearLayers * stageShare / 1e12) + " TFLOP at the fp32 peak";
        return std::string(fmt(attnF / 1e12) + " TFLOP / (" + attnRateText(p, true) + ")");
    });
    p.term("time.prefill.overhead", "Prefill kernel launches", kernelsPre * 1e3, "ms", [&] {
        return std::string(fmt(kernelsPre / tk / layers) + " kernels/layer x " + std::to_string(layers) + " x " + fmt(tk * 1e6) + " us" +
                           (moeForward > 0 ? " (MoE layers: +" + fmt(moeForward) + " for HF's router and grouped-GEMM experts)" : "") +
                           (deltaPre.kernels > 0 ? " (Gated DeltaNet layers: +" + fmt(deltaPre.kernels, 6) +
                                                       " for HF's torch chunked rule over " + fmt(std::ceil(inf.promptTokens / kHfDeltaChunk)) + " chunks)"
                                                 : ""));
    });

    // Decode: each step reads the (touched) weights and the KV cache once.
    const double wBytesPerParam = p.inferPrecision == InferPrecision::FP32 ? 4
                                  : p.inferPrecision == InferPrecision::INT8 || p.inferPrecision == InferPrecision::FP8
                                      ? 1.0 + 2.0 / 128
                                  : p.inferPrecision == InferPrecision::INT4 ? 0.5 + 4.0 / 128
                                  : p.inferPrecision == InferPrecision::FP4  ? 0.5 + 1.0 / 16 // NVFP4: 4.5 bits
                                                                             : 2;
    double weightParams = p.loadedParams - p.embeddingParams + (m.tiedEmbeddings ? p.embeddingParams : 0);
    std::string moeNote;
    if (m.moe.enabled()) {
        // Distinct experts touched per layer by `batch` tokens choosing `active` of `experts`.
        const double e = m.moe.experts;
        const double touched = e * (1 - std::pow(1 - double(m.moe.active) / e, inf.batch));
        const double expertParams = m.routedExpertParams() / std::max(1.0, e);
        weightParams = m.activeParams() - p.embeddingParams + (touched - m.moe.active) * expertParams;
        moeNote = ", " + fmt(touched, 3) + " of " + std::to_string(m.moe.experts) + " experts touched per layer";
    }
    const double ctxMean = inf.promptTokens + inf.outputTokens / 2.0;
    // precision "checkpoint": the checkpoint's bytes per loaded parameter, on average.
    const double ckptBytesPerParam =
        inf.checkpointWeights ? m.loadedCheckpointBytes() / std::max(1.0, p.loadedParams) : 0;
    const double weightBytes = weightParams * (inf.checkpointWeights ? ckptBytesPerParam : wBytesPerParam) / (p.tp * p.pp);
    // Windowed layers read their window, linear layers their state.
    const double kvBytes = double(inf.batch) * m.kvBytesPerSequence(ctxMean, p.kvBytes) / (p.tp * p.pp);
    const double attendedKeys = m.kvElementsReadPerToken(ctxMean) / std::max(1.0, m.kvElementsPerTokenPerLayer()) * ctxMean;
    // GEMV-style decode kernels stream below the copy rate (decode_bandwidth_eff,
    // fitted with the per-layer floor on the two batch-1 decode runs). The weight GEMMs and the attention over the KV cache are
    // separate kernels: each is its own roofline, and their times add.
    const double decodeBw = units::gbpsToBytesPerS(p.gpu->bandwidthGbps) * scaled(c.decodeBandwidthEff, p.family->bandwidth);
    const DType ct = p.compute == DType::FP8 || p.compute == DType::FP4
                         ? p.compute
                         : (p.gpu->supports(DType::BF16) ? DType::BF16 : DType::FP16);
    const double pk = peak(p, p.inferPrecision == InferPrecision::FP32 ? DType::FP32 : ct);
    // Serving engines keep pp micro-batches of batch / pp sequences in flight
    // through the pipeline (vLLM's virtual engines, TensorRT-LLM's in-flight
    // micro-batches): each stage then works on one micro-batch at a time, and a
    // round in which every sequence gets its token is pp micro-batch stage times.
    // A static batch (and a batch smaller than pp) passes the stages whole.
    const double micro = p.serving && p.pp > 1 ? double(inf.batch) / std::min(p.pp, inf.batch) : double(inf.batch);
    const double gemmFlops = 2.0 * m.activeParams() * micro / (p.tp * p.pp);
    // A decode GEMM is weight-load bound until the batch nears the ridge point;
    // its compute is timed at its real rows (the batch, floored at one 64-row
    // tile, decode_gemm_min_rows): at batch 128 few tiles fill the SMs, so on a
    // part with the H200's bandwidth the GEMMs turn compute-bound first.
    const double weightTime = std::max(
        weightBytes / decodeBw,
        gemmFlops / (pk * gemmEff(p, ct, std::max(c.decodeGemmMinRows, micro), double(m.hidden) / p.tp, m.hidden)));
    const double attnFlops = 4.0 * attendedKeys * double(m.heads) * m.headDim * micro / (p.tp * p.pp);
    const double kvTime = std::max(kvBytes * micro / inf.batch / decodeBw, attnFlops / (pk * attnEff(p)));
    const double memTime = weightTime + kvTime;
    const double computeTime =
        gemmFlops / (pk * gemmEff(p, ct, std::max(c.decodeGemmMinRows, micro), double(m.hidden) / p.tp, m.hidden));
    // A forward-only HF step runs the MoE block as transformers 5 does (router +
    // grouped GEMMs over all experts: a fixed count per MoE layer); the
    // per-expert loop of expertLoopKernelsPerLayer is the training pass's.
    // Gated DeltaNet layers decode through HF's torch recurrent rule and conv update.
    const HfDeltaNet deltaStep = hfDeltaNetForward(p, inf.batch, 1, true);
    const double decodeKernels = kernelsPerLayer(p) - expertLoopKernelsPerLayer(p) +
                                 (moeForward * m.moeLayers() + deltaStep.kernels * m.linearLayers) / std::max(1, m.layers);
    const double floor = p.optimized ? c.decodeLayerSGraph * m.layers : decodeKernels * m.layers * c.kernelSDecodeEager;
    // weightTime and kvTime are one pipeline stage's work on one micro-batch
    // (its layers' weights and KV cache): a decode step passes the stages one
    // after another, so a token waits for all of them, plus the activation send
    // between stages. Pipeline parallelism splits the memory, never the
    // per-token latency of a batch that fits in one micro-batch.
    double stage = weightTime + kvTime;
    if (p.tp > 1)
        stage += 2.0 * layers * (decodeAllReduceSeconds(p, micro * m.hidden * 2, p.tp) + allReduceLatency(p, p.tp));
    const double sends = (p.pp - 1) * stageSendSeconds(p, micro * m.hidden * 2 / p.tp);
    const double device = stage * p.pp + sends;
    // A CUDA graph's per-layer floor is the GPU's own cost between kernels: it
    // adds. Eager launches are asynchronous: the GPU runs each kernel while the
    // host prepares the next (a decode loop has no sync inside the step), so a
    // step takes the longer of the host's launches and the GPU's work, the
    // shorter one hidden under it (as the training step hides its launches
    // behind the GPU's work).
    double tpot = p.optimized ? device + floor : std::max(device, floor);
    if (p.pp > 1)
        p.term("time.decode.pipeline", "Decode: pipeline stages in turn", (stage * (p.pp - 1) + sends) * 1e3, "ms", [&] {
            return std::to_string(p.pp) + " stages x " + fmt(stage * 1e3) + " ms each (micro-batches of " + fmt(micro) +
                   "; the token passes the stages one after another; " + std::to_string(p.pp - 1) +
                   " counted here beyond the first) + " + fmt(sends * 1e3) + " ms of activation sends";
        });
    r.tpotMs = tpot * 1e3;
    double served = 0; // serving: requests/s under the load
    if (p.serving)
        // The load model sees whole rounds: with pp micro-batches in flight a round (every running sequence
        // gets its token) is pp micro-batch stage times, so the per-stage weight, GEMM and KV times count pp times.
        served = servingLatency(p, r, tpot, kvTime * p.pp, weightBytes / decodeBw * p.pp, computeTime * p.pp,
                                p.tp > 1 ? 2.0 * layers * decodeAllReduceSeconds(p, micro * m.hidden * 2, p.tp) * p.pp : 0,
                                std::max(c.decodeGemmMinRows, 1.0),
                                [&](double decoding) {
                                    // The GEMM efficiency at the rows a step really has (its micro-batch's share of
                                    // the `decoding` sequences): fewer rows fill fewer tiles (gemm_shape_c).
                                    const double rowsAt = std::max(c.decodeGemmMinRows, micro * decoding / std::max(1, inf.batch));
                                    return gemmEff(p, ct, rowsAt, double(m.hidden) / p.tp, m.hidden);
                                },
                                [&](double tokens, double head, double stepAttnFlops) {
            // A serving engine keeps pp micro-batches in flight (TensorRT-LLM's PyExecutor:
            // num_micro_batches = pp_size, each scheduled with up to max_batch_size requests;
            // vLLM: pp virtual engines), so a round's tokens pass the stages as pp micro-batches
            // of tokens / pp that work on different stages at once: the round is pp micro-batch
            // stage times, forwardSeconds(tokens / pp) (which runs one pass through every stage).
            // Prefill work is then spread over the stages instead of passing them in turn.
            const double mb = p.pp > 1 ? double(p.pp) : 1.0;
            GemmWork g;
            double a = 0;
            return forwardSeconds(tokens / mb, head / mb, stepAttnFlops / mb, g, a);
        });
    p.term("time.decode.memory", "Decode: weights + KV", memTime * 1e3, "ms",
           [&] { return std::string("max(" + fmtGiB(weightBytes) + " weights / bandwidth, GEMM FLOPs / peak) + max(" +
                                    fmtGiB(kvBytes) + " KV at mean context " + fmt(ctxMean) +
               " / bandwidth, attention FLOPs / peak); bandwidth " + fmt(p.gpu->bandwidthGbps) + " GB/s x " + fmt(c.decodeBandwidthEff) + moeNote); });
    p.term("time.decode.compute", "Decode: GEMM compute", computeTime * 1e3, "ms",
           [&] { return std::string("2 x active params x batch / achievable peak (counts when above the weight-read time)"); });
    p.term("time.decode.overhead", "Decode: per-layer floor", floor * 1e3, "ms",
           [&] { return std::string(p.optimized ? std::to_string(m.layers) + " layers x " + fmt(c.decodeLayerSGraph * 1e6) + " us (CUDA graph)"
                       : "eager generate(): " + fmt(decodeKernels) + " kernels/layer (MoE: HF's router and grouped-GEMM experts" +
                             (deltaStep.kernels > 0 ? "; Gated DeltaNet: HF's torch recurrent rule" : "") + ") x " +
                             fmt(c.kernelSDecodeEager * 1e6) + " us host time; the step is the longer of these launches and the GPU's " +
                             fmt(device * 1e3) + " ms of work, which run at the same time"); });
    const double cycle = prefillCycle + inf.outputTokens * tpot;
    r.tokensPerS = (p.serving ? served * inf.outputTokens : double(inf.batch) * inf.outputTokens / cycle) * p.dp;
    return r;
}


} // namespace gp::detail
