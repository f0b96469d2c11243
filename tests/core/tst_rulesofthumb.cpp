// The seed articles' rules of thumb (core/rules/rules.cpp, gp::checkRulesOfThumb):
// each rule's verdict and the figure it computes. Figures that follow from the
// catalog and parameter counts are compared exactly as printed; those that go
// through the memory model get a bound worked out by hand; speed ratios (being
// calibrated) only get the bounds the verdict depends on.
#include <QtTest>

#include "core/hardware/catalog.h"
#include "core/rules/rules.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
// GB -> GiB: card sizes as the catalog lists them, in the GiB the findings print.
constexpr double gbInGib(double gb) { return gb * 1e9 / kGiB; }

const std::map<std::string, gp::RuleCheck>& rules()
{
    static const std::map<std::string, gp::RuleCheck> byId = [] {
        std::map<std::string, gp::RuleCheck> m;
        for (auto& r : gp::checkRulesOfThumb(gp::Catalog::builtin()))
            m[r.id] = r;
        return m;
    }();
    return byId;
}

const gp::RuleCheck& rule(const std::string& id)
{
    auto it = rules().find(id);
    if (it == rules().end())
        qFatal("no rule %s", id.c_str());
    return it->second;
}

/// The number printed right after `marker` in `text` (NaN when absent).
double after(const std::string& text, const std::string& marker, std::size_t from = 0)
{
    const auto at = text.find(marker, from);
    if (at == std::string::npos)
        return std::nan("");
    return std::strtod(text.c_str() + at + marker.size(), nullptr);
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string fmt1(double v)
{
    char b[32];
    std::snprintf(b, sizeof b, "%.1f", v);
    return b;
}

} // namespace

class TestRulesOfThumb : public QObject {
    Q_OBJECT

private slots:
    void verdicts_data();
    void verdicts();
    void bytesPerParam();
    void seventyB();
    void servingAndQuantized();
    void rentVsBuy();
    void speedRatios();
    void catalogFigures();
    void consumerCards();
    void output();
};

void TestRulesOfThumb::verdicts_data()
{
    QTest::addColumn<QString>("id");
    QTest::addColumn<QString>("verdict");
    QTest::addRow("bytes-per-param-adam") << "bytes-per-param-adam" << "holds";
    QTest::addRow("gb-per-billion") << "gb-per-billion" << "holds";
    QTest::addRow("70b-1-1tb") << "70b-1-1tb" << "holds";
    QTest::addRow("70b-8xh100") << "70b-8xh100" << "depends";
    QTest::addRow("70b-serve-int8") << "70b-serve-int8" << "holds";
    QTest::addRow("7b-one-gpu-quantized") << "7b-one-gpu-quantized" << "holds";
    QTest::addRow("rent-vs-buy-2600h") << "rent-vs-buy-2600h" << "depends";
    QTest::addRow("cloud-under-70pct") << "cloud-under-70pct" << "depends";
    QTest::addRow("pricier-but-faster") << "pricier-but-faster" << "corrected";
    QTest::addRow("b200-3x") << "b200-3x" << "corrected";
    QTest::addRow("h100-3958") << "h100-3958" << "corrected";
    QTest::addRow("5090-70b") << "5090-70b" << "corrected";
    QTest::addRow("4090-20b-lora") << "4090-20b-lora" << "depends";
    QTest::addRow("65b-a100") << "65b-a100" << "corrected";
    QTest::addRow("training-class-3-10x") << "training-class-3-10x" << "holds";
    QTest::addRow("resnet18-batch1") << "resnet18-batch1" << "holds";
    // issue #12: tst_rulesseeds.cpp checks their figures.
    QTest::addRow("spot-60-90") << "spot-60-90" << "depends";
    QTest::addRow("pue-ranges") << "pue-ranges" << "holds";
    // 2.46x at BF16 (below the 2.5-3.5 'third'), 3.71x with FP8: depends. LLM Foundry's
    // own table gives MPT-7B 10,643 tokens/s/GPU on H100 against 4,641 on A100 (2.29x).
    QTest::addRow("h100-third-of-a100") << "h100-third-of-a100" << "depends";
    QTest::addRow("h200-doubles-70b") << "h200-doubles-70b" << "depends";
}

