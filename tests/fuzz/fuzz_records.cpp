// libFuzzer target: measured-record files as `validate DIR` / `calibrate DIR`
// read them, nesting included.
//
//   1. The input as a whole file in a directory: loadValidationSet never throws
//      for a bad file or record (issue 20): each is named in `problems`, with
//      the file's name, and skipped.
//   2. The input as the "config" of a measure.py training record (where a
//      100,000-level nesting used to overflow the stack in a copy and a dump):
//      validateText accepts it or throws InputError, nothing else.
#include "core/hardware/catalog.h"
#include "core/base/errors.h"
#include "core/fit/validate.h"

#include "fuzz_common.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

namespace {
constexpr const char* kTarget = "fuzz_records";

const std::string& scratchDir()
{
    static const std::string dir = [] {
        const auto d = std::filesystem::temp_directory_path() / ("gp-fuzz-records-" + std::to_string(::getpid()));
        std::filesystem::create_directories(d);
        return d.string();
    }();
    return dir;
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    if (size > (1u << 20))
        return 0;
    const std::string text(gpfuzz::asText(data, size));
    const gp::Catalog& catalog = gp::Catalog::builtin();

    {
        std::ofstream out(scratchDir() + "/records.json", std::ios::binary | std::ios::trunc);
        out << text;
    }
    try {
        const gp::ValidationSet set = gp::loadValidationSet({scratchDir()}, catalog);
        for (const auto& d : set.problems)
            if (d.path.find("records.json") == std::string::npos)
                gpfuzz::fail(kTarget, "a problem that names no file: " + d.text());
        const gp::ValidationReport report = gp::predictSet(set);
        for (const auto& row : report.rows)
            if (!std::isfinite(row.predicted) || row.predicted < 0 || !(row.measured > 0) || !std::isfinite(row.measured))
                gpfuzz::fail(kTarget, row.record + " " + row.metric + ": predicted " + std::to_string(row.predicted) +
                                          ", measured " + std::to_string(row.measured));
    } catch (const std::exception& e) {
        gpfuzz::fail(kTarget, std::string("loadValidationSet threw: ") + e.what());
    }

    const std::string nested = "[{\"kind\": \"train_llm\", \"name\": \"fuzz\", \"gpu_id\": \"nvidia-h100-sxm\", "
                               "\"tokens_per_s\": 40000, \"peak_reserved_mib\": 30000, \"seq_len\": 1024, "
                               "\"micro_batch\": 1, \"config\": " + text + "}]";
    gp::ValidationReport report;
    gpfuzz::expectOnlyInputError(kTarget, "validateText", [&] { gp::validateText(nested, "nested.json", catalog, report); });
    return 0;
}
