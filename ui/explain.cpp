#include "explain.h"

#include "format.h"

#include "core/estimate.h"
#include "core/units.h"

#include <QObject>
#include <QStringList>

namespace gp::ui {

QString explainHtml(const gp::GpuEstimate& r, const QString& currency)
{
    QString h;
    h += QStringLiteral("<h3>%1 x%2</h3>").arg(htmlEscape(QString::fromStdString(r.gpuName))).arg(r.count);
    h += QStringLiteral("<p>");
    h += r.fits ? QObject::tr("Fits: needs %1 GiB of %2 GiB per GPU.")
                : QObject::tr("<b>Does not fit</b>: needs %1 GiB, has %2 GiB per GPU.");
    h = h.arg(formatNumber(gp::units::bytesToGiB(r.memory.total())), formatNumber(gp::units::bytesToGiB(r.capacityBytes)));
    h += QObject::tr(" Compute format: %1. %2/h for the job.")
             .arg(htmlEscape(QString::fromStdString(r.computePrecision)), formatMoney(r.usdPerHour, currency));
    if (r.approximate)
        h += QObject::tr(" <i>Approximate: the model shape was guessed from its size.</i>");
    h += QStringLiteral("</p>");
    if (!r.targetMisses.empty()) {
        h += QObject::tr("<p><b>Targets missed</b></p><ul>");
        for (const auto& m : r.targetMisses)
            h += QStringLiteral("<li>%1</li>").arg(htmlEscape(QString::fromStdString(m)));
        h += QStringLiteral("</ul>");
    }
    h += QObject::tr("<p><b>Uncertainty</b> (1 sigma, from the calibration residuals): memory ±%1%, throughput ±%2%.</p>")
             .arg(formatNumber(r.uncertainty.memory * 100, 2), formatNumber(r.uncertainty.throughput * 100, 2));
    h += QObject::tr("<p><b>How the numbers were computed</b></p>");
    h += QStringLiteral("<table cellspacing='0' cellpadding='3' border='1' style='border-collapse:collapse'>");
    h += QObject::tr("<tr><th align='left'>Term</th><th align='right'>Value</th><th align='left'>Unit</th>"
                     "<th align='left'>Formula</th></tr>");
    for (const auto& t : r.terms)
        h += QStringLiteral("<tr><td>%1</td><td align='right'>%2</td><td>%3</td><td><tt>%4</tt></td></tr>")
                 .arg(htmlEscape(QString::fromStdString(t.label)), formatNumber(t.value, 4),
                      htmlEscape(QString::fromStdString(t.unit)), htmlEscape(QString::fromStdString(t.formula)));
    h += QStringLiteral("</table>");
    if (!r.notes.empty()) {
        h += QObject::tr("<p><b>Notes and assumptions</b></p><ul>");
        for (const auto& n : r.notes)
            h += QStringLiteral("<li>%1</li>").arg(htmlEscape(QString::fromStdString(n)));
        h += QStringLiteral("</ul>");
    }
    return h;
}

} // namespace gp::ui
