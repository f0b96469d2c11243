// Rent vs buy: break-even points worked out by hand from the catalog prices and
// the scenario's pricing inputs, curve shapes, and the spot / reserved ordering.
#include "tests/common/builtingpu.h"
#include <QtTest>

#include "core/hardware/catalog.h"
#include "core/base/errors.h"
#include "core/plan/rentbuy.h"
#include "core/scenario/scenario.h"

#include <nlohmann/json.hpp>

#include <string>

namespace {

// Catalog H100 SXM (resources/catalog/gpu-catalog.json): $2.99/h typical,
// $1.60/h spot, $30,000 to buy, 700 W TDP.
constexpr double kH100Hour = 2.99;
constexpr double kH100Spot = 1.60;
constexpr double kH100Buy = 30000;

gp::Scenario scenario(const std::string& mode, const std::string& pricing)
{
    const std::string workload =
        mode == "training"
            ? R"({"mode": "training", "training": {"precision": "amp_bf16", "micro_batch": 1, "seq_len": 2048}})"
            : R"({"mode": "inference", "inference": {"precision": "bf16", "batch": 1}})";
    return gp::parseScenario(R"({"format": "gpuplanner-scenario", "version": 1, "name": "rent-vs-buy",
        "model": {"preset": "llama-3.1-8b"}, "workload": )" + workload +
                             R"(, "pricing": )" + pricing + "}")
        .scenario;
}

const gp::CostCurve* curve(const gp::RentVsBuy& r, const std::string& prefix)
{
    for (const auto& c : r.curves)
        if (c.label.rfind(prefix, 0) == 0)
            return &c;
    return nullptr;
}

} // namespace

class TestRentBuy : public QObject {
    Q_OBJECT

private slots:
    void breakEvenByHand_data();
    void breakEvenByHand();
    void curvesByHand();
    void curvesMonotonic_data();
    void curvesMonotonic();
    void spotAndReservedOrdering_data();
    void spotAndReservedOrdering();
    void missingPrices();
    void json();
};

void TestRentBuy::breakEvenByHand_data()
{
    QTest::addColumn<QString>("pricing");
    QTest::addColumn<double>("energyPerHour");
    QTest::addColumn<double>("breakEvenHours");
    QTest::addColumn<double>("breakEvenUtilization");
    QTest::addColumn<int>("breakEvenMonth"); // -1 = never within the amortization period

    // Defaults ($0.12/kWh, PUE 1.3, 3 years, no hosting, utilization 1):
    //   power     0.700 kW x 1.3 x $0.12           = $0.1092 per busy hour
    //   margin    $2.99 - $0.1092                   = $2.8808 per hour
    //   hours     $30,000 / $2.8808                 = 10,413.77 GPU-hours
    //   share     10,413.77 / (3 x 8,760 = 26,280)  = 0.396262
    //   month     rent 730 h x $2.99 = $2,182.70 / month, own 730 x $0.1092 = $79.716:
    //             30,000 / (2,182.70 - 79.716) = 14.27 -> month 15
    QTest::addRow("h100 defaults") << QString(R"({"model": "on_demand"})") << 0.1092 << 10413.77 << 0.396262 << 15;
    // $0.20/kWh, PUE 1.5, 2 years, $1,200 hosting a year, 90% busy:
    //   power     0.700 x 1.5 x 0.20                = $0.21 per busy hour
    //   fixed     $30,000 + 2 x $1,200              = $32,400
    //   hours     32,400 / (2.99 - 0.21 = 2.78)      = 11,654.68 GPU-hours
    //   share     11,654.68 / (2 x 8,760 = 17,520)  = 0.665221
    //   month     busy 730 x 0.9 = 657 h: rent 657 x 2.99 = $1,964.43 / month,
    //             own 657 x 0.21 + 1,200 / 12 = $237.97: 30,000 / 1,726.46 = 17.38 -> month 18
    QTest::addRow("h100 hosted, 90 pct busy")
        << QString(R"({"model": "on_demand", "utilization": 0.9, "electricity_usd_per_kwh": 0.2, "pue": 1.5,
                       "amortization_years": 2, "hosting_usd_per_gpu_year": 1200})")
        << 0.21 << 11654.68 << 0.665221 << 18;
    // Same at 50% busy: the break-even share (66.5%) is above the utilization, so
    // owning never catches up within 24 months: 30,000 / (365 x 2.99 - (365 x 0.21 + 100)
    //   = 1,091.35 - 176.65 = 914.70) = 32.8 months > 24.
    QTest::addRow("h100 hosted, 50 pct busy")
        << QString(R"({"model": "on_demand", "utilization": 0.5, "electricity_usd_per_kwh": 0.2, "pue": 1.5,
                       "amortization_years": 2, "hosting_usd_per_gpu_year": 1200})")
        << 0.21 << 11654.68 << 0.665221 << -1;
}

