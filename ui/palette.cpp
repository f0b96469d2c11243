#include "palette.h"

#include <QGuiApplication>
#include <QPalette>

#include "core/hardware/catalog.h"

#include <QHash>
#include <QString>

#include <array>
#include <cmath>

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

namespace {

QColor indexedGpuColor(int i)
{
    // d3's category20 without its greys, then five darks: mid-tones on white and on near-black.
    static constexpr std::array<QRgb, 24> kColors{
        0x1f77b4, 0xff7f0e, 0x2ca02c, 0xd62728, 0x9467bd, 0x8c564b, 0xe377c2, 0xbcbd22,
        0x17becf, 0xaec7e8, 0xffbb78, 0x98df8a, 0xff9896, 0xc5b0d5, 0xc49c94, 0xf7b6d2,
        0xdbdb8d, 0x9edae5, 0x393b79, 0x637939, 0x8c6d31, 0x843c39, 0x7b4173, 0x5254a3};
    if (i < static_cast<int>(kColors.size()))
        return QColor(kColors[static_cast<std::size_t>(i)]);
    // Then hues a golden angle apart, alternating saturation and value.
    const int k = i - static_cast<int>(kColors.size());
    const double hue = std::fmod(20.0 + k * 137.50776405, 360.0);
    return QColor::fromHsvF(static_cast<float>(hue / 360.0), k % 2 ? 0.45f : 0.75f, (k / 2) % 2 ? 0.62f : 0.86f);
}

} // namespace

QColor gpuColor(const QString& gpuId)
{
    static const QHash<QString, int> kIndex = [] {
        QHash<QString, int> index;
        for (const auto& g : gp::Catalog::builtin().gpus())
            index.insert(QString::fromStdString(g.id), static_cast<int>(index.size()));
        return index;
    }();
    const auto it = kIndex.constFind(gpuId);
    if (it != kIndex.constEnd())
        return indexedGpuColor(*it);
    // FNV-1a: the same on every run (qHash is seeded per process).
    quint32 h = 2166136261u;
    for (const QChar c : gpuId) {
        h ^= c.unicode();
        h *= 16777619u;
    }
    return indexedGpuColor(static_cast<int>(kIndex.size()) + static_cast<int>(h % 997u));
}

} // namespace gp::ui
