#include "chartfactory.h"
#include "chartstyle.h"

#include "ui/estimatecontroller.h"
#include "ui/format.h"
#include "ui/palette.h"

#include "core/estimate/estimate.h"
#include "core/base/units.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QCursor>
#include <QGraphicsScene>
#include <QGuiApplication>
#include <QHorizontalStackedBarSeries>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPainter>
#include <QPalette>
#include <QScatterSeries>
#include <QToolTip>
#include <QValueAxis>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace gp::ui::charts {

namespace detail {

void styleChart(QChart* chart, const ChartOptions& o, const QString& title)
{
    chart->setAnimationOptions(QChart::NoAnimation);
    chart->setTitle(title);
    QFont tf = chart->titleFont();
    tf.setBold(true);
    tf.setPointSizeF(tf.pointSizeF() * 1.1);
    chart->setTitleFont(tf);
    chart->legend()->setAlignment(Qt::AlignBottom);
    chart->setMargins(QMargins(4, 4, 4, 4));
    if (o.print) {
        chart->setTheme(QChart::ChartThemeLight);
        chart->setBackgroundBrush(Qt::white);
        chart->setBackgroundRoundness(0);
        return;
    }
    // Follow the system palette (dark mode included) instead of a fixed theme.
    const QPalette pal = QGuiApplication::palette();
    chart->setBackgroundBrush(pal.color(QPalette::Base));
    chart->setBackgroundRoundness(0);
    chart->setTitleBrush(pal.color(QPalette::Text));
    chart->legend()->setLabelColor(pal.color(QPalette::Text));
}

void styleAxis(QAbstractAxis* axis, const ChartOptions& o)
{
    if (o.print)
        return;
    const QPalette pal = QGuiApplication::palette();
    axis->setLabelsColor(pal.color(QPalette::Text));
    axis->setTitleBrush(pal.color(QPalette::Text));
    QColor grid = pal.color(QPalette::Text);
    grid.setAlpha(40);
    axis->setGridLineColor(grid);
    axis->setLinePenColor(pal.color(QPalette::Mid));
}

double niceMax(double v)
{
    if (v <= 0)
        return 1;
    const double p = std::pow(10.0, std::floor(std::log10(v)));
    for (const double m : {1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0})
        if (m * p >= v * 1.04)
            return m * p;
    return 10 * p;
}

std::pair<double, double> logAxisRange(double lo, double hi)
{
    if (!(lo > 0) || !(hi > 0) || !std::isfinite(lo) || !std::isfinite(hi))
        return {1, 100};
    if (hi < lo)
        std::swap(lo, hi);
    // A little room around the points, then out to whole decades.
    double a = std::floor(std::log10(lo / 1.2));
    double b = std::ceil(std::log10(hi * 1.2));
    if (b - a < 2) {
        // Two decades at least: grow on the side with less room.
        const double roomBelow = std::log10(lo) - a;
        const double roomAbove = b - std::log10(hi);
        if (roomBelow < roomAbove)
            a -= 1;
        else
            b += 1;
    }
    return {std::pow(10.0, a), std::pow(10.0, b)};
}

QList<double> logAxisTicks(double min, double max)
{
    QList<double> ticks;
    if (!(min > 0) || !(max >= min))
        return ticks;
    for (double e = std::ceil(std::log10(min) - 1e-9); e <= std::log10(max) + 1e-9; e += 1)
        ticks << std::pow(10.0, e);
    return ticks;
}

QAbstractAxis* makeValueAxis(double lo, double hi, bool any, const QString& title)
{
    if (any && lo > 0 && hi / lo > 10) {
        auto* a = new QLogValueAxis;
        a->setBase(10);
        a->setLabelFormat(QStringLiteral("%g"));
        a->setTitleText(title + QObject::tr(" (log)")); // short: a long title is cut to "..." in a small chart
        const auto [min, max] = logAxisRange(lo, hi);
        a->setRange(min, max);
        a->setMinorTickCount(8); // 2, 3, ... 9 x 10^n as grid lines
        return a;
    }
    auto* a = new QValueAxis;
    a->setRange(0, niceMax(any ? hi * 1.1 : 1));
    a->setLabelFormat(QStringLiteral("%.3g"));
    a->setTitleText(title);
    a->applyNiceNumbers();
    return a;
}

void showTip(const QString& text)
{
    QToolTip::showText(QCursor::pos(), text);
}

QString memoryTip(const QString& gpu, const QString& part, double gib)
{
    return QObject::tr("%1 — %2: %3 GiB").arg(gpu, part, formatNumber(gib, 3)); // names the GPU (issue 19)
}

} // namespace detail

