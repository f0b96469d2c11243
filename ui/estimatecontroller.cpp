#include "estimatecontroller.h"
#include "reportrecommendation.h"

#include "format.h"
#include "scenariomodel.h"

#include "core/base/errors.h"
#include "core/base/units.h"
#include "core/estimate/confidence.h"

#include <QTimer>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace gp::ui {

EstimateController::EstimateController(ScenarioModel* scenario, QObject* parent)
    : QObject(parent)
    , m_scenario(scenario)
    , m_catalog(gp::Catalog::builtin())
    , m_timer(new QTimer(this))
{
    m_timer->setSingleShot(true);
    m_timer->setInterval(kCoalesceMs);
    connect(m_timer, &QTimer::timeout, this, &EstimateController::recomputeNow);
    connect(m_scenario, &ScenarioModel::changed, this, &EstimateController::scheduleRecompute);
}

void EstimateController::setCatalog(const gp::Catalog& catalog)
{
    m_catalog = catalog;
    emit catalogChanged();
    recomputeNow();
}

void EstimateController::setCalibration(std::shared_ptr<const gp::Calibration> calibration, const QString& path)
{
    m_calibration = std::move(calibration);
    m_calibrationPath = m_calibration ? path : QString();
    emit calibrationChanged();
    recomputeNow();
}

void EstimateController::scheduleRecompute()
{
    m_timer->start();
}

void EstimateController::recomputeNow()
{
    m_timer->stop();
    m_error.clear();
    const auto& s = m_scenario->scenario();
    m_estimated = s;
    if (!m_scenario->isValid()) {
        QStringList lines;
        for (const auto& d : m_scenario->problems())
            lines << ScenarioModel::withLabel(d); // the field's label, as the form shows it
        m_error = lines.join(QLatin1Char('\n'));
        m_estimate = gp::Estimate{};
        m_estimate.scenario = s.name;
    } else {
        try {
            m_estimate = gp::estimate(s, m_catalog, gp::EstimateOptions{/*explain=*/false, m_calibration.get()});
        } catch (const gp::InputError& e) {
            QStringList lines;
            for (const auto& d : e.problems())
                lines << ScenarioModel::withLabel(d);
            m_error = lines.join(QLatin1Char('\n'));
            m_estimate = gp::Estimate{};
            m_estimate.scenario = s.name;
        }
    }
    emit estimateChanged();
}

gp::GpuEstimate EstimateController::explainedResult(std::size_t index) const
{
    if (index >= m_estimate.results.size())
        return {};
    const gp::GpuEstimate& r = m_estimate.results[index];
    const gp::Gpu* gpu = m_catalog.find(r.gpuId);
    if (!gpu)
        return r;
    try {
        return gp::estimateOn(m_estimated, *gpu, gp::EstimateOptions{/*explain=*/true, m_calibration.get()});
    } catch (const std::exception&) {
        return r; // cannot happen for a scenario that estimated; the numbers still stand
    }
}

gp::Estimate EstimateController::explainedEstimate() const
{
    if (!m_error.isEmpty() || m_estimate.results.empty())
        return m_estimate;
    try {
        return gp::estimate(m_estimated, m_catalog, gp::EstimateOptions{/*explain=*/true, m_calibration.get()});
    } catch (const std::exception&) {
        return m_estimate;
    }
}

std::optional<double> comparableCost(const gp::GpuEstimate& r)
{
    if (r.training) {
        if (r.training->costUsd)
            return r.training->costUsd;
        return r.usdPerHour > 0 ? std::optional<double>(r.usdPerHour) : std::nullopt;
    }
    if (r.inference) {
        if (r.inference->usdPerMillionTokens)
            return r.inference->usdPerMillionTokens;
        return r.usdPerHour > 0 ? std::optional<double>(r.usdPerHour) : std::nullopt;
    }
    return std::nullopt;
}

namespace {

const gp::GpuEstimate* firstResult(const gp::Estimate& e)
{
    return e.results.empty() ? nullptr : &e.results.front();
}

} // namespace

namespace {

std::optional<double> runCost(const gp::GpuEstimate& r)
{
    if (r.training)
        return r.training->costUsd;
    if (r.inference)
        return r.inference->usdPerMillionTokens;
    return std::nullopt;
}

} // namespace

CostBasis costBasis(const gp::Estimate& e)
{
    const bool anyRun = std::any_of(e.results.begin(), e.results.end(), [](const auto& r) { return runCost(r).has_value(); });
    return anyRun ? CostBasis::PerRun : CostBasis::PerHour;
}

std::optional<double> costOn(const gp::GpuEstimate& r, CostBasis basis)
{
    if (basis == CostBasis::PerRun)
        return runCost(r);
    return r.usdPerHour > 0 ? std::optional<double>(r.usdPerHour) : std::nullopt;
}

