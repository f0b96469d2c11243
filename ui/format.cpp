#include "format.h"

#include <QLocale>

#include <clocale>
#include <QObject>
#include <QRegularExpression>

#include <algorithm>
#include <cmath>

namespace gp::ui {

namespace {
/// The C locale with thousands grouping ("12,345"), independent of the user's locale.
QLocale groupingC()
{
    QLocale c = QLocale::c();
    c.setNumberOptions(QLocale::DefaultNumberOptions);
    return c;
}
} // namespace

QString formatNumber(double v, int significant)
{
    if (!std::isfinite(v))
        return QStringLiteral("—");
    if (v == 0)
        return QStringLiteral("0");
    const double mag = std::floor(std::log10(std::fabs(v)));
    const int decimals = std::max(0, significant - 1 - static_cast<int>(mag));
    QString s = groupingC().toString(v, 'f', std::min(decimals, 8));
    if (s.contains(QLatin1Char('.'))) {
        while (s.endsWith(QLatin1Char('0')))
            s.chop(1);
        if (s.endsWith(QLatin1Char('.')))
            s.chop(1);
    }
    return s;
}

QString formatMoney(double usd, const QString& currency)
{
    if (std::fabs(usd) >= 1000)
        return currency + groupingC().toString(std::round(usd), 'f', 0);
    return currency + formatNumber(usd, 3);
}

QString formatPrice(double usd, const QString& currency)
{
    return usd > 0 && std::isfinite(usd) ? formatMoney(usd, currency) : QObject::tr("no price");
}

QString printableName(const QString& s, int maxChars)
{
    QString out;
    const int limit = std::max(2, maxChars);
    out.reserve(std::min<qsizetype>(s.size(), limit + 1));
    bool space = false;
    for (const QChar c : s) {
        const auto cat = c.category();
        if (c.isSpace() || cat == QChar::Other_Control || cat == QChar::Other_Format || cat == QChar::Separator_Line ||
            cat == QChar::Separator_Paragraph) {
            space = !out.isEmpty();
            continue;
        }
        if (space)
            out += QLatin1Char(' ');
        space = false;
        out += c;
        if (out.size() > limit) {
            out.truncate(limit - 1);
            if (out.back().isHighSurrogate())
                out.chop(1);
            while (out.endsWith(QLatin1Char(' ')))
                out.chop(1);
            return out + QStringLiteral("…");
        }
    }
    return out;
}

QString fileNameStem(const QString& name)
{
    QString stem;
    for (const QChar c : name) {
        const QChar l = c.toLower();
        if ((l >= QLatin1Char('a') && l <= QLatin1Char('z')) || (l >= QLatin1Char('0') && l <= QLatin1Char('9')))
            stem += l;
        else if (!stem.isEmpty() && !stem.endsWith(QLatin1Char('-')))
            stem += QLatin1Char('-');
        if (stem.size() >= 60)
            break;
    }
    stem.truncate(60);
    while (stem.endsWith(QLatin1Char('-')))
        stem.chop(1);
    return stem.isEmpty() ? QStringLiteral("scenario") : stem;
}

QString withoutDirectories(const QString& text)
{
    // A path starts the text or follows a space, quote or bracket, and has at
    // least one folder before its last part.
    static const QRegularExpression path(
        QStringLiteral(R"((?<![^\s"'(\[\x{201C}])(?:[A-Za-z]:)?[\\/](?:[^\s\\/]+[\\/])+([^\s\\/]+))"));
    QString out = text;
    return out.replace(path, QStringLiteral("\\1"));
}

QString formatHours(double hours)
{
    if (hours < 1)
        return QObject::tr("%1 min").arg(formatNumber(hours * 60, 2));
    if (hours < 48)
        return QObject::tr("%1 h").arg(formatNumber(hours, 3));
    return QObject::tr("%1 days").arg(formatNumber(hours / 24, 3));
}

void useCNumbers()
{
    std::setlocale(LC_NUMERIC, "C");
}

QString formatCount(double n)
{
    const double a = std::fabs(n);
    if (a >= 1e12)
        return formatNumber(n / 1e12, 3) + QLatin1Char('T');
    if (a >= 1e9)
        return formatNumber(n / 1e9, 3) + QLatin1Char('B');
    if (a >= 1e6)
        return formatNumber(n / 1e6, 3) + QLatin1Char('M');
    if (a >= 1e3)
        return formatNumber(n / 1e3, 3) + QLatin1Char('K');
    return formatNumber(n, 3);
}

QString htmlEscape(const QString& s)
{
    return s.toHtmlEscaped();
}

QString shortGpuName(const QString& name)
{
    QString s = name;
    static const QRegularExpression parens(QStringLiteral(R"(\s*\([^)]*\))"));
    static const QRegularExpression brand(QStringLiteral(R"(\b(?:GeForce|Instinct|Tesla)\s+)"));
    s.remove(parens);
    s.remove(brand);
    s = s.simplified();
    return s.isEmpty() ? name : s;
}

} // namespace gp::ui
