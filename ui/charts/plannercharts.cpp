#include "plannercharts.h"
#include "chartstyle.h"

#include "ui/format.h"
#include "ui/palette.h"
#include "ui/plantablemodel.h"

#include "core/plan/planner.h"
#include "core/plan/rentbuy.h"
#include "core/base/units.h"

#include <QChart>
#include <QChartView>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPainter>
#include <QPalette>
#include <QPushButton>
#include <QScatterSeries>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace gp::ui::charts {

using namespace detail;

namespace {

QColor textColor(const ChartOptions& o)
{
    return o.print ? QColor(Qt::black) : QGuiApplication::palette().color(QPalette::Text);
}

void hideLegendFor(QChart* chart, QAbstractSeries* s)
{
    for (auto* m : chart->legend()->markers(s))
        m->setVisible(false);
}

QString optionText(const gp::PlanOption& o)
{
    QString layout;
    if (!o.mig.empty())
        layout = QObject::tr("MIG %1 slice").arg(QString::fromStdString(o.mig));
    else
        layout = QObject::tr("%1x, TP%2 PP%3").arg(o.count).arg(o.tp).arg(o.pp);
    return QObject::tr("#%1 %2 (%3), %4").arg(o.rank).arg(QString::fromStdString(o.gpuName), layout,
                                                         QString::fromStdString(o.precision));
}

} // namespace

QString planFrontSeriesName()
{
    return QObject::tr("Pareto front");
}

QString breakEvenSeriesName(int month)
{
    return QObject::tr("Break-even: month %1").arg(month);
}

QChart* buildPlanChart(const gp::PlanResult& plan, const ChartOptions& o)
{
    auto* chart = new QChart;
    styleChart(chart, o, QObject::tr("Plan: cost vs time of each option"));
    const QString xTitle = planAxisLabel(plan.timeLabel);
    const QString yTitle = planAxisLabel(plan.costLabel);

    // One series per GPU type (and MIG slice), in rank order, so the legend
    // names each colour; hovering a point names its rank.
    struct Group {
        QScatterSeries* series;
        std::vector<std::pair<QPointF, QString>> tips;
    };
    std::vector<std::string> order;
    std::map<std::string, Group> groups;
    std::map<std::string, int> gpuIndex; // the distinct palette, in the options' order
    QList<QPointF> front;
    double minX = std::numeric_limits<double>::max(), maxX = 0, minY = std::numeric_limits<double>::max(), maxY = 0;
    bool any = false;
    for (const auto& opt : plan.options) {
        if (!std::isfinite(opt.costKey) || !std::isfinite(opt.timeKey) || opt.costKey <= 0 || opt.timeKey <= 0)
            continue;
        const std::string key = opt.gpu + (opt.mig.empty() ? std::string() : " MIG " + opt.mig);
        auto it = groups.find(key);
        if (it == groups.end()) {
            auto* s = new QScatterSeries;
            // A colour per GPU from the distinct palette (its MIG slices share it, as triangles).
            const int k = gpuIndex.emplace(opt.gpu, static_cast<int>(gpuIndex.size())).first->second;
            const QColor col = distinctColour(k, QString::fromStdString(opt.gpu));
            s->setColor(col);
            s->setBorderColor(col.darker(120));
            s->setMarkerShape(opt.mig.empty() ? QScatterSeries::MarkerShapeCircle : QScatterSeries::MarkerShapeTriangle);
            s->setMarkerSize(o.print ? 9 : 11);
            it = groups.emplace(key, Group{s, {}}).first;
            order.push_back(key);
            QString name = shortGpuName(QString::fromStdString(opt.gpuName));
            if (!opt.mig.empty())
                name += QObject::tr(" (MIG %1)").arg(QString::fromStdString(opt.mig));
            s->setName(name);
        }
        const QPointF p(opt.timeKey, opt.costKey);
        it->second.series->append(p);
        it->second.tips.emplace_back(p, optionText(opt));
        if (std::find(plan.pareto.begin(), plan.pareto.end(), opt.rank) != plan.pareto.end())
            front << p;
        minX = std::min(minX, p.x());
        maxX = std::max(maxX, p.x());
        minY = std::min(minY, p.y());
        maxY = std::max(maxY, p.y());
        any = true;
    }
    std::sort(front.begin(), front.end(), [](const QPointF& a, const QPointF& b) { return a.x() < b.x(); });

    auto* frontLine = new QLineSeries;
    frontLine->setPen(QPen(statusColor(Status::Bad), 2, Qt::DashLine));
    frontLine->replace(front);
    auto* frontRing = new QScatterSeries;
    frontRing->setName(planFrontSeriesName());
    frontRing->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
    frontRing->setMarkerSize(o.print ? 15 : 18);
    frontRing->setColor(Qt::transparent);
    frontRing->setBorderColor(statusColor(Status::Bad));
    QPen ring(statusColor(Status::Bad));
    ring.setWidthF(2);
    frontRing->setPen(ring);
    frontRing->replace(front);

    chart->addSeries(frontLine);
    std::vector<QScatterSeries*> points;
    for (const auto& key : order) {
        auto& g = groups.at(key);
        chart->addSeries(g.series);
        points.push_back(g.series);
    }
    chart->addSeries(frontRing);
    hideLegendFor(chart, frontLine);
    if (front.isEmpty())
        hideLegendFor(chart, frontRing);

    QAbstractAxis* axisX = makeValueAxis(minX, maxX, any, xTitle);
    QAbstractAxis* axisY = makeValueAxis(minY, maxY, any, yTitle);
    styleAxis(axisX, o);
    styleAxis(axisY, o);
    chart->addAxis(axisX, Qt::AlignBottom);
    chart->addAxis(axisY, Qt::AlignLeft);
    for (QAbstractSeries* s : chart->series()) {
        s->attachAxis(axisX);
        s->attachAxis(axisY);
    }
    // The legend at the right, in a column: a dozen GPU names never fit one row.
    chart->legend()->setAlignment(Qt::AlignRight);
    QFont lf = chart->legend()->font();
    lf.setPointSizeF(lf.pointSizeF() * 0.9);
    chart->legend()->setFont(lf);
    std::vector<std::pair<QPointF, QString>> allTips;
    for (const auto& key : order)
        allTips.insert(allTips.end(), groups.at(key).tips.begin(), groups.at(key).tips.end());
    const auto frontTip = [allTips, xTitle, yTitle](const QPointF& p, bool on) {
        if (!on)
            return;
        // The nearest option on the front (the ring and the line lie over the points).
        const std::pair<QPointF, QString>* nearest = nullptr;
        double best = std::numeric_limits<double>::max();
        for (const auto& t : allTips) {
            const double d = std::hypot(std::log(t.first.x() / p.x()), std::log(t.first.y() / p.y()));
            if (d < best) {
                best = d;
                nearest = &t;
            }
        }
        if (nearest)
            showTip(QObject::tr("Pareto front: %1\n%2: %3\n%4: %5")
                        .arg(nearest->second, xTitle, formatNumber(nearest->first.x(), 3), yTitle,
                             formatNumber(nearest->first.y(), 3)));
    };
    QObject::connect(frontRing, &QScatterSeries::hovered, chart, frontTip);
    QObject::connect(frontLine, &QLineSeries::hovered, chart, frontTip);
    for (const auto& key : order) {
        const auto& g = groups.at(key);
        QObject::connect(g.series, &QScatterSeries::hovered, chart,
                         [tips = g.tips, xTitle, yTitle](const QPointF& p, bool on) {
                             if (!on)
                                 return;
                             for (const auto& [q, text] : tips)
                                 if (std::abs(q.x() - p.x()) <= 1e-9 * std::abs(q.x()) &&
                                     std::abs(q.y() - p.y()) <= 1e-9 * std::abs(q.y())) {
                                     showTip(QStringLiteral("%1\n%2: %3\n%4: %5")
                                                 .arg(text, xTitle, formatNumber(p.x(), 3), yTitle, formatNumber(p.y(), 3)));
                                     return;
                                 }
                         });
    }
    return chart;
}

