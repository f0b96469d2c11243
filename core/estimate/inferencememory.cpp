// Memory model of inference (training: memorymodel.cpp): the weights as
// stored, the KV cache (paged by a serving engine, which admits what its share
// of the GPU holds), the prefill's live tensors and the runtime overhead.
#include "core/estimate/perfparts.h"
#include "core/estimate/sizing.h"

#include "core/base/units.h"

#include <algorithm>
#include <cmath>

namespace gp::detail {

namespace {

using units::kMiB;

} // namespace

double prefillLiveBytesPerToken(const Plan& p)
{
    const ModelArch& m = *p.m;
    const double h = m.hidden;
    const double hq = double(m.heads) * m.headDim;
    const double hkv = m.mlaKvLoraRank > 0 ? hq : double(m.kvHeads) * m.headDim;
    double f = double(m.ffnHidden);
    if (m.moe.enabled())
        f = double(m.moe.expertFfnHidden) * (m.moe.active + m.moe.shared);
    // At the MLP's product, under no_grad, these are still referenced: the layer
    // input, the residual after attention and the normed MLP input (full width on
    // every tensor-parallel rank); the fused QKV output (kept by the q/k/v views)
    // and the attention output; the fused gate/up output, the activation and the
    // product (SwiGLU: 2f + f + f; a plain MLP: the up output and its activation).
    // Flash attention materializes no scores. Checked on the H100/H200 decoder
    // runs: 159744 B/token counted for Llama 3 8B vs 159750 measured.
    const double replicated = 3 * h;
    const double sharded = (hq + 2 * hkv) + hq + (m.ffn == FfnKind::SwiGLU ? 4 * f : 2 * f);
    return p.actBytes * (replicated + sharded / p.tp);
}

MemoryBreakdown inferenceMemory(Plan& p)
{
    const Scenario& s = *p.s;
    const ModelArch& m = *p.m;
    const auto& inf = s.inference;
    MemoryBreakdown mem;
    const double shard = double(p.tp) * p.pp;
    const double wbytes = [&] {
        switch (p.inferPrecision) {
        case InferPrecision::FP32: return 4.0;
        case InferPrecision::FP16:
        case InferPrecision::BF16: return 2.0;
        case InferPrecision::FP8: return 1.0;
        case InferPrecision::INT8: return 1.0 + 2.0 / 128; // per-channel/group fp16 scales
        case InferPrecision::INT4: return 0.5 + 4.0 / 128; // group 128: fp16 scale + zero
        case InferPrecision::FP4: return 0.5 + 1.0 / 16;   // NVFP4: E2M1 + one FP8 scale per 16 values = 4.5 bits
        }
        return 2.0;
    }();
    if (!m.isLanguageModel()) {
        mem.weights = m.vision.params * wbytes;
        const double scale = std::pow(double(inf.imageSize) / m.vision.nativeImageSize, 2);
        mem.activations = m.vision.inferActivationBytesPerImage * scale * inf.batch * (wbytes >= 4 ? 2 : 1);
        p.term("memory.weights", "Weights", units::bytesToGiB(mem.weights), "GiB",
               [&] { return std::string(fmt(wbytes) + " B x " + fmt(m.vision.params / 1e6) + "M params"); });
        p.term("memory.activations", "Activations (transient)", units::bytesToGiB(mem.activations), "GiB", [&] {
            return fmt(m.vision.inferActivationBytesPerImage / 1e6) + " MB per image (the largest block's live tensors under no_grad) x batch " +
                   std::to_string(inf.batch);
        });
    } else {
        const double n = p.loadedParams; // the MTP layers of a checkpoint are not loaded
        // Quantized formats keep the embeddings (and an untied head) in 16-bit.
        const double emb = p.embeddingParams * (m.tiedEmbeddings ? 1 : 2);
        const double w = inf.checkpointWeights ? m.loadedCheckpointBytes()
                         : wbytes < 2          ? (n - emb) * wbytes + emb * 2
                                               : n * wbytes;
        mem.weights = w / shard;
        p.term("memory.weights", "Weights", units::bytesToGiB(mem.weights), "GiB", [&] {
            if (inf.checkpointWeights)
                return std::string("as the checkpoint stores them: ") +
                       (m.quant.quantized() ? std::string(m.quant.expertsOnly ? "experts" : "linear layers") + " in " +
                                                  m.quant.label() + " (" + fmt(m.quant.bytesPerParam(), 4) + " B/param), the rest " +
                                                  fmt(m.storageBytes) + " B/param"
                                            : fmt(m.storageBytes) + " B/param") +
                       ", " + fmt(n / 1e9) + "B params" + (shard > 1 ? " / (tp x pp)" : "");
            return std::string(fmt(wbytes, 3) + " B x " + fmt(n / 1e9) + "B params" + (wbytes < 2 ? " (embeddings/head in 16-bit)" : "") +
                               (shard > 1 ? " / (tp x pp)" : ""));
        });
        double ctx = double(inf.promptTokens) + inf.outputTokens;
        // A serving engine pages the cache: each sequence holds its prompt + output
        // in whole blocks (serving_kv_block_tokens), nothing for unused length.
        const double block = p.serving ? std::max(1.0, p.cal->servingKvBlockTokens) : 1.0;
        if (p.serving)
            ctx = std::ceil(ctx / block) * block;
        const double seqTokens = double(inf.promptTokens) + inf.outputTokens;
        const bool kinds = m.slidingLayers + m.chunkedLayers + m.linearLayers > 0;
        // HF keeps a Gated DeltaNet layer's state as its torch code makes it
        // (the whole conv kernel, an fp32 recurrent state), not at bf16.
        const double hfState = hfDeltaNetStateBytes(p);
        const double linearState = hfState > 0 ? hfState : m.linearStateBytes;
        const double kvPerSeq =
            (m.kvBytesPerSequence(seqTokens, p.kvBytes, block) + m.linearLayers * (linearState - m.linearStateBytes)) / shard;
        const double perToken = prefillLiveBytesPerToken(p);
        const double logitsPerSeq = double(m.vocab) * (p.actBytes + 4) / p.tp;
        // The tokens one engine step may carry: the engine's own max_num_tokens
        // where the run states it, else the calibration's chunk.
        const double chunk = std::max(1.0, inf.engine.maxNumTokens > 0 ? double(inf.engine.maxNumTokens)
                                                                         : p.cal->servingChunkTokens);
        double held = inf.batch; // sequences whose KV is in memory at once
        if (p.serving) {
            // The engine's share of the GPU (inference.memory_fraction, vLLM's
            // gpu_memory_utilization) holds the weights, its fixed buffers and
            // the chunk transient; the rest is KV blocks, and it admits as many
            // sequences as they hold (the others wait: servingload.h).
            const Calibration& c = *p.cal;
            const double budget = p.gpu->memoryGb * units::kGiB * c.usableMemoryFraction * inf.memoryFraction;
            const double perSeq = kvPerSeq + logitsPerSeq * (1 + c.allocatorSlackTransient);
            auto fixedWith = [&](double tokens) {
                return mem.weights * (1 + c.allocatorSlackWeights) + contextBytes(p) +
                       (c.buffersInferMib + c.servingEngineMib) * kMiB +
                       tokens * perToken * (1 + c.allocatorSlackTransient);
            };
            double k = std::floor((budget - fixedWith(chunk)) / perSeq);
            if (k >= 1 && k * inf.promptTokens < chunk)
                k = std::floor((budget - fixedWith(k * inf.promptTokens)) / perSeq);
            // An engine with a max_batch_size schedules no more sequences than that
            // in each of its pp micro-batches.
            if (inf.engine.maxBatch > 0)
                k = std::min(k, double(inf.engine.maxBatch) * p.pp);
            p.admitted = std::max(0.0, k);
            if (p.admitted >= 1 && held > p.admitted) {
                held = p.admitted;
                p.notes.push_back("The engine holds " + fmt(p.admitted, 6) + " of the " + std::to_string(inf.batch) +
                                  " sequences at once (KV blocks in memory_fraction " + fmt(inf.memoryFraction) +
                                  " of the GPU); the others wait for blocks, and the TTFT counts that wait.");
            }
        }
        // HF's DynamicSlidingWindowLayer keeps, right after a prefill, a slice
        // of the prefill's full-length keys and values: the storage of every
        // windowed layer stays prompt-long until the first decode step replaces
        // it (round 4's cache_after_prefill). The peak holds the longer of the two.
        const bool hfWindows = hfEagerRuntime(p) && m.slidingLayers + m.chunkedLayers > 0;
        const double kvPrefillPerSeq =
            hfWindows ? (m.kvElementsPerToken() * double(inf.promptTokens) * p.kvBytes + m.linearLayers * linearState) / shard
                      : 0;
        const double kv = held * std::max(kvPerSeq, kvPrefillPerSeq);
        mem.kvCache = kv;
        p.term("memory.kv_cache", p.serving ? "KV cache (paged)" : "KV cache", units::bytesToGiB(kv), "GiB", [&] {
            if (!kinds)
                return std::string("batch x (prompt + output") + (p.serving ? " in blocks of " + fmt(block) + " tokens" : "") +
                       ") x " + fmt(m.kvElementsPerToken()) + " elements/token x " + fmt(p.kvBytes) + " B = " +
                       fmt(held, 6) + " x " + fmt(ctx) + " x " + fmt(m.kvElementsPerToken()) + " x " + fmt(p.kvBytes);
            // Hybrid models: each layer kind keeps what the engine allocates for it.
            std::string t = "batch " + fmt(held, 6) + " x [" + std::to_string(m.fullAttentionLayers()) +
                            " full layers x " + fmt(ctx) + " tokens";
            if (m.slidingLayers > 0)
                t += " + " + std::to_string(m.slidingLayers) + " sliding layers x min(context, window " +
                     std::to_string(m.slidingWindow) + ")";
            if (m.chunkedLayers > 0)
                t += " + " + std::to_string(m.chunkedLayers) + " chunked layers x min(context, chunk " +
                     std::to_string(m.chunkSize) + ")";
            t += "] x " + fmt(m.kvElementsPerTokenPerLayer()) + " elements x " + fmt(p.kvBytes) + " B";
            if (m.linearLayers > 0)
                t += " + " + std::to_string(m.linearLayers) + " " + m.linearKind + " layers x " +
                     fmt(linearState / 1e6, 4) + (hfState > 0 ? " MB state (HF: the conv kernel in 16-bit, the recurrent state in fp32)"
                                                               : " MB state (bf16)");
            t += p.serving ? "; vLLM's hybrid KV cache manager pages each kind in blocks of " + fmt(block) + " tokens"
                           : "; as HF transformers' caches keep them (DynamicSlidingWindowLayer: the last window; "
                             "Mamba/linear layers: their conv and recurrent state)";
            if (hfWindows && kvPrefillPerSeq > kvPerSeq)
                t = "at the prefill peak, every attention layer's " + fmt(double(inf.promptTokens)) + " prompt tokens (HF's "
                    "sliding-window layers keep a slice of the prefill's full-length keys and values until the first decode "
                    "step): batch " + fmt(held, 6) + " x " + fmt(m.kvElementsPerToken()) + " elements/token x " + fmt(p.kvBytes) +
                    " B" + (m.linearLayers > 0 ? " + the linear layers' state" : "") + "; after it: " + t;
            return t;
            return t;
        });
        // Prefill transient: the whole batch's prompt goes through each layer in
        // one pass (the `optimized` runtime: static cache, no chunking), so the
        // peak is the live set of one layer for batch x prompt tokens. A serving
        // engine prefills in chunks (serving_chunk_tokens per step): the live set
        // is bounded by the chunk.
        const double allTokens = held * inf.promptTokens;
        const double tokens = p.serving ? std::min(allTokens, chunk) : allTokens;
        // Only the last position's logits are computed (16-bit product, fp32 copy).
        const double logits = held * logitsPerSeq;
        // HF's SDPA path: a (batch, 1, s, s) bool mask for the windowed layers
        // once the prompt reaches the window, live through the whole forward.
        const double maskBytes = hfMaskedAttention(p, held, inf.promptTokens).maskBytes;
        // Attention sinks under HF: one layer's materialized scores (hfEagerScores).
        const double scoreBytes = hfEagerScores(p, held, inf.promptTokens).peakBytes;
        const double act = tokens * perToken + logits + maskBytes + scoreBytes;
        mem.activations = act;
        p.term("memory.activations", "Activations (prefill transient)", units::bytesToGiB(act), "GiB", [&] {
            if (p.serving)
                return fmt(perToken, 6) + " B x min(batch x prompt, chunk) = " + fmt(perToken, 6) + " x " + fmt(tokens) +
                       " (one layer's live tensors for one chunked-prefill step) + last-token logits " + fmtGiB(logits);
            return fmt(perToken, 6) + " B x batch x prompt = " + fmt(perToken, 6) + " x " + fmt(tokens) +
                   " (one layer's live tensors, whole batch in one pass) + last-token logits " + fmtGiB(logits) +
                   (maskBytes > 0 ? " + HF's sliding-window SDPA mask " + fmtGiB(maskBytes) + " (batch x prompt^2 x 1 B)" : "") +
                   (scoreBytes > 0 ? " + HF eager attention's scores " + fmtGiB(scoreBytes) + " (" + fmt(kHfEagerScoreTensorsLive) +
                                         " x batch x heads x prompt x (prompt + 1 sink) x " + fmt(p.actBytes) + " B)"
                                   : "");
        });
    }
    // Weights are allocated once, in large blocks, and fragment little
    // (allocator_slack_weights); the KV cache and transients take the usual share.
    const Calibration& c = *p.cal;
    // A serving engine adds its CUDA-graph pool and sampler buffers
    // (serving_engine_mib) and holds the KV blocks in one pool tensor, which
    // the caching allocator does not split (no KV slack). What it preallocates
    // beyond that (gpu_memory_utilization) is its choice, not its need.
    const double buffers =
        ((m.isLanguageModel() ? c.buffersInferMib : c.buffersInferVisionMib) + (p.serving ? c.servingEngineMib : 0)) * kMiB;
    // The transient is freed and re-allocated layer by layer in blocks of several
    // sizes, which the caching allocator keeps and splits: its reserve exceeds the
    // in-use peak by a larger share (allocator_slack_transient).
    const double kvSlack = p.serving ? 0.0 : c.allocatorSlack;
    const double slack = c.allocatorSlackWeights * mem.weights + kvSlack * mem.kvCache +
                         c.allocatorSlackTransient * mem.activations;
    mem.overhead = contextBytes(p) + buffers + slack;
    p.term("memory.overhead", "Runtime overhead", units::bytesToGiB(mem.overhead), "GiB",
           [&] { return std::string("CUDA context " + fmt(contextBytes(p) / kMiB) + " MiB + workspaces " +
                                    (p.serving ? "and serving engine (CUDA graphs, sampler) " : "") + fmt(buffers / kMiB) +
               " MiB + allocator cache (" + fmt(c.allocatorSlackWeights * 100) + "% of weights, " + fmt(kvSlack * 100) +
               "% of KV cache" + (p.serving ? " (one paged pool)" : "") + ", " + fmt(c.allocatorSlackTransient * 100) +
               "% of activations)"); });
    return mem;
}

} // namespace gp::detail
