// What Hugging Face transformers' own model code does in the `eager` runtime
// (one model forward per step, no fusion, no CUDA graph), where it differs from
// the lean stacks: the launches of its MoE block in a forward-only pass, the
// explicit mask its SDPA path builds for windowed layers, and the extra norms
// of the Gemma 3 / OLMo 2 / Qwen3 layers. Each is counted from the code that
// ran the round-4 measurements (transformers 5.17, tests/data/round4/README.md).
#include "core/estimate/perfparts.h"
#include "core/estimate/sizing.h"

#include <algorithm>
#include <cmath>

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
    // A shared expert (Qwen3NextSparseMoeBlock, DeepSeek's shared_experts) runs
    // as a dense MLP beside the routed ones, added to their output. (Qwen's
    // sigmoid shared_expert_gate adds 3 more launches, not counted here.)
    return kHfGroupedMoeKernels + kHfRouterKernels - kHfDenseMlpKernels +
           (m.moe.shared > 0 ? kHfSharedExpertKernels : 0);
}

/// Counted in huggingface/transformers
/// src/transformers/models/qwen3_next/modeling_qwen3_next.py at commit
/// 01cdc6081c7500f9e50c98b1b943c90ecb665db3 (a transformers 5 version of the
/// file that ran round 4), Qwen3NextGatedDeltaNet.forward with
/// causal_conv1d_fn / chunk_gated_delta_rule = None. Every path:
///   in_proj_qkvz, in_proj_ba (2); fix_query_key_value_ordering's reshapes of
///   the split v, z, b, a (non-contiguous: 4 copies); q and k flattened (2
///   copies); the cat of q, k, v (1); beta = sigmoid (1), g = -exp(A_log.float())
///   x softplus(a.float() + dt_bias) (7); Qwen3NextRMSNormGated (casts, pow,
///   mean, add, rsqrt, products, silu of the gate: 12); out_proj (1)      = 30;
///   q and k repeat_interleave'd to the value heads when they differ (fill,
///   cumsum, repeat_interleave, index_select: 4 each)                      = 8.
/// Prefill (torch_chunk_gated_delta_rule, n chunks of 64): the conv state's
///   pad and store (2), conv1d and silu (2); l2norm of q and k (5 each), the
///   five transpose-contiguous (+ fp32 casts of the bf16 ones: 9), five pads,
///   the scaling, v_beta and k_beta, the mask (ones, triu), g's cumsum, the
///   decay mask (sub, tril, exp, tril), the first attn (matmul, product,
///   masked_fill, negation): 38; the Python loop `for i in range(1, 64)`: two
///   clones, a product, a sum, an add and the slice assignment, 6 x 63 = 378;
///   eye and add, attn @ v_beta, k_cumdecay (exp, product, matmul), the state
///   and output zeros, the second mask, the final transpose and cast: 12;
///   per chunk: q@k^T, decay product, masked_fill_; k_cumdecay @ state, the
///   subtraction; exp, product, @ state; attn @ v_new, add, slice assignment;
///   exp, state product; the decay difference, exp, product, k^T @ v_new, add
///   = 18 per chunk.                              4 + 428 + 18 n in all
/// Decode (seq_len 1 with the state cached: torch_causal_conv1d_update and
///   torch_recurrent_gated_delta_rule): cat, copy_ into the conv state,
///   conv1d, silu (4); l2norm x 2 (10), the five transposes and casts (9),
///   the scaling, the output zeros (2), one loop step (exp, state x g,
///   k x state and its sum, subtraction, x beta, k x delta, add, state x q
///   and its sum, the slice assignment: 11), the final transpose and cast (2)
///   = 38.
/// Whatever the batch (the ops are batched). The Llama attention block the
/// fitted per-layer counts hold (q/k/v, rotary 10, two cache cats, SDPA and
/// its contiguous copy, o_proj: 18) is what a DeltaNet layer replaces.
HfDeltaNet hfDeltaNetForward(const Plan& p, double sequences, double tokens, bool cached)
{
    HfDeltaNet r;
    const ModelArch& m = *p.m;
    const auto& d = m.deltaNet;
    if (!hfEagerRuntime(p) || m.linearLayers <= 0 || d.keyHeads <= 0 || tokens <= 0)
        return r;
    const double chunks = std::ceil(tokens / kHfDeltaChunk);
    double k = 30 + (d.valueHeads != d.keyHeads ? 8 : 0);
    k += cached ? 38 : 4 + 428 + 18 * chunks;
    r.kernels = k - kHfLlamaAttentionKernels;
    if (!cached) {
        // Per value head and chunk of C: k_beta k^T, attn v_beta, attn (k_beta
        // e^g), q k^T and attn v_new (C x C x d products), and the three
        // state products (C x dk x dv): 2 C^2 (3 dk + 2 dv) + 6 C dk dv.
        const double c = kHfDeltaChunk;
        const double perHeadChunk = 2 * c * c * (3.0 * d.keyDim + 2.0 * d.valueDim) + 6 * c * double(d.keyDim) * d.valueDim;
        r.flops = perHeadChunk * chunks * d.valueHeads * sequences / p.tp;
    }
    return r;
}

/// Qwen3NextGatedDeltaNet.forward (same file and commit): the prefill stores
/// F.pad(mixed_qkv, (conv_kernel_size - seq_len, 0)), conv_kernel_size
/// positions of the 2 x key_dim + value_dim conv channels in the model's dtype,
/// and the rule's last_recurrent_state, computed in fp32 (query, key, value,
/// beta and g are cast .to(torch.float32)) and stored as is: value heads x
/// key dim x value dim x 4 B. Round 4's Qwen3-Next run measured 2,162,688 B
/// per layer = 8192 x 4 x 2 + 32 x 128 x 128 x 4.
double hfDeltaNetStateBytes(const Plan& p)
{
    const ModelArch& m = *p.m;
    const auto& d = m.deltaNet;
    if (!hfEagerRuntime(p) || m.linearLayers <= 0 || d.keyHeads <= 0)
        return 0;
    const double convDim = 2.0 * d.keyHeads * d.keyDim + double(d.valueHeads) * d.valueDim;
    return convDim * d.convKernel * 2 + double(d.valueHeads) * d.keyDim * d.valueDim * 4;
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
