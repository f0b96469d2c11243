// libFuzzer target: catalog overlays.
//
//   copy of Catalog::builtin() -> applyOverlayText(text, "overlay").
//   On InputError the catalog must be unchanged (the documented guarantee); on
//   success every entry must still be usable (positive memory and bandwidth,
//   a compute peak, unique ids).
#include "core/hardware/catalog.h"
#include "core/base/errors.h"

#include "fuzz_common.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <string>

namespace {

constexpr const char* kTarget = "fuzz_overlay";

struct Fingerprint {
    std::size_t size = 0;
    std::string firstId, lastId;
    double h100Typical = 0;
    double firstMemory = 0;
    double lastBandwidth = 0;

    bool operator==(const Fingerprint&) const = default;
};

Fingerprint fingerprint(const gp::Catalog& c)
{
    Fingerprint f;
    f.size = c.gpus().size();
    if (!c.gpus().empty()) {
        f.firstId = c.gpus().front().id;
        f.lastId = c.gpus().back().id;
        f.firstMemory = c.gpus().front().memoryGb;
        f.lastBandwidth = c.gpus().back().bandwidthGbps;
    }
    if (const gp::Gpu* g = c.find("nvidia-h100-sxm"))
        f.h100Typical = g->pricePerHour.typical;
    return f;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    gp::Catalog catalog = gp::Catalog::builtin();
    const Fingerprint before = fingerprint(catalog);
    try {
        catalog.applyOverlayText(gpfuzz::asText(data, size), "overlay");
    } catch (const gp::InputError&) {
        if (!(fingerprint(catalog) == before))
            gpfuzz::fail(kTarget, "catalog changed although applyOverlayText threw InputError");
        return 0;
    } catch (const std::exception& e) {
        gpfuzz::fail(kTarget, std::string("applyOverlayText threw a non-InputError exception: ") + e.what());
    }

    std::set<std::string> ids;
    for (const gp::Gpu& g : catalog.gpus()) {
        if (!ids.insert(g.id).second)
            gpfuzz::fail(kTarget, "duplicate id after the overlay: " + g.id);
        if (!(g.memoryGb > 0) || !std::isfinite(g.memoryGb))
            gpfuzz::fail(kTarget, g.id + ": memory_gb not positive and finite");
        if (!(g.bandwidthGbps > 0) || !std::isfinite(g.bandwidthGbps))
            gpfuzz::fail(kTarget, g.id + ": bandwidth not positive and finite");
        const double best = std::max({g.fp32Tflops, g.tf32Tflops, g.fp16Tflops, g.bf16Tflops, g.fp8Tflops,
                                      g.int8Tops, g.fp4Tflops});
        if (!(best > 0))
            gpfuzz::fail(kTarget, g.id + ": no compute peak");
        if (catalog.find(g.id) != &g)
            gpfuzz::fail(kTarget, g.id + ": find() does not return the entry");
    }
    return 0;
}
