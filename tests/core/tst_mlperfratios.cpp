// Issue #16's MLPerf rows, scored as per-GPU ratios (core/fit/validatemlperf.h):
// the published side is computed by hand from the records of
// tests/data/published/amd-rocm.json (fastest submission per GPU), the predicted
// side is the model's own estimate on both GPUs with the same workload.
#include <QtTest>

#include "core/fit/validatemlperf.h"
#include "core/hardware/catalog.h"

#include <string>

class TestMlperfRatios : public QObject {
    Q_OBJECT

private slots:
    void publishedRatiosByHand()
    {
        const auto ratios =
            gp::mlperfRatios({std::string(GP_TEST_DATA_DIR) + "/published"}, gp::Catalog::builtin());
        QCOMPARE(int(ratios.size()), 3);
        // Inference v4.1 Offline: 1x MI300X 3062.72 tokens/s (AMD, vLLM) against
        // 8x H100 SXM 24524.9 / 8 = 3065.61 per GPU (NVIDIA DGX H100, TensorRT): 0.99906.
        const gp::MlperfRatio& off = ratios[0];
        QCOMPARE(off.benchmark, std::string("MLPerf Inference v4.1 llama2-70b Offline"));
        QCOMPARE(off.numerator, std::string("amd-mi300x"));
        QCOMPARE(off.denominator, std::string("nvidia-h100-sxm"));
        QCOMPARE(off.numeratorRecord, std::string("MLPERF-INF41-AMD-1xMI300X_2xEPYC-9374F-Offline"));
        QVERIFY(qAbs(off.published - 3062.72 / (24524.9 / 8)) < 1e-9);
        // Server: 8x MI300X 21028.2 / 8 against 8x H100 21605.8 / 8: 0.97327.
        const gp::MlperfRatio& srv = ratios[1];
        QCOMPARE(srv.benchmark, std::string("MLPerf Inference v4.1 llama2-70b Server"));
        QVERIFY(qAbs(srv.published - 21028.2 / 21605.8) < 1e-9);
        // Training v5.0 llama2_70b_lora, 8 GPUs each: fastest H200 (Supermicro AS-4125GS, 23.081 min)
        // over fastest MI325X (Supermicro, 21.575 min): 1.0698 (issue #16: "at most 1.08").
        const gp::MlperfRatio& trn = ratios[2];
        QCOMPARE(trn.numerator, std::string("amd-mi325x"));
        QCOMPARE(trn.denominator, std::string("nvidia-h200-sxm"));
        QVERIFY(qAbs(trn.published - 23.081 / 21.575) < 1e-9);
        QVERIFY(trn.published <= 1.08);
        for (const auto& q : ratios) {
            QVERIFY(q.predictedLow > 0);
            QVERIFY(q.predictedLow <= q.predictedHigh);
            QVERIFY(!q.over.empty());
        }
        const std::string table = gp::mlperfRatiosTable(ratios);
        QVERIFY(table.find("published 0.999 (3062.7 / 3065.6 tokens/s per GPU)") != std::string::npos);
        QVERIFY(table.find("published 1.070 (time to train 23.081 / 21.575 min)") != std::string::npos);
    }

    void noMlperfRowsNoTable()
    {
        const auto ratios = gp::mlperfRatios({std::string(GP_TEST_DATA_DIR) + "/calibration"}, gp::Catalog::builtin());
        QVERIFY(ratios.empty());
        QCOMPARE(gp::mlperfRatiosTable(ratios), std::string());
    }
};

QTEST_GUILESS_MAIN(TestMlperfRatios)
#include "tst_mlperfratios.moc"
