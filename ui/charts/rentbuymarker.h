#pragma once
// The rent-vs-buy chart for paper, with the break-even month marked by a dashed
// rule and a label placed clear of the curves. Includes no Qt Charts header.
#include "chartfactory.h"

#include <QPolygonF>
#include <QRectF>
#include <QString>

#include <vector>

namespace gp {
struct RentVsBuy;
}

namespace gp::ui::charts {

/// Where the break-even marker went, in the painter's coordinates (tests, checks).
struct BreakEvenMarker {
    bool shown = false;          // false: no break-even month inside the chart
    int month = 0;
    QString text;                // the label's text
    double x = 0;                // the dashed rule's x
    QRectF plot;                 // the plot area (the rule runs from its top to its bottom)
    QRectF label;                // the label's box (white, framed)
    bool inCaption = false;      // no room among the curves: the label is a caption row under the chart
    std::vector<QPolygonF> curves; // the cost curves as drawn
    double curvePenWidth = 0;    // the widest curve pen
};

/// True when the segments of `poly`, widened by `halfWidth`, touch `r`.
bool polylineTouches(const QPolygonF& poly, const QRectF& r, double halfWidth);

/// Paints buildRentBuyChart's curves into target and marks the break-even month:
/// a dashed vertical rule, and a label beside it where no curve passes (beside
/// the rule, top first, right first); when every spot is taken, the label is a
/// caption row under the chart. Works headless.
BreakEvenMarker paintRentBuyChartMarked(const gp::RentVsBuy& r, const ChartOptions& options, QPainter* painter,
                                        const QRectF& target);

} // namespace gp::ui::charts
