#pragma once
#include <QGroupBox>

#include <vector>

class QButtonGroup;
class QCheckBox;
class QStackedWidget;

namespace gp::ui {

class FormBinder;
class ScenarioModel;

/// The scenario form's "Workload" group: mode, runtime, and the training or
/// inference fields of the mode.
class WorkloadGroup final : public QGroupBox
{
    Q_OBJECT
public:
    explicit WorkloadGroup(FormBinder* binder, QWidget* parent = nullptr);

    /// The KV cache's "Same as weights" item names the format it stands for.
    void updateKvSameLabel();
    /// Enables what applies to the model (language or vision) and training method.
    void updateEnabledState();

private:
    FormBinder* m_binder;
    ScenarioModel* m_model;
    QButtonGroup* m_modeGroup = nullptr;
    QStackedWidget* m_workloadStack = nullptr;
    std::vector<QCheckBox*> m_loraTargets;
    QWidget* m_loraBox = nullptr;
};

} // namespace gp::ui
