#include "explain.h"

#include "format.h"

#include "core/estimate/estimate.h"
#include "core/base/units.h"

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
    // One paragraph per term, not a table: a rich-text table is laid out cell by
    // cell in several passes (3-20 ms per edit), paragraphs in about 1 ms, and
    // they wrap in a narrow window.
    for (const auto& t : r.terms)
        h += QStringLiteral("<p style='margin-top:0; margin-bottom:3px'>%1: <b>%2</b> %3<br>"
                            "&nbsp;&nbsp;<tt>%4</tt></p>")
                 .arg(htmlEscape(QString::fromStdString(t.label)), formatNumber(t.value, 4),
                      htmlEscape(QString::fromStdString(t.unit)), htmlEscape(QString::fromStdString(t.formula)));
    if (!r.notes.empty()) {
        h += QObject::tr("<p><b>Notes and assumptions</b></p><ul>");
        for (const auto& n : r.notes)
            h += QStringLiteral("<li>%1</li>").arg(htmlEscape(QString::fromStdString(n)));
        h += QStringLiteral("</ul>");
    }
    return h;
}

} // namespace gp::ui
