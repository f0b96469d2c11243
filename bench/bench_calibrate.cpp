// Prints how long `calibrate` (the fit with its leave-one-out bands) and
// `validate --cross` (the fit, then the leave-one-out predictions) take, as the
// CLI runs them:
//  1. on the shipped data, as tests/tools/update-calibration.sh runs them
//     (tests/data/calibration, round2 and round3, --family-dir
//     tests/data/published). Goal (issue 19): <= 1 s wall each on 2 cores.
//  2. on N synthetic measured records (default 10,000). Goal (issue 20): under
//     60 s each on 2 cores.
// Asserts nothing (figures, not a timed test). Wall and CPU seconds both: on a
// shared machine the wall time also says how busy the others are.
//
//   bench_calibrate [N] [DATA_DIR...]   (run from the repository root; N = 0
//                                        skips the synthetic records; default
//                                        synthetic shapes: the shipped dirs above
//                                        without --family-dir)
//
// The synthetic records are the shipped measured runs' shapes, round-robin,
// each with its measured values scaled by a deterministic factor in [0.8, 1.25]
// (noise a real cluster's repeats would show), so every record is distinct.
#include "core/fit/calibrate.h"
#include "core/calibration/calibration.h"
#include "core/hardware/catalog.h"
#include "core/base/fileread.h"
#include "core/fit/validate.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <ctime>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

double seconds(std::chrono::steady_clock::time_point since)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

/// CPU seconds of the whole process (all threads) since the last call: on a
/// shared machine the wall time says how busy the others are.
double cpuSince()
{
    static std::clock_t last = std::clock();
    const std::clock_t now = std::clock();
    const double s = double(now - last) / CLOCKS_PER_SEC;
    last = now;
    return s;
}

} // namespace

/// The two commands on the records of `set`, timed from a loaded set; `load`
/// is the seconds loading took (wall, CPU), added to each total.
void timeCommands(const gp::ValidationSet& set, double loadWall, double loadCpu)
{
    // calibrate: the fit and its leave-one-out bands.
    (void)cpuSince();
    auto t = std::chrono::steady_clock::now();
    const gp::CalibrationFit fit = gp::fitCalibration(set, gp::builtinCalibration());
    const double calWall = seconds(t);
    const double calCpu = cpuSince();
    std::printf("calibrate:        %8.2f s wall %8.2f s CPU  with the load %.2f s wall %.2f s CPU"
                "  (%d sweeps, objective %.6g -> %.6g)\n",
                calWall, calCpu, calWall + loadWall, calCpu + loadCpu, fit.sweeps, fit.objectiveStart, fit.objectiveEnd);
    std::fflush(stdout);

    // validate --cross: the in-sample predictions, the fit without bands, then
    // the leave-one-out predictions (app/cli/cli.cpp cmdValidate).
    t = std::chrono::steady_clock::now();
    const gp::ValidationReport inSample = gp::predictSet(set, nullptr);
    gp::CalibrateOptions crossOnly;
    crossOnly.setBands = false;
    const gp::CalibrationFit full = gp::fitCalibration(set, gp::builtinCalibration(), crossOnly);
    const double crossWall = seconds(t);
    const double crossCpu = cpuSince();
    std::printf("validate --cross: %8.2f s wall %8.2f s CPU  with the load %.2f s wall %.2f s CPU"
                "  (%zu rows in and out of sample)\n",
                crossWall, crossCpu, crossWall + loadWall, crossCpu + loadCpu,
                inSample.rows.size() + full.cross.leaveOneOut.rows.size());
    std::fflush(stdout);
}

