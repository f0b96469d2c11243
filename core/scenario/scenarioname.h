#pragma once
#include <string>

namespace gp {

struct Scenario;

/// The name a scenario gets from its content until the user names it: the model
/// and what is done with it, e.g. "Llama 3.1 70B: inference", "13B decoder: full
/// fine-tune", "Llama 3.1 8B: LoRA fine-tune".
std::string autoScenarioName(const Scenario& s);

} // namespace gp
