#include "settingsdialog.h"

#include "settings.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QVBoxLayout>

namespace gp::ui {

SettingsDialog::SettingsDialog(Settings& settings, QWidget* parent)
    : QDialog(parent)
    , m_settings(settings)
    , m_pricing(new QComboBox(this))
    , m_electricity(new QDoubleSpinBox(this))
    , m_currency(new QLineEdit(this))
    , m_calibration(new QLineEdit(this))
    , m_builtinButton(new QPushButton(tr("&Built-in"), this))
{
    setWindowTitle(tr("Settings"));
    m_reportError = [this](const QString& t, const QString& m) { QMessageBox::warning(this, t, m); };
    m_pricing->addItem(tr("Rent on demand"), static_cast<int>(gp::PricingModel::OnDemand));
    m_pricing->addItem(tr("Rent spot / preemptible"), static_cast<int>(gp::PricingModel::Spot));
    m_pricing->addItem(tr("Rent reserved"), static_cast<int>(gp::PricingModel::Reserved));
    m_pricing->addItem(tr("Buy (amortized + power)"), static_cast<int>(gp::PricingModel::Purchase));
    m_pricing->setCurrentIndex(std::max(0, m_pricing->findData(static_cast<int>(settings.defaultPricingModel()))));
    m_pricing->setAccessibleName(tr("Default pricing model"));
    m_electricity->setRange(0, 10);
    m_electricity->setDecimals(3);
    m_electricity->setSingleStep(0.01);
    m_electricity->setSuffix(tr(" USD/kWh"));
    m_electricity->setValue(settings.electricityUsdPerKwh());
    m_electricity->setAccessibleName(tr("Default electricity price"));
    m_currency->setText(settings.currencySymbol());
    m_currency->setMaxLength(Settings::kMaxCurrencyChars);
    m_currency->setAccessibleName(tr("Currency symbol"));
    m_currency->setToolTip(tr("Shown in front of money values; prices stay in USD (no conversion)"));

    m_calibration->setReadOnly(true);
    m_calibration->setAccessibleName(tr("Calibration file"));
    showCalibration(settings.calibrationFile());
    auto* browse = new QPushButton(tr("C&hoose..."), this);
    browse->setToolTip(tr("A calibration file from gpuplanner-cli calibrate (same format as the built-in one)"));
    m_builtinButton->setToolTip(tr("Use the calibration compiled into GPU Planner"));
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString current = m_calibration->toolTip();
        const QString path = QFileDialog::getOpenFileName(this, tr("Choose a calibration file"),
                                                          QFileInfo(current).absolutePath(),
                                                          tr("Calibration (*.json);;All files (*)"));
        if (!path.isEmpty())
            chooseCalibrationFile(path);
    });
    connect(m_builtinButton, &QPushButton::clicked, this, &SettingsDialog::useBuiltinCalibration);
    auto* calibrationRow = new QHBoxLayout;
    calibrationRow->addWidget(m_calibration, 1);
    calibrationRow->addWidget(browse);
    calibrationRow->addWidget(m_builtinButton);

    auto* form = new QFormLayout;
    form->addRow(tr("Default &pricing for new scenarios"), m_pricing);
    form->addRow(tr("Default &electricity price"), m_electricity);
    form->addRow(tr("&Currency symbol"), m_currency);
    auto* calibrationLabel = new QLabel(tr("Ca&libration"), this);
    calibrationLabel->setBuddy(browse); // the path itself is read-only: Alt+L goes to "Choose..."
    form->addRow(calibrationLabel, calibrationRow);
    auto* note = new QLabel(tr("Defaults apply to new scenarios; open scenarios keep their own pricing."));
    note->setWordWrap(true);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(note);
    layout->addWidget(buttons);
}

void SettingsDialog::accept()
{
    const QString symbol = m_currency->text().trimmed();
    if (const QString problem = Settings::currencySymbolProblem(symbol); !problem.isEmpty()) {
        m_reportError(tr("Currency symbol"), problem);
        m_currency->setFocus();
        return;
    }
    m_settings.setDefaultPricingModel(static_cast<gp::PricingModel>(m_pricing->currentData().toInt()));
    m_settings.setElectricityUsdPerKwh(m_electricity->value());
    m_settings.setCurrencySymbol(symbol);
    if (m_calibrationChosen)
        m_settings.setCalibrationFile(m_chosen.path);
    if (const QString error = m_settings.sync(); !error.isEmpty())
        m_reportError(tr("Cannot save the settings"), error + QLatin1Char('\n') + tr("They apply until GPU Planner is closed."));
    QDialog::accept();
}

void SettingsDialog::showCalibration(const QString& path)
{
    // The line shows the file's full path (the tooltip too: it may be long).
    m_calibration->setText(path.isEmpty() ? tr("Built-in (compiled into GPU Planner)") : QDir::toNativeSeparators(path));
    m_calibration->setToolTip(path);
    m_builtinButton->setEnabled(!path.isEmpty());
}

bool SettingsDialog::chooseCalibrationFile(const QString& path)
{
    QString error;
    CalibrationChoice loaded = loadCalibrationFile(path, &error);
    if (!error.isEmpty()) {
        m_reportError(tr("Calibration file"), error + QLatin1Char(' ') + tr("The previous choice is kept."));
        return false;
    }
    m_chosen = std::move(loaded);
    m_calibrationChosen = true;
    showCalibration(m_chosen.path);
    return true;
}

void SettingsDialog::useBuiltinCalibration()
{
    m_chosen = {};
    m_calibrationChosen = true;
    showCalibration(QString());
}

} // namespace gp::ui
