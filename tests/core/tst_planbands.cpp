// Issue #16, items 2 and 3: the band of an estimate by distance from
// measurement, per kind (core/estimate/confidence.h), and the plan of the
// built-in default scenario (what the app's first screen opens with, a LoRA
// fine-tune of Llama 3.1 8B) ranked on the cost at 90% confidence with those
// bands. Every expected value is computed here by hand from the calibration's
// bands and the estimates' point values:
//   band of n GPUs    = sqrt(family band^2 + uncertainty_widen_throughput_multi_gpu^2) (n > 1)
//   cost at 90%       = point cost x exp(band x z_0.9), z_0.9 = 1.2815515655446004
//   "within noise of #2" when ln(cost #2 / cost #1) < band of #1 (costs at 90%).
// The bands are those of the shipped calibration (resources/calibration,
// `calibrate` on tests/data); the first test pins them, so a refit that moves
// one says which.
#include "tests/common/builtingpu.h"
#include <QtTest>

#include "core/calibration/calibration.h"
#include "core/estimate/confidence.h"
#include "core/estimate/estimate.h"
#include "core/hardware/catalog.h"
#include "core/plan/planner.h"
#include "core/scenario/scenario.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace {

constexpr double kZ90 = 1.2815515655446004; // the standard normal's 0.9 quantile

// The shipped bands (relative 1-sigma, RMS of leave-one-out ln residuals).
constexpr double kHopperTraining = 0.0897; // 41 measured H100/H200 training runs
constexpr double kAmpereTraining = 0.0684; // 27 published Ampere training rows
constexpr double kCdnaInference = 0.0989;  // the published CDNA serving rows (AMD vLLM pages) and the MLPerf MI300X/H100 ratio
constexpr double kCdnaTraining = 0.263;    // 4 MLPerf Training v5.1 FP8 rows (MI300X, MI325X, 2x MI355X)
constexpr double kUnmeasured = 0.249;      // 223 published rows outside Hopper with every family scale at 1
constexpr double kWidenMultiGpu = 0.15;

bool near(double a, double b) { return std::fabs(a - b) <= 1e-9 * std::max(std::fabs(a), std::fabs(b)); }

} // namespace

class TestPlanBands : public QObject {
    Q_OBJECT

private slots:
    void shippedBandsPerKind()
    {
        const gp::Calibration& c = gp::builtinCalibration();
        QCOMPARE(c.uncertaintyThroughputTraining, kHopperTraining);
        QCOMPARE(c.families[std::size_t(gp::ArchFamily::Ampere)].uncertaintyTraining, kAmpereTraining);
        // CDNA: published serving rows and, since amd-training.json, 4 published
        // training rows (all FP8), enough for a training band of its own.
        QCOMPARE(c.families[std::size_t(gp::ArchFamily::Cdna)].uncertaintyInference, kCdnaInference);
        QCOMPARE(c.families[std::size_t(gp::ArchFamily::Cdna)].uncertaintyTraining, kCdnaTraining);
        QCOMPARE(c.uncertaintyUnmeasuredFamily, kUnmeasured);
        QCOMPARE(c.uncertaintyWidenThroughputMultiGpu, kWidenMultiGpu);
    }

