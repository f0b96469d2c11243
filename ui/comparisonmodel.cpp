#include "comparisonmodel.h"

#include "estimatecontroller.h"
#include "format.h"
#include "palette.h"

#include "core/base/units.h"

#include <QFont>

#include <algorithm>
#include <cmath>
#include <map>

namespace gp::ui {

ComparisonModel::ComparisonModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void ComparisonModel::setEstimate(const gp::Estimate& e)
{
    beginResetModel();
    m_estimate = e;
    rebuild();
    endResetModel();
}

void ComparisonModel::setGpuIds(const QStringList& ids)
{
    beginResetModel();
    m_ids = ids.mid(0, kMaxGpus);
    rebuild();
    endResetModel();
}

QStringList ComparisonModel::gpuIds() const
{
    return m_ids;
}

void ComparisonModel::setCurrency(const QString& symbol)
{
    beginResetModel();
    m_currency = symbol;
    rebuild();
    endResetModel();
}

const gp::GpuEstimate& ComparisonModel::result(int column) const
{
    return m_estimate.results[static_cast<std::size_t>(m_columns[static_cast<std::size_t>(column)])];
}

void ComparisonModel::rebuild()
{
    m_columns.clear();
    for (const auto& id : m_ids) {
        for (std::size_t i = 0; i < m_estimate.results.size(); ++i)
            if (QString::fromStdString(m_estimate.results[i].gpuId) == id) {
                m_columns.push_back(static_cast<int>(i));
                break;
            }
    }
    m_rows.clear();
    m_best.clear();
    const std::size_t n = m_columns.size();
    if (n == 0)
        return;
    auto addRow = [&](const QString& label, Better better, auto get, bool money = false, std::string termKey = {}) {
        Row r;
        r.label = label;
        r.termKey = std::move(termKey);
        r.better = better;
        r.money = money;
        for (std::size_t c = 0; c < n; ++c) {
            r.values.push_back(get(result(static_cast<int>(c))));
            r.text.emplace_back();
            r.tooltip.emplace_back();
        }
        m_rows.push_back(std::move(r));
    };
    using G = gp::GpuEstimate;
    using O = std::optional<double>;
    const G& first = result(0);
    const bool training = first.training.has_value();
    {
        Row fits;
        fits.label = tr("Fits and meets targets");
        for (std::size_t c = 0; c < n; ++c) {
            const G& g = result(static_cast<int>(c));
            fits.values.push_back(g.fits ? (g.meetsTargets ? 2 : 1) : 0);
            fits.text.push_back(g.fits ? (g.meetsTargets ? tr("yes") : tr("fits, misses a target")) : tr("does not fit"));
            QStringList why;
            for (const auto& m : g.targetMisses)
                why << QString::fromStdString(m);
            fits.tooltip.push_back(why.join(QLatin1Char('\n')));
        }
        fits.better = Better::Higher;
        fits.fitsRow = true;
        m_rows.push_back(std::move(fits));
    }
    addRow(tr("GPUs per job"), Better::None, [](const G& g) -> O { return g.count; });
    addRow(tr("VRAM need per GPU (GiB)"), Better::Lower, [](const G& g) -> O { return gp::units::bytesToGiB(g.memory.total()); },
           false, "memory.total");
    addRow(tr("VRAM per GPU (GiB)"), Better::Higher, [](const G& g) -> O { return gp::units::bytesToGiB(g.capacityBytes); });
    addRow(tr("Headroom per GPU (GiB)"), Better::Higher,
           [](const G& g) -> O { return gp::units::bytesToGiB(g.capacityBytes - g.memory.total()); });
    addRow(tr("Throughput (%1)").arg(throughputUnit(m_estimate)), Better::Higher, [](const G& g) { return throughputOf(g); });
    if (training) {
        addRow(tr("Step time (ms)"), Better::Lower, [](const G& g) -> O { return g.training ? O(g.training->stepMs) : O(); },
               false, "perf.step");
        addRow(tr("MFU (%)"), Better::Higher, [](const G& g) -> O { return g.training ? O(g.training->mfu * 100) : O(); });
        addRow(tr("Time to train (h)"), Better::Lower, [](const G& g) -> O { return g.training ? g.training->hours : O(); },
               false, "cost.hours");
    } else {
        addRow(tr("TTFT (ms)"), Better::Lower, [](const G& g) -> O { return g.inference ? g.inference->ttftMs : O(); });
        addRow(tr("TPOT (ms)"), Better::Lower, [](const G& g) -> O { return g.inference ? g.inference->tpotMs : O(); });
        addRow(tr("Batch latency (ms)"), Better::Lower, [](const G& g) -> O { return g.inference ? g.inference->latencyMs : O(); });
    }
    addRow(tr("Price, whole job (%1/h)").arg(m_currency), Better::Lower, [](const G& g) -> O { return g.usdPerHour; }, true);
    addRow(comparableCostLabel(m_estimate), Better::Lower,
           [basis = costBasis(m_estimate)](const G& g) { return costOn(g, basis); }, true,
           training ? "cost.total" : "cost.per_million");
    addRow(tr("Throughput uncertainty (±%, 1σ)"), Better::None, [](const G& g) -> O { return g.uncertainty.throughput * 100; });
    addRow(tr("Memory uncertainty (±%, 1σ)"), Better::None, [](const G& g) -> O { return g.uncertainty.memory * 100; });
    // Drop metric rows nobody has (e.g. batch latency for a language model).
    std::erase_if(m_rows, [](const Row& r) {
        return std::none_of(r.values.begin(), r.values.end(), [](const O& v) { return v.has_value(); });
    });

    // A term a metric row already shows lends it its formula instead of a row of its own.
    std::map<std::string, std::size_t> shown;
    for (std::size_t i = 0; i < m_rows.size(); ++i)
        if (!m_rows[i].termKey.empty())
            shown.emplace(m_rows[i].termKey, i);
    for (std::size_t c = 0; c < n; ++c)
        for (const auto& t : result(static_cast<int>(c)).terms)
            if (const auto it = shown.find(t.key); it != shown.end())
                m_rows[it->second].tooltip[c] = QString::fromStdString(t.formula);

    // Then every other term any chosen GPU computed, by key, in first-seen order;
    // one with the label of a row already there is not repeated.
    QStringList rowLabels;
    for (const Row& r : m_rows)
        rowLabels << r.label;
    std::vector<std::string> keys;
    std::map<std::string, std::string> labels;
    for (std::size_t c = 0; c < n; ++c)
        for (const auto& t : result(static_cast<int>(c)).terms) {
            if (shown.count(t.key))
                continue;
            const std::string label = t.label + (t.unit.empty() ? "" : " (" + t.unit + ")");
            if (rowLabels.contains(QString::fromStdString(label)))
                continue;
            if (labels.count(t.key))
                continue;
            // Two terms with one label (rare) are told apart by their keys.
            const bool taken = std::any_of(labels.begin(), labels.end(), [&](const auto& kv) { return kv.second == label; });
            labels.emplace(t.key, taken ? label + " [" + t.key + "]" : label);
            keys.push_back(t.key);
        }
    for (const auto& key : keys) {
        Row r;
        r.label = QString::fromStdString(labels[key]);
        r.isTerm = true;
        for (std::size_t c = 0; c < n; ++c) {
            const auto& terms = result(static_cast<int>(c)).terms;
            const auto it = std::find_if(terms.begin(), terms.end(), [&](const gp::Term& t) { return t.key == key; });
            r.values.push_back(it != terms.end() ? O(it->value) : O());
            r.text.emplace_back();
            r.tooltip.push_back(it != terms.end() ? QString::fromStdString(it->formula) : QString());
        }
        m_rows.push_back(std::move(r));
    }

    m_best.clear();
    for (const Row& r : m_rows) {
        std::vector<int> best;
        if (r.better != Better::None) {
            // Candidates: the GPUs that fit (for the fits row itself: all of them).
            std::vector<std::size_t> cand;
            for (std::size_t c = 0; c < n; ++c)
                if (r.values[c] && (r.fitsRow || result(static_cast<int>(c)).fits))
                    cand.push_back(c);
            if (cand.size() >= 2) {
                const auto same = [](double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b)); };
                double top = *r.values[cand.front()];
                for (const std::size_t c : cand) {
                    const double v = *r.values[c];
                    if (r.better == Better::Lower ? v < top : v > top)
                        top = v;
                }
                for (const std::size_t c : cand)
                    if (same(*r.values[c], top))
                        best.push_back(static_cast<int>(c));
                // Every GPU shown has that value: nothing stands out.
                const bool allSame = std::all_of(r.values.begin(), r.values.end(),
                                                 [&](const std::optional<double>& v) { return v && same(*v, top); });
                if (allSame)
                    best.clear();
            }
        }
        m_best.push_back(std::move(best));
    }
}

int ComparisonModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int ComparisonModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_columns.size());
}

std::vector<int> ComparisonModel::bestColumns(int row) const
{
    if (row < 0 || row >= static_cast<int>(m_best.size()))
        return {};
    return m_best[static_cast<std::size_t>(row)];
}

int ComparisonModel::bestColumn(int row) const
{
    const std::vector<int> best = bestColumns(row);
    return best.empty() ? -1 : best.front();
}

bool ComparisonModel::isBest(int row, int column) const
{
    if (row < 0 || row >= static_cast<int>(m_best.size()))
        return false;
    const auto& best = m_best[static_cast<std::size_t>(row)];
    return std::find(best.begin(), best.end(), column) != best.end();
}

QVariant ComparisonModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    if (!hasIndex(index.row(), index.column(), index.parent()))
        return {};
    const Row& r = m_rows[static_cast<std::size_t>(index.row())];
    const auto c = static_cast<std::size_t>(index.column());
    const auto& v = r.values[c];
    switch (role) {
    case Qt::DisplayRole:
        if (!r.text[c].isEmpty())
            return r.text[c];
        if (!v)
            return QStringLiteral("—");
        return r.money ? formatMoney(*v, m_currency) : formatNumber(*v, 4);
    case SortRole: return v ? QVariant(*v) : QVariant();
    case IsBestRole: return isBest(index.row(), index.column());
    case Qt::BackgroundRole:
        if (isBest(index.row(), index.column()))
            return bestTint();
        return {};
    case Qt::FontRole:
        if (isBest(index.row(), index.column())) {
            QFont f;
            f.setBold(true);
            return f;
        }
        return {};
    case Qt::ToolTipRole: return r.tooltip[c].isEmpty() ? QVariant() : QVariant(r.tooltip[c]);
    case Qt::TextAlignmentRole: return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    default: return {};
    }
}