int main(int argc, char** argv)
{
    const long n = argc > 1 ? std::strtol(argv[1], nullptr, 10) : 10000;
    const gp::Catalog& catalog = gp::Catalog::builtin();
    {
        // 1. The shipped data, as update-calibration.sh and update-readme-validation.sh run it.
        std::vector<std::string> dirs{"tests/data/calibration", "tests/data/round2"};
        if (fs::is_directory("tests/data/round3"))
            dirs.push_back("tests/data/round3");
        if (!fs::is_directory(dirs.front()) || !fs::is_directory("tests/data/published")) {
            std::fprintf(stderr, "no shipped data in tests/data (run from the repository root)\n");
            return 2;
        }
        (void)cpuSince();
        const auto t = std::chrono::steady_clock::now();
        const gp::ValidationSet set = gp::loadValidationSet(dirs, catalog, {"tests/data/published"});
        const double loadWall = seconds(t);
        const double loadCpu = cpuSince();
        int scored = 0;
        for (const auto& r : gp::predictSet(set, nullptr).rows)
            scored += gp::isScoredMetric(r.metric) ? 1 : 0;
        std::printf("shipped data (%zu records, %d scored rows; %zu dirs + --family-dir tests/data/published), %u threads\n",
                    set.cases.size(), scored, dirs.size(), std::min(2u, std::thread::hardware_concurrency()));
        std::printf("load:             %8.2f s wall %8.2f s CPU\n", loadWall, loadCpu);
        timeCommands(set, loadWall, loadCpu);
    }
    if (n <= 0)
        return 0;
    std::vector<std::string> dataDirs;
    for (int i = 2; i < argc; ++i)
        dataDirs.push_back(argv[i]);
    if (dataDirs.empty())
        dataDirs = {"tests/data/calibration", "tests/data/round2", "tests/data/round3"};

    // The templates: every scored measure.py record of the data dirs, with its GPU.
    std::vector<json> templates;
    for (const auto& dir : dataDirs) {
        std::vector<fs::path> files;
        for (const auto& e : fs::directory_iterator(dir))
            if (e.path().extension() == ".json")
                files.push_back(e.path());
        std::sort(files.begin(), files.end());
        for (const auto& f : files) {
            json doc = json::parse(gp::readTextFileBounded(f.string()));
            if (doc.is_object() && doc.contains("records"))
                doc = json(doc["records"]);
            if (!doc.is_array())
                continue;
            std::string gpu;
            for (const auto& r : doc)
                if (r.is_object() && r.value("name", "") == "device")
                    gpu = r.value("gpu_id", "");
            for (auto r : doc) {
                if (!r.is_object() || !r.contains("kind") || r["kind"] == "micro" || !r.value("ok", true) ||
                    (r.contains("scored") && r["scored"] == false))
                    continue;
                if (!r.contains("gpu_id"))
                    r["gpu_id"] = gpu;
                templates.push_back(r);
            }
        }
    }
    if (templates.empty()) {
        std::fprintf(stderr, "no measured records in the data dirs (run from the repository root)\n");
        return 2;
    }
    // Deterministic noise: a 64-bit LCG.
    std::uint64_t state = 0x9E3779B97F4A7C15ull;
    auto uniform = [&] {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        return double(state >> 11) / double(1ull << 53);
    };
    json records = json::array();
    records.push_back({{"name", "device"}, {"context_overhead_mib", 618.8}});
    for (long i = 0; i < n; ++i) {
        json r = templates[std::size_t(i) % templates.size()];
        const double f = std::exp((uniform() * 2 - 1) * std::log(1.25));
        for (const char* key : {"peak_reserved_mib", "tokens_per_s", "images_per_s", "decode_step_ms", "ttft_ms_prefill_only"})
            if (r.contains(key) && r[key].is_number())
                r[key] = r[key].get<double>() * f;
        r["name"] = r.value("name", std::string("run")) + "-" + std::to_string(i);
        records.push_back(r);
    }
    const fs::path dir = fs::temp_directory_path() / ("gpuplanner-bench-calibrate-" + std::to_string(n));
    fs::create_directories(dir);
    {
        std::ofstream out(dir / "records.json");
        out << records.dump();
    }
    std::printf("%ld synthetic records from %zu shapes in %s\n", n, templates.size(), dir.c_str());

    (void)cpuSince();
    auto t = std::chrono::steady_clock::now();
    const gp::ValidationSet set = gp::loadValidationSet({dir.string()}, catalog);
    const double loadWall = seconds(t);
    const double loadCpu = cpuSince();
    std::printf("load:             %8.2f s wall %8.2f s CPU  (%zu records, %zu problems)\n", loadWall, loadCpu,
                set.cases.size(), set.problems.size());
    timeCommands(set, loadWall, loadCpu);
    return 0;
}
