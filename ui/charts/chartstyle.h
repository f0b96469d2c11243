#pragma once
// Shared look of the charts (ui/charts only; includes no Qt Charts header itself).
#include "chartfactory.h"

#include <QList>

#include <utility>

class QAbstractAxis;
class QChart;
class QChartView;
class QPainter;
class QRectF;

namespace gp::ui::charts::detail {

/// Dynamic property naming the GPU id of a bar set or series that shows one GPU.
inline constexpr char kGpuIdProperty[] = "gpuId";

/// Title, legend, margins and background (system palette on screen, light on paper).
void styleChart(QChart* chart, const ChartOptions& o, const QString& title);
void styleAxis(QAbstractAxis* axis, const ChartOptions& o);
/// A round axis maximum a little above v (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8 x 10^n).
double niceMax(double v);
/// The range of a log axis for values in [lo, hi] (lo > 0): whole decades, at
/// least two of them, so the axis shows at least three labelled ticks.
std::pair<double, double> logAxisRange(double lo, double hi);
/// The labelled (major) ticks of a base-10 log axis over [min, max].
QList<double> logAxisTicks(double min, double max);
/// A value axis for values in [lo, hi]: log scale (logAxisRange, minor ticks)
/// when they span more than a decade, else linear from 0. `any`: values exist.
QAbstractAxis* makeValueAxis(double lo, double hi, bool any, const QString& title);
/// A tooltip at the mouse (series hover handlers).
void showTip(const QString& text);
/// Paints a chart (vector) into target and deletes it; works headless.
void renderChart(QChart* chart, QPainter* painter, const QRectF& target);
/// Saves what a chart view shows as PNG (or SVG with Qt SVG); returns an error, "" on success.
QString saveChartImage(QChartView* view, const QString& path, const QString& title);

} // namespace gp::ui::charts::detail
