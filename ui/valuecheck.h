#pragma once
#include <QString>
#include <QVariant>

namespace gp::ui {

/// The core's problem with one value of a scenario key, exactly as opening a
/// file holding it would report it ("workload.training.micro_batch: must be a
/// positive integer between 1 and 1000000, got -4"); "" when the core takes it.
/// `value` is an int or double, a QString (text that is not a number; the
/// core names it), or invalid (an empty required field). Only the key's own
/// rules apply: rules between keys (count vs tp x pp) are the model's to report.
QString scenarioValueProblem(const QString& keyPath, const QVariant& value);

} // namespace gp::ui
