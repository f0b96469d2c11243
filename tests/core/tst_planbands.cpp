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
constexpr double kHopperTraining = 0.0885; // 41 measured H100/H200 training runs
constexpr double kAmpereTraining = 0.0659; // 27 published Ampere training rows
constexpr double kCdnaInference = 0.102;    // the published CDNA serving rows (AMD vLLM pages) and the MLPerf MI300X/H100 ratio
constexpr double kCdnaTraining = 0.0852;   // 8 training rows: MLPerf v5.1 FP8 (MI300X, MI325X, 2x MI355X), AMD's Primus MI325X (3 FP8, 1 BF16)
constexpr double kUnmeasured = 0.189;      // 227 published rows outside Hopper with every family scale at 1
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
        // CDNA: published serving rows and 8 published training rows (7 FP8,
        // one BF16), enough for a training band of its own.
        QCOMPARE(c.families[std::size_t(gp::ArchFamily::Cdna)].uncertaintyInference, kCdnaInference);
        QCOMPARE(c.families[std::size_t(gp::ArchFamily::Cdna)].uncertaintyTraining, kCdnaTraining);
        QCOMPARE(c.uncertaintyUnmeasuredFamily, kUnmeasured);
        QCOMPARE(c.uncertaintyWidenThroughputMultiGpu, kWidenMultiGpu);
    }

    void mi300xBf16FineTuneTakesTheWideBand()
    {
        // CDNA's training band comes from 8 rows, 7 of them FP8: its 16-bit GEMM
        // scale is not fitted (one BF16 row), so the first screen's BF16 LoRA
        // fine-tune on an MI300X runs on an extrapolated speed and takes the wide
        // band (+-19%), not the family's +-8.5%, and says why. The same job in
        // FP8 takes the family's training band.
        const gp::Scenario s = gp::defaultScenario();
        const gp::GpuEstimate amd = gp::estimateOn(s, gpu("amd-mi300x"));
        QCOMPARE(amd.uncertainty.throughput, kUnmeasured);
        QCOMPARE(amd.uncertainty.throughputSource, gp::BandSource::Unmeasured);
        QVERIFY(amd.uncertainty.formatUnfitted);
        QCOMPARE(gp::bandOrigin(amd.uncertainty),
                 std::string("fewer than 3 published training rows in this format (16-bit or fp8) for CDNA 3/4"));
        QVERIFY(std::any_of(amd.notes.begin(), amd.notes.end(), [](const std::string& n) {
            return n.rfind("Fewer than 3 published training results for CDNA 3/4 GPUs run in this format", 0) == 0;
        }));
        gp::Scenario fp8 = s;
        fp8.training.precision = gp::TrainPrecision::FP8;
        const gp::GpuEstimate amdFp8 = gp::estimateOn(fp8, gpu("amd-mi300x"));
        QCOMPARE(amdFp8.uncertainty.throughput, kCdnaTraining);
        QCOMPARE(amdFp8.uncertainty.throughputSource, gp::BandSource::Published);
        QVERIFY(!amdFp8.uncertainty.formatUnfitted);
        // Serving on it keeps the serving rows' band.
        gp::Scenario serve = s;
        serve.mode = gp::Mode::Inference;
        const gp::GpuEstimate amdServe = gp::estimateOn(serve, gpu("amd-mi300x"));
        QCOMPARE(amdServe.uncertainty.throughput, kCdnaInference);
        QCOMPARE(amdServe.uncertainty.throughputSource, gp::BandSource::Published);

        // One GPU each: the MI300X's point cost ($11.79; 750 W of the board power
        // CDNA needs for its full tensor clock, family_cdna_clock_power_w) is
        // below the GH200's ($13.11), but on the wide band it is above at 90%.
        const gp::GpuEstimate gh = gp::estimateOn(s, gpu("nvidia-gh200"));
        QCOMPARE(gh.uncertainty.throughput, kHopperTraining);
        QCOMPARE(gh.uncertainty.throughputSource, gp::BandSource::Measured);
        const double amdPoint = *amd.training->costUsd;
        const double ghPoint = *gh.training->costUsd;
        QVERIFY(amdPoint < ghPoint);
        const double amdAt90 = amdPoint * std::exp(kUnmeasured * kZ90);   // x 1.2741: $15.02
        const double ghAt90 = ghPoint * std::exp(kHopperTraining * kZ90); // x 1.1201: $14.68
        QVERIFY(amdAt90 > ghAt90);
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
        // Rank 1: 2x RTX A5000 (Ampere, published training rows), data parallel
        // with the frozen base sharded (ZeRO-3: a LoRA plan has no tensor
        // parallelism, plancandidates.cpp), band sqrt(0.0659^2 + 0.15^2) = 0.1638
        // (several GPUs), cost at 90% = its point cost ($9.69) x exp(0.1638 x
        // 1.2816) = x 1.2336: $11.96.
        QCOMPARE(top.gpu, std::string("nvidia-rtx-a5000"));
        QCOMPARE(top.count, 2);
        QCOMPARE(top.tp, 1);
        QCOMPARE(top.zero, 3);
        const double band = std::sqrt(kAmpereTraining * kAmpereTraining + kWidenMultiGpu * kWidenMultiGpu);
        QVERIFY(near(top.estimate.uncertainty.throughput, band));
        QVERIFY(std::fabs(band - 0.1638) < 5e-5);
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
        // Hopper band: $13.11 x exp(0.0885 x 1.2816) = $14.68, 1.23x rank 1.
        const auto gh = std::find_if(r.options.begin(), r.options.end(),
                                     [](const gp::PlanOption& o) { return o.gpu == "nvidia-gh200" && o.count == 1; });
        QVERIFY(gh != r.options.end());
        QVERIFY(near(gh->costKey, *gh->estimate.training->costUsd * std::exp(kHopperTraining * kZ90)));
        QVERIFY(gh->why.find("(speed +/-9% at 1 sigma: the leave-one-out band of the Hopper training runs the project "
                             "measured)") != std::string::npos);
        // 1x MI300X ranks on the wide band (its BF16 speed is extrapolated):
        // $11.79 x exp(0.189 x 1.2816) = $15.02, sixth, after the GH200 (fourth).
        const auto amd = std::find_if(r.options.begin(), r.options.end(),
                                      [](const gp::PlanOption& o) { return o.gpu == "amd-mi300x" && o.count == 1; });
        QVERIFY(amd != r.options.end());
        QVERIFY(amd > gh);
        QCOMPARE(amd - r.options.begin(), std::ptrdiff_t(5));
        QCOMPARE(gh - r.options.begin(), std::ptrdiff_t(3));
        // No option of this LoRA plan uses tensor or pipeline parallelism.
        for (const auto& o : r.options)
            QVERIFY(o.tp == 1 && o.pp == 1);
        QVERIFY(near(amd->costKey, *amd->estimate.training->costUsd * std::exp(kUnmeasured * kZ90)));
        QVERIFY(amd->why.find("(speed +/-19% at 1 sigma: fewer than 3 published training rows in this format (16-bit "
                              "or fp8) for CDNA 3/4)") != std::string::npos);
    }

    void withinNoiseOfTwo()
    {
        // Default plan: #2 is 1x MI355X on the wide band (0.189: its BF16 speed is
        // extrapolated) at $10.10 at its point, $12.87 at 90%, against #1's (2x RTX
        // A5000) $11.96, so the margin ln(cost #2 / cost #1) at 90% is
        // ln(12.868 / 11.957) = 0.073, below #1's band 0.1638: within noise.
        const gp::Scenario s = gp::defaultScenario();
        const gp::PlanResult r = gp::plan(s, gp::Catalog::builtin(), gp::PlanRequest{10});
        QCOMPARE(r.options[0].gpu, std::string("nvidia-rtx-a5000"));
        QCOMPARE(r.options[0].count, 2);
        QCOMPARE(r.options[1].gpu, std::string("amd-mi355x"));
        QCOMPARE(r.options[1].count, 1);
        QVERIFY(near(r.options[1].costKey, *r.options[1].estimate.training->costUsd * std::exp(kUnmeasured * kZ90)));
        const double margin = std::log(r.options[1].costKey / r.options[0].costKey);
        QVERIFY(margin > 0.07 && margin < 0.08);
        QVERIFY(margin < r.options[0].estimate.uncertainty.throughput);
        QVERIFY(r.options[0].why.find("(within noise of #2: the margin is less than this estimate's +/-16% speed "
                                      "uncertainty)") != std::string::npos);

        // The same job on GH200 or MI300X only: #1 is 1x GH200 at $14.68 at 90%
        // (measured band), #2 1x MI300X at $15.02 (the wide band of an
        // extrapolated BF16 speed), although the MI300X is cheaper at its point
        // ($11.79 against $13.11). The margin ln(15.02 / 14.68) = 0.023 is below
        // #1's band 0.0885: within noise, and it says so.
        gp::Scenario two = s;
        two.hardware.gpus = {"nvidia-gh200", "amd-mi300x"};
        const gp::PlanResult g = gp::plan(two, gp::Catalog::builtin(), gp::PlanRequest{3});
        QCOMPARE(g.options[0].gpu, std::string("nvidia-gh200"));
        QCOMPARE(g.options[0].count, 1);
        QCOMPARE(g.options[1].gpu, std::string("amd-mi300x"));
        QCOMPARE(g.options[1].count, 1);
        QVERIFY(*g.options[1].estimate.training->costUsd < *g.options[0].estimate.training->costUsd);
        QVERIFY(near(g.options[0].costKey, *g.options[0].estimate.training->costUsd * std::exp(kHopperTraining * kZ90)));
        QVERIFY(near(g.options[1].costKey, *g.options[1].estimate.training->costUsd * std::exp(kUnmeasured * kZ90)));
        const double margin2 = std::log(g.options[1].costKey / g.options[0].costKey);
        QVERIFY(margin2 > 0.02 && margin2 < 0.03);
        QVERIFY(g.options[0].why.find("within noise of #2") != std::string::npos);
        QCOMPARE(g.options[0].why.find("within noise of #2") != std::string::npos,
                 margin2 < g.options[0].estimate.uncertainty.throughput);
    }
};

QTEST_GUILESS_MAIN(TestPlanBands)
#include "tst_planbands.moc"
