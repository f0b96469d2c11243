#pragma once
// MLPerf rows scored as ratios between GPUs (issue #16): the published MLPerf
// Inference and Training results of tests/data/published/ do not publish the
// request shape exactly (Inference: OpenOrca, <= 1,024 input tokens, whose mean
// the records carry from the set's per-sample lengths, not from the submissions;
// Training: the precision is not in the summaries), so
// they are scored as what they are used for: the per-GPU speed of one GPU over
// another on the same benchmark, predicted with the same workload on both.
#include <string>
#include <vector>

namespace gp {

class Catalog;
struct Calibration;
struct ValidationSet;

struct MlperfRatio {
    std::string benchmark;        // "MLPerf Inference v4.1 llama2-70b Offline"
    std::string numerator;        // catalog ids: numerator / denominator
    std::string denominator;
    double numeratorPublished = 0;   // per-GPU figure of the fastest submission (tokens/s, or 1 / minutes)
    double denominatorPublished = 0;
    std::string numeratorRecord;  // the records they come from
    std::string denominatorRecord;
    double published = 0;         // published ratio (numerator / denominator speed per GPU)
    double predictedLow = 0;      // predicted ratio over what the submissions leave open
    double predictedHigh = 0;
    std::string over;             // what the low..high range spans
    double predictedLikely = 0;   // the prediction in the setting the submissions most likely ran (0 = none singled out)
    std::string likely;           // that setting, and why ("FP8: both submissions' configs set FP8=True")
};

/// The ratios issue #16 names, from the MLPerf records in the JSON files of
/// `dirs`: Inference v4.1 llama2-70b (Offline, Server) MI300X / H100 SXM, and
/// Training v5.0 llama2_70b_lora MI325X / H200 SXM. A pair with a side missing
/// is left out. Predicted with `calibration` (nullptr = built-in).
std::vector<MlperfRatio> mlperfRatios(const std::vector<std::string>& dirs, const Catalog& catalog,
                                      const Calibration* calibration = nullptr);
/// Adds the fitted ratio cases of the MLPerf records in `dir` to `set`: MLPerf
/// Inference v4.1 llama2-70b Offline, the fastest MI300X submission per GPU over
/// the fastest H100 SXM one (metric published_mlperf_per_gpu_ratio, the
/// numerator's architecture family). With a side missing, none.
void addMlperfRatioCases(ValidationSet& set, const std::string& dir, const Catalog& catalog);
/// "MLPerf per-GPU ratios ..." lines for `validate`; "" when there are none.
std::string mlperfRatiosTable(const std::vector<MlperfRatio>& ratios);

} // namespace gp
