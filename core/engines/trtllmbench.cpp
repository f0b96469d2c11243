// trtllm-bench's engine limits (sources: trtllmbench.h).
#include "core/engines/trtllmbench.h"

#include <algorithm>
#include <cmath>

namespace gp {

namespace {

/// finetune_setting: the optimistic round-ups of max batch size and max tokens.
void finetune(double kvMaxRequests, int isl, int osl, int pp, int& maxBs, int& maxTokens)
{
    const double rawBs = std::min(kvMaxRequests, 4096.0) / pp;
    const double rawToken = std::min(rawBs * (1 + double(isl) / osl), 32768.0);
    if (rawBs < 256)
        maxBs = std::max(64, 32 * int(std::ceil(rawBs / 32)));
    else if (rawBs < 1024)
        maxBs = 128 * int(std::ceil(rawBs / 128));
    else
        maxBs = 256 * int(std::ceil(rawBs / 256));
    if (rawToken < 4096)
        maxTokens = std::max(2048, 256 * int(std::ceil(rawToken / 256)));
    else if (rawToken < 8192)
        maxTokens = 512 * int(std::ceil(rawToken / 512));
    else
        maxTokens = 1024 * int(std::ceil(rawToken / 1024));
}

} // namespace

const std::vector<int>& trtllmPerfOverviewGraphSizes()
{
    static const std::vector<int> sizes{1, 2, 4, 8, 16, 32, 64, 128, 256, 384, 512, 1024, 2048, 4096, 8192};
    return sizes;
}

ServingEngineLimits trtllmBenchLimits(const TrtllmBenchInput& in)
{
    const ModelArch& m = *in.model;
    constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
    const bool engine = in.backend == TrtllmBackend::TensorRtEngine;
    const bool fp4 = in.precision == InferPrecision::FP4;
    const bool fp8 = in.precision == InferPrecision::FP8;
    // BYTES_PER_ELEM (1.x; v0.17 knew FP8 and 16-bit only).
    const double bytesPerElem = fp8 ? 1.0 : fp4 && !engine ? 0.5 : 2.0;
    // param_count: v0.17 the 16-bit checkpoint's parameters; 1.x the checkpoint's
    // elements, where NVFP4 packs two weights per U8 element beside one FP8 scale
    // per 16 weights (the embeddings and the untied head stay 16-bit).
    const double total = m.totalParams();
    double elements = total;
    if (fp4 && !engine) {
        const double unquantized = m.embeddingParams() * (m.tiedEmbeddings ? 1 : 2);
        elements = (total - unquantized) * (0.5 + 1.0 / 16) + unquantized;
    }
    // v0.17 divides the count by 1000^3 and subtracts it from GiB; 1.x by 1024^3.
    const double engineSize = elements * bytesPerElem / (engine ? 1e9 : kGiB);
    const int kvHeads = std::max(in.tp, m.kvHeads > 0 ? m.kvHeads : m.heads);
    const double headSize = m.headDim > 0 ? m.headDim : double(m.hidden) / std::max(1, m.heads);
    const int layers = engine ? m.layers : m.attentionLayers();
    const double bytePerToken = 2.0 * layers * kvHeads * headSize * in.kvBytesPerElement / kGiB;
    const double available = in.deviceMemoryGiB * in.tp * in.pp - engineSize;
    const double cache = available * in.kvFreeFraction;
    const double kvMaxRequests = cache / (bytePerToken * (in.inputLen + in.outputLen));
    ServingEngineLimits out;
    if (!(kvMaxRequests >= 1))
        return out; // trtllm-bench refuses the run; the KV pool alone limits it
    finetune(kvMaxRequests, in.inputLen, in.outputLen, in.pp, out.maxBatch, out.maxNumTokens);
    if (engine)
        return out; // the TensorRT engine runs in-flight batching with chunked context, no CUDA graphs
    // PyTorch backend: chunked prefill off, every prompt must fit one step.
    out.wholePrompts = true;
    out.maxNumTokens = std::max(out.maxNumTokens, in.inputLen + out.maxBatch);
    const int bound = std::min(out.maxBatch, out.maxNumTokens);
    for (const int bs : trtllmPerfOverviewGraphSizes()) {
        if (bs <= bound) {
            out.graphBatchSizes.push_back(bs);
        } else {
            if (out.graphBatchSizes.empty() || out.graphBatchSizes.back() != bound)
                out.graphBatchSizes.push_back(bound);
            break;
        }
    }
    return out;
}

} // namespace gp
