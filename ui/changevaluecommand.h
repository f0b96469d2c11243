#pragma once
#include "scenariomodel.h"

#include <QUndoCommand>
#include <QVariant>

namespace gp::ui {

/// The one generic undo command: sets one ScenarioModel field. Consecutive edits
/// of the same field merge (a spin box or slider drag is one undo step), as in
/// Tiled's ChangeValue (src/tiled/changevalue.h).
class ChangeValueCommand final : public QUndoCommand
{
public:
    ChangeValueCommand(ScenarioModel* model, ScenarioModel::Field field, QVariant oldValue, QVariant newValue);

    void undo() override;
    void redo() override;
    /// Merge id: the field (offset so 0 stays free), or -1 for fields whose edits
    /// are discrete choices (each GPU tick, each model switch is its own step).
    int id() const override;
    bool mergeWith(const QUndoCommand* other) override;

    ScenarioModel::Field field() const { return m_field; }

private:
    ScenarioModel* m_model;
    ScenarioModel::Field m_field;
    QVariant m_old;
    QVariant m_new;
};

} // namespace gp::ui
