#pragma once
// Window sizing and checks on stored window/splitter states (no widgets needed).
#include <QByteArray>
#include <QList>
#include <QRect>
#include <QSize>

#include <optional>

namespace gp::ui {

/// The size the main window is designed for, when the screen has room.
inline constexpr QSize kPreferredWindowSize{1500, 940};
/// Coordinates or sizes beyond this many pixels are damage, not a screen.
inline constexpr int kMaxPlausiblePixels = 100000;
/// Panes of the main window's splitter (the form, the tabs).
inline constexpr int kMainSplitterPanes = 2;

/// The first window's geometry on a screen with this available geometry:
/// kPreferredWindowSize, or 90% of the available width/height where that is
/// smaller, centred in the available area.
QRect initialWindowGeometry(const QRect& available);

/// A window geometry moved and shrunk so that it lies inside `available`
/// (a window larger than the area gets the area's size).
QRect clampToArea(const QRect& geometry, const QRect& available);

/// The frame and normal geometry stored by QWidget::saveGeometry(); unset when
/// the bytes are not such a state or hold absurd values (a negative size,
/// a coordinate or size beyond kMaxPlausiblePixels).
std::optional<QRect> storedWindowGeometry(const QByteArray& state);

/// The pane sizes stored by QSplitter::saveState(); unset when the bytes are not
/// such a state, the count is not `panes`, or a size is below -1 (Qt's "never
/// laid out") or beyond kMaxPlausiblePixels.
std::optional<QList<int>> storedSplitterSizes(const QByteArray& state, int panes);

/// A QWidget::saveGeometry() / QSplitter::saveState() (by its magic number) that
/// storedWindowGeometry() / storedSplitterSizes() reject: damage to set aside.
/// Bytes of another kind are not: Qt ignores them and uses the defaults.
bool isDamagedWindowGeometry(const QByteArray& state);
bool isDamagedSplitterState(const QByteArray& state, int panes);

} // namespace gp::ui
