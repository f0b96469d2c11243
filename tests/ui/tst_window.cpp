// The main window's size and place: the first window fits the screen, a stored
// geometry comes back on a visible screen, and a settings file with absurd
// window or splitter sizes is set aside instead of being applied.
#include "ui/documentmanager.h"
#include "ui/mainwindow.h"
#include "ui/settings.h"
#include "ui/windowgeometry.h"

#include <QDataStream>
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QGuiApplication>
#include <QLabel>
#include <QScreen>
#include <QSettings>
#include <QSplitter>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include <numeric>

using namespace gp::ui;

namespace {

/// What QWidget::saveGeometry() writes (version 3), with any rectangles.
QByteArray geometryBytes(const QRect& frame, const QRect& normal)
{
    QByteArray out;
    QDataStream s(&out, QIODevice::WriteOnly);
    s.setVersion(QDataStream::Qt_4_0);
    s << quint32(0x1D9D0CB) << quint16(3) << quint16(0) << frame << normal << qint32(0) << quint8(0) << quint8(0)
      << qint32(1920) << normal;
    return out;
}

/// What QSplitter::saveState() writes, with any sizes.
QByteArray splitterBytes(const QList<int>& sizes)
{
    QByteArray out;
    QDataStream s(&out, QIODevice::WriteOnly);
    s.setVersion(QDataStream::Qt_5_0);
    s << qint32(0xff) << qint32(1) << sizes << sizes << true << qint32(-1) << true << qint32(Qt::Horizontal);
    return out;
}

} // namespace

class TestWindow : public QObject
{
    Q_OBJECT
private:
    std::unique_ptr<QTemporaryDir> m_dir;

private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
    void init() { m_dir = std::make_unique<QTemporaryDir>(); }

    void theWindowFitsA1366x768Screen()
    {
        // The test's screen (see main()) is a 1366x768 laptop's.
        const QRect available = QGuiApplication::primaryScreen()->availableGeometry();
        QCOMPARE(available.size(), QSize(1366, 768));
        MainWindow w(std::make_unique<Settings>(m_dir->filePath(QStringLiteral("settings.ini"))));
        QCOMPARE(w.geometry(), initialWindowGeometry(available));
        QVERIFY(w.minimumSizeHint().width() <= w.width());
        QVERIFY(w.minimumSizeHint().height() <= w.height());
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(available.contains(w.geometry()));
    }

    void theWindowShrinksToA1024x600Screen()
    {
        // Issue 19: everything usable at 1024x600. The first window takes 90% of the
        // screen (921x540), so no page may ask for more than that: the planner's
        // table once forced 672 px and pushed the status bar off the screen.
        MainWindow w(std::make_unique<Settings>(m_dir->filePath(QStringLiteral("settings.ini"))));
        const QSize least = w.minimumSizeHint();
        QVERIFY2(least.width() <= 921 && least.height() <= 540,
                 qPrintable(QStringLiteral("%1x%2").arg(least.width()).arg(least.height())));
        QCOMPARE(initialWindowGeometry(QRect(0, 0, 1024, 600)).size(), QSize(921, 540));
    }

    void thePlannerTabIsReadableOnA1366x768Screen()
    {
        // Seen under Xvfb at 1366x768: the plan's status line wrapped into a column of
        // single words beside the controls, and the ranked table showed one row.
        MainWindow w(std::make_unique<Settings>(m_dir->filePath(QStringLiteral("settings.ini"))));
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QTableView* table = nullptr;
        for (auto* t : w.findChildren<QTableView*>())
            if (t->accessibleName() == QStringLiteral("Plan options, ranked"))
                table = t;
        QVERIFY(table);
        auto* tabs = w.findChild<QTabWidget*>();
        QVERIFY(tabs);
        for (int i = 0; i < tabs->count(); ++i)
            if (tabs->widget(i)->isAncestorOf(table))
                tabs->setCurrentIndex(i);
        QVERIFY(table->isVisible());
        QTRY_VERIFY_WITH_TIMEOUT(table->model()->rowCount() >= 5, 60000);
        QApplication::processEvents();
        // Four rows (rank 1 to 4) fit the table's viewport.
        QVERIFY2(table->rowAt(table->viewport()->height() - 1) >= 3 || table->rowAt(table->viewport()->height() - 1) < 0,
                 qPrintable(QStringLiteral("last visible row %1").arg(table->rowAt(table->viewport()->height() - 1))));
        // The status line ("N configurations estimated, ...") spans the page, one or two lines.
        QLabel* status = nullptr;
        for (auto* l : tabs->currentWidget()->findChildren<QLabel*>())
            if (l->text().contains(QStringLiteral("configurations estimated")))
                status = l;
        QVERIFY(status);
        QVERIFY2(status->width() >= tabs->currentWidget()->width() / 2, qPrintable(QString::number(status->width())));
        QVERIFY(status->height() <= 3 * status->fontMetrics().lineSpacing());
    }

