#include "resultstablemodel.h"

#include "estimatecontroller.h"
#include "format.h"
#include "palette.h"
#include "reportrecommendation.h"

#include "core/base/units.h"

#include <QApplication>
#include <QStyle>

#include <algorithm>
#include <limits>

namespace gp::ui {

ResultsTableModel::ResultsTableModel(QObject* parent)
    : QAbstractTableModel(parent)
{
    if (auto* style = QApplication::style()) {
        m_okIcon = style->standardIcon(QStyle::SP_DialogApplyButton);
        m_missIcon = style->standardIcon(QStyle::SP_MessageBoxWarning);
        m_noFitIcon = style->standardIcon(QStyle::SP_MessageBoxCritical);
    }
}

void ResultsTableModel::setEstimate(const gp::Estimate& e)
{
    // An edit usually changes the numbers of the same GPUs: report changed data
    // rather than a reset, so views keep their selection, scroll position and
    // persistent indexes and the proxy re-sorts instead of rebuilding.
    const auto sameGpu = [](const gp::GpuEstimate& a, const gp::GpuEstimate& b) { return a.gpuId == b.gpuId; };
    const bool sameRows = e.results.size() == m_estimate.results.size() && !e.results.empty() &&
                          std::equal(e.results.begin(), e.results.end(), m_estimate.results.begin(), sameGpu);
    const QString before = headerKey();
    if (sameRows) {
        m_estimate = e;
        emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
    } else {
        beginResetModel();
        m_estimate = e;
        endResetModel();
    }
    if (headerKey() != before)
        emit headerDataChanged(Qt::Horizontal, 0, ColumnCount - 1);
}

QString ResultsTableModel::headerKey() const
{
    QString key;
    for (int c = 0; c < ColumnCount; ++c)
        key += headerData(c, Qt::Horizontal).toString() + QLatin1Char('\n');
    return key;
}

void ResultsTableModel::setCurrency(const QString& symbol)
{
    if (symbol == m_currency)
        return;
    m_currency = symbol;
    if (rowCount() > 0)
        emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
    emit headerDataChanged(Qt::Horizontal, 0, ColumnCount - 1);
}

int ResultsTableModel::rowOf(const QString& gpuId) const
{
    const std::string id = gpuId.toStdString();
    for (std::size_t i = 0; i < m_estimate.results.size(); ++i)
        if (m_estimate.results[i].gpuId == id)
            return static_cast<int>(i);
    return -1;
}

int ResultsTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_estimate.results.size());
}

int ResultsTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

std::optional<double> ResultsTableModel::cellValue(int row, int column) const
{
    if (row < 0 || row >= rowCount())
        return std::nullopt;
    const auto& r = m_estimate.results[static_cast<std::size_t>(row)];
    switch (column) {
    case CountColumn: return r.count;
    case FitsColumn: return r.fits ? (r.meetsTargets ? 2 : 1) : 0;
    case VramNeedColumn: return gp::units::bytesToGiB(r.memory.total());
    case VramHasColumn: return gp::units::bytesToGiB(r.capacityBytes);
    case ThroughputColumn: return throughputOf(r);
    case Latency1Column:
        if (r.training)
            return r.training->stepMs;
        if (r.inference)
            return r.inference->ttftMs ? r.inference->ttftMs : r.inference->latencyMs;
        return std::nullopt;
    case Latency2Column:
        if (r.training)
            return r.training->hours;
        if (r.inference)
            return r.inference->tpotMs;
        return std::nullopt;
    case UsdPerHourColumn: return r.usdPerHour;
    case CostColumn:
        if (r.training)
            return r.training->costUsd;
        if (r.inference)
            return r.inference->usdPerMillionTokens;
        return std::nullopt;
    case UncertaintyColumn: return r.uncertainty.throughput * 100;
    default: return std::nullopt;
    }
}

QString ResultsTableModel::tooltipFor(const gp::GpuEstimate& r) const
{
    QStringList lines;
    lines << QStringLiteral("<b>%1</b> x%2").arg(htmlEscape(QString::fromStdString(r.gpuName))).arg(r.count);
    if (!r.fits)
        lines << tr("Does not fit: needs %1 GiB per GPU, has %2 GiB.")
                     .arg(formatNumber(gp::units::bytesToGiB(r.memory.total())),
                          formatNumber(gp::units::bytesToGiB(r.capacityBytes)));
    for (const auto& m : r.targetMisses)
        lines << tr("Misses target: %1").arg(htmlEscape(QString::fromStdString(m)));
    // Each band and where it comes from (issue #16: by distance from measurement).
    lines << tr("Uncertainty: %1").arg(htmlEscape(bandText(r.uncertainty)));
    for (const auto& n : r.notes)
        lines << QStringLiteral("• ") + htmlEscape(QString::fromStdString(n));
    return lines.join(QStringLiteral("<br>"));
}

