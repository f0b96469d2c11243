#include "rulespage.h"

#include "rulestablemodel.h"

#include "core/hardware/catalog.h"
#include "core/rules/rules.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QScrollBar>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>

namespace gp::ui {

RulesPage::RulesPage(QWidget* parent)
    : QWidget(parent)
    , m_model(new RulesTableModel(this))
    , m_proxy(new QSortFilterProxyModel(this))
    , m_view(new QTableView)
    , m_filter(new QComboBox)
    , m_summary(new QLabel)
{
    m_summary->setWordWrap(true);
    m_filter->addItem(tr("All verdicts"), QString());
    m_filter->addItem(tr("Holds"), QStringLiteral("holds"));
    m_filter->addItem(tr("Corrected"), QStringLiteral("corrected"));
    m_filter->addItem(tr("Depends"), QStringLiteral("depends"));
    m_filter->setAccessibleName(tr("Show verdicts"));
    auto* filterLabel = new QLabel(tr("Sho&w:"));
    filterLabel->setBuddy(m_filter);

    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(RulesTableModel::SortRole);
    m_proxy->setFilterRole(RulesTableModel::VerdictRole);
    m_proxy->setFilterKeyColumn(RulesTableModel::VerdictColumn);
    connect(m_filter, &QComboBox::currentIndexChanged, this, [this](int i) {
        const QString v = m_filter->itemData(i).toString();
        m_proxy->setFilterRegularExpression(v.isEmpty() ? QString() : QStringLiteral("^%1$").arg(v));
        m_view->resizeRowsToContents();
    });

    m_view->setModel(m_proxy);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(-1, Qt::AscendingOrder); // the articles' order until a header is clicked
    m_view->setWordWrap(true);
    m_view->setAlternatingRowColors(true);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setVerticalScrollMode(QAbstractItemView::ScrollPerPixel);
    m_view->verticalHeader()->hide();
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_view->setAccessibleName(tr("Rules of thumb"));

    auto* bar = new QHBoxLayout;
    bar->addWidget(m_summary, 1);
    bar->addWidget(filterLabel);
    bar->addWidget(m_filter);
    auto* layout = new QVBoxLayout(this);
    auto* intro = new QLabel(tr("Claims from the GPU-choice articles this tool grew from, recomputed with its own memory, "
                                "speed and cost models on the built-in catalog and calibration. <i>Corrected</i>: the "
                                "model disagrees and says why; <i>depends</i>: true under some assumptions only."));
    intro->setWordWrap(true);
    layout->addWidget(intro);
    layout->addLayout(bar);
    layout->addWidget(m_view, 1);
}

RulesPage::~RulesPage() = default;

void RulesPage::ensureComputed()
{
    if (m_computed)
        return;
    m_computed = true;
    std::vector<gp::RuleCheck> rules;
    try {
        // The articles' claims are checked against the reference catalog, as the CLI does.
        rules = gp::checkRulesOfThumb(gp::Catalog::builtin());
    } catch (const std::exception& e) {
        m_summary->setText(tr("The checks failed: %1").arg(QString::fromUtf8(e.what())));
        return;
    }
    const auto count = [&](const char* v) {
        return static_cast<int>(std::count_if(rules.begin(), rules.end(), [v](const auto& r) { return r.verdict == v; }));
    };
    m_summary->setText(tr("<b>%1 claims checked:</b> %2 hold, %3 corrected, %4 depend on the assumptions.")
                           .arg(rules.size())
                           .arg(count("holds"))
                           .arg(count("corrected"))
                           .arg(count("depends")));
    m_model->setRules(std::move(rules));
    QTimer::singleShot(0, this, [this] { resizeEvent(nullptr); });
}

void RulesPage::showEvent(QShowEvent* event)
{
    ensureComputed();
    QWidget::showEvent(event);
}

void RulesPage::resizeEvent(QResizeEvent* event)
{
    if (event)
        QWidget::resizeEvent(event);
    // Text columns share the width (the source column stretches into the rest,
    // scroll bar included); rows grow to their wrapped text.
    const int w = m_view->viewport()->width() - m_view->verticalScrollBar()->sizeHint().width();
    if (w <= 0 || m_model->rowCount() == 0)
        return;
    const int verdict = 110;
    const int source = std::max(120, w / 7);
    const int rest = std::max(300, w - verdict - source);
    m_view->setColumnWidth(RulesTableModel::VerdictColumn, verdict);
    m_view->setColumnWidth(RulesTableModel::ClaimColumn, rest * 28 / 100);
    m_view->setColumnWidth(RulesTableModel::FindingColumn, rest * 36 / 100);
    m_view->setColumnWidth(RulesTableModel::ReasonColumn, rest - rest * 28 / 100 - rest * 36 / 100);
    m_view->setColumnWidth(RulesTableModel::SourceColumn, std::max(source, w - verdict - rest));
    m_view->resizeRowsToContents();
}

} // namespace gp::ui
