#include "core/model/sizeonly.h"

#include "core/base/errors.h"
#include "core/model/modelcheck.h"
#include "core/model/presets.h"

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

/// A known shape on the size path. Decoders are written in one style (Llama 3:
/// heads of 128, SwiGLU, RoPE, the 128256-token vocabulary from 0.5B up, tied
/// embeddings up to 3B, 8 KV heads from 3B), so a neighbouring anchor never
/// has a smaller vocabulary or fewer KV heads; where the real model differs
/// the note says so.
struct Anchor {
    const char* name;
    const char* remark; // where this shape differs from the real model's
    int layers;
    int hidden;
    int heads;
    int kvHeads;
    std::int64_t ffn;
    std::int64_t vocab;
    bool tied;
};

// Every column is non-decreasing down the table, so every point between two
// anchors lies between them in every dimension.
constexpr std::array<Anchor, 11> kDecoderAnchors = {{
    {"the smallest shape", "", 1, 128, 1, 1, 256, 4096, true},
    {"GPT-2 small", "", 12, 768, 6, 1, 2560, 50257, true},
    {"Qwen2.5 0.5B", "FFN 5376, not 4864, to total 0.5B with a smaller vocabulary", 24, 896, 7, 1, 5376, 128256, true},
    {"Llama 3.2 3B", "FFN 7424, not 8192, to total 3.0B", 28, 3072, 24, 8, 7424, 128256, true},
    {"Llama 2 7B", "8 KV heads and Llama 3's vocabulary here", 32, 4096, 32, 8, 11008, 128256, false},
    {"Llama 3.1 8B", "", 32, 4096, 32, 8, 14336, 128256, false},
    {"Llama 2 13B", "FFN 14848, not 13824: 8 KV heads and a larger vocabulary here", 40, 5120, 40, 8, 14848,
     128256, false},
    {"Qwen2.5 32B", "FFN 27136, not 27648: a smaller vocabulary here", 64, 5120, 40, 8, 27136, 128256, false},
    {"Llama 3.1 70B", "", 80, 8192, 64, 8, 28672, 128256, false},
    {"Qwen2.5 72B", "FFN 29696, not 29568: a multiple of 256, and a smaller vocabulary", 80, 8192, 64, 8, 29696,
     128256, false},
    {"Llama 3.1 405B", "", 126, 16384, 128, 8, 53248, 128256, false},
}};

// BERT sizes (Turc et al. 2019, BERT-base/large), then XLM-R XL/XXL's layers
// and widths with BERT's vocabulary. MHA, FFN 4x hidden.
constexpr std::array<Anchor, 8> kEncoderAnchors = {{
    {"BERT-tiny", "", 2, 128, 2, 2, 512, 30522, true},
    {"BERT-mini", "", 4, 256, 4, 4, 1024, 30522, true},
    {"BERT-small", "", 4, 512, 8, 8, 2048, 30522, true},
    {"BERT-medium", "", 8, 512, 8, 8, 2048, 30522, true},
    {"BERT-base", "", 12, 768, 12, 12, 3072, 30522, true},
    {"BERT-large", "", 24, 1024, 16, 16, 4096, 30522, true},
    {"XLM-R XL", "BERT's vocabulary", 36, 2560, 40, 40, 10240, 30522, true},
    {"XLM-R XXL", "BERT's vocabulary", 48, 4096, 64, 64, 16384, 30522, true},
}};

constexpr double kAnchorSnap = 0.02; // see nearestPoint

constexpr double kFfnRatio = 3.5; // SwiGLU FFN width / hidden in Llama 3 (14336 / 4096)

int headDimFor(ModelFamily family) { return family == ModelFamily::Encoder ? 64 : 128; }

/// A point on the size path: the rounded shape, and where it lies.
struct PathPoint {
    Anchor shape{};
    double ffnExact = 0;  // FFN width before rounding (sizes MoE experts)
    std::size_t seg = 0;  // between anchors seg and seg + 1
    double t = 0;         // 0 at anchor seg, 1 at seg + 1 (above 1 past the last)
};

