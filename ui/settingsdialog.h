#pragma once
#include <QDialog>

class QComboBox;
class QDoubleSpinBox;
class QLineEdit;

namespace gp::ui {

class Settings;

/// Tools → Settings: default pricing model, electricity price, currency symbol.
class SettingsDialog final : public QDialog
{
    Q_OBJECT
public:
    SettingsDialog(Settings& settings, QWidget* parent = nullptr);
    void accept() override;

private:
    Settings& m_settings;
    QComboBox* m_pricing;
    QDoubleSpinBox* m_electricity;
    QLineEdit* m_currency;
};

} // namespace gp::ui
