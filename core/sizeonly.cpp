#include "sizeonly.h"

#include "errors.h"
#include "modelcheck.h"
#include "presets.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <utility>

namespace gp {

namespace {

using namespace detail;

/// "124M", "1.1B", "405B", "1.2T".
std::string formatCount(double n)
{
    const char* suffix = "";
    double v = n;
    if (n >= 1e12) {
        v = n / 1e12;
        suffix = "T";
    } else if (n >= 1e9) {
        v = n / 1e9;
        suffix = "B";
    } else if (n >= 1e6) {
        v = n / 1e6;
        suffix = "M";
    } else if (n >= 1e3) {
        v = n / 1e3;
        suffix = "K";
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g%s", v, suffix);
    return buf;
}

struct Anchor {
    int layers;
    int hidden;
};

// Known shapes, smallest first: GPT-2 small/medium (125M, 350M), GPT-3 XL /
// OPT-1.3B (24x2048), Llama 3.2 3B, Llama 3 8B, Llama 2 13B, Code Llama 34B,
// Llama 3 70B, GPT-3 175B, Llama 3.1 405B. They place a size on the width
// axis; the depth is then solved for the size.
constexpr std::array<Anchor, 10> kAnchors = {{
    {12, 768},
    {24, 1024},
    {24, 2048},
    {28, 3072},
    {32, 4096},
    {40, 5120},
    {48, 8192},
    {80, 8192},
    {96, 12288},
    {126, 16384},
}};

constexpr double kFfnRatio = 3.5; // SwiGLU FFN width / hidden in Llama 3 (14336 / 4096)

/// The fixed (non-size) choices for a family; vocabulary and tying depend on
/// the model's total size `params`.
ModelArch styleFor(ModelFamily family, double params, int layers, int hidden)
{
    ModelArch m;
    m.family = family;
    m.layers = layers;
    m.hidden = hidden;
    if (family == ModelFamily::Encoder) {
        // BERT style: GELU, biases, LayerNorm, learned positions, MHA.
        m.headDim = 64;
        m.heads = std::max(1, hidden / 64);
        m.kvHeads = m.heads;
        m.ffn = FfnKind::GELU;
        m.ffnHidden = 4 * std::int64_t(hidden);
        m.vocab = 30522;
        m.tiedEmbeddings = true;
        m.positional = Positional::Learned;
        m.maxPositions = 512;
        m.biases = true;
        return m;
    }
    // Llama style. Head dim 64 up to hidden 2048 (GPT-3 XL, Llama 3.2 1B),
    // 128 above; GQA with up to 8 KV heads.
    m.headDim = hidden > 2048 ? 128 : 64;
    m.heads = std::max(1, hidden / m.headDim);
    m.kvHeads = 1;
    for (int kv = std::min(8, m.heads); kv >= 1; --kv) {
        if (m.heads % kv == 0) {
            m.kvHeads = kv;
            break;
        }
    }
    m.ffn = FfnKind::SwiGLU;
    m.ffnHidden = (static_cast<std::int64_t>(kFfnRatio * hidden) + 255) / 256 * 256;
    // Vocabulary: below 1B the 128K Llama 3 vocabulary would be a third or
    // more of the model, so those take Llama 2's 32000 tokens, tied. From 1B
    // the Llama 3 vocabulary, tied below 7B (as Llama 3.2 1B/3B do) and with a
    // separate LM head from 7B (Llama 3.1 8B and up).
    m.vocab = params < 1e9 ? 32000 : 128256;
    m.tiedEmbeddings = params < 7e9;
    m.positional = Positional::Rope;
    m.maxPositions = 8192;
    m.biases = false;
    return m;
}

/// Hidden width for a size: log-log interpolation between the anchors'
/// nominal sizes (each anchor in the family's style), extrapolated from the
/// end segments outside the table. `styleParams` (the model's real size)
/// picks the vocabulary.
double interpolateHidden(ModelFamily family, double styleParams, double target)
{
    std::array<double, kAnchors.size()> nominal{};
    for (std::size_t i = 0; i < kAnchors.size(); ++i)
        nominal[i] = styleFor(family, styleParams, kAnchors[i].layers, kAnchors[i].hidden).totalParams();
    std::size_t seg = 0;
    while (seg + 2 < kAnchors.size() && target > nominal[seg + 1])
        ++seg;
    const double t =
        (std::log(target) - std::log(nominal[seg])) / (std::log(nominal[seg + 1]) - std::log(nominal[seg]));
    const double a = kAnchors[seg].hidden;
    const double b = kAnchors[seg + 1].hidden;
    return std::exp(std::log(a) + t * (std::log(b) - std::log(a)));
}

/// Rounds a width to whole attention heads, and with 16 or more heads to a
/// multiple of 8 heads, so GQA gets its usual 8 KV heads (3840 becomes 4096,
/// 4864 becomes 5120). Uses styleFor's head-dim rule.
int niceHidden(ModelFamily family, double hiddenF)
{
    const int headDim = family == ModelFamily::Decoder && hiddenF > 2048 ? 128 : 64;
    long long heads = std::max(1LL, std::llround(hiddenF / headDim));
    if (heads >= 16)
        heads = std::llround(static_cast<double>(heads) / 8.0) * 8;
    else if (heads > 2)
        heads = heads / 2 * 2;
    return std::clamp(toInt(heads * headDim), 64, toInt(kMaxHidden));
}

/// The layer count whose total is nearest `target` (totalParams is linear in it).
int solveLayers(ModelArch m, double target)
{
    m.layers = 0;
    const double fixed = m.totalParams();
    m.layers = 1;
    const double perLayer = m.totalParams() - fixed;
    const double layers = (target - fixed) / perLayer;
    return std::clamp(toInt(std::llround(std::max(1.0, layers))), 1, toInt(kMaxLayers));
}

void setFfnWidth(ModelArch& m, std::int64_t width)
{
    m.ffnHidden = width;
    if (m.moe.enabled())
        m.moe.expertFfnHidden = width; // all layers are MoE; ffnHidden mirrors it
}

/// Solves the FFN width (dense, or per expert) so totalParams hits `target`;
/// totalParams is linear in it. Rounds to a multiple of 256 when that stays
/// within 0.5%, else 64, else 1.
std::int64_t solveFfn(ModelArch& m, double target)
{
    setFfnWidth(m, 0);
    const double base = m.totalParams();
    setFfnWidth(m, 1024);
    const double slope = (m.totalParams() - base) / 1024.0;
    const double exact = (target - base) / slope;
    std::int64_t width = 1;
    for (std::int64_t grain : {256, 64, 1}) {
        width = std::max<std::int64_t>(grain, std::llround(exact / static_cast<double>(grain)) * grain);
        setFfnWidth(m, width);
        if (std::abs(m.totalParams() - target) <= 0.005 * target)
            break;
    }
    return width;
}

/// Dense: width from the table, depth solved at ffn = 3.5 x hidden, then the
/// FFN width solved exactly. Tiny sizes narrow the model until the FFN is at
/// least as wide as it (the embeddings alone would otherwise eat the budget).
ModelArch denseFromParams(double params, ModelFamily family)
{
    int hidden = niceHidden(family, interpolateHidden(family, params, params));
    for (;;) {
        ModelArch m = styleFor(family, params, 1, hidden);
        m.layers = solveLayers(m, params);
        const std::int64_t width = solveFfn(m, params);
        if (width >= hidden || hidden <= 64)
            return m;
        const int narrower = niceHidden(family, 0.8 * hidden);
        hidden = narrower < hidden ? narrower : hidden - 64;
    }
}

/// Expert width relative to hidden before the final solve: Mixtral-style full
/// FFNs (3.5x) up to 8 experts, finer experts as the count grows (DBRX 16
/// experts: 1.75x; DeepSeek-V3 256: 0.29x, floored here at 0.25x).
double expertRatio(int experts)
{
    return std::max(0.25, kFfnRatio * std::min(1.0, 8.0 / experts));
}

/// MoE: a dense base of size D supplies layers and width (Mixtral 8x7B is
/// Mistral 7B with its FFN replicated); D is found by bisection so that base
/// plus experts of expertRatio() width comes to `params`, then the expert
/// width is solved exactly.
ModelArch moeFromParams(double params, const MoeSpec& moe)
{
    const double ratio = expertRatio(moe.experts);
    auto build = [&](double denseSize) {
        const int hidden = niceHidden(ModelFamily::Decoder, interpolateHidden(ModelFamily::Decoder, params, denseSize));
        ModelArch m = styleFor(ModelFamily::Decoder, params, 1, hidden);
        m.layers = solveLayers(m, denseSize);
        m.moe = moe;
        m.moe.denseLayers = 0;
        setFfnWidth(m, std::max<std::int64_t>(64, std::llround(ratio * hidden / 64.0) * 64));
        return m;
    };
    double lo = std::log(1e6);
    double hi = std::log(params);
    for (int i = 0; i < 60; ++i) {
        const double mid = 0.5 * (lo + hi);
        (build(std::exp(mid)).totalParams() > params ? hi : lo) = mid;
    }
    ModelArch m = build(std::exp(lo));
    solveFfn(m, params);
    return m;
}

ModelArch visionFromParams(double params)
{
    // Scaled from ViT-B/16 (86.57M): at a fixed 224px / 196 tokens a ViT's
    // FLOPs grow with its parameters; activations grow with depth x width,
    // roughly params^0.75 (ViT-L/16: 3.5x params, ~2.7x activations), and
    // kernel launches with depth, roughly params^0.5.
    const ModelArch* vit = findPreset("vit-b-16");
    const double r = params / vit->vision.params;
    ModelArch m;
    m.family = ModelFamily::Vision;
    m.vision = vit->vision;
    m.vision.params = params;
    m.vision.gflopsPerImage = vit->vision.gflopsPerImage * r;
    m.vision.trainActivationBytesPerImage = vit->vision.trainActivationBytesPerImage * std::pow(r, 0.75);
    m.vision.inferActivationBytesPerImage = vit->vision.inferActivationBytesPerImage * std::pow(r, 0.75);
    m.vision.kernelsPerStep = std::max(1, toInt(std::llround(vit->vision.kernelsPerStep * std::sqrt(r))));
    m.shapeNote = "approximate: ViT-B/16 scaled to " + formatCount(params)
                + " parameters (FLOPs per image proportional to parameters, activations to params^0.75)";
    return m;
}

std::string fixed2(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", v);
    return buf;
}

std::string shapeNoteFor(const ModelArch& m, double params, const MoeSpec& requested)
{
    const bool isMoe = m.moe.enabled();
    const std::int64_t width = isMoe ? m.moe.expertFfnHidden : m.ffnHidden;
    char err[32];
    std::snprintf(err, sizeof err, "%+.2f%%", 100.0 * (m.totalParams() - params) / params);

    std::string note = "approximate: ";
    note += m.family == ModelFamily::Encoder ? "BERT-style encoder" : "Llama-style decoder";
    note += " for " + formatCount(params) + ": " + std::to_string(m.layers) + " layers x " + std::to_string(m.hidden)
          + " hidden (" + std::to_string(m.heads) + " heads of " + std::to_string(m.headDim) + ", "
          + std::to_string(m.kvHeads) + " KV heads), ";
    note += m.ffn == FfnKind::SwiGLU ? "SwiGLU " : "GELU ";
    if (isMoe)
        note += std::to_string(m.moe.experts) + " experts (" + std::to_string(m.moe.active) + " active, "
              + std::to_string(m.moe.shared) + " shared) of width ";
    else
        note += "FFN width ";
    note += std::to_string(width) + " (" + fixed2(static_cast<double>(width) / m.hidden) + "x hidden), vocab "
          + std::to_string(m.vocab) + (m.tiedEmbeddings ? " tied" : " untied") + ". ";
    if (isMoe)
        note += "Layers and hidden are those of a dense base model (Mixtral 8x7B is Mistral 7B with its FFN "
                "replicated), sized so that with experts of about " + fixed2(expertRatio(m.moe.experts))
              + "x hidden the total is reached. ";
    note += "Hidden is interpolated log-log between known shapes (12x768 at 125M, 32x4096 at 8B, 80x8192 at "
            "70B, 126x16384 at 405B) and rounded to a multiple of 8 heads; layers are solved for an FFN of ";
    note += m.ffn == FfnKind::GELU ? "4x" : "3.5x";
    note += " hidden; the ";
    note += isMoe ? "expert" : "FFN";
    note += " width is then solved so the total is " + std::string(err) + " from the requested size.";
    if (isMoe && requested.expertFfnHidden > 0)
        note += " The given expert_ffn_hidden was replaced by the solved width.";
    return note;
}

} // namespace

ModelArch modelFromParams(double params, ModelFamily family, const MoeSpec& moe)
{
    if (!std::isfinite(params) || params < 1e6)
        throw InputError("model.params", "must be a number of parameters of at least 1e6, got " + numberText(params));
    if (params > 1e14)
        throw InputError("model.params", "must be at most 1e14, got " + numberText(params));

    const bool isMoe = moe.enabled() && family != ModelFamily::Vision;
    if (isMoe) {
        std::vector<Diagnostic> problems;
        checkRange(problems, "model", "moe.experts", moe.experts, 1, dbl(kMaxExperts));
        if (moe.active < 1 || moe.active > moe.experts)
            problems.push_back({"model.moe.active", "must be between 1 and moe.experts ("
                                                        + std::to_string(moe.experts) + "), got "
                                                        + std::to_string(moe.active)});
        checkRange(problems, "model", "moe.shared", moe.shared, 0, dbl(kMaxExperts));
        if (family == ModelFamily::Encoder)
            problems.push_back({"model.moe", "mixture-of-experts sizing is only supported for decoders"});
        throwIfAny(std::move(problems));
    }

    ModelArch m;
    if (family == ModelFamily::Vision) {
        m = visionFromParams(params);
    } else {
        m = isMoe ? moeFromParams(params, moe) : denseFromParams(params, family);
        m.shapeNote = shapeNoteFor(m, params, moe);
    }
    m.approximate = true;
    m.source = "params";
    // "~" put in front by insert, not "~" + string: GCC 12 at -O3 warns -Wrestrict on that (a false
    // positive, GCC bug 105329) in the release build.
    m.name = formatCount(params);
    m.name.insert(m.name.begin(), '~');
    if (isMoe)
        m.name += " MoE " + std::to_string(moe.experts) + "x" + std::to_string(moe.active);
    m.name += " (approximate shape)";
    return m;
}

} // namespace gp