void TestRentBuy::breakEvenByHand()
{
    QFETCH(QString, pricing);
    QFETCH(double, energyPerHour);
    QFETCH(double, breakEvenHours);
    QFETCH(double, breakEvenUtilization);
    QFETCH(int, breakEvenMonth);

    const gp::RentVsBuy r = gp::rentVsBuy(scenario("inference", pricing.toStdString()), gpu("nvidia-h100-sxm"), 1);
    QCOMPARE(r.onDemandUsdPerGpuHour, kH100Hour);
    QCOMPARE(r.purchaseUsdPerGpu, kH100Buy);
    QVERIFY(qAbs(r.energyUsdPerGpuHour - energyPerHour) < 1e-12);
    QVERIFY(r.breakEvenGpuHours && r.breakEvenUtilization);
    // The hand values are rounded to 0.01 h and 6 digits.
    QVERIFY2(qAbs(*r.breakEvenGpuHours - breakEvenHours) < 0.01, QByteArray::number(*r.breakEvenGpuHours, 'f', 4));
    QVERIFY2(qAbs(*r.breakEvenUtilization - breakEvenUtilization) < 1e-6,
             QByteArray::number(*r.breakEvenUtilization, 'f', 8));
    if (breakEvenMonth < 0) {
        QVERIFY(!r.breakEvenMonth);
        QVERIFY2(r.verdict.find("renting on-demand stays cheaper over the whole period") != std::string::npos,
                 r.verdict.c_str());
    } else {
        QVERIFY(r.breakEvenMonth);
        QCOMPARE(*r.breakEvenMonth, breakEvenMonth);
        const std::string expect = "buying wins from month " + std::to_string(breakEvenMonth);
        QVERIFY2(r.verdict.find(expect) != std::string::npos, r.verdict.c_str());
    }
}

void TestRentBuy::curvesByHand()
{
    // Two H100s, 90% busy, 2 years, $0.20/kWh, PUE 1.5, $1,200 hosting per GPU-year.
    const gp::RentVsBuy r = gp::rentVsBuy(
        scenario("inference", R"({"utilization": 0.9, "electricity_usd_per_kwh": 0.2, "pue": 1.5,
                                  "amortization_years": 2, "hosting_usd_per_gpu_year": 1200})"),
        gpu("nvidia-h100-sxm"), 2);
    // 8,760 / 12 = 730 h a month x 0.9 x 2 GPUs = 1,314 busy GPU-hours.
    QVERIFY(qAbs(r.usedGpuHoursPerMonth - 1314) < 1e-9);
    QCOMPARE(r.curves.size(), std::size_t(4));
    const gp::CostCurve* od = curve(r, "Rent on-demand");
    const gp::CostCurve* spot = curve(r, "Rent spot");
    const gp::CostCurve* reserved = curve(r, "Rent reserved");
    const gp::CostCurve* own = curve(r, "Own");
    QVERIFY(od && spot && reserved && own);
    QCOMPARE(spot->label, std::string("Rent spot")); // inference: no restart overhead
    for (const gp::CostCurve* c : {od, spot, reserved, own})
        QCOMPARE(c->usd.size(), std::size_t(25)); // day one + 24 months
    // Month 1:   on-demand 1,314 x 2.99            = $3,928.86
    //            spot      1,314 x 1.60            = $2,102.40
    //            reserved  730 x 2 x (2.99 x 0.6)  = 1,460 x 1.794 = $2,619.24 (every hour billed)
    //            own       $60,000 up front + 1,314 x 0.21 + 2 x 100 = 60,000 + 475.94
    QCOMPARE(od->usd[0], 0.0);
    QCOMPARE(own->usd[0], 2 * kH100Buy);
    QVERIFY(qAbs(od->usd[1] - 3928.86) < 1e-6);
    QVERIFY(qAbs(spot->usd[1] - 2102.40) < 1e-6);
    QVERIFY(qAbs(reserved->usd[1] - 2619.24) < 1e-6);
    QVERIFY(qAbs(own->usd[1] - 60475.94) < 1e-6);
    // Month 24 is 24 months of the same.
    QVERIFY(qAbs(od->usd[24] - 24 * 3928.86) < 1e-6);
    QVERIFY(qAbs(own->usd[24] - (60000 + 24 * 475.94)) < 1e-6);
    // Per GPU the break-even month does not depend on the count: 18, as for one GPU.
    QVERIFY(r.breakEvenMonth);
    QCOMPARE(*r.breakEvenMonth, 18);
}

