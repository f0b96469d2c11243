#pragma once
#include "core/base/errors.h"
#include "core/calibration/calibration.h"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace gp {

class Catalog;
struct Calibration;
struct EstimateOptions;

/// One predicted-vs-measured comparison.
struct ValidationRow {
    std::string record;   // the record's name / id
    std::string gpu;      // catalog id
    std::string metric;   // memory_total_gib, train_tokens_per_s, decode_ms, prefill_ms, vision_images_per_s, ...
    double predicted = 0;
    double measured = 0;
    int caseIndex = -1;   // the ValidationCase (record) it came from
    double sigma = 0;     // the estimate's relative 1-sigma for this metric (memory or throughput band)
    double errorPct() const { return measured != 0 ? (predicted - measured) / measured * 100 : 0; }
};

struct MetricSummary {
    int n = 0;
    double mape = 0;      // mean absolute percentage error
    double bound = 0;     // the accuracy the project promises (README); 0 = informational
};

struct ValidationReport {
    std::vector<ValidationRow> rows;
    std::map<std::string, MetricSummary> metrics;
    std::vector<std::string> skipped;  // "name: reason"
    bool withinBounds() const;
};

/// One measured record (one run, all its metrics), parsed once and re-predicted
/// with any calibration (the fit in calibrate.h predicts it thousands of times).
struct ValidationCase {
    std::string record;  // name / id
    std::string gpu;     // catalog id
    std::string family;  // "decoder LLM", "MoE", "encoder", "CNN" or "ViT" (from the record's model)
    std::string archFamily; // the GPU's architecture family id (archFamilyId: "hopper", "ampere", ...)
    bool familyOnly = false; // from a --family-dir: fits its family's constants only, never the Hopper base
    /// Appends the record's rows (predicted with options.calibration) to `rows`.
    std::function<void(const EstimateOptions& options, std::vector<ValidationRow>& rows)> predict;
    bool training = false; // a training run: its throughput rows whose metric does not say (images/s) take the training band
    /// An FP8 training run: its GEMMs run at the 8-bit rate, and the 16-bit rate
    /// only touches its side terms (bf16 attention, norms): a family's 16-bit
    /// GEMM scale is not fitted on it (core/fit/fitproblem.h, influenced).
    bool fp8Training = false;
};

/// The band a row of `c` counts towards (core/calibration: BandKind): memory for
/// a memory metric, training for a metric of training ("train..."), inference
/// for one of serving or inference (prefill, decode, output tokens/s), else the
/// record's own mode (images/s).
BandKind bandKindOf(const std::string& metric, const ValidationCase& c);

/// The records of one or more directories, ready to predict.
struct ValidationSet {
    std::vector<ValidationCase> cases;
    std::vector<std::string> skipped;  // "name: reason"
    std::vector<std::string> sources;  // "DIR/FILE: N records" per file that gave records
    /// Bad input, each naming the file, the record and the key: files that could
    /// not be read ("DIR/FILE": why; file skipped), records with a bad or
    /// implausible value (skipped), metrics not scored (a missing value).
    std::vector<Diagnostic> problems;
};

/// A measured record with a bad value (a zero pp, a negative batch...): each
/// problem's path names the file, the record (index and id) and the key.
class BadRecords : public InputError {
public:
    explicit BadRecords(std::vector<Diagnostic> problems);
};

/// Predicts every measured record in the JSON files of `dir` (files shaped like
/// tests/data/calibration/measured-*.json or published.json). Throws InputError
/// when the directory cannot be read; bad files and records are skipped and
/// listed in `skipped` with their file, record and key (loadValidationSet).
ValidationReport validateDirectory(const std::string& dir, const Catalog& catalog);
/// Same for one file's text; throws BadRecords for bad values, InputError when
/// the text is not a JSON array of records.
void validateText(const std::string& text, const std::string& origin, const Catalog& catalog, ValidationReport& report);
void summarize(ValidationReport& report);

/// Reads every measured record of the JSON files in `dirs` (in order, files by
/// name), as validateDirectory does, without predicting them yet. Never throws
/// for a bad file or record: each is skipped and named in `problems`; throws
/// InputError only when a directory cannot be listed.
/// Records of `familyDirs` are marked familyOnly (published rows that fit only
/// their architecture family's constants; Hopper rows there are held out).
ValidationSet loadValidationSet(const std::vector<std::string>& dirs, const Catalog& catalog,
                                const std::vector<std::string>& familyDirs = {});
/// Reads one file's records (its text, named `origin`) into `set`, as
/// loadValidationSet does for each file; throws InputError when the text is
/// not JSON records at all.
void loadValidationText(const std::string& text, const std::string& origin, const Catalog& catalog, ValidationSet& set);
/// Predicts every case with `calibration` (nullptr = built-in) and summarizes;
/// each row's caseIndex names its case.
ValidationReport predictSet(const ValidationSet& set, const Calibration* calibration = nullptr);
/// True for the metrics the README scores (a bound > 0); the fit uses these rows.
bool isScoredMetric(const std::string& metric);

std::string validationToTable(const ValidationReport& r);
/// The per-metric table alone (what the README quotes).
std::string validationSummary(const ValidationReport& r);
std::string validationToJson(const ValidationReport& r);

/// Maps a device name as nvidia-smi / torch print it ("NVIDIA H100 80GB HBM3") to a catalog id.
std::string gpuIdFromDeviceName(const std::string& name);

} // namespace gp
