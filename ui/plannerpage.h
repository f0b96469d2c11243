#pragma once
#include "scenariomodel.h"

#include "core/plan/planner.h"

#include <QWidget>

#include <utility>
#include <vector>

class QComboBox;
class QLabel;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;
class QTextBrowser;

namespace gp::ui {

class LaunchDialog;
class PlanController;
class PlanTableModel;

namespace charts {
class ChartView;
}

/// The Planner tab: which GPU, how many and which layout, ranked. Shows the
/// controller's plan (table, cost-vs-time chart with the Pareto front, popular
/// GPUs that lost and why, notes) and loads an option into the scenario as one
/// undo step. Planning runs only while the tab is visible.
class PlannerPage final : public QWidget
{
    Q_OBJECT
public:
    PlannerPage(ScenarioModel* model, PlanController* controller, QWidget* parent = nullptr);

    /// The plan it shows.
    PlanController* controller() const { return m_controller; }
    ~PlannerPage() override;

    PlanTableModel* tableModel() const { return m_table; }
    QSortFilterProxyModel* proxy() const { return m_proxy; }
    QTableView* tableView() const { return m_view; }
    charts::ChartView* chartView() const { return m_chart; }
    QTextBrowser* alternativesView() const { return m_alternatives; }
    QLabel* notesLabel() const { return m_notes; }
    QLabel* statusLabel() const { return m_status; }
    /// "Best: ..." or, when nothing fits, what would help.
    QLabel* summaryLabel() const { return m_summary; }
    QPushButton* useButton() const { return m_use; }
    QComboBox* scopeCombo() const { return m_scope; }
    /// The confidence the plan ranks at (hardware.confidence; one undo step per choice).
    QComboBox* confidenceCombo() const { return m_confidence; }

    /// Loads the option in a row of the table model into the scenario (one undo
    /// step). False when the row is invalid or the scenario already is that option.
    bool useOption(int modelRow);
    /// "Launch files...": opens the non-modal launch dialog for the option in a row
    /// of the table model (ui/launchdialog.h); nullptr when the row is invalid.
    LaunchDialog* launchFiles(int modelRow);
    QPushButton* launchButton() const { return m_launch; }
    /// The option selected in the view (its model row), -1 when none.
    int selectedRow() const;

    void setCurrency(const QString& symbol);

signals:
    /// Something to tell the user in the status bar.
    void message(const QString& text);

protected:
    void showEvent(QShowEvent* event) override;
    void hideEvent(QHideEvent* event) override;

private:
    void showPlan();
    void showRunning(bool running);
    void selectionChanged();
    void showConfidence();

    ScenarioModel* m_model;
    PlanController* m_controller;
    PlanTableModel* m_table;
    QSortFilterProxyModel* m_proxy;
    QTableView* m_view = nullptr;
    QComboBox* m_scope = nullptr;
    QComboBox* m_confidence = nullptr;
    QPushButton* m_planNow = nullptr;
    QPushButton* m_launch = nullptr;
    QLabel* m_status = nullptr;
    QLabel* m_summary = nullptr;
    QLabel* m_why = nullptr;
    QPushButton* m_use = nullptr;
    charts::ChartView* m_chart = nullptr;
    QTextBrowser* m_alternatives = nullptr;
    QLabel* m_notes = nullptr;
    QString m_currency = QStringLiteral("$");
    bool m_sized = false;
};

/// The scenario edits that load a plan option: mode, hardware.gpus = {gpu},
/// hardware.mig (the option's slice, "" for whole GPUs), count, tp, pp, zero,
/// and the precision and batch of `mode` (training: also micro-batch,
/// accumulation and checkpointing).
std::vector<std::pair<ScenarioModel::Field, QVariant>> planOptionEdits(const gp::PlanOption& o, gp::Mode mode);
/// Applies planOptionEdits as one undo step; false when there is nothing to apply.
bool applyPlanOption(ScenarioModel* model, const gp::PlanOption& o, gp::Mode mode);

} // namespace gp::ui
