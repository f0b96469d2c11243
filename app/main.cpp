// gpuplanner: the desktop app. Thin: everything testable lives in ui/ (gpuplanner_ui).
#include "ui/mainwindow.h"
#include "ui/settings.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QIcon>

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("GPU Planner"));
    QApplication::setApplicationName(QStringLiteral("GPU Planner"));
    QApplication::setApplicationDisplayName(QStringLiteral("GPU Planner"));
    QApplication::setApplicationVersion(gp::ui::applicationVersion());
    QApplication::setDesktopFileName(QStringLiteral("gpuplanner"));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/gpuplanner.svg")));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Which GPU to rent or buy, and how many, for training and inference"));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("file"), QStringLiteral("A scenario (.gpuplan.json) to open"), QStringLiteral("[file]"));
    parser.process(app);

    gp::ui::MainWindow window;
    window.show();
    // A session that crashed left an autosave: offer it before anything else.
    window.offerRecovery();
    if (!parser.positionalArguments().isEmpty() && window.maybeSave())
        window.openFile(parser.positionalArguments().constFirst());
    return QApplication::exec();
}
