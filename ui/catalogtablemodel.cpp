#include "catalogtablemodel.h"

#include "format.h"
#include "palette.h"

#include <QDate>
#include <QFont>

#include <cmath>
#include <limits>

namespace gp::ui {

CatalogTableModel::CatalogTableModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void CatalogTableModel::setCatalog(const gp::Catalog& catalog)
{
    beginResetModel();
    m_gpus = catalog.gpus();
    m_edits.clear();
    endResetModel();
}

std::vector<nlohmann::json> CatalogTableModel::pendingEdits() const
{
    std::vector<nlohmann::json> out;
    for (const auto& [id, e] : m_edits)
        out.push_back(e);
    return out;
}

int CatalogTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_gpus.size());
}

int CatalogTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

Qt::ItemFlags CatalogTableModel::flags(const QModelIndex& index) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return Qt::NoItemFlags;
    Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable;
    if (index.column() == PriceColumn || index.column() == SpotColumn || index.column() == PurchaseColumn)
        f |= Qt::ItemIsEditable;
    return f;
}

QVariant CatalogTableModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    if (!hasIndex(index.row(), index.column(), index.parent()))
        return {};
    const gp::Gpu& g = m_gpus[static_cast<std::size_t>(index.row())];
    const int col = index.column();
    auto number = [&]() -> std::optional<double> {
        switch (col) {
        case MemoryColumn: return g.memoryGb;
        case BandwidthColumn: return g.bandwidthGbps;
        case Bf16Column: return g.bf16Tflops;
        case Fp8Column: return g.fp8Tflops;
        case TdpColumn: return g.tdpW;
        case PriceColumn: return g.pricePerHour.typical;
        case SpotColumn: return g.pricePerHour.spot;
        case PurchaseColumn: return g.purchaseUsd;
        default: return std::nullopt;
        }
    };
    switch (role) {
    case Qt::DisplayRole: {
        switch (col) {
        case NameColumn: return QString::fromStdString(g.name);
        case IdColumn: return QString::fromStdString(g.id);
        case VendorColumn: return QString::fromStdString(g.vendor);
        case TierColumn: {
            const auto t = gp::tierLabel(g.tier);
            return QString::fromUtf8(t.data(), static_cast<qsizetype>(t.size()));
        }
        case SeenColumn: return QString::fromStdString(g.pricePerHour.seen);
        case SourcesColumn: return QString::number(g.sources.size());
        case PriceColumn:
        case SpotColumn:
        case PurchaseColumn: {
            const auto v = number();
            return v && *v > 0 ? formatMoney(*v) : QStringLiteral("—");
        }
        default: {
            const auto v = number();
            return v && *v > 0 ? formatNumber(*v, 4) : QStringLiteral("—");
        }
        }
    }
    case Qt::EditRole: {
        const auto v = number();
        return v ? QVariant(*v) : QVariant(0.0);
    }
    case SortRole: {
        if (const auto v = number())
            return *v;
        if (col == SourcesColumn)
            return static_cast<double>(g.sources.size());
        return data(index, Qt::DisplayRole);
    }
    case GpuIdRole: return QString::fromStdString(g.id);
    case Qt::ToolTipRole:
        if (col == SourcesColumn || col == SeenColumn || col == PriceColumn) {
            QStringList s;
            s << tr("Providers: %1").arg(QString::fromStdString(g.pricePerHour.providers));
            s << tr("Prices seen: %1").arg(QString::fromStdString(g.pricePerHour.seen));
            for (const auto& src : g.sources)
                s << QString::fromStdString(src);
            return s.join(QLatin1Char('\n'));
        }
        if (col == NameColumn && !g.notes.empty())
            return QString::fromStdString(g.notes);
        return {};
    case Qt::FontRole:
        if (m_edits.count(g.id) || g.userDefined) {
            QFont f;
            f.setItalic(true);
            return f;
        }
        return {};
    case Qt::TextAlignmentRole:
        return col >= MemoryColumn && col <= PurchaseColumn ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                                                            : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    default: return {};
    }
}

bool CatalogTableModel::setData(const QModelIndex& index, const QVariant& value, int role)
{
    if (role != Qt::EditRole || !checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return false;
    const int col = index.column();
    if (col != PriceColumn && col != SpotColumn && col != PurchaseColumn)
        return false;
    bool ok = false;
    const double v = value.toDouble(&ok);
    if (!ok || v < 0 || !std::isfinite(v))
        return false;
    gp::Gpu& g = m_gpus[static_cast<std::size_t>(index.row())];
    auto& e = m_edits[g.id];
    if (e.is_null())
        e = nlohmann::json{{"id", g.id}};
    const std::string seen = "user " + QDate::currentDate().toString(Qt::ISODate).toStdString();
    if (col == PurchaseColumn) {
        g.purchaseUsd = v;
        e["purchase_usd"] = v;
    } else {
        if (!e.contains("price_hour_usd"))
            e["price_hour_usd"] = nlohmann::json::object();
        if (col == PriceColumn) {
            g.pricePerHour.typical = v;
            e["price_hour_usd"]["typical"] = v;
        } else {
            g.pricePerHour.spot = v;
            e["price_hour_usd"]["spot"] = v;
        }
        g.pricePerHour.seen = seen;
        e["price_hour_usd"]["seen"] = seen;
    }
    emit dataChanged(this->index(index.row(), 0), this->index(index.row(), ColumnCount - 1));
    return true;
}

QVariant CatalogTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole || section < 0 || section >= ColumnCount)
        return {};
    switch (section) {
    case NameColumn: return tr("Name");
    case IdColumn: return tr("Id");
    case VendorColumn: return tr("Vendor");
    case TierColumn: return tr("Tier");
    case MemoryColumn: return tr("Memory (GB)");
    case BandwidthColumn: return tr("Bandwidth (GB/s)");
    case Bf16Column: return tr("BF16 (TFLOPS)");
    case Fp8Column: return tr("FP8 (TFLOPS)");
    case TdpColumn: return tr("TDP (W)");
    case PriceColumn: return tr("Typical (USD/h)");
    case SpotColumn: return tr("Spot (USD/h)");
    case PurchaseColumn: return tr("Purchase (USD)");
    case SeenColumn: return tr("Prices seen");
    case SourcesColumn: return tr("Sources");
    default: return {};
    }
}

} // namespace gp::ui
