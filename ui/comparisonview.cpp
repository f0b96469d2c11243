#include "comparisonview.h"

#include "comparisonmodel.h"
#include "estimatecontroller.h"
#include "gpupicker.h"

#include "core/hardware/catalog.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

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
        auto* c = new GpuPicker(this);
        c->setAccessibleName(tr("GPU %1 to compare").arg(i + 1));
        c->setToolTip(i == 0 ? tr("The baseline the ratios refer to; type to search")
                             : tr("Another GPU (or none); type to search"));
        c->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        c->setMinimumContentsLength(4); // four in a row in a 1024-px window
        connect(c, &GpuPicker::idChanged, this, [this] {
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
    auto* legend = new QLabel(tr("The best value of each row among the GPUs that fit is highlighted (all of them on a "
                                 "tie). Rows after the metrics are the terms the estimate summed; hover a value for "
                                 "its formula."));
    legend->setWordWrap(true);
    layout->addWidget(legend);
}

ComparisonView::~ComparisonView() = default;

void ComparisonView::setCatalog(const gp::Catalog& catalog)
{
    m_tiers.clear();
    for (const auto& g : catalog.gpus())
        m_tiers.insert(QString::fromStdString(g.id), static_cast<int>(g.tier));
    m_dirty = true;
    if (isVisible())
        rebuild();
}

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
    if (m_tiers.isEmpty())
        for (const auto& g : gp::Catalog::builtin().gpus())
            m_tiers.insert(QString::fromStdString(g.id), static_cast<int>(g.tier));
    std::vector<GpuPicker::Entry> entries;
    entries.reserve(e.results.size());
    for (const auto& r : e.results) {
        const QString id = QString::fromStdString(r.gpuId);
        entries.push_back({id, QString::fromStdString(r.gpuName), m_tiers.value(id, -1)});
    }
    m_updating = true;
    for (std::size_t i = 0; i < m_pick.size(); ++i)
        m_pick[i]->setEntries(entries, i >= 2);
    m_updating = false;
    m_model->setEstimate(e);
    // The remembered choice where its GPUs are in this estimate; filled up to two
    // (three when nothing was chosen) with the best options.
    const auto exists = [&](const QString& id) {
        return std::any_of(e.results.begin(), e.results.end(),
                           [&](const auto& r) { return QString::fromStdString(r.gpuId) == id; });
    };
    QStringList keep;
    for (const QString& id : std::as_const(m_chosen))
        if (exists(id) && !keep.contains(id))
            keep << id;
    const qsizetype want = keep.isEmpty() ? 3 : 2;
    for (const int k : displayOrder(e)) {
        if (keep.size() >= want)
            break;
        const QString id = QString::fromStdString(e.results[static_cast<std::size_t>(k)].gpuId);
        if (!keep.contains(id))
            keep << id;
    }
    showGpuIds(keep);
}

void ComparisonView::setCurrency(const QString& symbol)
{
    m_model->setCurrency(symbol);
    updateSentences();
}

void ComparisonView::setGpuIds(const QStringList& ids)
{
    ensureUpToDate();
    m_chosen = ids.mid(0, static_cast<qsizetype>(m_pick.size()));
    showGpuIds(ids);
}

void ComparisonView::showGpuIds(const QStringList& ids)
{
    m_updating = true;
    for (std::size_t i = 0; i < m_pick.size(); ++i) {
        const QString id = static_cast<qsizetype>(i) < ids.size() ? ids[static_cast<qsizetype>(i)] : QString();
        m_pick[i]->setCurrentId(id);
    }
    m_updating = false;
    QStringList shown;
    for (auto* c : m_pick) {
        const QString id = c->currentId();
        if (!id.isEmpty() && !shown.contains(id))
            shown << id;
    }
    if (fillTerms(shown))
        m_model->setEstimate(*m_estimate);
    m_model->setGpuIds(shown);
    updateSentences();
}

void ComparisonView::choicesChanged()
{
    // A pick by the user: that is the choice to remember.
    QStringList ids;
    for (auto* c : m_pick) {
        const QString id = c->currentId();
        if (!id.isEmpty() && !ids.contains(id))
            ids << id;
    }
    m_chosen = ids;
    showGpuIds(ids);
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