void TestRulesOfThumb::verdicts()
{
    QFETCH(QString, id);
    QFETCH(QString, verdict);
    QCOMPARE(rules().size(), std::size_t(20));
    const gp::RuleCheck& r = rule(id.toStdString());
    QCOMPARE(QString::fromStdString(r.verdict), verdict);
    QVERIFY(!r.claim.empty() && !r.source.empty() && !r.finding.empty() && !r.reason.empty());
}

void TestRulesOfThumb::bytesPerParam()
{
    // 4 + 4 + 8 = 16 B/param of states; the peak adds activations at micro-batch
    // 1 x 2048, so it lies above 16 and, for an 8B model, well below 24
    // (activations of one 2048-token sequence are a few GiB, not 8 B/param).
    const gp::RuleCheck& a = rule("bytes-per-param-adam");
    // With full checkpointing autocast keeps no 16-bit copies: 4 + 4 + 8 exactly.
    QVERIFY2(contains(a.finding, "optimizer states come to 16.0 B/param"), a.finding.c_str());
    QVERIFY(contains(rule("gb-per-billion").finding, "(states only; the estimator's: 16.0)"));
    const double peak = after(a.finding, "micro-batch 1 x 2048 is ");
    QVERIFY2(peak > 16 && peak < 24, a.finding.c_str());
    // The same peak in GB per billion parameters (B/param = GB/B), printed the same way.
    const gp::RuleCheck& b = rule("gb-per-billion");
    QCOMPARE(after(b.finding, "GiB = "), peak);
    // Its GiB figure: peak x 8.03e9 parameters / 2^30, to the printed 0.1 B/param (+/- 0.05 x 8.03e9 B = 0.4 GiB).
    const double gib = after(b.finding, "peaks at ");
    QVERIFY2(qAbs(gib - peak * 8.03e9 / kGiB) < 1, b.finding.c_str());
}