namespace {

using namespace detail;

QString gpuLabel(const gp::GpuEstimate& r)
{
    QString name = shortGpuName(QString::fromStdString(r.gpuName));
    if (r.count > 1)
        name = QStringLiteral("%1x %2").arg(r.count).arg(name);
    return name;
}

QChart* vramChart(const gp::Estimate& e, const ChartSelection& sel, const ChartOptions& o)
{
    auto* chart = new QChart;
    styleChart(chart, o, chartTitle(ChartKind::Vram));
    auto* series = new QHorizontalStackedBarSeries;
    const QStringList names = vramComponentNames();
    std::vector<QBarSet*> sets;
    for (int i = 0; i < names.size(); ++i) {
        auto* set = new QBarSet(names[i]);
        set->setColor(seriesColor(i));
        set->setBorderColor(seriesColor(i).darker(115));
        sets.push_back(set);
    }
    QStringList categories;
    auto* capacity = new QScatterSeries;
    capacity->setName(QObject::tr("Capacity per GPU"));
    capacity->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
    capacity->setMarkerSize(o.print ? 9 : 11);
    capacity->setColor(o.print ? QColor(Qt::black) : QGuiApplication::palette().color(QPalette::Text));
    capacity->setBorderColor(capacity->color());
    double maxGiB = 0;
    // Horizontal bars list categories bottom-up; reverse so the best GPU is on top.
    std::vector<int> idx(sel.indices.rbegin(), sel.indices.rend());
    QList<QList<qreal>> values(names.size());
    QList<QPointF> caps;
    for (std::size_t k = 0; k < idx.size(); ++k) {
        const auto& r = e.results[static_cast<std::size_t>(idx[k])];
        categories << gpuLabel(r);
        const auto& m = r.memory;
        const double parts[] = {m.weights, m.gradients, m.optimizer, m.activations, m.kvCache, m.overhead};
        for (int i = 0; i < names.size(); ++i)
            values[i] << gp::units::bytesToGiB(parts[i]);
        const double cap = gp::units::bytesToGiB(r.capacityBytes);
        caps << QPointF(cap, static_cast<double>(k));
        maxGiB = std::max({maxGiB, cap, gp::units::bytesToGiB(m.total())});
    }
    for (int i = 0; i < names.size(); ++i) {
        sets[static_cast<std::size_t>(i)]->append(values[i]);
        series->append(sets[static_cast<std::size_t>(i)]);
    }
    capacity->replace(caps);
    chart->addSeries(series);
    chart->addSeries(capacity);

    auto* axisY = new QBarCategoryAxis;
    axisY->append(categories);
    auto* axisX = new QValueAxis;
    axisX->setRange(0, niceMax(maxGiB));
    axisX->setTitleText(QObject::tr("Memory per GPU at peak (GiB)"));
    axisX->setLabelFormat(QStringLiteral("%.0f"));
    axisX->applyNiceNumbers();
    styleAxis(axisX, o);
    styleAxis(axisY, o);
    chart->addAxis(axisX, Qt::AlignBottom);
    chart->addAxis(axisY, Qt::AlignLeft);
    series->attachAxis(axisX);
    series->attachAxis(axisY);
    capacity->attachAxis(axisX);
    capacity->attachAxis(axisY);

    QObject::connect(series, &QHorizontalStackedBarSeries::hovered, chart,
                     [categories](bool on, int index, QBarSet* set) {
                         if (!on || index < 0 || index >= categories.size())
                             return;
                         showTip(memoryTip(categories[index], set->label(), set->at(index)));
                     });
    QObject::connect(capacity, &QScatterSeries::hovered, chart, [categories](const QPointF& p, bool on) {
        const int k = static_cast<int>(std::lround(p.y()));
        if (on && k >= 0 && k < categories.size())
            showTip(QObject::tr("%1 has %2 GiB per GPU").arg(categories[k], formatNumber(p.x(), 3)));
    });
    return chart;
}

QChart* barChart(ChartKind kind, const gp::Estimate& e, const ChartSelection& sel, const ChartOptions& o)
{
    auto* chart = new QChart;
    styleChart(chart, o, chartTitle(kind));
    // One bar set per GPU, each with its value in its own category and zeros
    // elsewhere: stacked, every bar spans its whole row in the GPU's colour, and
    // zero-length bars draw neither a bar nor a label.
    auto* series = new QHorizontalStackedBarSeries;
    const CostBasis basis = costBasis(e); // one unit for every bar, the axis's
    const QString what = kind == ChartKind::Throughput
                             ? QObject::tr("Throughput (%1, whole job)").arg(throughputUnit(e))
                             : comparableCostLabel(e);
    const QColor labelColor = o.print ? QColor(Qt::black) : QGuiApplication::palette().color(QPalette::Text);
    QStringList categories;
    double maxV = 0;
    std::vector<int> idx(sel.indices.rbegin(), sel.indices.rend());
    const int n = static_cast<int>(idx.size());
    for (int k = 0; k < n; ++k) {
        const auto& r = e.results[static_cast<std::size_t>(idx[static_cast<std::size_t>(k)])];
        const auto v = kind == ChartKind::Throughput ? throughputOf(r) : costOn(r, basis);
        // An empty row says why: no price in the catalog, or no cost on this basis.
        categories << (v || kind == ChartKind::Throughput ? gpuLabel(r)
                       : r.usdPerHour <= 0                ? QObject::tr("%1 (no price)").arg(gpuLabel(r))
                                                          : QObject::tr("%1 (no cost)").arg(gpuLabel(r)));
        auto* set = new QBarSet(gpuLabel(r));
        set->setProperty(kGpuIdProperty, QString::fromStdString(r.gpuId));
        const QColor col = sel.colours.value(QString::fromStdString(r.gpuId), gpuColor(QString::fromStdString(r.gpuId)));
        set->setColor(col);
        set->setBorderColor(col.darker(115));
        set->setLabelColor(labelColor);
        QList<qreal> values(n, 0.0);
        values[k] = v.value_or(0);
        set->append(values);
        series->append(set);
        maxV = std::max(maxV, v.value_or(0));
    }
    series->setBarWidth(0.6);
    series->setLabelsVisible(true);
    series->setLabelsPosition(QAbstractBarSeries::LabelsOutsideEnd);
    // Value labels carry their unit: "7909 tokens/s", "$412", "$0.41/M tokens".
    QString unitSuffix;
    if (kind == ChartKind::Throughput) {
        unitSuffix = QLatin1Char(' ') + throughputUnit(e);
    } else {
        unitSuffix = costSuffix(e);
    }
    series->setLabelsFormat(kind == ChartKind::Cost ? o.currency + QStringLiteral("@value") + unitSuffix
                                                    : QStringLiteral("@value") + unitSuffix);
    // Enough digits to show the integer part ("7909", not "7.91e+03").
    series->setLabelsPrecision(std::max(3, maxV > 0 ? static_cast<int>(std::floor(std::log10(maxV))) + 1 : 3));
    chart->addSeries(series);
    chart->legend()->setVisible(false); // the axis names each bar
    auto* axisY = new QBarCategoryAxis;
    axisY->append(categories);
    auto* axisX = new QValueAxis;
    axisX->setRange(0, niceMax(maxV * 1.25)); // room for the labels with units
    axisX->setTitleText(what);
    axisX->setLabelFormat(maxV >= 100 ? QStringLiteral("%.0f") : QStringLiteral("%.3g"));
    styleAxis(axisX, o);
    styleAxis(axisY, o);
    chart->addAxis(axisX, Qt::AlignBottom);
    chart->addAxis(axisY, Qt::AlignLeft);
    series->attachAxis(axisX);
    series->attachAxis(axisY);
    const QString currency = o.currency;
    const bool money = kind == ChartKind::Cost;
    QObject::connect(series, &QHorizontalStackedBarSeries::hovered, chart,
                     [categories, unitSuffix, currency, money](bool on, int index, QBarSet* s) {
                         if (!on || index < 0 || index >= categories.size())
                             return;
                         const QString v = (money ? formatMoney(s->at(index), currency) : formatNumber(s->at(index), 3)) +
                                           unitSuffix;
                         showTip(QStringLiteral("%1: %2").arg(categories[index], v));
                     });
    return chart;
}

QChart* scatterChart(const gp::Estimate& e, const ChartSelection& sel, const ChartOptions& o)
{
    auto* chart = new QChart;
    styleChart(chart, o, chartTitle(ChartKind::CostVsTime));
    auto* frontLine = new QLineSeries;
    frontLine->setName(QObject::tr("Pareto front"));
    frontLine->setPen(QPen(statusColor(Status::Bad), 2, Qt::DashLine));
    const std::vector<int> pf = paretoFront(e, sel.indices);
    double minX = std::numeric_limits<double>::max(), maxX = 0, minY = std::numeric_limits<double>::max(), maxY = 0;
    // One series per GPU so the legend names every point (at most kMaxGpus of them).
    std::vector<QScatterSeries*> points;
    QList<QPointF> fpts;
    const CostBasis basis = costBasis(e);
    for (const int i : sel.indices) {
        const auto& r = e.results[static_cast<std::size_t>(i)];
        const auto t = timeOf(r);
        const auto c = costOn(r, basis);
        if (!t || !c || *t <= 0 || *c <= 0)
            continue;
        const bool onFront = std::find(pf.begin(), pf.end(), i) != pf.end();
        auto* s = new QScatterSeries;
        s->setName(onFront ? QObject::tr("%1 (Pareto)").arg(gpuLabel(r)) : gpuLabel(r));
        s->setMarkerShape(onFront ? QScatterSeries::MarkerShapeRectangle : QScatterSeries::MarkerShapeCircle);
        s->setMarkerSize(onFront ? 14 : 11);
        s->setProperty(kGpuIdProperty, QString::fromStdString(r.gpuId));
        const QColor col = sel.colours.value(QString::fromStdString(r.gpuId), gpuColor(QString::fromStdString(r.gpuId)));
        s->setColor(col);
        s->setBorderColor(onFront ? statusColor(Status::Bad) : col.darker(120));
        s->append(*t, *c);
        points.push_back(s);
        minX = std::min(minX, *t);
        maxX = std::max(maxX, *t);
        minY = std::min(minY, *c);
        maxY = std::max(maxY, *c);
        if (onFront)
            fpts << QPointF(*t, *c);
    }
    std::sort(fpts.begin(), fpts.end(), [](const QPointF& a, const QPointF& b) { return a.x() < b.x(); });
    frontLine->replace(fpts);
    chart->addSeries(frontLine);
    for (auto* s : points)
        chart->addSeries(s);
    if (fpts.size() < 2)
        for (auto* m : chart->legend()->markers(frontLine))
            m->setVisible(false);

    QAbstractAxis* axisX = makeValueAxis(minX, maxX, !points.empty(), timeLabel(e));
    QAbstractAxis* axisY = makeValueAxis(minY, maxY, !points.empty(), comparableCostLabel(e));
    styleAxis(axisX, o);
    styleAxis(axisY, o);
    chart->addAxis(axisX, Qt::AlignBottom);
    chart->addAxis(axisY, Qt::AlignLeft);
    frontLine->attachAxis(axisX);
    frontLine->attachAxis(axisY);
    const QString xLabel = timeLabel(e);
    const QString yLabel = comparableCostLabel(e);
    QObject::connect(frontLine, &QLineSeries::hovered, chart, [xLabel, yLabel](const QPointF& p, bool on) {
        if (on)
            showTip(QObject::tr("Pareto front: no other GPU is both faster and cheaper\n%1: %2\n%3: %4")
                        .arg(xLabel, formatNumber(p.x(), 3), yLabel, formatNumber(p.y(), 3)));
    });
    for (auto* s : points) {
        s->attachAxis(axisX);
        s->attachAxis(axisY);
        const QString name = s->name();
        QObject::connect(s, &QScatterSeries::hovered, chart, [name, xLabel, yLabel](const QPointF& p, bool on) {
            if (on)
                showTip(QStringLiteral("%1\n%2: %3\n%4: %5")
                            .arg(name, xLabel, formatNumber(p.x(), 3), yLabel, formatNumber(p.y(), 3)));
        });
    }
    chart->legend()->setAlignment(Qt::AlignRight);
    QFont lf = chart->legend()->font();
    lf.setPointSizeF(lf.pointSizeF() * 0.9);
    chart->legend()->setFont(lf);
    return chart;
}

} // namespace

