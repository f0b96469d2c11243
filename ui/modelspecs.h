#pragma once
#include "core/model/model.h"
#include "core/scenario/scenario.h"

#include <QString>

#include <optional>

namespace gp::ui {

/// Reads a parameter count the way people write it: "13B", "70b", "1.5T",
/// "124M", "350k", "7e9", "8 000 000 000". Unset when it is not one.
std::optional<double> parseParamCount(const QString& text);

/// The explicit-architecture JSON (scenario format, model form 2) for a resolved
/// model, so editing one architecture field keeps the others.
std::string explicitJsonFor(const gp::ModelArch& m);

/// A Hugging Face config.json as a model spec (Form::HfConfig). On failure
/// returns unset and sets *error to a message naming the file and key.
/// A config.json without "_name_or_path" (most on the Hub today) is named from
/// where it lies (modelNameFromPath), so the scenario reads "Qwen2.5 7B", not "qwen2".
std::optional<gp::ModelSpec> hfConfigSpecFromFile(const QString& path, QString* error);
/// A model's name from a config.json's path: its folder (".../Qwen2.5-7B/config.json"),
/// the Hugging Face cache's "models--Qwen--Qwen2.5-7B/snapshots/<hash>/config.json", or a
/// file named for it ("Qwen2.5-7B.json"), with '-' and '_' as spaces ("Qwen2.5 7B");
/// "" when the path says nothing (".../Downloads/config.json").
QString modelNameFromPath(const QString& path);
std::optional<gp::ModelSpec> hfConfigSpecFromText(const QByteArray& text, const QString& origin, QString* error);

/// One line describing a resolved model: name, parameters, shape.
QString describeModel(const gp::ModelArch& m);

} // namespace gp::ui