void TestRulesOfThumb::seventyB()
{
    // Llama 3.1 70B: 70.55e9 parameters x 16 B = 1.1289e12 B -> "1.13 TB".
    const gp::RuleCheck& tb = rule("70b-1-1tb");
    QCOMPARE(tb.finding,
             std::string("1.13 TB of weights, gradients and Adam states (16 B x 70.6B params), before activations."));
    // LoRA: 70.55e9 x 2 B = 141 GB; QLoRA: 70.55e9 x 0.55 B = 38.8 -> 39 GB.
    QVERIFY2(contains(tb.reason, "LoRA needs ~141 GB (frozen bf16 base), QLoRA ~39 GB."), tb.reason.c_str());

    // 8 H100s under ZeRO-3 (capacity 80 GiB x the usable fraction, printed).
    const gp::RuleCheck& h = rule("70b-8xh100");
    const double cap = after(h.finding, "(capacity ");
    QVERIFY2(cap > gbInGib(80) && cap <= 80, h.finding.c_str());
    // Mixed-precision AdamW: 16 B x 70.55e9 / 8 = 141.1 GB = 131.4 GiB of states per GPU alone > capacity.
    const double amp = after(h.finding, "mixed-precision AdamW ");
    QVERIFY2(amp > 131.4 && contains(h.finding, "AdamW " + fmt1(amp) + " GiB per GPU (does not fit)"), h.finding.c_str());
    // Pure bf16: 2 + 2 + 2 x 2 = 8 B x 70.55e9 / 8 = 70.55 GB = 65.7 GiB of states, plus activations of one
    // checkpointed 2048-token sequence and overhead; issue #12 (DeepSpeed ZeRO-3) puts it at about 74 GiB.
    const double bf16 = after(h.finding, "pure-bf16 AdamW ");
    QVERIFY2(bf16 > 65.7 && bf16 < cap && qAbs(bf16 - 74) < 3, h.finding.c_str());
    QVERIFY(contains(h.finding, "pure-bf16 AdamW " + fmt1(bf16) + " GiB per GPU (fits)"));
    // 8-bit AdamW: the moments are 70.55e9 x 2 x 1.016 B / 8 = 17.92 GB = 16.69 GiB; with the sharded fp32
    // master (4 B / 8 = 32.85 GiB) the states alone are 49.5 GiB; the printed verdict agrees with the capacity.
    const double adam8 = after(h.finding, "mixed precision with 8-bit AdamW ");
    QVERIFY2(adam8 > 49.5, h.finding.c_str());
    QVERIFY(contains(h.finding, "8-bit AdamW " + fmt1(adam8) + " GiB per GPU (" + (adam8 <= cap ? "fits" : "does not fit")));
    QVERIFY2(contains(h.reason, "it shrinks the moments to 16.7 GiB per GPU"), h.reason.c_str());
    QVERIFY(contains(h.reason, adam8 <= cap ? "An 8-bit optimizer is enough here" : "An 8-bit optimizer alone is not enough"));
    // CPU offload: activations + overhead + two all-gathered bf16 layers of (70.55e9 - 2 x 128,256 x 8,192)
    // / 80 = 855.6M params x 2 B x 2 = 3.42 GB = 3.19 GiB.
    const double gathered = after(h.finding, "two all-gathered bf16 layers ");
    QCOMPARE(gathered, 3.2);
    const double offload = after(h.finding, "offloaded to the CPU ");
    QVERIFY2(qAbs(offload - gathered - after(h.finding, "activations and overhead ")) <= 0.1, h.finding.c_str());
    // The verdict follows: AMP does not fit, pure bf16 does -> "depends"; the 16 B/param states need 16 GPUs.
    QCOMPARE(h.verdict, std::string("depends"));
    QVERIFY2(contains(h.finding, "Mixed-precision AdamW needs at least 16x H100 ("), h.finding.c_str());
    QVERIFY(contains(h.reason, "1.13 TB") && contains(h.reason, "70B_full.yaml") && contains(h.reason, "fsdp_cpu_offload"));
}

void TestRulesOfThumb::servingAndQuantized()
{
    // 70B at INT8: 70.55e9 B = 65.7 GiB of weights; KV cache at 16 bits:
    // 2 x 80 layers x 8 KV heads x 128 x 2 B = 327,680 B per token x 8 x 2,560
    // tokens = 6.25 GiB. At least 72 GiB on the H200 (140 GiB), half of it
    // (36 GiB) per GPU with TP2 on the H100s (80 GB = 74.5 GiB).
    const gp::RuleCheck& s = rule("70b-serve-int8");
    const double h200 = after(s.finding, "1x H200 needs ");
    const double h100 = after(s.finding, "2x H100 TP2 needs ");
    QVERIFY2(h200 >= 72 && h200 <= 140, s.finding.c_str());
    QVERIFY2(h100 >= 36 && h100 <= gbInGib(80), s.finding.c_str());
    // Per GPU, TP2 holds half the weights and half the KV heads, plus its own
    // runtime overhead: within 1 GiB of half plus a few GiB.
    QVERIFY2(h100 >= h200 / 2 - 1 && h100 <= h200 / 2 + 4, s.finding.c_str());

    // Llama 2 7B (6.74e9 parameters): INT4 = 3.37 GB = 3.14 GiB of weights,
    // under a 16 GB T4 (14.9 GiB); bf16 = 13.48 GB = 12.55 GiB, under a 24 GB L4
    // (22.35 GiB). Full fine-tune: 6.74e9 x 16 B = 108 GB > 80, so 2 H100s (54 GB
    // each with ZeRO-3).
    const gp::RuleCheck& q = rule("7b-one-gpu-quantized");
    const double int4 = after(q.finding, "INT4: ");
    const double bf16 = after(q.finding, "even bf16 (");
    QVERIFY2(int4 > 3.14 && int4 < gbInGib(16), q.finding.c_str());
    QVERIFY2(bf16 > 12.55 && bf16 < gbInGib(24), q.finding.c_str());
    QVERIFY2(contains(q.finding, "Its full fine-tune needs 2x H100 80GB, not 8."), q.finding.c_str());
}

