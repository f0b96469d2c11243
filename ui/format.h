#pragma once
#include <QString>

namespace gp::ui {

/// Number with `significant` significant digits, grouped thousands, no exponent
/// below 1e15 ("12,345", "3.27", "0.0412").
QString formatNumber(double v, int significant = 3);
/// Money with a currency symbol: "$1,234", "$12.3", "$0.412".
QString formatMoney(double usd, const QString& currency = QStringLiteral("$"));
/// A price, or "no price" when the catalog lists none (zero or less): never "$0".
QString formatPrice(double usd, const QString& currency = QStringLiteral("$"));
/// A user-given name fit to paint on one line: control, format and line-break
/// characters (escape sequences, CR/LF, bidi overrides) become spaces, runs of
/// white space collapse, and past `maxChars` characters it ends in "…". Reads
/// only as far as it needs, so a megabyte-long name costs next to nothing.
QString printableName(const QString& s, int maxChars = 120);
/// A safe file-name stem from a name: lower-case ASCII letters and digits joined
/// by "-", at most 60 characters; "scenario" when nothing is left.
QString fileNameStem(const QString& name);
/// A message fit for the status bar: every absolute path in it ("/home/a/x.csv",
/// "C:\\Users\\a\\x.csv") shortened to its file name ("x.csv"); other slashes
/// ("tokens/s", "$/h") are left alone.
QString withoutDirectories(const QString& text);
/// Duration in hours as people read it: "45 min", "12.5 h", "3.2 days".
QString formatHours(double hours);
/// A parameter count: "8.03B", "124M", "1.5T".
QString formatCount(double n);
/// A GPU name short enough for a chart legend: the brand words ("GeForce",
/// "Instinct", "Tesla") and anything in parentheses dropped:
/// "GeForce RTX 4090 24GB" -> "RTX 4090 24GB", "B200 (HGX, 1000 W)" -> "B200".
QString shortGpuName(const QString& name);
/// Sets the C library's LC_NUMERIC back to "C". QApplication sets every locale
/// category from the environment, and the core's text (formulas, notes: snprintf)
/// would then write "8,03B" under de_DE beside the "15.01" of its streams and
/// of the UI: one screen, two locales. Called once a QApplication exists.
void useCNumbers();
/// HTML-escaped plain text.
QString htmlEscape(const QString& s);

} // namespace gp::ui
