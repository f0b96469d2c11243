#pragma once
// The only door to Qt Charts: everything outside ui/charts/ uses these
// declarations and never includes a Qt Charts header.
#include <QColor>
#include <QHash>
#include <QString>
#include <QStringList>

#include <vector>

class QChart;
class QPainter;
class QRectF;

namespace gp {
struct Estimate;
}

namespace gp::ui::charts {

enum class ChartKind { Vram, Throughput, Cost, CostVsTime };
inline constexpr int kChartKindCount = 4;
/// Charts show at most this many GPUs so the labels stay readable.
inline constexpr int kMaxGpus = 16;

struct ChartOptions {
    QString currency = QStringLiteral("$");
    bool print = false;   // fixed light colours for paper instead of the system palette
    int maxGpus = kMaxGpus;
};

/// Which results a chart shows (indices into Estimate::results, best first) and
/// a caption saying what was left out and why.
struct ChartSelection {
    std::vector<int> indices;
    QString caption;
    /// GPU id -> colour, the same in every chart of the estimate (chartColours).
    QHash<QString, QColor> colours;
};
/// The colours of the GPUs an estimate's charts show: the union of every
/// chart's selection, in the estimate's order, each its own entry of a palette
/// of 16 colours told apart on white and on dark; beyond 16 (or for a GPU no
/// chart shows), gpuColor. The same GPU has the same colour in every chart.
QHash<QString, QColor> chartColours(const gp::Estimate& e, int maxGpus = kMaxGpus);
/// The i-th colour of that palette; beyond it, gpuColor(gpuId).
QColor distinctColour(int i, const QString& gpuId);
ChartSelection chartSelection(ChartKind kind, const gp::Estimate& e, int maxGpus = kMaxGpus);

QString chartTitle(ChartKind kind);
/// Names of the VRAM breakdown bar sets, in stacking order.
QStringList vramComponentNames();

/// Indices (into Estimate::results) on the cost-vs-time Pareto front among
/// `candidates`: no other candidate is both cheaper and faster. Sorted by time.
std::vector<int> paretoFront(const gp::Estimate& e, const std::vector<int>& candidates);

namespace detail {
/// The memory chart's tooltip for one part of one GPU's bar: "RTX 4090 — Weights: 15 GiB".
QString memoryTip(const QString& gpu, const QString& part, double gib);
} // namespace detail

/// A new chart for the estimate; the caller owns it.
QChart* buildChart(ChartKind kind, const gp::Estimate& e, const ChartOptions& options);

/// Paints the chart (vector) into target, e.g. on a PDF page; works headless.
void paintChart(ChartKind kind, const gp::Estimate& e, const ChartOptions& options, QPainter* painter,
                const QRectF& target);

} // namespace gp::ui::charts
