// MIG compute share from the slice's SMs (issue #16), for the GPUs whose
// `nvidia-smi mig -lgip` listings were found in session 12 (H100 PCIe, H100 NVL,
// GH200 96GB, A30, RTX PRO 6000 Blackwell 2g): every profile's SMs as the
// listing prints them (cited in each catalog entry's mig_sms_source), the
// slice's peaks scaled by SMs / the GPU's SMs, and one estimate on a slice.
#include "tests/common/estimateterms.h"
#include <QtTest>

#include "core/estimate/estimate.h"
#include "core/hardware/catalog.h"
#include "tests/common/builtingpu.h"
#include "core/hardware/mig.h"
#include "core/scenario/scenario.h"

#include <string>

class TestMigSms : public QObject {
    Q_OBJECT

private slots:
    void listedProfiles_data()
    {
        QTest::addColumn<QString>("id");
        QTest::addColumn<int>("gpuSms");
        QTest::addColumn<QString>("profile");
        QTest::addColumn<int>("sms");
        QTest::addColumn<QString>("label");
        // H100 PCIe (Scaleway lgip; 114 SMs in XLA's h100_pcie.txtpb): 14, 30, 46, 62, 114.
        QTest::newRow("h100-pcie 1g") << "nvidia-h100-pcie" << 114 << "1g" << 14 << "1g.10gb";
        QTest::newRow("h100-pcie 2g") << "nvidia-h100-pcie" << 114 << "2g" << 30 << "2g.20gb";
        QTest::newRow("h100-pcie 3g") << "nvidia-h100-pcie" << 114 << "3g" << 46 << "3g.40gb";
        QTest::newRow("h100-pcie 4g") << "nvidia-h100-pcie" << 114 << "4g" << 62 << "4g.40gb";
        QTest::newRow("h100-pcie 7g") << "nvidia-h100-pcie" << 114 << "7g" << 114 << "7g.80gb";
        // H100 NVL (Azure NC40ads_H100_v5 lgip): 16, 32, 60, 64, 132.
        QTest::newRow("h100-nvl 1g") << "nvidia-h100-nvl" << 132 << "1g" << 16 << "1g.12gb";
        QTest::newRow("h100-nvl 2g") << "nvidia-h100-nvl" << 132 << "2g" << 32 << "2g.24gb";
        QTest::newRow("h100-nvl 3g") << "nvidia-h100-nvl" << 132 << "3g" << 60 << "3g.47gb";
        QTest::newRow("h100-nvl 4g") << "nvidia-h100-nvl" << 132 << "4g" << 64 << "4g.47gb";
        QTest::newRow("h100-nvl 7g") << "nvidia-h100-nvl" << 132 << "7g" << 132 << "7g.94gb";
        // GH200 96GB (a GH200's lgip): 16, 32, 60, 64, 132.
        QTest::newRow("gh200 1g") << "nvidia-gh200" << 132 << "1g" << 16 << "1g.12gb";
        QTest::newRow("gh200 2g") << "nvidia-gh200" << 132 << "2g" << 32 << "2g.24gb";
        QTest::newRow("gh200 3g") << "nvidia-gh200" << 132 << "3g" << 60 << "3g.48gb";
        QTest::newRow("gh200 4g") << "nvidia-gh200" << 132 << "4g" << 64 << "4g.48gb";
        QTest::newRow("gh200 7g") << "nvidia-gh200" << 132 << "7g" << 132 << "7g.96gb";
        // A30 (4-way): 14, 28, 56 of 56.
        QTest::newRow("a30 1g") << "nvidia-a30" << 56 << "1g" << 14 << "1g.6gb";
        QTest::newRow("a30 2g") << "nvidia-a30" << 56 << "2g" << 28 << "2g.12gb";
        QTest::newRow("a30 4g") << "nvidia-a30" << 56 << "4g" << 56 << "4g.24gb";
        // RTX PRO 6000 Blackwell 2g.48gb: 94 of 188 (1g.24gb 46 was listed in session 11).
        QTest::newRow("rtx-pro-6000 2g") << "nvidia-rtx-pro-6000-blackwell" << 188 << "2g" << 94 << "2g.48gb";
    }

