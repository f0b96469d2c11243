#pragma once
#include "core/catalog.h"
#include "core/estimate.h"
#include "core/scenario.h"

#include <QDateTime>
#include <QString>
#include <QStringList>

class QPagedPaintDevice;
class QPdfWriter;
class QTextDocument;

namespace gp::ui {

/// The PDF comparison report (A4, multi-page), painted onto a QPdfWriter: title,
/// recommendation, comparison table, the charts, memory breakdown, assumptions,
/// uncertainty, and the catalog sources and price dates of the GPUs shown. The
/// GUI's "Export report..." and `gpuplanner-cli report` both use it. Needs a
/// QApplication (Qt Charts are widgets); works with the offscreen platform.
class ReportBuilder
{
public:
    /// At most this many GPUs in the tables (best first); the charts show their own top N.
    static constexpr int kMaxTableGpus = 16;

    ReportBuilder(const gp::Scenario& scenario, const gp::Estimate& estimate, const gp::Catalog& catalog);

    void setCurrency(const QString& symbol) { m_currency = symbol; }
    void setTimestamp(const QDateTime& t) { m_timestamp = t; }

    /// Writes the PDF atomically (QSaveFile). Returns an error message, "" on success.
    QString write(const QString& path);
    /// Pages of the last write.
    int pageCount() const { return m_pages; }
    /// The GPUs the report's tables show, best first.
    QStringList shownGpuIds() const;

    /// The HTML of the text before and after the charts (exposed for tests).
    QString htmlBeforeCharts() const;
    QString htmlAfterCharts() const;

private:
    void paint(QPdfWriter& writer);
    std::vector<int> shownIndices() const;

    gp::Scenario m_scenario;
    gp::Estimate m_estimate;
    const gp::Catalog& m_catalog;
    QString m_currency = QStringLiteral("$");
    QDateTime m_timestamp = QDateTime::currentDateTime();
    int m_pages = 0;
};

/// A short description of a scenario: "Llama 3.1 8B, training (LoRA, BF16), 1 GPU per job, on-demand".
QString scenarioSummary(const gp::Scenario& s);

} // namespace gp::ui
