#pragma once
// Internal to validate*.cpp: turning one measured or published record into a
// ValidationCase (a scenario, the GPU, and how its rows are scored).
#include "core/fit/validate.h"

#include "core/base/jsonread.h"
#include "core/estimate/estimate.h"
#include "core/scenario/scenario.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <vector>

namespace gp {
class Catalog;
struct Gpu;
}

namespace gp::detail::fitrecord {

using nlohmann::json;
using Rows = std::vector<ValidationRow>;

std::string lower(std::string s);
bool has(const std::string& hay, const char* needle);
Scenario baseScenario(const std::string& name);
void setHfModel(Scenario& s, json config, const std::string& arch);
void setPreset(Scenario& s, std::string id);
/// The estimate's band for a metric: memory rows read the memory band, the rest the throughput band.
double sigmaFor(const GpuEstimate& e, const std::string& metric);
void add(Rows& rows, const std::string& record, const std::string& gpu, const std::string& metric, double predicted,
         double measured, double sigma = 0);
std::string familyOf(const Scenario& s);

/// Emits (metric, predicted, measured) rows from one estimate.
using Score = std::function<void(const GpuEstimate&, const std::function<void(const char*, double, double)>&)>;

/// Adds a case that estimates `s` on `gpu` once per prediction. It is predicted
/// once here, so an estimate that throws skips the record now, not in a refit.
void addCase(ValidationSet& set, const Scenario& s, const Gpu& gpu, Score score);

/// Reads a record's integers with bounds; every bad value is an error naming the
/// record and key (no record is estimated from a zero or negative size).
struct RecordReader {
    detail::JsonReader& jr;
    std::string where; // "measured-h100.json: [3] (train-llama)"
    int get(const json& obj, const std::string& parent, const char* key, int fallback, long long min = 1,
            long long max = 10'000'000)
    {
        if (!obj.is_object())
            return fallback;
        if (const auto it = obj.find(key); it != obj.end() && it->is_null())
            return fallback; // "not stated" in the published records
        return jr.integer(obj, parent.empty() ? where : where + "." + parent, key, min, max).value_or(fallback);
    }
    bool ok() const { return jr.errors.empty(); }
    /// A measured value: absent -> 0 (that metric is not scored); present, it must
    /// be a finite number in [lo, hi] (its unit's plausible range), else an error
    /// naming the key, with the likely unit mix-up, and 0.
    double measured(const json& r, const char* key, double lo, double hi, const char* unitHint)
    {
        const auto it = r.find(key);
        if (it == r.end() || it->is_null())
            return 0;
        const std::string path = where + "." + key;
        if (!it->is_number() || it->is_boolean()) {
            jr.error(path, "must be a number, got " + detail::describe(*it));
            return 0;
        }
        const double v = it->get<double>();
        if (!std::isfinite(v) || v <= 0) {
            jr.error(path, "must be a positive finite number, got " + detail::describe(*it));
            return 0;
        }
        if (v < lo || v > hi) {
            jr.error(path, "got " + detail::describe(*it) + ", outside the plausible range [" + formatShort(lo) + ", "
                               + formatShort(hi) + "]" + (*unitHint ? std::string(" (") + unitHint + ")" : std::string()));
            return 0;
        }
        return v;
    }
    static std::string formatShort(double v)
    {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.6g", v);
        return buf;
    }
};

/// Plausible ranges of measured speeds (units as measure.py writes them).
constexpr double kMinRate = 1e-3;   // tokens or images per second
constexpr double kMaxRate = 1e9;
constexpr double kMinMs = 1e-3;     // a step in milliseconds
constexpr double kMaxMs = 1e7;

double num(const json& r, const char* key, double fallback = 0);

/// One record in measure.py's shape (validaterecords.cpp).
void validateMeasured(const json& r, const std::string& gpuId, double contextMib, const Catalog& cat,
                      ValidationSet& rep, RecordReader& rr);
/// One record in published.json's shape (validatepublished.cpp).
void validatePublished(const json& r, const Catalog& cat, ValidationSet& rep, RecordReader& rr);

} // namespace gp::detail::fitrecord