    void listedProfiles()
    {
        QFETCH(QString, id);
        QFETCH(int, gpuSms);
        QFETCH(QString, profile);
        QFETCH(int, sms);
        QFETCH(QString, label);
        const gp::Gpu& g = gpu(id.toUtf8().constData());
        QCOMPARE(g.smCount, gpuSms);
        const gp::MigProfile* p = gp::findMigProfile(g, profile.toStdString());
        QVERIFY(p);
        QCOMPARE(gp::migProfileLabel(g, *p), label.toStdString());
        QCOMPARE(gp::migComputeShare(g, *p), double(sms) / gpuSms);
        const gp::Gpu slice = gp::migSlice(g, *p);
        QCOMPARE(slice.smCount, sms);
        QCOMPARE(slice.bf16Tflops, g.bf16Tflops * sms / gpuSms);
        QCOMPARE(slice.fp8Tflops, g.fp8Tflops * sms / gpuSms);
        // Memory and bandwidth follow the memory slices, the price the compute slots.
        QCOMPARE(slice.memoryGb, g.memoryGb * p->memoryFraction());
        QCOMPARE(slice.pricePerHour.typical, g.pricePerHour.typical * p->computeFraction());
        const std::string note = gp::migSliceNote(g, *p);
        QVERIFY2(note.find(std::to_string(sms) + " of its " + std::to_string(gpuSms) + " SMs (nvidia-smi mig -lgip)") !=
                     std::string::npos,
                 note.c_str());
        QVERIFY(!g.migSmsSource.empty());
    }

    void listingsDifferFromTheGuide()
    {
        // What the listings change, by hand: an H100 PCIe 3g.40gb holds 46 of the 114 SMs,
        // 40.4% of the peaks where the guide's 3/7 says 42.9%; its 2g.20gb 30/114 = 26.3%
        // (2/7 = 28.6%); a 1g.10gb 14/114 = 12.3% (1/7 = 14.3%). An H100 NVL or GH200 3g
        // holds 60 of 132 = 45.5% (3/7 = 42.9%). The A30 and the RTX PRO 6000 2g match
        // the guide exactly (28/56 and 94/188 = 1/2).
        const gp::Gpu& pcie = gpu("nvidia-h100-pcie");
        QCOMPARE(qRound(gp::migComputeShare(pcie, *gp::findMigProfile(pcie, "3g")) * 1000), 404);
        QCOMPARE(qRound(gp::migComputeShare(pcie, *gp::findMigProfile(pcie, "2g")) * 1000), 263);
        QCOMPARE(qRound(gp::migComputeShare(pcie, *gp::findMigProfile(pcie, "1g")) * 1000), 123);
        const gp::Gpu& nvl = gpu("nvidia-h100-nvl");
        QCOMPARE(qRound(gp::migComputeShare(nvl, *gp::findMigProfile(nvl, "3g")) * 1000), 455);
        QCOMPARE(gp::migComputeShare(gpu("nvidia-a30"), *gp::findMigProfile(gpu("nvidia-a30"), "2g")), 0.5);
        const gp::Gpu& pro = gpu("nvidia-rtx-pro-6000-blackwell");
        QCOMPARE(gp::migComputeShare(pro, *gp::findMigProfile(pro, "2g")), 0.5);
        // Its 4g.96gb was not found: the guide's 4/4.
        QVERIFY(gp::migSliceNote(pro, *gp::findMigProfile(pro, "4g")).find("4/4 of its SMs (NVIDIA MIG user guide)") !=
                std::string::npos);
    }

    void estimateOnAnH100PcieSlice()
    {
        // Llama 3.1 8B bf16, batch 1, 1,024 prompt tokens, on an H100 PCIe and on its
        // 3g.40gb slice: the prefill matmuls run on 46 of the 114 SMs, 114/46 = 2.478x
        // the time (the guide's 3/7 would say 7/3 = 2.333x); decode reads the weights at
        // 4/8 of the bandwidth, 2x the time.
        gp::Scenario s;
        s.name = "mig";
        s.modelSpec.form = gp::ModelSpec::Form::Preset;
        s.modelSpec.presetId = "llama-3.1-8b";
        s.model = gp::resolveModel(s.modelSpec);
        s.mode = gp::Mode::Inference;
        s.runtime = gp::Runtime::Optimized;
        s.inference.precision = gp::InferPrecision::BF16;
        s.inference.batch = 1;
        s.inference.promptTokens = 1024;
        s.inference.outputTokens = 256;
        s.hardware.gpus = {"nvidia-h100-pcie"};
        const gp::GpuEstimate whole = gp::estimateOn(s, gpu("nvidia-h100-pcie"));
        s.hardware.mig = "3g";
        const gp::Estimate est = gp::estimate(s, gp::Catalog::builtin());
        QCOMPARE(est.results.size(), std::size_t(1));
        const gp::GpuEstimate& slice = est.results[0];
        QCOMPARE(slice.gpuName, std::string("H100 PCIe 80GB (MIG 3g.40gb)"));
        const double gemm = term(slice, "time.prefill.gemm")->value / term(whole, "time.prefill.gemm")->value;
        QVERIFY2(qAbs(gemm - 114.0 / 46) < 1e-12, QByteArray::number(gemm, 'g', 15));
        const double mem = term(slice, "time.decode.memory")->value / term(whole, "time.decode.memory")->value;
        QVERIFY2(qAbs(mem - 2) < 1e-12, QByteArray::number(mem, 'g', 15));
    }
};

QTEST_GUILESS_MAIN(TestMigSms)
#include "tst_migsms.moc"