/// The family's fixed choices around a path shape.
ModelArch archFor(ModelFamily family, const Anchor& a)
{
    ModelArch m;
    m.family = family;
    m.layers = a.layers;
    m.hidden = a.hidden;
    m.heads = a.heads;
    m.kvHeads = a.kvHeads;
    m.headDim = headDimFor(family);
    m.ffnHidden = a.ffn;
    m.vocab = a.vocab;
    m.tiedEmbeddings = a.tied;
    if (family == ModelFamily::Encoder) {
        // BERT style: GELU, biases, LayerNorm, learned positions, MHA.
        m.ffn = FfnKind::GELU;
        m.positional = Positional::Learned;
        m.maxPositions = 512;
        m.biases = true;
    } else {
        m.ffn = FfnKind::SwiGLU;
        m.positional = Positional::Rope;
        m.maxPositions = 8192;
        m.biases = false;
    }
    return m;
}

struct Path {
    const Anchor* anchors;
    std::size_t count;
    std::vector<double> logSize; // log of each anchor's total in the family's style
};

const Path& pathFor(ModelFamily family)
{
    auto build = [](ModelFamily f, const Anchor* anchors, std::size_t count) {
        Path p{anchors, count, {}};
        for (std::size_t i = 0; i < count; ++i)
            p.logSize.push_back(std::log(archFor(f, anchors[i]).totalParams()));
        return p;
    };
    static const Path decoder = build(ModelFamily::Decoder, kDecoderAnchors.data(), kDecoderAnchors.size());
    static const Path encoder = build(ModelFamily::Encoder, kEncoderAnchors.data(), kEncoderAnchors.size());
    return family == ModelFamily::Encoder ? encoder : decoder;
}

double logLerp(double a, double b, double t)
{
    return t == 0 ? a : std::exp(std::log(a) + t * (std::log(b) - std::log(a)));
}

/// One dimension at t: interpolated log-linearly, rounded to a multiple of
/// `grain` (at a fraction `late` of the way past the half: 0 is nearest) and
/// kept between the two anchors' values (past the last anchor: between its
/// value and `limit`), so it never decreases along the path and is exact at
/// the anchors.
std::int64_t dimAt(double a, double b, double t, std::int64_t grain, std::int64_t limit, double late = 0)
{
    if (t == 0)
        return static_cast<std::int64_t>(a);
    const double v = logLerp(a, b, t);
    const std::int64_t rounded = std::llround(v / static_cast<double>(grain) - late) * grain;
    const auto lo = static_cast<std::int64_t>(t <= 1 ? a : b);
    const auto hi = t <= 1 ? static_cast<std::int64_t>(b) : limit;
    return std::clamp(rounded, lo, hi);
}

