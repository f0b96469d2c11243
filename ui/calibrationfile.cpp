#include "calibrationfile.h"

#include "core/calibration/calibration.h"
#include "core/base/errors.h"
#include "core/base/fileread.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStringList>

#include <exception>

namespace gp::ui {

namespace {

QString tr(const char* text)
{
    return QCoreApplication::translate("CalibrationFile", text);
}

} // namespace

CalibrationChoice loadCalibrationFile(const QString& path, QString* error)
{
    error->clear();
    const QString shown = QDir::toNativeSeparators(path);
    if (path.isEmpty()) {
        *error = tr("No calibration file was named.");
        return {};
    }
    QStringList problems;
    try {
        const std::string text = gp::readTextFileBounded(QFile::encodeName(path).toStdString());
        try {
            auto loaded = std::make_shared<const gp::Calibration>(gp::loadCalibration(text));
            return {std::move(loaded), QFileInfo(path).absoluteFilePath()};
        } catch (const gp::InputError& e) {
            for (const auto& d : e.problems())
                problems << QString::fromStdString(d.text()); // "constants[3].value: ..."
        }
    } catch (const gp::InputError& e) {
        for (const auto& d : e.problems()) // the path is the file's, already named below
            problems << QString::fromStdString(gp::printable(d.message));
    } catch (const std::exception& e) {
        problems << QString::fromUtf8(e.what());
    }
    *error = tr("The calibration file %1 cannot be used: %2.").arg(shown, problems.join(QStringLiteral("; ")));
    return {};
}

QString calibrationName(const QString& path)
{
    return path.isEmpty() ? tr("built-in") : QFileInfo(path).fileName();
}

} // namespace gp::ui
