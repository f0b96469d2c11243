#pragma once
#include <QString>

#include <nlohmann/json.hpp>

#include <vector>

namespace gp::ui {

/// Merges entries (each {"id": ..., fields...}) into the user catalog overlay at
/// path: an entry with an existing id is merged key by key (price_hour_usd too).
/// The result is validated with gp::Catalog::applyOverlayText on the built-in
/// catalog before it is written atomically. Returns an error, "" on success.
QString mergeIntoOverlay(const QString& path, const std::vector<nlohmann::json>& entries);

/// Removes the overlay file (back to the built-in catalog). Returns an error, "" on success.
QString removeOverlay(const QString& path);

} // namespace gp::ui
