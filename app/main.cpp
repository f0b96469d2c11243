// gpuplanner: the desktop app. Thin: everything testable lives in ui/ (gpuplanner_ui).
#include "ui/documentmanager.h"
#include "ui/mainwindow.h"
#include "ui/plancontroller.h"
#include "ui/plannerpage.h"
#include "ui/settings.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QIcon>
#include <QTabWidget>
#include <QTimer>

namespace {

/// Runs the event loop until the planner's background run has finished and its
/// result is the current scenario's (not "Planning..."); false after timeoutMs.
bool waitForPlan(const gp::ui::PlanController& plan, int timeoutMs)
{
    QElapsedTimer clock;
    clock.start();
    while (plan.isRunning() || plan.isStale()) {
        if (clock.elapsed() > timeoutMs)
            return false;
        QEventLoop loop;
        QObject::connect(&plan, &gp::ui::PlanController::planChanged, &loop, &QEventLoop::quit);
        QTimer::singleShot(50, &loop, &QEventLoop::quit);
        loop.exec();
    }
    return true;
}

/// Saves every tab of the window as DIR/<n>-<tab>.png and quits (docs, visual checks).
void screenshotTabs(gp::ui::MainWindow& window, const QString& dir)
{
    QDir().mkpath(dir);
    QTabWidget* tabs = window.tabs();
    for (int i = 0; i < tabs->count(); ++i) {
        tabs->setCurrentIndex(i);
        QApplication::processEvents(); // shown: the planner starts planning now
        if (tabs->widget(i) == window.plannerPage() && !waitForPlan(*window.plannerPage()->controller(), 60000)) {
            qCritical("The plan did not finish within 60 s; no screenshot of the Planner tab");
            QApplication::exit(1);
            return;
        }
        for (int k = 0; k < 5; ++k)
            QApplication::processEvents(); // lay out and paint the tab
        QString name = tabs->tabText(i).remove(QLatin1Char('&')).toLower();
        name.replace(QLatin1Char(' '), QLatin1Char('-'));
        const QString path = QDir(dir).filePath(QStringLiteral("%1-%2.png").arg(i + 1, 2, 10, QLatin1Char('0')).arg(name));
        if (!window.grab().save(path)) {
            qCritical("Cannot write %s", qPrintable(QDir::toNativeSeparators(path)));
            QApplication::exit(1);
            return;
        }
    }
    QApplication::quit();
}

} // namespace

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
    const QCommandLineOption screenshots(QStringLiteral("screenshots"),
                                         QStringLiteral("Save each tab as a PNG in <dir> and quit"), QStringLiteral("dir"));
    parser.addOption(screenshots);
    parser.process(app);

    gp::ui::MainWindow window;
    window.show();
    if (parser.isSet(screenshots)) {
        if (!parser.positionalArguments().isEmpty())
            window.documentManager()->openFile(parser.positionalArguments().constFirst());
        // After the first paint and the start-up notices.
        QTimer::singleShot(1500, &window, [&window, dir = parser.value(screenshots)] { screenshotTabs(window, dir); });
        return QApplication::exec();
    }
    // A session that crashed left an autosave: offer it before anything else.
    window.documentManager()->offerRecovery();
    if (!parser.positionalArguments().isEmpty() && window.documentManager()->maybeSave())
        window.documentManager()->openFile(parser.positionalArguments().constFirst());
    return QApplication::exec();
}
