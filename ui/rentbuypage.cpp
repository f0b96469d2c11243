#include "rentbuypage.h"

#include "numberfield.h"
#include "valuecheck.h"

#include "estimatecontroller.h"
#include "format.h"
#include "reportbuilder.h"

#include "charts/plannercharts.h"

#include "core/hardware/catalog.h"
#include "core/base/errors.h"

#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QSplitter>
#include <QVBoxLayout>

#include <cmath>

namespace gp::ui {

using Field = ScenarioModel::Field;

QString breakEvenText(const gp::RentVsBuy& r)
{
    if (!r.breakEvenGpuHours)
        return r.purchaseUsdPerGpu <= 0 || r.onDemandUsdPerGpuHour <= 0
                   ? QObject::tr("No break-even: the catalog lists only one of a rental and a purchase price.")
                   : QObject::tr("No break-even: power costs more per hour than renting.");
    QStringList parts;
    parts << QObject::tr("%1 busy GPU-hours per GPU").arg(formatNumber(std::round(*r.breakEvenGpuHours), 3));
    if (r.breakEvenUtilization)
        parts << QObject::tr("%1% utilization").arg(formatNumber(*r.breakEvenUtilization * 100, 2));
    parts << (r.breakEvenMonth ? QObject::tr("month %1 at this utilization").arg(*r.breakEvenMonth)
                               : QObject::tr("not within the amortization period at this utilization"));
    return QObject::tr("Break-even: %1").arg(parts.join(QStringLiteral(" · ")));
}

RentBuyPage::RentBuyPage(ScenarioModel* model, EstimateController* estimates, QWidget* parent)
    : QWidget(parent)
    , m_model(model)
    , m_estimates(estimates)
{
    // Left: the GPU choice, the pricing inputs and the numbers; right: the chart.
    auto* left = new QWidget;
    auto* ll = new QVBoxLayout(left);
    ll->setContentsMargins(0, 0, 0, 0);

    auto* choice = new QFormLayout;
    m_gpu = new QComboBox;
    m_gpu->setAccessibleName(tr("GPU to compare"));
    m_gpu->setToolTip(tr("The recommended setup follows the report's recommendation; or pick any catalog GPU"));
    m_gpu->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_gpu->setMinimumContentsLength(16);
    connect(m_gpu, &QComboBox::currentIndexChanged, this, [this](int i) {
        if (m_updating)
            return;
        m_count->setEnabled(i > 0);
        markDirty();
    });
    auto* gpuLabel = new QLabel(tr("&GPU"));
    gpuLabel->setBuddy(m_gpu);
    choice->addRow(gpuLabel, m_gpu);
    m_count = new QSpinBox;
    m_count->setRange(1, 1 << 16);
    m_count->setAccessibleName(tr("GPUs owned or rented"));
    m_count->setToolTip(tr("How many GPUs are rented or bought (the recommendation's count when following it)"));
    m_count->setEnabled(false);
    connect(m_count, &QSpinBox::valueChanged, this, [this] {
        if (!m_updating)
            markDirty();
    });
    auto* countLabel = new QLabel(tr("GP&Us"));
    countLabel->setBuddy(m_count);
    choice->addRow(countLabel, m_count);
    ll->addLayout(choice);

    auto* inputs = new QGroupBox(tr("Assumptions (the scenario's pricing)"));
    auto* form = new QFormLayout(inputs);
    auto* util = spin(Field::Utilization, 0.05, tr("Share of every hour the GPUs do useful work (0-1]"));
    form->addRow(ScenarioModel::label(Field::Utilization), util);
    form->addRow(ScenarioModel::label(Field::ElectricityUsdPerKwh),
                 spin(Field::ElectricityUsdPerKwh, 0.01, tr("Electricity price, USD per kWh (owning)")));
    form->addRow(ScenarioModel::label(Field::Pue),
                 spin(Field::Pue, 0.05, tr("Power usage effectiveness of the facility (owning)")));
    form->addRow(ScenarioModel::label(Field::AmortizationYears),
                 spin(Field::AmortizationYears, 0.5, tr("Years to write the purchase off over; the chart's length")));
    form->addRow(ScenarioModel::label(Field::HostingUsdPerGpuYear),
                 spin(Field::HostingUsdPerGpuYear, 500,
                      tr("Owning: rack space, networking and a share of staff per GPU per year, USD")));
    ll->addWidget(inputs);

    m_heading = new QLabel;
    m_heading->setWordWrap(true);
    ll->addWidget(m_heading);
    m_numbers = new QLabel;
    m_numbers->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_numbers->setAccessibleName(tr("Prices used"));
    ll->addWidget(m_numbers);
    m_breakEven = new QLabel;
    m_breakEven->setWordWrap(true);
    m_breakEven->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_breakEven->setAccessibleName(tr("Break-even"));
    QFont bold = m_breakEven->font();
    bold.setBold(true);
    m_breakEven->setFont(bold);
    ll->addWidget(m_breakEven);
    m_verdict = new QLabel;
    m_verdict->setWordWrap(true);
    m_verdict->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_verdict->setAccessibleName(tr("Verdict"));
    ll->addWidget(m_verdict);
    m_notes = new QLabel;
    m_notes->setWordWrap(true);
    m_notes->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_notes->setAccessibleName(tr("Notes"));
    ll->addWidget(m_notes);
    ll->addStretch(1);

    auto* scroll = new QScrollArea;
    scroll->setWidget(left);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setMinimumWidth(200); // it scrolls; the page fits a 1024-px window beside the form

    m_chart = new charts::ChartView(tr("Rent vs buy: cumulative cost"));
    m_chart->setCaption(tr("Cumulative cost at the end of each month: renting bills the busy hours (reserved bills "
                           "every hour), owning pays the purchase up front, then power and hosting."));

    auto* split = new QSplitter(Qt::Horizontal);
    split->addWidget(scroll);
    split->addWidget(m_chart);
    split->setStretchFactor(0, 0);
    split->setStretchFactor(1, 1);
    split->setChildrenCollapsible(false);
    split->setSizes({360, 640});
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(split);

    connect(m_model, &ScenarioModel::fieldChanged, this, &RentBuyPage::showField);
    connect(m_model, &ScenarioModel::scenarioReset, this, [this] {
        for (const auto& [f, w] : m_editors)
            showField(f);
    });
    connect(m_model, &ScenarioModel::changed, this, &RentBuyPage::markDirty);
    connect(m_estimates, &EstimateController::estimateChanged, this, &RentBuyPage::markDirty);
    connect(m_estimates, &EstimateController::catalogChanged, this, &RentBuyPage::fillGpuCombo);
    // Other constants, another plan (the estimate's recompute marks the page dirty).
    connect(m_estimates, &EstimateController::calibrationChanged, this, [this] { m_plannedFor.clear(); });
    fillGpuCombo();
    for (const auto& [f, w] : m_editors)
        showField(f);
}

RentBuyPage::~RentBuyPage() = default;

QWidget* RentBuyPage::spin(Field f, double step, const QString& tip)
{
    // The same entry as the scenario form: what is typed is kept, read in the
    // locale and checked by the core's own rules for the key (message at the field).
    auto* n = new NumberField(NumberField::Kind::Decimal);
    n->setSingleStep(step);
    n->setStepMinimum(step);
    n->setToolTip(tip);
    n->setAccessibleName(ScenarioModel::label(f));
    n->setCheck([path = ScenarioModel::keyPath(f)](const QVariant& v) { return scenarioValueProblem(path, v); });
    connect(n, &NumberField::valueEdited, this, [this, f](const QVariant& v) {
        if (!m_updating)
            m_model->setValue(f, v);
    });
    m_editors[f] = n;
    return n->withMessageLine();
}

QWidget* RentBuyPage::editorFor(Field f) const
{
    const auto it = m_editors.find(f);
    return it == m_editors.end() ? nullptr : it->second;
}

void RentBuyPage::showField(Field f)
{
    const auto it = m_editors.find(f);
    if (it == m_editors.end())
        return;
    m_updating = true;
    const QSignalBlocker block(it->second);
    it->second->showValue(m_model->value(f));
    m_updating = false;
}

void RentBuyPage::fillGpuCombo()
{
    m_plannedFor.clear(); // a new catalog: plan again
    m_updating = true;
    const QString current = m_gpu->currentData().toString();
    m_gpu->clear();
    m_gpu->addItem(tr("Recommended GPU"), QString());
    for (const auto& g : m_estimates->catalog().gpus())
        if (g.pricePerHour.typical > 0 || g.purchaseUsd > 0)
            m_gpu->addItem(QString::fromStdString(g.name), QString::fromStdString(g.id));
    m_gpu->setCurrentIndex(std::max(0, m_gpu->findData(current)));
    m_count->setEnabled(m_gpu->currentIndex() > 0);
    m_updating = false;
    markDirty();
}

void RentBuyPage::setCurrency(const QString& symbol)
{
    m_currency = symbol;
    markDirty();
}

void RentBuyPage::markDirty()
{
    m_dirty = true;
    if (isVisible())
        rebuild();
}

void RentBuyPage::showEvent(QShowEvent* event)
{
    if (m_dirty)
        rebuild();
    QWidget::showEvent(event);
}

const std::optional<gp::RentVsBuy>& RentBuyPage::result() const
{
    if (m_dirty)
        const_cast<RentBuyPage*>(this)->rebuild(); // a cache fill, not a visible change
    return m_result;
}

ReportRecommendation RentBuyPage::recommendation(const gp::Scenario& s, const gp::Catalog& catalog)
{
    const gp::Estimate& e = m_estimates->estimate();
    if (recommendedIndex(e) >= 0)
        return reportRecommendation(s, e, nullptr, m_currency);
    // No GPU meets the targets as configured: the planner's #1, as in the report.
    // Planned once per scenario; the plan does not depend on the GPU picked here.
    const std::string key = gp::scenarioToJson(s);
    if (key != m_plannedFor) {
        m_plan.reset();
        try {
            m_plan = std::make_unique<gp::PlanResult>(gp::plan(s, catalog, gp::PlanRequest{ReportBuilder::kMaxPlanOptions, m_estimates->calibration()}));
        } catch (const std::exception&) {
            // An invalid scenario has no plan: the estimate's own choice stands.
        }
        m_plannedFor = key;
    }
    return reportRecommendation(s, e, m_plan.get(), m_currency);
}

void RentBuyPage::rebuild()
{
    m_dirty = false;
    m_result.reset();
    m_error.clear();
    const gp::Scenario& s = m_model->scenario();
    const gp::Catalog& catalog = m_estimates->catalog();

    std::optional<GpuChoice> pick;
    if (m_gpu->currentIndex() <= 0) {
        // The report's recommendation (the planner's best when no GPU meets the
        // targets as configured); only when there is none, the best-ranked GPU
        // with a price.
        const ReportRecommendation rec = recommendation(s, catalog);
        pick = rec.source != ReportRecommendation::Source::None ? std::optional<GpuChoice>(GpuChoice{rec.gpu, rec.gpus})
                                                                 : rentBuyChoice(m_estimates->estimate(), s, catalog);
        m_updating = true;
        if (pick) {
            const gp::Gpu* g = catalog.find(pick->gpu);
            m_gpu->setItemText(0, tr("Recommended: %1").arg(QString::fromStdString(g ? g->name : pick->gpu)));
            m_count->setValue(pick->count);
        } else {
            m_gpu->setItemText(0, tr("Recommended GPU (none)"));
        }
        m_updating = false;
        if (const gp::Gpu* g = pick ? catalog.find(pick->gpu) : nullptr;
            g && g->pricePerHour.typical <= 0 && g->purchaseUsd <= 0) {
            m_error = tr("The recommended setup, %1, has no rental or purchase price in the catalog; pick a GPU above.")
                          .arg(rec.setup);
            pick.reset();
        }
    } else {
        pick = GpuChoice{m_gpu->currentData().toString().toStdString(), m_count->value()};
    }

    if (!pick) {
        if (m_error.isEmpty())
            m_error = tr("No GPU with a rental or purchase price to compare; pick one above.");
    } else if (const gp::Gpu* g = catalog.find(pick->gpu); !g) {
        m_error = tr("%1 is not in the catalog.").arg(QString::fromStdString(pick->gpu));
    } else {
        try {
            m_result = gp::rentVsBuy(s, *g, pick->count);
        } catch (const gp::InputError& e) {
            QStringList lines;
            for (const auto& d : e.problems())
                lines << QString::fromStdString(d.message);
            m_error = lines.join(QLatin1Char('\n'));
        }
    }

    charts::ChartOptions options;
    options.currency = m_currency;
    if (!m_result) {
        m_chart->setChart(charts::buildRentBuyChart(gp::RentVsBuy{}, options));
        m_heading->setText(QString());
        m_numbers->setText(QString());
        m_breakEven->setText(m_error);
        m_verdict->clear();
        m_notes->clear();
        return;
    }
    const gp::RentVsBuy& r = *m_result;
    m_chart->setChart(charts::buildRentBuyChart(r, options));
    m_heading->setText(tr("<b>%1x %2</b>, busy %3% of every hour: %4 GPU-hours a month")
                           .arg(r.count)
                           .arg(htmlEscape(QString::fromStdString(r.gpuName)))
                           .arg(formatNumber(s.pricing.utilization * 100, 3))
                           .arg(formatNumber(r.usedGpuHoursPerMonth, 4)));
    const auto money = [this](double v) { return v > 0 ? formatMoney(v, m_currency) : tr("not listed"); };
    QString rows;
    const auto row = [&rows](const QString& what, const QString& value) {
        rows += QStringLiteral("<tr><td>%1</td><td align='right'>&nbsp;&nbsp;%2</td></tr>").arg(what, value);
    };
    row(tr("Rent on demand, per GPU-hour"), money(r.onDemandUsdPerGpuHour));
    row(tr("Rent spot, per GPU-hour"), r.spotUsdPerGpuHour ? money(*r.spotUsdPerGpuHour) : tr("not listed"));
    row(tr("Rent reserved, per GPU-hour (all hours)"), money(r.reservedUsdPerGpuHour));
    row(tr("Buy, per GPU"), money(r.purchaseUsdPerGpu));
    row(tr("Power while busy, per GPU-hour"), formatMoney(r.energyUsdPerGpuHour, m_currency));
    row(tr("Hosting, per GPU-year"), formatMoney(r.hostingUsdPerGpuYear, m_currency));
    if (r.breakEvenUtilization)
        row(tr("Break-even utilization"), QStringLiteral("%1%").arg(formatNumber(*r.breakEvenUtilization * 100, 2)));
    if (r.breakEvenMonth)
        row(tr("Break-even month"), QString::number(*r.breakEvenMonth));
    m_numbers->setText(QStringLiteral("<table cellspacing='0' cellpadding='1'>%1</table>").arg(rows));
    m_breakEven->setText(breakEvenText(r));
    m_verdict->setText(QString::fromStdString(r.verdict));
    QStringList notes;
    for (const auto& n : r.notes)
        notes << QStringLiteral("• ") + htmlEscape(QString::fromStdString(n));
    m_notes->setText(notes.join(QStringLiteral("<br>")));
}

} // namespace gp::ui
