// Predicted vs measured: turns each measured record (measure.py's shape, or the
// published-runs shape) into a scenario, estimates it and compares.
#include "core/fit/validate.h"
#include "core/fit/validatemlperf.h"

#include "core/calibration/calibration.h"
#include "core/hardware/catalog.h"
#include "core/base/errors.h"
#include "core/estimate/estimate.h"
#include "core/base/fileread.h"
#include "core/base/jsonparse.h"
#include "core/base/jsonread.h"
#include "core/scenario/scenario.h"
#include "core/base/units.h"
#include "core/fit/validaterecorded.h"
#include "core/fit/validateparts.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

namespace gp {

using nlohmann::json;
using namespace detail::fitrecord;

BadRecords::BadRecords(std::vector<Diagnostic> problems)
    : InputError(std::move(problems))
{
}

std::string gpuIdFromDeviceName(const std::string& raw)
{
    const std::string n = lower(raw);
    struct Rule {
        const char* a;
        const char* b;
        const char* id;
    };
    static const Rule rules[] = {
        {"gh200", "", "nvidia-gh200"},
        {"h200", "nvl", "nvidia-h200-nvl"},
        {"h200", "", "nvidia-h200-sxm"},
        {"h100", "nvl", "nvidia-h100-nvl"},
        {"h100", "pcie", "nvidia-h100-pcie"},
        {"h100", "", "nvidia-h100-sxm"},
        {"gb200", "", "nvidia-gb200"},
        {"gb300", "", "nvidia-gb300"},
        {"b200", "", "nvidia-b200"},
        {"b300", "", "nvidia-b300"},
        {"a100", "40gb", "nvidia-a100-40gb-sxm"},
        {"a100", "pcie", "nvidia-a100-80gb-pcie"},
        {"a100", "", "nvidia-a100-80gb-sxm"},
        {"a10g", "", "nvidia-a10g"},
        {"l40s", "", "nvidia-l40s"},
        {"l40", "", "nvidia-l40"},
        {"a40", "", "nvidia-a40"},
        {"a30", "", "nvidia-a30"},
        {"v100", "32", "nvidia-v100-sxm2-32gb"},
        {"v100", "", "nvidia-v100-sxm2-16gb"},
        {"rtx 6000 ada", "", "nvidia-rtx-6000-ada"},
        {"rtx pro 6000", "", "nvidia-rtx-pro-6000-blackwell"},
        {"rtx a6000", "", "nvidia-rtx-a6000"},
        {"a6000", "", "nvidia-rtx-a6000"},
        {"5090", "", "nvidia-rtx-5090"},
        {"5080", "", "nvidia-rtx-5080"},
        {"4090", "", "nvidia-rtx-4090"},
        {"4080", "", "nvidia-rtx-4080"},
        {"3090", "", "nvidia-rtx-3090"},
        {"mi300x", "", "amd-mi300x"},
        {"mi325x", "", "amd-mi325x"},
        {"mi355x", "", "amd-mi355x"},
        {"mi250", "", "amd-mi250x"},
        {"t4", "", "nvidia-t4"},
        {"l4", "", "nvidia-l4"},
        {"a10", "", "nvidia-a10"},
    };
    for (const auto& r : rules)
        if (has(n, r.a) && (r.b[0] == 0 || has(n, r.b)))
            return r.id;
    return std::string();
}

namespace {

/// The record key a metric's measured value comes from (for messages).
const char* measuredKey(const std::string& metric)
{
    if (metric == "memory_total_gib")
        return "peak_reserved_mib";
    if (metric == "train_tokens_per_s")
        return "tokens_per_s";
    if (metric == "decode_ms")
        return "decode_step_ms";
    if (metric == "prefill_ms")
        return "ttft_ms_prefill_only";
    if (metric == "vision_images_per_s")
        return "images_per_s";
    return "value";
}

/// How far a measured value may be from the built-in model's prediction before
/// it is taken for a unit mix-up (bytes vs MiB: 10^6, GiB vs MiB: ~10 with the
/// context added, per ms vs per s: 1000) rather than a model error. The worst
/// shipped record is off by 1.31x in memory and 1.77x in speed (all four data
/// directories); a record past these would drag a constant to its bound.
constexpr double kImplausibleMemoryFactor = 4;
constexpr double kImplausibleSpeedFactor = 10;

/// "" when every measured value of the case just added is within a factor of
/// kImplausible*Factor of its prediction, else the first that is not, as a message.
std::string implausibility(const ValidationCase& c, std::string& key)
{
    Rows rows;
    c.predict(EstimateOptions{false}, rows);
    for (const auto& row : rows) {
        if (!(row.predicted > 0) || !(row.measured > 0))
            continue;
        const double ratio = row.measured / row.predicted;
        const double factor = row.metric.find("memory") != std::string::npos || row.metric.find("reserved") != std::string::npos
                                  ? kImplausibleMemoryFactor
                                  : kImplausibleSpeedFactor;
        if (ratio > factor || ratio < 1 / factor) {
            key = measuredKey(row.metric);
            char buf[200];
            std::snprintf(buf, sizeof buf,
                          "measured %.6g is %.3g times %s the model's prediction %.6g (%s); a wrong unit? record "
                          "skipped",
                          row.metric == "memory_total_gib" ? row.measured * 1024 : row.measured,
                          ratio > 1 ? ratio : 1 / ratio, ratio > 1 ? "above" : "below",
                          row.metric == "memory_total_gib" ? row.predicted * 1024 : row.predicted,
                          row.metric == "memory_total_gib" ? "MiB with the context" : row.metric.c_str());
            return buf;
        }
    }
    return {};
}

/// Reads one file's records into `report`: usable records become cases; each
/// record with a bad value is skipped and named in report.problems (file,
/// record and key); records the model does not cover go to report.skipped.
/// Throws InputError when the text is not JSON records at all.
void loadText(const std::string& text, const std::string& origin, const Catalog& catalog, ValidationSet& report)
{
    // Depth-limited: a record's config is copied and dumped (recursive) further on.
    json doc = parseJson(text, origin);
    std::string arrayPath;
    if (doc.is_object() && doc.contains("records")) {
        doc = json(doc["records"]);
        arrayPath = "records";
    }
    if (!doc.is_array())
        throw InputError(origin, "must be a JSON array of measured records");
    std::string gpuId;
    double contextMib = 620;
    for (std::size_t i = 0; i < doc.size(); ++i) {
        const json& r = doc[i];
        if (!r.is_object() || !r.contains("name") || !r["name"].is_string() || r["name"] != "device")
            continue;
        const auto id = r.find("gpu_id");
        const auto name = r.find("gpu");
        const std::string where = origin + ": " + arrayPath + "[" + std::to_string(i) + "] (\"device\")";
        if (id != r.end() && !id->is_string())
            report.problems.push_back({where + ".gpu_id", "must be a string, got " + detail::describe(*id)});
        else if (id == r.end() && name != r.end() && !name->is_string())
            report.problems.push_back({where + ".gpu", "must be a string, got " + detail::describe(*name)});
        else
            gpuId = id != r.end() ? id->get<std::string>()
                                  : gpuIdFromDeviceName(name != r.end() ? name->get<std::string>() : std::string());
        contextMib = num(r, "context_overhead_mib", contextMib);
    }
    for (std::size_t i = 0; i < doc.size(); ++i) {
        const json& r = doc[i];
        if (!r.is_object())
            continue;
        detail::JsonReader jr;
        std::string where = origin + ": " + arrayPath + "[" + std::to_string(i) + "]";
        const auto id = r.find(r.contains("id") ? "id" : "name");
        if (id != r.end() && id->is_string())
            where += " (" + detail::describe(*id) + ")";
        // The text fields every reader below takes as strings: another type is
        // this record's problem, not an "internal error".
        for (const char* key : {"id", "name", "kind", "category", "metric", "gpu_id", "arch", "model"})
            if (const auto it = r.find(key); it != r.end() && !it->is_string() && !it->is_null())
                jr.error(where + "." + key, "must be a string, got " + detail::describe(*it));
        RecordReader rr{jr, where};
        const std::size_t before = report.cases.size();
        const std::size_t skippedBefore = report.skipped.size();
        std::string unknownGpu;
        try {
            if (!jr.errors.empty()) {
                // reported below
            } else if (r.contains("category") && r.contains("metric")) {
                validatePublished(r, catalog, report, rr);
            } else if (r.value("kind", std::string()) == "scenario_run") { // gpuplanner-cli record
                detail::addRecordedRun(r, catalog, report);
            } else if (r.contains("kind")) {
                const std::string recordGpu = r.value("gpu_id", gpuId);
                if (r.value("kind", "") != "micro" && !catalog.find(recordGpu) && r.value("ok", true))
                    unknownGpu = recordGpu;
                validateMeasured(r, recordGpu, contextMib, catalog, report, rr);
            }
        } catch (const std::exception& e) {
            // A value of the wrong JSON type somewhere in the record (nlohmann's
            // type_error), or a record the estimator refuses.
            jr.error(where, std::string("record skipped: ") + detail::stripExceptionTag(e.what()));
            report.cases.resize(before);
        }
        if (!unknownGpu.empty()) {
            // Not silently: a record on a GPU the catalog does not know is named.
            report.skipped.resize(skippedBefore);
            jr.error(where + ".gpu_id", "unknown GPU \"" + unknownGpu + "\" (not in the catalog); record skipped");
        }
        if (jr.errors.empty() && report.cases.size() == before + 1) {
            std::string key;
            if (const std::string why = implausibility(report.cases.back(), key); !why.empty()) {
                report.cases.pop_back();
                jr.error(where + "." + key, why);
            }
        }
        report.problems.insert(report.problems.end(), jr.errors.begin(), jr.errors.end());
        // A missing memory figure leaves memory unscored (the rest of the record is).
        if (jr.errors.empty() && r.contains("kind") && r.value("kind", std::string()) != "scenario_run"
            && r.value("ok", true) && report.cases.size() == before + 1 && !r.contains("peak_reserved_mib"))
            report.problems.push_back({where + ".peak_reserved_mib", "missing; memory_total_gib not scored for this record"});
    }
}

} // namespace

ValidationReport predictSet(const ValidationSet& set, const Calibration* calibration)
{
    ValidationReport report;
    EstimateOptions options{false};
    options.calibration = calibration;
    for (std::size_t i = 0; i < set.cases.size(); ++i) {
        const std::size_t from = report.rows.size();
        set.cases[i].predict(options, report.rows);
        for (std::size_t k = from; k < report.rows.size(); ++k)
            report.rows[k].caseIndex = int(i);
    }
    report.skipped = set.skipped;
    for (const auto& d : set.problems)
        report.skipped.push_back(d.text());
    summarize(report);
    return report;
}

void validateText(const std::string& text, const std::string& origin, const Catalog& catalog, ValidationReport& report)
{
    ValidationSet set;
    loadText(text, origin, catalog, set);
    if (!set.problems.empty()) {
        report.skipped.insert(report.skipped.end(), set.skipped.begin(), set.skipped.end());
        throw BadRecords(std::move(set.problems));
    }
    const ValidationReport part = predictSet(set);
    report.rows.insert(report.rows.end(), part.rows.begin(), part.rows.end());
    report.skipped.insert(report.skipped.end(), part.skipped.begin(), part.skipped.end());
}

void loadValidationText(const std::string& text, const std::string& origin, const Catalog& catalog, ValidationSet& set)
{
    loadText(text, origin, catalog, set);
}

ValidationSet loadValidationSet(const std::vector<std::string>& dirs, const Catalog& catalog,
                                const std::vector<std::string>& familyDirs)
{
    namespace fs = std::filesystem;
    ValidationSet set;
    std::vector<std::string> all = dirs;
    all.insert(all.end(), familyDirs.begin(), familyDirs.end());
    for (std::size_t di = 0; di < all.size(); ++di) {
        const std::string& dir = all[di];
        const bool familyOnly = di >= dirs.size();
        std::error_code ec;
        if (!fs::is_directory(dir, ec))
            throw InputError(dir, "not a directory");
        // Every *.json name, whatever it is: the reader says why one cannot be
        // read (a symlink loop, mode 000, a FIFO, 2 GiB), and never throws here.
        std::vector<fs::path> files;
        fs::directory_iterator it(dir, ec);
        for (; !ec && it != fs::directory_iterator(); it.increment(ec))
            if (it->path().extension() == ".json")
                files.push_back(it->path());
        if (ec)
            throw InputError(dir, "cannot read: " + ec.message());
        std::sort(files.begin(), files.end());
        for (const auto& f : files) {
            const std::size_t before = set.cases.size();
            const std::string name = f.filename().string();
            try {
                loadText(readTextFileBounded(f.string()), name, catalog, set);
            } catch (const InputError& e) {
                // The whole file is skipped: named, with why (path = the file).
                for (const auto& d : e.problems())
                    set.problems.push_back({(fs::path(dir) / name).generic_string(),
                                            d.path.empty() || d.path == f.string() || d.path == name
                                                ? d.message + "; file skipped"
                                                : d.path + ": " + d.message + "; file skipped"});
            }
            for (std::size_t i = before; i < set.cases.size(); ++i)
                set.cases[i].familyOnly = familyOnly;
            if (set.cases.size() > before)
                set.sources.push_back((fs::path(dir) / f.filename()).generic_string() + ": " +
                                      std::to_string(set.cases.size() - before) + " records");
        }
        // MLPerf per-GPU ratios between two submissions of the directory (validatemlperf.h).
        const std::size_t before = set.cases.size();
        addMlperfRatioCases(set, dir, catalog);
        for (std::size_t i = before; i < set.cases.size(); ++i)
            set.cases[i].familyOnly = familyOnly;
        if (set.cases.size() > before)
            set.sources.push_back(dir + ": " + std::to_string(set.cases.size() - before) + " MLPerf per-GPU ratio");
    }
    return set;
}

ValidationReport validateDirectory(const std::string& dir, const Catalog& catalog)
{
    return predictSet(loadValidationSet({dir}, catalog));
}

} // namespace gp
