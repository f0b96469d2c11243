#include "core/hardware/catalogmig.h"

#include "core/base/jsonread.h"
#include "core/hardware/catalog.h"
#include "core/hardware/mig.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

namespace gp {

namespace {

constexpr std::size_t kMigMaxKeyLength = 64; // as catalogio.cpp: long keys are quoted shortened

std::string migKeyPath(const std::string& base, std::string_view key)
{
    return detail::joinPath(base, key, kMigMaxKeyLength);
}

} // namespace

void readMigSms(const nlohmann::json& v, const std::string& path, detail::JsonReader& p,
                std::vector<std::pair<std::string, int>>& out)
{
    if (v.is_null()) {
        out.clear();
        return;
    }
    if (!v.is_object()) {
        p.error(path, "must be an object of MIG profile SM counts (e.g. {\"1g\": 14, \"7g\": 98}), got " + p.describe(v));
        return;
    }
    const auto names = migProfileNames();
    std::vector<std::pair<std::string, int>> list;
    bool ok = true;
    for (const auto& [name, count] : v.items()) {
        const std::string at = migKeyPath(path, name);
        if (std::find(names.begin(), names.end(), name) == names.end()) {
            p.error(at, "unknown MIG profile (1g, 2g, 3g, 4g or 7g)");
            ok = false;
            continue;
        }
        const double d = count.is_number() ? count.get<double>() : 0;
        if (!count.is_number() || !std::isfinite(d) || d != std::floor(d) || d < 1 || d > 4096) {
            p.error(at, "must be an integer from 1 to 4096 (the profile's SMs), got " + p.describe(count));
            ok = false;
            continue;
        }
        list.emplace_back(name, int(d));
    }
    if (ok)
        out = std::move(list);
}

void checkMigSms(const Gpu& g, const std::string& base, detail::JsonReader& p)
{
    if (g.migSms.empty())
        return;
    if (g.smCount <= 0) {
        p.error(migKeyPath(base, "sm_count"),
                "is needed with mig_sms (a slice's compute share is its SMs / the GPU's)");
        return;
    }
    int previous = 0;
    for (const auto name : migProfileNames()) {
        const auto it = std::find_if(g.migSms.begin(), g.migSms.end(), [&](const auto& e) { return e.first == name; });
        if (it == g.migSms.end())
            continue;
        const std::string at = migKeyPath(migKeyPath(base, "mig_sms"), name);
        if (it->second > g.smCount)
            p.error(at, std::to_string(it->second) + " SMs, more than the GPU's sm_count " + std::to_string(g.smCount));
        else if (it->second < previous)
            p.error(at, std::to_string(it->second) + " SMs, fewer than a smaller profile's " + std::to_string(previous));
        previous = std::max(previous, it->second);
    }
}

} // namespace gp
