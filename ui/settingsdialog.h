#pragma once
#include "calibrationfile.h"

#include <QDialog>

#include <functional>

class QComboBox;
class QDoubleSpinBox;
class QLineEdit;
class QPushButton;

namespace gp::ui {

class Settings;

/// Tools → Settings: default pricing model, electricity price, currency symbol, and
/// the calibration file every estimate uses (or the built-in one).
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

    /// Loads and validates a calibration file (the "Choose..." button's pick); a bad
    /// one is reported (file, key and problem) and the previous choice stays.
    bool chooseCalibrationFile(const QString& path);
    /// Goes back to the built-in calibration (the "Built-in" button).
    void useBuiltinCalibration();
    /// A calibration was chosen in this dialog (the caller applies it after accept()).
    bool calibrationChosen() const { return m_calibrationChosen; }
    const CalibrationChoice& chosenCalibration() const { return m_chosen; }
    QLineEdit* calibrationEdit() const { return m_calibration; }

private:
    std::function<void(const QString&, const QString&)> m_reportError;
    Settings& m_settings;
    QComboBox* m_pricing;
    QDoubleSpinBox* m_electricity;
    QLineEdit* m_currency;
    QLineEdit* m_calibration;
    QPushButton* m_builtinButton;
    CalibrationChoice m_chosen;
    bool m_calibrationChosen = false;

    void showCalibration(const QString& path);
};

} // namespace gp::ui