void TestRulesOfThumb::rentVsBuy()
{
    // A100 40GB SXM in the catalog: $10,000, 400 W, $1.48/h typical, $3.67/h high.
    // Power: 0.4 kW x PUE 1.3 x $0.12/kWh = $0.0624/h.
    //   hyperscaler: 10,000 / (3.67 - 0.0624) = 10,000 / 3.6076 = 2,771.9 -> "2772"
    //   typical:     10,000 / (1.48 - 0.0624) = 10,000 / 1.4176 = 7,054.1 -> "7054"
    // "Approximately 2,600": 2,772 is 6.6% off (within 15%), 7,054 is 171% off: it depends on the rate.
    const gp::RuleCheck& r = rule("rent-vs-buy-2600h");
    QCOMPARE(r.finding, std::string("A100 40GB SXM at $10000: break-even after 2772 GPU-hours at the hyperscaler "
                                    "rate ($3.67/h), 7054 at the typical 2026 rate ($1.48/h)."));
    // 7,054.1 / 2,771.9 = 2.54 -> "2.5x later".
    QVERIFY2(contains(r.reason, "The 2,600 h figure matches hyperscaler list prices;") &&
                 contains(r.reason, "the break-even is 2.5x later."),
             r.reason.c_str());
    // Utilization over 3 years (26,280 h):
    //   hardware and power: 7,054.1 / 26,280 = 26.8% -> "27%"
    //   with $275,000 / 3 / 8 = $11,458.33 hosting per GPU-year:
    //     (10,000 + 3 x 11,458.33) / 1.4176 = 44,375 / 1.4176 = 31,302.9 h / 26,280 = 119.1% -> "119%"
    const gp::RuleCheck& c = rule("cloud-under-70pct");
    QCOMPARE(c.finding, std::string("A100 40GB, 3 years: owning breaks even at 27% utilization on hardware and power "
                                    "alone, at 119% once the seed's $225-300k team is spread over one 8-GPU server."));
}

