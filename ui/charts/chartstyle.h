#pragma once
// Shared look of the charts (ui/charts only; includes no Qt Charts header itself).
#include "chartfactory.h"

class QAbstractAxis;
class QChart;
class QChartView;
class QPainter;
class QRectF;

namespace gp::ui::charts::detail {

/// Title, legend, margins and background (system palette on screen, light on paper).
void styleChart(QChart* chart, const ChartOptions& o, const QString& title);
void styleAxis(QAbstractAxis* axis, const ChartOptions& o);
/// A round axis maximum a little above v (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8 x 10^n).
double niceMax(double v);
/// A tooltip at the mouse (series hover handlers).
void showTip(const QString& text);
/// Paints a chart (vector) into target and deletes it; works headless.
void renderChart(QChart* chart, QPainter* painter, const QRectF& target);
/// Saves what a chart view shows as PNG (or SVG with Qt SVG); returns an error, "" on success.
QString saveChartImage(QChartView* view, const QString& path, const QString& title);

} // namespace gp::ui::charts::detail
