#pragma once
#include <QString>

namespace gp::ui {

/// Number with `significant` significant digits, grouped thousands, no exponent
/// below 1e15 ("12,345", "3.27", "0.0412").
QString formatNumber(double v, int significant = 3);
/// Money with a currency symbol: "$1,234", "$12.3", "$0.412".
QString formatMoney(double usd, const QString& currency = QStringLiteral("$"));
/// Duration in hours as people read it: "45 min", "12.5 h", "3.2 days".
QString formatHours(double hours);
/// A parameter count: "8.03B", "124M", "1.5T".
QString formatCount(double n);
/// HTML-escaped plain text.
QString htmlEscape(const QString& s);

} // namespace gp::ui
