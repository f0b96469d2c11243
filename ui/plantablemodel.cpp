#include "plantablemodel.h"

#include "format.h"
#include "palette.h"

#include "core/base/units.h"

#include <QFont>

#include <algorithm>
#include <cmath>
#include <limits>

namespace gp::ui {

QString planLayoutText(const gp::PlanOption& o)
{
    if (!o.mig.empty())
        return QObject::tr("MIG %1 slice").arg(QString::fromStdString(o.mig));
    QStringList parts;
    if (o.tp > 1)
        parts << QStringLiteral("TP%1").arg(o.tp);
    if (o.pp > 1)
        parts << QStringLiteral("PP%1").arg(o.pp);
    const int dp = o.count / std::max(1, o.tp * o.pp);
    if (dp > 1)
        parts << QStringLiteral("DP%1").arg(dp);
    if (o.zero > 0)
        parts << QStringLiteral("ZeRO-%1").arg(o.zero);
    QString s = parts.isEmpty() ? QObject::tr("single GPU") : parts.join(QLatin1Char(' '));
    if (o.replicas > 1)
        s += QObject::tr(", %1 replicas").arg(o.replicas);
    return s;
}

QString planBatchText(const gp::PlanOption& o, gp::Mode mode)
{
    if (mode == gp::Mode::Inference)
        return QObject::tr("batch %1").arg(o.microBatch);
    QString s = o.gradAccum > 1 ? QObject::tr("%1 x %2 accum.").arg(o.microBatch).arg(o.gradAccum)
                                : QString::number(o.microBatch);
    if (!o.checkpointing.empty() && o.checkpointing != "none")
        s += QObject::tr(", %1 ckpt").arg(QString::fromStdString(o.checkpointing));
    return s;
}

QString planLimitText(const std::string& limit)
{
    if (limit == "kv_memory")
        return QObject::tr("KV memory");
    if (limit == "memory")
        return QObject::tr("memory");
    if (limit == "ttft")
        return QObject::tr("TTFT");
    if (limit == "tpot")
        return QObject::tr("TPOT");
    if (limit == "rate")
        return QObject::tr("rate");
    if (limit == "compute")
        return QObject::tr("batch cap");
    return QString::fromStdString(limit);
}

QString planUsersText(const gp::PlanOption& o)
{
    if (o.usersPerReplica <= 0)
        return QString();
    return QObject::tr("%1 (%2)").arg(o.usersPerReplica).arg(planLimitText(o.limit));
}

QString planAxisLabel(const std::string& label)
{
    QString q = QString::fromStdString(label);
    if (q == QLatin1String("hours"))
        return QObject::tr("Time (hours)");
    if (!q.isEmpty())
        q[0] = q[0].toUpper();
    return q;
}

PlanTableModel::PlanTableModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void PlanTableModel::setPlan(const gp::PlanResult& plan, gp::Mode mode)
{
    beginResetModel();
    m_plan = plan;
    m_mode = mode;
    endResetModel();
    emit headerDataChanged(Qt::Horizontal, 0, ColumnCount - 1);
}

void PlanTableModel::setCurrency(const QString& symbol)
{
    if (symbol == m_currency)
        return;
    m_currency = symbol;
    if (rowCount() > 0)
        emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
    emit headerDataChanged(Qt::Horizontal, 0, ColumnCount - 1);
}

const gp::PlanOption* PlanTableModel::option(int row) const
{
    if (row < 0 || row >= rowCount())
        return nullptr;
    return &m_plan.options[static_cast<std::size_t>(row)];
}

int PlanTableModel::rowOf(const gp::PlanOption& like) const
{
    for (std::size_t i = 0; i < m_plan.options.size(); ++i) {
        const auto& o = m_plan.options[i];
        if (o.gpu == like.gpu && o.mig == like.mig && o.count == like.count && o.precision == like.precision)
            return static_cast<int>(i);
    }
    return -1;
}

int PlanTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_plan.options.size());
}

int PlanTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

bool PlanTableModel::onFront(const gp::PlanOption& o) const
{
    return std::find(m_plan.pareto.begin(), m_plan.pareto.end(), o.rank) != m_plan.pareto.end();
}