void TestRulesOfThumb::speedRatios()
{
    // The seed's own pair: A100 (RunPod's, the 80GB PCIe) $1.39/h over RTX 3080 $0.12/h = 11.583 -> "11.6x".
    // The A100 is at most max(312 / 59.5 BF16 TFLOPS, 1935 / 760 GB/s) = 5.24x as fast, under the price
    // ratio whatever the estimator says: the A100 costs more, and the seed's "3x the price" is "corrected".
    const gp::RuleCheck& p = rule("pricier-but-faster");
    QVERIFY2(contains(p.finding, "A100 80GB PCIe is $1.39/h and the RTX 3080 $0.12/h: 11.6x the price."), p.finding.c_str());
    const double speed = after(p.finding, "the A100 is ");
    const double speed256 = after(p.finding, "x as fast (");
    QVERIFY2(speed > 1 && speed < 5.24 && speed256 >= speed && speed256 < 5.24, p.finding.c_str());
    // Cost ratio = price ratio / speed ratio at the cheaper A100 batch; speeds are printed to 0.05 (1.3%).
    const double cost = after(p.finding, ": ", p.finding.find("against $"));
    QVERIFY2(qAbs(cost - 11.583 / speed256) < 0.05, p.finding.c_str());
    QCOMPARE(p.verdict, std::string("corrected"));
    QVERIFY2(contains(p.reason, "(" + fmt1(speed) + " vs 11.6 here)"), p.reason.c_str());

    // B200 vs H100 at BF16: dense peaks 2,250 / 989 = 2.28x, bandwidth 7.7 / 3.35
    // = 2.3x, so the same-precision speed-up is above 1 and below the claimed 3x
    // (why "corrected"); FP8 on the B200 is faster still.
    const gp::RuleCheck& b = rule("b200-3x");
    const double bf16 = after(b.finding, "B200 is ");
    const double fp8 = after(b.finding, "the same BF16 precision, ");
    QVERIFY2(bf16 > 1 && bf16 < 3, b.finding.c_str());
    // FP8 on the B200 is no slower. (The Blackwell fp8 scale is fitted on
    // TensorRT-LLM's NVFP4/FP8 serving rows, issue #16, and keeps FP8 training's
    // gain over BF16 small: the ratios can print equal at one decimal.)
    QVERIFY2(fp8 >= bf16, b.finding.c_str());
    // 2,250 / 989.4 = 2.27 and 7,700 / 3,350 = 2.30 GB/s, from the catalog; the same-precision ratio is outside
    // 2.5-3.5, hence "corrected".
    QVERIFY2(contains(b.reason, "Dense BF16 is 2250 vs 989 TFLOPS (2.3x) and bandwidth 7.7 vs 3.35 TB/s (2.3x);"),
             b.reason.c_str());
    QCOMPARE(b.verdict, std::string("corrected"));

    // ResNet-18 at batch 1 is launch-bound: the H100 (67 FP32 TFLOPS) is faster
    // than the T4 (8.1), but by less than the 8x of its FP32 peak.
    const gp::RuleCheck& r = rule("resnet18-batch1");
    const double ih = after(r.finding, "100 images in one batch: ");
    const double it = after(r.finding, " ms on an H100, ");
    const double th = after(r.finding, "The batch-1 epoch: ");
    const double tt = after(r.finding, " s on an H100 vs ");
    QVERIFY2(ih > 0 && it > ih, r.finding.c_str());
    QVERIFY2(th > 0 && tt > th, r.finding.c_str());
    // ResNet-18: 70 kernels per forward x 3 (forward and backward); FP32 peaks 67 / 8.1 = 8.27 -> "8.3x".
    // "holds" because the batch-1 speed-up is under half of that.
    QVERIFY2(contains(r.reason, "every step is ~210 kernel launches") && contains(r.reason, "FP32 peak is 8.3x"),
             r.reason.c_str());
    const double ratio = after(r.reason, "the H100 is only ");
    QVERIFY2(ratio > 1 && ratio < 8.27 / 2, r.reason.c_str());
    // The printed ratio (to 0.1) is the epoch times' ratio; each time is printed to 1 s.
    QVERIFY2(qAbs(ratio - tt / th) < 0.05 + tt / th * (0.5 / th + 0.5 / tt), r.reason.c_str());
}

void TestRulesOfThumb::catalogFigures()
{
    // H100 SXM: 1,979 dense FP8 TFLOPS (3,958 / 2 for 2:4 sparsity), 989 BF16.
    // 1,979 < 95% of 3,958: "corrected".
    const gp::RuleCheck& h = rule("h100-3958");
    QVERIFY2(h.finding.rfind("Dense FP8 is 1979 TFLOPS; 3,958 is the 2:4-sparse figure. Dense BF16 is 989;", 0) == 0,
             h.finding.c_str());

    // Average typical price per tier, recomputed from the catalog.
    double train = 0, infer = 0;
    int nt = 0, ni = 0;
    for (const auto& g : gp::Catalog::builtin().gpus()) {
        if (g.pricePerHour.typical <= 0)
            continue;
        if (g.tier == gp::Tier::TrainingDatacenter || g.tier == gp::Tier::Frontier) {
            train += g.pricePerHour.typical;
            ++nt;
        } else if (g.tier == gp::Tier::InferenceDatacenter) {
            infer += g.pricePerHour.typical;
            ++ni;
        }
    }
    QVERIFY(nt > 0 && ni > 0);
    char expect[200];
    std::snprintf(expect, sizeof expect, "training and frontier tiers average $%.2f/h, inference tier $%.2f/h: %.1fx.",
                  train / nt, infer / ni, (train / nt) / (infer / ni));
    const gp::RuleCheck& t = rule("training-class-3-10x");
    QVERIFY2(contains(t.finding, expect), (t.finding + "\nexpected: " + expect).c_str());
    const double ratio = (train / nt) / (infer / ni);
    QVERIFY(ratio >= 3 && ratio <= 10); // "holds"
}

