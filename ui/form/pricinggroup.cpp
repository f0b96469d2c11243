#include "pricinggroup.h"

#include "formbinder.h"

#include <QComboBox>
#include <QFormLayout>

namespace gp::ui {

using Field = ScenarioModel::Field;

PricingGroup::PricingGroup(FormBinder* binder, QWidget* parent)
    : QGroupBox(tr("Pricing"), parent)
{
    auto* form = binder->newForm();
    setLayout(form);
    form->addRow(ScenarioModel::label(Field::PricingModel),
                 binder->enumCombo(Field::PricingModel,
                           {{tr("Rent on demand"), static_cast<int>(gp::PricingModel::OnDemand)},
                            {tr("Rent spot / preemptible"), static_cast<int>(gp::PricingModel::Spot)},
                            {tr("Rent reserved"), static_cast<int>(gp::PricingModel::Reserved)},
                            {tr("Buy (amortized + power)"), static_cast<int>(gp::PricingModel::Purchase)}},
                           tr("How the GPU hours are paid for")));
    auto* util = binder->number(Field::Utilization, tr("Fraction of paid hours doing useful work (0-1]"), 0.05);
    form->addRow(ScenarioModel::label(Field::Utilization), util);
    auto* kwh = binder->number(Field::ElectricityUsdPerKwh, tr("Electricity price, USD per kWh (purchase)"), 0.01);
    form->addRow(ScenarioModel::label(Field::ElectricityUsdPerKwh), kwh);
    auto* pue = binder->number(Field::Pue, tr("Power usage effectiveness of the facility (purchase)"), 0.05);
    form->addRow(ScenarioModel::label(Field::Pue), pue);
    form->addRow(ScenarioModel::label(Field::AmortizationYears),
                 binder->number(Field::AmortizationYears, tr("Years to write the purchase off over"), 0.5));
    auto* hosting = binder->number(Field::HostingUsdPerGpuYear,
                           tr("Owning: rack space, networking and a share of staff per GPU per year, USD "
                              "(the rent-vs-buy break-even includes it)"),
                           500);
    form->addRow(ScenarioModel::label(Field::HostingUsdPerGpuYear), hosting);
}

} // namespace gp::ui
