// The model's shape checked and read: the checks every reader shares (the explicit
// form, config.json import in hfconfig.cpp, the size-only solver) and
// ModelArch::validate, and the explicit form's reader (modelFromExplicit). The
// parameter, KV cache and FLOP counts of a shape are in model.cpp.
#include "core/model/model.h"

#include "core/base/errors.h"
#include "core/base/jsonread.h"
#include "core/model/modelcheck.h"

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
    // Layer kinds: the sliding/chunked and linear layers are among the layers.
    checkRange(out, path, k.linearLayers, m.linearLayers, 0, std::max(0, m.layers - 1));
    if (m.linearLayers > 0)
        checkRange(out, path, k.linearStateBytes, m.linearStateBytes, 1, 1e12);
    const int attention = m.layers - m.linearLayers - m.mlpOnlyLayers;
    checkRange(out, path, k.slidingLayers, m.slidingLayers + m.chunkedLayers, 0, std::max(0, attention));
    if (m.slidingLayers > 0)
        checkRange(out, path, k.slidingWindow, m.slidingWindow, 1, dbl(kMaxPositions));
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

using namespace detail;

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

    // Layer kinds (spec: sliding_window/sliding_layers, linear_layers/linear_state_bytes).
    if (r.has("sliding_layers") || r.has("sliding_window")) {
        m.slidingWindow = toInt(r.integer("sliding_window", 1, kMaxPositions));
        m.slidingLayers = toInt(r.integer("sliding_layers", 0, kMaxLayers));
    }
    if (r.has("linear_layers") || r.has("linear_state_bytes")) {
        m.linearLayers = toInt(r.integer("linear_layers", 0, kMaxLayers));
        m.linearStateBytes = dbl(r.integer("linear_state_bytes", 1, 1'000'000'000'000));
        m.linearKind = "linear";
    }

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
    if (m.linearLayers > 0) {
        // The form gives the state, not the mixer's shape: a linear layer is
        // counted with the parameters an attention layer of this shape has.
        m.linearLayerParams = attentionParams(m);
        m.readNotes.push_back("linear_layers: each counted with an attention layer's parameters (" +
                              numberText(std::round(m.linearLayerParams)) + "); the form has no mixer shape");
    }

    m.source = "explicit";
    m.name = std::string("Custom ") + (encoder ? "encoder" : "decoder") + " (" + std::to_string(m.layers) + " x "
           + std::to_string(m.hidden) + (m.moe.enabled() ? ", MoE" : "") + ")";
    return m;
}

} // namespace gp
