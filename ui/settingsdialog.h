#pragma once
#include <QDialog>

#include <functional>

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
    /// Shows a problem (a bad currency symbol, a settings file that cannot be written);
    /// tests inject one that records instead of a modal box.
    void setErrorReporter(std::function<void(const QString&, const QString&)> r) { m_reportError = std::move(r); }
    /// Stays open when the currency symbol is refused; a failed write is reported, and
    /// the values still apply to this session.
    void accept() override;
    QLineEdit* currencyEdit() const { return m_currency; }

private:
    std::function<void(const QString&, const QString&)> m_reportError;
    Settings& m_settings;
    QComboBox* m_pricing;
    QDoubleSpinBox* m_electricity;
    QLineEdit* m_currency;
};

} // namespace gp::ui