void TestRulesOfThumb::consumerCards()
{
    // 70B QLoRA: 70.55e9 x 0.516 B = 36.4 GB = 33.9 GiB of weights alone > the
    // 5090's 32 GB (29.8 GiB): "corrected" whatever the activations.
    const gp::RuleCheck& a = rule("5090-70b");
    const double need70 = after(a.finding, "micro-batch 1 x 512 needs ");
    QVERIFY2(need70 > 33.9, a.finding.c_str());
    // 20B on a 24 GB 4090 (22.35 GiB): QLoRA weights 20e9 x 0.516 = 10.3 GB = 9.6
    // GiB fit; 16-bit LoRA weights 40 GB = 37.25 GiB do not: "depends".
    const gp::RuleCheck& b = rule("4090-20b-lora");
    const double qlora = after(b.finding, "QLoRA needs ");
    const double lora = after(b.finding, "16-bit LoRA ");
    QVERIFY2(qlora > 9.6 && qlora < gbInGib(24), b.finding.c_str());
    QVERIFY2(lora > 37.25, b.finding.c_str());
    QVERIFY(contains(b.finding, "(fits), 16-bit LoRA") && contains(b.finding, "(does not fit)."));
    // 65B QLoRA: 65e9 x 0.516 = 33.5 GB = 31.2 GiB of weights; at micro-batch 1
    // x 512 it fits the 48 GB (44.7 GiB) RTX A6000, so "an A100 80GB" is not needed.
    const gp::RuleCheck& c = rule("65b-a100");
    const double need65 = after(c.finding, "micro-batch 1 x 512 needs ");
    QVERIFY2(need65 > 31.2 && need65 < gbInGib(48), c.finding.c_str());
    QVERIFY(contains(c.finding, "GiB: it fits a 48 GB RTX A6000."));
}

void TestRulesOfThumb::output()
{
    const auto list = gp::checkRulesOfThumb(gp::Catalog::builtin());
    const auto doc = nlohmann::json::parse(gp::rulesToJson(list));
    QCOMPARE(doc["format"].get<std::string>(), std::string("gpuplanner-rules"));
    QCOMPARE(doc["rules"].size(), list.size());
    QCOMPARE(doc["rules"][6]["id"].get<std::string>(), std::string("rent-vs-buy-2600h"));
    QCOMPARE(doc["rules"][6]["verdict"].get<std::string>(), std::string("depends"));
    const std::string text = gp::rulesToText(list);
    QVERIFY(contains(text, "[corrected] \"The H100 delivers up to 3,958 TFLOPS at FP8 precision.\"\n"));
    QCOMPARE(std::count(text.begin(), text.end(), '['), std::ptrdiff_t(20));
    // The new rules come last, in the JSON too.
    QCOMPARE(doc["rules"][16]["id"].get<std::string>(), std::string("spot-60-90"));
    QCOMPARE(doc["rules"][19]["id"].get<std::string>(), std::string("h200-doubles-70b"));
}

QTEST_APPLESS_MAIN(TestRulesOfThumb)
#include "tst_rulesofthumb.moc"
