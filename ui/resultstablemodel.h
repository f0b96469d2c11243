#pragma once
#include "core/estimate/estimate.h"

#include <QAbstractTableModel>
#include <QIcon>

namespace gp::ui {

/// One row per GPU of the estimate. Thin and final: the numbers come from the
/// core's GpuEstimate unchanged (bytes shown as GiB); the headers follow the mode.
class ResultsTableModel final : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column {
        GpuColumn,
        CountColumn,
        FitsColumn,
        VramNeedColumn,   // GiB per GPU at the peak
        VramHasColumn,    // GiB per GPU
        ThroughputColumn, // tokens/s or images/s, whole job
        Latency1Column,   // training: step ms; inference: TTFT ms (vision: batch latency ms)
        Latency2Column,   // training: hours to train; inference: TPOT ms
        UsdPerHourColumn, // whole job
        CostColumn,       // training: cost to train USD; inference: USD per million tokens
        UncertaintyColumn,// ± throughput, 1 sigma
        ColumnCount
    };
    enum Role {
        SortRole = Qt::UserRole + 1, // numbers as double (missing values sort last)
        GpuIdRole,
        ResultIndexRole,             // index into Estimate::results
    };

    explicit ResultsTableModel(QObject* parent = nullptr);

    void setEstimate(const gp::Estimate& e);
    void setCurrency(const QString& symbol);
    const gp::Estimate& estimate() const { return m_estimate; }
    /// The row of a GPU id; -1 when absent.
    int rowOf(const QString& gpuId) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    /// The number shown in a cell (before formatting); unset when not applicable.
    std::optional<double> cellValue(int row, int column) const;

private:
    QString tooltipFor(const gp::GpuEstimate& r) const;
    QString headerKey() const; // every header's text, to tell whether they changed

    gp::Estimate m_estimate;
    QString m_currency = QStringLiteral("$");
    QIcon m_okIcon, m_missIcon, m_noFitIcon;
};

} // namespace gp::ui
