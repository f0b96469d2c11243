#pragma once
#include <QWidget>

class QComboBox;
class QLabel;
class QSortFilterProxyModel;
class QTableView;

namespace gp::ui {

class RulesTableModel;

/// The Rules of thumb tab: each claim from the articles the product grew from,
/// recomputed with the estimation core against the built-in catalog (not user
/// edits), with its verdict. Computed once, when first shown or asked for.
class RulesPage final : public QWidget
{
    Q_OBJECT
public:
    explicit RulesPage(QWidget* parent = nullptr);
    ~RulesPage() override;

    /// Computes the checks if that has not happened yet.
    void ensureComputed();
    RulesTableModel* model() const { return m_model; }
    QSortFilterProxyModel* proxy() const { return m_proxy; }
    QTableView* view() const { return m_view; }
    QComboBox* verdictFilter() const { return m_filter; }

protected:
    void showEvent(QShowEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    RulesTableModel* m_model;
    QSortFilterProxyModel* m_proxy;
    QTableView* m_view;
    QComboBox* m_filter;
    QLabel* m_summary;
    bool m_computed = false;
};

} // namespace gp::ui
