#pragma once
#include <QGroupBox>
#include <QString>

#include <vector>

class QComboBox;
class QLabel;
class QLineEdit;
class QTimer;

namespace gp::ui {

class FormBinder;
class NumberField;
class ScenarioModel;

/// The scenario form's "Model" group: a preset, a size alone ("13B") or an
/// explicit architecture; the model's problems are shown under it.
class ModelGroup final : public QGroupBox
{
    Q_OBJECT
public:
    static constexpr int kSizeCoalesceMs = 300;

    explicit ModelGroup(FormBinder* binder, QWidget* parent = nullptr);

    QLineEdit* sizeEdit() const { return m_sizeEdit; }
    /// The size field's problem as shown under it ("" when none).
    QString sizeProblem() const;
    QComboBox* familyCombo() const { return m_familyCombo; }
    QComboBox* presetCombo() const { return m_presetCombo; }

    /// Shows the model (spec, size, architecture, description and problems).
    void showModel();

signals:
    void importRequested();

private:
    void applyArchEdit();
    void applySizeText();
    void setSizeProblem(const QString& message);

    FormBinder* m_binder;
    ScenarioModel* m_model;
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
};

} // namespace gp::ui
