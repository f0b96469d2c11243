#pragma once
// The user's configuration the command line and the app share: where the
// catalog overlay lives, how the catalog is loaded with it, and what is done
// with an overlay that is bad.
#include "core/hardware/catalog.h"
#include "core/base/errors.h"

#include <string>
#include <vector>

namespace gp {

/// The user catalog overlay path: $GPUPLANNER_CATALOG_OVERLAY, else
/// $XDG_CONFIG_HOME or ~/.config + /gpuplanner/catalog-overlay.json; "" when
/// none of those is set.
std::string userOverlayPath();

/// What is done with an overlay whose content is bad (not JSON, fails
/// validation, too large, not text). It is always ignored and reported.
enum class BadOverlay {
    Report,   ///< left where it is (gpuplanner-cli; the app after its own editor wrote it)
    SetAside, ///< also renamed to "<path>.corrupt-<yyyyMMdd-HHmmss>" so the next start is clean (app start)
};

/// The built-in catalog plus the user overlay, and what happened to the overlay.
struct UserCatalogLoad {
    Catalog catalog;                  ///< the built-in one when the overlay was not applied
    std::string overlayPath;          ///< "" when no overlay path can be found
    bool overlayApplied = false;
    /// Why the overlay was ignored (each naming the file and key), empty when it
    /// loaded or there is none.
    std::vector<Diagnostic> problems;
    /// The overlay exists but cannot be read (permissions, a directory, a FIFO,
    /// a dangling link): it is left alone whatever the policy.
    bool unreadable = false;
    std::string setAsidePath;         ///< where a bad overlay was moved, "" when it was not
    std::string setAsideError;        ///< why it could not be moved, "" when it was or was not asked

    /// The problems, one "path: message" line each (InputError::what()).
    std::string problemText() const;
};

/// Loads the catalog with the user overlay (read through gp::readTextFileBounded,
/// at most 16 MiB). A bad overlay never fails the load: the built-in catalog is
/// used and the problem reported; `policy` says whether it is also set aside.
UserCatalogLoad loadCatalogWithUserOverlay(BadOverlay policy);


} // namespace gp
