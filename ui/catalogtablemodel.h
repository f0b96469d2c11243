#pragma once
#include "core/hardware/catalog.h"

#include <QAbstractTableModel>

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

namespace gp::ui {

/// Every accelerator of the catalog with specs, prices, sources and dates.
/// The price columns are editable; edits are kept as overlay entries until saved.
class CatalogTableModel final : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column {
        NameColumn,
        IdColumn,
        VendorColumn,
        TierColumn,
        MemoryColumn,      // GB (datasheet)
        BandwidthColumn,   // GB/s
        Bf16Column,        // TFLOPS dense
        Fp8Column,         // TFLOPS dense
        TdpColumn,         // W
        PriceColumn,       // USD/h typical (editable)
        SpotColumn,        // USD/h (editable)
        PurchaseColumn,    // USD (editable)
        SeenColumn,        // when the prices were seen
        SourcesColumn,
        ColumnCount
    };
    enum Role { SortRole = Qt::UserRole + 1, GpuIdRole };

    explicit CatalogTableModel(QObject* parent = nullptr);

    void setCatalog(const gp::Catalog& catalog);
    /// Overlay entries for the edits made since setCatalog (one per GPU).
    std::vector<nlohmann::json> pendingEdits() const;
    bool hasPendingEdits() const { return !m_edits.empty(); }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<gp::Gpu> m_gpus;
    std::map<std::string, nlohmann::json> m_edits; // id -> overlay entry
};

} // namespace gp::ui
