#include "settingsdialog.h"

#include "settings.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QVBoxLayout>

namespace gp::ui {

SettingsDialog::SettingsDialog(Settings& settings, QWidget* parent)
    : QDialog(parent)
    , m_settings(settings)
    , m_pricing(new QComboBox(this))
    , m_electricity(new QDoubleSpinBox(this))
    , m_currency(new QLineEdit(this))
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

    auto* form = new QFormLayout;
    form->addRow(tr("Default &pricing for new scenarios"), m_pricing);
    form->addRow(tr("Default &electricity price"), m_electricity);
    form->addRow(tr("&Currency symbol"), m_currency);
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
    if (const QString error = m_settings.sync(); !error.isEmpty())
        m_reportError(tr("Cannot save the settings"), error + QLatin1Char('\n') + tr("They apply until GPU Planner is closed."));
    QDialog::accept();
}

} // namespace gp::ui
