// The shape checks that ModelArch::validate(), the explicit form, the
// config.json reader and the size-only solver share.
#include "core/model/modelcheck.h"

#include "core/base/errors.h"
#include "core/base/jsonread.h"
#include "core/model/model.h"

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

void ModelArch::validate(const std::string& path) const
{
    std::vector<Diagnostic> problems;
    detail::checkArch(*this, path, detail::KeyNames{}, problems);
    detail::throwIfAny(std::move(problems));
}

} // namespace gp
