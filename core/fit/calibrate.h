#pragma once
// Refitting the calibration to measured records (`gpuplanner-cli calibrate`)
// and leave-one-out cross-validation (`validate --cross`).
//
// Procedure (deterministic: fixed order, no randomness; predictions run on two
// threads, each record on one, and are summed in record order):
//  - Objective: the sum over the scored rows (metrics with a README bound) of
//    (ln(predicted / measured))^2, each row weighted by 1 / (scored rows of its
//    metric), so every metric counts equally however many rows it has.
//  - Every entry of kind "fitted" that moves a prediction is fitted; the
//    uncertainty_* entries are not (they move no prediction) and are set from
//    the leave-one-out residuals instead (below). Structure is fixed.
//  - Cyclic coordinate descent in file order, each constant searched in log
//    space inside its [min, max] (a lower bound of 0 is taken as max x 1e-6):
//    a bracket grown from the current value, then Brent's method (parabolic
//    steps, golden-section where they do not shrink the bracket) to a bracket
//    of 1e-9 in ln(value) (1e-5 above exactLooRecords records). Only the
//    records a constant moves are re-predicted (found by
//    nudging it x1.5 and /1.5 at the start of every sweep). Sweeps repeat until
//    no constant changes by more than `tolerance` (relative), then every
//    fitted value is rounded to 4 significant digits.
//  - Leave-one-out: for each record (one run, all its metrics), the constants
//    that move it are refitted without it, starting from the full fit
//    (`looSweeps` sweeps), and it is predicted with that refit. Above
//    `exactLooRecords` scored records the refit is the one-step Newton update
//    from the full fit instead (see CalibrateOptions). Leave-one-out bands are
//    not written from fewer distinct records than constants the fit moves.
//  - Uncertainty: uncertainty_memory, _throughput_training, _throughput_inference
//    and _throughput_vision are the RMS of the leave-one-out log residuals of
//    memory_total_gib, train_tokens_per_s, decode_ms + prefill_ms and
//    vision_images_per_s rows (rounded to 3 significant digits).
#include "core/calibration/calibration.h"
#include "core/fit/validate.h"

#include <string>
#include <vector>

namespace gp {

struct CalibrateOptions {
    int maxSweeps = 60;
    double tolerance = 1e-6;  // stop when no constant moves more (relative) in a sweep
    bool round = true;        // round fitted values to 4 significant digits
    bool leaveOneOut = true;  // run the LOO refits and set the uncertainty_* entries
    /// With leaveOneOut: false fills CalibrationFit::cross alone, as
    /// crossValidate(set, fit.calibration) would (whatever the number of
    /// records), and sets no uncertainty_* entry (`validate --cross`: the fit's
    /// own predictions and influence lists serve the leave-one-out).
    bool setBands = true;
    int looSweeps = 2;
    /// Up to this many scored records every leave-one-out refit is exact
    /// (looSweeps coordinate sweeps from the full fit, O(N) each: O(N^2) in
    /// all); above it, the one-step Newton update from the full fit (linear in
    /// N; issue 20: 10,000 records). The shipped data (~110 records) is exact.
    int exactLooRecords = 300;
    /// Above exactLooRecords the full fit also stops once no constant moves by
    /// more than this (relative) in a sweep: below the 4-significant-digit
    /// rounding of the result, and each sweep costs O(N).
    double largeSetTolerance = 2e-5;
};

/// What the fit did to one constant.
struct FittedConstant {
    std::string id;
    double start = 0;
    double value = 0;
    double min = 0;
    double max = 0;
    int records = 0;       // records the constant moves
    int rows = 0;          // scored rows of those records
    double rmseLog = 0;    // RMS of ln(predicted / measured) over those rows, after the fit
    bool atBound() const;  // within 0.1% of min or max
};

struct CrossValidation {
    ValidationReport inSample;    // every record predicted with the full fit
    ValidationReport leaveOneOut; // every record predicted with the fit made without it
    std::vector<std::string> families; // per record: ValidationCase::family, indexed by ValidationRow::caseIndex
    std::vector<std::string> archFamilies; // per record: ValidationCase::archFamily ("hopper", "ampere", ...)
};

struct CalibrationFit {
    Calibration calibration;
    std::vector<FittedConstant> fitted;  // in file order
    int sweeps = 0;
    double objectiveStart = 0;
    double objectiveEnd = 0;
    int records = 0;                     // records with scored rows
    int rows = 0;                        // scored rows
    std::vector<std::string> sources;    // from the ValidationSet
    std::vector<std::string> uncertaintyNotes; // id -> how it was set, in file order
    CrossValidation cross;               // filled when options.leaveOneOut
};

/// Fits `start`'s fitted constants to the scored rows of `set`.
CalibrationFit fitCalibration(const ValidationSet& set, const Calibration& start, const CalibrateOptions& options = {});

/// Leave-one-out predictions of every record of `set` around the full fit `full`.
CrossValidation crossValidate(const ValidationSet& set, const Calibration& full, const CalibrateOptions& options = {});

/// The calibration file: builtin-calibration.json's schema, plus "fit" per fitted
/// value and a "fitted_on" header naming the dirs, files and counts.
std::string calibrationFitToJson(const CalibrationFit& fit, const std::vector<std::string>& dirs);
/// The short table `calibrate` prints: each fitted constant, start, fitted, bound hit.
std::string calibrationFitTable(const CalibrationFit& fit);
/// Every row: measured, in-sample and leave-one-out predictions and errors; then the summary.
std::string crossValidationTable(const CrossValidation& cv);
/// Per metric (LOO MAPE beside the in-sample one), then per model family x
/// metric, per architecture family x metric, and the coverage of the nominal
/// 90% intervals (predicted x exp(+-1.645 sigma)) on the held-out rows.
std::string crossValidationSummary(const CrossValidation& cv);

/// Share of the leave-one-out rows of scored metrics (with a band) whose
/// measured value lies in the nominal 90% interval; `n` gets their count.
double intervalCoverage90(const CrossValidation& cv, int& n,
                          const std::function<bool(const ValidationRow&)>& keep = nullptr);

} // namespace gp
