#pragma once
#include "model.h"

#include <nlohmann/json_fwd.hpp>

#include <string>

namespace gp {

/// Reads a Hugging Face config.json (Llama, Mistral, Mixtral, Qwen2, GPT-2,
/// BERT, DeepSeek-V3 layouts). Throws InputError with paths under `path`.
ModelArch modelFromHfConfig(const nlohmann::json& config, const std::string& path);

} // namespace gp