    void mi300xFineTuneTakesCdnaTrainingBand()
    {
        // Version 1 gave the MI300X its serving rows' +-9% on this fine-tune;
        // with 4 published CDNA training rows it takes their leave-one-out band,
        // +-26% (the FP8 MLPerf rows disagree: MI300X 0%, MI325X -25%, MI355X
        // -26% and -33% in sample), and the estimate says where it comes from.
        const gp::Scenario s = gp::defaultScenario();
        const gp::GpuEstimate amd = gp::estimateOn(s, gpu("amd-mi300x"));
        QCOMPARE(amd.uncertainty.throughput, kCdnaTraining);
        QCOMPARE(amd.uncertainty.throughputSource, gp::BandSource::Published);
        QCOMPARE(gp::bandOrigin(amd.uncertainty),
                 std::string("the leave-one-out band of the published training rows of CDNA 3/4"));
        for (const auto& n : amd.notes)
            QVERIFY2(n.rfind("Fewer than 3 published training results", 0) != 0, n.c_str());
        // Serving on it keeps the serving rows' band.
        gp::Scenario serve = s;
        serve.mode = gp::Mode::Inference;
        const gp::GpuEstimate amdServe = gp::estimateOn(serve, gpu("amd-mi300x"));
        QCOMPARE(amdServe.uncertainty.throughput, kCdnaInference);
        QCOMPARE(amdServe.uncertainty.throughputSource, gp::BandSource::Published);

        // One GPU each: the MI300X's point cost is well below the GH200's, and on
        // the wide band it stays below at 90%, by less than its band (within noise).
        const gp::GpuEstimate gh = gp::estimateOn(s, gpu("nvidia-gh200"));
        QCOMPARE(gh.uncertainty.throughput, kHopperTraining);
        QCOMPARE(gh.uncertainty.throughputSource, gp::BandSource::Measured);
        const double amdPoint = *amd.training->costUsd;
        const double ghPoint = *gh.training->costUsd;
        QVERIFY(amdPoint < ghPoint); // $8.88 < $12.78
        const double amdAt90 = amdPoint * std::exp(kCdnaTraining * kZ90);  // x 1.4008: $12.44
        const double ghAt90 = ghPoint * std::exp(kHopperTraining * kZ90); // x 1.1218: $14.34
        QVERIFY(amdAt90 < ghAt90);
        QVERIFY(std::log(ghAt90 / amdAt90) < kCdnaTraining); // 0.142
        QVERIFY(near(amd.training->costUsd.value() * gp::quantileFactor(amd.uncertainty.throughput, 0.9), amdAt90));
    }

    void defaultScenarioPlan()
    {
        // The first screen's scenario, planned at the default confidence 0.9.
        const gp::Scenario s = gp::defaultScenario();
        QCOMPARE(s.hardware.confidence, 0.9);
        const gp::PlanResult r = gp::plan(s, gp::Catalog::builtin(), gp::PlanRequest{10});
        QVERIFY(r.options.size() >= 4);
        const gp::PlanOption& top = r.options[0];
        // Rank 1: 4x GeForce RTX 3080 (Ampere, published training rows), band
        // sqrt(0.0684^2 + 0.15^2) = 0.1649 (four GPUs), cost at 90% = its point
        // cost ($9.16) x exp(0.1649 x 1.2816) = x 1.2353: $11.31.
        QCOMPARE(top.gpu, std::string("nvidia-rtx-3080-10gb"));
        QCOMPARE(top.count, 4);
        const double band = std::sqrt(kAmpereTraining * kAmpereTraining + kWidenMultiGpu * kWidenMultiGpu);
        QVERIFY(near(top.estimate.uncertainty.throughput, band));
        QVERIFY(std::fabs(band - 0.1649) < 5e-5);
        QCOMPARE(top.estimate.uncertainty.throughputSource, gp::BandSource::Published);
        QVERIFY(near(top.costKey, *top.estimate.training->costUsd * std::exp(band * kZ90)));
        QVERIFY(top.why.find("(speed +/-16% at 1 sigma: the leave-one-out band of the published training rows of "
                             "Ampere, widened for several GPUs)") != std::string::npos);
        // Every ranked option is ranked on its own band at 90%, none below the point.
        for (const auto& o : r.options) {
            QVERIFY(near(o.costKey, *o.estimate.training->costUsd * std::exp(o.estimate.uncertainty.throughput * kZ90)));
            QVERIFY(o.confidence.fits * o.confidence.meetsTargets >= 0.9 - 1e-12);
        }
        // The best GH200 (the cheapest at 90% on one GPU) ranks on the measured
        // Hopper band: $12.78 x exp(0.0897 x 1.2816) = $14.34, 1.27x rank 1.
        const auto gh = std::find_if(r.options.begin(), r.options.end(),
                                     [](const gp::PlanOption& o) { return o.gpu == "nvidia-gh200" && o.count == 1; });
        QVERIFY(gh != r.options.end());
        QVERIFY(near(gh->costKey, *gh->estimate.training->costUsd * std::exp(kHopperTraining * kZ90)));
        QVERIFY(gh->why.find("(speed +/-9% at 1 sigma: the leave-one-out band of the Hopper training runs the project "
                             "measured)") != std::string::npos);
        // 1x MI300X ranks on CDNA's training band: $8.88 x exp(0.263 x 1.2816) =
        // $12.44, fourth (after 2x RTX A5000 at $11.85), 1.10x rank 1 ($11.31).
        const auto amd = std::find_if(r.options.begin(), r.options.end(),
                                      [](const gp::PlanOption& o) { return o.gpu == "amd-mi300x" && o.count == 1; });
        QVERIFY(amd != r.options.end());
        QCOMPARE(amd - r.options.begin(), std::ptrdiff_t(3));
        QVERIFY(near(amd->costKey, *amd->estimate.training->costUsd * std::exp(kCdnaTraining * kZ90)));
        QVERIFY(amd->why.find("(speed +/-26% at 1 sigma: the leave-one-out band of the published training rows of "
                              "CDNA 3/4)") != std::string::npos);
    }

