#pragma once
// "Launch files...": the files that run a Planner option (or the scenario as it
// stands) on a serving or training engine (core/engines/launch.h), written into a
// chosen folder, each file atomically (writeFileAtomically).
#include "core/hardware/catalog.h"
#include "core/engines/launch.h"

#include <QDialog>
#include <QString>

class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;

namespace gp {
struct Calibration;
struct PlanOption;
}

namespace gp::ui {

/// Writes the files into `dir` (created when missing), each with
/// writeFileAtomically; scripts are made executable. "" on success, else the reason.
QString writeLaunchFiles(const QString& dir, const gp::LaunchFiles& files);

/// Non-modal: pick the engine (those of the workload's kind) and the folder,
/// preview the commands, write. A refusal (a precision or layout the engine
/// lacks) is shown with its reason.
class LaunchDialog final : public QDialog
{
    Q_OBJECT
public:
    LaunchDialog(gp::LaunchTarget target, const gp::Calibration* calibration, QWidget* parent = nullptr);

    QComboBox* engineCombo() const { return m_engine; }
    QLineEdit* folderEdit() const { return m_folder; }
    QPushButton* writeButton() const { return m_write; }
    QPlainTextEdit* preview() const { return m_preview; }
    QLabel* resultLabel() const { return m_result; }
    const gp::LaunchTarget& target() const { return m_target; }

    /// Writes the chosen engine's files into the folder. "" on success, else the
    /// reason (shown in the dialog too).
    QString writeFiles();

private:
    void refreshPreview();
    void browse();

    gp::LaunchTarget m_target;
    const gp::Calibration* m_calibration;
    QComboBox* m_engine = nullptr;
    QLineEdit* m_folder = nullptr;
    QPushButton* m_write = nullptr;
    QPlainTextEdit* m_preview = nullptr;
    QLabel* m_result = nullptr;
};

/// "Add my measurements...": reads the logs (core/fit/record.h) with `base` supplying
/// what they do not say, and writes recorded-<first log>.json into `dir`
/// atomically. Returns the summary lines, or sets *error (then nothing is written).
QStringList recordLogsInto(const QStringList& logs, const QString& dir, const gp::Scenario& base,
                           const gp::Catalog& catalog, QString* error);

/// Opens the dialog (non-modal, deleted on close) for a plan option of `s`, or for
/// `s` as it stands when `option` is null. Returns nullptr and shows why when the
/// target cannot be built (e.g. the scenario names several GPUs).
LaunchDialog* openLaunchDialog(QWidget* parent, const gp::Scenario& s, const gp::PlanOption* option,
                               const gp::Catalog& catalog, const gp::Calibration* calibration);

} // namespace gp::ui
