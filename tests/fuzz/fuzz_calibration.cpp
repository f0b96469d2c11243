// libFuzzer target: calibration files (gpuplanner-cli --calibration FILE, the
// app's calibration setting).
//
//   loadCalibration(text). InputError is the documented failure (bad JSON,
//   nesting deeper than 64 levels, a version other than 1, a duplicate key, a
//   value out of its bounds...); otherwise every known constant is there once,
//   finite and within its bounds, and the table estimates with it.
#include "core/calibration/calibration.h"
#include "core/base/errors.h"

#include "fuzz_common.h"

#include <cmath>
#include <string>

namespace {
constexpr const char* kTarget = "fuzz_calibration";
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    if (size > (1u << 20))
        return 0;
    gp::Calibration c;
    bool ok = false;
    gpfuzz::expectOnlyInputError(kTarget, "loadCalibration", [&] {
        c = gp::loadCalibration(std::string(gpfuzz::asText(data, size)));
        ok = true;
    });
    if (!ok)
        return 0;
    if (int(c.entries.size()) != gp::calibrationConstantCount())
        gpfuzz::fail(kTarget, "accepted with " + std::to_string(c.entries.size()) + " constants");
    for (const auto& e : c.entries)
        if (!std::isfinite(e.value) || e.value < e.min || e.value > e.max)
            gpfuzz::fail(kTarget, e.id + " = " + std::to_string(e.value) + " accepted outside its bounds");
    return 0;
}
