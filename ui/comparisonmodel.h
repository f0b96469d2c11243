#pragma once
#include "core/estimate/estimate.h"

#include <QAbstractTableModel>
#include <QStringList>

#include <optional>
#include <vector>

namespace gp::ui {

/// Side-by-side comparison of 2-4 GPUs: one column per GPU, one row per metric
/// and then per term the core computed (a term that is also a metric, such as the
/// time to train, shows once, as the metric with the term's formula). The best
/// value of a row among the GPUs that fit is marked, every tied one of them.
class ComparisonModel final : public QAbstractTableModel
{
    Q_OBJECT
public:
    static constexpr int kMaxGpus = 4;
    enum Role { SortRole = Qt::UserRole + 1, IsBestRole };
    enum class Better { Lower, Higher, None };

    explicit ComparisonModel(QObject* parent = nullptr);

    void setEstimate(const gp::Estimate& e);
    /// The GPUs to compare, by id (at most kMaxGpus; ids not in the estimate are skipped).
    void setGpuIds(const QStringList& ids);
    QStringList gpuIds() const;
    void setCurrency(const QString& symbol);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    /// The columns with the best value of a row among the GPUs that fit (every
    /// column of a tie); empty when the row has no direction, fewer than two of
    /// the fitting GPUs have a value, or every GPU shown has the same value.
    std::vector<int> bestColumns(int row) const;
    /// The first of bestColumns(); -1 when none.
    int bestColumn(int row) const;
    bool isBest(int row, int column) const;
    /// "H100 SXM is 1.8x faster and 1.3x cheaper to train than A100 80GB SXM."
    QStringList ratioSentences() const;

private:
    struct Row {
        QString label;
        Better better = Better::None;
        std::vector<std::optional<double>> values; // one per column
        std::vector<QString> text;                 // display override (e.g. "yes"), per column
        std::vector<QString> tooltip;              // formulas, per column
        bool money = false;
        bool isTerm = false;
        bool fitsRow = false;   // the "fits" row: compared across every GPU
        std::string termKey;    // the core term this metric shows, if any
    };
    void rebuild();
    const gp::GpuEstimate& result(int column) const;

    gp::Estimate m_estimate;
    QStringList m_ids;
    std::vector<int> m_columns; // indices into m_estimate.results
    std::vector<Row> m_rows;
    std::vector<std::vector<int>> m_best; // bestColumns() per row
    QString m_currency = QStringLiteral("$");
};

} // namespace gp::ui
