#pragma once
// The serving and training engines `launch` writes files for, and the arguments
// each documents for a named version: resources/engines/<engine>.json, compiled
// in (resources/embed.cmake) so the programs need no files beside them. Every
// flag or config key launch writes is checked against these lists (and a test
// does it again on the files), so an engine that renames a flag is caught by a
// test, not by the user.
#include <nlohmann/json.hpp>

#include <map>
#include <set>
#include <string>
#include <vector>

namespace gp {

struct EngineSpec {
    std::string id;       // "vllm", "torchrun-fsdp", ...
    std::string name;     // "vLLM"
    std::string kind;     // "serving" | "training"
    std::string version;  // the version the lists were read from
    std::string command;  // "vllm serve MODEL"
    std::string source;   // "vllm-project/vllm vllm/engine/arg_utils.py @ 99d7eb5d6a51" (first path, short)
    std::set<std::string> flags;       // command-line flags
    std::set<std::string> configKeys;  // dotted keys of the engine's config file
    std::set<std::string> scriptKeys;  // keys this project's own settings file adds (torchrun-fsdp)
    std::map<std::string, std::set<std::string>> choices; // flag or key -> accepted values
    nlohmann::json doc;   // the whole document (torchtune: its recipe configs)

    bool hasFlag(const std::string& f) const { return flags.count(f) > 0; }
    bool hasKey(const std::string& k) const { return configKeys.count(k) > 0; }
    /// True when `value` is among the choices listed for `flagOrKey` (or none are listed).
    bool accepts(const std::string& flagOrKey, const std::string& value) const;
};

/// The engine ids in a stable order: vllm, sglang, trtllm, torchrun-fsdp, deepspeed, accelerate, torchtune.
const std::vector<std::string>& engineIds();
/// The spec of one engine; throws InputError("--for", ...) listing the known ids.
const EngineSpec& engineSpec(const std::string& id);

} // namespace gp
