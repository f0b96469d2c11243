#pragma once
// The main window as the UI tests open it (tst_mainwindow, tst_hfimport,
// tst_scale): settings in a temporary folder, errors collected instead of shown
// in a dialog, unsaved changes discarded without a prompt, and the user's
// standard paths and catalog overlay kept out of the test.
#include "ui/documentmanager.h"
#include "ui/mainwindow.h"
#include "ui/settings.h"

#include <QMessageBox>
#include <QStandardPaths>
#include <QStringList>
#include <QTemporaryDir>
#include <QtTest>

#include <memory>

/// `class TestX : public QObject, protected WindowFixture`; initTestCase calls
/// setUpWindowTests(), init() clears m_errors.
class WindowFixture {
protected:
    QTemporaryDir m_dir;
    QStringList m_errors; // "title: message" of each error the window reported

    std::unique_ptr<gp::ui::MainWindow> makeWindow()
    {
        auto w = std::make_unique<gp::ui::MainWindow>(
            std::make_unique<gp::ui::Settings>(m_dir.filePath(QStringLiteral("settings.ini"))));
        w->setErrorReporter([this](const QString& title, const QString& msg) { m_errors << title + QStringLiteral(": ") + msg; });
        w->documentManager()->setSavePrompt([] { return int(QMessageBox::Discard); });
        return w;
    }

    void setUpWindowTests()
    {
        QVERIFY(m_dir.isValid());
        QStandardPaths::setTestModeEnabled(true);
        // Keep the user's real catalog overlay out of the tests.
        qputenv("GPUPLANNER_CATALOG_OVERLAY", m_dir.filePath(QStringLiteral("no-overlay.json")).toUtf8());
    }
};
