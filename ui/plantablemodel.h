#pragma once
#include "core/plan/planner.h"
#include "core/scenario/scenario.h"

#include <QAbstractTableModel>

namespace gp::ui {

/// The planner's ranked options, one row per PlanOption in rank order. Thin and
/// final: numbers come from the core's PlanOption unchanged; the cost and time
/// headers are the plan's own labels.
class PlanTableModel final : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column {
        RankColumn,
        GpuColumn,
        CountColumn,      // GPUs per replica (x replicas when serving needs several)
        LayoutColumn,     // TP/PP/DP/ZeRO, or the MIG slice
        PrecisionColumn,
        BatchColumn,      // training: micro-batch x accumulation (+ checkpointing); inference: batch per replica
        ReplicasColumn,   // inference: replicas holding the demand (and serving the load)
        UsersColumn,      // inference: users one replica holds at the targets, and the limit
        UsdPerHourColumn, // all GPUs of all replicas
        CostColumn,       // PlanOption::costKey, in the plan's costLabel
        TimeColumn,       // PlanOption::timeKey, in the plan's timeLabel
        MemoryColumn,     // GiB per GPU at the peak, of the GPU's capacity
        WhyColumn,
        ColumnCount
    };
    enum Role {
        SortRole = Qt::UserRole + 1, // numbers as double (text for GPU, layout, precision, why)
        GpuIdRole,
        RankRole,
        ParetoRole,                  // bool: on the cost-vs-time front
    };

    explicit PlanTableModel(QObject* parent = nullptr);

    /// mode: what the plan was computed for (training shows micro-batch x accumulation).
    void setPlan(const gp::PlanResult& plan, gp::Mode mode);
    void setCurrency(const QString& symbol);
    const gp::PlanResult& plan() const { return m_plan; }
    /// The option shown in a row; nullptr when out of range.
    const gp::PlanOption* option(int row) const;
    /// The row of an option with this GPU, slice, count and precision; -1 when absent.
    int rowOf(const gp::PlanOption& like) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    bool onFront(const gp::PlanOption& o) const;

    gp::PlanResult m_plan;
    gp::Mode m_mode = gp::Mode::Training;
    QString m_currency = QStringLiteral("$");
};

/// "TP4", "TP8 PP2 DP4 ZeRO-1", "single GPU", "MIG 1g slice" (+ replicas).
QString planLayoutText(const gp::PlanOption& o);
/// "micro-batch 4 x 8 accum., full ckpt" (training) or "batch 16" (inference).
QString planBatchText(const gp::PlanOption& o, gp::Mode mode);
/// Inference: what caps a replica's users ("KV memory", "TTFT", "TPOT"), or "rate"
/// when the request rate sets the replicas.
QString planLimitText(const std::string& limit);
/// Inference: "16 (KV memory)", the users one replica holds at the targets and the limit.
QString planUsersText(const gp::PlanOption& o);
/// A plan label as a header: first letter capitalized ("hours" reads "Time (hours)").
QString planAxisLabel(const std::string& label);

} // namespace gp::ui
