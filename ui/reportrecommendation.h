#pragma once
#include <QString>

#include <string>

namespace gp {
struct Estimate;
struct GpuEstimate;
struct PlanOption;
struct PlanResult;
struct Scenario;
struct Uncertainty;
} // namespace gp

namespace gp::ui {

/// The one recommendation a report makes; page 1, the plan and rent vs buy all
/// use it. The estimate's pick (the cheapest GPU that fits and meets every
/// target as configured) comes first; when there is none, the planner's #1.
struct ReportRecommendation {
    enum class Source { None, Estimate, Plan };
    Source source = Source::None;
    std::string gpu;        // catalog id ("" when none)
    std::string gpuName;
    int gpus = 0;           // GPUs in all (per job, times replicas)
    int estimateIndex = -1; // into Estimate::results (Source::Estimate)
    int planRank = 0;       // the plan option (Source::Plan)
    QString setup;          // "2x Instinct MI355X (TP2)"
    QString headline;       // page 1's sentence
    QString plannerNote;    // the planner's #1 when it differs from the estimate's pick ("" otherwise)
};

/// Both bands with their origin (issue #16): "speed +/-37%: no published training
/// rows for CDNA 3/4; memory +/-12%: ...; 1 sigma" (gp::bandOrigin).
QString bandText(const gp::Uncertainty& u);
/// How sure an estimate is, for a recommendation: "92% sure to fit and 85% sure to
/// meet the targets (speed +/-16%: ...; memory +/-9%: ...; 1 sigma)" (issue #16).
QString confidenceText(const gp::GpuEstimate& r, bool hasTargets);
/// The same for a plan option, at the plan's confidence.
QString planConfidenceText(const gp::PlanOption& o, double planConfidence);

/// Builds the recommendation from the estimate and (when computed) the plan.
ReportRecommendation reportRecommendation(const gp::Scenario& s, const gp::Estimate& e, const gp::PlanResult* plan,
                                          const QString& currency = QStringLiteral("$"));

} // namespace gp::ui
