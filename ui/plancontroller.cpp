#include "plancontroller.h"

#include "estimatecontroller.h"
#include "format.h"
#include "scenariomodel.h"

#include "core/base/errors.h"

#include <QPromise>
#include <QStringList>
#include <QThreadPool>
#include <QTimer>

#include <exception>

namespace gp::ui {

PlanController::PlanController(ScenarioModel* scenario, EstimateController* estimates, QObject* parent)
    : QObject(parent)
    , m_scenario(scenario)
    , m_estimates(estimates)
    , m_timer(new QTimer(this))
{
    m_timer->setSingleShot(true);
    m_timer->setInterval(kCoalesceMs);
    connect(m_timer, &QTimer::timeout, this, &PlanController::start);
    connect(&m_watcher, &QFutureWatcherBase::finished, this, &PlanController::finished);
    connect(m_scenario, &ScenarioModel::changed, this, &PlanController::markStale);
    connect(m_estimates, &EstimateController::catalogChanged, this, &PlanController::markStale);
    connect(m_estimates, &EstimateController::calibrationChanged, this, &PlanController::markStale);
}

PlanController::~PlanController()
{
    // The worker holds copies only, but let it end before the pool is torn down.
    m_watcher.waitForFinished();
}

void PlanController::setScope(Scope s)
{
    if (s == m_scope)
        return;
    m_scope = s;
    markStale();
}

void PlanController::setTop(int top)
{
    if (top == m_top)
        return;
    m_top = top;
    markStale();
}

void PlanController::setActive(bool active)
{
    m_active = active;
    if (m_active && m_stale && !m_running)
        schedule();
}

void PlanController::markStale()
{
    m_stale = true;
    if (m_active)
        schedule();
}

void PlanController::schedule()
{
    m_timer->start();
}

gp::Scenario PlanController::scenarioToPlan() const
{
    gp::Scenario s = m_scenario->scenario();
    if (m_scope == Scope::WholeCatalog)
        s.hardware.gpus.clear();
    return s;
}

bool PlanController::invalidScenario()
{
    if (m_scenario->isValid())
        return false;
    QStringList lines;
    for (const auto& d : m_scenario->problems())
        lines << ScenarioModel::withLabel(d);
    Outcome o;
    o.error = lines.join(QLatin1Char('\n'));
    adopt(std::move(o), m_scenario->scenario());
    return true;
}

QString PlanController::runtimeSuggestion(const gp::Scenario& s, const gp::Catalog& catalog,
                                          const gp::Calibration* calibration)
{
    // Nothing fits: would another runtime of this mode give options? (Inference on
    // "eager" often finds none where a serving engine finds hundreds.)
    std::vector<std::pair<gp::Runtime, QString>> others;
    if (s.mode == gp::Mode::Inference)
        others = {{gp::Runtime::Serving, tr("Serving engine")}, {gp::Runtime::Optimized, tr("Optimized")}};
    else
        others = {{gp::Runtime::Optimized, tr("Optimized")}};
    long long best = 0;
    QString bestName;
    for (const auto& [runtime, name] : others) {
        if (runtime == s.runtime)
            continue;
        gp::Scenario alt = s;
        alt.runtime = runtime;
        const long long feasible = gp::plan(alt, catalog, gp::PlanRequest{1, calibration}).feasible;
        if (feasible > best) {
            best = feasible;
            bestName = name;
        }
    }
    return best > 0 ? tr("Switch the runtime to %1: %2 options fit and meet the targets.")
                          .arg(bestName, formatNumber(static_cast<double>(best), 6))
                    : QString();
}

PlanController::Outcome PlanController::run(const gp::Scenario& s, const gp::Catalog& catalog,
                                           const gp::Calibration* calibration, int top)
{
    QElapsedTimer clock;
    clock.start();
    Outcome o;
    try {
        o.result = gp::plan(s, catalog, gp::PlanRequest{top, calibration});
        if (o.result.options.empty())
            o.suggestion = runtimeSuggestion(s, catalog, calibration);
    } catch (const gp::InputError& e) {
        QStringList lines;
        for (const auto& d : e.problems())
            lines << QString::fromStdString(d.text());
        o.error = lines.join(QLatin1Char('\n'));
    } catch (const std::exception& e) {
        o.error = QString::fromUtf8(e.what());
    }
    o.ms = static_cast<double>(clock.nsecsElapsed()) / 1e6;
    return o;
}

void PlanController::start()
{
    m_timer->stop();
    if (m_running)
        return; // finished() starts again: the scenario is stale
    if (invalidScenario())
        return;
    m_inFlight = scenarioToPlan();
    m_stale = false;
    m_running = true;
    emit runningChanged(true);
    auto promise = std::make_shared<QPromise<Outcome>>();
    m_watcher.setFuture(promise->future());
    promise->start();
    // The worker shares ownership of the calibration: replacing it meanwhile frees nothing in use.
    QThreadPool::globalInstance()->start([promise, s = m_inFlight, catalog = m_estimates->catalog(),
                                          calibration = m_estimates->sharedCalibration(), top = m_top] {
        promise->addResult(run(s, catalog, calibration.get(), top));
        promise->finish();
    });
}

void PlanController::finished()
{
    // A run recomputeNow() already waited for and superseded.
    if (!m_running || !m_watcher.future().isFinished() || m_watcher.future().resultCount() < 1)
        return;
    Outcome o = m_watcher.future().result();
    m_running = false;
    emit runningChanged(false);
    if (m_stale) {
        // Edited while it ran: this result describes an older scenario.
        if (m_active)
            start();
        return;
    }
    adopt(std::move(o), m_inFlight);
}

void PlanController::recomputeNow()
{
    m_timer->stop();
    if (m_running) {
        m_watcher.waitForFinished();
        m_running = false;
        emit runningChanged(false);
    }
    if (invalidScenario())
        return;
    const gp::Scenario s = scenarioToPlan();
    m_stale = false;
    adopt(run(s, m_estimates->catalog(), m_estimates->calibration(), m_top), s);
}

void PlanController::adopt(Outcome o, const gp::Scenario& s)
{
    m_result = std::move(o.result);
    m_error = std::move(o.error);
    m_suggestion = std::move(o.suggestion);
    m_planned = s;
    m_lastMs = o.ms;
    m_hasResult = m_error.isEmpty();
    m_stale = false;
    emit planChanged();
}

} // namespace gp::ui