    void firstWindowFitsTheScreen()
    {
        // A 1366x768 laptop (a 32-pixel panel at the bottom): 90% of the area, centred.
        const QRect laptop(0, 0, 1366, 736);
        const QRect r = initialWindowGeometry(laptop);
        QCOMPARE(r.size(), QSize(1229, 662));
        QVERIFY(laptop.contains(r));
        QVERIFY(std::abs(r.center().x() - laptop.center().x()) <= 1);
        // A full-HD screen has room for the designed size.
        QCOMPARE(initialWindowGeometry(QRect(0, 0, 1920, 1050)).size(), QSize(1500, 940));
        // A second screen to the right.
        const QRect right(1920, 0, 1366, 768);
        QVERIFY(right.contains(initialWindowGeometry(right)));
    }

    void storedGeometryIsClampedOntoTheScreen()
    {
        const QRect area(0, 0, 1366, 736);
        QCOMPARE(clampToArea(QRect(1200, 600, 800, 500), area), QRect(566, 236, 800, 500));
        QCOMPARE(clampToArea(QRect(-3000, -50, 2000, 1000), area), QRect(0, 0, 1366, 736));
        QCOMPARE(clampToArea(QRect(100, 100, 800, 500), area), QRect(100, 100, 800, 500));
    }

    void storedStatesAreCheckedBeforeUse()
    {
        QWidget w;
        w.setGeometry(100, 120, 800, 600);
        const auto g = storedWindowGeometry(w.saveGeometry());
        QVERIFY(g.has_value());
        QCOMPARE(g->size(), QSize(800, 600));
        QVERIFY(!storedWindowGeometry(geometryBytes(QRect(0, 0, 200000, 90000), QRect(0, 0, 200000, 90000))));
        QVERIFY(!storedWindowGeometry(geometryBytes(QRect(-500000, 0, 800, 600), QRect(-500000, 0, 800, 600))));
        QVERIFY(!storedWindowGeometry(QByteArray("not a geometry at all, but long enough to be read")));
        QVERIFY(storedWindowGeometry(geometryBytes(QRect(10, 10, 800, 600), QRect(10, 10, 800, 600))));

        QSplitter split;
        split.addWidget(new QLabel(QStringLiteral("a")));
        split.addWidget(new QLabel(QStringLiteral("b")));
        // Never shown: Qt stores -1 for panes not laid out yet; not damage.
        QCOMPARE(*storedSplitterSizes(split.saveState(), 2), (QList<int>{-1, -1}));
        QCOMPARE(*storedSplitterSizes(splitterBytes({400, 700}), 2), (QList<int>{400, 700}));
        QVERIFY(!storedSplitterSizes(splitterBytes({400, 700}), 3));       // wrong count
        QVERIFY(!storedSplitterSizes(splitterBytes({-20, 700}), 2));       // negative
        QVERIFY(!storedSplitterSizes(splitterBytes({400, 50000000}), 2));  // absurd
        QVERIFY(!storedSplitterSizes(QByteArray("\x00\x00\x00\x01", 4), 2));
        // Damage to set aside: the right kind of state with absurd values.
        QVERIFY(isDamagedSplitterState(splitterBytes({400, 50000000}), 2));
        QVERIFY(!isDamagedSplitterState(splitterBytes({400, 700}), 2));
        QVERIFY(!isDamagedSplitterState(QByteArray("\x01\x02", 2), 2)); // not a splitter state: Qt ignores it
        QVERIFY(isDamagedWindowGeometry(geometryBytes(QRect(0, 0, 200000, 90000), QRect(0, 0, 200000, 90000))));
        QVERIFY(!isDamagedWindowGeometry(w.saveGeometry()));
        QVERIFY(!isDamagedWindowGeometry(QByteArray("\x01\x02", 2)));
    }

    void aDamagedSettingsFileIsSetAside()
    {
        const QString ini = m_dir->filePath(QStringLiteral("settings.ini"));
        {
            QSettings s(ini, QSettings::IniFormat);
            s.setValue(QStringLiteral("window/geometry"),
                       geometryBytes(QRect(-90000, -90000, 99999, 99999), QRect(5, 5, 3000000, 3000000)));
            s.setValue(QStringLiteral("window/splitter"), splitterBytes({40000000, -5}));
            s.setValue(QStringLiteral("display/currencySymbol"), QStringLiteral("€"));
        }
        MainWindow w(std::make_unique<Settings>(ini));
        QStringList notices;
        w.setNotifier([&](const QString& t, const QString& m) { notices << t + QStringLiteral(": ") + m; });
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QCoreApplication::processEvents();
        // Set aside, said, and the defaults used.
        const QStringList aside = QDir(m_dir->path()).entryList({QStringLiteral("settings.ini.corrupt-*")}, QDir::Files);
        QCOMPARE(aside.size(), 1);
        QCOMPARE(w.startupProblems().size(), 1);
        QVERIFY2(w.startupProblems()[0].contains(QStringLiteral("window/geometry, window/splitter")),
                 qPrintable(w.startupProblems()[0]));
        QVERIFY(w.startupProblems()[0].contains(aside[0]));
        QCOMPARE(notices.size(), 1);
        // The status bar names the files, not their folders.
        QVERIFY(!w.statusBar()->currentMessage().contains(m_dir->path()));
        QVERIFY(w.statusBar()->currentMessage().contains(aside[0]));
        // On screen, every pane visible.
        const QRect available = w.screen()->availableGeometry();
        QVERIFY2(available.contains(w.geometry()), qPrintable(QStringLiteral("%1,%2 %3x%4")
                                                                   .arg(w.x()).arg(w.y()).arg(w.width()).arg(w.height())));
        const auto* split = qobject_cast<QSplitter*>(w.centralWidget());
        QVERIFY(split);
        for (const int size : split->sizes())
            QVERIFY(size > 0 && size < w.width());
        // The good values stay; the bad ones are gone from the file.
        Settings again(ini);
        QVERIFY(again.loadProblems().isEmpty());
        QCOMPARE(again.currencySymbol(), QStringLiteral("€"));
        QVERIFY(again.windowGeometry().isEmpty());
        QVERIFY(again.splitterState().isEmpty());
    }

