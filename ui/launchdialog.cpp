#include "launchdialog.h"

#include "atomicfile.h"

#include "core/engines/enginecatalog.h"
#include "core/base/errors.h"
#include "core/plan/planner.h"
#include "core/fit/record.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace gp::ui {

namespace {

QString problemsText(const gp::InputError& e)
{
    QStringList lines;
    for (const auto& d : e.problems())
        lines << QString::fromStdString(d.text());
    return lines.join(QLatin1Char('\n'));
}

} // namespace

QString writeLaunchFiles(const QString& dir, const gp::LaunchFiles& files)
{
    if (!QDir().mkpath(dir))
        return QObject::tr("Cannot create the folder %1").arg(dir);
    for (const auto& f : files.files) {
        const QString path = QDir(dir).filePath(QString::fromStdString(f.name));
        if (const QString problem = writeFileAtomically(path, QByteArray::fromStdString(f.text)); !problem.isEmpty())
            return path + QStringLiteral(": ") + problem;
        if (f.executable)
            QFile::setPermissions(path, QFile::permissions(path) | QFileDevice::ExeOwner | QFileDevice::ExeGroup |
                                            QFileDevice::ExeOther);
    }
    return {};
}

LaunchDialog::LaunchDialog(gp::LaunchTarget target, const gp::Calibration* calibration, QWidget* parent)
    : QDialog(parent), m_target(std::move(target)), m_calibration(calibration)
{
    setWindowTitle(tr("Launch files"));
    auto* layout = new QVBoxLayout(this);
    auto* what = new QLabel(QString::fromStdString(m_target.what));
    what->setWordWrap(true);
    layout->addWidget(what);
    auto* form = new QFormLayout;
    m_engine = new QComboBox;
    const std::string kind = m_target.scenario.mode == gp::Mode::Training ? "training" : "serving";
    for (const auto& id : gp::engineIds()) {
        const gp::EngineSpec& e = gp::engineSpec(id);
        if (e.kind == kind)
            m_engine->addItem(QString::fromStdString(e.name + " " + e.version.substr(0, e.version.find(' '))),
                              QString::fromStdString(id));
    }
    m_engine->setAccessibleName(tr("Engine"));
    form->addRow(tr("&Engine:"), m_engine);
    auto* folderRow = new QHBoxLayout;
    m_folder = new QLineEdit;
    m_folder->setAccessibleName(tr("Folder"));
    auto* browse = new QPushButton(tr("&Browse..."));
    folderRow->addWidget(m_folder, 1);
    folderRow->addWidget(browse);
    form->addRow(tr("&Folder:"), folderRow);
    layout->addLayout(form);
    m_preview = new QPlainTextEdit;
    m_preview->setReadOnly(true);
    m_preview->setAccessibleName(tr("Commands"));
    m_preview->setMinimumSize(640, 220);
    layout->addWidget(m_preview, 1);
    m_result = new QLabel;
    m_result->setWordWrap(true);
    m_result->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_result);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    m_write = buttons->addButton(tr("&Write files"), QDialogButtonBox::ActionRole);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_write, &QPushButton::clicked, this, [this] { (void)writeFiles(); });
    connect(browse, &QPushButton::clicked, this, &LaunchDialog::browse);
    connect(m_engine, &QComboBox::currentIndexChanged, this, &LaunchDialog::refreshPreview);
    refreshPreview();
}

void LaunchDialog::refreshPreview()
{
    const std::string engine = m_engine->currentData().toString().toStdString();
    try {
        const gp::LaunchFiles files = gp::generateLaunch(m_target, engine, m_calibration);
        QString text;
        for (const auto& c : files.commands)
            text += QString::fromStdString(c) + QStringLiteral("\n\n");
        for (const auto& f : files.files)
            text += QStringLiteral("# %1\n").arg(QString::fromStdString(f.name));
        m_preview->setPlainText(text);
        m_write->setEnabled(true);
        m_result->clear();
    } catch (const gp::InputError& e) {
        m_preview->setPlainText(problemsText(e));
        m_write->setEnabled(false);
        m_result->setText(tr("This engine cannot run this option."));
    }
}

void LaunchDialog::browse()
{
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Folder for the launch files"), m_folder->text());
    if (!dir.isEmpty())
        m_folder->setText(dir);
}

QString LaunchDialog::writeFiles()
{
    const QString dir = m_folder->text().trimmed();
    QString problem;
    if (dir.isEmpty()) {
        problem = tr("Choose a folder first.");
    } else {
        try {
            const gp::LaunchFiles files =
                gp::generateLaunch(m_target, m_engine->currentData().toString().toStdString(), m_calibration);
            problem = writeLaunchFiles(dir, files);
            if (problem.isEmpty()) {
                QStringList names;
                for (const auto& f : files.files)
                    names << QString::fromStdString(f.name);
                m_result->setText(tr("Wrote %1 in %2.").arg(names.join(QStringLiteral(", ")), dir));
                return {};
            }
        } catch (const gp::InputError& e) {
            problem = problemsText(e);
        }
    }
    m_result->setText(problem);
    return problem;
}

QStringList recordLogsInto(const QStringList& logs, const QString& dir, const gp::Scenario& base,
                           const gp::Catalog& catalog, QString* error)
{
    error->clear();
    std::vector<gp::LogInput> inputs;
    for (const QString& path : logs) {
        QString problem;
        const QByteArray bytes = readFileBounded(path, kMaxReadBytes, &problem);
        if (!problem.isEmpty()) {
            *error = path + QStringLiteral(": ") + problem;
            return {};
        }
        inputs.push_back({path.toStdString(), bytes.toStdString()});
    }
    gp::RecordResult result;
    try {
        result = gp::recordLogs(inputs, base, catalog);
    } catch (const gp::InputError& e) {
        *error = problemsText(e);
        return {};
    }
    gp::LaunchFiles out;
    const std::string name = "recorded-" + QFileInfo(logs.value(0)).completeBaseName().toStdString() + ".json";
    out.files.push_back({name, result.json, false});
    if (const QString problem = writeLaunchFiles(dir, out); !problem.isEmpty()) {
        *error = problem;
        return {};
    }
    QStringList lines;
    for (const auto& l : result.summary)
        lines << QString::fromStdString(l);
    lines << QObject::tr("Wrote %1 in %2: validate and calibrate read it (Settings: calibration file).")
                 .arg(QString::fromStdString(name), dir);
    return lines;
}

LaunchDialog* openLaunchDialog(QWidget* parent, const gp::Scenario& s, const gp::PlanOption* option,
                               const gp::Catalog& catalog, const gp::Calibration* calibration)
{
    try {
        gp::LaunchTarget t = option ? gp::launchTargetForOption(s, *option, catalog, calibration)
                                    : gp::launchTargetForScenario(s, catalog, calibration);
        auto* d = new LaunchDialog(std::move(t), calibration, parent);
        d->setAttribute(Qt::WA_DeleteOnClose);
        d->show();
        return d;
    } catch (const gp::InputError& e) {
        QMessageBox::information(parent, QObject::tr("Launch files"), problemsText(e));
        return nullptr;
    }
}

} // namespace gp::ui
