#pragma once
#include "core/hardware/catalog.h"

#include <QString>
#include <QStringList>

#include <nlohmann/json.hpp>

#include <vector>

namespace gp::ui {

/// Merges entries (each {"id": ..., fields...}) into the user catalog overlay at
/// path: an entry with an existing id is merged key by key (price_hour_usd too).
/// The result is validated with gp::Catalog::applyOverlayText on the built-in
/// catalog before it is written atomically. Returns an error, "" on success.
QString mergeIntoOverlay(const QString& path, const std::vector<nlohmann::json>& entries);

/// The catalog the app uses: the built-in one plus the user overlay
/// (gp::userOverlayPath(), core/hardware/userconfig.h) when there is one.
struct UserCatalog {
    gp::Catalog catalog;
    QString overlayPath;   // "" when no overlay path can be found
    bool overlayApplied = false;
    QStringList problems;  // one sentence each; empty when the overlay (if any) loaded
    QString setAsidePath;  // where a bad overlay was moved ("" when it was not)
};

/// Loads the catalog as the app does: gp::loadCatalogWithUserOverlay, the problems
/// as sentences. An overlay that cannot be parsed or fails validation is ignored
/// (the built-in catalog is used) and reported; with setAsideBad it is also
/// renamed to "<name>.corrupt-<timestamp>", so the next start is clean and the
/// user's file is not lost. An overlay that cannot be read (permissions) is
/// reported and left where it is.
UserCatalog loadUserCatalog(bool setAsideBad);

/// Removes the overlay file (back to the built-in catalog). Returns an error, "" on success.
QString removeOverlay(const QString& path);

} // namespace gp::ui
