#include "windowgeometry.h"

#include <QDataStream>

#include <algorithm>

namespace gp::ui {

namespace {

bool plausible(const QRect& r)
{
    const auto ok = [](int v) { return v > -kMaxPlausiblePixels && v < kMaxPlausiblePixels; };
    return r.width() >= 0 && r.height() >= 0 && r.width() <= kMaxPlausiblePixels && r.height() <= kMaxPlausiblePixels &&
           ok(r.left()) && ok(r.top()) && ok(r.right()) && ok(r.bottom());
}

} // namespace

QRect initialWindowGeometry(const QRect& available)
{
    const QSize size(std::min(kPreferredWindowSize.width(), available.width() * 9 / 10),
                     std::min(kPreferredWindowSize.height(), available.height() * 9 / 10));
    QRect r(QPoint(0, 0), size);
    r.moveCenter(available.center());
    return r;
}

QRect clampToArea(const QRect& geometry, const QRect& available)
{
    QRect r(geometry.topLeft(),
            QSize(std::min(geometry.width(), available.width()), std::min(geometry.height(), available.height())));
    if (r.right() > available.right())
        r.moveRight(available.right());
    if (r.bottom() > available.bottom())
        r.moveBottom(available.bottom());
    if (r.left() < available.left())
        r.moveLeft(available.left());
    if (r.top() < available.top())
        r.moveTop(available.top());
    return r;
}

std::optional<QRect> storedWindowGeometry(const QByteArray& state)
{
    // QWidget::saveGeometry(): magic, major and minor version, frame geometry,
    // normal geometry, then screen, flags and (version 3) the client geometry.
    if (state.size() < 4 + 2 + 2 + 16 + 16)
        return std::nullopt;
    QDataStream stream(state);
    stream.setVersion(QDataStream::Qt_4_0);
    quint32 magic = 0;
    quint16 major = 0;
    quint16 minor = 0;
    QRect frame;
    QRect normal;
    stream >> magic >> major >> minor >> frame >> normal;
    if (stream.status() != QDataStream::Ok || magic != 0x1D9D0CB || major < 1 || major > 3)
        return std::nullopt;
    if (!plausible(frame) || !plausible(normal))
        return std::nullopt;
    if (major >= 3 && !stream.atEnd()) {
        qint32 screen = 0;
        quint8 maximized = 0;
        quint8 fullScreen = 0;
        qint32 screenWidth = 0;
        QRect client;
        stream >> screen >> maximized >> fullScreen >> screenWidth >> client;
        if (stream.status() == QDataStream::Ok && (screenWidth < 0 || screenWidth > kMaxPlausiblePixels || !plausible(client)))
            return std::nullopt;
    }
    return normal;
}

std::optional<QList<int>> storedSplitterSizes(const QByteArray& state, int panes)
{
    // QSplitter::saveState(): magic 0xff, version, the pane sizes, then flags.
    QDataStream stream(state);
    stream.setVersion(QDataStream::Qt_5_0);
    qint32 magic = 0;
    qint32 version = 0;
    quint32 count = 0;
    stream >> magic >> version >> count;
    if (stream.status() != QDataStream::Ok || magic != 0xff || count != static_cast<quint32>(panes))
        return std::nullopt;
    QList<int> sizes;
    for (quint32 i = 0; i < count; ++i) {
        qint32 v = 0;
        stream >> v;
        // -1: a pane never laid out (a window closed before it was shown).
        if (stream.status() != QDataStream::Ok || v < -1 || v > kMaxPlausiblePixels)
            return std::nullopt;
        sizes << v;
    }
    return sizes;
}

namespace {

quint32 leadingMagic(const QByteArray& state)
{
    QDataStream stream(state);
    quint32 magic = 0;
    stream >> magic;
    return stream.status() == QDataStream::Ok ? magic : 0;
}

} // namespace

bool isDamagedWindowGeometry(const QByteArray& state)
{
    return leadingMagic(state) == 0x1D9D0CB && !storedWindowGeometry(state);
}

bool isDamagedSplitterState(const QByteArray& state, int panes)
{
    return leadingMagic(state) == 0xff && !storedSplitterSizes(state, panes);
}

} // namespace gp::ui
