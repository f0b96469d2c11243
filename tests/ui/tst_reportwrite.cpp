// `gpuplanner-cli report -o`: the PDF is written all or nothing (issue #9). A
// failed write leaves the previous file byte for byte and no temporary behind;
// a device target is written into (never replaced) with every write checked.
#include "ui/reportcli.h"

#include "app/cli/cli.h"
#include "core/scenario/scenario.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <sstream>

namespace {

QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray("(unreadable)");
}

bool writeFile(const std::string& path, const QByteArray& bytes)
{
    QFile f(QString::fromStdString(path));
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size() && f.flush();
}

} // namespace

class TestReportWrite : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;

private slots:
    void failedProduceLeavesThePreviousFile()
    {
        const QString out = m_dir.filePath(QStringLiteral("a/report.pdf"));
        QVERIFY(QDir().mkpath(m_dir.filePath(QStringLiteral("a"))));
        const QByteArray previous("%PDF-1.4 previous report\n%%EOF\n");
        QVERIFY(writeFile(out.toStdString(), previous));

        // The producer writes half a file, then fails (a disk that filled up).
        std::string seenPath;
        const std::string error = gp::ui::writeAllOrNothing(out.toStdString(), [&](const std::string& p) {
            seenPath = p;
            writeFile(p, "%PDF-1.4 half");
            return std::string("No space left on device");
        });
        QCOMPARE(error, std::string("No space left on device"));
        QCOMPARE(readAll(out), previous);
        // The temporary was in the target's directory, and is gone.
        QCOMPARE(QFileInfo(QString::fromStdString(seenPath)).absolutePath(), QFileInfo(out).absolutePath());
        QCOMPARE(QDir(m_dir.filePath(QStringLiteral("a"))).entryList(QDir::Files | QDir::Hidden),
                 QStringList{QStringLiteral("report.pdf")});

        // An empty result is a failure too.
        QCOMPARE(gp::ui::writeAllOrNothing(out.toStdString(), [](const std::string&) { return std::string(); }),
                 std::string("nothing was written"));
        QCOMPARE(readAll(out), previous);

        // A complete write replaces it, keeping the old file's mode.
        QVERIFY(QFile::setPermissions(out, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ReadGroup));
        QCOMPARE(gp::ui::writeAllOrNothing(out.toStdString(),
                                           [](const std::string& p) {
                                               return writeFile(p, "%PDF-1.4 new\n%%EOF\n") ? std::string()
                                                                                            : std::string("write");
                                           }),
                 std::string());
        QCOMPARE(readAll(out), QByteArray("%PDF-1.4 new\n%%EOF\n"));
        QCOMPARE(QFile::permissions(out) & ~(QFileDevice::ReadUser | QFileDevice::WriteUser),
                 QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ReadGroup);
        QCOMPARE(QDir(m_dir.filePath(QStringLiteral("a"))).entryList(QDir::Files | QDir::Hidden),
                 QStringList{QStringLiteral("report.pdf")});
    }

    void deviceTargetsAreWrittenIntoAndChecked()
    {
        auto produce = [](const std::string& p) {
            return writeFile(p, QByteArray(100000, 'x')) ? std::string() : std::string("write");
        };
        QCOMPARE(gp::ui::writeAllOrNothing("/dev/full", produce), std::string("cannot write: No space left on device"));
        QCOMPARE(gp::ui::writeAllOrNothing("/dev/null", produce), std::string());
        QVERIFY(QFileInfo(QStringLiteral("/dev/null")).exists() && !QFileInfo(QStringLiteral("/dev/null")).isFile());
    }

    void cliReportOntoDevFullIsExit1()
    {
        qputenv("GPUPLANNER_CATALOG_OVERLAY", m_dir.filePath(QStringLiteral("none.json")).toUtf8());
        gp::Scenario s = gp::defaultScenario();
        s.hardware.gpus = {"nvidia-h100-sxm"};
        const std::string scenario = m_dir.filePath(QStringLiteral("s.gpuplan.json")).toStdString();
        QVERIFY(writeFile(scenario, QByteArray::fromStdString(gp::scenarioToJson(s))));
        char arg0[] = "gpuplanner-cli";
        char* argv[] = {arg0, nullptr};
        gp::cli::Hooks hooks;
        hooks.report = gp::ui::makeHeadlessReportWriter(1, argv);
        std::ostringstream out;
        std::ostringstream err;
        QCOMPARE(gp::cli::run({"report", scenario, "-o", "/dev/full"}, out, err, hooks), 1);
        QCOMPARE(err.str(), std::string("/dev/full: cannot write: No space left on device\n"));
    }
};

QTEST_MAIN(TestReportWrite)
#include "tst_reportwrite.moc"
