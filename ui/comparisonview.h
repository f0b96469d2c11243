#pragma once
#include <QWidget>

#include <array>
#include <cstddef>
#include <functional>
#include <memory>

class QLabel;
class QTableView;

#include <QMap>
#include <QStringList>

namespace gp {
class Catalog;
struct Estimate;
struct GpuEstimate;
}

namespace gp::ui {

class ComparisonModel;
class GpuPicker;

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
    /// Where the pickers look up each GPU's tier (the built-in catalog until set).
    void setCatalog(const gp::Catalog& catalog);
    /// Chooses the GPUs (ids); the first is the baseline of the ratio sentences.
    /// The choice is remembered: an estimate without some of them (another file,
    /// an edit) shows the rest plus the best options, and a later estimate that
    /// has them again (undo, reopening) shows them again.
    void setGpuIds(const QStringList& ids);
    /// The choice remembered (the user's last, or setGpuIds()).
    QStringList chosenGpuIds() const { return m_chosen; }
    GpuPicker* picker(int i) const { return m_pick[static_cast<std::size_t>(i)]; }
    ComparisonModel* model() const;
    QString sentences() const;

protected:
    void showEvent(QShowEvent* event) override;

private:
    void ensureUpToDate() const;
    void rebuild();
    void showGpuIds(const QStringList& ids);
    void choicesChanged();
    void updateSentences();
    bool fillTerms(const QStringList& ids);

    ComparisonModel* m_model;
    std::array<GpuPicker*, 4> m_pick{};
    QStringList m_chosen;
    QMap<QString, int> m_tiers; // GPU id -> gp::Tier
    QTableView* m_table;
    QLabel* m_sentences;
    bool m_updating = false;
    bool m_dirty = false;
    std::unique_ptr<gp::Estimate> m_estimate;
    Explainer m_explainer;
};

} // namespace gp::ui
