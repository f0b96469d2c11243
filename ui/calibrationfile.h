#pragma once
#include <QString>

#include <memory>

namespace gp {
struct Calibration;
}

namespace gp::ui {

/// The constants the app estimates with: the built-in table or a user's file
/// (same schema as resources/calibration/builtin-calibration.json).
struct CalibrationChoice {
    std::shared_ptr<const gp::Calibration> calibration; // nullptr: the built-in table
    QString path; // absolute file path; "" for the built-in table
};

/// Reads `path` bounded (gp::readTextFileBounded: no FIFOs, no huge files) and
/// validates it (gp::loadCalibration). On failure returns the built-in choice and
/// sets *error to one sentence naming the file and each problem (with its key
/// path, e.g. "constants[3].value"); *error is "" on success.
CalibrationChoice loadCalibrationFile(const QString& path, QString* error);

/// What the status bar and the report call a calibration: "built-in" or the file's name.
QString calibrationName(const QString& path);

} // namespace gp::ui