void TestRentBuy::curvesMonotonic_data()
{
    QTest::addColumn<QString>("gpu");
    QTest::addColumn<QString>("mode");
    QTest::addColumn<int>("count");
    QTest::addRow("h100 inference x1") << "nvidia-h100-sxm" << "inference" << 1;
    QTest::addRow("h100 training x8") << "nvidia-h100-sxm" << "training" << 8;
    QTest::addRow("rtx-4090 training x1") << "nvidia-rtx-4090" << "training" << 1;
    QTest::addRow("a100-40gb (no spot) x4") << "nvidia-a100-40gb-sxm" << "inference" << 4;
}

void TestRentBuy::curvesMonotonic()
{
    QFETCH(QString, gpu);
    QFETCH(QString, mode);
    QFETCH(int, count);
    const gp::RentVsBuy r = gp::rentVsBuy(scenario(mode.toStdString(), R"({"utilization": 0.7})"),
                                          ::gpu(qPrintable(gpu)), count);
    QVERIFY(!r.curves.empty());
    for (const auto& c : r.curves) {
        QCOMPARE(c.usd.size(), std::size_t(37)); // 3 years
        for (std::size_t m = 1; m < c.usd.size(); ++m)
            QVERIFY2(c.usd[m] > c.usd[m - 1], (c.label + " month " + std::to_string(m)).c_str());
    }
    // Renting starts at zero; owning starts at the purchase of every GPU.
    QCOMPARE(r.curves.front().usd.front(), 0.0);
    QCOMPARE(r.curves.back().label, std::string("Own"));
    QCOMPARE(r.curves.back().usd.front(), r.purchaseUsdPerGpu * count);
}

void TestRentBuy::spotAndReservedOrdering_data()
{
    QTest::addColumn<QString>("mode");
    QTest::addColumn<double>("utilization");
    QTest::addColumn<double>("spotPerMonth");     // per GPU
    QTest::addColumn<double>("reservedPerMonth"); // per GPU
    QTest::addColumn<double>("onDemandPerMonth"); // per GPU
    QTest::addColumn<QString>("spotLabel");
    // Reserved bills all 730 h at 0.6 x $2.99 = $1,309.62 a month whatever the
    // use; on-demand and spot bill the busy hours only.
    // 90% busy: 657 h -> spot 657 x 1.60 = 1,051.20 < reserved 1,309.62 < on-demand 657 x 2.99 = 1,964.43.
    QTest::addRow("inference, 90 pct busy") << "inference" << 0.9 << 1051.2 << 1309.62 << 1964.43 << "Rent spot";
    // 50% busy: 365 h -> spot 584.00 < on-demand 1,091.35 < reserved 1,309.62.
    QTest::addRow("inference, 50 pct busy") << "inference" << 0.5 << 584.0 << 1309.62 << 1091.35 << "Rent spot";
    // Training spot adds 15% for restarts: 657 x 1.60 x 1.15 = 1,208.88, still < reserved.
    QTest::addRow("training, 90 pct busy") << "training" << 0.9 << 1208.88 << 1309.62 << 1964.43
                                  << "Rent spot (+15% restarts)";
}

