// Issue #16's MLPerf rows, scored as per-GPU ratios (core/fit/validatemlperf.h):
// the published side is computed by hand from the records of
// tests/data/published/amd-rocm.json (fastest submission per GPU), the predicted
// side is the model's own estimate on both GPUs with the same workload.
#include <QtTest>

#include <QRegularExpression>
#include <QTemporaryDir>

#include "core/calibration/calibration.h"
#include "core/estimate/estimate.h"
#include "core/fit/validate.h"
#include "core/fit/validatemlperf.h"
#include "core/hardware/catalog.h"
#include "core/model/presets.h"
#include "core/scenario/scenario.h"

#include <algorithm>
#include <cmath>

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

    void trainingSingledOutInFp8()
    {
        // Both submitters' llama2_70b_lora configs set FP8=True: the training
        // ratio is also reported in FP8 alone, one end of the BF16..FP8 range.
        const auto ratios =
            gp::mlperfRatios({std::string(GP_TEST_DATA_DIR) + "/published"}, gp::Catalog::builtin());
        const gp::MlperfRatio& trn = ratios[2];
        QVERIFY(trn.likely.rfind("FP8", 0) == 0);
        QVERIFY(trn.predictedLikely == trn.predictedLow || trn.predictedLikely == trn.predictedHigh);
        QVERIFY(gp::mlperfRatiosTable(ratios).find("    in FP8 (AMD's and NVIDIA's") != std::string::npos);
        const auto inference = gp::mlperfRatios({std::string(GP_TEST_DATA_DIR) + "/published"}, gp::Catalog::builtin());
        QCOMPARE(inference[0].predictedLikely, 0.0); // the inference ratios single out nothing
    }

    void offlineRatioIsAFittedCdnaCase()
    {
        // The published directory gives one ratio case: MI300X per GPU over H100 SXM
        // per GPU, MLPerf Inference v4.1 llama2-70b Offline = 3062.72 / (24524.9 / 8),
        // scored in the numerator's family (CDNA) as published_mlperf_per_gpu_ratio.
        const gp::ValidationSet set =
            gp::loadValidationSet({}, gp::Catalog::builtin(), {std::string(GP_TEST_DATA_DIR) + "/published"});
        const auto it = std::find_if(set.cases.begin(), set.cases.end(), [](const gp::ValidationCase& c) {
            return c.record.rfind("MLPerf Inference v4.1 llama2-70b Offline per GPU", 0) == 0;
        });
        QVERIFY(it != set.cases.end());
        QCOMPARE(it->gpu, std::string("amd-mi300x"));
        QCOMPARE(it->archFamily, std::string("cdna"));
        QVERIFY(it->familyOnly);
        std::vector<gp::ValidationRow> rows;
        it->predict(gp::EstimateOptions{false}, rows);
        QCOMPARE(int(rows.size()), 1);
        QCOMPARE(rows[0].metric, std::string("published_mlperf_per_gpu_ratio"));
        QVERIFY(std::fabs(rows[0].measured - 3062.72 / (24524.9 / 8)) < 1e-9);
        // The numerator runs on CDNA constants: halving the family's 8-bit GEMM and
        // bandwidth scales slows the MI300X side, never the H100 side.
        gp::Calibration slow = gp::builtinCalibration();
        QVERIFY(slow.set("family_cdna_gemm8_scale", slow.find("family_cdna_gemm8_scale")->value / 2));
        QVERIFY(slow.set("family_cdna_bandwidth_scale", slow.find("family_cdna_bandwidth_scale")->value / 2));
        gp::EstimateOptions o{false};
        o.calibration = &slow;
        std::vector<gp::ValidationRow> slower;
        it->predict(o, slower);
        QVERIFY(slower[0].predicted < 0.75 * rows[0].predicted);
        // Without the H100 submission there is no pair: no case.
        gp::ValidationSet none;
        gp::addMlperfRatioCases(none, std::string(GP_TEST_DATA_DIR) + "/calibration", gp::Catalog::builtin());
        QVERIFY(none.cases.empty());
    }

    void stockVllmRowsReadTheFamilyShare()
    {
        // AMD's ROCm-page row (vLLM 0.8.3, 8x MI300X TP8, Llama 3.1 70B FP8, 128/2048:
        // 16364.9 tokens/s) is a stock vLLM benchmark: its prediction is the tuned
        // engine's times family_cdna_vllm_stock_scale, exactly.
        const gp::ValidationSet set =
            gp::loadValidationSet({}, gp::Catalog::builtin(), {std::string(GP_TEST_DATA_DIR) + "/published"});
        const auto it = std::find_if(set.cases.begin(), set.cases.end(), [](const gp::ValidationCase& c) {
            return c.record.rfind("AMDPERF-vllm083-MI300Xx8-70B-fp8-tp8-i128-o2048 ", 0) == 0;
        });
        QVERIFY(it != set.cases.end());
        gp::Calibration one = gp::builtinCalibration();
        QVERIFY(one.set("family_cdna_vllm_stock_scale", 1.0));
        gp::Calibration half = one;
        QVERIFY(half.set("family_cdna_vllm_stock_scale", 0.5));
        gp::EstimateOptions a{false};
        a.calibration = &one;
        gp::EstimateOptions b{false};
        b.calibration = &half;
        std::vector<gp::ValidationRow> ra;
        std::vector<gp::ValidationRow> rb;
        it->predict(a, ra);
        it->predict(b, rb);
        QCOMPARE(ra[0].measured, 16364.9);
        QVERIFY(std::fabs(rb[0].predicted / ra[0].predicted - 0.5) < 1e-12);
        // A tuned engine's row (TensorRT-LLM on H100) does not read it.
        const auto trt = std::find_if(set.cases.begin(), set.cases.end(), [](const gp::ValidationCase& c) {
            return c.record.rfind("TRT017-H100-70B-tp8-i128-o2048 ", 0) == 0;
        });
        QVERIFY(trt != set.cases.end());
        gp::Calibration hopperHalf = gp::builtinCalibration();
        for (const char* f : {"blackwell", "blackwell_gb2", "ada", "ampere", "cdna", "gaudi", "tpu"})
            QVERIFY(hopperHalf.set(std::string("family_") + f + "_vllm_stock_scale", 0.5));
        gp::EstimateOptions c{false};
        c.calibration = &hopperHalf;
        std::vector<gp::ValidationRow> r1;
        std::vector<gp::ValidationRow> r2;
        trt->predict(gp::EstimateOptions{false}, r1);
        trt->predict(c, r2);
        QCOMPARE(r2[0].predicted, r1[0].predicted);
        // The builtin share: fitted on the 24 ROCm rows and the ratio case, between
        // stock vLLM's 0.464 of TensorRT-LLM on H200 (amd-engines.json) and 1.
        const double share = gp::builtinCalibration().find("family_cdna_vllm_stock_scale")->value;
        QVERIFY(share > 16229.0 / 34988.2 && share < 1.0);
    }

    void servingEstimateSaysWhatAStockVllmReaches()
    {
        // Estimates stand for a tuned engine; where the family's fitted stock-vLLM share is
        // below 1 (CDNA), a serving estimate says how much of it a stock vLLM image reaches.
        gp::Scenario s;
        s.model = *gp::findPreset("llama-3.1-70b");
        s.mode = gp::Mode::Inference;
        s.runtime = gp::Runtime::Serving;
        s.inference.precision = gp::InferPrecision::FP8;
        s.inference.batch = 64;
        const gp::Catalog& cat = gp::Catalog::builtin();
        auto stockNote = [&](const char* gpu, const gp::Calibration& cal) {
            gp::EstimateOptions o{false};
            o.calibration = &cal;
            for (const std::string& n : gp::estimateOn(s, *cat.find(gpu), o, cal).notes)
                if (n.find("stock vLLM") != std::string::npos)
                    return n;
            return std::string();
        };
        gp::Calibration cal = gp::builtinCalibration();
        QVERIFY(cal.set("family_cdna_vllm_stock_scale", 0.7047));
        const std::string n = stockNote("amd-mi300x", cal);
        QVERIFY2(n.rfind("Stock vLLM on CDNA 3/4: these speeds are a tuned engine's", 0) == 0, n.c_str());
        QVERIFY(n.find("stock vLLM containers reached 0.7x of it, so expect about 0.7x these tokens/s") != std::string::npos);
        QVERIFY(stockNote("nvidia-h100-sxm", cal).empty()); // Hopper's share is 1: no note
        QVERIFY(cal.set("family_cdna_vllm_stock_scale", 1.0));
        QVERIFY(stockNote("amd-mi300x", cal).empty());
    }

    void mlperfLoraThroughputIsAnFp8CdnaRow()
    {
        // AMD's MLPerf Training v5.1 llama2_70b_lora run on 8x MI300X logs 2.115410410239245
        // samples/s (median of its tracked_stats) of 8192 tokens: 2.115410410239245 x 8192 / 8
        // = 2166.18 tokens/s per GPU. It is mapped as a LoRA fine-tune in FP8: its
        // prediction moves with the family's 8-bit GEMM scale.
        const gp::ValidationSet set =
            gp::loadValidationSet({}, gp::Catalog::builtin(), {std::string(GP_TEST_DATA_DIR) + "/published"});
        const auto it = std::find_if(set.cases.begin(), set.cases.end(), [](const gp::ValidationCase& c) {
            return c.record.rfind("MLPERF-TRN51-AMD-MI300X-llama2_70b_lora-throughput ", 0) == 0;
        });
        QVERIFY(it != set.cases.end());
        QCOMPARE(it->archFamily, std::string("cdna"));
        std::vector<gp::ValidationRow> rows;
        it->predict(gp::EstimateOptions{false}, rows);
        QCOMPARE(rows[0].metric, std::string("published_train_tokens_per_s_per_gpu"));
        QCOMPARE(rows[0].measured, 2166.18);
        QVERIFY(std::fabs(rows[0].measured - 2.115410410239245 * 8192 / 8) < 0.01);
        gp::Calibration slow = gp::builtinCalibration();
        QVERIFY(slow.set("family_cdna_gemm8_scale", slow.find("family_cdna_gemm8_scale")->value / 2));
        gp::EstimateOptions o{false};
        o.calibration = &slow;
        std::vector<gp::ValidationRow> slower;
        it->predict(o, slower);
        QVERIFY(slower[0].predicted < 0.8 * rows[0].predicted);
        // Within the published rows' 20% bound with the built-in constants (in-sample +7%).
        QVERIFY(std::fabs(rows[0].predicted / rows[0].measured - 1) < 0.2);
    }

    void inferenceRatiosAtTheOpenOrcaMeanPrompt()
    {
        // The llama2-70b records carry the OpenOrca set's prompt lengths: 5,463,976 tokens
        // over 24,576 samples (openshift-psap/performance-dashboard@7cd1065d
        // mlperf-data/summaries/llama2-70b-99.csv, MLCommons' tok_input_length column),
        // 222.33 a sample: both inference ratios are predicted at 222 tokens, one value,
        // and the fitted Offline case scores that same ratio.
        QCOMPARE(std::lround(5463976.0 / 24576), 222L);
        const auto ratios = gp::mlperfRatios({std::string(GP_TEST_DATA_DIR) + "/published"}, gp::Catalog::builtin());
        for (int k : {0, 1}) {
            QCOMPARE(ratios[k].predictedLow, ratios[k].predictedHigh);
            QVERIFY2(ratios[k].over.rfind("input 222 tokens (the OpenOrca set's mean: 5463976 / 24576), output 294", 0) ==
                         0,
                     ratios[k].over.c_str());
        }
        const gp::ValidationSet set =
            gp::loadValidationSet({}, gp::Catalog::builtin(), {std::string(GP_TEST_DATA_DIR) + "/published"});
        const auto it = std::find_if(set.cases.begin(), set.cases.end(), [](const gp::ValidationCase& c) {
            return c.record.rfind("MLPerf Inference v4.1 llama2-70b Offline per GPU", 0) == 0;
        });
        QVERIFY(it != set.cases.end());
        std::vector<gp::ValidationRow> rows;
        it->predict(gp::EstimateOptions{false}, rows);
        QCOMPARE(int(rows.size()), 1);
        QVERIFY(std::fabs(rows[0].predicted / ratios[0].predictedLow - 1) < 1e-12);
    }

    void withoutTheDatasetTotalsBothEnds()
    {
        // A record set without the dataset totals falls back to both ends of the
        // benchmark's prompt range, 128 and 1,024 tokens.
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QFile in(QString(GP_TEST_DATA_DIR) + "/published/amd-rocm.json");
        QVERIFY(in.open(QIODevice::ReadOnly));
        QString text = QString::fromUtf8(in.readAll());
        text.remove(QRegularExpression(R"re("dataset_(input_tokens_total|samples)": \d+,\s*)re"));
        QVERIFY(!text.contains("\"dataset_samples\":"));
        QFile out(dir.filePath("amd-rocm.json"));
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(text.toUtf8());
        out.close();
        const auto ratios = gp::mlperfRatios({dir.path().toStdString()}, gp::Catalog::builtin());
        QCOMPARE(int(ratios.size()), 3);
        QVERIFY(ratios[0].predictedLow < ratios[0].predictedHigh);
        QVERIFY2(ratios[0].over.rfind("input 128 to 1,024 tokens (the mean is not in the records)", 0) == 0,
                 ratios[0].over.c_str());
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
