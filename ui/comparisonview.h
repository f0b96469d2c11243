#pragma once
#include <QWidget>

#include <array>
#include <memory>

class QComboBox;
class QLabel;
class QTableView;

namespace gp {
struct Estimate;
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

    ComparisonModel* m_model;
    std::array<QComboBox*, 4> m_pick{};
    QTableView* m_table;
    QLabel* m_sentences;
    bool m_updating = false;
    bool m_dirty = false;
    std::unique_ptr<gp::Estimate> m_estimate;
};

} // namespace gp::ui