QString chartTitle(ChartKind kind)
{
    switch (kind) {
    case ChartKind::Vram: return QObject::tr("Memory per GPU: what fills it, and what each GPU has");
    case ChartKind::Throughput: return QObject::tr("Throughput per GPU option");
    case ChartKind::Cost: return QObject::tr("Cost per GPU option");
    case ChartKind::CostVsTime: return QObject::tr("Cost vs time");
    }
    return {};
}

QStringList vramComponentNames()
{
    return {QObject::tr("Weights"),     QObject::tr("Gradients"), QObject::tr("Optimizer states"),
            QObject::tr("Activations"), QObject::tr("KV cache"),  QObject::tr("Overhead (CUDA context, allocator)")};
}

ChartSelection chartSelection(ChartKind kind, const gp::Estimate& e, int maxGpus)
{
    ChartSelection sel;
    const std::vector<int> order = displayOrder(e);
    int candidates = 0;
    for (const int i : order) {
        const auto& r = e.results[static_cast<std::size_t>(i)];
        // Throughput and cost of a job that does not fit mean nothing.
        if (kind != ChartKind::Vram && !r.fits)
            continue;
        ++candidates;
        if (static_cast<int>(sel.indices.size()) < maxGpus)
            sel.indices.push_back(i);
    }
    const int shown = static_cast<int>(sel.indices.size());
    const int total = static_cast<int>(e.results.size());
    if (kind == ChartKind::Vram) {
        sel.caption = shown < total ? QObject::tr("Showing %1 of %2 GPUs: those that fit and meet the targets first, "
                                                  "then by cost. The table lists all.")
                                          .arg(shown)
                                          .arg(total)
                                    : QObject::tr("All %1 GPUs considered; the square marks each GPU's memory.")
                                          .arg(total);
    } else {
        sel.caption = shown < candidates
                          ? QObject::tr("Showing the %1 best of the %2 GPUs that fit (%3 considered): targets met "
                                        "first, then by cost. The table lists all.")
                                .arg(shown)
                                .arg(candidates)
                                .arg(total)
                          : QObject::tr("%1 of %2 GPUs fit; those that do not fit are left out.").arg(candidates).arg(total);
    }
    return sel;
}