    void theLastGeometryComesBack()
    {
        const QString ini = m_dir->filePath(QStringLiteral("settings.ini"));
        const QRect available = QGuiApplication::primaryScreen()->availableGeometry();
        {
            MainWindow first(std::make_unique<Settings>(ini));
            QVERIFY(available.contains(first.geometry()));
            QCOMPARE(first.size(), initialWindowGeometry(available).size());
            first.show();
            QVERIFY(QTest::qWaitForWindowExposed(&first));
            first.setGeometry(available.left() + 20, available.top() + 30, 1250, 700);
            first.close();
        }
        MainWindow second(std::make_unique<Settings>(ini));
        QVERIFY(second.startupProblems().isEmpty());
        QCOMPARE(second.size(), QSize(1250, 700));
        QVERIFY(available.contains(second.geometry()));
    }

    void theStatusBarNamesSavedFilesNotTheirFolders()
    {
        MainWindow w(std::make_unique<Settings>(m_dir->filePath(QStringLiteral("settings.ini"))));
        w.setErrorReporter([](const QString& t, const QString& m) { QFAIL(qPrintable(t + QStringLiteral(": ") + m)); });
        QVERIFY(QDir(m_dir->path()).mkpath(QStringLiteral("plans/q3")));
        const QString folder = QDir::toNativeSeparators(m_dir->filePath(QStringLiteral("plans/q3")));
        const QString plan = m_dir->filePath(QStringLiteral("plans/q3/llama.gpuplan.json"));
        QVERIFY(w.documentManager()->saveTo(plan));
        QCOMPARE(w.statusBar()->currentMessage(), QStringLiteral("Saved llama.gpuplan.json"));
        QCOMPARE(w.statusBar()->toolTip(), QDir::toNativeSeparators(plan)); // the full path, on demand
        const QString csv = m_dir->filePath(QStringLiteral("plans/q3/estimate.csv"));
        QVERIFY(w.exportCsv(csv));
        QCOMPARE(w.statusBar()->currentMessage(), QStringLiteral("CSV written: estimate.csv"));
        QVERIFY(!w.statusBar()->currentMessage().contains(folder));
        QCOMPARE(w.statusBar()->toolTip(), QDir::toNativeSeparators(csv));
        const QString pdf = m_dir->filePath(QStringLiteral("plans/q3/report.pdf"));
        QVERIFY(w.exportReport(pdf));
        QVERIFY2(w.statusBar()->currentMessage().startsWith(QStringLiteral("Report written: report.pdf (")),
                 qPrintable(w.statusBar()->currentMessage()));
        QVERIFY(!w.statusBar()->currentMessage().contains(folder));
        QVERIFY(w.documentManager()->openFile(plan));
        QCOMPARE(w.statusBar()->currentMessage(), QStringLiteral("Opened llama.gpuplan.json"));
        // The tooltip belongs to its message: gone when the message goes.
        w.statusBar()->clearMessage();
        QCOMPARE(w.statusBar()->toolTip(), QString());
    }
};

int main(int argc, char** argv)
{
    // An offscreen screen the size of a 1366x768 laptop's.
    QTemporaryDir dir;
    const QString config = dir.filePath(QStringLiteral("screens.json"));
    QFile f(config);
    if (!f.open(QIODevice::WriteOnly) ||
        f.write(R"({"screens": [{"name": "laptop", "x": 0, "y": 0, "width": 1366, "height": 768, "logicalDpi": 96,
                   "logicalBaseDpi": 96, "dpr": 1}]})") < 0)
        return 2;
    f.close();
    qputenv("QT_QPA_PLATFORM", "offscreen:configfile=" + config.toLocal8Bit());
    QApplication app(argc, argv);
    TestWindow test;
    QTEST_SET_MAIN_SOURCE_PATH
    return QTest::qExec(&test, argc, argv);
}
#include "tst_window.moc"
