#include "core/scenario/scenarioname.h"

#include "core/scenario/scenario.h"

#include <string_view>

namespace gp {

namespace {

std::string_view familyWord(ModelFamily f)
{
    switch (f) {
    case ModelFamily::Decoder: return "decoder";
    case ModelFamily::Encoder: return "encoder";
    case ModelFamily::Vision: return "vision model";
    }
    return "model";
}

// "~13B (approximate shape)" -> "13B decoder"; a size-only model is named by its
// size and family, every other form by the resolved model's display name.
std::string modelPart(const Scenario& s)
{
    std::string name = s.model.name;
    if (s.modelSpec.form == ModelSpec::Form::Params) {
        constexpr std::string_view approx = " (approximate shape)";
        if (!name.empty() && name.front() == '~')
            name.erase(0, 1);
        if (name.size() >= approx.size() && name.compare(name.size() - approx.size(), approx.size(), approx) == 0)
            name.resize(name.size() - approx.size());
        name += ' ';
        name += familyWord(s.modelSpec.family.value_or(s.model.family));
    }
    return name.empty() ? std::string("Custom model") : name;
}

std::string_view workPart(const Scenario& s)
{
    if (s.mode == Mode::Inference)
        return "inference";
    switch (s.training.method) {
    case TrainMethod::Lora: return "LoRA fine-tune";
    case TrainMethod::Qlora: return "QLoRA fine-tune";
    case TrainMethod::Full: break;
    }
    return s.model.isLanguageModel() ? "full fine-tune" : "training";
}

} // namespace

std::string autoScenarioName(const Scenario& s)
{
    std::string out = modelPart(s);
    out += ": ";
    out += workPart(s);
    return out;
}

} // namespace gp
