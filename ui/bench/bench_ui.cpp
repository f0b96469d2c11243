// bench_ui: start-up to first paint, and edit-to-redraw latency (estimate of the
// whole catalog + table, charts, comparison and repaint). Prints figures; asserts
// nothing. Goals: edit-to-redraw median < 16 ms, start-up < 1 s.
#include "ui/estimatecontroller.h"
#include "ui/mainwindow.h"
#include "ui/scenarioform.h"
#include "ui/scenariomodel.h"
#include "ui/settings.h"

#include "core/catalog.h"
#include "core/estimate.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QSpinBox>
#include <QTemporaryDir>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

QElapsedTimer g_clock;
qint64 g_firstPaintNs = -1;

class FirstPaint : public QObject
{
public:
    bool eventFilter(QObject* o, QEvent* e) override
    {
        if (g_firstPaintNs < 0 && e->type() == QEvent::Paint && o->isWidgetType())
            g_firstPaintNs = g_clock.nsecsElapsed();
        return false;
    }
};

double median(std::vector<double> v)
{
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

double percentile(std::vector<double> v, double p)
{
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, static_cast<std::size_t>(p * static_cast<double>(v.size())))];
}

} // namespace

int main(int argc, char** argv)
{
    g_clock.start();
    if (!std::getenv("QT_QPA_PLATFORM") && !std::getenv("DISPLAY"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QTemporaryDir dir;
    qputenv("GPUPLANNER_CATALOG_OVERLAY", dir.filePath(QStringLiteral("none.json")).toUtf8());
    QApplication app(argc, argv);
    FirstPaint filter;
    app.installEventFilter(&filter);

    gp::ui::MainWindow w(std::make_unique<gp::ui::Settings>(dir.filePath(QStringLiteral("bench.ini"))));
    w.resize(1500, 940);
    w.show();
    while (g_firstPaintNs < 0 && g_clock.elapsed() < 10000)
        QApplication::processEvents();
    const double startupMs = static_cast<double>(g_firstPaintNs) / 1e6;
    app.removeEventFilter(&filter);

    auto* spin = qobject_cast<QSpinBox*>(w.form()->editorFor(gp::ui::ScenarioModel::Field::MicroBatch));
    std::vector<double> estimateMs, viewsMs, paintMs;
    auto measureEdits = [&](int edits) {
        std::vector<double> ms;
        for (int i = 0; i < edits; ++i) {
            QElapsedTimer t;
            t.start();
            spin->setValue(i % 2 == 0 ? 8 : 4);       // the user's edit
            const qint64 a = t.nsecsElapsed();
            (void)gp::estimate(w.scenarioModel()->scenario(), w.controller()->catalog()); // the core alone, for the breakdown
            const qint64 b = t.nsecsElapsed();
            w.controller()->recomputeNow();            // what the coalescing timer fires: estimate + views
            const qint64 c = t.nsecsElapsed();
            w.repaint();                               // synchronous redraw of the visible views
            const qint64 d = t.nsecsElapsed();
            estimateMs.push_back(static_cast<double>(b - a) / 1e6);
            viewsMs.push_back(static_cast<double>(c - b - (b - a)) / 1e6);
            paintMs.push_back(static_cast<double>(d - c) / 1e6);
            ms.push_back(static_cast<double>(a + (c - b) + (d - c)) / 1e6); // excludes the extra breakdown estimate
        }
        return ms;
    };

    // Whole catalog selected (the default: no GPU ticked).
    measureEdits(3); // warm-up
    estimateMs.clear();
    viewsMs.clear();
    paintMs.clear();
    const std::vector<double> all = measureEdits(41);
    const double estMed = median(estimateMs), viewsMed = median(viewsMs), paintMed = median(paintMs);
    const std::size_t catalogSize = w.controller()->catalog().gpus().size();

    // Each GPU of the catalog on its own.
    std::vector<double> perGpu;
    for (const auto& g : w.controller()->catalog().gpus()) {
        w.scenarioModel()->setGpus({QString::fromStdString(g.id)});
        w.controller()->recomputeNow();
        const auto v = measureEdits(3);
        perGpu.push_back(median(v));
    }

    std::printf("gpuplanner UI benchmark (platform %s)\n", qPrintable(QGuiApplication::platformName()));
    std::printf("start-up to first paint:                         %8.1f ms   (goal < 1000 ms)\n", startupMs);
    std::printf("edit-to-redraw, whole catalog (%zu GPUs), median: %8.2f ms   p90 %.2f ms (goal < 16 ms)\n", catalogSize,
                median(all), percentile(all, 0.9));
    std::printf("  of which: estimate %.2f ms, model/view updates %.2f ms, repaint %.2f ms\n", estMed, viewsMed, paintMed);
    std::printf("edit-to-redraw, one GPU at a time, median over the catalog: %.2f ms   max %.2f ms\n", median(perGpu),
                perGpu.empty() ? 0.0 : *std::max_element(perGpu.begin(), perGpu.end()));
    std::printf("(plus the %d ms coalescing delay between the last keystroke and the recompute)\n",
                gp::ui::EstimateController::kCoalesceMs);
    return 0;
}
