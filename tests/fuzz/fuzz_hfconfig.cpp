// libFuzzer target: Hugging Face config.json documents.
//
//   JSON text -> (if it is JSON) modelFromHfConfig(doc, "model.hf_config");
//   on success the parameter counts must be finite and >= 0.
//
// The document is not depth-limited here: the UI imports a config.json of up
// to 16 MiB with nlohmann::json::parse and hands it to the core as it is.
#include "core/base/errors.h"
#include "core/model/hfconfig.h"
#include "core/model/model.h"

#include "fuzz_common.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <string>

namespace {

constexpr const char* kTarget = "fuzz_hfconfig";

void checkCount(double v, const char* what)
{
    if (!std::isfinite(v) || v < 0)
        gpfuzz::fail(kTarget, std::string(what) + " = " + std::to_string(v) + " (must be finite and >= 0)");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    nlohmann::json doc;
    try {
        doc = nlohmann::json::parse(data, data + size);
    } catch (const nlohmann::json::exception&) {
        return 0; // not JSON (parse_error) or a number literal out of range (out_of_range.406)
    }

    gpfuzz::expectOnlyInputError(kTarget, "modelFromHfConfig", [&] {
        const gp::ModelArch m = gp::modelFromHfConfig(doc, "model.hf_config");
        checkCount(m.totalParams(), "totalParams()");
        checkCount(m.activeParams(), "activeParams()");
        checkCount(m.embeddingParams(), "embeddingParams()");
        checkCount(m.matmulParamsPerToken(), "matmulParamsPerToken()");
        checkCount(m.kvElementsPerToken(), "kvElementsPerToken()");
        if (m.activeParams() > m.totalParams())
            gpfuzz::fail(kTarget, "activeParams() > totalParams()");
        // What resolveModel / the UI do with it next.
        m.validate("model");
        (void)m.layerLinears();
    });
    return 0;
}
