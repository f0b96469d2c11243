// The report's plan, rent-vs-buy and rules sections (HTML painted by
// ReportBuilder::paint), built from core structs and ui models.
#include "reportbuilder.h"

#include "plantablemodel.h"
#include "reporthtml.h"
#include "rulestablemodel.h"

#include "core/base/errors.h"
#include "core/base/units.h"

#include <algorithm>
#include <cmath>

namespace gp::ui {

using reporthtml::esc;
using reporthtml::opt;
using reporthtml::sv;

QString ReportBuilder::htmlPlan() const
{
    if (!(m_sections & PlanSection))
        return {};
    QString h = reporthtml::style() + QObject::tr("<h2>Plan</h2>");
    if (!m_plan) {
        h += QObject::tr("<p class='bad'>No plan: %1</p>").arg(htmlEscape(m_planError));
        return h;
    }
    const gp::PlanResult& p = *m_plan;
    h += QObject::tr("<p>The planner searched GPU type x count x layout (TP/PP/ZeRO) x number format x batch for "
                     "the GPUs of this scenario: %1 configurations, %2 of which fit and meet the targets. Ranked by "
                     "%3, then %4; <b>bold</b> options are on the cost-vs-time Pareto front.</p>")
             .arg(formatNumber(static_cast<double>(p.considered), 6), formatNumber(static_cast<double>(p.feasible), 6),
                  esc(p.costLabel), esc(p.timeLabel));
    if (p.options.empty()) {
        h += QObject::tr("<p class='warn'>No option fits and meets the targets.</p>");
        return h;
    }
    const gp::Mode mode = m_scenario.mode;
    const bool serving = mode == gp::Mode::Inference;
    h += QStringLiteral("<table border='1' cellspacing='0' width='100%'><thead><tr>");
    QStringList heads{QObject::tr("#"), QObject::tr("GPU"), QObject::tr("Count"), QObject::tr("Layout"),
                      QObject::tr("Precision"), serving ? QObject::tr("Batch / replica") : QObject::tr("Micro-batch")};
    if (serving)
        heads << QObject::tr("Replicas") << QObject::tr("Users / replica");
    heads << QObject::tr("%1/h").arg(m_currency) << planAxisLabel(p.costLabel) << planAxisLabel(p.timeLabel)
          << QObject::tr("GiB / GPU");
    for (const auto& t : heads)
        h += QStringLiteral("<th>%1</th>").arg(htmlEscape(t));
    h += QStringLiteral("</tr></thead>");
    int n = 0;
    for (const auto& o : p.options) {
        if (n++ >= kMaxPlanOptions)
            break;
        const bool front = std::find(p.pareto.begin(), p.pareto.end(), o.rank) != p.pareto.end();
        const QString b0 = front ? QStringLiteral("<b>") : QString();
        const QString b1 = front ? QStringLiteral("</b>") : QString();
        QString gpu = esc(o.gpuName);
        if (!o.mig.empty())
            gpu += QObject::tr(" (MIG %1)").arg(esc(o.mig));
        h += QStringLiteral("<tr%1>").arg(o.rank == 1 ? QStringLiteral(" class='rec'") : QString());
        h += QStringLiteral("<td align='right'>%1%2%3</td><td>%1%4%3</td>").arg(b0).arg(o.rank).arg(b1, gpu);
        h += QStringLiteral("<td align='right'>%1</td><td>%2</td><td>%3</td><td>%4</td>")
                 .arg(o.replicas > 1 ? QStringLiteral("%1 x %2").arg(o.count).arg(o.replicas) : QString::number(o.count),
                      htmlEscape(planLayoutText(o)), esc(o.precision), htmlEscape(planBatchText(o, mode)));
        if (serving)
            h += QStringLiteral("<td align='right'>%1</td><td>%2</td>").arg(o.replicas).arg(htmlEscape(planUsersText(o)));
        h += QStringLiteral("<td align='right'>%1</td><td align='right'>%2</td><td align='right'>%3</td>")
                 .arg(formatPrice(o.usdPerHour, m_currency),
                      o.usdPerHour > 0 ? formatMoney(o.costKey, m_currency) : QObject::tr("no price"),
                      formatNumber(o.timeKey, 3));
        h += QStringLiteral("<td align='right'>%1 / %2</td></tr>")
                 .arg(formatNumber(gp::units::bytesToGiB(o.estimate.memory.total()), 3),
                      formatNumber(gp::units::bytesToGiB(o.estimate.capacityBytes), 3));
    }
    h += QStringLiteral("</table>");
    h += QObject::tr("<p><b>Why #1:</b> %1</p>").arg(esc(p.options.front().why));
    return h;
}

QString ReportBuilder::htmlPlanAfterChart() const
{
    if (!(m_sections & PlanSection) || !m_plan)
        return {};
    const gp::PlanResult& p = *m_plan;
    QString h = reporthtml::style();
    if (!p.alternatives.empty()) {
        h += QObject::tr("<h3>Popular alternatives that lost</h3>");
        h += QStringLiteral("<table border='1' cellspacing='0' width='100%'><thead><tr><th>%1</th><th>%2</th></tr></thead>")
                 .arg(QObject::tr("GPU"), QObject::tr("Why not"));
        for (const auto& a : p.alternatives)
            h += QStringLiteral("<tr><td>%1</td><td>%2</td></tr>").arg(esc(a.gpu), esc(a.why));
        h += QStringLiteral("</table>");
    }
    if (!p.notes.empty()) {
        h += QStringLiteral("<ul>");
        for (const auto& n : p.notes)
            h += QStringLiteral("<li>%1</li>").arg(esc(n));
        h += QStringLiteral("</ul>");
    }
    return h;
}

QString ReportBuilder::htmlRentBuy() const
{
    if (!(m_sections & RentBuySection))
        return {};
    QString h = reporthtml::style() + QObject::tr("<h2>Rent vs buy</h2>");
    if (!m_rentBuy) {
        h += QStringLiteral("<p class='warn'>%1</p>").arg(htmlEscape(m_rentBuyError));
        return h;
    }
    const gp::RentVsBuy& r = *m_rentBuy;
    const ReportRecommendation rec = recommendation();
    const QString who = m_rentBuyUnrecommended
                            ? QObject::tr("No setup meets the targets, so this looks at %1x %2, the best-ranked GPU "
                                          "with a price")
                                  .arg(r.count)
                                  .arg(esc(r.gpuName))
                        : rec.source == ReportRecommendation::Source::Plan
                            ? QObject::tr("For the recommended setup, the planner's best, %1 (%2 GPUs)")
                                  .arg(htmlEscape(rec.setup))
                                  .arg(r.count)
                            : QObject::tr("For the recommended GPU, %1x %2").arg(r.count).arg(esc(r.gpuName));
    h += QObject::tr("<p>%1, busy %2% of every hour (%3 GPU-hours a month), over the %4-year amortization period.</p>")
             .arg(who, formatNumber(m_scenario.pricing.utilization * 100, 3),
                  formatNumber(r.usedGpuHoursPerMonth, 4), formatNumber(m_scenario.pricing.amortizationYears, 3));
    const auto money = [this](double v) { return v > 0 ? formatMoney(v, m_currency) : QObject::tr("not listed"); };
    h += QStringLiteral("<table border='1' cellspacing='0' width='100%'><tr>");
    for (const auto& t : {QObject::tr("On demand / GPU-h"), QObject::tr("Spot / GPU-h"), QObject::tr("Reserved / GPU-h"),
                          QObject::tr("Purchase / GPU"), QObject::tr("Power / busy GPU-h"), QObject::tr("Hosting / GPU-year"),
                          QObject::tr("Break-even GPU-hours"), QObject::tr("Break-even utilization"),
                          QObject::tr("Break-even month")})
        h += QStringLiteral("<th>%1</th>").arg(htmlEscape(t));
    h += QStringLiteral("</tr><tr>");
    for (const QString& v :
         {money(r.onDemandUsdPerGpuHour), r.spotUsdPerGpuHour ? money(*r.spotUsdPerGpuHour) : QObject::tr("not listed"),
          money(r.reservedUsdPerGpuHour), money(r.purchaseUsdPerGpu), formatMoney(r.energyUsdPerGpuHour, m_currency),
          formatMoney(r.hostingUsdPerGpuYear, m_currency),
          r.breakEvenGpuHours ? formatNumber(std::round(*r.breakEvenGpuHours), 3) : QStringLiteral("—"),
          r.breakEvenUtilization ? QStringLiteral("%1%").arg(formatNumber(*r.breakEvenUtilization * 100, 2)) : QStringLiteral("—"),
          r.breakEvenMonth ? QString::number(*r.breakEvenMonth) : QStringLiteral("—")})
        h += QStringLiteral("<td align='right'>%1</td>").arg(v);
    h += QStringLiteral("</tr></table>");
    return h;
}

QString ReportBuilder::htmlRentBuyAfterChart() const
{
    if (!(m_sections & RentBuySection) || !m_rentBuy)
        return {};
    const gp::RentVsBuy& r = *m_rentBuy;
    QString h = reporthtml::style();
    h += QStringLiteral("<p><b>%1</b></p>").arg(esc(r.verdict));
    if (!r.notes.empty()) {
        h += QStringLiteral("<ul>");
        for (const auto& n : r.notes)
            h += QStringLiteral("<li>%1</li>").arg(esc(n));
        h += QStringLiteral("</ul>");
    }
    return h;
}

QString ReportBuilder::htmlRules() const
{
    if (!(m_sections & RulesSection))
        return {};
    QString h = reporthtml::style() + QObject::tr("<h2>Rules of thumb</h2>");
    h += QObject::tr("<p>Claims from the GPU-choice articles this tool grew from, recomputed with the same models on the "
                     "built-in catalog and calibration.</p>");
    if (m_rules.empty())
        return h + QObject::tr("<p class='warn'>The checks could not be computed.</p>");
    h += QStringLiteral("<table border='1' cellspacing='0' width='100%'><thead><tr><th>%1</th><th>%2</th><th>%3</th></tr></thead>")
             .arg(QObject::tr("Verdict"), QObject::tr("Claim (source)"), QObject::tr("What the model computes, and why"));
    for (const auto& r : m_rules) {
        const QString cls = r.verdict == "corrected" ? QStringLiteral(" class='bad'")
                            : r.verdict == "depends" ? QStringLiteral(" class='warn'")
                                                     : QString();
        h += QStringLiteral("<tr><td%1><b>%2</b></td><td>%3<br><span class='muted'>%4</span></td>"
                            "<td>%5<br><span class='muted'>%6</span></td></tr>")
                 .arg(cls, htmlEscape(verdictLabel(r.verdict)), esc(r.claim), esc(r.source), esc(r.finding), esc(r.reason));
    }
    h += QStringLiteral("</table>");
    return h;
}

} // namespace gp::ui
