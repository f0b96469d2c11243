// What `calibrate` writes and prints, and the `validate --cross` summary.
#include "core/fit/calibrate.h"

#include "core/fit/validate.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

namespace gp {

namespace {

/// The shortest decimal that reads back as exactly `v`.
std::string shortest(double v)
{
    char buf[64];
    for (int digits = 1; digits <= 17; ++digits) {
        std::snprintf(buf, sizeof buf, "%.*g", digits, v);
        if (std::strtod(buf, nullptr) == v)
            break;
    }
    return buf;
}

std::string quoted(const std::string& s) { return nlohmann::json(s).dump(); }

const FittedConstant* fitOf(const CalibrationFit& fit, const std::string& id)
{
    for (const auto& f : fit.fitted)
        if (f.id == id)
            return &f;
    return nullptr;
}

std::string note(const CalibrationFit& fit, const std::string& id)
{
    for (const auto& n : fit.uncertaintyNotes)
        if (n.rfind(id + ": ", 0) == 0)
            return n.substr(id.size() + 2);
    return std::string();
}

double mape(const std::vector<ValidationRow>& rows, const std::function<bool(const ValidationRow&)>& keep, int& n)
{
    double sum = 0;
    n = 0;
    for (const auto& r : rows)
        if (keep(r)) {
            sum += std::fabs(r.errorPct());
            n++;
        }
    return n ? sum / n : 0;
}

} // namespace

std::string calibrationFitToJson(const CalibrationFit& fit, const std::vector<std::string>& dirs)
{
    const Calibration& c = fit.calibration;
    std::map<std::string, int> counts;
    for (const auto& e : c.entries)
        counts[e.kind]++;
    std::ostringstream out;
    out << "{\n  \"format\": \"gpuplanner-calibration\",\n  \"version\": " << kCalibrationFormatVersion << ",\n";
    out << "  \"description\": "
        << quoted("Every fitted or empirical constant of the estimation models (" + std::to_string(c.entries.size()) +
                  " entries: " + std::to_string(counts["fitted"]) + " fitted, " + std::to_string(counts["measured"]) +
                  " measured directly, " + std::to_string(counts["literature"]) + " from the literature, " +
                  std::to_string(counts["assumed"]) +
                  " assumed). The fitted values and the base uncertainties are what `gpuplanner-cli calibrate` "
                  "produces from the records named in fitted_on (procedure: core/fit/calibrate.h). Structural constants "
                  "(bytes per element, 6N FLOPs, the causal 0.5, tensor counts) are physics and live in the code.")
        << ",\n";
    out << "  \"count\": " << c.entries.size() << ",\n  \"counts\": {";
    bool first = true;
    for (const auto& [kind, n] : counts) {
        out << (first ? "" : ", ") << quoted(kind) << ": " << n;
        first = false;
    }
    out << "},\n  \"fitted_on\": {\"dirs\": [";
    for (std::size_t i = 0; i < dirs.size(); ++i)
        out << (i ? ", " : "") << quoted(dirs[i]);
    out << "], \"files\": [";
    for (std::size_t i = 0; i < fit.sources.size(); ++i)
        out << (i ? ", " : "") << quoted(fit.sources[i]);
    out << "], \"records\": " << fit.records << ", \"rows\": " << fit.rows << ", \"objective\": " << shortest(std::round(fit.objectiveEnd * 1e6) / 1e6) << "},\n";
    out << "  \"constants\": [\n";
    for (std::size_t i = 0; i < c.entries.size(); ++i) {
        const CalibrationEntry& e = c.entries[i];
        const FittedConstant* f = fitOf(fit, e.id);
        std::string fittedOn = e.fittedOn;
        if (f && f->rows > 0)
            fittedOn = "calibrate: least squares on log error over the " + std::to_string(f->rows) +
                       " scored rows of the " + std::to_string(f->records) + " records it moves";
        else if (f && fittedOn.rfind("calibrate: ", 0) == 0)
            fittedOn = "calibrate: not fitted (no record moves it measurably, or fewer than 3 of its family's; a "
                       "16-bit scale counts its family's 16-bit runs only); kept at its start value";
        if (const std::string n = note(fit, e.id); !n.empty() && n.rfind("kept", 0) != 0)
            fittedOn = "calibrate: " + n;
        out << "    {\"id\": " << quoted(e.id) << ", \"value\": " << shortest(e.value) << ", \"unit\": " << quoted(e.unit)
            << ", \"min\": " << shortest(e.min) << ", \"max\": " << shortest(e.max) << ", \"kind\": " << quoted(e.kind)
            << ",\n     \"fitted_on\": " << quoted(fittedOn) << ",\n     \"form\": " << quoted(e.form);
        if (f)
            out << ",\n     \"fit\": {\"records\": " << f->records << ", \"rows\": " << f->rows
                << ", \"rmse_log\": " << shortest(std::round(f->rmseLog * 1e4) / 1e4) << "}";
        out << "}" << (i + 1 < c.entries.size() ? "," : "") << "\n";
    }
    out << "  ]\n}\n";
    return out.str();
}

std::string calibrationFitTable(const CalibrationFit& fit)
{
    std::ostringstream out;
    char line[256];
    std::snprintf(line, sizeof line, "%-32s %12s %12s %7s %5s %8s  %s\n", "constant", "start", "fitted", "records",
                  "rows", "rmse_log", "bound");
    out << line;
    for (const auto& f : fit.fitted) {
        const char* bound = f.rows == 0                                   ? "no rows: kept"
                            : !f.atBound()                                ? "-"
                            : f.value <= f.min + 1e-3 * (f.max - f.min) ? "at min"
                                                                          : "at max";
        std::snprintf(line, sizeof line, "%-32s %12.4g %12.4g %7d %5d %8.4f  %s\n", f.id.c_str(), f.start, f.value,
                      f.records, f.rows, f.rmseLog, bound);
        out << line;
    }
    for (const auto& n : fit.uncertaintyNotes) {
        const std::string id = n.substr(0, n.find(':'));
        std::snprintf(line, sizeof line, "%-32s %12.4g  %s\n", id.c_str(), fit.calibration.find(id)->value,
                      n.substr(id.size() + 2).c_str());
        out << line;
    }
    std::snprintf(line, sizeof line, "\n%d records, %d scored rows, %d sweeps, objective %.6g -> %.6g\n", fit.records,
                  fit.rows, fit.sweeps, fit.objectiveStart, fit.objectiveEnd);
    out << line;
    return out.str();
}

std::string crossValidationTable(const CrossValidation& cv)
{
    std::ostringstream out;
    char line[512];
    std::snprintf(line, sizeof line, "%-48s %-16s %-26s %11s %11s %8s %11s %8s\n", "record", "gpu", "metric", "measured",
                  "in-sample", "error", "LOO", "error");
    out << line;
    for (const ValidationRow& r : cv.inSample.rows) {
        const ValidationRow* loo = nullptr;
        for (const auto& l : cv.leaveOneOut.rows)
            if (l.caseIndex == r.caseIndex && l.metric == r.metric)
                loo = &l;
        if (!loo)
            continue; // the refit made it unpredictable (not finite): left out
        std::snprintf(line, sizeof line, "%-48s %-16s %-26s %11.4g %11.4g %+7.1f%% %11.4g %+7.1f%%\n",
                      r.record.substr(0, 48).c_str(), r.gpu.substr(0, 16).c_str(), r.metric.substr(0, 26).c_str(),
                      r.measured, r.predicted, r.errorPct(), loo->predicted, loo->errorPct());
        out << line;
    }
    out << "\n" << crossValidationSummary(cv);
    return out.str();
}

std::string crossValidationSummary(const CrossValidation& cv)
{
    std::ostringstream out;
    char line[256];
    std::snprintf(line, sizeof line, "%-38s %4s %10s %14s\n", "metric", "n", "in-sample", "leave-one-out");
    out << line;
    std::set<std::string> metrics;
    for (const auto& r : cv.inSample.rows)
        metrics.insert(r.metric);
    for (const auto& m : metrics) {
        int n = 0;
        const double in = mape(cv.inSample.rows, [&](const ValidationRow& r) { return r.metric == m; }, n);
        const double loo = mape(cv.leaveOneOut.rows, [&](const ValidationRow& r) { return r.metric == m; }, n);
        std::snprintf(line, sizeof line, "%-38s %4d %9.1f%% %13.1f%%\n", m.c_str(), n, in, loo);
        out << line;
    }
    auto family = [&](const ValidationRow& r) {
        return r.caseIndex >= 0 && std::size_t(r.caseIndex) < cv.families.size() ? cv.families[std::size_t(r.caseIndex)]
                                                                                   : std::string("?");
    };
    const char* order[] = {"decoder LLM", "MoE", "encoder", "CNN", "ViT"};
    std::snprintf(line, sizeof line, "\n%-12s %-36s %4s %10s %14s\n", "family", "metric", "n", "in-sample",
                  "leave-one-out");
    out << line;
    for (const char* f : order)
        for (const auto& m : metrics) {
            auto keep = [&](const ValidationRow& r) { return r.metric == m && family(r) == f; };
            int n = 0;
            const double in = mape(cv.inSample.rows, keep, n);
            const double loo = mape(cv.leaveOneOut.rows, keep, n);
            if (n == 0)
                continue;
            std::snprintf(line, sizeof line, "%-12s %-36s %4d %9.1f%% %13.1f%%\n", f, m.c_str(), n, in, loo);
            out << line;
        }
    // Per architecture family: every metric, then all its throughput rows together.
    auto arch = [&](const ValidationRow& r) {
        return r.caseIndex >= 0 && std::size_t(r.caseIndex) < cv.archFamilies.size()
                   ? cv.archFamilies[std::size_t(r.caseIndex)]
                   : std::string("?");
    };
    auto throughput = [](const std::string& m) {
        return isScoredMetric(m) && m.find("memory") == std::string::npos && m.find("reserved") == std::string::npos;
    };
    std::snprintf(line, sizeof line, "\n%-14s %-36s %4s %10s %14s\n", "architecture", "metric", "n", "in-sample",
                  "leave-one-out");
    out << line;
    for (int k = 0; k < kArchFamilyCount; ++k) {
        const std::string f = archFamilyId(ArchFamily(k));
        for (const auto& m : metrics) {
            auto keep = [&](const ValidationRow& r) { return r.metric == m && arch(r) == f; };
            int n = 0;
            const double in = mape(cv.inSample.rows, keep, n);
            const double loo = mape(cv.leaveOneOut.rows, keep, n);
            if (n == 0)
                continue;
            std::snprintf(line, sizeof line, "%-14s %-36s %4d %9.1f%% %13.1f%%\n", f.c_str(), m.c_str(), n, in, loo);
            out << line;
        }
        auto keep = [&](const ValidationRow& r) { return throughput(r.metric) && arch(r) == f; };
        int n = 0;
        const double in = mape(cv.inSample.rows, keep, n);
        const double loo = mape(cv.leaveOneOut.rows, keep, n);
        if (n == 0)
            continue;
        std::snprintf(line, sizeof line, "%-14s %-36s %4d %9.1f%% %13.1f%%\n", f.c_str(), "(all throughput rows)", n, in,
                      loo);
        out << line;
    }
    int n = 0;
    const double all = intervalCoverage90(cv, n);
    int nm = 0;
    const double mem = intervalCoverage90(cv, nm, [&](const ValidationRow& r) { return !throughput(r.metric); });
    int nt = 0;
    const double thr = intervalCoverage90(cv, nt, [&](const ValidationRow& r) { return throughput(r.metric); });
    std::snprintf(line, sizeof line,
                  "\nnominal 90%% intervals (x exp(+-1.645 sigma)) on the held-out rows: cover %.1f%% of %d "
                  "(memory %.1f%% of %d, throughput %.1f%% of %d; target 85-95%%)\n",
                  all * 100, n, mem * 100, nm, thr * 100, nt);
    out << line;
    return out.str();
}

double intervalCoverage90(const CrossValidation& cv, int& n, const std::function<bool(const ValidationRow&)>& keep)
{
    int inside = 0;
    n = 0;
    for (const auto& r : cv.leaveOneOut.rows) {
        if (!isScoredMetric(r.metric) || !(r.sigma > 0) || !(r.predicted > 0) || !(r.measured > 0))
            continue;
        if (keep && !keep(r))
            continue;
        n++;
        inside += std::fabs(std::log(r.predicted / r.measured)) <= 1.6448536269514722 * r.sigma ? 1 : 0;
    }
    return n ? double(inside) / n : 0;
}

} // namespace gp
