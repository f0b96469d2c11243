#pragma once
#include "scenariomodel.h"

#include <QScrollArea>

#include <functional>
#include <vector>

class QButtonGroup;
class QCheckBox;
class QComboBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QListWidget;
class QStackedWidget;
class QTimer;

namespace gp {
class Catalog;
}

namespace gp::ui {

class NumberField;

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
    QLineEdit* sizeEdit() const { return m_sizeEdit; }
    /// The size field's problem as shown under it ("" when none).
    QString sizeProblem() const;
    static constexpr int kSizeCoalesceMs = 300;
    /// The family the size describes (decoder, encoder, vision).
    QComboBox* familyCombo() const { return m_familyCombo; }
    QComboBox* presetCombo() const { return m_presetCombo; }
    QListWidget* gpuList() const { return m_gpuList; }

    /// Asks for a config.json and imports it (also used by drag and drop).
    void importHfConfig(const QString& path);

signals:
    /// Something the user should see went wrong (unreadable config.json, ...).
    void errorOccurred(const QString& title, const QString& message);
    void importRequested();

private:
    struct Binding {
        ScenarioModel::Field field;
        QWidget* widget;
        std::function<void(const QVariant&)> show;
        QString baseToolTip;
    };

    QWidget* buildModelGroup();
    QWidget* buildWorkloadGroup();
    QWidget* buildHardwareGroup();
    QWidget* buildPricingGroup();

    /// A number entry bound to a field, checked by the core; `scaleExponent`: it
    /// shows value / 10^scaleExponent. Returns the field with its message line.
    QWidget* number(ScenarioModel::Field f, const QString& tip, double step = 1, int scaleExponent = 0,
                    bool optional = false);
    QComboBox* enumCombo(ScenarioModel::Field f, const std::vector<std::pair<QString, int>>& items, const QString& tip,
                         const QString& unsetLabel = {});
    void bind(ScenarioModel::Field f, QWidget* w, std::function<void(const QVariant&)> show);
    /// A form layout whose label column is lined up with the panel's others.
    QFormLayout* newForm();

    void showAll();
    void showField(ScenarioModel::Field f);
    void showProblems();
    void showModel();
    void applyArchEdit();
    void applySizeText();
    void setSizeProblem(const QString& message);
    void updateKvSameLabel();
    void refreshGpuFilter();
    void gpuItemChanged();
    void updateEnabledState();

    ScenarioModel* m_model;
    std::vector<Binding> m_bindings;
    std::vector<QFormLayout*> m_forms;
    bool m_updating = false;

    // Model group
    QComboBox* m_presetCombo = nullptr;
    QLineEdit* m_sizeEdit = nullptr;
    QComboBox* m_familyCombo = nullptr;
    QLabel* m_modelInfo = nullptr;
    QLabel* m_modelProblem = nullptr;
    QLabel* m_sizeMessage = nullptr;
    QTimer* m_sizeTimer = nullptr;
    QString m_sizeToolTip;
    struct ArchField {
        NumberField* field;
        const char* key;
    };
    std::vector<ArchField> m_archFields;
    QWidget* m_archBox = nullptr;

    // Workload
    QButtonGroup* m_modeGroup = nullptr;
    QStackedWidget* m_workloadStack = nullptr;
    std::vector<QCheckBox*> m_loraTargets;
    QWidget* m_loraBox = nullptr;

    // Hardware
    QComboBox* m_vendorFilter = nullptr;
    QComboBox* m_tierFilter = nullptr;
    QLineEdit* m_gpuSearch = nullptr;
    QListWidget* m_gpuList = nullptr;
    QLabel* m_gpuNote = nullptr;
    int m_catalogSize = 0;
};

} // namespace gp::ui
