// libFuzzer target: measured records (gpuplanner-cli validate).
//
//   validateText(text, "records.json", builtin catalog, report) -> summarize.
//   InputError (BadRecords included) is the documented failure; otherwise every
//   row must carry a finite, non-negative prediction and a positive measurement,
//   and every metric's MAPE must be finite (no "nan%" reaching --check).
#include "core/hardware/catalog.h"
#include "core/base/errors.h"
#include "core/fit/validate.h"

#include "fuzz_common.h"

#include <cmath>
#include <string>

namespace {
constexpr const char* kTarget = "fuzz_validate";
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    if (size > (1u << 20))
        return 0; // the CLI reads at most 16 MiB; large inputs only slow the search
    const gp::Catalog& catalog = gp::Catalog::builtin();
    gp::ValidationReport report;
    bool ok = false;
    gpfuzz::expectOnlyInputError(kTarget, "validateText", [&] {
        gp::validateText(std::string(gpfuzz::asText(data, size)), "records.json", catalog, report);
        ok = true;
    });
    if (!ok)
        return 0;
    gp::summarize(report);
    for (const auto& row : report.rows) {
        if (!std::isfinite(row.predicted) || row.predicted < 0)
            gpfuzz::fail(kTarget, row.record + " " + row.metric + ": prediction " + std::to_string(row.predicted));
        if (!std::isfinite(row.measured) || !(row.measured > 0))
            gpfuzz::fail(kTarget, row.record + " " + row.metric + ": measured " + std::to_string(row.measured));
    }
    for (const auto& [metric, m] : report.metrics)
        if (!std::isfinite(m.mape) || m.mape < 0)
            gpfuzz::fail(kTarget, metric + ": MAPE " + std::to_string(m.mape));
    (void)report.withinBounds();
    return 0;
}
