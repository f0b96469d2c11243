#pragma once
#include "charts/chartfactory.h"

#include <QString>
#include <QWidget>

#include <array>

class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QTableView;
class QTextBrowser;

namespace gp::ui {

class EstimateController;
class ResultsTableModel;

namespace charts {
class ChartPanel;
}

/// The Results tab: the recommendation, a problem banner, the filterable table
/// of estimates per GPU and "why this number" for the selected one; it also
/// keeps the chart panels of the estimate (the window shows them as tabs).
class ResultsPage final : public QWidget
{
    Q_OBJECT
public:
    explicit ResultsPage(EstimateController* controller, QWidget* parent = nullptr);
    ~ResultsPage() override;

    EstimateController* controller() const { return m_controller; }
    ResultsTableModel* model() const { return m_results; }
    QSortFilterProxyModel* proxy() const { return m_proxy; }
    QTableView* view() const { return m_table; }
    charts::ChartPanel* chartPanel(charts::ChartKind kind) const;
    /// The "why this number" panel, up to date (it is filled only while visible).
    QTextBrowser* explainView() const;

    void setCurrency(const QString& symbol);
    /// Shows the controller's estimate; the selected GPU stays selected.
    void showEstimate();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void showExplanation();
    void refreshExplanation();

    EstimateController* m_controller;
    ResultsTableModel* m_results = nullptr;
    QSortFilterProxyModel* m_proxy = nullptr;
    QTableView* m_table = nullptr;
    QLineEdit* m_filter = nullptr;
    QTextBrowser* m_explain = nullptr;
    QLabel* m_banner = nullptr;
    QLabel* m_recommendation = nullptr;
    std::array<charts::ChartPanel*, charts::kChartKindCount> m_charts{};
    QString m_currency = QStringLiteral("$");
    QString m_sizedFor;          // the header set the result columns were sized for
    QString m_explainHtml;       // what the panel shows, to skip identical rebuilds
    bool m_explainDirty = false; // the selection or its numbers changed while the panel was hidden
    bool m_updatingViews = false;
};

} // namespace gp::ui
