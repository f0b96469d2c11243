#pragma once
#include "core/hardware/catalog.h"
#include "core/estimate/estimate.h"
#include "core/scenario/scenario.h"

#include <QObject>
#include <QString>
#include <QStringList>

#include <memory>
#include <optional>
#include <string>
#include <vector>

class QTimer;

namespace gp::ui {

class ScenarioModel;

/// Recomputes the estimate when the scenario changes, coalescing bursts of edits
/// with a single-shot timer, and hands the result to the views (which never
/// compute a number themselves).
class EstimateController final : public QObject
{
    Q_OBJECT
public:
    static constexpr int kCoalesceMs = 30;

    EstimateController(ScenarioModel* scenario, QObject* parent = nullptr);

    const gp::Catalog& catalog() const { return m_catalog; }
    /// Replaces the catalog (catalog editor, overlay reset) and recomputes.
    void setCatalog(const gp::Catalog& catalog);

    /// The calibration every estimate, plan and report of the app uses: nullptr for
    /// the built-in table. shared so a plan running off the GUI thread keeps its own.
    const gp::Calibration* calibration() const { return m_calibration.get(); }
    std::shared_ptr<const gp::Calibration> sharedCalibration() const { return m_calibration; }
    /// The calibration file's absolute path; "" for the built-in table.
    const QString& calibrationPath() const { return m_calibrationPath; }
    /// Replaces the calibration (nullptr and "" for the built-in table) and recomputes.
    void setCalibration(std::shared_ptr<const gp::Calibration> calibration, const QString& path);

    /// The numbers for every GPU, without the terms (GpuEstimate::terms is empty):
    /// the table and charts need only numbers, and the terms are most of the work
    /// and memory with a large catalog. explainedResult() has the terms.
    const gp::Estimate& estimate() const { return m_estimate; }
    /// estimate().results[index] with its terms ("why this number"), computed for
    /// the scenario that estimate() was computed for. Empty when index is out of range.
    gp::GpuEstimate explainedResult(std::size_t index) const;
    /// The whole estimate with every result's terms (the report).
    gp::Estimate explainedEstimate() const;
    /// Why there is no estimate ("" when the last run succeeded).
    QString error() const { return m_error; }

    /// Recompute now (tests, benchmarks, report export).
    void recomputeNow();
    /// Schedule a recompute after kCoalesceMs.
    void scheduleRecompute();

signals:
    void estimateChanged();
    /// setCatalog replaced the catalog (emitted before the recompute's estimateChanged).
    void catalogChanged();
    /// setCalibration replaced the calibration (emitted before the recompute's estimateChanged).
    void calibrationChanged();

private:
    ScenarioModel* m_scenario;
    gp::Catalog m_catalog;
    std::shared_ptr<const gp::Calibration> m_calibration;
    QString m_calibrationPath;
    gp::Estimate m_estimate;
    gp::Scenario m_estimated; // the scenario m_estimate is for (a recompute may be pending)
    QString m_error;
    QTimer* m_timer;
};

/// Index of the recommendation: the cheapest GPU that fits and meets the targets
/// (cost to train, $/M tokens, or $/h when neither is known) at the scenario's
/// confidence (e.confidence, as the planner ranks: P(fits) x P(meets) at least
/// it, and the cost it stays under with that probability; confidence.h); -1
/// when none does.
int recommendedIndex(const gp::Estimate& e);
/// The cost recommendedIndex ranks `r` on: comparableCost at the confidence
/// (a cost that grows with the time x exp(sigma z_p), never below the point).
std::optional<double> costAtConfidence(const gp::GpuEstimate& r, double confidence);
/// One sentence saying why that GPU is recommended.
QString recommendationText(const gp::Estimate& e, const QString& currency = QStringLiteral("$"));
/// "Within noise of 1x GH200 ($14.33 at 90% confidence, against $13.42): ..." when
/// the recommendation's runner-up at the confidence is closer than the
/// recommendation's own speed band (issue #16); "" otherwise.
QString withinNoiseText(const gp::Estimate& e, const QString& currency = QStringLiteral("$"));

/// The comparable cost of one result: cost to train (USD), USD per million
/// tokens, or USD/h when neither applies. Unset when unknown.
std::optional<double> comparableCost(const gp::GpuEstimate& r);
/// What one chart or table of an estimate compares, the same for every GPU:
/// the cost of the run (to train, or per million tokens) when any GPU has one,
/// else the hourly price. A GPU without it shows no value ("no price").
enum class CostBasis { PerRun, PerHour };
CostBasis costBasis(const gp::Estimate& e);
/// The cost of one result on the basis; unset when it has none (no price, or no run cost).
std::optional<double> costOn(const gp::GpuEstimate& r, CostBasis basis);
/// What costOn(., costBasis(e)) measures, with unit: "Cost to train (USD)", "Cost (USD/h)", ...
QString comparableCostLabel(const gp::Estimate& e);
/// The value labels' unit suffix for the basis: "/h", "/M tokens" or "".
QString costSuffix(const gp::Estimate& e);
/// Throughput of one result (tokens/s, else samples/s); unset when not applicable.
std::optional<double> throughputOf(const gp::GpuEstimate& r);
QString throughputUnit(const gp::Estimate& e);
/// The time axis that goes with the cost: hours to train, or TPOT ms / latency ms.
std::optional<double> timeOf(const gp::GpuEstimate& r);
QString timeLabel(const gp::Estimate& e);

/// Results ordered for display: fitting ones first, then by comparable cost.
std::vector<int> displayOrder(const gp::Estimate& e);

/// The GPU (and count) rent vs buy looks at by default: the recommendation, else
/// the best result shown, else the scenario's first GPU; unset when none has a
/// rental or purchase price.
struct GpuChoice {
    std::string gpu;
    int count = 1;
};
std::optional<GpuChoice> rentBuyChoice(const gp::Estimate& e, const gp::Scenario& s, const gp::Catalog& catalog);

} // namespace gp::ui
