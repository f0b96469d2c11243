#pragma once
#include "core/rules/rules.h"

#include <QAbstractTableModel>
#include <QIcon>

#include <vector>

namespace gp::ui {

/// The articles' rules of thumb, rechecked by the core: one row per RuleCheck.
class RulesTableModel final : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { VerdictColumn, ClaimColumn, FindingColumn, ReasonColumn, SourceColumn, ColumnCount };
    enum Role {
        SortRole = Qt::UserRole + 1, // verdict as 0 holds / 1 depends / 2 corrected, else the text
        VerdictRole,                 // "holds", "corrected" or "depends"
        IdRole,
    };

    explicit RulesTableModel(QObject* parent = nullptr);

    void setRules(std::vector<gp::RuleCheck> rules);
    const std::vector<gp::RuleCheck>& rules() const { return m_rules; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<gp::RuleCheck> m_rules;
    QIcon m_holds, m_corrected, m_depends;
};

/// Display text of a verdict ("Holds", "Corrected", "Depends").
QString verdictLabel(const std::string& verdict);

} // namespace gp::ui
