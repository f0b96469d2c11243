#pragma once
// The catalog's MIG geometry keys: "sm_count" (the whole GPU's SMs) and
// "mig_sms" (each MIG profile's SMs, as `nvidia-smi mig -lgip` lists them).
#include <nlohmann/json_fwd.hpp>

#include <string>
#include <utility>
#include <vector>

namespace gp {

struct Gpu;
namespace detail {
class JsonReader;
}

/// Reads "mig_sms": {"1g": 14, "2g": 28, ...}; profile names as in the scenario's
/// hardware.mig, counts 1-4096; null clears it. Errors name the key path.
void readMigSms(const nlohmann::json& v, const std::string& path, detail::JsonReader& p,
                std::vector<std::pair<std::string, int>>& out);
/// The entry's MIG geometry agrees with itself: "mig_sms" needs "sm_count", no
/// profile has more SMs than the GPU, and a larger profile never has fewer SMs.
void checkMigSms(const Gpu& g, const std::string& base, detail::JsonReader& p);

} // namespace gp
