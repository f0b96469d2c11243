#include "rulestablemodel.h"

#include "palette.h"

#include <QApplication>
#include <QStyle>

namespace gp::ui {

namespace {

int verdictRank(const std::string& v)
{
    if (v == "holds")
        return 0;
    if (v == "depends")
        return 1;
    return 2;
}

} // namespace

QString verdictLabel(const std::string& verdict)
{
    if (verdict == "holds")
        return QObject::tr("Holds");
    if (verdict == "corrected")
        return QObject::tr("Corrected");
    if (verdict == "depends")
        return QObject::tr("Depends");
    return QString::fromStdString(verdict);
}

RulesTableModel::RulesTableModel(QObject* parent)
    : QAbstractTableModel(parent)
{
    if (auto* style = QApplication::style()) {
        m_holds = style->standardIcon(QStyle::SP_DialogApplyButton);
        m_corrected = style->standardIcon(QStyle::SP_MessageBoxCritical);
        m_depends = style->standardIcon(QStyle::SP_MessageBoxWarning);
    }
}

void RulesTableModel::setRules(std::vector<gp::RuleCheck> rules)
{
    beginResetModel();
    m_rules = std::move(rules);
    endResetModel();
}

int RulesTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rules.size());
}

int RulesTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RulesTableModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const auto& r = m_rules[static_cast<std::size_t>(index.row())];
    const int col = index.column();
    const auto text = [&]() -> QString {
        switch (col) {
        case VerdictColumn: return verdictLabel(r.verdict);
        case ClaimColumn: return QString::fromStdString(r.claim);
        case FindingColumn: return QString::fromStdString(r.finding);
        case ReasonColumn: return QString::fromStdString(r.reason);
        case SourceColumn: return QString::fromStdString(r.source);
        default: return {};
        }
    };
    switch (role) {
    case Qt::DisplayRole:
    case Qt::AccessibleTextRole:
        return text();
    case Qt::ToolTipRole:
        return col == VerdictColumn ? QString() : text();
    case SortRole:
        return col == VerdictColumn ? QVariant(verdictRank(r.verdict)) : QVariant(text());
    case VerdictRole: return QString::fromStdString(r.verdict);
    case IdRole: return QString::fromStdString(r.id);
    case Qt::DecorationRole:
        if (col != VerdictColumn)
            return {};
        return r.verdict == "holds" ? m_holds : r.verdict == "corrected" ? m_corrected : m_depends;
    case Qt::ForegroundRole:
        if (col != VerdictColumn)
            return {};
        return statusColor(r.verdict == "holds" ? Status::Good : r.verdict == "corrected" ? Status::Bad : Status::Warn);
    case Qt::TextAlignmentRole:
        // The verdict's icon is centred vertically; its text goes with it.
        return col == VerdictColumn ? QVariant(Qt::AlignLeft | Qt::AlignVCenter) : QVariant(Qt::AlignLeft | Qt::AlignTop);
    default: return {};
    }
}

QVariant RulesTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case VerdictColumn: return tr("Verdict");
    case ClaimColumn: return tr("Claim");
    case FindingColumn: return tr("What the model computes");
    case ReasonColumn: return tr("Why");
    case SourceColumn: return tr("Source");
    default: return {};
    }
}

} // namespace gp::ui
