#pragma once
#include <QGroupBox>
#include <QHash>
#include <QStringList>

#include <vector>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;

namespace gp {
class Catalog;
}

namespace gp::ui {

class FormBinder;
class ScenarioModel;

/// The scenario form's "Hardware" group: the GPUs to consider (a filtered,
/// tickable catalog list), their count and parallelism, and the MIG slice.
class HardwareGroup final : public QGroupBox
{
    Q_OBJECT
public:
    explicit HardwareGroup(FormBinder* binder, QWidget* parent = nullptr);

    /// The GPUs offered in the list.
    void setCatalog(const gp::Catalog& catalog);
    QListWidget* gpuList() const { return m_gpuList; }

private:
    void refreshGpuFilter();
    void gpuItemChanged();
    void updateMigNote();
    /// The precision ticks offered for the scenario's mode.
    void rebuildPrecisions();

    FormBinder* m_binder;
    ScenarioModel* m_model;
    QComboBox* m_vendorFilter = nullptr;
    QComboBox* m_tierFilter = nullptr;
    QLineEdit* m_gpuSearch = nullptr;
    QListWidget* m_gpuList = nullptr;
    QLabel* m_gpuNote = nullptr;
    QComboBox* m_mig = nullptr;
    QLabel* m_migNote = nullptr;
    QWidget* m_precisionBox = nullptr;
    std::vector<QCheckBox*> m_precisionTicks;
    int m_precisionMode = -1;
    QHash<QString, QStringList> m_migProfiles; // catalog id -> the MIG profiles it offers
    int m_catalogSize = 0;
};

} // namespace gp::ui
