#pragma once
#include <QColor>

namespace gp::ui {

enum class Status { Good, Warn, Bad };

/// Mid-tone colours that stay readable on light and dark palettes.
QColor statusColor(Status s);
/// A translucent tint of the palette's highlight, for "best value" cells.
QColor bestTint();
/// The i-th series colour (mid-tone, distinguishable, dark-mode safe), for
/// series that are not GPUs (memory parts, rent-vs-buy curves).
QColor seriesColor(int i);
/// The colour of a GPU in every chart: fixed by its id, so the same GPU has the
/// same colour everywhere, and the GPUs of the built-in catalog each have their
/// own (24 hand-picked colours, then golden-angle hues). Other ids (user-defined
/// GPUs) get a colour from a hash of the id, apart from the catalog's.
QColor gpuColor(const QString& gpuId);

} // namespace gp::ui
