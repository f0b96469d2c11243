#include "model.h"

#include "errors.h"
#include "jsonread.h"
#include "modelcheck.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

namespace gp {

namespace detail {

// ---------------------------------------------------------------------------
// Validation shared by validate(), the explicit reader and the HF reader.

std::string numberText(double v)
{
    if (std::isfinite(v) && std::floor(v) == v && std::abs(v) < 1e15)
        return std::to_string(static_cast<long long>(v));
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

void checkRange(std::vector<Diagnostic>& out, const std::string& path, const std::string& key, double value,
                double lo, double hi)
{
    if (!(value >= lo))
        out.push_back({joinPath(path, key), "must be at least " + numberText(lo) + ", got " + numberText(value)});
    else if (value > hi)
        out.push_back({joinPath(path, key), "must be at most " + numberText(hi) + ", got " + numberText(value)});
}

void checkArch(const ModelArch& m, const std::string& path, const KeyNames& k, std::vector<Diagnostic>& out)
{
    if (m.family == ModelFamily::Vision) {
        const VisionSpec& v = m.vision;
        checkRange(out, path, "vision.params", v.params, 1, 1e13);
        checkRange(out, path, "vision.gflops_per_image", v.gflopsPerImage, 1e-6, 1e7);
        checkRange(out, path, "vision.train_activation_bytes_per_image", v.trainActivationBytesPerImage, 0, 1e13);
        checkRange(out, path, "vision.infer_activation_bytes_per_image", v.inferActivationBytesPerImage, 0, 1e13);
        checkRange(out, path, "vision.native_image_size", v.nativeImageSize, 1, 100'000);
        checkRange(out, path, "vision.kernels_per_step", v.kernelsPerStep, 0, 1e7);
        return;
    }
    checkRange(out, path, k.layers, m.layers, 1, dbl(kMaxLayers));
    checkRange(out, path, k.hidden, m.hidden, 1, dbl(kMaxHidden));
    checkRange(out, path, k.heads, m.heads, 1, dbl(kMaxHeads));
    checkRange(out, path, k.headDim, m.headDim, 1, dbl(kMaxHeadDim));
    checkRange(out, path, k.ffnHidden, dbl(m.ffnHidden), 1, dbl(kMaxFfnHidden));
    checkRange(out, path, k.vocab, dbl(m.vocab), 1, dbl(kMaxVocab));
    checkRange(out, path, k.maxPositions, dbl(m.maxPositions), m.positional == Positional::Learned ? 1 : 0,
               dbl(kMaxPositions));
    checkRange(out, path, k.kvLoraRank, m.mlaKvLoraRank, 0, dbl(kMaxLoraRank));
    checkRange(out, path, k.ropeHeadDim, m.mlaRopeHeadDim, 0, dbl(kMaxHeadDim));
    // Grouped-query attention shares each KV head among a whole group of query heads.
    if (m.kvHeads < 1)
        out.push_back({joinPath(path, k.kvHeads), "must be a positive integer, got " + std::to_string(m.kvHeads)});
    else if (m.heads >= 1 && m.kvHeads > m.heads)
        out.push_back({joinPath(path, k.kvHeads), "must be at most " + k.heads + " (" + std::to_string(m.heads)
                                                      + "), got " + std::to_string(m.kvHeads)});
    else if (m.heads >= 1 && m.heads % m.kvHeads != 0)
        out.push_back({joinPath(path, k.kvHeads), "must divide " + k.heads + " (" + std::to_string(m.heads)
                                                      + ") evenly, got " + std::to_string(m.kvHeads)});
    if (m.moe.enabled() || m.moe.active != 0 || m.moe.shared != 0) {
        const MoeSpec& e = m.moe;
        checkRange(out, path, k.experts, e.experts, 1, dbl(kMaxExperts));
        if (e.active < 1)
            out.push_back({joinPath(path, k.active), "must be a positive integer, got " + std::to_string(e.active)});
        else if (e.experts >= 1 && e.active > e.experts)
            out.push_back({joinPath(path, k.active), "must be at most " + k.experts + " ("
                                                         + std::to_string(e.experts) + "), got "
                                                         + std::to_string(e.active)});
        checkRange(out, path, k.shared, e.shared, 0, dbl(kMaxExperts));
        checkRange(out, path, k.expertFfn, dbl(e.expertFfnHidden), 1, dbl(kMaxFfnHidden));
        checkRange(out, path, k.denseLayers, e.denseLayers, 0, std::max(0, m.layers - 1));
    }
}

void throwIfAny(std::vector<Diagnostic> problems)
{
    if (!problems.empty())
        throw InputError(std::move(problems));
}

int defaultHeadDim(ObjectReader& r, const std::string& headDimKey, std::int64_t hidden, std::int64_t heads,
                   const std::string& hiddenKey, const std::string& headsKey)
{
    if (r.has(headDimKey))
        return toInt(r.integer(headDimKey, 1, kMaxHeadDim));
    // Skipped when hidden or heads was already reported (they hold fallbacks).
    if (r.ok() && (heads <= 0 || hidden % heads != 0)) {
        r.fail(headDimKey, "missing, and " + hiddenKey + " (" + std::to_string(hidden) + ") is not a multiple of "
                               + headsKey + " (" + std::to_string(heads) + ")");
        return 1;
    }
    return std::max(1, toInt(hidden / std::max<std::int64_t>(1, heads)));
}

} // namespace detail

namespace {

using namespace detail;

// ---------------------------------------------------------------------------
// Parameter counting. Everything is computed from the shape so the three
// input forms (preset, explicit, hf_config) can never disagree.

/// One normalization layer: LayerNorm has weight + bias, RMSNorm weight only.
double normParams(const ModelArch& m) { return m.biases ? 2.0 * m.hidden : dbl(m.hidden); }

double attentionParams(const ModelArch& m)
{
    const double h = m.hidden;
    const double hd = m.headDim;
    const double heads = m.heads;
    if (m.mlaKvLoraRank > 0) {
        // Multi-head latent attention (DeepSeek-V3 modeling code):
        // q_a_proj, q_a_layernorm, q_b_proj, kv_a_proj_with_mqa,
        // kv_a_layernorm, kv_b_proj, o_proj; no biases.
        const double qRank = dbl(kMlaQLoraRank);
        const double kvRank = m.mlaKvLoraRank;
        const double rope = m.mlaRopeHeadDim;
        return h * qRank + qRank + qRank * heads * (hd + rope) + h * (kvRank + rope) + kvRank
             + kvRank * heads * (hd + hd) + heads * hd * h;
    }
    const double qOut = heads * hd;
    const double kvOut = static_cast<double>(m.kvHeads) * hd;
    double p = h * qOut + 2.0 * h * kvOut + qOut * h;
    if (m.biases || m.qkvBias)
        p += qOut + 2.0 * kvOut;
    if (m.biases)
        p += h; // o_proj bias
    return p;
}

/// One FFN (a dense FFN, or one expert) of inner width `inner`.
double ffnParams(const ModelArch& m, double inner)
{
    const double h = m.hidden;
    if (m.ffn == FfnKind::SwiGLU)
        return 3.0 * h * inner + (m.biases ? 2.0 * inner + h : 0.0);
    return 2.0 * h * inner + (m.biases ? inner + h : 0.0);
}

int moeLayerCount(const ModelArch& m) { return m.moe.enabled() ? m.layers - m.moe.denseLayers : 0; }

/// Routed experts a token skips, summed over all MoE layers.
double inactiveExpertParams(const ModelArch& m)
{
    if (!m.moe.enabled())
        return 0;
    return static_cast<double>(moeLayerCount(m)) * (m.moe.experts - m.moe.active)
         * ffnParams(m, dbl(m.moe.expertFfnHidden));
}

} // namespace

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

double ModelArch::totalParams() const
{
    if (family == ModelFamily::Vision)
        return vision.params;
    const double h = hidden;
    const int moeLayers = moeLayerCount(*this);
    const int denseLayers = layers - moeLayers;

    double p = embeddingParams();
    p += static_cast<double>(layers) * (attentionParams(*this) + 2.0 * normParams(*this));
    p += static_cast<double>(denseLayers) * ffnParams(*this, dbl(ffnHidden));
    if (moeLayers > 0) {
        const double experts = static_cast<double>(moe.experts) + moe.shared;
        const double router = h * moe.experts; // gate linear, no bias
        p += static_cast<double>(moeLayers) * (experts * ffnParams(*this, dbl(moe.expertFfnHidden)) + router);
    }
    if (family == ModelFamily::Encoder) {
        // BertModel: embedding LayerNorm and the pooler (dense h x h + bias);
        // no final norm and no MLM head (BertModel, not BertForMaskedLM).
        p += normParams(*this) + h * h + h;
    } else {
        p += normParams(*this); // final norm
        if (!tiedEmbeddings)
            p += dbl(vocab) * h; // separate LM head
    }
    return p;
}

double ModelArch::activeParams() const
{
    return totalParams() - inactiveExpertParams(*this);
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

double ModelArch::kvElementsPerToken() const
{
    // Only decoders generate, so only they keep a KV cache.
    if (family != ModelFamily::Decoder)
        return 0;
    if (mlaKvLoraRank > 0)
        return static_cast<double>(layers) * (mlaKvLoraRank + mlaRopeHeadDim);
    return 2.0 * layers * kvHeads * headDim;
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
        out.push_back({"q_a_proj", h, kMlaQLoraRank, 1});
        out.push_back({"q_b_proj", kMlaQLoraRank, std::int64_t(heads) * (headDim + mlaRopeHeadDim), 1});
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

void ModelArch::validate(const std::string& path) const
{
    std::vector<Diagnostic> problems;
    checkArch(*this, path, KeyNames{}, problems);
    throwIfAny(std::move(problems));
}

// ---------------------------------------------------------------------------
// Explicit form

ModelArch modelFromExplicit(const nlohmann::json& spec, const std::string& path)
{
    if (!spec.is_object())
        throw InputError(path, "must be a JSON object");

    ObjectReader r(spec, path);
    ModelArch m;
    const bool encoder = r.choiceOr("family", {"decoder", "encoder"}, 0) == 1;
    m.family = encoder ? ModelFamily::Encoder : ModelFamily::Decoder;
    m.layers = toInt(r.integer("layers", 1, kMaxLayers));
    m.hidden = toInt(r.integer("hidden", 1, kMaxHidden));
    m.heads = toInt(r.integer("heads", 1, kMaxHeads));
    m.kvHeads = toInt(r.integerOr("kv_heads", m.heads, 1, kMaxHeads));
    m.headDim = defaultHeadDim(r, "head_dim", m.hidden, m.heads, "hidden", "heads");
    m.ffnHidden = r.integer("ffn_hidden", 1, kMaxFfnHidden);
    // Defaults follow the family: BERT-style encoders, Llama-style decoders.
    m.ffn = r.choiceOr("ffn", {"swiglu", "gelu"}, encoder ? 1 : 0) == 1 ? FfnKind::GELU : FfnKind::SwiGLU;
    m.vocab = r.integer("vocab", 1, kMaxVocab);
    m.tiedEmbeddings = r.booleanOr("tied_embeddings", false);
    m.positional =
        r.choiceOr("positional", {"rope", "learned"}, encoder ? 1 : 0) == 1 ? Positional::Learned : Positional::Rope;
    if (m.positional == Positional::Learned && !r.has("max_positions"))
        r.fail("max_positions", "missing (required with learned positions: they are parameters)");
    else
        m.maxPositions = r.integerOr("max_positions", 0, m.positional == Positional::Learned ? 1 : 0, kMaxPositions);
    // The form has no biases key; they follow the style the FFN implies:
    // GELU models (GPT-2, BERT) have linear biases and LayerNorm, SwiGLU
    // models (Llama family) have neither. Worth 0.1% of GPT-2's count.
    m.biases = encoder || m.ffn == FfnKind::GELU;

    if (r.has("moe")) {
        const nlohmann::json& moeJson = r.at("moe");
        if (!moeJson.is_object()) {
            r.fail("moe", "must be an object, got " + detail::describe(moeJson));
        } else {
            ObjectReader mr(moeJson, r.keyPath("moe"));
            m.moe.experts = toInt(mr.integer("experts", 1, kMaxExperts));
            m.moe.active = toInt(mr.integer("active", 1, kMaxExperts));
            m.moe.shared = toInt(mr.integerOr("shared", 0, 0, kMaxExperts));
            m.moe.expertFfnHidden = mr.integerOr("expert_ffn_hidden", m.ffnHidden, 1, kMaxFfnHidden);
            r.absorb(mr);
        }
    }

    std::vector<Diagnostic> problems = r.takeProblems();
    if (problems.empty())
        checkArch(m, path, KeyNames{}, problems);
    throwIfAny(std::move(problems));

    m.source = "explicit";
    m.name = std::string("Custom ") + (encoder ? "encoder" : "decoder") + " (" + std::to_string(m.layers) + " x "
           + std::to_string(m.hidden) + (m.moe.enabled() ? ", MoE" : "") + ")";
    return m;
}

} // namespace gp
