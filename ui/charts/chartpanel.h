#pragma once
#include "chartfactory.h"

#include <QColor>
#include <QWidget>

#include <memory>
#include <optional>
#include <vector>

class QChartView;
class QLabel;

namespace gp::ui::charts {

/// One chart tab: the chart view, a caption saying what is shown, and "Save as".
/// A view of the estimate: setEstimate rebuilds the chart in one go.
class ChartPanel final : public QWidget
{
    Q_OBJECT
public:
    ChartPanel(ChartKind kind, QWidget* parent = nullptr);
    ~ChartPanel() override;

    ChartKind kind() const { return m_kind; }
    /// Keeps the estimate; the chart is rebuilt when the panel is shown (or read),
    /// so edits do not pay for charts nobody is looking at.
    void setEstimate(const gp::Estimate& e, const QString& currency);

    /// The value the chart shows for a GPU (category label or id) in the named
    /// series/bar set (empty: the whole bar), read back from the chart itself (for tests).
    std::optional<double> shownValue(const QString& gpuId, const QString& seriesName) const;
    /// The colour the chart gives a GPU (its bar, or its point on cost vs time),
    /// read back from the chart; nullopt when the GPU has no bar or point.
    std::optional<QColor> shownColor(const QString& gpuId) const;
    /// The GPU ids shown, top to bottom.
    const std::vector<QString>& shownGpuIds() const
    {
        ensureBuilt();
        return m_gpuIds;
    }
    QString caption() const;

    /// Saves the chart as PNG (or SVG when built with Qt SVG); returns an error, "" on success.
    QString saveImage(const QString& path) const;
    static bool svgSupported();

protected:
    void showEvent(QShowEvent* event) override;

signals:
    void saveRequested(gp::ui::charts::ChartKind kind);

private:
    void ensureBuilt() const;
    void rebuild();

    ChartKind m_kind;
    std::unique_ptr<gp::Estimate> m_estimate;
    QString m_currency;
    bool m_dirty = false;
    QChartView* m_view;
    QLabel* m_caption;
    std::vector<QString> m_gpuIds;
};

} // namespace gp::ui::charts
