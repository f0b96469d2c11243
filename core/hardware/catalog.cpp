#include "core/hardware/catalog.h"
#include "core/hardware/catalogio.h"

#include "core/base/units.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstddef>
#include <utility>

namespace gp {

// Generated at build time from resources/catalog/gpu-catalog.json by resources/embed.cmake.
extern const char kEmbeddedCatalogJson[];
extern const std::size_t kEmbeddedCatalogJsonSize;

std::string_view detail::builtinCatalogJson() { return {kEmbeddedCatalogJson, kEmbeddedCatalogJsonSize}; }

namespace {

/// True when s contains word as a whole word ("Ada" in "Ada Lovelace", not in "Adaptive").
bool containsWord(std::string_view s, std::string_view word)
{
    for (auto pos = s.find(word); pos != std::string_view::npos; pos = s.find(word, pos + 1)) {
        const auto end = pos + word.size();
        const bool startOk = pos == 0 || !std::isalpha(static_cast<unsigned char>(s[pos - 1]));
        const bool endOk = end == s.size() || !std::isalpha(static_cast<unsigned char>(s[end]));
        if (startOk && endOk)
            return true;
    }
    return false;
}

std::size_t levenshtein(std::string_view a, std::string_view b)
{
    std::vector<std::size_t> prev(b.size() + 1);
    std::vector<std::size_t> cur(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j)
        prev[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        cur[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t subst = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
            cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, subst});
        }
        std::swap(prev, cur);
    }
    return prev[b.size()];
}

/// Ids longer than this get no "did you mean": no catalog id is that long, and
/// the edit distance is quadratic (a 15 MB id took 24 s).
constexpr std::size_t kMaxSuggestLength = 64;

} // namespace

std::string detail::closestGpuId(const std::vector<Gpu>& gpus, std::string_view id)
{
    if (id.empty() || id.size() > kMaxSuggestLength)
        return std::string();
    std::string wanted(id);
    std::transform(wanted.begin(), wanted.end(), wanted.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    std::string best;
    std::size_t bestDistance = std::string::npos;
    for (const auto& g : gpus) {
        if (g.id.size() > 4 * kMaxSuggestLength)
            continue;
        const std::size_t d = levenshtein(wanted, g.id);
        if (d < bestDistance) { // strict: ties go to the earlier (reference-order) entry
            bestDistance = d;
            best = g.id;
        }
    }
    return best;
}

// ---------------------------------------------------------------------------

std::string_view tierName(Tier t)
{
    switch (t) {
    case Tier::Consumer: return "consumer";
    case Tier::Workstation: return "workstation";
    case Tier::InferenceDatacenter: return "inference-datacenter";
    case Tier::TrainingDatacenter: return "training-datacenter";
    case Tier::Frontier: return "frontier";
    }
    return "unknown";
}

std::string_view tierLabel(Tier t)
{
    switch (t) {
    case Tier::Consumer: return "Consumer";
    case Tier::Workstation: return "Workstation";
    case Tier::InferenceDatacenter: return "Inference data-center";
    case Tier::TrainingDatacenter: return "Training data-center";
    case Tier::Frontier: return "Frontier";
    }
    return "Unknown";
}

double Gpu::memoryBytes() const
{
    return units::gbToBytes(memoryGb);
}

double Gpu::peakFlops(DType t) const
{
    double tflops = 0;
    switch (t) {
    case DType::FP32: tflops = fp32Tflops; break;
    case DType::TF32: tflops = tf32Tflops; break;
    case DType::FP16: tflops = fp16Tflops; break;
    case DType::BF16: tflops = bf16Tflops; break;
    case DType::FP8: tflops = fp8Tflops; break;
    case DType::INT8: tflops = int8Tops; break;
    case DType::INT4:
        // The reference has no INT4 column. Turing, Ampere and Ada tensor cores
        // run INT4 at twice the INT8 rate; Hopper and later dropped INT4, and
        // other vendors never had it, so those count as unsupported.
        if (containsWord(architecture, "Turing") || containsWord(architecture, "Ampere")
            || containsWord(architecture, "Ada"))
            tflops = 2 * int8Tops;
        break;
    case DType::FP4: tflops = fp4Tflops; break;
    }
    return units::tflopsToFlops(tflops);
}

double Gpu::pcieGbps() const
{
    // x16 link, per direction: ~16 GB/s at gen3, doubling each generation.
    // Unknown (0, e.g. TPUs) is taken as gen3: the slowest link still in service,
    // so host transfer estimates err on the slow side.
    const int gen = pcieGen > 0 ? pcieGen : 3;
    return 16.0 * std::pow(2.0, gen - 3);
}

Catalog Catalog::fromCheckedEntries(std::vector<Gpu> gpus)
{
    Catalog c;
    c.m_gpus = std::move(gpus);
    return c;
}

const Gpu* Catalog::find(std::string_view id) const
{
    const auto it = std::find_if(m_gpus.begin(), m_gpus.end(), [&](const Gpu& g) { return g.id == id; });
    return it == m_gpus.end() ? nullptr : &*it;
}

std::string Catalog::closestId(std::string_view id) const
{
    return detail::closestGpuId(m_gpus, id);
}

std::string Catalog::unknownIdMessage(std::string_view id) const
{
    std::string quoted(id.substr(0, kMaxSuggestLength));
    if (id.size() > kMaxSuggestLength)
        quoted += "...\" (" + std::to_string(id.size()) + " bytes";
    else
        quoted += "\"";
    std::string msg = "unknown GPU id \"" + quoted;
    if (id.size() > kMaxSuggestLength)
        msg += ")";
    const std::string hint = closestId(id);
    if (!hint.empty())
        msg += " (did you mean \"" + hint + "\"?)";
    return msg;
}

} // namespace gp
