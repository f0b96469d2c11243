#pragma once
#include <QString>

namespace gp {
struct GpuEstimate;
}

namespace gp::ui {

/// "Why this number": the terms the core summed (label, value, unit, formula),
/// the notes and the uncertainty of one result, as HTML for a read-only view.
QString explainHtml(const gp::GpuEstimate& r, const QString& currency = QStringLiteral("$"));

} // namespace gp::ui
