#pragma once
#include "charts/rentbuymarker.h"

#include <QRectF>
#include <QSizeF>
#include <QString>

#include <functional>
#include <memory>
#include <optional>
#include <vector>

class QPagedPaintDevice;
class QPainter;
class QTextDocument;

namespace gp::ui {

/// Where one table row of the report was painted, in the page's coordinates
/// (device units; (0, 0) is the printable area's top left). Rows are whole: a row
/// that does not fit in what is left of a page starts the next one.
struct ReportRowPlacement {
    int table = 0;      // the report's tables counted from 0
    int row = 0;        // 0: the header row
    int page = 0;       // from 0
    double top = 0;     // the row's box, border to border
    double bottom = 0;
    bool repeatedHeader = false; // the header painted again on a page the table continues on
    QString firstLine;  // the first line of text of the row's first cell
    QString lastLine;   // the last line of text of the row's last cell
};

/// The report's layout, for tests and checks.
struct ReportLayout {
    QSizeF body;   // what every page holds above the footer
    int pages = 0;
    std::vector<ReportRowPlacement> rows;
    int breakEvenPage = -1; // the rent-vs-buy chart's page (-1: none)
    charts::BreakEvenMarker breakEven;
};

/// Flows HTML blocks and charts down fixed-size pages. Text breaks between lines
/// and between table rows, never inside a row; a table continued on a new page
/// repeats its header row there; headings stay with what follows them. Short
/// blocks and charts move to the next page whole.
class ReportFlow
{
public:
    using ChartPainter = std::function<void(QPainter*, const QRectF&, int page)>;

    ReportFlow(QPagedPaintDevice* device, const QSizeF& body, double gap);
    ~ReportFlow();

    /// A block of HTML; keepWithNext: the height of what follows that it introduces (0: none).
    void addText(const QString& html, double keepWithNext = 0);
    void addChart(ChartPainter paint, double height);

    int pageCount() const { return m_page + 1; }
    /// Paints one page's share of everything.
    void paintPage(QPainter* painter, int page) const;
    const std::vector<ReportRowPlacement>& rows() const { return m_rows; }

private:
    struct Slice;
    struct Atom;
    std::vector<Atom> atoms(const QTextDocument& doc);
    void newPage();

    QPagedPaintDevice* m_device;
    QSizeF m_body;
    double m_gap;
    int m_page = 0;
    double m_y = 0;
    int m_tables = 0;
    std::vector<std::unique_ptr<QTextDocument>> m_docs;
    std::vector<Slice> m_slices;
    std::vector<ReportRowPlacement> m_rows;
};

} // namespace gp::ui
