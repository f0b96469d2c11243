#include "comparisonview.h"

#include "comparisonmodel.h"
#include "estimatecontroller.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QVBoxLayout>

namespace gp::ui {

ComparisonView::ComparisonView(QWidget* parent)
    : QWidget(parent)
    , m_model(new ComparisonModel(this))
    , m_table(new QTableView(this))
    , m_sentences(new QLabel(this))
{
    auto* picks = new QHBoxLayout;
    picks->addWidget(new QLabel(tr("Compare:")));
    for (std::size_t i = 0; i < m_pick.size(); ++i) {
        auto* c = new QComboBox(this);
        c->setAccessibleName(tr("GPU %1 to compare").arg(i + 1));
        c->setToolTip(i == 0 ? tr("The baseline the ratios refer to") : tr("Another GPU (or none)"));
        c->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        c->setMinimumContentsLength(14);
        connect(c, &QComboBox::currentIndexChanged, this, [this] {
            if (!m_updating)
                choicesChanged();
        });
        picks->addWidget(c, 1);
        m_pick[i] = c;
    }
    m_table->setModel(m_model);
    m_table->setAlternatingRowColors(true);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->setAccessibleName(tr("Side-by-side comparison"));
    m_sentences->setWordWrap(true);
    m_sentences->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QFont f = m_sentences->font();
    f.setPointSizeF(f.pointSizeF() * 1.1);
    m_sentences->setFont(f);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(picks);
    layout->addWidget(m_sentences);
    layout->addWidget(m_table, 1);
    auto* legend = new QLabel(tr("The best value of each metric is highlighted. Rows after the metrics are the terms "
                                 "the estimate summed; hover a value for its formula."));
    legend->setWordWrap(true);
    layout->addWidget(legend);
}

ComparisonView::~ComparisonView() = default;

void ComparisonView::setEstimate(const gp::Estimate& e)
{
    // Rebuilt when shown (or read): edits do not pay for a tab nobody looks at.
    m_estimate = std::make_unique<gp::Estimate>(e);
    m_dirty = true;
    if (isVisible())
        rebuild();
}

void ComparisonView::showEvent(QShowEvent* event)
{
    if (m_dirty)
        rebuild();
    QWidget::showEvent(event);
}

void ComparisonView::ensureUpToDate() const
{
    if (m_dirty)
        const_cast<ComparisonView*>(this)->rebuild(); // a cache fill
}

ComparisonModel* ComparisonView::model() const
{
    ensureUpToDate();
    return m_model;
}

void ComparisonView::rebuild()
{
    m_dirty = false;
    if (!m_estimate)
        return;
    const gp::Estimate& e = *m_estimate;
    QStringList keep = m_model->gpuIds();
    m_updating = true;
    for (std::size_t i = 0; i < m_pick.size(); ++i) {
        auto* c = m_pick[i];
        c->clear();
        if (i >= 2)
            c->addItem(tr("(none)"), QString());
        for (const int k : displayOrder(e)) {
            const auto& r = e.results[static_cast<std::size_t>(k)];
            c->addItem(QString::fromStdString(r.gpuName), QString::fromStdString(r.gpuId));
        }
    }
    m_updating = false;
    m_model->setEstimate(e);
    // Keep the user's picks that still exist; otherwise the three best options.
    keep.erase(std::remove_if(keep.begin(), keep.end(),
                              [&](const QString& id) {
                                  return std::none_of(e.results.begin(), e.results.end(),
                                                      [&](const auto& r) { return QString::fromStdString(r.gpuId) == id; });
                              }),
               keep.end());
    if (keep.size() < 2) {
        keep.clear();
        for (const int k : displayOrder(e)) {
            if (keep.size() >= 3)
                break;
            keep << QString::fromStdString(e.results[static_cast<std::size_t>(k)].gpuId);
        }
    }
    setGpuIds(keep);
}

void ComparisonView::setCurrency(const QString& symbol)
{
    m_model->setCurrency(symbol);
    updateSentences();
}

void ComparisonView::setGpuIds(const QStringList& ids)
{
    ensureUpToDate();
    m_updating = true;
    for (std::size_t i = 0; i < m_pick.size(); ++i) {
        const QString id = static_cast<qsizetype>(i) < ids.size() ? ids[static_cast<qsizetype>(i)] : QString();
        const int idx = m_pick[i]->findData(id);
        m_pick[i]->setCurrentIndex(idx >= 0 ? idx : (i >= 2 ? 0 : -1));
    }
    m_updating = false;
    choicesChanged();
}

void ComparisonView::choicesChanged()
{
    QStringList ids;
    for (auto* c : m_pick) {
        const QString id = c->currentData().toString();
        if (!id.isEmpty() && !ids.contains(id))
            ids << id;
    }
    if (fillTerms(ids))
        m_model->setEstimate(*m_estimate);
    m_model->setGpuIds(ids);
    updateSentences();
}

bool ComparisonView::fillTerms(const QStringList& ids)
{
    if (!m_explainer || !m_estimate)
        return false;
    bool filled = false;
    for (std::size_t i = 0; i < m_estimate->results.size(); ++i) {
        auto& r = m_estimate->results[i];
        if (r.terms.empty() && ids.contains(QString::fromStdString(r.gpuId))) {
            r = m_explainer(i);
            filled = true;
        }
    }
    return filled;
}

void ComparisonView::updateSentences()
{
    const QStringList s = m_model->ratioSentences();
    m_sentences->setText(s.isEmpty() ? tr("Pick at least two GPUs to compare.") : s.join(QLatin1Char('\n')));
}

QString ComparisonView::sentences() const
{
    ensureUpToDate();
    return m_sentences->text();
}

} // namespace gp::ui
