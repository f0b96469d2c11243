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
        // Architecture spin edits merge; switching presets or importing does not.
        const auto explicitForm = [](const QVariant& v) {
            return v.value<gp::ModelSpec>().form == gp::ModelSpec::Form::Explicit;
        };
        if (!explicitForm(m_new) || !explicitForm(o->m_new))
            return false;
    }
    m_new = o->m_new;
    // Back where it started (e.g. spun up and down again): drop the step.
    if (m_field != ScenarioModel::Field::Model && m_new == m_old)
        setObsolete(true);
    return true;
}

} // namespace gp::ui