QString comparableCostLabel(const gp::Estimate& e)
{
    const auto* r = firstResult(e);
    if (!r)
        return QObject::tr("Cost");
    if (costBasis(e) == CostBasis::PerHour)
        return QObject::tr("Cost (USD/h)");
    return r->training ? QObject::tr("Cost to train (USD)") : QObject::tr("Cost (USD per million output tokens)");
}

QString costSuffix(const gp::Estimate& e)
{
    const auto* r = firstResult(e);
    if (!r || costBasis(e) == CostBasis::PerHour)
        return QObject::tr("/h");
    return r->training ? QString() : QObject::tr("/M tokens");
}

std::optional<double> throughputOf(const gp::GpuEstimate& r)
{
    if (r.training)
        return r.training->tokensPerS > 0 ? r.training->tokensPerS : r.training->samplesPerS;
    if (r.inference)
        return r.inference->tokensPerS ? r.inference->tokensPerS : r.inference->samplesPerS;
    return std::nullopt;
}

QString throughputUnit(const gp::Estimate& e)
{
    const auto* r = firstResult(e);
    if (r && r->training)
        return r->training->tokensPerS > 0 ? QObject::tr("tokens/s") : QObject::tr("images/s");
    if (r && r->inference)
        return r->inference->tokensPerS ? QObject::tr("output tokens/s") : QObject::tr("images/s");
    return QObject::tr("tokens/s");
}

std::optional<double> timeOf(const gp::GpuEstimate& r)
{
    if (r.training)
        return r.training->hours ? r.training->hours : std::optional<double>(r.training->stepMs);
    if (r.inference)
        return r.inference->tpotMs ? r.inference->tpotMs : r.inference->latencyMs;
    return std::nullopt;
}

QString timeLabel(const gp::Estimate& e)
{
    const auto* r = firstResult(e);
    if (r && r->training)
        return r->training->hours ? QObject::tr("Time to train (h)") : QObject::tr("Step time (ms)");
    if (r && r->inference)
        return r->inference->tpotMs ? QObject::tr("Time per output token (ms)") : QObject::tr("Batch latency (ms)");
    return QObject::tr("Time");
}

std::vector<int> displayOrder(const gp::Estimate& e)
{
    std::vector<int> idx(e.results.size());
    std::iota(idx.begin(), idx.end(), 0);
    std::stable_sort(idx.begin(), idx.end(), [&](int a, int b) {
        const auto& ra = e.results[static_cast<std::size_t>(a)];
        const auto& rb = e.results[static_cast<std::size_t>(b)];
        const int ka = ra.fits ? (ra.meetsTargets ? 0 : 1) : 2;
        const int kb = rb.fits ? (rb.meetsTargets ? 0 : 1) : 2;
        if (ka != kb)
            return ka < kb;
        const auto ca = comparableCost(ra);
        const auto cb = comparableCost(rb);
        if (ca.has_value() != cb.has_value())
            return ca.has_value();
        if (ca && cb && *ca != *cb)
            return *ca < *cb;
        return ra.memory.total() / std::max(1.0, ra.capacityBytes) < rb.memory.total() / std::max(1.0, rb.capacityBytes);
    });
    return idx;
}

std::optional<double> costAtConfidence(const gp::GpuEstimate& r, double confidence)
{
    const auto c = comparableCost(r);
    if (!c)
        return c;
    // A cost to train or per token grows with the time; a cost per hour does not.
    const bool speedDriven = (r.training && r.training->costUsd) || (r.inference && r.inference->usdPerMillionTokens);
    return speedDriven ? *c * gp::quantileFactor(r.uncertainty.throughput, std::max(0.5, confidence)) : *c;
}

namespace {

/// The cheapest option at the confidence after `except` (as recommendedIndex
/// ranks), -1 when there is none.
int bestIndexExcept(const gp::Estimate& e, int except)
{
    int best = -1;
    std::pair<bool, double> bestKey{true, 0};
    for (std::size_t i = 0; i < e.results.size(); ++i) {
        const auto& r = e.results[i];
        if (static_cast<int>(i) == except || !r.fits || !r.meetsTargets)
            continue;
        const auto c = costAtConfidence(r, e.confidence);
        if (!c)
            continue;
        const std::pair<bool, double> key{r.confidence.fits * r.confidence.meetsTargets < e.confidence - 1e-12, *c};
        if (best < 0 || key < bestKey) {
            best = static_cast<int>(i);
            bestKey = key;
        }
    }
    return best;
}

} // namespace

int recommendedIndex(const gp::Estimate& e)
{
    return bestIndexExcept(e, -1);
}

