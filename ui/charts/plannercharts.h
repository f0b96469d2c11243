#pragma once
// The planner's and rent-vs-buy's charts. Like chartfactory.h, a door to Qt
// Charts that includes none of its headers.
#include "chartfactory.h"

#include <QList>
#include <QPointF>
#include <QWidget>

#include <vector>

class QChart;
class QChartView;
class QLabel;

namespace gp {
struct PlanResult;
struct RentVsBuy;
} // namespace gp

namespace gp::ui::charts {

/// The plan's options as cost (PlanResult::costKey) against time (timeKey), one
/// colour per GPU type; the Pareto front is ringed and joined by a dashed line.
/// Axis titles are PlanResult::costLabel and timeLabel. The caller owns the chart.
QChart* buildPlanChart(const gp::PlanResult& plan, const ChartOptions& options);
/// Series names of the plan chart that are not GPU types.
QString planFrontSeriesName();

/// Cumulative cost by month, one line per CostCurve (same labels, same points),
/// with the break-even month marked. The caller owns the chart.
QChart* buildRentBuyChart(const gp::RentVsBuy& r, const ChartOptions& options);
/// Name of the break-even marker series ("Break-even: month N").
QString breakEvenSeriesName(int month);

void paintPlanChart(const gp::PlanResult& plan, const ChartOptions& options, QPainter* painter, const QRectF& target);
void paintRentBuyChart(const gp::RentVsBuy& r, const ChartOptions& options, QPainter* painter, const QRectF& target);

/// What one series of a chart shows, read back from the chart (tests, checks).
struct SeriesData {
    QString name;
    QList<QPointF> points;
};

/// A chart in a widget with a caption and "Save chart as...". Owns the chart it shows.
class ChartView final : public QWidget
{
    Q_OBJECT
public:
    explicit ChartView(const QString& accessibleName, QWidget* parent = nullptr);
    ~ChartView() override;

    /// Shows a new chart (taking ownership) and deletes the previous one.
    void setChart(QChart* chart);
    void setCaption(const QString& text);
    QString caption() const;

    /// The XY series shown, in the chart's order.
    std::vector<SeriesData> series() const;
    /// Title of the bottom (Qt::Horizontal) or left (Qt::Vertical) axis.
    QString axisTitle(Qt::Orientation orientation) const;

    /// Saves the chart as PNG (or SVG when built with Qt SVG); returns an error, "" on success.
    QString saveImage(const QString& path) const;

signals:
    void saveRequested();

private:
    QChartView* m_view;
    QLabel* m_caption;
};

} // namespace gp::ui::charts