QVariant ComparisonModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole)
        return {};
    if (orientation == Qt::Horizontal) {
        if (section < 0 || section >= columnCount())
            return {};
        const auto& g = result(section);
        return g.count > 1 ? QStringLiteral("%1x %2").arg(g.count).arg(QString::fromStdString(g.gpuName))
                           : QString::fromStdString(g.gpuName);
    }
    if (section < 0 || section >= rowCount())
        return {};
    const Row& r = m_rows[static_cast<std::size_t>(section)];
    if (role == Qt::ToolTipRole)
        return r.isTerm ? tr("A term the core computed (hover a value for its formula)")
                        : (r.better == Better::Lower    ? tr("Lower is better")
                           : r.better == Better::Higher ? tr("Higher is better")
                                                        : QVariant());
    return r.label;
}

QStringList ComparisonModel::ratioSentences() const
{
    QStringList out;
    if (m_columns.size() < 2)
        return out;
    const auto& base = result(0);
    const QString baseName = QString::fromStdString(base.gpuName);
    const bool training = base.training.has_value();
    for (std::size_t c = 1; c < m_columns.size(); ++c) {
        const auto& g = result(static_cast<int>(c));
        const QString name = QString::fromStdString(g.gpuName);
        if (!g.fits || !base.fits) {
            out << tr("%1 %2 fit; a speed or cost ratio would mean nothing.")
                       .arg(!g.fits ? name : baseName, tr("does not"));
            continue;
        }
        QStringList parts;
        const auto t0 = throughputOf(base), t1 = throughputOf(g);
        if (t0 && t1 && *t0 > 0 && *t1 > 0) {
            const double r = *t1 / *t0;
            parts << (r >= 1 ? tr("%1x faster").arg(formatNumber(r, 2)) : tr("%1x slower").arg(formatNumber(1 / r, 2)));
        }
        const auto c0 = comparableCost(base), c1 = comparableCost(g);
        if (c0 && c1 && *c0 > 0 && *c1 > 0) {
            const double r = *c0 / *c1;
            const QString what = training ? tr("to train") : tr("per token");
            parts << (r >= 1 ? tr("%1x cheaper %2").arg(formatNumber(r, 2), what)
                             : tr("%1x more expensive %2").arg(formatNumber(1 / r, 2), what));
        }
        if (!parts.isEmpty())
            out << tr("%1 is %2 than %3.").arg(name, parts.join(tr(" and ")), baseName);
    }
    return out;
}

} // namespace gp::ui