    void withinNoiseOfTwo()
    {
        // Default plan: #2 is 8x RTX 3080 with the same band (both several GPUs)
        // at $9.160 against #1's $9.159, so the margin ln(cost #2 / cost #1) at
        // 90% is ln(11.316 / 11.314) = 0.0002, far below #1's band 0.1649: within noise.
        const gp::Scenario s = gp::defaultScenario();
        const gp::PlanResult r = gp::plan(s, gp::Catalog::builtin(), gp::PlanRequest{10});
        QCOMPARE(r.options[0].gpu, std::string("amd-mi300x"));
        QCOMPARE(r.options[1].gpu, std::string("nvidia-rtx-3080-10gb"));
        QCOMPARE(r.options[1].count, 4);
        const double margin = std::log(r.options[1].costKey / r.options[0].costKey);
        QVERIFY(margin > 0.004 && margin < 0.007);
        QVERIFY(margin < r.options[0].estimate.uncertainty.throughput);
        QVERIFY(r.options[0].why.find("(within noise of #2: the margin is less than this estimate's +/-16% speed "
                                      "uncertainty)") != std::string::npos);

        // The same job on GH200 or MI300X only: #1 is 1x MI300X at $12.44 at 90%
        // (CDNA's training band), #2 1x GH200 at $14.34 (measured band); the
        // margin ln(14.34 / 12.44) = 0.142 is below #1's band 0.263: within noise.
        gp::Scenario two = s;
        two.hardware.gpus = {"nvidia-gh200", "amd-mi300x"};
        const gp::PlanResult g = gp::plan(two, gp::Catalog::builtin(), gp::PlanRequest{3});
        QCOMPARE(g.options[0].gpu, std::string("amd-mi300x"));
        QCOMPARE(g.options[0].count, 1);
        QCOMPARE(g.options[1].gpu, std::string("nvidia-gh200"));
        QCOMPARE(g.options[1].count, 1);
        QVERIFY(near(g.options[1].costKey, *g.options[1].estimate.training->costUsd * std::exp(kHopperTraining * kZ90)));
        const double margin2 = std::log(g.options[1].costKey / g.options[0].costKey);
        QVERIFY(margin2 > 0.13 && margin2 < 0.15);
        QVERIFY(margin2 < kCdnaTraining);
        QVERIFY(g.options[0].why.find("within noise of #2") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestPlanBands)
#include "tst_planbands.moc"
