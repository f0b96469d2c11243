// A model's counts from its shape: parameters (total, active, per layer's linears,
// the checkpoint's bytes with its quantization), the KV cache per token and per
// sequence (sliding and chunked windows, MLA, linear-attention state), attention
// FLOP equivalents and the summary line. Everything is computed from the shape, so
// the three input forms (preset, explicit, hf_config) can never disagree. Checks
// and the explicit form's reader are in modelread.cpp.
#include "core/model/model.h"

#include "core/model/modelcheck.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

namespace gp {

namespace {

using namespace detail;

// ---------------------------------------------------------------------------
// Parameter counting. Everything is computed from the shape so the three
// input forms (preset, explicit, hf_config) can never disagree.

/// One normalization layer: LayerNorm has weight + bias, RMSNorm weight only.
double normParams(const ModelArch& m) { return m.biases ? 2.0 * m.hidden : dbl(m.hidden); }

double mlaQRank(const ModelArch& m) { return m.mlaQLoraRank == 0 ? dbl(kMlaQLoraRank) : std::max(0, m.mlaQLoraRank); }

/// The projection matrices of one attention layer (no biases, norms or sinks).
double attentionMatrixParams(const ModelArch& m)
{
    const double h = m.hidden;
    const double hd = m.headDim;
    const double heads = m.heads;
    if (m.mlaKvLoraRank > 0) {
        // Multi-head latent attention (DeepSeek-V3 modeling code): q_a_proj,
        // q_b_proj (or one q_proj without a query rank, DeepSeek-V2-Lite),
        // kv_a_proj_with_mqa, kv_b_proj, o_proj; no biases.
        const double qRank = mlaQRank(m);
        const double kvRank = m.mlaKvLoraRank;
        const double rope = m.mlaRopeHeadDim;
        const double q = qRank > 0 ? h * qRank + qRank * heads * (hd + rope) : h * heads * (hd + rope);
        return q + h * (kvRank + rope) + kvRank * heads * (hd + hd) + heads * hd * h;
    }
    const double qOut = heads * hd;
    const double kvOut = static_cast<double>(m.kvHeads) * hd;
    return h * qOut * (m.gatedAttention ? 2 : 1) + 2.0 * h * kvOut + qOut * h;
}
} // namespace

namespace detail {

double attentionParams(const ModelArch& m)
{
    double p = attentionMatrixParams(m);
    const double hd = m.headDim;
    const double heads = m.heads;
    if (m.mlaKvLoraRank > 0) {
        // q_a_layernorm (with a query rank) and kv_a_layernorm.
        return p + (mlaQRank(m) > 0 ? mlaQRank(m) : 0) + m.mlaKvLoraRank;
    }
    const double qOut = heads * hd;
    const double kvOut = static_cast<double>(m.kvHeads) * hd;
    if (m.biases || m.qkvBias)
        p += qOut + 2.0 * kvOut;
    if (m.biases || m.oBias)
        p += m.hidden; // o_proj bias
    if (m.qkNorm == ModelArch::QkNorm::PerHead)
        p += 2.0 * hd;
    else if (m.qkNorm == ModelArch::QkNorm::Full)
        p += qOut + kvOut;
    if (m.attentionSinks)
        p += heads;
    return p;
}

} // namespace detail

namespace {

/// The matrices of one FFN of inner width `inner` (no biases).
double ffnMatrixParams(const ModelArch& m, double inner)
{
    return (m.ffn == FfnKind::SwiGLU ? 3.0 : 2.0) * m.hidden * inner;
}

/// One FFN (a dense FFN, or one expert) of inner width `inner`.
double ffnParams(const ModelArch& m, double inner)
{
    const double h = m.hidden;
    if (m.ffn == FfnKind::SwiGLU)
        return 3.0 * h * inner + (m.biases ? 2.0 * inner + h : 0.0);
    return 2.0 * h * inner + (m.biases ? inner + h : 0.0);
}

/// One routed expert, its biases included (gpt-oss).
double expertParams(const ModelArch& m)
{
    const double inner = dbl(m.moe.expertFfnHidden);
    double p = ffnParams(m, inner);
    if (m.moe.expertBias && !m.biases)
        p += (m.ffn == FfnKind::SwiGLU ? 2.0 * inner : inner) + m.hidden;
    return p;
}

double sharedWidth(const ModelArch& m)
{
    return dbl(m.moe.sharedFfnHidden > 0 ? m.moe.sharedFfnHidden : m.moe.expertFfnHidden);
}

/// One MoE block: routed and shared experts, the router (and its bias), the shared expert's gate.
double moeBlockParams(const ModelArch& m)
{
    const double h = m.hidden;
    double p = m.moe.experts * expertParams(m) + m.moe.shared * ffnParams(m, sharedWidth(m));
    p += h * m.moe.experts + (m.moe.routerBias ? m.moe.experts : 0);
    if (m.moe.sharedGate && m.moe.shared > 0)
        p += h;
    return p;
}

double moeBlockMatrixParams(const ModelArch& m)
{
    return m.moe.experts * ffnMatrixParams(m, dbl(m.moe.expertFfnHidden))
         + m.moe.shared * ffnMatrixParams(m, sharedWidth(m));
}

int ffnLayerCount(const ModelArch& m) { return m.layers - m.ffnFreeLayers; }

int denseFfnLayerCount(const ModelArch& m) { return ffnLayerCount(m) - m.moeLayers(); }

/// Routed experts a token skips, summed over all MoE layers.
double inactiveExpertParams(const ModelArch& m)
{
    if (!m.moe.enabled())
        return 0;
    return static_cast<double>(m.moeLayers()) * (m.moe.experts - m.moe.active) * expertParams(m);
}

/// Tokens a sequence of `tokens` keeps in a layer attending within `window`.
double windowTokens(double tokens, int window) { return window > 0 ? std::min(tokens, double(window)) : tokens; }

/// Query-key pairs of a causal sequence of s tokens when each query sees at
/// most `window` keys (window 0: all).
double windowPairs(double s, double window)
{
    if (window <= 0 || s <= window)
        return s * s / 2;
    return window * window / 2 + (s - window) * window;
}

std::string billions(double v)
{
    char buf[32];
    if (v >= 1e9)
        std::snprintf(buf, sizeof buf, "%.1fB", v / 1e9);
    else
        std::snprintf(buf, sizeof buf, "%.0fM", v / 1e6);
    return buf;
}

} // namespace

// ---------------------------------------------------------------------------
// CheckpointQuant

double CheckpointQuant::bytesPerParam() const
{
    switch (kind) {
    case QuantKind::None: return 2;
    // OCP MX: 32 E2M1 values share one E8M0 scale byte = 4.25 bits.
    case QuantKind::MXFP4: return 0.5 + 1.0 / 32;
    // NVFP4 (ModelOpt, compressed-tensors nvfp4-pack-quantized): 16 E2M1 values
    // share one E4M3 scale byte (plus one fp32 scale per tensor, negligible).
    case QuantKind::NVFP4: return 0.5 + 1.0 / (groupSize > 0 ? groupSize : 16);
    // One fp32 scale per 128 x 128 block (DeepSeek-V3 weight_block_size).
    case QuantKind::FP8Block: return 1.0 + 4.0 / (double(std::max(1, groupSize)) * std::max(1, groupSize));
    case QuantKind::FP8: return 1.0;
    // AWQ/GPTQ: packed int weights + per group an fp16 scale and a packed zero point.
    case QuantKind::IntGroup:
        return bits / 8.0 + (groupSize > 0 ? (2.0 + (zeroPoint ? bits / 8.0 : 0.0)) / groupSize : 0.0);
    // MLX affine: packed weights, a 16-bit scale and a 16-bit bias per group.
    case QuantKind::Affine: return bits / 8.0 + (groupSize > 0 ? 4.0 / groupSize : 0.0);
    // bitsandbytes NF4: absmax per 64 values, fp32, or (double quant) 8-bit
    // with an fp32 second-level scale per 256 blocks.
    case QuantKind::NF4: return 0.5 + (doubleQuant ? 1.0 / 64 + 4.0 / (64.0 * 256) : 4.0 / 64);
    case QuantKind::Int8: return 1.0; // LLM.int8: int8 weights, one fp32 scale per row (negligible)
    }
    return 2;
}

std::string CheckpointQuant::label() const
{
    switch (kind) {
    case QuantKind::None: return "";
    case QuantKind::MXFP4: return "MXFP4";
    case QuantKind::NVFP4: return "NVFP4";
    case QuantKind::Affine: return "MLX int" + std::to_string(bits) + " (group " + std::to_string(groupSize) + ")";
    case QuantKind::FP8Block:
        return "FP8 (" + std::to_string(groupSize) + "x" + std::to_string(groupSize) + " blocks)";
    case QuantKind::FP8: return "FP8";
    case QuantKind::IntGroup: {
        std::string m = method == "awq"        ? "AWQ"
                      : method == "gptq"       ? "GPTQ"
                      : method == "modelopt"   ? "ModelOpt"
                      : method.find("auto-round") != std::string::npos ? "AutoRound"
                                                                        : method;
        return m + " int" + std::to_string(bits) + (groupSize > 0 ? " (group " + std::to_string(groupSize) + ")" : "");
    }
    case QuantKind::NF4: return std::string("bitsandbytes NF4") + (doubleQuant ? " (double quant)" : "");
    case QuantKind::Int8: return "bitsandbytes int8";
    }
    return "";
}

// ---------------------------------------------------------------------------
// ModelArch

double ModelArch::embeddingParams() const
{
    if (family == ModelFamily::Vision)
        return 0;
    const double h = hidden;
    double p = dbl(vocab) * h;
    if (positional == Positional::Learned)
        p += dbl(maxPositions) * h;
    if (family == ModelFamily::Encoder)
        p += dbl(kEncoderTokenTypes) * h;
    return p;
}

int ModelArch::attentionLayers() const { return layers - linearLayers - mlpOnlyLayers; }

int ModelArch::fullAttentionLayers() const { return attentionLayers() - slidingLayers - chunkedLayers; }

int ModelArch::moeLayers() const
{
    if (!moe.enabled())
        return 0;
    int n = 0;
    for (int i = moe.denseLayers; i < layers; ++i)
        n += isMoeLayer(i) ? 1 : 0;
    return std::min(n, ffnLayerCount(*this));
}

bool ModelArch::isMoeLayer(int i) const
{
    return moe.enabled() && i >= moe.denseLayers && (i + 1) % std::max(1, moe.sparseStep) == 0;
}

double ModelArch::mtpParams() const
{
    if (mtpLayers <= 0 || family != ModelFamily::Decoder)
        return 0;
    const double h = hidden;
    // DeepSeek-V3's MTP module: a full decoder layer (MoE, as the last layers)
    // after eh_proj (2h -> h) over the normed hidden state and embedding (enorm,
    // hnorm), with its own final norm (shared_head.norm); the checkpoint also
    // stores copies of the embedding and head.
    double layer = attentionParams(*this) + normsPerLayer * normParams(*this)
                 + (moe.enabled() ? moeBlockParams(*this) : ffnParams(*this, dbl(ffnHidden)));
    layer += 2.0 * h * h + 3.0 * normParams(*this);
    if (mtpOwnEmbeddings)
        layer += 2.0 * dbl(vocab) * h;
    return mtpLayers * layer;
}

double ModelArch::routedExpertParams() const
{
    return moe.enabled() ? moeLayers() * moe.experts * expertParams(*this) : 0;
}

double ModelArch::totalParams() const
{
    if (family == ModelFamily::Vision)
        return vision.params;
    const double h = hidden;
    double p = embeddingParams();
    p += static_cast<double>(attentionLayers()) * attentionParams(*this);
    p += static_cast<double>(linearLayers) * linearLayerParams;
    p += static_cast<double>(layers) * normsPerLayer * normParams(*this);
    p += static_cast<double>(denseFfnLayerCount(*this)) * ffnParams(*this, dbl(ffnHidden));
    p += static_cast<double>(moeLayers()) * moeBlockParams(*this);
    if (family == ModelFamily::Encoder) {
        // BertModel: embedding LayerNorm and the pooler (dense h x h + bias);
        // no final norm and no MLM head (BertModel, not BertForMaskedLM).
        p += normParams(*this) + h * h + h;
    } else {
        p += normParams(*this); // final norm
        if (!tiedEmbeddings)
            p += dbl(vocab) * h; // separate LM head
    }
    return p + mtpParams() + visionTowerParams;
}

double ModelArch::activeParams() const
{
    // A text token passes neither the vision tower nor the MTP layers.
    return totalParams() - inactiveExpertParams(*this) - mtpParams() - visionTowerParams;
}

double ModelArch::modelCardActiveParams() const
{
    // OpenAI's gpt-oss card (arXiv 2508.10925, table 1: 5.13B of 116.83B): the
    // input embedding table is a row lookup, not active; the LM head is (a tied
    // one counts once, as the head). Dense models: every parameter.
    double p = activeParams();
    if (moe.enabled() && family == ModelFamily::Decoder && !tiedEmbeddings)
        p -= embeddingParams();
    return p;
}

double ModelArch::matmulParamsPerToken() const
{
    // Vision models have no tokens: their compute is VisionSpec::gflopsPerImage.
    if (family == ModelFamily::Vision)
        return 0;
    double p = activeParams() - embeddingParams();
    // A tied LM head is still a vocab x hidden matmul per token; an untied one
    // is already in activeParams. Encoders (BertModel) have no head.
    if (family == ModelFamily::Decoder && tiedEmbeddings)
        p += dbl(vocab) * hidden;
    return p;
}

double ModelArch::kvElementsPerTokenPerLayer() const
{
    if (family != ModelFamily::Decoder)
        return 0;
    if (mlaKvLoraRank > 0)
        return double(mlaKvLoraRank) + mlaRopeHeadDim;
    return 2.0 * kvHeads * headDim;
}

double ModelArch::kvElementsPerToken() const
{
    // Only decoders generate, so only they keep a KV cache.
    return static_cast<double>(attentionLayers()) * kvElementsPerTokenPerLayer();
}

double ModelArch::kvBytesPerSequence(double tokens, double kvBytes, double block) const
{
    if (family != ModelFamily::Decoder)
        return 0;
    auto paged = [&](double t) { return block > 1 ? std::ceil(t / block) * block : t; };
    const double perLayer = kvElementsPerTokenPerLayer() * kvBytes;
    double b = fullAttentionLayers() * paged(tokens) * perLayer;
    b += slidingLayers * paged(windowTokens(tokens, slidingWindow)) * perLayer;
    b += chunkedLayers * paged(windowTokens(tokens, chunkSize)) * perLayer;
    b += linearLayers * linearStateBytes;
    return b;
}

double ModelArch::kvElementsReadPerToken(double tokens) const
{
    if (tokens <= 0)
        return kvElementsPerToken();
    double keys = fullAttentionLayers() * tokens + slidingLayers * windowTokens(tokens, slidingWindow)
                + chunkedLayers * windowTokens(tokens, chunkSize);
    return keys / tokens * kvElementsPerTokenPerLayer();
}

double ModelArch::causalAttentionLayerEquivalents(double s) const
{
    if (s <= 0)
        return attentionLayers();
    // Chunked attention (Llama 4): a query sees the keys of its own chunk, so
    // whole chunks cost chunk^2 / 2 each.
    double chunked = 0;
    if (chunkedLayers > 0) {
        const double c = chunkSize > 0 ? chunkSize : s;
        const double whole = std::floor(s / c);
        const double rest = s - whole * c;
        chunked = chunkedLayers * (whole * c * c / 2 + rest * rest / 2);
    }
    const double pairs = fullAttentionLayers() * s * s / 2 + slidingLayers * windowPairs(s, slidingWindow) + chunked;
    return pairs / (s * s / 2);
}

double ModelArch::checkpointBytes(bool includeMtp) const
{
    const double all = includeMtp ? totalParams() : loadedParams();
    if (!quant.quantized() || family == ModelFamily::Vision)
        return all * storageBytes;
    double q = 0;
    if (quant.expertsOnly) {
        q = moeLayers() * moe.experts * ffnMatrixParams(*this, dbl(moe.expertFfnHidden));
    } else {
        const CheckpointQuant::Kept& k = quant.kept;
        q = attentionLayers() * attentionMatrixParams(*this) * (1 - k.attention)
          + linearLayers * linearLayerParams * (1 - k.linearMixer)
          + denseFfnLayerCount(*this) * ffnMatrixParams(*this, dbl(ffnHidden)) * (1 - k.denseFfn)
          + moeLayers() * (moe.experts * ffnMatrixParams(*this, dbl(moe.expertFfnHidden)) * (1 - k.experts)
                           + moe.shared * ffnMatrixParams(*this, sharedWidth(*this)) * (1 - k.shared));
        if (quant.embeddingsQuantized)
            q += dbl(vocab) * hidden * (tiedEmbeddings ? 1 : 2);
        if (includeMtp && mtpLayers > 0)
            q += mtpLayers * (attentionMatrixParams(*this)
                              + (moe.enabled() ? moeBlockMatrixParams(*this) : ffnMatrixParams(*this, dbl(ffnHidden)))
                              + 2.0 * hidden * hidden);
    }
    return q * quant.bytesPerParam() + (all - q) * storageBytes;
}

std::string ModelArch::summary() const
{
    if (family == ModelFamily::Vision)
        return name + ": " + billions(totalParams()) + " parameters";
    std::string s = name + ": " + billions(totalParams()) + " parameters";
    if (moe.enabled())
        s += " (" + billions(modelCardActiveParams()) + " active)";
    s += ", " + std::to_string(layers) + " layers";
    std::vector<std::string> kinds;
    if (fullAttentionLayers() > 0)
        kinds.push_back(std::to_string(fullAttentionLayers()) + " full");
    if (slidingLayers > 0)
        kinds.push_back(std::to_string(slidingLayers) + " sliding (" + std::to_string(slidingWindow) + ")");
    if (chunkedLayers > 0)
        kinds.push_back(std::to_string(chunkedLayers) + " chunked (" + std::to_string(chunkSize) + ")");
    if (linearLayers > 0)
        kinds.push_back(std::to_string(linearLayers) + " " + (linearKind.empty() ? "linear" : linearKind));
    if (mlpOnlyLayers > 0)
        kinds.push_back(std::to_string(mlpOnlyLayers) + " MLP-only");
    if (kinds.size() > 1 || slidingLayers + chunkedLayers + linearLayers + mlpOnlyLayers > 0) {
        s += ": ";
        for (std::size_t i = 0; i < kinds.size(); ++i)
            s += (i ? " + " : "") + kinds[i];
    }
    if (mlaKvLoraRank > 0)
        s += ", MLA (latent " + std::to_string(mlaKvLoraRank) + ")";
    if (moe.enabled()) {
        s += ", " + std::to_string(moe.experts) + " experts (" + std::to_string(moe.active) + " active";
        if (moe.shared > 0)
            s += ", " + std::to_string(moe.shared) + " shared";
        s += ")";
    }
    if (mtpLayers > 0)
        s += ", MTP head " + billions(mtpParams());
    if (visionTowerParams > 0)
        s += ", vision tower " + billions(visionTowerParams);
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.1f GiB", checkpointBytes() / 1073741824.0);
    if (quant.quantized())
        s += std::string(", ") + (quant.expertsOnly ? "experts" : "weights") + " in " + quant.label() + ": " + buf;
    return s;
}

std::vector<ModelArch::Linear> ModelArch::layerLinears() const
{
    std::vector<Linear> out;
    if (family == ModelFamily::Vision)
        return out;
    const std::int64_t h = hidden;
    const std::int64_t qOut = std::int64_t(heads) * headDim;
    if (mlaKvLoraRank > 0) {
        // MLA has no q/k/v projections; these are DeepSeek-V3's HF module names.
        const std::int64_t qRank = static_cast<std::int64_t>(mlaQRank(*this));
        if (qRank > 0) {
            out.push_back({"q_a_proj", h, qRank, 1});
            out.push_back({"q_b_proj", qRank, std::int64_t(heads) * (headDim + mlaRopeHeadDim), 1});
        } else {
            out.push_back({"q_proj", h, std::int64_t(heads) * (headDim + mlaRopeHeadDim), 1});
        }
        out.push_back({"kv_a_proj_with_mqa", h, std::int64_t(mlaKvLoraRank) + mlaRopeHeadDim, 1});
        out.push_back({"kv_b_proj", mlaKvLoraRank, std::int64_t(heads) * (headDim + headDim), 1});
        out.push_back({"o_proj", qOut, h, 1});
    } else {
        // GPT-2 fuses q/k/v into one c_attn (and names o_proj c_proj); they are
        // listed split so every model answers to the same names.
        const std::int64_t kvOut = std::int64_t(kvHeads) * headDim;
        out.push_back({"q_proj", h, qOut, 1});
        out.push_back({"k_proj", h, kvOut, 1});
        out.push_back({"v_proj", h, kvOut, 1});
        out.push_back({"o_proj", qOut, h, 1});
    }
    // MoE layers: one entry per FFN matrix of an expert, counted once per expert
    // a token passes through (routed active + shared). DeepSeek-V3's leading
    // dense layers (18432 = 9 x 2048) match that active width exactly; the
    // router gate (hidden x experts) is left out as negligible.
    std::int64_t inner = ffnHidden;
    int perLayer = 1;
    if (moe.enabled()) {
        inner = moe.expertFfnHidden;
        perLayer = moe.active + moe.shared;
    }
    if (ffn == FfnKind::SwiGLU)
        out.push_back({"gate_proj", h, inner, perLayer});
    out.push_back({"up_proj", h, inner, perLayer});
    out.push_back({"down_proj", inner, h, perLayer});
    return out;
}


} // namespace gp
