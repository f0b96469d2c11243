#include "resultspage.h"

#include "estimatecontroller.h"
#include "explain.h"
#include "format.h"
#include "resultstablemodel.h"

#include "charts/chartpanel.h"

#include "core/estimate/estimate.h"

#include <QEvent>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace gp::ui {

ResultsPage::ResultsPage(EstimateController* controller, QWidget* parent)
    : QWidget(parent)
    , m_controller(controller)
{
    // Results tab: recommendation, filter, table, and "why this number".
    auto* rl = new QVBoxLayout(this);
    m_banner = new QLabel;
    m_banner->setWordWrap(true);
    m_banner->setStyleSheet(QStringLiteral("QLabel { border: 2px solid %1; border-radius: 4px; padding: 4px; }")
                                .arg(QColor(0xd9, 0x4a, 0x4a).name()));
    m_banner->hide();
    m_recommendation = new QLabel;
    m_recommendation->setWordWrap(true);
    m_recommendation->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_filter = new QLineEdit;
    m_filter->setPlaceholderText(tr("Filter GPUs (name or id)"));
    m_filter->setAccessibleName(tr("Filter results"));
    m_filter->setClearButtonEnabled(true);
    m_results = new ResultsTableModel(this);
    m_proxy = new QSortFilterProxyModel(this);
    m_proxy->setSourceModel(m_results);
    m_proxy->setSortRole(ResultsTableModel::SortRole);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_proxy->setFilterKeyColumn(ResultsTableModel::GpuColumn);
    connect(m_filter, &QLineEdit::textChanged, m_proxy, &QSortFilterProxyModel::setFilterFixedString);
    m_table = new QTableView;
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(ResultsTableModel::CostColumn, Qt::AscendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setAlternatingRowColors(true);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setAccessibleName(tr("Estimates per GPU"));
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &ResultsPage::showExplanation);
    m_explain = new QTextBrowser;
    m_explain->setAccessibleName(tr("Why this number"));
    // A scroll bar that comes and goes on every rebuild changes the width and
    // lays the whole document out twice more; keep it.
    m_explain->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOn);
    m_explain->installEventFilter(this);
    m_explain->setPlaceholderText(tr("Select a row to see how its numbers were computed."));
    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(m_table);
    auto* why = new QWidget;
    auto* wl = new QVBoxLayout(why);
    wl->setContentsMargins(0, 0, 0, 0);
    auto* whyTitle = new QLabel(tr("<b>Why this number</b>"));
    wl->addWidget(whyTitle);
    wl->addWidget(m_explain);
    split->addWidget(why);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    rl->addWidget(m_banner);
    rl->addWidget(m_recommendation);
    rl->addWidget(m_filter);
    rl->addWidget(split, 1);
    for (int k = 0; k < charts::kChartKindCount; ++k)
        m_charts[static_cast<std::size_t>(k)] = new charts::ChartPanel(static_cast<charts::ChartKind>(k));
}

ResultsPage::~ResultsPage()
{
    // The children are destroyed after this body, when this is no longer a
    // ResultsPage: a selection change they emit then must not reach its slots.
    const auto children = findChildren<QObject*>();
    for (QObject* child : children)
        QObject::disconnect(child, nullptr, this, nullptr);
}

charts::ChartPanel* ResultsPage::chartPanel(charts::ChartKind kind) const
{
    return m_charts[static_cast<std::size_t>(kind)];
}

void ResultsPage::setCurrency(const QString& symbol)
{
    m_currency = symbol;
    m_results->setCurrency(symbol);
}

void ResultsPage::showEstimate()
{
    const gp::Estimate& e = m_controller->estimate();
    const QString selected = m_table->currentIndex().isValid()
                                 ? m_table->currentIndex().data(ResultsTableModel::GpuIdRole).toString()
                                 : QString();
    m_results->setEstimate(e);
    for (auto* c : m_charts)
        c->setEstimate(e, m_currency);
    const QString err = m_controller->error();
    if (!err.isEmpty()) // a hidden rich-text label is still laid out: set it only when shown
        m_banner->setText(tr("<b>No estimate until these are fixed</b> (the fields are marked):<br>%1")
                              .arg(htmlEscape(err).replace(QLatin1Char('\n'), QStringLiteral("<br>"))));
    m_banner->setVisible(!err.isEmpty());
    m_recommendation->setText(e.results.empty() ? QString()
                                                : tr("<b>Recommendation:</b> %1").arg(htmlEscape(recommendationText(e, m_currency))));
    // Keep the selected GPU selected across recomputes (the model keeps it when
    // the GPUs are the same; a new set of GPUs resets it).
    m_updatingViews = true;
    const int row = selected.isEmpty() ? -1 : m_results->rowOf(selected);
    const QModelIndex want = row >= 0 ? m_proxy->mapFromSource(m_results->index(row, 0))
                                      : (m_proxy->rowCount() > 0 ? m_proxy->index(0, 0) : QModelIndex());
    if (want.isValid() && m_table->currentIndex().row() != want.row())
        m_table->setCurrentIndex(want);
    m_updatingViews = false;
    showExplanation();
    // Measuring every cell is slow; size the columns once per header set (mode change).
    const QString headers = m_results->headerData(ResultsTableModel::ThroughputColumn, Qt::Horizontal).toString();
    if (headers != m_sizedFor && m_results->rowCount() > 0) {
        m_table->resizeColumnsToContents();
        m_sizedFor = headers;
    }
}

void ResultsPage::showExplanation()
{
    if (m_updatingViews)
        return; // updateViews explains once, at its end
    m_explainDirty = true;
    // Laying out the rich text is the most expensive part of a redraw: do it only
    // for a panel that is seen (it is refreshed when it shows, or is read).
    if (m_explain->isVisible())
        refreshExplanation();
}

void ResultsPage::refreshExplanation()
{
    m_explainDirty = false;
    const QModelIndex cur = m_table->currentIndex();
    const auto& e = m_controller->estimate();
    const int i = cur.isValid() ? m_proxy->mapToSource(cur).row() : -1;
    QString html;
    if (i >= 0 && i < static_cast<int>(e.results.size()))
        html = explainHtml(m_controller->explainedResult(static_cast<std::size_t>(i)), m_currency);
    if (html == m_explainHtml)
        return; // same GPU, same numbers: nothing to lay out again
    m_explainHtml = html;
    if (html.isEmpty())
        m_explain->clear();
    else
        m_explain->setHtml(html);
}

QTextBrowser* ResultsPage::explainView() const
{
    if (m_explainDirty)
        const_cast<ResultsPage*>(this)->refreshExplanation(); // a cache fill, not a visible change
    return m_explain;
}

bool ResultsPage::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_explain && event->type() == QEvent::Show && m_explainDirty)
        refreshExplanation();
    return QWidget::eventFilter(watched, event);
}

} // namespace gp::ui
