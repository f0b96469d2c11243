#pragma once
#include <QColor>

namespace gp::ui {

enum class Status { Good, Warn, Bad };

/// Mid-tone colours that stay readable on light and dark palettes.
QColor statusColor(Status s);
/// A translucent tint of the palette's highlight, for "best value" cells.
QColor bestTint();
/// The i-th series colour (mid-tone, distinguishable, dark-mode safe).
QColor seriesColor(int i);

} // namespace gp::ui
