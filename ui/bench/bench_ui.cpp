// bench_ui: start-up to first paint, and edit-to-redraw latency (estimate of the
// whole catalog + table, charts, comparison and repaint), for the built-in catalog
// and for one with 1,000 custom GPUs added by a user overlay (1,048 in all).
// Prints figures; asserts nothing. Goals: edit-to-redraw median < 16 ms for the
// built-in catalog, start-up < 1 s; with 1,048 GPUs the window stays responsive.
#include "ui/estimatecontroller.h"
#include "ui/mainwindow.h"
#include "ui/documentmanager.h"
#include "ui/resultspage.h"
#include "ui/numberfield.h"
#include "ui/scenarioform.h"
#include "ui/scenariomodel.h"
#include "ui/settings.h"

#include "core/hardware/catalog.h"
#include "core/estimate/estimate.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
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

/// n valid, varied custom GPUs as a user catalog overlay (as tests/ui/tst_scale.cpp).
std::string syntheticOverlay(int n)
{
    nlohmann::json doc = nlohmann::json::array();
    for (int i = 0; i < n; ++i) {
        const double scale = 1.0 + (i % 97) / 10.0;
        doc.push_back({{"id", "synthetic-gpu-" + std::to_string(i)},
                       {"name", "Synthetic GPU " + std::to_string(i)},
                       {"vendor", i % 3 == 0 ? "Acme" : (i % 3 == 1 ? "Globex" : "Initech")},
                       {"memory_gb", 16 + 8 * (i % 23)},
                       {"memory_bandwidth_gbps", 400 * scale},
                       {"fp32_tflops", 10 * scale},
                       {"fp16_tflops", 80 * scale},
                       {"bf16_tflops", 80 * scale},
                       {"tdp_w", 300},
                       {"price_hour_usd", {{"typical", 0.5 + 0.01 * (i % 400)}}},
                       {"purchase_usd", 5000 + 10 * i}});
    }
    return doc.dump(1);
}

struct EditTimes {
    std::vector<double> total, estimate, views, paint; // ms per edit
    std::vector<double> fullRepaint; // ms: the whole window repainted, for comparison
};

/// Edits the micro-batch `edits` times and times each edit to its redraw.
EditTimes measureEdits(gp::ui::MainWindow& w, int edits)
{
    auto* spin = w.form()->numberFor(gp::ui::ScenarioModel::Field::MicroBatch);
    EditTimes out;
    for (int i = 0; i < edits; ++i) {
        QElapsedTimer t;
        t.start();
        spin->setValue(i % 2 == 0 ? 8 : 4);       // the user's edit
        const qint64 a = t.nsecsElapsed();
        // The core alone, for the breakdown: numbers only, as the controller runs it.
        (void)gp::estimate(w.documentManager()->model()->scenario(), w.resultsPage()->controller()->catalog(), gp::EstimateOptions{false});
        const qint64 b = t.nsecsElapsed();
        w.resultsPage()->controller()->recomputeNow();            // what the coalescing timer fires: estimate + views
        const qint64 c = t.nsecsElapsed();
        // The redraw the app does: the widgets that changed (and are shown) were
        // marked with update(); paint them now, as the event loop would.
        QCoreApplication::sendPostedEvents(&w, QEvent::UpdateRequest);
        const qint64 d = t.nsecsElapsed();
        w.repaint(); // not part of an edit: every widget painted again, for comparison
        out.fullRepaint.push_back(static_cast<double>(t.nsecsElapsed() - d) / 1e6);
        out.estimate.push_back(static_cast<double>(b - a) / 1e6);
        out.views.push_back(static_cast<double>(c - b - (b - a)) / 1e6);
        out.paint.push_back(static_cast<double>(d - c) / 1e6);
        out.total.push_back(static_cast<double>(a + (c - b) + (d - c)) / 1e6); // excludes the extra breakdown estimate
    }
    return out;
}

void printEdits(const char* what, std::size_t gpus, const EditTimes& t)
{
    std::printf("edit-to-redraw, %s (%zu GPUs), median: %8.2f ms   p90 %.2f ms\n", what, gpus, median(t.total),
                percentile(t.total, 0.9));
    std::printf("  of which (medians): estimate %.2f ms, model/view updates %.2f ms, repaint %.2f ms\n",
                median(t.estimate), median(t.views), median(t.paint));
    std::printf("  (for comparison, repainting the whole window: median %.2f ms)\n", median(t.fullRepaint));
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

    // Whole catalog selected (the default: no GPU ticked).
    (void)measureEdits(w, 3); // warm-up
    const EditTimes all = measureEdits(w, 41);
    const std::size_t catalogSize = w.resultsPage()->controller()->catalog().gpus().size();

    // Each GPU of the catalog on its own.
    std::vector<double> perGpu;
    for (const auto& g : w.resultsPage()->controller()->catalog().gpus()) {
        w.documentManager()->model()->setGpus({QString::fromStdString(g.id)});
        w.resultsPage()->controller()->recomputeNow();
        perGpu.push_back(median(measureEdits(w, 3).total));
    }
    w.hide();

    // 1,000 custom GPUs from a user overlay, loaded the way the app loads it.
    const QString overlay = dir.filePath(QStringLiteral("overlay-1000.json"));
    {
        QFile f(overlay);
        if (f.open(QIODevice::WriteOnly))
            f.write(QByteArray::fromStdString(syntheticOverlay(1000)));
    }
    qputenv("GPUPLANNER_CATALOG_OVERLAY", overlay.toUtf8());
    QElapsedTimer bigStart;
    bigStart.start();
    gp::ui::MainWindow big(std::make_unique<gp::ui::Settings>(dir.filePath(QStringLiteral("bench-big.ini"))));
    big.resize(1500, 940);
    big.show();
    QApplication::processEvents();
    const double bigStartupMs = static_cast<double>(bigStart.nsecsElapsed()) / 1e6;
    const std::size_t bigSize = big.resultsPage()->controller()->catalog().gpus().size();
    (void)measureEdits(big, 3); // warm-up
    const EditTimes bigAll = measureEdits(big, 41);

    std::printf("gpuplanner UI benchmark (platform %s)\n", qPrintable(QGuiApplication::platformName()));
    std::printf("start-up to first paint:                         %8.1f ms   (goal < 1000 ms)\n", startupMs);
    printEdits("whole catalog", catalogSize, all);
    std::printf("  (goal: median < 16 ms)\n");
    std::printf("edit-to-redraw, one GPU at a time, median over the catalog: %.2f ms   max %.2f ms\n", median(perGpu),
                perGpu.empty() ? 0.0 : *std::max_element(perGpu.begin(), perGpu.end()));
    std::printf("start-up with a 1,000-GPU overlay (window, overlay, estimate, first show): %.1f ms\n", bigStartupMs);
    printEdits("built-in + 1,000-GPU overlay", bigSize, bigAll);
    std::printf("(plus the %d ms coalescing delay between the last keystroke and the recompute)\n",
                gp::ui::EstimateController::kCoalesceMs);
    return 0;
}
