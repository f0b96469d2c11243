#pragma once
#include "scenariomodel.h"

#include <QScrollArea>

#include <functional>
#include <vector>

class QButtonGroup;
class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QListWidget;
class QSpinBox;
class QStackedWidget;

namespace gp {
class Catalog;
}

namespace gp::ui {

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

    /// The widget editing a field (tests drive the form through it).
    QWidget* editorFor(ScenarioModel::Field f) const;
    /// The "model size" entry ("13B").
    QLineEdit* sizeEdit() const { return m_sizeEdit; }
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

    QSpinBox* intSpin(ScenarioModel::Field f, int min, int max, const QString& tip, int step = 1);
    QDoubleSpinBox* doubleSpin(ScenarioModel::Field f, double min, double max, int decimals, const QString& tip,
                               double scale = 1, bool optional = false);
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
    struct ArchSpin {
        QSpinBox* spin;
        const char* key;
    };
    std::vector<ArchSpin> m_archSpins;
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
