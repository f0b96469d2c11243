#pragma once
#include "reportflow.h"
#include "reportrecommendation.h"

#include "core/hardware/catalog.h"
#include "core/estimate/estimate.h"
#include "core/plan/planner.h"
#include "core/plan/rentbuy.h"
#include "core/rules/rules.h"
#include "core/scenario/scenario.h"

#include <QDateTime>
#include <QString>
#include <QStringList>

#include <optional>
#include <vector>

class QPdfWriter;

namespace gp::ui {

/// The PDF comparison report (A4, multi-page), painted onto a QPdfWriter: title,
/// recommendation, comparison table, the charts, the plan (ranked options, Pareto
/// chart, alternatives), rent vs buy for the recommended GPU, memory breakdown,
/// assumptions, uncertainty, the catalog sources and price dates of the GPUs
/// shown, and the rules of thumb. Text and charts flow down the pages: a chart
/// starts a new page only when it does not fit. The GUI's "Export report..." and
/// `gpuplanner-cli report` both use it. Needs a QApplication (Qt Charts are
/// widgets); works with the offscreen platform.
class ReportBuilder
{
public:
    /// At most this many GPUs in the tables (best first); the charts show their own top N.
    static constexpr int kMaxTableGpus = 16;
    /// At most this many plan options in the report's plan table.
    static constexpr int kMaxPlanOptions = 10;

    /// Optional parts of the report (the comparison, charts and sources are always in).
    enum Section { PlanSection = 0x1, RentBuySection = 0x2, RulesSection = 0x4, AllSections = 0x7 };

    ReportBuilder(const gp::Scenario& scenario, const gp::Estimate& estimate, const gp::Catalog& catalog);

    void setCurrency(const QString& symbol) { m_currency = symbol; }
    void setTimestamp(const QDateTime& t) { m_timestamp = t; }
    /// Which optional sections to include (Section flags; default all).
    void setSections(int sections) { m_sections = sections; }
    /// The calibration the estimate was computed with (nullptr and "" for the built-in
    /// table; not owned, must outlive the builder): the plan uses it and the report names it.
    void setCalibration(const gp::Calibration* calibration, const QString& path)
    {
        m_calibration = calibration;
        m_calibrationPath = calibration ? path : QString();
    }
    /// "Calibration: built-in" or "Calibration: <file name> (<full path>)", as the report prints it.
    QString calibrationText() const;
    /// A plan already computed for this scenario; otherwise write() runs gp::plan.
    void setPlan(const gp::PlanResult& plan) { m_plan = plan; }

    /// Writes the PDF atomically (writeFileAtomically). Returns an error message, "" on success.
    QString write(const QString& path);
    /// Pages of the last write.
    int pageCount() const { return m_pages; }
    /// The GPUs the report's tables show, best first.
    QStringList shownGpuIds() const;

    /// The HTML of the text before and after the charts (exposed for tests).
    QString htmlBeforeCharts() const;
    QString htmlAfterCharts() const;
    /// The optional sections' HTML (after prepare(); "" when left out).
    QString htmlPlan() const;
    QString htmlPlanAfterChart() const;
    QString htmlRentBuy() const;
    QString htmlRentBuyAfterChart() const;
    QString htmlRules() const;

    /// Computes the plan, rent vs buy and rules the sections need (write() calls it).
    void prepare();
    const std::optional<gp::PlanResult>& plan() const { return m_plan; }
    const std::optional<gp::RentVsBuy>& rentVsBuy() const { return m_rentBuy; }
    /// The one recommendation every section uses (with the plan once prepared).
    ReportRecommendation recommendation() const;
    /// The scenario's name as painted in the title and footers: the automatic
    /// name when empty, control characters blanked, elided past 120 characters.
    const QString& title() const { return m_title; }
    /// Where the last write() put the table rows and the break-even marker.
    const ReportLayout& layout() const { return m_layout; }

private:
    void paint(QPdfWriter& writer);
    std::vector<int> shownIndices() const;

    gp::Scenario m_scenario;
    QString m_title;
    gp::Estimate m_estimate;
    const gp::Catalog& m_catalog;
    const gp::Calibration* m_calibration = nullptr;
    QString m_calibrationPath;
    QString m_currency = QStringLiteral("$");
    QDateTime m_timestamp = QDateTime::currentDateTime();
    int m_pages = 0;
    int m_sections = AllSections;
    bool m_prepared = false;
    std::optional<gp::PlanResult> m_plan;
    QString m_planError;
    std::optional<gp::RentVsBuy> m_rentBuy;
    QString m_rentBuyError;
    bool m_rentBuyUnrecommended = false; // rent vs buy looks at a GPU that is not the recommendation
    std::vector<gp::RuleCheck> m_rules;
    ReportLayout m_layout;
};

/// A short description of a scenario: "Llama 3.1 8B, training (LoRA, BF16), 1 GPU per job, on-demand".
QString scenarioSummary(const gp::Scenario& s);

} // namespace gp::ui