std::vector<int> paretoFront(const gp::Estimate& e, const std::vector<int>& candidates)
{
    std::vector<int> out;
    const CostBasis basis = costBasis(e);
    for (const int i : candidates) {
        const auto& r = e.results[static_cast<std::size_t>(i)];
        const auto t = timeOf(r);
        const auto c = costOn(r, basis);
        if (!t || !c)
            continue;
        bool dominated = false;
        for (const int j : candidates) {
            if (j == i)
                continue;
            const auto& q = e.results[static_cast<std::size_t>(j)];
            const auto tq = timeOf(q);
            const auto cq = costOn(q, basis);
            if (!tq || !cq)
                continue;
            if (*tq <= *t && *cq <= *c && (*tq < *t || *cq < *c)) {
                dominated = true;
                break;
            }
        }
        if (!dominated)
            out.push_back(i);
    }
    std::sort(out.begin(), out.end(), [&](int a, int b) {
        return timeOf(e.results[static_cast<std::size_t>(a)]).value_or(0) <
               timeOf(e.results[static_cast<std::size_t>(b)]).value_or(0);
    });
    return out;
}

QColor distinctColour(int i, const QString& gpuId)
{
    // Distinct hues first, then the darker and the paler ones (after Trubetskoy's
    // "20 distinct colours", without those too pale for a white page).
    static constexpr std::array<QRgb, 16> kDistinct{0x4363d8, 0xe6194b, 0x3cb44b, 0xf58231, 0x911eb4, 0x42d4f4,
                                                    0xf032e6, 0x9a6324, 0x469990, 0x800000, 0x808000, 0x000075,
                                                    0xbfef45, 0xdcbeff, 0xfabed4, 0xa9a9a9};
    return i >= 0 && i < static_cast<int>(kDistinct.size()) ? QColor(kDistinct[static_cast<std::size_t>(i)])
                                                            : gpuColor(gpuId);
}