QVariant ResultsTableModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    if (!hasIndex(index.row(), index.column(), index.parent()))
        return {};
    const auto& r = m_estimate.results[static_cast<std::size_t>(index.row())];
    const int col = index.column();
    const auto v = cellValue(index.row(), col);

    switch (role) {
    case Qt::DisplayRole:
        switch (col) {
        case GpuColumn: return QString::fromStdString(r.gpuName) + (r.approximate ? QStringLiteral(" ≈") : QString());
        case FitsColumn: return r.fits ? (r.meetsTargets ? tr("yes") : tr("misses target")) : tr("no");
        case CountColumn: return r.count;
        case UsdPerHourColumn: return formatPrice(v.value_or(0), m_currency);
        case CostColumn:
            // No cost because the GPU has no price says so, never "$0".
            return v ? formatPrice(*v, m_currency) : r.usdPerHour > 0 ? QStringLiteral("—") : tr("no price");
        case UncertaintyColumn:
            return QStringLiteral("±%1% / ±%2%")
                .arg(formatNumber(r.uncertainty.throughput * 100, 2), formatNumber(r.uncertainty.memory * 100, 2));
        case VramNeedColumn:
        case VramHasColumn:
            return v ? formatNumber(*v, 3) : QStringLiteral("—");
        default:
            return v ? formatNumber(*v, 3) : QStringLiteral("—");
        }
    case SortRole:
        if (col == GpuColumn)
            return QString::fromStdString(r.gpuName);
        // Speed and cost of a job that does not fit mean nothing: sort those rows last.
        if (!r.fits && col == ThroughputColumn)
            return std::numeric_limits<double>::lowest();
        if (!r.fits && col > ThroughputColumn && col <= CostColumn && col != UsdPerHourColumn)
            return std::numeric_limits<double>::max();
        return v ? *v : std::numeric_limits<double>::max();
    case GpuIdRole: return QString::fromStdString(r.gpuId);
    case ResultIndexRole: return index.row();
    case Qt::TextAlignmentRole:
        return col == GpuColumn || col == FitsColumn ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                                     : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::DecorationRole:
        if (col == FitsColumn)
            return r.fits ? (r.meetsTargets ? m_okIcon : m_missIcon) : m_noFitIcon;
        return {};
    case Qt::ForegroundRole:
        if (!r.fits)
            return statusColor(Status::Bad);
        if (!r.meetsTargets)
            return statusColor(Status::Warn);
        return {};
    case Qt::ToolTipRole: return tooltipFor(r);
    case Qt::AccessibleTextRole:
        return data(index, Qt::DisplayRole);
    default: return {};
    }
}

QVariant ResultsTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return {};
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole)
        return {};
    const gp::GpuEstimate* first = m_estimate.results.empty() ? nullptr : &m_estimate.results.front();
    const bool inference = first && first->inference;
    const bool vision = first && ((first->training && first->training->tokensPerS <= 0) ||
                                  (first->inference && !first->inference->tokensPerS));
    switch (section) {
    case GpuColumn: return tr("GPU");
    case CountColumn: return tr("Count");
    case FitsColumn: return tr("Fits");
    case VramNeedColumn: return tr("VRAM need (GiB)");
    case VramHasColumn: return tr("VRAM has (GiB)");
    case ThroughputColumn:
        return vision ? tr("Throughput (images/s)") : inference ? tr("Throughput (output tokens/s)") : tr("Throughput (tokens/s)");
    case Latency1Column:
        return inference ? (vision ? tr("Batch latency (ms)") : tr("TTFT (ms)")) : tr("Step time (ms)");
    case Latency2Column: return inference ? tr("TPOT (ms)") : tr("Time to train (h)");
    case UsdPerHourColumn: return tr("%1/h (job)").arg(m_currency);
    case CostColumn: return inference ? tr("%1 per M tokens").arg(m_currency) : tr("Cost to train (%1)").arg(m_currency);
    case UncertaintyColumn:
        return role == Qt::ToolTipRole ? tr("Relative 1-sigma uncertainty: throughput / memory") : tr("± thr. / mem.");
    default: return {};
    }
}

} // namespace gp::ui