QString withinNoiseText(const gp::Estimate& e, const QString& currency)
{
    // Issue #16: where #1 wins by less than its own speed band, say so, as the
    // planner does ("within noise of #2").
    const int first = recommendedIndex(e);
    if (first < 0)
        return QString();
    const int second = bestIndexExcept(e, first);
    if (second < 0)
        return QString();
    const auto& a = e.results[static_cast<std::size_t>(first)];
    const auto& b = e.results[static_cast<std::size_t>(second)];
    const auto ca = costAtConfidence(a, e.confidence);
    const auto cb = costAtConfidence(b, e.confidence);
    if (!ca || !cb || !(*ca > 0) || a.uncertainty.throughput <= 0)
        return QString();
    if (!(std::log(*cb / *ca) < a.uncertainty.throughput))
        return QString();
    return QObject::tr("Within noise of %1x %2 (%3 at %4% confidence, against %5): the margin is less than this "
                       "estimate's +/-%6 speed uncertainty.")
        .arg(QString::number(b.count), QString::fromStdString(b.gpuName), formatMoney(*cb, currency),
             formatNumber(e.confidence * 100, 3), formatMoney(*ca, currency),
             formatNumber(a.uncertainty.throughput * 100, 2) + QStringLiteral("%"));
}

QString recommendationText(const gp::Estimate& e, const QString& currency)
{
    const int i = recommendedIndex(e);
    if (i < 0) {
        const bool anyFits = std::any_of(e.results.begin(), e.results.end(), [](const auto& r) { return r.fits; });
        if (e.results.empty())
            return QObject::tr("No estimate.");
        return anyFits ? QObject::tr("No single GPU meets every target (see the misses in each row); the Planner tab searches "
                                     "multi-GPU setups, replicas and quantization for the cheapest one that does.")
                       : QObject::tr("No GPU considered fits this job; add GPUs per job, shard with ZeRO/TP, or "
                                     "quantize.");
    }
    const auto& r = e.results[static_cast<std::size_t>(i)];
    const int fitting = static_cast<int>(
        std::count_if(e.results.begin(), e.results.end(), [](const auto& x) { return x.fits && x.meetsTargets; }));
    QString what;
    if (r.training && r.training->costUsd)
        what = QObject::tr("%1 to train in %2")
                   .arg(formatMoney(*r.training->costUsd, currency), formatHours(r.training->hours.value_or(0)));
    else if (r.inference && r.inference->usdPerMillionTokens)
        what = QObject::tr("%1 per million output tokens").arg(formatMoney(*r.inference->usdPerMillionTokens, currency));
    else
        what = QObject::tr("%1/h").arg(formatMoney(r.usdPerHour, currency));
    // One arg() call, one pass: a chained arg() would substitute again inside the text
    // already put in (a currency symbol or GPU name such as "%1%2").
    // Without targets meets_targets is exactly 1: say only how sure it is to fit.
    const bool targets = r.confidence.meetsTargets < 1;
    // Ranked as the planner ranks (recommendedIndex): say at which confidence.
    const QString ranked = e.confidence > 0.5
                               ? QObject::tr(", ranked on the cost at %1% confidence").arg(formatNumber(e.confidence * 100, 3))
                               : QString();
    return QObject::tr("%1x %2: the cheapest of %3 options that fit and meet the targets%8 — %4; uses %5 of %6 GiB per "
                       "GPU. How sure: %7.")
        .arg(QString::number(r.count), QString::fromStdString(r.gpuName), QString::number(fitting), what,
             formatNumber(gp::units::bytesToGiB(r.memory.total()), 3),
             formatNumber(gp::units::bytesToGiB(r.capacityBytes), 3), confidenceText(r, targets), ranked) +
           [&] {
               const QString noise = withinNoiseText(e, currency);
               return noise.isEmpty() ? QString() : QStringLiteral(" ") + noise;
           }();
}

std::optional<GpuChoice> rentBuyChoice(const gp::Estimate& e, const gp::Scenario& s, const gp::Catalog& catalog)
{
    const auto priced = [&](const std::string& id) {
        const gp::Gpu* g = catalog.find(id);
        return g && (g->pricePerHour.typical > 0 || g->purchaseUsd > 0);
    };
    std::vector<int> order;
    if (const int rec = recommendedIndex(e); rec >= 0)
        order.push_back(rec);
    for (const int i : displayOrder(e))
        order.push_back(i);
    for (const int i : order) {
        const auto& r = e.results[static_cast<std::size_t>(i)];
        if (priced(r.gpuId))
            return GpuChoice{r.gpuId, std::max(1, r.count)};
    }
    for (const auto& id : s.hardware.gpus)
        if (priced(id))
            return GpuChoice{id, std::max(1, s.hardware.count)};
    return std::nullopt;
}

} // namespace gp::ui
