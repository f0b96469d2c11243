#pragma once
#include "scenariomodel.h"

#include <QScrollArea>

class QComboBox;
class QLineEdit;
class QListWidget;

namespace gp {
class Catalog;
}

namespace gp::ui {

class FormBinder;
class HardwareGroup;
class ModelGroup;
class NumberField;
class WorkloadGroup;

/// The scenario forms (Model, Workload, Hardware, Pricing) bound to a
/// ScenarioModel: widget edits become undoable model edits, model changes
/// (undo, open) update the widgets, and problems are marked at the field.
class ScenarioForm final : public QScrollArea
{
    Q_OBJECT
public:
    ScenarioForm(ScenarioModel* model, QWidget* parent = nullptr);
    ~ScenarioForm() override;

    /// The GPUs offered in the hardware list.
    void setCatalog(const gp::Catalog& catalog);

    /// The widget editing a field (tests drive the form through it); numbers
    /// are NumberFields.
    QWidget* editorFor(ScenarioModel::Field f) const;
    NumberField* numberFor(ScenarioModel::Field f) const;
    /// The "model size" entry ("13B"); applied as it is typed, after kSizeCoalesceMs.
    QLineEdit* sizeEdit() const;
    /// The size field's problem as shown under it ("" when none).
    QString sizeProblem() const;
    static constexpr int kSizeCoalesceMs = 300;
    /// The family the size describes (decoder, encoder, vision).
    QComboBox* familyCombo() const;
    QComboBox* presetCombo() const;
    QListWidget* gpuList() const;

    /// The fields whose typed text is refused (the model keeps the last good
    /// value), each as "Label: why (typed “text”)"; empty when none.
    QStringList refusedInputs() const;

    /// Asks for a config.json and imports it (also used by drag and drop).
    void importHfConfig(const QString& path);

signals:
    /// Something the user should see went wrong (unreadable config.json, ...).
    void errorOccurred(const QString& title, const QString& message);
    void importRequested();

private:
    void showAll();
    void showField(ScenarioModel::Field f);
    void showProblems();

    ScenarioModel* m_model;
    FormBinder* m_binder;
    ModelGroup* m_modelGroup = nullptr;
    WorkloadGroup* m_workloadGroup = nullptr;
    HardwareGroup* m_hardwareGroup = nullptr;
};

} // namespace gp::ui