QVariant PlanTableModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const auto& o = m_plan.options[static_cast<std::size_t>(index.row())];
    const int col = index.column();
    const double memGiB = gp::units::bytesToGiB(o.estimate.memory.total());
    const double capGiB = gp::units::bytesToGiB(o.estimate.capacityBytes);
    const auto finite = [](double v) { return std::isfinite(v) ? v : std::numeric_limits<double>::max(); };

    switch (role) {
    case Qt::DisplayRole:
    case Qt::AccessibleTextRole:
        switch (col) {
        case RankColumn: return o.rank;
        case GpuColumn:
            return o.mig.empty() ? QString::fromStdString(o.gpuName)
                                 : tr("%1 (MIG %2)").arg(QString::fromStdString(o.gpuName), QString::fromStdString(o.mig));
        case CountColumn: return o.replicas > 1 ? tr("%1 x %2").arg(o.count).arg(o.replicas) : QString::number(o.count);
        case LayoutColumn: return planLayoutText(o);
        case PrecisionColumn: return QString::fromStdString(o.precision);
        case BatchColumn: return planBatchText(o, m_mode);
        case ReplicasColumn: return m_mode == gp::Mode::Inference ? QVariant(o.replicas) : QVariant();
        case UsersColumn: return m_mode == gp::Mode::Inference ? planUsersText(o) : QString();
        case UsdPerHourColumn: return formatPrice(o.usdPerHour, m_currency);
        case CostColumn:
            return o.usdPerHour <= 0 ? tr("no price")
                   : std::isfinite(o.costKey) ? formatMoney(o.costKey, m_currency)
                                              : QStringLiteral("—");
        case TimeColumn: return std::isfinite(o.timeKey) ? formatNumber(o.timeKey, 3) : QStringLiteral("—");
        case MemoryColumn: return tr("%1 / %2").arg(formatNumber(memGiB, 3), formatNumber(capGiB, 3));
        case WhyColumn: return QString::fromStdString(o.why);
        default: return {};
        }
    case SortRole:
        switch (col) {
        case RankColumn: return o.rank;
        case GpuColumn: return QString::fromStdString(o.gpuName + o.mig);
        case CountColumn: return o.count * o.replicas;
        case LayoutColumn: return planLayoutText(o);
        case PrecisionColumn: return QString::fromStdString(o.precision);
        case BatchColumn: return o.microBatch;
        case ReplicasColumn: return o.replicas;
        case UsersColumn: return o.usersPerReplica;
        case UsdPerHourColumn: return o.usdPerHour;
        case CostColumn: return finite(o.costKey);
        case TimeColumn: return finite(o.timeKey);
        case MemoryColumn: return memGiB;
        case WhyColumn: return QString::fromStdString(o.why);
        default: return {};
        }
    case GpuIdRole: return QString::fromStdString(o.gpu);
    case RankRole: return o.rank;
    case ParetoRole: return onFront(o);
    case Qt::TextAlignmentRole:
        switch (col) {
        case RankColumn:
        case CountColumn:
        case ReplicasColumn:
        case UsdPerHourColumn:
        case CostColumn:
        case TimeColumn:
        case MemoryColumn: return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        default: return QVariant(Qt::AlignLeft | Qt::AlignVCenter);
        }
    case Qt::FontRole:
        if (onFront(o) && col != WhyColumn) {
            QFont f;
            f.setBold(true);
            return f;
        }
        return {};
    case Qt::ForegroundRole:
        if (col == RankColumn && onFront(o))
            return statusColor(Status::Bad);
        return {};
    case Qt::ToolTipRole: {
        QString tip = QString::fromStdString(o.why).toHtmlEscaped();
        if (onFront(o))
            tip = tr("<b>On the Pareto front:</b> no other option is both cheaper and faster.<br>") + tip;
        if (o.replicas > 1)
            tip += tr("<br>%1 replicas of %2 GPU(s) serve the load.").arg(o.replicas).arg(o.count);
        return tip;
    }
    default: return {};
    }
}

QVariant PlanTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return {};
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case RankColumn: return tr("1 = cheapest that fits and meets the targets (then fastest); bold = Pareto front");
        case CountColumn: return tr("GPUs per job or replica (x replicas needed for the load)");
        case LayoutColumn: return tr("Tensor / pipeline / data parallel degrees and ZeRO stage, or the MIG slice");
        case UsdPerHourColumn: return tr("All GPUs of all replicas, per hour");
        case CostColumn: return tr("What the ranking minimizes: %1").arg(QString::fromStdString(m_plan.costLabel));
        case TimeColumn: return tr("Tie-break and Pareto axis: %1").arg(QString::fromStdString(m_plan.timeLabel));
        case MemoryColumn: return tr("Peak memory per GPU of its capacity, GiB");
        case ReplicasColumn: return tr("Replicas x batch per replica hold the scenario's concurrent sequences "
                                       "(and serve its requests/s)");
        case UsersColumn: return tr("Concurrent sequences one replica holds within the latency targets, and what "
                                    "stops one more (KV memory, TTFT, TPOT; the rate when the load sets the replicas)");
        default: return {};
        }
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (section) {
    case RankColumn: return tr("Rank");
    case GpuColumn: return tr("GPU");
    case CountColumn: return tr("Count");
    case LayoutColumn: return tr("Layout");
    case PrecisionColumn: return tr("Precision");
    case BatchColumn: return m_mode == gp::Mode::Training ? tr("Micro-batch") : tr("Batch / replica");
    case ReplicasColumn: return tr("Replicas");
    case UsersColumn: return tr("Users / replica");
    case UsdPerHourColumn: return tr("%1/h").arg(m_currency);
    case CostColumn: return m_plan.costLabel.empty() ? tr("Cost") : planAxisLabel(m_plan.costLabel);
    case TimeColumn: return m_plan.timeLabel.empty() ? tr("Time") : planAxisLabel(m_plan.timeLabel);
    case MemoryColumn: return tr("Memory / GPU (GiB)");
    case WhyColumn: return tr("Why");
    default: return {};
    }
}

} // namespace gp::ui
