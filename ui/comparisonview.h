#pragma once
#include <QWidget>

#include <array>
#include <cstddef>
#include <functional>
#include <memory>

class QComboBox;
class QLabel;
class QTableView;

namespace gp {
struct Estimate;
struct GpuEstimate;
}

namespace gp::ui {

class ComparisonModel;

/// The "Compare" tab: pick 2-4 GPUs, see every metric and term side by side.
class ComparisonView final : public QWidget
{
    Q_OBJECT
public:
    explicit ComparisonView(QWidget* parent = nullptr);
    ~ComparisonView() override;

    /// Gives the result at an index of the estimate with its terms; set when the
    /// estimate comes without them (EstimateController::estimate()), so only the
    /// 2-4 GPUs compared pay for their terms.
    using Explainer = std::function<gp::GpuEstimate(std::size_t resultIndex)>;
    void setExplainer(Explainer explainer) { m_explainer = std::move(explainer); }

    void setEstimate(const gp::Estimate& e);
    void setCurrency(const QString& symbol);
    /// Chooses the GPUs (ids); the first is the baseline of the ratio sentences.
    void setGpuIds(const QStringList& ids);
    ComparisonModel* model() const;
    QString sentences() const;

protected:
    void showEvent(QShowEvent* event) override;

private:
    void ensureUpToDate() const;
    void rebuild();
    void choicesChanged();
    void updateSentences();
    bool fillTerms(const QStringList& ids);

    ComparisonModel* m_model;
    std::array<QComboBox*, 4> m_pick{};
    QTableView* m_table;
    QLabel* m_sentences;
    bool m_updating = false;
    bool m_dirty = false;
    std::unique_ptr<gp::Estimate> m_estimate;
    Explainer m_explainer;
};

} // namespace gp::ui
