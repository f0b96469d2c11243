#include "reportbuilder.h"
#include "reportlaunch.h"

#include "atomicfile.h"
#include "calibrationfile.h"
#include "estimatecontroller.h"
#include "format.h"
#include "modelspecs.h"
#include "reporthtml.h"


#include "charts/chartfactory.h"
#include "charts/plannercharts.h"
#include "charts/rentbuymarker.h"

#include "core/base/errors.h"
#include "core/estimate/confidence.h"
#include "core/scenario/scenarioname.h"
#include "core/base/units.h"

#include <QDir>
#include <QFont>
#include <QFontMetricsF>
#include <QPageLayout>
#include <QPainter>
#include <QPdfWriter>

#include <algorithm>
#include <cmath>
#include <map>

namespace gp::ui {

using reporthtml::esc;
using reporthtml::opt;
using reporthtml::sv;

QString scenarioSummary(const gp::Scenario& s)
{
    QString what;
    if (s.mode == gp::Mode::Training) {
        const auto& t = s.training;
        what = QObject::tr("training (%1, %2, %3 optimizer), micro-batch %4")
                   .arg(sv(gp::toString(t.method)), sv(gp::toString(t.precision)), sv(gp::toString(t.optimizer)))
                   .arg(t.microBatch);
        if (s.model.isLanguageModel())
            what += QObject::tr(" x %1 tokens").arg(t.seqLen);
        if (t.gradAccum > 1)
            what += QObject::tr(", grad accum %1").arg(t.gradAccum);
        if (t.datasetTokens)
            what += QObject::tr(", %1 tokens x %2 epochs").arg(formatCount(*t.datasetTokens), formatNumber(t.epochs));
        if (t.datasetSamples)
            what += QObject::tr(", %1 samples x %2 epochs").arg(formatCount(*t.datasetSamples), formatNumber(t.epochs));
    } else {
        const auto& i = s.inference;
        what = QObject::tr("inference (%1), batch %2").arg(sv(gp::toString(i.precision))).arg(i.batch);
        if (s.model.isLanguageModel())
            what += QObject::tr(", %1 prompt + %2 output tokens").arg(i.promptTokens).arg(i.outputTokens);
    }
    return QObject::tr("%1, %2, %3 GPU(s) per job (TP %4, PP %5, ZeRO %6), %7 runtime, %8 pricing")
        .arg(QString::fromStdString(s.model.name), what)
        .arg(s.hardware.count)
        .arg(s.hardware.tp)
        .arg(s.hardware.pp)
        .arg(s.hardware.zero)
        .arg(sv(gp::toString(s.runtime)), sv(gp::toString(s.pricing.model)));
}

ReportBuilder::ReportBuilder(const gp::Scenario& scenario, const gp::Estimate& estimate, const gp::Catalog& catalog)
    : m_scenario(scenario)
    , m_title(printableName(QString::fromStdString(scenario.name.empty() ? gp::autoScenarioName(scenario) : scenario.name)))
    , m_estimate(estimate)
    , m_catalog(catalog)
{
}

std::vector<int> ReportBuilder::shownIndices() const
{
    std::vector<int> order = displayOrder(m_estimate);
    if (static_cast<int>(order.size()) > kMaxTableGpus)
        order.resize(kMaxTableGpus);
    return order;
}

QStringList ReportBuilder::shownGpuIds() const
{
    QStringList out;
    for (const int i : shownIndices())
        out << QString::fromStdString(m_estimate.results[static_cast<std::size_t>(i)].gpuId);
    return out;
}

ReportRecommendation ReportBuilder::recommendation() const
{
    return reportRecommendation(m_scenario, m_estimate, m_plan ? &*m_plan : nullptr, m_currency);
}

QString ReportBuilder::htmlBeforeCharts() const
{
    const auto& e = m_estimate;
    const bool inference = m_scenario.mode == gp::Mode::Inference;
    QString h = reporthtml::style();
    h += QStringLiteral("<h1>%1</h1>").arg(htmlEscape(m_title));
    h += QObject::tr("<p class='muted'>GPU Planner report, %1</p>").arg(m_timestamp.toString(QStringLiteral("yyyy-MM-dd HH:mm")));
    h += QObject::tr("<p><b>Scenario:</b> %1.</p>").arg(htmlEscape(scenarioSummary(m_scenario)));
    h += QObject::tr("<p><b>Model:</b> %1.</p>").arg(htmlEscape(describeModel(m_scenario.model)));

    h += QObject::tr("<h2>Recommendation</h2>");
    const ReportRecommendation recommended = recommendation();
    const int rec = recommended.estimateIndex;
    h += QStringLiteral("<p>%1</p>").arg(htmlEscape(recommended.headline));
    if (rec >= 0) {
        const auto& r = e.results[static_cast<std::size_t>(rec)];
        QStringList why;
        why << QObject::tr("it fits: %1 of %2 GiB per GPU at the peak")
                   .arg(formatNumber(gp::units::bytesToGiB(r.memory.total())),
                        formatNumber(gp::units::bytesToGiB(r.capacityBytes)));
        why << (r.targetMisses.empty() ? QObject::tr("it meets every target given") : QString());
        if (const auto t = throughputOf(r))
            why << QObject::tr("throughput %1 %2 (±%3%)")
                       .arg(formatNumber(*t), throughputUnit(e), formatNumber(r.uncertainty.throughput * 100, 2));
        why.removeAll(QString());
        h += QObject::tr("<p>Why: %1. Every other option that fits and meets the targets costs more; see the "
                         "table and the cost charts.</p>")
                 .arg(htmlEscape(why.join(QStringLiteral("; "))));
    }
    if (!recommended.plannerNote.isEmpty())
        h += QStringLiteral("<p>%1</p>").arg(htmlEscape(recommended.plannerNote));
    for (const auto& w : e.warnings)
        h += QStringLiteral("<p class='warn'>%1</p>").arg(esc(w));

    h += QObject::tr("<h2>Comparison</h2>");
    const auto shown = shownIndices();
    h += QStringLiteral("<table border='1' cellspacing='0' width='100%'><tr>");
    const QStringList heads = inference
                                  ? QStringList{QObject::tr("GPU"), QObject::tr("Fits"), QObject::tr("VRAM need / has (GiB)"),
                                                QObject::tr("%1").arg(throughputUnit(e)), QObject::tr("TTFT (ms)"),
                                                QObject::tr("TPOT (ms)"), QObject::tr("%1/h").arg(m_currency),
                                                QObject::tr("%1 / M tokens").arg(m_currency), QObject::tr("± thr.")}
                                  : QStringList{QObject::tr("GPU"), QObject::tr("Fits"), QObject::tr("VRAM need / has (GiB)"),
                                                QObject::tr("%1").arg(throughputUnit(e)), QObject::tr("Step (ms)"),
                                                QObject::tr("Time (h)"), QObject::tr("%1/h").arg(m_currency),
                                                QObject::tr("Cost to train"), QObject::tr("± thr.")};
    for (const auto& t : heads)
        h += QStringLiteral("<th>%1</th>").arg(htmlEscape(t));
    h += QStringLiteral("</tr>");
    for (const int i : shown) {
        const auto& r = e.results[static_cast<std::size_t>(i)];
        const QString cls = i == rec ? QStringLiteral(" class='rec'") : (!r.fits ? QStringLiteral(" class='bad'") : (!r.meetsTargets ? QStringLiteral(" class='warn'") : QString()));
        h += QStringLiteral("<tr%1>").arg(cls);
        h += QStringLiteral("<td>%1%2</td>").arg(r.count > 1 ? QStringLiteral("%1x ").arg(r.count) : QString(), esc(r.gpuName));
        h += QStringLiteral("<td>%1</td>").arg(r.fits ? (r.meetsTargets ? QObject::tr("yes") : QObject::tr("misses target")) : QObject::tr("no"));
        h += QStringLiteral("<td align='right'>%1 / %2</td>")
                 .arg(formatNumber(gp::units::bytesToGiB(r.memory.total())), formatNumber(gp::units::bytesToGiB(r.capacityBytes)));
        h += QStringLiteral("<td align='right'>%1</td>").arg(opt(throughputOf(r)));
        if (r.inference) {
            h += QStringLiteral("<td align='right'>%1</td><td align='right'>%2</td>")
                     .arg(opt(r.inference->ttftMs ? r.inference->ttftMs : r.inference->latencyMs), opt(r.inference->tpotMs));
            h += QStringLiteral("<td align='right'>%1</td><td align='right'>%2</td>")
                     .arg(formatPrice(r.usdPerHour, m_currency),
                          r.inference->usdPerMillionTokens ? formatPrice(*r.inference->usdPerMillionTokens, m_currency)
                          : r.usdPerHour > 0               ? QStringLiteral("—")
                                                           : QObject::tr("no price"));
        } else if (r.training) {
            h += QStringLiteral("<td align='right'>%1</td><td align='right'>%2</td>")
                     .arg(formatNumber(r.training->stepMs), opt(r.training->hours));
            h += QStringLiteral("<td align='right'>%1</td><td align='right'>%2</td>")
                     .arg(formatPrice(r.usdPerHour, m_currency),
                          r.training->costUsd ? formatPrice(*r.training->costUsd, m_currency)
                          : r.usdPerHour > 0  ? QStringLiteral("—")
                                              : QObject::tr("no price"));
        }
        h += QStringLiteral("<td align='right'>±%1%</td></tr>").arg(formatNumber(r.uncertainty.throughput * 100, 2));
    }
    h += QStringLiteral("</table>");
    if (e.results.size() > shown.size())
        h += QObject::tr("<p class='muted'>The %1 best of %2 GPUs considered are shown (fitting and meeting the targets "
                         "first, then by cost).</p>")
                 .arg(shown.size())
                 .arg(e.results.size());
    for (const int i : shown) {
        const auto& r = e.results[static_cast<std::size_t>(i)];
        for (const auto& m : r.targetMisses)
            h += QStringLiteral("<p class='warn'>%1: %2</p>").arg(esc(r.gpuName), esc(m));
    }
    return h;
}

QString ReportBuilder::htmlAfterCharts() const
{
    const auto& e = m_estimate;
    const auto shown = shownIndices();
    QString h = reporthtml::style();
    h += QObject::tr("<h2>Memory breakdown per GPU (GiB, at the peak of the job)</h2>");
    h += QStringLiteral("<table border='1' cellspacing='0' width='100%'><tr>");
    for (const auto& t : {QObject::tr("GPU"), QObject::tr("Weights"), QObject::tr("Gradients"), QObject::tr("Optimizer"),
                          QObject::tr("Activations"), QObject::tr("KV cache"), QObject::tr("Overhead"), QObject::tr("Total"),
                          QObject::tr("Capacity")})
        h += QStringLiteral("<th>%1</th>").arg(t);
    h += QStringLiteral("</tr>");
    for (const int i : shown) {
        const auto& r = e.results[static_cast<std::size_t>(i)];
        const auto& m = r.memory;
        h += QStringLiteral("<tr><td>%1</td>").arg(esc(r.gpuName));
        for (const double b : {m.weights, m.gradients, m.optimizer, m.activations, m.kvCache, m.overhead, m.total(), r.capacityBytes})
            h += QStringLiteral("<td align='right'>%1</td>").arg(formatNumber(gp::units::bytesToGiB(b)));
        h += QStringLiteral("</tr>");
    }
    h += QStringLiteral("</table>");

    // Assumptions: the same note on many GPUs is printed once, with the GPUs it applies to.
    h += QObject::tr("<h2>Assumptions and notes</h2>");
    std::vector<std::string> order;
    std::map<std::string, QStringList> notes;
    for (const int i : shown) {
        const auto& r = e.results[static_cast<std::size_t>(i)];
        for (const auto& n : r.notes) {
            if (!notes.count(n))
                order.push_back(n);
            notes[n] << QString::fromStdString(r.gpuName);
        }
    }
    if (order.empty()) {
        h += QObject::tr("<p>No fallbacks or special assumptions beyond the model defaults.</p>");
    } else {
        h += QStringLiteral("<ul>");
        for (const auto& n : order) {
            const QStringList& gpus = notes[n];
            const QString where = gpus.size() == static_cast<qsizetype>(shown.size()) && shown.size() > 1
                                      ? QObject::tr("all GPUs")
                                      : gpus.join(QStringLiteral(", "));
            h += QStringLiteral("<li>%1 <span class='muted'>(%2)</span></li>").arg(esc(n), htmlEscape(where));
        }
        h += QStringLiteral("</ul>");
    }
    if (m_scenario.model.approximate)
        h += QObject::tr("<p>The model shape is approximate: %1</p>").arg(esc(m_scenario.model.shapeNote));

    h += QObject::tr("<h2>Uncertainty</h2><p>Relative 1-sigma error bands from the calibration residuals "
                     "(predicted vs measured): a ±20% band means about two in three measured runs land within 20% "
                     "of the estimate.</p>");
    h += QStringLiteral("<p>%1</p>").arg(htmlEscape(calibrationText()));
    // Where each throughput band comes from, by distance from measurement (issue #16).
    h += QStringLiteral("<table border='1' cellspacing='0'><tr><th>%1</th><th>%2</th><th>%3</th><th>%4</th></tr>")
             .arg(QObject::tr("GPU"), QObject::tr("Memory ±"), QObject::tr("Throughput ±"),
                  QObject::tr("Throughput band from"));
    for (const int i : shown) {
        const auto& r = e.results[static_cast<std::size_t>(i)];
        h += QStringLiteral("<tr><td>%1</td><td align='right'>%2%</td><td align='right'>%3%</td><td>%4</td></tr>")
                 .arg(esc(r.gpuName), formatNumber(r.uncertainty.memory * 100, 2), formatNumber(r.uncertainty.throughput * 100, 2),
                      esc(gp::bandOrigin(r.uncertainty)));
    }
    h += QStringLiteral("</table>");

    const int rec = recommendedIndex(e);
    if (rec >= 0) {
        const auto& r = e.results[static_cast<std::size_t>(rec)];
        h += QObject::tr("<h2>How the recommendation's numbers were computed (%1)</h2>").arg(esc(r.gpuName));
        h += QStringLiteral("<table border='1' cellspacing='0' width='100%'><tr><th>%1</th><th>%2</th><th>%3</th><th>%4</th></tr>")
                 .arg(QObject::tr("Term"), QObject::tr("Value"), QObject::tr("Unit"), QObject::tr("Formula"));
        for (const auto& t : r.terms)
            h += QStringLiteral("<tr><td>%1</td><td align='right'>%2</td><td>%3</td><td>%4</td></tr>")
                     .arg(esc(t.label), formatNumber(t.value, 4), esc(t.unit), esc(t.formula));
        h += QStringLiteral("</table>");
    }

    h += QObject::tr("<h2>Catalog sources and price dates</h2>");
    h += QStringLiteral("<table border='1' cellspacing='0' width='100%'><tr><th>%1</th><th>%2</th><th>%3</th><th>%4</th></tr>")
             .arg(QObject::tr("GPU"), QObject::tr("Typical %1/h (seen)").arg(m_currency), QObject::tr("Purchase"),
                  QObject::tr("Sources"));
    for (const int i : shown) {
        const auto& r = e.results[static_cast<std::size_t>(i)];
        const gp::Gpu* g = m_catalog.find(r.gpuId);
        if (!g)
            continue;
        QStringList src;
        for (const auto& s : g->sources)
            src << esc(s);
        h += QStringLiteral("<tr><td>%1%2</td><td>%3 (%4)<br><span class='muted'>%5</span></td><td>%6</td><td>%7</td></tr>")
                 .arg(esc(g->name), g->userDefined ? QObject::tr(" <i>(user edited)</i>") : QString(),
                      formatPrice(g->pricePerHour.typical, m_currency), esc(g->pricePerHour.seen), esc(g->pricePerHour.providers),
                      g->purchaseUsd > 0 ? formatMoney(g->purchaseUsd, m_currency) : QStringLiteral("—"),
                      src.join(QStringLiteral("<br>")));
    }
    h += QStringLiteral("</table>");
    return h;
}

QString ReportBuilder::calibrationText() const
{
    if (m_calibrationPath.isEmpty())
        return QObject::tr("Calibration: %1").arg(calibrationName(QString()));
    return QObject::tr("Calibration: %1 (%2)").arg(calibrationName(m_calibrationPath), QDir::toNativeSeparators(m_calibrationPath));
}

void ReportBuilder::prepare()
{
    if (m_prepared)
        return;
    m_prepared = true;
    const auto problems = [](const gp::InputError& e) {
        QStringList lines;
        for (const auto& d : e.problems())
            lines << QString::fromStdString(d.text());
        return lines.join(QStringLiteral("; "));
    };
    // The plan is needed for its section, and for the recommendation when no GPU
    // meets the targets as configured.
    if (((m_sections & PlanSection) || recommendedIndex(m_estimate) < 0) && !m_plan) {
        try {
            m_plan = gp::plan(m_scenario, m_catalog, gp::PlanRequest{kMaxPlanOptions, m_calibration});
        } catch (const gp::InputError& e) {
            m_planError = problems(e);
        } catch (const std::exception& e) {
            m_planError = QString::fromUtf8(e.what());
        }
    }
    if (m_sections & RentBuySection) {
        // The recommendation's GPUs; only when there is none, the best-ranked GPU with a price.
        const ReportRecommendation rec = recommendation();
        std::optional<GpuChoice> pick;
        if (rec.source != ReportRecommendation::Source::None)
            pick = GpuChoice{rec.gpu, rec.gpus};
        else
            pick = rentBuyChoice(m_estimate, m_scenario, m_catalog);
        m_rentBuyUnrecommended = rec.source == ReportRecommendation::Source::None;
        const gp::Gpu* g = pick ? m_catalog.find(pick->gpu) : nullptr;
        if (g && g->pricePerHour.typical <= 0 && g->purchaseUsd <= 0) {
            m_rentBuyError = QObject::tr("The recommended setup, %1, has no rental or purchase price in the catalog.")
                                 .arg(rec.setup);
        } else if (!g) {
            m_rentBuyError = QObject::tr("No GPU of this report has a rental or purchase price.");
        } else {
            try {
                m_rentBuy = gp::rentVsBuy(m_scenario, *g, pick->count);
            } catch (const gp::InputError& e) {
                m_rentBuyError = problems(e);
            }
        }
    }
    if (m_sections & RulesSection) {
        try {
            // The articles' claims are checked against the reference catalog, as the CLI does.
            m_rules = gp::checkRulesOfThumb(gp::Catalog::builtin());
        } catch (const std::exception& e) {
            m_rules.clear();
        }
    }
}

void ReportBuilder::paint(QPdfWriter& writer)
{
    prepare();
    QPainter painter(&writer);
    painter.setRenderHint(QPainter::Antialiasing);
    const double dpi = writer.resolution();
    const double footerH = dpi * 0.3;
    const QSizeF body(writer.width(), writer.height() - footerH);
    const double H = body.height();
    const double gap = dpi * 0.12;
    m_layout = ReportLayout{};
    m_layout.body = body;

    charts::ChartOptions options;
    options.print = true;
    options.currency = m_currency;

    // Text flows down the pages, breaking between lines and table rows; charts
    // start a new page only when they do not fit. A short intro stays with the
    // chart it introduces.
    ReportFlow flow(&writer, body, gap);
    const auto intro = [&](const QString& html, bool chartNext, double share) {
        if (!html.isEmpty())
            flow.addText(html, chartNext ? share * H + gap : 0);
    };
    intro(htmlBeforeCharts(), false, 0);
    for (int k = 0; k < charts::kChartKindCount; ++k)
        flow.addChart([this, k, options](QPainter* p, const QRectF& r, int) {
            charts::paintChart(static_cast<charts::ChartKind>(k), m_estimate, options, p, r);
        }, 0.48 * H);
    if (m_sections & PlanSection) {
        const bool chartIt = m_plan && !m_plan->options.empty();
        intro(htmlPlan(), chartIt, 0.42);
        if (chartIt)
            flow.addChart([this, options](QPainter* p, const QRectF& r, int) { charts::paintPlanChart(*m_plan, options, p, r); },
                          0.42 * H);
        intro(htmlPlanAfterChart(), false, 0);
    }
    if (m_sections & RentBuySection) {
        intro(htmlRentBuy(), m_rentBuy.has_value(), 0.40);
        if (m_rentBuy)
            flow.addChart([this, options](QPainter* p, const QRectF& r, int page) {
                // The break-even rule and its label, placed clear of the curves.
                m_layout.breakEven = charts::paintRentBuyChartMarked(*m_rentBuy, options, p, r);
                m_layout.breakEvenPage = page;
            }, 0.40 * H);
        intro(htmlRentBuyAfterChart(), false, 0);
    }
    // One block per section, so a section that fits whole on the next page
    // moves there instead of starting at the bottom of this one.
    const QString after = htmlAfterCharts();
    const QString h2 = QStringLiteral("<h2>");
    for (qsizetype from = after.indexOf(h2); from >= 0;) {
        const qsizetype to = after.indexOf(h2, from + h2.size());
        intro(reporthtml::style() + after.mid(from, to < 0 ? -1 : to - from), false, 0);
        from = to;
    }
    intro(htmlRules(), false, 0);
    intro(launchAppendixHtml(m_scenario, m_plan ? &*m_plan : nullptr, m_catalog, m_calibration), false, 0);
    intro(reporthtml::style() + QObject::tr("<p class='muted'>Estimates from first-principles memory and roofline models calibrated "
                               "against measured runs; treat them as planning figures, not quotes. Prices change "
                               "weekly. %1.</p>").arg(htmlEscape(calibrationText())),
          false, 0);
    m_pages = flow.pageCount();
    m_layout.pages = m_pages;
    m_layout.rows = flow.rows();

    // Page by page, with the footer.
    QFont footerFont(QStringLiteral("DejaVu Sans"));
    footerFont.setPointSizeF(7);
    // The name is already short (title()); elided once more to the left two thirds
    // of the line, laid out once, not per page.
    const QString footer = QFontMetricsF(footerFont, &writer)
                               .elidedText(QObject::tr("GPU Planner — %1").arg(m_title), Qt::ElideRight,
                                           writer.width() * 0.66);
    for (int p = 0; p < m_pages; ++p) {
        if (p > 0)
            writer.newPage();
        flow.paintPage(&painter, p);
        painter.save();
        painter.setFont(footerFont);
        painter.setPen(QColor(0x55, 0x55, 0x55));
        const QRectF r(0, writer.height() - footerH * 0.8, writer.width(), footerH * 0.8);
        painter.drawText(r, Qt::AlignLeft | Qt::AlignBottom, footer);
        painter.drawText(r, Qt::AlignRight | Qt::AlignBottom, QObject::tr("Page %1 of %2").arg(p + 1).arg(m_pages));
        painter.restore();
    }
    painter.end();
}

QString ReportBuilder::write(const QString& path)
{
    // Painted into memory, then written by the one atomic writer.
    return writeFileAtomically(path, [this](QIODevice& device) -> QString {
        QPdfWriter writer(&device);
        writer.setPageSize(QPageSize(QPageSize::A4));
        writer.setPageMargins(QMarginsF(15, 15, 15, 12), QPageLayout::Millimeter);
        writer.setResolution(300);
        writer.setTitle(QObject::tr("GPU Planner report: %1").arg(m_title));
        writer.setCreator(QStringLiteral("GPU Planner"));
        paint(writer);
        return {};
    });
}

} // namespace gp::ui