QChart* buildRentBuyChart(const gp::RentVsBuy& r, const ChartOptions& o)
{
    auto* chart = new QChart;
    const QString who = r.count > 1 ? QStringLiteral("%1x %2").arg(r.count).arg(QString::fromStdString(r.gpuName))
                                    : QString::fromStdString(r.gpuName);
    styleChart(chart, o, QObject::tr("Rent vs buy: cumulative cost of %1").arg(who));
    double maxUsd = 0;
    int months = 0;
    int i = 0;
    const QColor own = statusColor(Status::Good).darker(110);
    for (const auto& c : r.curves) {
        auto* s = new QLineSeries;
        s->setName(QString::fromStdString(c.label));
        QList<QPointF> pts;
        pts.reserve(static_cast<qsizetype>(c.usd.size()));
        for (std::size_t m = 0; m < c.usd.size(); ++m) {
            pts << QPointF(static_cast<double>(m), c.usd[m]);
            maxUsd = std::max(maxUsd, c.usd[m]);
        }
        months = std::max(months, static_cast<int>(c.usd.size()) - 1);
        s->replace(pts);
        const bool owning = &c == &r.curves.back() && r.purchaseUsdPerGpu > 0;
        QPen pen(owning ? own : seriesColor(i == 2 ? 4 : i)); // keep green for owning
        pen.setWidthF(owning ? 3 : 2.2);
        if (c.label.find("spot") != std::string::npos)
            pen.setStyle(Qt::DashLine);
        s->setPen(pen);
        chart->addSeries(s);
        ++i;
    }

    if (r.breakEvenMonth && !r.curves.empty() && *r.breakEvenMonth < static_cast<int>(r.curves.back().usd.size())) {
        const int m = *r.breakEvenMonth;
        const double y = r.curves.back().usd[static_cast<std::size_t>(m)];
        auto* rule = new QLineSeries;
        QPen pen(textColor(o));
        pen.setStyle(Qt::DotLine);
        pen.setWidthF(1.2);
        rule->setPen(pen);
        rule->append(m, 0);
        rule->append(m, maxUsd);
        chart->addSeries(rule);
        hideLegendFor(chart, rule);
        auto* mark = new QScatterSeries;
        mark->setName(breakEvenSeriesName(m));
        mark->setMarkerShape(QScatterSeries::MarkerShapeCircle);
        mark->setMarkerSize(o.print ? 11 : 13);
        mark->setColor(statusColor(Status::Bad));
        mark->setBorderColor(textColor(o));
        mark->append(m, y);
        // Named in the legend ("Break-even: month N"), outside the plot: a label
        // beside the point sat on the curves that cross there (issue 19).
        mark->setPointLabelsVisible(false);
        chart->addSeries(mark);
        QObject::connect(mark, &QScatterSeries::hovered, chart, [m, y, currency = o.currency](const QPointF&, bool on) {
            if (on)
                showTip(QObject::tr("Break-even in month %1: owning has cost %2 so far").arg(m).arg(formatMoney(y, currency)));
        });
    }

    auto* axisX = new QValueAxis;
    axisX->setRange(0, std::max(1, months));
    axisX->setTitleText(QObject::tr("Months"));
    axisX->setLabelFormat(QStringLiteral("%.0f"));
    axisX->setTickType(QValueAxis::TicksDynamic);
    axisX->setTickAnchor(0);
    axisX->setTickInterval(months <= 24 ? 3 : months <= 72 ? 6 : 12);
    auto* axisY = new QValueAxis;
    axisY->setRange(0, niceMax(maxUsd));
    axisY->setTitleText(QObject::tr("Cumulative cost (%1)").arg(o.currency));
    axisY->setLabelFormat(QStringLiteral("%.0f"));
    axisY->applyNiceNumbers();
    styleAxis(axisX, o);
    styleAxis(axisY, o);
    chart->addAxis(axisX, Qt::AlignBottom);
    chart->addAxis(axisY, Qt::AlignLeft);
    // Four curve names in one row: a slightly smaller legend font keeps them whole.
    QFont lf = chart->legend()->font();
    lf.setPointSizeF(lf.pointSizeF() * 0.9);
    chart->legend()->setFont(lf);
    for (QAbstractSeries* s : chart->series()) {
        s->attachAxis(axisX);
        s->attachAxis(axisY);
        if (auto* line = qobject_cast<QLineSeries*>(s); line && !line->name().isEmpty()) {
            const QString name = line->name();
            const QString currency = o.currency;
            QObject::connect(line, &QLineSeries::hovered, chart, [line, name, currency](const QPointF& p, bool on) {
                if (!on)
                    return;
                const int m = std::clamp(static_cast<int>(std::lround(p.x())), 0, static_cast<int>(line->count()) - 1);
                showTip(QObject::tr("%1\nmonth %2: %3").arg(name).arg(m).arg(formatMoney(line->at(m).y(), currency)));
            });
        }
    }
    return chart;
}

