#include "reportrecommendation.h"

#include "estimatecontroller.h"
#include "format.h"

#include "core/estimate/confidence.h"
#include "core/plan/planner.h"
#include "core/scenario/scenario.h"

#include <algorithm>
#include <cmath>

namespace gp::ui {

namespace {

// "2x Instinct MI355X (TP2)", "1x H100 SXM", "3 replicas of 2x H100 SXM (TP2)".
QString setupText(const gp::PlanOption& o)
{
    QString s = QStringLiteral("%1x %2").arg(o.count).arg(QString::fromStdString(o.gpuName));
    QStringList layout;
    if (!o.mig.empty())
        layout << QObject::tr("MIG %1 slice").arg(QString::fromStdString(o.mig));
    if (o.tp > 1)
        layout << QStringLiteral("TP%1").arg(o.tp);
    if (o.pp > 1)
        layout << QStringLiteral("PP%1").arg(o.pp);
    if (o.zero > 0)
        layout << QStringLiteral("ZeRO-%1").arg(o.zero);
    layout << QString::fromStdString(o.precision);
    layout.removeAll(QString());
    if (!layout.isEmpty())
        s += QStringLiteral(" (%1)").arg(layout.join(QStringLiteral(", ")));
    if (o.replicas > 1)
        s = QObject::tr("%1 replicas of %2").arg(o.replicas).arg(s);
    return s;
}

QString percent(double p) { return QStringLiteral("%1%").arg(formatNumber(std::floor(p * 100), 3)); }

} // namespace

QString bandText(const gp::Uncertainty& u)
{
    // Each band with where it comes from (issue #16: by distance from measurement).
    return QObject::tr("speed +/-%1%: %2; memory +/-%3%: %4; 1 sigma")
        .arg(formatNumber(u.throughput * 100, 2), QString::fromStdString(gp::bandOrigin(u, true)),
             formatNumber(u.memory * 100, 2), QString::fromStdString(gp::bandOrigin(u, false)));
}

QString confidenceText(const gp::GpuEstimate& r, bool hasTargets)
{
    QString text = hasTargets ? QObject::tr("%1 sure to fit and %2 sure to meet the targets")
                                    .arg(percent(r.confidence.fits), percent(r.confidence.meetsTargets))
                              : QObject::tr("%1 sure to fit").arg(percent(r.confidence.fits));
    return text + QStringLiteral(" (%1)").arg(bandText(r.uncertainty));
}

QString planConfidenceText(const gp::PlanOption& o, double planConfidence)
{
    return QObject::tr("%1 sure to fit and meet the targets (ranked at %2 confidence; %3)")
        .arg(percent(o.confidence.fits * o.confidence.meetsTargets), percent(planConfidence),
             bandText(o.estimate.uncertainty));
}

ReportRecommendation reportRecommendation(const gp::Scenario& s, const gp::Estimate& e, const gp::PlanResult* plan,
                                          const QString& currency)
{
    ReportRecommendation rec;
    const gp::PlanOption* best = plan && !plan->options.empty() ? &plan->options.front() : nullptr;
    const QString planCost = best ? QObject::tr("%1/h").arg(formatPrice(best->usdPerHour, currency)) : QString();
    if (const int i = recommendedIndex(e); i >= 0) {
        const auto& r = e.results[static_cast<std::size_t>(i)];
        rec.source = ReportRecommendation::Source::Estimate;
        rec.gpu = r.gpuId;
        rec.gpuName = r.gpuName;
        rec.gpus = std::max(1, r.count);
        rec.estimateIndex = i;
        rec.setup = QStringLiteral("%1x %2").arg(rec.gpus).arg(QString::fromStdString(r.gpuName));
        rec.headline = recommendationText(e, currency);
        if (best && (best->gpu != r.gpuId || best->count * best->replicas != rec.gpus))
            rec.plannerNote = QObject::tr("The planner, free to change the GPU type, count, layout, number format and "
                                          "batch, ranks %1 first at %2 (see Plan).")
                                  .arg(setupText(*best), planCost);
        return rec;
    }
    const bool anyFits = std::any_of(e.results.begin(), e.results.end(), [](const auto& r) { return r.fits; });
    const int perJob = s.hardware.count;
    QString none;
    if (anyFits)
        none = perJob == 1 ? QObject::tr("No single GPU meets every target")
                           : QObject::tr("No GPU meets every target with %1 GPUs per job as configured").arg(perJob);
    else
        none = perJob == 1 ? QObject::tr("No single GPU fits this job")
                           : QObject::tr("No GPU fits this job with %1 GPUs per job as configured").arg(perJob);
    if (!best) {
        rec.headline = e.results.empty() ? QObject::tr("No estimate.")
                                         : (plan ? QObject::tr("%1, and the planner found no setup that fits and meets "
                                                               "the targets: relax a target, allow more GPUs or quantize.")
                                                       .arg(none)
                                                 : recommendationText(e, currency));
        return rec;
    }
    rec.source = ReportRecommendation::Source::Plan;
    rec.gpu = best->gpu;
    rec.gpuName = best->gpuName;
    rec.gpus = std::max(1, best->count * best->replicas);
    rec.planRank = best->rank;
    rec.setup = setupText(*best);
    rec.headline = QObject::tr("%1; the planner's best setup is %2, %3 (the cheapest of %4 setups that fit and meet "
                               "the targets; see Plan). How sure: %5.")
                       .arg(none, rec.setup, planCost, formatNumber(static_cast<double>(plan->feasible), 6),
                            planConfidenceText(*best, plan->confidence));
    return rec;
}

} // namespace gp::ui
