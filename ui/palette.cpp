#include "palette.h"

#include <QGuiApplication>
#include <QPalette>

#include <array>

namespace gp::ui {

QColor statusColor(Status s)
{
    switch (s) {
    case Status::Good: return QColor(0x3b, 0xa5, 0x5c);
    case Status::Warn: return QColor(0xd4, 0x8a, 0x14);
    case Status::Bad: return QColor(0xd9, 0x4a, 0x4a);
    }
    return {};
}

QColor bestTint()
{
    QColor c = QGuiApplication::palette().color(QPalette::Highlight);
    c.setAlpha(70);
    return c;
}

QColor seriesColor(int i)
{
    // Tableau-10-like mid-tones: enough contrast against white and near-black.
    static constexpr std::array<QRgb, 8> kColors{0x4e79a7, 0xf28e2b, 0x59a14f, 0xe15759,
                                                 0x76b7b2, 0xedc948, 0xb07aa1, 0x9c755f};
    return QColor(kColors[static_cast<std::size_t>(i) % kColors.size()]);
}

} // namespace gp::ui
