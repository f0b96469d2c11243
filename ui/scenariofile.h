#pragma once
#include "core/scenario.h"

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
/// Writes atomically (QSaveFile): on failure the old file is untouched. Returns an error, "" on success.
QString saveScenarioFile(const gp::Scenario& s, const QString& path);
/// Writes bytes atomically; returns an error, "" on success.
QString writeFileAtomically(const QString& path, const QByteArray& bytes);

} // namespace gp::ui