void TestRentBuy::spotAndReservedOrdering()
{
    QFETCH(QString, mode);
    QFETCH(double, utilization);
    QFETCH(double, spotPerMonth);
    QFETCH(double, reservedPerMonth);
    QFETCH(double, onDemandPerMonth);
    QFETCH(QString, spotLabel);
    const std::string pricing = R"({"utilization": )" + std::to_string(utilization) + "}";
    const gp::RentVsBuy r = gp::rentVsBuy(scenario(mode.toStdString(), pricing), gpu("nvidia-h100-sxm"), 1);
    QCOMPARE(*r.spotUsdPerGpuHour, kH100Spot);
    QVERIFY(qAbs(r.reservedUsdPerGpuHour - 2.99 * 0.6) < 1e-12);
    const gp::CostCurve* spot = curve(r, "Rent spot");
    const gp::CostCurve* reserved = curve(r, "Rent reserved");
    const gp::CostCurve* od = curve(r, "Rent on-demand");
    QVERIFY(spot && reserved && od);
    QCOMPARE(QString::fromStdString(spot->label), spotLabel);
    QVERIFY2(qAbs(spot->usd[1] - spotPerMonth) < 1e-6, QByteArray::number(spot->usd[1], 'f', 4));
    QVERIFY2(qAbs(reserved->usd[1] - reservedPerMonth) < 1e-6, QByteArray::number(reserved->usd[1], 'f', 4));
    QVERIFY2(qAbs(od->usd[1] - onDemandPerMonth) < 1e-6, QByteArray::number(od->usd[1], 'f', 4));
    // Spot is always below on-demand; reserved wins only above 60% utilization.
    QVERIFY(spot->usd.back() < od->usd.back());
    QCOMPARE(reserved->usd.back() < od->usd.back(), utilization > 0.6);
    // The notes say why spot is risky for serving and what it costs in training.
    const std::string notes = r.notes.empty() ? std::string() : r.notes.front();
    QVERIFY2(notes.find(mode == "training" ? "15% for restarts" : "dropped requests") != std::string::npos,
             notes.c_str());
}

void TestRentBuy::missingPrices()
{
    const gp::Scenario s = scenario("inference", "{}");
    gp::Gpu g = gpu("nvidia-h100-sxm");
    g.purchaseUsd = 0;
    const gp::RentVsBuy rent = gp::rentVsBuy(s, g, 1);
    QCOMPARE(rent.verdict, std::string("No purchase price listed: rent."));
    QVERIFY(!rent.breakEvenGpuHours);
    QCOMPARE(rent.curves.size(), std::size_t(3)); // no "Own" curve
    g.purchaseUsd = kH100Buy;
    g.pricePerHour.typical = 0;
    g.pricePerHour.spot.reset();
    const gp::RentVsBuy own = gp::rentVsBuy(s, g, 1);
    QCOMPARE(own.verdict, std::string("No rental price listed: owning is the only option priced."));
    QCOMPARE(own.curves.size(), std::size_t(1));
    g.purchaseUsd = 0;
    try {
        gp::rentVsBuy(s, g, 1);
        QFAIL("no price at all must throw");
    } catch (const gp::InputError& e) {
        const std::string what = e.what();
        QVERIFY2(what.find("hardware.gpus") != std::string::npos, what.c_str());
        QVERIFY2(what.find("neither a rental nor a purchase price") != std::string::npos, what.c_str());
    }
}

void TestRentBuy::json()
{
    const gp::RentVsBuy r = gp::rentVsBuy(scenario("inference", R"({"model": "on_demand"})"), gpu("nvidia-h100-sxm"), 1);
    const auto doc = nlohmann::json::parse(gp::rentVsBuyToJson({r}));
    QCOMPARE(doc["format"].get<std::string>(), std::string("gpuplanner-rent-vs-buy"));
    const auto& row = doc["results"].at(0);
    QCOMPARE(row["gpu"].get<std::string>(), std::string("nvidia-h100-sxm"));
    QVERIFY(qAbs(row["break_even_gpu_hours"].get<double>() - 10413.77) < 0.01);
    QCOMPARE(row["break_even_month"].get<int>(), 15);
    QCOMPARE(row["curves"].size(), std::size_t(4));
    QCOMPARE(row["curves"][0]["cumulative_usd_by_month"].size(), std::size_t(37));
}

QTEST_APPLESS_MAIN(TestRentBuy)
#include "tst_rentvsbuy.moc"
