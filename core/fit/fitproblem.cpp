// The fit's shared helpers (fitproblem.h).
#include "core/fit/fitproblem.h"

#include <cstdio>
#include <cstdlib>
#include <set>

namespace gp::detail::fitting {

Helper& Helper::get()
{
    static Helper helper;
    return helper;
}

Helper::Helper()
    : m_thread([this] { loop(); })
{
}

Helper::~Helper()
{
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_changed.notify_all();
    m_thread.join();
}

bool Helper::share(const std::function<void()>& work)
{
    bool idle = false;
    if (!m_busy.compare_exchange_strong(idle, true))
        return false;
    {
        std::lock_guard lock(m_mutex);
        m_work = &work;
        m_done = false;
    }
    m_changed.notify_all();
    return true;
}

void Helper::wait()
{
    {
        std::unique_lock lock(m_mutex);
        m_changed.wait(lock, [this] { return m_done; });
    }
    m_busy = false;
}

void Helper::loop()
{
    std::unique_lock lock(m_mutex);
    while (true) {
        m_changed.wait(lock, [this] { return m_stop || m_work; });
        if (m_stop)
            return;
        const std::function<void()>* work = m_work;
        m_work = nullptr;
        lock.unlock();
        (*work)(); // never throws: parallelFor's work keeps its exceptions
        lock.lock();
        m_done = true;
        m_changed.notify_all();
    }
}

/// The family a "family_<id>_..." constant belongs to (the longest id that
/// prefixes it: blackwell_gb2 before blackwell); "" for a base constant.
std::string familyOfConstant(const std::string& id)
{
    // An engine's own constants (the host work of a serving loop per sequence)
    // are the same on every GPU: they are fitted on every row they move.
    // So is a framework kernel's share of the fitted rate (Triton FlashAttention).
    if (id == "serving_pp_host_s_per_seq" || id == "serving_step_s_per_seq" || id == "serving_decode_allreduce_eff" ||
        id == "attn_triton_share")
        return "*";
    std::string best;
    for (ArchFamily f : kScaledFamilies) {
        const std::string prefix = std::string("family_") + archFamilyId(f) + "_";
        if (id.rfind(prefix, 0) == 0 && prefix.size() > best.size() + 8)
            best = archFamilyId(f);
    }
    return best;
}

/// The records a constant is fitted on: a family's constants on that family's
/// records only; the base constants (the Hopper values) on the Hopper records
/// of the measured dirs (not those of --family-dir, which stay held out). When
/// the measured dirs hold no Hopper record (a user calibrating to their own
/// runs on another GPU), the base constants are fitted on all of them.
bool fitsOn(const std::string& constantFamily, const ValidationCase& c, bool baseOnAll)
{
    // An engine constant: every record it moves but the Hopper --family-dir rows,
    // which stay held out (an independent check of the measured family).
    if (constantFamily == "*")
        return !c.familyOnly || c.archFamily != archFamilyId(ArchFamily::Hopper);
    if (!constantFamily.empty())
        return c.archFamily == constantFamily;
    return !c.familyOnly && (baseOnAll || c.archFamily == archFamilyId(ArchFamily::Hopper));
}

/// Metrics whose band is the throughput band.
bool isThroughputMetric(const std::string& m)
{
    return m != "memory_total_gib" && m.find("memory") == std::string::npos && m.find("reserved") == std::string::npos;
}

double roundTo(double v, int digits)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    return std::strtod(buf, nullptr);
}

std::vector<const CalibrationEntry*> fittedEntries(const Calibration& c)
{
    std::vector<const CalibrationEntry*> out;
    for (const auto& e : c.entries)
        if (e.kind == "fitted" && !isUncertainty(e.id))
            out.push_back(&e);
    return out;
}

double rmsLog(const Rows& rows, const std::function<bool(const ValidationRow&)>& keep, int* n)
{
    double sum = 0;
    int count = 0;
    for (const auto& r : rows)
        if (keep(r) && r.predicted > 0 && r.measured > 0) {
            const double e = std::log(r.predicted / r.measured);
            sum += e * e;
            count++;
        }
    if (n)
        *n = count;
    return count ? std::sqrt(sum / count) : 0;
}

/// Scored records with different measurements or predictions (the same run
/// given twice, or 50 times, counts once).
int distinctScoredRecords(const ValidationReport& rep)
{
    std::map<int, std::string> signature;
    for (const auto& r : rep.rows)
        if (isScoredMetric(r.metric)) {
            char buf[128];
            std::snprintf(buf, sizeof buf, "%s=%.17g/%.17g;", r.metric.c_str(), r.predicted, r.measured);
            signature[r.caseIndex] += r.gpu + ":" + buf;
        }
    std::set<std::string> distinct;
    for (const auto& [index, sig] : signature)
        distinct.insert(sig);
    return int(distinct.size());
}

} // namespace gp::detail::fitting