void paintPlanChart(const gp::PlanResult& plan, const ChartOptions& options, QPainter* painter, const QRectF& target)
{
    renderChart(buildPlanChart(plan, options), painter, target);
}

void paintRentBuyChart(const gp::RentVsBuy& r, const ChartOptions& options, QPainter* painter, const QRectF& target)
{
    renderChart(buildRentBuyChart(r, options), painter, target);
}

ChartView::ChartView(const QString& accessibleName, QWidget* parent)
    : QWidget(parent)
    , m_view(new QChartView(this))
    , m_caption(new QLabel(this))
{
    m_view->setRenderHint(QPainter::Antialiasing);
    m_view->setAccessibleName(accessibleName);
    m_view->setMinimumSize(220, 200); // the page fits a 1024-px window (or 1.5x scaling) beside the form
    m_view->setChart(new QChart);
    m_caption->setWordWrap(true);
    m_caption->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* save = new QPushButton(tr("Save chart as..."), this);
    connect(save, &QPushButton::clicked, this, &ChartView::saveRequested);
    auto* bottom = new QHBoxLayout;
    bottom->addWidget(m_caption, 1);
    bottom->addWidget(save, 0, Qt::AlignTop);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_view, 1);
    layout->addLayout(bottom);
}

ChartView::~ChartView() = default;

void ChartView::setChart(QChart* chart)
{
    QChart* old = m_view->chart();
    m_view->setChart(chart);
    delete old; // QChartView does not own a chart it no longer shows
}

void ChartView::setCaption(const QString& text)
{
    m_caption->setText(text);
}

QString ChartView::caption() const
{
    return m_caption->text();
}

std::vector<SeriesData> ChartView::series() const
{
    std::vector<SeriesData> out;
    for (QAbstractSeries* s : m_view->chart()->series())
        if (auto* xy = qobject_cast<QXYSeries*>(s))
            out.push_back({xy->name(), xy->points()});
    return out;
}

QString ChartView::axisTitle(Qt::Orientation orientation) const
{
    const auto axes = m_view->chart()->axes(orientation);
    return axes.isEmpty() ? QString() : axes.first()->titleText();
}

QString ChartView::saveImage(const QString& path) const
{
    return saveChartImage(m_view, path, m_view->chart()->title());
}

} // namespace gp::ui::charts
