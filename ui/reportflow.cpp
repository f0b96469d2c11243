#include "reportflow.h"
#include "reporttables.h"

#include <QAbstractTextDocumentLayout>
#include <QFont>
#include <QPagedPaintDevice>
#include <QPainter>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocument>
#include <QTextFrame>
#include <QTextLayout>
#include <QTextTable>

#include <algorithm>
#include <limits>

namespace gp::ui {

// What one page shows of a document (the band docTop..docBottom, moved to
// pageTop), or a chart.
struct ReportFlow::Slice {
    int page = 0;
    QTextDocument* doc = nullptr;
    double docTop = 0;
    double docBottom = 0;
    double pageTop = 0;
    ChartPainter chart;
    QRectF target;
};

// What must not be split across pages: a line of text or a table row. top and
// bottom bound the text; boxTop and boxBottom a row's cells, border to border.
struct ReportFlow::Atom {
    double top = 0;
    double bottom = 0;
    double boxTop = 0;
    double boxBottom = 0;
    bool keepWithNext = false; // a heading line, a table's header row
    int table = -1;            // the report's table number; -1: text
    int row = 0;
    std::ptrdiff_t header = -1; // the atom of this table's header row
    QString firstLine;
    QString lastLine;
};

namespace {

QString lineText(const QTextBlock& block, bool last)
{
    const QTextLayout* l = block.layout();
    if (!l || l->lineCount() == 0)
        return {};
    const QTextLine line = l->lineAt(last ? l->lineCount() - 1 : 0);
    QString s = block.text().mid(line.textStart(), line.textLength());
    s.replace(QChar::LineSeparator, QLatin1Char(' '));
    return s.simplified();
}

} // namespace

ReportFlow::ReportFlow(QPagedPaintDevice* device, const QSizeF& body, double gap)
    : m_device(device)
    , m_body(body)
    , m_gap(gap)
{
}

ReportFlow::~ReportFlow() = default;

void ReportFlow::newPage()
{
    ++m_page;
    m_y = 0;
}

std::vector<ReportFlow::Atom> ReportFlow::atoms(const QTextDocument& doc)
{
    std::vector<Atom> out;
    const QAbstractTextDocumentLayout* layout = doc.documentLayout();
    for (auto it = doc.rootFrame()->begin(); !it.atEnd(); ++it) {
        if (auto* table = qobject_cast<QTextTable*>(it.currentFrame())) {
            const int number = m_tables++;
            const auto first = static_cast<std::ptrdiff_t>(out.size());
            for (int r = 0; r < table->rows(); ++r) {
                Atom a;
                a.table = number;
                a.row = r;
                a.header = first;
                a.keepWithNext = r == 0 && table->rows() > 1;
                a.top = std::numeric_limits<double>::max();
                a.bottom = std::numeric_limits<double>::lowest();
                for (int c = 0; c < table->columns(); ++c) {
                    const QTextTableCell cell = table->cellAt(r, c);
                    if (!cell.isValid() || cell.row() != r)
                        continue;
                    a.top = std::min(a.top, layout->blockBoundingRect(cell.firstCursorPosition().block()).top());
                    a.bottom = std::max(a.bottom, layout->blockBoundingRect(cell.lastCursorPosition().block()).bottom());
                }
                if (a.top > a.bottom)
                    continue;
                a.firstLine = lineText(table->cellAt(r, 0).firstCursorPosition().block(), false);
                a.lastLine = lineText(table->cellAt(r, table->columns() - 1).lastCursorPosition().block(), true);
                out.push_back(a);
            }
            // Cells have the same padding above and below: the border between two
            // rows is half way between their texts; the outer borders as far out.
            const auto last = static_cast<std::ptrdiff_t>(out.size());
            for (std::ptrdiff_t i = first; i < last; ++i) {
                Atom& a = out[static_cast<std::size_t>(i)];
                const double above = i > first ? (a.top - out[static_cast<std::size_t>(i - 1)].bottom) / 2 : -1;
                const double below = i + 1 < last ? (out[static_cast<std::size_t>(i + 1)].top - a.bottom) / 2 : -1;
                const double pad = std::max(0.0, above >= 0 ? above : below);
                a.boxTop = a.top - pad;
                a.boxBottom = a.bottom + std::max(0.0, below >= 0 ? below : pad);
            }
        } else if (QTextFrame* frame = it.currentFrame()) {
            const QRectF r = layout->frameBoundingRect(frame);
            out.push_back({r.top(), r.bottom(), r.top(), r.bottom(), false, -1, 0, -1, {}, {}});
        } else {
            const QTextBlock block = it.currentBlock();
            const QTextLayout* l = block.layout();
            const double y = layout->blockBoundingRect(block).top();
            const bool heading = block.blockFormat().headingLevel() > 0;
            for (int k = 0; l && k < l->lineCount(); ++k) {
                const QRectF r = l->lineAt(k).rect();
                out.push_back({y + r.top(), y + r.bottom(), y + r.top(), y + r.bottom(), heading, -1, 0, -1, {}, {}});
            }
        }
    }
    return out;
}

void ReportFlow::addText(const QString& html, double keepWithNext)
{
    auto doc = std::make_unique<QTextDocument>();
    doc->documentLayout()->setPaintDevice(m_device);
    QFont f(QStringLiteral("DejaVu Sans"));
    f.setStyleHint(QFont::SansSerif);
    f.setPointSizeF(8.5);
    doc->setDefaultFont(f);
    doc->setDocumentMargin(0);
    doc->setTextWidth(m_body.width()); // one long page; the breaks are made here
    doc->setHtml(html);
    fitTableColumns(*doc); // whole words and prices in every cell
    const std::vector<Atom> as = atoms(*doc);
    const double H = m_body.height();
    const double natural = doc->documentLayout()->documentSize().height();
    if (as.empty())
        return;

    // Short blocks move to a new page whole; long ones start here and continue
    // on the next page, unless only a sliver of this one is left.
    if (m_y > 0 && m_y + natural + keepWithNext > H && (natural + keepWithNext <= H * 0.55 || H - m_y < H * 0.15))
        newPage();

    QTextDocument* d = doc.get();
    double docTop = 0;
    double pageTop = m_y;
    std::size_t firstOnPage = 0;
    const auto toPage = [&](double docY) { return pageTop + docY - docTop; };
    for (std::size_t i = 0; i < as.size(); ++i) {
        const Atom& a = as[i];
        // A heading and a header row stay with what follows (unless that chain is long).
        std::size_t j = i;
        while (as[j].keepWithNext && j + 1 < as.size() && as[j + 1].boxBottom - a.boxTop < H * 0.3)
            ++j;
        if (i > firstOnPage && toPage(as[j].boxBottom) > H) {
            const Atom& prev = as[i - 1];
            const bool sameTable = a.table >= 0 && prev.table == a.table;
            // Cut on the border between two rows (drawn on both pages), or in
            // the space between two lines.
            const double cut = sameTable ? a.boxTop : (prev.boxBottom + a.boxTop) / 2;
            const double edge = sameTable ? (a.top - a.boxTop) * 0.3 : 0;
            m_slices.push_back({m_page, d, docTop, cut + edge, pageTop, {}, {}});
            newPage();
            firstOnPage = i;
            pageTop = 0;
            docTop = cut - edge;
            if (sameTable && a.header >= 0 && a.row > 0) {
                // The header row again on top of the rest of the table.
                const Atom& h = as[static_cast<std::size_t>(a.header)];
                const double hEdge = (h.top - h.boxTop) * 0.3;
                m_slices.push_back({m_page, d, h.boxTop - hEdge, h.boxBottom + hEdge, 0, {}, {}});
                m_rows.push_back({h.table, h.row, m_page, hEdge, hEdge + h.boxBottom - h.boxTop, true, h.firstLine, h.lastLine});
                // The cut (this row's top border) on the header's bottom border.
                pageTop = hEdge + h.boxBottom - h.boxTop - edge;
            }
        }
        if (a.table >= 0)
            m_rows.push_back({a.table, a.row, m_page, toPage(a.boxTop), toPage(a.boxBottom), false, a.firstLine, a.lastLine});
    }
    m_slices.push_back({m_page, d, docTop, natural, pageTop, {}, {}});
    m_y = toPage(natural) + m_gap * 0.5;
    m_docs.push_back(std::move(doc));
}

void ReportFlow::addChart(ChartPainter paint, double height)
{
    if (m_y > 0 && m_y + height > m_body.height())
        newPage();
    m_slices.push_back({m_page, nullptr, 0, 0, 0, std::move(paint), QRectF(0, m_y, m_body.width(), height)});
    m_y += height + m_gap;
}

void ReportFlow::paintPage(QPainter* painter, int page) const
{
    for (const Slice& s : m_slices) {
        if (s.page != page)
            continue;
        if (s.chart) {
            s.chart(painter, s.target, page);
            continue;
        }
        painter->save();
        painter->translate(0, s.pageTop - s.docTop);
        s.doc->drawContents(painter, QRectF(0, s.docTop, m_body.width(), s.docBottom - s.docTop));
        painter->restore();
    }
}

} // namespace gp::ui