/// The shape at log size `s` on the path (s is the anchors' axis; outside the
/// table the last segment is extrapolated upwards, and the first anchor is the
/// floor).
PathPoint pointAt(ModelFamily family, double s)
{
    const Path& p = pathFor(family);
    std::size_t seg = 0;
    while (seg + 2 < p.count && s >= p.logSize[seg + 1])
        ++seg;
    const double t = std::max(0.0, (s - p.logSize[seg]) / (p.logSize[seg + 1] - p.logSize[seg]));
    const Anchor& a = p.anchors[seg];
    const Anchor& b = p.anchors[seg + 1];
    // Discrete choices (KV heads, tying) are the lower anchor's up to the next one.
    const Anchor& style = t < 1 ? a : b;
    const bool encoder = family == ModelFamily::Encoder;
    const std::int64_t grain = headDimFor(family);

    PathPoint pt;
    pt.seg = seg;
    pt.t = t;
    Anchor& m = pt.shape;
    m.name = nullptr;
    m.remark = nullptr;
    m.layers = toInt(dimAt(a.layers, b.layers, t, 1, kMaxLayers));
    m.hidden = toInt(dimAt(a.hidden, b.hidden, t, grain, kMaxHidden));
    if (encoder) {
        m.heads = m.hidden / toInt(grain);
        m.kvHeads = m.heads;
    } else {
        m.kvHeads = style.kvHeads;
        // Heads step a quarter of a head group after the midpoint, so never
        // together with the hidden width (which steps at the midpoints).
        m.heads = toInt(dimAt(a.heads, b.heads, t, m.kvHeads, kMaxHeads / 8 * 8, 0.25));
    }
    pt.ffnExact = logLerp(dbl(a.ffn), dbl(b.ffn), t);
    m.ffn = dimAt(dbl(a.ffn), dbl(b.ffn), t, encoder ? 64 : 256, kMaxFfnHidden);
    m.vocab = dimAt(dbl(a.vocab), dbl(b.vocab), t, 64, kMaxVocab);
    m.tied = style.tied;
    return pt;
}

void setFfnWidth(ModelArch& m, std::int64_t width)
{
    m.ffnHidden = width;
    if (m.moe.enabled())
        m.moe.expertFfnHidden = width; // all layers are MoE; ffnHidden mirrors it
}

/// Expert width relative to hidden before the final solve: Mixtral-style full
/// FFNs (3.5x) up to 8 experts, finer experts as the count grows (DBRX 16
/// experts: 1.75x; DeepSeek-V3 256: 0.29x, floored here at 0.25x).
double expertRatio(int experts)
{
    return std::max(0.25, kFfnRatio * std::min(1.0, 8.0 / experts));
}

/// The model at a path point: dense, or with every FFN replaced by experts
/// whose width is the dense FFN's scaled by expertRatio / 3.5 (Mixtral 8x7B is
/// Mistral 7B with its FFN replicated), in multiples of 64.
ModelArch modelAt(ModelFamily family, const PathPoint& pt, const MoeSpec* moe)
{
    ModelArch m = archFor(family, pt.shape);
    if (moe != nullptr) {
        m.moe = *moe;
        m.moe.denseLayers = 0;
        const double width = pt.ffnExact * expertRatio(moe->experts) / kFfnRatio;
        setFfnWidth(m, std::max<std::int64_t>(64, std::llround(width / 64.0) * 64));
    }
    return m;
}

