#include "changevaluecommand.h"

#include <utility>

namespace gp::ui {

namespace {

bool mergeable(ScenarioModel::Field f)
{
    using F = ScenarioModel::Field;
    switch (f) {
    case F::Gpus:
    case F::LoraTargets:
    case F::Mode:
    case F::Precisions: // ticks and switches: each click is its own undo step
    case F::Consumer:
    case F::ChunkedLoss:
    case F::OptimizerInBackward:
        return false;
    default:
        return true;
    }
}

} // namespace

ChangeValueCommand::ChangeValueCommand(ScenarioModel* model, ScenarioModel::Field field, QVariant oldValue,
                                       QVariant newValue)
    : m_model(model)
    , m_field(field)
    , m_old(std::move(oldValue))
    , m_new(std::move(newValue))
{
    setText(QObject::tr("Change %1").arg(ScenarioModel::label(field)));
}

void ChangeValueCommand::undo()
{
    m_model->applyValue(m_field, m_old);
}

void ChangeValueCommand::redo()
{
    m_model->applyValue(m_field, m_new);
}

int ChangeValueCommand::id() const
{
    return mergeable(m_field) ? 1000 + static_cast<int>(m_field) : -1;
}

bool ChangeValueCommand::mergeWith(const QUndoCommand* other)
{
    const auto* o = dynamic_cast<const ChangeValueCommand*>(other);
    if (!o || o->m_field != m_field || o->m_model != m_model)
        return false;
    if (m_field == ScenarioModel::Field::Model) {
        // Architecture edits merge, and so does a size being typed ("13B", then
        // "130B"); switching presets, the size's family or importing does not.
        const auto a = m_new.value<gp::ModelSpec>();
        const auto b = o->m_new.value<gp::ModelSpec>();
        const bool bothExplicit = a.form == gp::ModelSpec::Form::Explicit && b.form == gp::ModelSpec::Form::Explicit;
        const bool sameSizeKind = a.form == gp::ModelSpec::Form::Params && b.form == gp::ModelSpec::Form::Params &&
                                  a.family == b.family;
        if (!bothExplicit && !sameSizeKind)
            return false;
    }
    m_new = o->m_new;
    // Back where it started (e.g. spun up and down again): drop the step.
    if (m_field != ScenarioModel::Field::Model && m_new == m_old)
        setObsolete(true);
    return true;
}

} // namespace gp::ui
