#include "chartpanel.h"
#include "chartstyle.h"

#include "ui/atomicfile.h"

#include "core/estimate/estimate.h"

#include <QAbstractBarSeries>
#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QPushButton>
#include <QScatterSeries>
#include <QVBoxLayout>

#ifdef GP_HAVE_SVG
#include <QSvgGenerator>
#endif

namespace gp::ui::charts {

ChartPanel::ChartPanel(ChartKind kind, QWidget* parent)
    : QWidget(parent)
    , m_kind(kind)
    , m_view(new QChartView(this))
    , m_caption(new QLabel(this))
{
    m_view->setRenderHint(QPainter::Antialiasing);
    m_view->setAccessibleName(chartTitle(kind));
    m_caption->setWordWrap(true);
    m_caption->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* save = new QPushButton(tr("Save chart as..."), this);
    save->setToolTip(svgSupported() ? tr("Save this chart as PNG or SVG") : tr("Save this chart as PNG"));
    connect(save, &QPushButton::clicked, this, [this] { emit saveRequested(m_kind); });
    auto* bottom = new QHBoxLayout;
    bottom->addWidget(m_caption, 1);
    bottom->addWidget(save);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_view, 1);
    layout->addLayout(bottom);
    m_view->setChart(new QChart); // an empty chart until the first estimate
}

ChartPanel::~ChartPanel() = default;

void ChartPanel::setEstimate(const gp::Estimate& e, const QString& currency)
{
    m_estimate = std::make_unique<gp::Estimate>(e);
    m_currency = currency;
    m_dirty = true;
    if (isVisible())
        rebuild();
}

void ChartPanel::showEvent(QShowEvent* event)
{
    if (m_dirty)
        rebuild();
    QWidget::showEvent(event);
}

void ChartPanel::ensureBuilt() const
{
    if (m_dirty)
        const_cast<ChartPanel*>(this)->rebuild(); // a cache fill, not a visible change
}

void ChartPanel::rebuild()
{
    m_dirty = false;
    if (!m_estimate)
        return;
    const gp::Estimate& e = *m_estimate;
    ChartOptions o;
    o.currency = m_currency;
    QChart* old = m_view->chart();
    m_view->setChart(buildChart(m_kind, e, o));
    delete old; // QChartView does not own a chart it no longer shows
    const ChartSelection sel = chartSelection(m_kind, e, o.maxGpus);
    m_gpuIds.clear();
    for (const int i : sel.indices)
        m_gpuIds.push_back(QString::fromStdString(e.results[static_cast<std::size_t>(i)].gpuId));
    m_caption->setText(e.results.empty() ? tr("No results.") : sel.caption);
}

QString ChartPanel::caption() const
{
    ensureBuilt();
    return m_caption->text();
}

std::optional<double> ChartPanel::shownValue(const QString& gpuId, const QString& seriesName) const
{
    ensureBuilt();
    const auto it = std::find(m_gpuIds.begin(), m_gpuIds.end(), gpuId);
    if (it == m_gpuIds.end())
        return std::nullopt;
    const int rank = static_cast<int>(it - m_gpuIds.begin());
    const int n = static_cast<int>(m_gpuIds.size());
    QChart* chart = m_view->chart();
    for (QAbstractSeries* s : chart->series()) {
        if (auto* bars = qobject_cast<QAbstractBarSeries*>(s)) {
            // Bar categories run bottom-up: the best (rank 0) is the last category.
            const int index = n - 1 - rank;
            if (seriesName.isEmpty()) {
                // The whole bar: the throughput and cost charts have one set per
                // GPU, with zeros in the other GPUs' rows.
                double sum = 0;
                for (QBarSet* set : bars->barSets())
                    if (index < set->count())
                        sum += set->at(index);
                return sum;
            }
            for (QBarSet* set : bars->barSets())
                if (set->label() == seriesName)
                    return index < set->count() ? std::optional<double>(set->at(index)) : std::nullopt;
        } else if (auto* xy = qobject_cast<QXYSeries*>(s); xy && xy->name() == seriesName && m_kind == ChartKind::Vram) {
            const int index = n - 1 - rank;
            for (const QPointF& p : xy->points())
                if (qRound(p.y()) == index)
                    return p.x();
        }
    }
    return std::nullopt;
}

std::optional<QColor> ChartPanel::shownColor(const QString& gpuId) const
{
    ensureBuilt();
    for (QAbstractSeries* s : m_view->chart()->series()) {
        if (auto* bars = qobject_cast<QAbstractBarSeries*>(s)) {
            for (QBarSet* set : bars->barSets())
                if (set->property(detail::kGpuIdProperty).toString() == gpuId)
                    return set->color();
        } else if (auto* points = qobject_cast<QScatterSeries*>(s);
                   points && points->property(detail::kGpuIdProperty).toString() == gpuId) {
            return points->color();
        }
    }
    return std::nullopt;
}

bool ChartPanel::svgSupported()
{
#ifdef GP_HAVE_SVG
    return true;
#else
    return false;
#endif
}

QString ChartPanel::saveImage(const QString& path) const
{
    ensureBuilt();
    return detail::saveChartImage(m_view, path, chartTitle(m_kind));
}

namespace detail {

QString saveChartImage(QChartView* view, const QString& path, const QString& title)
{
    // Painted into memory, then written by the one atomic writer.
    const QString suffix = QFileInfo(path).suffix().toLower();
    return writeFileAtomically(path, [&](QIODevice& device) -> QString {
        if (suffix == QLatin1String("svg")) {
#ifdef GP_HAVE_SVG
            QSvgGenerator gen;
            gen.setOutputDevice(&device);
            gen.setSize(view->size());
            gen.setViewBox(QRect(QPoint(0, 0), view->size()));
            gen.setTitle(title);
            QPainter p(&gen);
            view->render(&p);
            p.end();
            return {};
#else
            Q_UNUSED(title);
            Q_UNUSED(device);
            return QObject::tr("This build has no SVG support (Qt SVG was not found); save as PNG.");
#endif
        }
        const qreal dpr = 2.0; // crisp on high-DPI screens and in documents
        QPixmap pm(view->size() * dpr);
        pm.setDevicePixelRatio(dpr);
        pm.fill(view->chart()->backgroundBrush().color());
        QPainter p(&pm);
        p.setRenderHint(QPainter::Antialiasing);
        view->render(&p);
        p.end();
        if (!pm.save(&device, "PNG"))
            return QObject::tr("could not encode the PNG image");
        return {};
    });
}

} // namespace detail

} // namespace gp::ui::charts
