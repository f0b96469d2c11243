// Issue #16, tensor parallel over PCIe and under load:
//  - the PCIe all-reduce bus efficiency is NCCL's published figure (nccl-tests
//    all-reduce busbw of 8 GeForce RTX 5090 on PCIe 5.0 without NVLink, NVIDIA/nccl
//    issue #1639, tests/data/published/nccl-busbw.json): 28 GB/s of the 64 GB/s link;
//  - a serving engine whose KV pool holds fewer sequences than the users in the
//    system runs its decode steps (and their TP all-reduces) on the sequences it
//    holds, not on the users waiting for KV blocks;
//  - a decode step's all-reduces (a few MB) run over NVLink below NCCL's
//    large-message bus bandwidth: the slope of NCCL's all-reduce time on 8x H100
//    between 4 and 16 MiB (ByteDance-Seed/Triton-distributed issue #57).
#include <QtTest>

#include "core/calibration/calibration.h"
#include "core/estimate/estimate.h"
#include "core/hardware/catalog.h"
#include "core/scenario/scenario.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>
#include <string>

namespace {

double rowValue(const nlohmann::json& rows, const std::string& id)
{
    for (const auto& r : rows)
        if (r.value("id", "") == id)
            return r.value("value", 0.0);
    return 0;
}

gp::Scenario l40sTp4(int users)
{
    return gp::parseScenario(R"({"format": "gpuplanner-scenario", "version": 1, "name": "L40S TP4",
        "model": {"preset": "llama-3.1-70b"},
        "workload": {"mode": "inference", "runtime": "serving", "inference": {"precision": "fp8", "batch": )" +
                             std::to_string(users) + R"(, "prompt_tokens": 128, "output_tokens": 4096, "memory_fraction": 0.95}},
        "hardware": {"gpus": ["nvidia-l40s"], "count": 4, "tp": 4}})")
        .scenario;
}

} // namespace

class TestCollectives : public QObject {
    Q_OBJECT

private slots:
    void pcieBusEfficiencyIsNcclsPublishedFigure()
    {
        std::ifstream in(std::string(GP_TEST_DATA_DIR) + "/published/nccl-busbw.json");
        std::stringstream ss;
        ss << in.rdbuf();
        double busbw = 0;
        for (const auto& r : nlohmann::json::parse(ss.str()))
            if (r.value("id", "") == "NCCL1639-RTX5090x8-PCIe-allreduce")
                busbw = r.value("value", 0.0);
        QCOMPARE(busbw, 28.0);
        const gp::Gpu* g = gp::Catalog::builtin().find("nvidia-rtx-5090");
        QVERIFY(g);
        QCOMPARE(g->pcieGbps(), 64.0); // PCIe 5.0 x16, per direction
        QCOMPARE(gp::builtinCalibration().pcieEff, busbw / g->pcieGbps()); // 0.4375
        QCOMPARE(gp::builtinCalibration().find("pcie_eff")->kind, std::string("literature"));
    }

    void decodeAllReduceRunsAtNcclsRateForItsSize()
    {
        std::ifstream in(std::string(GP_TEST_DATA_DIR) + "/published/nccl-busbw.json");
        std::stringstream ss;
        ss << in.rdbuf();
        const nlohmann::json rows = nlohmann::json::parse(ss.str());
        const double t4 = rowValue(rows, "TD57-H100x8-NCCL-allreduce-4MB");
        const double t16 = rowValue(rows, "TD57-H100x8-NCCL-allreduce-16MB");
        QCOMPARE(t4, 59.43);
        QCOMPARE(t16, 135.68);
        // 12 MiB more, x 2 (n - 1) / n on 8 GPUs, in 76.25 us: 288.8 GB/s of NVLink 4's 450.
        const double busbw = 12.0 * 1048576 * 2 * 7 / 8 / ((t16 - t4) * 1e-6);
        QVERIFY2(qAbs(busbw / 1e9 - 288.8) < 0.1, qPrintable(QString::number(busbw / 1e9)));
        const gp::Calibration& c = gp::builtinCalibration();
        QVERIFY(qAbs(c.nvlinkBusEffDecode - busbw / 450e9) < 5e-4); // 0.642
        QCOMPARE(c.find("nvlink_bus_eff_decode")->kind, std::string("literature"));

        // 8x H100 TP8, Llama 3.1 70B FP8, a static batch of 256 decoding: each token's
        // 2 x 80 all-reduces of 256 x 8192 x 2 B move 2 x 7/8 of it over NVLink at
        // 450 GB/s x nvlink_bus_eff_decode instead of x nvlink_bus_eff.
        const gp::Scenario s = gp::parseScenario(R"({"format": "gpuplanner-scenario", "version": 1, "name": "H100 TP8",
            "model": {"preset": "llama-3.1-70b"},
            "workload": {"mode": "inference", "runtime": "optimized", "inference": {"precision": "fp8", "batch": 256,
                         "prompt_tokens": 128, "output_tokens": 128}},
            "hardware": {"gpus": ["nvidia-h100-sxm"], "count": 8, "tp": 8}})")
                                   .scenario;
        const gp::Gpu& g = *gp::Catalog::builtin().find("nvidia-h100-sxm");
        gp::Calibration peakRate = c;
        peakRate.nvlinkBusEffDecode = c.nvlinkBusEff;
        const double tpot = *gp::estimateOn(s, g).inference->tpotMs;
        const double atPeak = *gp::estimateOn(s, g, {false, &peakRate}).inference->tpotMs;
        const double bytes = 2.0 * 80 * 256 * 8192 * 2 * 2 * 7 / 8;
        const double extraMs = bytes / 450e9 * (1 / c.nvlinkBusEffDecode - 1 / c.nvlinkBusEff) * 1e3;
        QVERIFY2(qAbs((tpot - atPeak) / extraMs - 1) < 1e-6, qPrintable(QString("%1 - %2 vs %3 ms").arg(tpot).arg(atPeak).arg(extraMs)));
    }

    void decodeStepRunsOnTheSequencesTheEngineHolds()
    {
        // Llama 3.1 70B FP8 on 4x L40S (TP4), 128-token prompts and 4,096-token answers:
        // the KV pool holds 160 sequences. With 1,024 users in the system the other
        // 864 wait for blocks; the step (weights, KV reads and the 2 x 80 all-reduces
        // of one row per running sequence) is the step of 160, so the time per output
        // token is that of 160 users (it was 210 ms against 77 ms when the all-reduces
        // were charged for the waiting users too).
        const gp::Gpu& g = *gp::Catalog::builtin().find("nvidia-l40s");
        const gp::GpuEstimate held = gp::estimateOn(l40sTp4(160), g);
        const gp::GpuEstimate offered = gp::estimateOn(l40sTp4(1024), g);
        QCOMPARE(*offered.inference->admitted, 160);
        QCOMPARE(*held.inference->admitted, 160);
        QVERIFY2(qAbs(*offered.inference->tpotMs / *held.inference->tpotMs - 1) < 0.01,
                 qPrintable(QString("%1 vs %2 ms").arg(*offered.inference->tpotMs).arg(*held.inference->tpotMs)));
        QVERIFY2(qAbs(*offered.inference->tokensPerS / *held.inference->tokensPerS - 1) < 0.01,
                 qPrintable(QString("%1 vs %2").arg(*offered.inference->tokensPerS).arg(*held.inference->tokensPerS)));
    }
};

QTEST_GUILESS_MAIN(TestCollectives)
#include "tst_collectives.moc"
