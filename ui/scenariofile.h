#pragma once
#include "core/scenario/scenario.h"

#include <QString>
#include <QStringList>

#include <optional>

namespace gp::ui {

struct LoadedScenario {
    std::optional<gp::Scenario> scenario; // unset on failure
    QString error;                        // every problem, each naming its key path
    QStringList warnings;                 // unknown keys and other non-fatal notes
};

/// Reads and validates a .gpuplan.json file.
LoadedScenario loadScenarioFile(const QString& path);
/// Writes atomically (writeFileAtomically): on failure the old file is untouched. Returns an error, "" on success.
QString saveScenarioFile(const gp::Scenario& s, const QString& path);

/// Moves a file out of the way without deleting it: renames `path` to
/// "<path>.<tag>" (or "<path>.<tag>-2", "-3", ... when that name is taken), so
/// nothing is lost and the next start does not trip over it again. Returns the
/// new path; "" on failure, with *error set.
QString setFileAside(const QString& path, const QString& tag, QString* error = nullptr);
/// The first free name of "<path>.<tag>", "<path>.<tag>-2", ... (what setFileAside renames to).
QString asidePath(const QString& path, const QString& tag);
/// The tag for a file that could not be read: "corrupt-<yyyyMMdd-HHmmss>".
QString corruptTag();

} // namespace gp::ui
