#pragma once
#include "core/hardware/catalog.h"
#include "core/plan/planner.h"
#include "core/scenario/scenario.h"

#include <QElapsedTimer>
#include <QFutureWatcher>
#include <QObject>
#include <QString>

#include <memory>

class QTimer;

namespace gp::ui {

class EstimateController;
class ScenarioModel;

/// Runs gp::plan for the scenario being edited, off the GUI thread (a whole-
/// catalog training plan takes up to a few hundred ms), and only while someone
/// looks at it: edits while inactive just mark the plan stale. Bursts of edits
/// are coalesced with a single-shot timer; an edit during a run restarts it when
/// it ends, so the result always belongs to the latest scenario.
class PlanController final : public QObject
{
    Q_OBJECT
public:
    static constexpr int kCoalesceMs = 120;
    /// Which GPUs to search: the scenario's (none ticked = all) or the whole catalog.
    enum class Scope { Scenario, WholeCatalog };

    /// The catalog is the estimate controller's (user overlay included).
    PlanController(ScenarioModel* scenario, EstimateController* estimates, QObject* parent = nullptr);
    ~PlanController() override;

    const gp::PlanResult& result() const { return m_result; }
    /// The estimate controller whose catalog and calibration the plan uses.
    EstimateController* estimates() const { return m_estimates; }
    /// The scenario the result was planned for (its mode decides what an option sets).
    const gp::Scenario& plannedScenario() const { return m_planned; }
    /// Why there is no plan ("" when the last run succeeded).
    QString error() const { return m_error; }
    bool isRunning() const { return m_running; }
    /// The scenario changed since the result was computed.
    bool isStale() const { return m_stale; }
    /// Wall time of the last run, ms.
    double lastRunMs() const { return m_lastMs; }
    bool hasResult() const { return m_hasResult; }
    /// When nothing fits: the runtime that would give options, as a sentence
    /// ("Switch the runtime to Serving engine: 737 options fit."); "" otherwise.
    QString suggestion() const { return m_suggestion; }

    Scope scope() const { return m_scope; }
    void setScope(Scope s);
    int top() const { return m_top; }
    void setTop(int top);

    /// Recompute on changes only while active (the planner tab is visible).
    void setActive(bool active);
    bool isActive() const { return m_active; }

    /// Plan now, synchronously (tests, report export); waits for a run in flight.
    void recomputeNow();
    /// Plan in the background after kCoalesceMs.
    void schedule();

signals:
    void runningChanged(bool running);
    /// A new result (or error) is available.
    void planChanged();

private:
    struct Outcome {
        gp::PlanResult result;
        QString error;
        QString suggestion;
        double ms = 0;
    };
    static Outcome run(const gp::Scenario& s, const gp::Catalog& catalog, const gp::Calibration* calibration, int top);
    static QString runtimeSuggestion(const gp::Scenario& s, const gp::Catalog& catalog, const gp::Calibration* calibration);
    gp::Scenario scenarioToPlan() const;
    bool invalidScenario();
    void start();
    void finished();
    void adopt(Outcome o, const gp::Scenario& s);
    void markStale();

    ScenarioModel* m_scenario;
    EstimateController* m_estimates;
    QTimer* m_timer;
    QFutureWatcher<Outcome> m_watcher;
    gp::PlanResult m_result;
    gp::Scenario m_planned;
    gp::Scenario m_inFlight;
    QString m_error;
    QString m_suggestion;
    Scope m_scope = Scope::Scenario;
    int m_top = 10;
    double m_lastMs = 0;
    bool m_active = false;
    bool m_stale = true;
    bool m_running = false;
    bool m_rerun = false; // the scenario changed while a run was in flight
    bool m_hasResult = false;
};

} // namespace gp::ui