/// The path point whose total is nearest `params`. Every dimension is
/// non-decreasing along the path, so the total is too, and the point picked
/// (and each of its dimensions) never decreases as `params` grows.
PathPoint nearestPoint(ModelFamily family, double params, const MoeSpec* moe)
{
    const Path& p = pathFor(family);
    auto total = [&](double s) { return modelAt(family, pointAt(family, s), moe).totalParams(); };
    double lo = p.logSize.front();
    if (total(lo) >= params)
        return pointAt(family, lo);
    // Past the last anchor the extrapolated segment grows without bound until
    // the shape limits; 60 segment lengths reach far beyond 1e14.
    const double span = p.logSize.back() - p.logSize[p.count - 2];
    double hi = p.logSize.back();
    for (int i = 0; i < 60 && total(hi) <= params; ++i)
        hi += span;
    if (total(hi) <= params)
        return pointAt(family, hi);
    for (int i = 0; i < 200 && hi - lo > 1e-13; ++i) {
        const double mid = 0.5 * (lo + hi);
        (total(mid) <= params ? lo : hi) = mid;
    }
    // A size within kAnchorSnap of an anchor's total takes that anchor's shape
    // (names round: "70B" is Llama 3.1 70B's 70.55B); where two windows
    // overlap the smaller anchor wins. The windows' bounds rise with the
    // anchors and every other point is below or above an anchor in every
    // dimension, so this keeps the order.
    for (std::size_t i = 0; i < p.count; ++i) {
        const double anchorTotal = total(p.logSize[i]);
        if (std::abs(params / anchorTotal - 1) <= kAnchorSnap)
            return pointAt(family, p.logSize[i]);
    }
    // An anchor exactly between lo and hi is a point of its own (a rounding at
    // exactly t = 0 can differ from just above it).
    for (const double s : p.logSize) {
        if (s < lo || s > hi)
            continue;
        (total(s) <= params ? lo : hi) = s;
    }
    const double below = total(lo);
    const double above = total(hi);
    return params - below <= above - params ? pointAt(family, lo) : pointAt(family, hi);
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

bool sameShape(const Anchor& x, const Anchor& y, bool withFfn)
{
    return x.layers == y.layers && x.hidden == y.hidden && x.heads == y.heads && x.kvHeads == y.kvHeads
        && x.vocab == y.vocab && x.tied == y.tied && (!withFfn || x.ffn == y.ffn);
}

/// Which anchor (or pair of anchors) a path point comes from, for the note.
std::string placeOf(ModelFamily family, const PathPoint& pt, bool isMoe)
{
    const Path& p = pathFor(family);
    const Anchor& a = p.anchors[pt.seg];
    const Anchor& b = p.anchors[pt.seg + 1];
    for (const Anchor* at : {&a, &b}) {
        if (sameShape(pt.shape, *at, !isMoe))
            return std::string("the shape of ") + at->name
                 + (*at->remark != '\0' ? std::string(" (") + at->remark + ")" : std::string());
    }
    if (pt.t > 1)
        return std::string("beyond ") + b.name + ", extrapolated along the path from " + a.name;
    return std::string("between ") + a.name + " and " + b.name + ", " + std::to_string(toInt(std::lround(100 * pt.t)))
         + "% of the way in log size";
}

std::string shapeNoteFor(const ModelArch& m, const PathPoint& pt, double params, const MoeSpec& requested)
{
    const bool isMoe = m.moe.enabled();
    const bool encoder = m.family == ModelFamily::Encoder;
    const std::int64_t width = isMoe ? m.moe.expertFfnHidden : m.ffnHidden;
    char err[32];
    std::snprintf(err, sizeof err, "%+.2f%%", 100.0 * (m.totalParams() - params) / params);

    std::string note = "approximate: ";
    note += encoder ? "BERT-style encoder" : "Llama-style decoder";
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
    note += "Size rule: a path through known shapes (";
    note += encoder ? "BERT-tiny to BERT-large, XLM-R XL and XXL"
                    : "GPT-2 small, Qwen2.5 0.5B, 32B and 72B, Llama 3.2 3B, Llama 2 7B and 13B, Llama 3.1 8B, 70B "
                      "and 405B";
    note += ") along which layers, hidden, heads and FFN width grow log-linearly with the size and are rounded "
            "(hidden to ";
    note += encoder ? "64" : "128";
    note += ", FFN to ";
    note += encoder ? "64" : "256";
    note += "), so no dimension shrinks as the size grows; the ";
    note += isMoe ? "dense base is " : "size picks the point whose total is nearest: ";
    note += placeOf(m.family, pt, isMoe) + ". ";
    if (isMoe)
        note += "Experts replace every FFN (Mixtral 8x7B is Mistral 7B with its FFN replicated), each " +
                fixed2(expertRatio(m.moe.experts) / kFfnRatio) + "x the base's FFN width, in multiples of 64; "
                "the base is the path point whose total with experts is nearest. ";
    note += "The total is " + std::string(err) + " from the requested size.";
    if (isMoe && requested.expertFfnHidden > 0)
        note += " The given expert_ffn_hidden was replaced by the path's width.";
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
        const PathPoint pt = nearestPoint(family, params, isMoe ? &moe : nullptr);
        m = modelAt(family, pt, isMoe ? &moe : nullptr);
        m.shapeNote = shapeNoteFor(m, pt, params, moe);
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
