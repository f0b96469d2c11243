#include "reporttables.h"

#include <QAbstractTextDocumentLayout>
#include <QFontMetricsF>
#include <QTextBlock>
#include <QTextLayout>
#include <QTextCursor>
#include <QTextDocument>
#include <QTextFrame>
#include <QTextTable>

#include <algorithm>
#include <numeric>
#include <vector>

namespace gp::ui {

namespace {

constexpr int kShortCell = 10; // characters

/// A line of the cell ends inside a word (Qt's emergency break).
bool breaksAWord(const QTextTableCell& cell)
{
    for (auto it = cell.begin(); !it.atEnd(); ++it) {
        const QTextBlock block = it.currentBlock();
        const QTextLayout* layout = block.isValid() ? block.layout() : nullptr;
        if (!layout)
            continue;
        const QString text = block.text();
        for (int i = 0; i + 1 < layout->lineCount(); ++i) {
            const QTextLine line = layout->lineAt(i);
            const int end = line.textStart() + line.textLength(); // the next line's first character
            if (end <= 0 || end >= text.size())
                continue;
            if (!text.at(end - 1).isSpace() && !text.at(end).isSpace() && text.at(end - 1) != QLatin1Char('/') &&
                text.at(end - 1) != QLatin1Char('-'))
                return true;
        }
    }
    return false;
}

void fitTable(QTextDocument& doc, QTextTable* table)
{
    const int cols = table->columns();
    if (cols < 2)
        return;
    QPaintDevice* device = doc.documentLayout()->paintDevice();
    QTextTableFormat format = table->format();
    const double border = format.border();
    std::vector<double> minW(static_cast<std::size_t>(cols), 0.0), maxW(static_cast<std::size_t>(cols), 0.0);
    for (int r = 0; r < table->rows(); ++r) {
        for (int c = 0; c < cols; ++c) {
            const QTextTableCell cell = table->cellAt(r, c);
            if (cell.row() != r || cell.column() != c || cell.columnSpan() > 1)
                continue; // a spanned cell is measured where it starts; a wide one sets no column
            const QTextTableCellFormat cf = cell.format().toTableCellFormat();
            const double left = cf.hasProperty(QTextFormat::TableCellLeftPadding) ? cf.leftPadding() : format.cellPadding();
            const double right = cf.hasProperty(QTextFormat::TableCellRightPadding) ? cf.rightPadding() : format.cellPadding();
            // Padding, both borders and the spacing, and a little for rounding.
            const double extra = left + right + 2 * border + format.cellSpacing() + 2;
            auto& lo = minW[static_cast<std::size_t>(c)];
            auto& hi = maxW[static_cast<std::size_t>(c)];
            for (auto it = cell.begin(); !it.atEnd(); ++it) {
                const QTextBlock block = it.currentBlock();
                if (!block.isValid())
                    continue;
                double line = 0;
                for (auto f = block.begin(); !f.atEnd(); ++f) {
                    const QTextFragment frag = f.fragment();
                    if (!frag.isValid())
                        continue;
                    const QFontMetricsF fm(frag.charFormat().font().resolve(doc.defaultFont()), device);
                    const QString text = frag.text();
                    for (const QString& word : text.split(QLatin1Char(' '), Qt::SkipEmptyParts))
                        lo = std::max(lo, fm.horizontalAdvance(word) + extra);
                    line += fm.horizontalAdvance(text);
                }
                hi = std::max(hi, line + extra);
                // A short value stays on one line: "batch 16", "59.8 / 287", "TPOT (ms)".
                if (block.text().size() <= kShortCell)
                    lo = std::max(lo, line + extra);
            }
        }
    }
    const double avail = doc.textWidth() - 2 * border - format.leftMargin() - format.rightMargin();
    if (avail <= 0)
        return;
    const double sumMin = std::accumulate(minW.begin(), minW.end(), 0.0);
    std::vector<double> width = minW;
    if (sumMin < avail) {
        double flex = 0;
        for (int c = 0; c < cols; ++c)
            flex += std::max(0.0, maxW[static_cast<std::size_t>(c)] - minW[static_cast<std::size_t>(c)]);
        const double spare = avail - sumMin;
        for (int c = 0; c < cols; ++c) {
            const auto i = static_cast<std::size_t>(c);
            width[i] += flex > 0 ? spare * std::max(0.0, maxW[i] - minW[i]) / flex : spare / cols;
        }
    }
    const double total = std::accumulate(width.begin(), width.end(), 0.0);
    if (total <= 0)
        return;
    const auto apply = [&] {
        const double sum = std::accumulate(width.begin(), width.end(), 0.0);
        QList<QTextLength> constraints;
        for (const double w : width)
            constraints << QTextLength(QTextLength::PercentageLength, 100.0 * w / sum);
        format.setColumnWidthConstraints(constraints);
        table->setFormat(format);
    };
    apply();
    // Qt's accounting of padding and borders differs a little from the above:
    // widen a column that still breaks a word, until none does (or it cannot help).
    for (int round = 0; round < 12; ++round) {
        (void)doc.documentLayout()->documentSize(); // lay out
        std::vector<bool> broken(static_cast<std::size_t>(cols), false);
        bool any = false;
        for (int r = 0; r < table->rows(); ++r)
            for (int c = 0; c < cols; ++c) {
                const QTextTableCell cell = table->cellAt(r, c);
                if (cell.row() == r && cell.column() == c && cell.columnSpan() == 1 && breaksAWord(cell)) {
                    broken[static_cast<std::size_t>(c)] = true;
                    any = true;
                }
            }
        if (!any)
            return;
        for (int c = 0; c < cols; ++c)
            if (broken[static_cast<std::size_t>(c)])
                width[static_cast<std::size_t>(c)] *= 1.08;
        apply();
    }
}

void fitFrame(QTextDocument& doc, QTextFrame* frame)
{
    for (QTextFrame* child : frame->childFrames()) {
        if (auto* table = qobject_cast<QTextTable*>(child))
            fitTable(doc, table);
        else
            fitFrame(doc, child);
    }
}

} // namespace

void fitTableColumns(QTextDocument& doc)
{
    fitFrame(doc, doc.rootFrame());
}

} // namespace gp::ui
