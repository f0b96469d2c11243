#pragma once
#include "core/model/model.h"

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <string_view>

namespace gp {

/// Reads a Hugging Face config.json: every model_type of the scenario spec
/// (Llama, Llama 4, Mistral, Mistral 3, Mixtral, Qwen2/2-MoE, Qwen3/3-MoE,
/// Qwen3-Next, Gemma 2/3, gpt-oss, DeepSeek-V2/V3, Kimi K2/K2.5, Phi-3/4, GLM-4.5,
/// OLMo 2, Granite 4.0-H, Nemotron-H, GPT-2, BERT) with the mechanisms that
/// change memory or time. What it assumed or left unread is in
/// ModelArch::readNotes. Throws InputError with paths under `path`.
ModelArch modelFromHfConfig(const nlohmann::json& config, const std::string& path);

/// The model types modelFromHfConfig reads, comma-separated.
std::string knownHfModelTypes();

/// Python's json module writes Infinity, -Infinity and NaN (Nemotron-H's
/// time_step_limit); strict JSON has no such tokens. Returns `text` with each
/// of them, outside strings, replaced by null.
std::string withoutPythonNumbers(std::string_view text);

} // namespace gp
