#include "rentbuymarker.h"
#include "plannercharts.h"

#include "core/plan/rentbuy.h"

#include <QChart>
#include <QFontMetricsF>
#include <QGraphicsLayout>
#include <QGraphicsScene>
#include <QLineSeries>
#include <QPainter>

#include <algorithm>

namespace gp::ui::charts {

bool polylineTouches(const QPolygonF& poly, const QRectF& r, double halfWidth)
{
    const QRectF box = r.adjusted(-halfWidth, -halfWidth, halfWidth, halfWidth);
    const QLineF edges[] = {{box.topLeft(), box.topRight()}, {box.topRight(), box.bottomRight()},
                            {box.bottomRight(), box.bottomLeft()}, {box.bottomLeft(), box.topLeft()}};
    for (qsizetype i = 0; i + 1 < poly.size(); ++i) {
        const QLineF seg(poly[i], poly[i + 1]);
        if (box.contains(seg.p1()) || box.contains(seg.p2()))
            return true;
        for (const QLineF& e : edges)
            if (seg.intersects(e, nullptr) == QLineF::BoundedIntersection)
                return true;
    }
    return false;
}

namespace {

// The chart laid out at a screen-like width (as detail::renderChart does) and
// scaled into target; returns the scale.
double layOut(QChart* chart, QGraphicsScene& scene, const QRectF& target)
{
    const QSizeF logical(900, 900 * target.height() / std::max(1.0, target.width()));
    chart->setGeometry(QRectF(QPointF(0, 0), logical));
    scene.setSceneRect(QRectF(QPointF(0, 0), logical));
    if (chart->layout())
        chart->layout()->activate();
    return target.width() / logical.width();
}

} // namespace

BreakEvenMarker paintRentBuyChartMarked(const gp::RentVsBuy& r, const ChartOptions& options, QPainter* painter,
                                        const QRectF& target)
{
    BreakEvenMarker out;
    gp::RentVsBuy unmarked = r;
    unmarked.breakEvenMonth.reset(); // the chart's own point label sits on the curves
    QGraphicsScene scene;
    QChart* chart = buildRentBuyChart(unmarked, options);
    scene.addItem(chart); // the scene owns it
    const bool mark = r.breakEvenMonth && !r.curves.empty() && *r.breakEvenMonth >= 0 &&
                      *r.breakEvenMonth < static_cast<int>(r.curves.back().usd.size());
    QRectF area = target;
    double scale = layOut(chart, scene, area);
    if (!mark) {
        scene.render(painter, area, scene.sceneRect(), Qt::KeepAspectRatio);
        return out;
    }
    out.shown = true;
    out.month = *r.breakEvenMonth;
    out.text = QObject::tr("Break-even: month %1").arg(out.month);

    QFont font(QStringLiteral("DejaVu Sans"));
    font.setPointSizeF(7.5);
    font.setBold(true);
    const QFontMetricsF fm(font, painter->device());
    const double pad = fm.height() * 0.25;
    const QSizeF box(fm.horizontalAdvance(out.text) + 2 * pad, fm.height() + 2 * pad);

    // Chart coordinates to the painter's.
    const auto geometry = [&] {
        const auto toDevice = [&](QPointF scenePoint) { return area.topLeft() + scenePoint * scale; };
        const QRectF p = chart->plotArea();
        out.plot = QRectF(toDevice(p.topLeft()), toDevice(p.bottomRight()));
        out.curves.clear();
        out.curvePenWidth = 0;
        for (QAbstractSeries* s : chart->series()) {
            auto* line = qobject_cast<QLineSeries*>(s);
            if (!line)
                continue;
            QPolygonF poly;
            for (const QPointF& pt : line->points())
                poly << toDevice(chart->mapToPosition(pt, line));
            out.curves.push_back(poly);
            out.curvePenWidth = std::max(out.curvePenWidth, line->pen().widthF() * scale);
        }
        out.x = toDevice(chart->mapToPosition(QPointF(out.month, 0), chart->series().value(0))).x();
    };
    geometry();

    // Beside the rule, top first, right first; clear of every curve by a pen width.
    const double clearance = out.curvePenWidth + pad;
    bool placed = false;
    for (double y = out.plot.top() + pad; !placed && y + box.height() <= out.plot.bottom() - pad; y += box.height() / 3) {
        for (const double left : {out.x + 2 * pad, out.x - 2 * pad - box.width()}) {
            const QRectF candidate(QPointF(left, y), box);
            if (!out.plot.contains(candidate))
                continue;
            if (std::none_of(out.curves.begin(), out.curves.end(),
                             [&](const QPolygonF& c) { return polylineTouches(c, candidate, clearance); })) {
                out.label = candidate;
                placed = true;
                break;
            }
        }
    }
    if (!placed) {
        // A caption row under the chart names the dashed rule instead.
        out.inCaption = true;
        out.text = QObject::tr("Dashed line: break-even, month %1").arg(out.month);
        const QSizeF captionBox(fm.horizontalAdvance(out.text) + 2 * pad, box.height());
        area = target.adjusted(0, 0, 0, -(captionBox.height() + pad));
        scale = layOut(chart, scene, area);
        geometry();
        const double left = std::clamp(out.x - captionBox.width() / 2, target.left(), target.right() - captionBox.width());
        out.label = QRectF(QPointF(left, area.bottom() + pad), captionBox);
    }

    scene.render(painter, area, scene.sceneRect(), Qt::KeepAspectRatio);
    painter->save();
    QPen rule(QColor(0x33, 0x33, 0x33));
    rule.setStyle(Qt::DashLine);
    rule.setWidthF(std::max(1.0, 1.4 * scale));
    painter->setPen(rule);
    painter->drawLine(QPointF(out.x, out.plot.top()), QPointF(out.x, out.plot.bottom()));
    QPen frame(QColor(0x33, 0x33, 0x33));
    frame.setWidthF(std::max(1.0, 0.8 * scale));
    painter->setPen(frame);
    painter->setBrush(Qt::white);
    painter->drawRect(out.label);
    painter->setFont(font);
    painter->setPen(Qt::black);
    painter->drawText(out.label, Qt::AlignCenter, out.text);
    painter->restore();
    return out;
}

} // namespace gp::ui::charts