QHash<QString, QColor> chartColours(const gp::Estimate& e, int maxGpus)
{
    std::vector<bool> shown(e.results.size(), false);
    for (int k = 0; k < kChartKindCount; ++k)
        for (const int i : chartSelection(static_cast<ChartKind>(k), e, maxGpus).indices)
            shown[static_cast<std::size_t>(i)] = true;
    QHash<QString, QColor> out;
    int next = 0;
    for (std::size_t i = 0; i < e.results.size(); ++i) {
        if (!shown[i])
            continue;
        const QString id = QString::fromStdString(e.results[i].gpuId);
        if (out.contains(id))
            continue;
        out.insert(id, distinctColour(next, id));
        ++next;
    }
    return out;
}

QChart* buildChart(ChartKind kind, const gp::Estimate& e, const ChartOptions& options)
{
    ChartSelection sel = chartSelection(kind, e, options.maxGpus);
    sel.colours = chartColours(e, options.maxGpus);
    switch (kind) {
    case ChartKind::Vram: return vramChart(e, sel, options);
    case ChartKind::Throughput:
    case ChartKind::Cost: return barChart(kind, e, sel, options);
    case ChartKind::CostVsTime: return scatterChart(e, sel, options);
    }
    return nullptr;
}

void paintChart(ChartKind kind, const gp::Estimate& e, const ChartOptions& options, QPainter* painter,
                const QRectF& target)
{
    detail::renderChart(buildChart(kind, e, options), painter, target);
}

namespace detail {

void renderChart(QChart* chart, QPainter* painter, const QRectF& target)
{
    QGraphicsScene scene;
    scene.addItem(chart); // the scene owns it now
    // Lay the chart out at a screen-like size and let render() scale it, so fonts
    // keep their proportions whatever the printer resolution.
    const QSizeF logical(900, 900 * target.height() / std::max(1.0, target.width()));
    chart->setGeometry(QRectF(QPointF(0, 0), logical));
    scene.setSceneRect(QRectF(QPointF(0, 0), logical));
    scene.render(painter, target, scene.sceneRect(), Qt::KeepAspectRatio);
}

} // namespace detail

} // namespace gp::ui::charts
