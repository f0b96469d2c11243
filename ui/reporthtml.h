#pragma once
// Internal to the report: small HTML helpers shared by reportbuilder.cpp (page 1,
// the sections' assembly and painting) and reportsections.cpp (plan, rent vs
// buy and rules sections).
#include "format.h"

#include <QString>

#include <optional>
#include <string>
#include <string_view>

namespace gp::ui::reporthtml {

inline QString sv(std::string_view s)
{
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

inline QString esc(const std::string& s)
{
    return htmlEscape(QString::fromStdString(s));
}

inline QString opt(const std::optional<double>& v, int sig = 3)
{
    return v ? formatNumber(*v, sig) : QStringLiteral("—");
}

/// The style sheet every HTML block of the report starts with.
inline QString style()
{
    return QStringLiteral(
        "<style>"
        "h1 { font-size: 17pt; margin-bottom: 2pt; }"
        "h2 { font-size: 12pt; margin-top: 12pt; margin-bottom: 4pt; }"
        "table { border-collapse: collapse; }"
        "td, th { padding: 1px 3px; }"
        "th { background-color: #e8e8e8; }"
        ".muted { color: #555555; }"
        ".bad { color: #b02a2a; }"
        ".warn { color: #9a6200; }"
        ".rec { background-color: #e3f1e6; }"
        "</style>");
}

} // namespace gp::ui::reporthtml
