#pragma once
#include "reportrecommendation.h"
#include "scenariomodel.h"

#include "core/plan/rentbuy.h"

#include <QWidget>

#include <map>
#include <memory>
#include <optional>
#include <string>

class QComboBox;
class QLabel;
class QSpinBox;

namespace gp {
class Catalog;
struct PlanResult;
} // namespace gp

namespace gp::ui {

class EstimateController;
class NumberField;

namespace charts {
class ChartView;
}

/// The Rent vs buy tab: cumulative cost per month of renting (on-demand, spot,
/// reserved) and owning one GPU choice, its break-even and verdict. The pricing
/// inputs it depends on are the scenario's (edited here or in the form, through
/// the undo stack). Rebuilt only while visible.
class RentBuyPage final : public QWidget
{
    Q_OBJECT
public:
    RentBuyPage(ScenarioModel* model, EstimateController* estimates, QWidget* parent = nullptr);
    ~RentBuyPage() override;

    /// Item 0 follows the report's recommendation (reportRecommendation()); the others name catalog GPUs (data: id).
    QComboBox* gpuCombo() const { return m_gpu; }
    QSpinBox* countSpin() const { return m_count; }
    charts::ChartView* chartView() const { return m_chart; }
    QLabel* breakEvenLabel() const { return m_breakEven; }
    QLabel* verdictLabel() const { return m_verdict; }
    QLabel* numbersLabel() const { return m_numbers; }
    /// The pricing input editing a field (utilization, electricity, PUE, amortization, hosting).
    QWidget* editorFor(ScenarioModel::Field f) const;

    /// What is shown (unset when no GPU has a price); rebuilds first if needed.
    const std::optional<gp::RentVsBuy>& result() const;
    QString error() const { return m_error; }

    void setCurrency(const QString& symbol);

protected:
    void showEvent(QShowEvent* event) override;

private:
    void fillGpuCombo();
    void markDirty();
    void rebuild();
    /// What "Recommended" stands for: the report's recommendation (ReportBuilder).
    ReportRecommendation recommendation(const gp::Scenario& s, const gp::Catalog& catalog);
    void showField(ScenarioModel::Field f);
    /// A NumberField for a pricing key; returns its box (field + message line).
    QWidget* spin(ScenarioModel::Field f, double step, const QString& tip);

    ScenarioModel* m_model;
    EstimateController* m_estimates;
    QComboBox* m_gpu = nullptr;
    QSpinBox* m_count = nullptr;
    charts::ChartView* m_chart = nullptr;
    QLabel* m_heading = nullptr;
    QLabel* m_numbers = nullptr;
    QLabel* m_breakEven = nullptr;
    QLabel* m_verdict = nullptr;
    QLabel* m_notes = nullptr;
    std::map<ScenarioModel::Field, NumberField*> m_editors;
    std::optional<gp::RentVsBuy> m_result;
    std::unique_ptr<gp::PlanResult> m_plan; // for the recommendation when no GPU meets the targets
    std::string m_plannedFor;               // the scenario (JSON) m_plan belongs to
    QString m_error;
    QString m_currency = QStringLiteral("$");
    bool m_dirty = true;
    bool m_updating = false;
};

/// "Break-even: 10,414 busy GPU-hours per GPU · 40% utilization · month 21 at this utilization".
QString breakEvenText(const gp::RentVsBuy& r);

} // namespace gp::ui
