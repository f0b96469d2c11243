// What Hugging Face transformers' own model code does in the `eager` runtime
// (one model forward per step, no fusion, no CUDA graph), where it differs from
// the lean stacks: the launches of its MoE block in a forward-only pass, the
// explicit mask its SDPA path builds for windowed layers, and the extra norms
// of the Gemma 3 / OLMo 2 / Qwen3 layers. Each is counted from the code that
// ran the round-4 measurements (transformers 5.17, tests/data/round4/README.md).
#include "core/estimate/perfparts.h"
#include "core/estimate/sizing.h"

#include <algorithm>

namespace gp::detail {

bool hfEagerRuntime(const Plan& p) { return !p.optimized && !p.serving; }

/// transformers 5 runs a MoE block's experts through
/// integrations/moe.py grouped_mm_experts_forward (the default
/// `experts_implementation`, "grouped_mm" in the round-4 records): one grouped
/// GEMM per projection for all experts at once, no Python loop over experts.
/// Launches counted in huggingface/transformers
/// src/transformers/integrations/moe.py at commit
/// 0261a467116de4a9103b58200f9d82f8fb5a0e86:
///   zeros_like, arange, the expanded token index's reshape copy, two argsorts,
///   the token gather, three gathers by the permutation, the float cast,
///   histc, cumsum (12); grouped_mm, activation and product, grouped_mm (4);
///   routing-weight product, inverse-permutation gather, index_add_ (3)  = 19;
/// and the top-k router (Qwen3MoeTopKRouter / GptOssTopKRouter): gate linear,
/// softmax, topk, the renormalizing sum and division, cast back            = 6.
/// The dense MLP it replaces launches 5 (gate, up, act, product, down).
double hfMoeForwardKernelsPerLayer(const Plan& p)
{
    const ModelArch& m = *p.m;
    if (!m.moe.enabled() || p.optimized)
        return 0;
    return kHfGroupedMoeKernels + kHfRouterKernels - kHfDenseMlpKernels;
}

MaskedAttention hfMaskedAttention(const Plan& p, double sequences, double s)
{
    MaskedAttention r;
    const ModelArch& m = *p.m;
    if (!hfEagerRuntime(p) || m.family != ModelFamily::Decoder || s <= 0 || m.attentionSinks)
        return r; // attention sinks: no SDPA path at all (hfEagerScores)
    // masking_utils._ignore_causal_mask_sdpa (huggingface/transformers
    // src/transformers/masking_utils.py at commit
    // 00c4411cbe15d4c56d54d3b56d4d171e9c289dac) skips the mask only while
    // kv_length < the local attention size: from there sdpa_mask builds a
    // (batch, 1, q, kv) bool tensor, SDPA cannot use flash attention with it
    // and its masked (memory-efficient, mma.sync) kernel visits every block.
    auto layer = [&](int layers, int window) {
        if (layers <= 0 || window <= 0 || s < window)
            return;
        r.layers += layers;
        r.maskBytes = std::max(r.maskBytes, sequences * s * s); // one mask per kind, 1 B per element
    };
    layer(m.slidingLayers, m.slidingWindow);
    layer(m.chunkedLayers, m.chunkSize);
    if (r.layers == 0)
        return r;
    const double hq = double(m.heads) * m.headDim;
    const int stageLayers = (m.layers + p.pp - 1) / p.pp;
    const double share = double(stageLayers) / std::max(1, m.layers);
    // Full (non-causal) s x s product per masked layer; what attentionFlops
    // counted for the same layers (their windowed causal pairs) is replaced.
    r.flops = 4.0 * s * s * hq * r.layers * share * sequences / p.tp;
    double windowed = 0;
    if (m.slidingLayers > 0 && s >= m.slidingWindow)
        windowed += m.slidingLayers * (m.slidingWindow * double(m.slidingWindow) / 2 + (s - m.slidingWindow) * m.slidingWindow);
    if (m.chunkedLayers > 0 && s >= m.chunkSize) {
        const double c = m.chunkSize;
        const double whole = double(static_cast<long long>(s / c));
        const double rest = s - whole * c;
        windowed += m.chunkedLayers * (whole * c * c / 2 + rest * rest / 2);
    }
    r.replaced = 4.0 * windowed * hq * share * sequences / p.tp;
    return r;
}

EagerScores hfEagerScores(const Plan& p, double sequences, double s)
{
    EagerScores r;
    const ModelArch& m = *p.m;
    // GptOssPreTrainedModel sets _supports_sdpa = False (huggingface/transformers
    // src/transformers/models/gpt_oss/modeling_gpt_oss.py at commit
    // 00d4b3d2142cb4ced2f51b90614b5d26bc045015): a model with attention sinks
    // runs that file's eager_attention_forward, which materializes the scores
    // of every layer, sliding ones included (the mask only adds -inf).
    if (!hfEagerRuntime(p) || !m.attentionSinks || m.family != ModelFamily::Decoder || s <= 0)
        return r;
    const int stageLayers = (m.layers + p.pp - 1) / p.pp;
    const double share = double(stageLayers) / std::max(1, m.layers);
    const double heads = double(m.heads) / p.tp;
    const double layers = m.attentionLayers() * share;
    r.elements = sequences * heads * s * s * layers;
    r.flops = 4.0 * r.elements * m.headDim; // QK^T and PV, the whole square
    r.bytes = kHfEagerScoreAccesses * p.actBytes * r.elements;
    r.peakBytes = kHfEagerScoreTensorsLive * sequences * heads * s * (s + 1) * p.actBytes;
    return r;
}

double extraNormWidth(const Plan& p)
{
    const ModelArch& m = *p.m;
    double w = std::max(0, m.normsPerLayer - 2) * double(m.hidden);
    if (m.qkNorm != ModelArch::QkNorm::None)
        w += double(m.heads + m.kvHeads) * m.headDim; // q_norm and k_norm (per head or over all features: same elements)
    return w;
}

} // namespace gp::detail
