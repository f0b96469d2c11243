#include "reportcli.h"

#include "reportbuilder.h"
#include "settings.h"

#include "core/estimate.h"

#include <QApplication>
#include <QString>

#include <cstdlib>

namespace gp::ui {

gp::cli::ReportWriter makeHeadlessReportWriter(int argc, char** argv)
{
    return [argc, argv](const gp::Scenario& scenario, const gp::Catalog& catalog, const std::string& outPath) -> std::string {
        // Qt Charts are QGraphicsWidgets, so the report needs a QApplication (a
        // QGuiApplication is not enough); it is created only now, and offscreen
        // when nothing says which display to use.
        // Deliberately never destroyed: tearing a QApplication down during static
        // destruction (after main returns) crashes; the process is ending anyway.
        static int appArgc = 1;
        if (!QCoreApplication::instance()) {
            const bool platformSet = std::getenv("QT_QPA_PLATFORM") && *std::getenv("QT_QPA_PLATFORM");
            const bool display = (std::getenv("DISPLAY") && *std::getenv("DISPLAY")) ||
                                 (std::getenv("WAYLAND_DISPLAY") && *std::getenv("WAYLAND_DISPLAY"));
            if (!platformSet && !display)
                qputenv("QT_QPA_PLATFORM", "offscreen");
            appArgc = argc > 0 ? 1 : 0;
            new QApplication(appArgc, argv); // becomes QCoreApplication::instance()
            QCoreApplication::setOrganizationName(QStringLiteral("GPU Planner"));
            QCoreApplication::setApplicationName(QStringLiteral("GPU Planner"));
        }
        // Throws InputError for unknown GPU ids; the CLI reports it as bad input.
        const gp::Estimate est = gp::estimate(scenario, catalog);
        ReportBuilder builder(scenario, est, catalog);
        builder.setCurrency(Settings().currencySymbol());
        const QString error = builder.write(QString::fromStdString(outPath));
        return error.toStdString();
    };
}

} // namespace gp::ui
