// ZeRO / FSDP model states per GPU held to references the project did not write:
// DeepSpeed's memory estimators, the ZeRO paper's Figure 1, torchtune's published
// per-GPU peaks of FSDP LoRA/QLoRA runs; plus HSDP (hardware.shard_group) and the
// seeds' "70B fine-tune on 8x H100" numbers.
#include <QtTest>

#include "core/hardware/catalog.h"
#include "tests/common/builtingpu.h"
#include "core/base/errors.h"
#include "core/estimate/estimate.h"
#include "core/model/model.h"
#include "core/scenario/scenario.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

/// Full fine-tuning, AMP bf16 AdamW, micro-batch 1 x 128 with full checkpointing:
/// the activations (a few MB) stay below the gradients, so the peak is the end of
/// backward and weights + gradients + optimizer are the model states.
gp::Scenario training(const std::string& presetId, int count, int zero)
{
    gp::Scenario s;
    s.name = presetId;
    s.modelSpec.form = gp::ModelSpec::Form::Preset;
    s.modelSpec.presetId = presetId;
    s.model = gp::resolveModel(s.modelSpec);
    s.mode = gp::Mode::Training;
    s.runtime = gp::Runtime::Optimized;
    s.training.precision = gp::TrainPrecision::AmpBF16;
    s.training.optimizer = gp::Optimizer::AdamW;
    s.training.microBatch = 1;
    s.training.seqLen = 128;
    s.training.gradAccum = 1;
    s.training.checkpointing = gp::Checkpointing::Full;
    s.hardware.gpus = {"nvidia-h100-sxm"};
    s.hardware.count = count;
    s.hardware.zero = zero;
    return s;
}

double modelStates(const gp::GpuEstimate& e)
{
    return e.memory.weights + e.memory.gradients + e.memory.optimizer;
}

/// A term's value in its unit (GiB for memory, ms for time); 0 when absent.
double termValue(const gp::GpuEstimate& e, const std::string& key)
{
    for (const auto& t : e.terms)
        if (t.key == key)
            return t.value;
    return 0;
}

bool relNear(double actual, double expected, double tol)
{
    return std::abs(actual - expected) <= tol * std::abs(expected);
}

#define QCOMPARE_REL(actual, expected, tol)                                                                            \
    do {                                                                                                               \
        const double a_ = (actual);                                                                                    \
        const double e_ = (expected);                                                                                  \
        QVERIFY2(relNear(a_, e_, (tol)),                                                                               \
            QByteArray(#actual) + " = " + QByteArray::number(a_, 'g', 10) + ", expected "                              \
                + QByteArray::number(e_, 'g', 10) + " within " + QByteArray::number(double(tol) * 100) + "%");         \
    } while (false)

struct Llama2 {
    const char* id;
    int layers;
    double params; // Hugging Face parameter count
    double block; // one decoder block: 4 h^2 (q, k, v, o; 70B: GQA) + 3 h f + 2 h norms
    double embedding; // vocab x hidden: the largest single module (DeepSpeed's largest_layer_params)
};

// 7B:  4 x 4096^2 + 3 x 4096 x 11008 + 2 x 4096 = 202,383,360
// 13B: 4 x 5120^2 + 3 x 5120 x 13824 + 2 x 5120 = 317,204,480
// 70B: 2 x 8192^2 + 2 x 8192 x 1024 + 3 x 8192 x 28672 + 2 x 8192 = 855,654,400
// (the final norm, 1 x h, is spread over the blocks by the model: +128 / +128 / +102 params per block)
const Llama2 kLlama2[] = {
    {"llama-2-7b", 32, 6'738'415'616, 202'383'360, 32000.0 * 4096},
    {"llama-2-13b", 40, 13'015'864'320, 317'204'480, 32000.0 * 5120},
    {"llama-2-70b", 80, 68'976'648'192, 855'654'400, 32000.0 * 8192},
};

} // namespace

class TestZero : public QObject {
    Q_OBJECT
private slots:
    void deepspeedStage1();
    void deepspeedStage2();
    void deepspeedStage3();
    void zeroPaperFigure1();
    void otherPrecisionsAndOptimizers();
    void torchtuneFsdpLora();
    void torchtuneQloraNf4States();
    void seventyBOn8xH100();
    void hybridShard();
    void shardGroupKey();
};

void TestZero::deepspeedStage1()
{
    // deepspeed/runtime/zero/stage_1_and_2.py, estimate_zero2_model_states_mem_needs
    // (cpu_offload=False):  gpu_mem = 4 * total_params + int(16 * total_params / total_gpus)
    // The 4 B are the 16-bit parameters and the 16-bit gradients (stage 1 keeps
    // them whole); the 16 B sharded are the fp32 master weights, the two Adam
    // moments and the fp32 gradient partition the optimizer steps on.
    for (const auto& m : kLlama2)
        for (int gpus : {8, 16, 64}) {
            const gp::GpuEstimate e = gp::estimateOn(training(m.id, gpus, 1), gpu("nvidia-h100-sxm"));
            const double deepspeed = 4 * m.params + std::floor(16 * m.params / gpus);
            QCOMPARE_REL(modelStates(e), deepspeed, 0.05);
            QCOMPARE_REL(modelStates(e), deepspeed, 1e-9); // the same formula
        }
    // Llama 2 7B on 8 GPUs: 4 x 6.738416e9 + 16 x 6.738416e9 / 8 = 40.430e9 B = 37.654 GiB.
    const gp::GpuEstimate e = gp::estimateOn(training("llama-2-7b", 8, 1), gpu("nvidia-h100-sxm"));
    QCOMPARE_REL(modelStates(e) / kGiB, 37.6538, 1e-5);
}

void TestZero::deepspeedStage2()
{
    // estimate_zero2_model_states_mem_needs serves stages 1 and 2 alike (it takes
    // no stage) and so keeps stage 1's whole 16-bit gradients (2 B of its 4 B).
    // Stage 2 reduce-scatters them: 2 B of 16-bit parameters + (2 B 16-bit + 4 B
    // fp32 gradient partition + 12 B master and moments) / d = 2 + 18 / d, i.e.
    // DeepSpeed's figure less the 2 B whole gradients plus their 2 / d shard.
    for (const auto& m : kLlama2)
        for (int gpus : {8, 16, 64}) {
            const gp::GpuEstimate e = gp::estimateOn(training(m.id, gpus, 2), gpu("nvidia-h100-sxm"));
            const double deepspeed = 4 * m.params + std::floor(16 * m.params / gpus);
            QCOMPARE_REL(modelStates(e), deepspeed - 2 * m.params + 2 * m.params / gpus, 1e-9);
            QCOMPARE_REL(modelStates(e), 2 * m.params + 18 * m.params / gpus, 1e-9);
        }
}

void TestZero::deepspeedStage3()
{
    // deepspeed/runtime/zero/stage3.py, estimate_zero3_model_states_mem_needs
    // (cpu_offload=False):  gpu_mem = largest_layer_memory + int(18 * total_params / total_gpus),
    // largest_layer_memory = 4 * largest_layer_params (16-bit params + grads of it).
    // Stage 3 here is FSDP full shard (spec "Hardware"): the fp32 parameter shard
    // is the master copy, so the 18 B become 16 B (fp32 params 4 + fp32 grads 4 +
    // moments 8, the ZeRO paper's (2 + 2 + K) / Nd); in flight: the current block's
    // 16-bit parameters and gradients and the prefetched block's parameters, 3 x 2 B
    // x block (DeepSpeed counts one module's 2 x 2 B).
    for (const auto& m : kLlama2)
        for (int gpus : {8, 16, 64}) {
            const gp::GpuEstimate e = gp::estimateOn(training(m.id, gpus, 3), gpu("nvidia-h100-sxm"));
            const double unit = (m.params - 2 * m.embedding) / m.layers; // embedding + untied head out
            QCOMPARE_REL(unit, m.block, 1e-6);
            const double gathered = 3 * unit * 2;
            QCOMPARE_REL(termValue(e, "memory.weights.gathered") * kGiB, gathered, 1e-9);
            const double sharded = modelStates(e) - gathered;
            QCOMPARE_REL(sharded, 16 * m.params / gpus, 1e-9);
            const double deepspeed = 4 * m.embedding + std::floor(18 * m.params / gpus);
            // DeepSpeed's sharded part less the 16-bit parameter shard FSDP does not keep.
            QCOMPARE_REL(sharded, std::floor(18 * m.params / gpus) - 2 * m.params / gpus, 1e-9);
            // The totals: within 5% of DeepSpeed's at 16 GPUs for 7B and 13B (-1.8%,
            // -2.5%). At 8 GPUs the 2 B shard FSDP does not keep makes 7B -6.3%, 13B
            // -6.7%, 70B -8.4%; at 64 GPUs the in-flight blocks outweigh DeepSpeed's
            // one-module buffer (7B +20%): FSDP is not DeepSpeed there.
            if (gpus == 16 && std::string(m.id) != "llama-2-70b")
                QCOMPARE_REL(modelStates(e), deepspeed, 0.05);
        }
    // 70B on 8 GPUs by hand: 16 x 68.977e9 / 8 = 137.95e9 + 6 x 855.65e6 = 5.13e9
    // -> 143.09e9 B = 133.26 GiB (DeepSpeed: 1.05e9 + 155.20e9 = 145.52 GiB).
    const gp::GpuEstimate e = gp::estimateOn(training("llama-2-70b", 8, 3), gpu("nvidia-h100-sxm"));
    QCOMPARE_REL(modelStates(e), 16 * 68'976'648'192.0 / 8 + 6 * (855'654'400.0 + 102.4), 1e-9);
}

void TestZero::zeroPaperFigure1()
{
    // Rajbhandari et al., "ZeRO: Memory Optimizations Toward Training Trillion
    // Parameter Models" (arXiv 1910.02054), Figure 1: Psi = 7.5B, Nd = 64, K = 12:
    // baseline (2 + 2 + K) Psi = 120 GB; P_os 31.4 GB; P_os+g 16.6 GB; P_os+g+p 1.9 GB.
    gp::Scenario s = training("llama-2-7b", 64, 0);
    s.modelSpec.form = gp::ModelSpec::Form::Params;
    s.modelSpec.params = 7.5e9;
    s.modelSpec.family = gp::ModelFamily::Decoder;
    s.model = gp::resolveModel(s.modelSpec);
    const double psi = s.model.totalParams();
    QCOMPARE_REL(psi, 7.5e9, 0.02);
    const double paper[] = {120e9, 31.4e9, 16.6e9, 1.9e9};
    for (int stage = 0; stage <= 3; ++stage) {
        s.hardware.zero = stage;
        s.hardware.count = stage == 0 ? 1 : 64; // baseline: one GPU's full states (no DDP buckets)
        const gp::GpuEstimate e = gp::estimateOn(s, gpu("nvidia-h100-sxm"));
        const double states = modelStates(e) - termValue(e, "memory.weights.gathered") * kGiB;
        QCOMPARE_REL(states * 7.5e9 / psi, paper[stage], 0.10);
    }
}

void TestZero::otherPrecisionsAndOptimizers()
{
    const double n = 6'738'415'616;
    const gp::Gpu& h100 = gpu("nvidia-h100-sxm");
    // Pure bf16 AdamW (no master copy): 2 + 2 + 4 B; stage 1: 2 + 2 + 4/d; stage 2: 2 + 6/d.
    gp::Scenario s = training("llama-2-7b", 8, 1);
    s.training.precision = gp::TrainPrecision::BF16;
    QCOMPARE_REL(modelStates(gp::estimateOn(s, h100)), 4 * n + 4 * n / 8, 1e-9);
    s.hardware.zero = 2;
    QCOMPARE_REL(modelStates(gp::estimateOn(s, h100)), 2 * n + 6 * n / 8, 1e-9);
    // fp32 AdamW stage 2: 4 B weights + (4 + 8) / d.
    s.training.precision = gp::TrainPrecision::FP32;
    QCOMPARE_REL(modelStates(gp::estimateOn(s, h100)), 4 * n + 12 * n / 8, 1e-9);
    // AMP with plain SGD still shards the fp32 master: stage 1 = 4 + (4 + 4) / d.
    s.training.precision = gp::TrainPrecision::AmpBF16;
    s.training.optimizer = gp::Optimizer::SGD;
    s.hardware.zero = 1;
    QCOMPARE_REL(modelStates(gp::estimateOn(s, h100)), 4 * n + 8 * n / 8, 1e-9);
    // 8-bit Adam (two 1 B moments + block scales, 2.032 B) under FSDP with AMP:
    // (4 + 4 + 2.032) / d + gathered blocks.
    s.training.optimizer = gp::Optimizer::AdamW8bit;
    s.hardware.zero = 3;
    const gp::GpuEstimate e = gp::estimateOn(s, h100);
    QCOMPARE_REL(modelStates(e) - termValue(e, "memory.weights.gathered") * kGiB, 10.032 * n / 8, 1e-9);
}

void TestZero::torchtuneFsdpLora()
{
    // torchtune README, "Memory and training speed" (batch 2, packed to 2048,
    // torch.compile; peak = max reserved): Llama 3.1 70B LoRA on 8x A100: 27.6 GiB
    // per GPU; Llama 3.1 405B QLoRA on 8x A100: 44.8 GB. Configs
    // recipes/configs/llama3_1/70B_lora.yaml and 405B_qlora.yaml: rank 16 on q, v,
    // output proj and the MLP, bf16, activation checkpointing, FSDP (405B: batch 1).
    auto lora = [](const char* id, gp::TrainMethod method, int batch) {
        gp::Scenario s = training(id, 8, 3);
        s.training.method = method;
        s.training.loraRank = 16;
        s.training.loraTargets = {"q_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"};
        s.training.precision = gp::TrainPrecision::BF16;
        s.training.microBatch = batch;
        s.training.seqLen = 2048;
        s.hardware.gpus = {"nvidia-a100-80gb-sxm"};
        return s;
    };
    const gp::Gpu& a100 = gpu("nvidia-a100-80gb-sxm");
    const gp::GpuEstimate e70 = gp::estimateOn(lora("llama-3.1-70b", gp::TrainMethod::Lora, 2), a100);
    QCOMPARE_REL(e70.memory.total() / kGiB, 27.6, 0.15);
    // The frozen bf16 base is sharded: 70.55e9 x 2 B / 8 = 16.4 GiB, not 131 GiB.
    QVERIFY(e70.memory.weights < 20 * kGiB);
    const gp::GpuEstimate e405 = gp::estimateOn(lora("llama-3.1-405b", gp::TrainMethod::Qlora, 1), a100);
    QCOMPARE_REL(e405.memory.total() / kGiB, 44.8, 0.15);
    QCOMPARE_REL(e405.memory.total() / 1e9, 44.8, 0.15);
    // Without FSDP the same LoRA replicates the base: it cannot fit.
    gp::Scenario ddp = lora("llama-3.1-70b", gp::TrainMethod::Lora, 2);
    ddp.hardware.zero = 0;
    QVERIFY(!gp::estimateOn(ddp, a100).fits);
}

void TestZero::torchtuneQloraNf4States()
{
    // torchtune's QLoRA of Llama 3.1 8B (recipes/configs/llama3_1/8B_qlora_single_device.yaml
    // @30b8519e: rank 8 on q, k, v, output_proj and the MLP, dtype bf16).
    //   adapters: 32 layers x 8 x (q 4096+4096, k 4096+1024, v 4096+1024, o 4096+4096,
    //             gate/up 4096+14336 twice, down 14336+4096) = 32 x 8 x 81920 = 20,971,520
    //   NF4 base: (8,030,261,248 - 2 x 128256 x 4096) = 6,979,588,096 layer weights
    //             x (0.5 + 1/64 + 4/16384) B (4 bits, an int8 absmax per 64, an fp32
    //             scale per 256 absmax) = 3,600,554,113 B, + the bf16 embedding and head
    //             2 x 525,336,576 x 2 B = 2,101,346,304 B -> 5,701,900,417 B (5.31 GiB).
    // The adapters are counted in fp32 (peft's autocast_adapter_dtype; torchtune
    // keeps them in bf16, 0.04 GiB less here: the scenario cannot tell the two apart).
    gp::Scenario s = training("llama-3.1-8b", 1, 0);
    s.training.method = gp::TrainMethod::Qlora;
    s.training.loraRank = 8;
    s.training.loraTargets = {"q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"};
    s.training.precision = gp::TrainPrecision::BF16;
    const gp::Gpu& a100 = gpu("nvidia-a100-80gb-sxm");
    const double adapters = 20'971'520;
    const double nf4Base = 6'979'588'096.0 * (0.5 + 1.0 / 64 + 4.0 / 16384) + 2'101'346'304.0;
    QCOMPARE_REL(nf4Base, 5'701'900'417.0, 1e-9);
    const gp::GpuEstimate one = gp::estimateOn(s, a100);
    QCOMPARE_REL(one.memory.weights, nf4Base + 4 * adapters, 1e-9);
    QCOMPARE_REL(one.memory.optimizer, 2 * 4 * adapters, 1e-9);
    // FSDP over 8 GPUs (torchtune's lora_finetune_distributed): base, adapters and
    // moments sharded by 8, plus two unsharded NF4 blocks in flight (the current and
    // the prefetched one: 2 x 218,112,128 weights x 0.515869 B = 225,034,632 B):
    // 5,701,900,417 / 8 + 225,034,632 + 4 B x 20,971,520 / 8 = 948,257,944 B per GPU,
    // and AdamW's moments 2 x 4 B x 20,971,520 / 8 = 20,971,520 B per GPU.
    s.hardware.count = 8;
    s.hardware.zero = 3;
    const gp::GpuEstimate fsdp = gp::estimateOn(s, a100);
    QCOMPARE_REL(fsdp.memory.optimizer, 20'971'520.0, 1e-9);
    QCOMPARE_REL(fsdp.memory.weights, 948'257'944.1875, 1e-9);
}

void TestZero::seventyBOn8xH100()
{
    // The seeds' "a 70B fine-tune might end up on 8x H100": pure-bf16 AdamW with
    // ZeRO-3, micro-batch 1 x 2048, full checkpointing. States (2 + 2 + 4) x
    // 70.55e9 / 8 = 65.7 GiB + 3 in-flight blocks 4.8 GiB + overhead: ~75 GiB, fits
    // the 79.6 GiB an H100 shows. AMP (16 B / 8 = 131 GiB of states) does not.
    gp::Scenario s = training("llama-3.1-70b", 8, 3);
    s.training.precision = gp::TrainPrecision::BF16;
    s.training.seqLen = 2048;
    const gp::Gpu& h100 = gpu("nvidia-h100-sxm");
    const gp::GpuEstimate bf16 = gp::estimateOn(s, h100);
    QVERIFY(bf16.fits);
    QCOMPARE_REL(bf16.memory.total() / kGiB, 74, 0.03);
    QCOMPARE_REL(
        modelStates(bf16) - termValue(bf16, "memory.weights.gathered") * kGiB, 8 * s.model.totalParams() / 8, 1e-9);
    s.training.precision = gp::TrainPrecision::AmpBF16;
    const gp::GpuEstimate amp = gp::estimateOn(s, h100);
    QVERIFY(!amp.fits);
    QVERIFY(amp.memory.total() > 140 * kGiB);
}

void TestZero::hybridShard()
{
    // Llama 2 7B on 16 GPUs (2 nodes of 8), pure bf16, ZeRO-3 in shard groups of
    // 8: the states shard over 8, not 16.
    const double n = 6'738'415'616;
    const gp::Gpu& h100 = gpu("nvidia-h100-sxm");
    gp::Scenario s = training("llama-2-7b", 16, 3);
    s.training.precision = gp::TrainPrecision::BF16;
    s.training.seqLen = 1024;
    s.hardware.networkGbps = 100;
    const gp::GpuEstimate full = gp::estimateOn(s, h100);
    s.hardware.shardGroup = 8;
    const gp::GpuEstimate hsdp = gp::estimateOn(s, h100);
    QCOMPARE_REL(hsdp.memory.optimizer, 4 * n / 8, 1e-9);
    QCOMPARE_REL(full.memory.optimizer, 4 * n / 16, 1e-9);
    // Network bytes per GPU per micro-batch: full sharding ships its 1/8 node share
    // of two 16-bit all-gathers and a reduce-scatter half-way across the 2 nodes,
    // (2 + 2 + 2) n / 16; HSDP all-reduces its group's 2 n / 8 gradient shard
    // across the 2 replicas, 2 x 2 n / 8 x 1/2 = 4 n / 16; the all-gathers stay
    // on NVLink. At 100 Gb/s neither hides behind the 1024-token micro-batch.
    QVERIFY(termValue(hsdp, "time.comm.dp") > 0);
    QVERIFY(termValue(hsdp, "time.comm.dp") < termValue(full, "time.comm.dp"));
    QVERIFY(hsdp.training->tokensPerS > full.training->tokensPerS);
    // A group of all the data-parallel GPUs is plain full sharding.
    s.hardware.shardGroup = 16;
    const gp::GpuEstimate same = gp::estimateOn(s, h100);
    QCOMPARE(same.memory.total(), full.memory.total());
    QCOMPARE(same.training->stepMs, full.training->stepMs);
    // AMP ZeRO-2 in groups of 8: (2 + 18 / 8) B.
    s.training.precision = gp::TrainPrecision::AmpBF16;
    s.training.seqLen = 128;
    s.hardware.zero = 2;
    s.hardware.shardGroup = 8;
    QCOMPARE_REL(modelStates(gp::estimateOn(s, h100)), 2 * n + 18 * n / 8, 1e-9);
}

void TestZero::shardGroupKey()
{
    auto doc = [](const std::string& hardware) {
        return R"({"format":"gpuplanner-scenario","version":1,"name":"h","model":{"preset":"llama-2-7b"},)"
               R"("workload":{"mode":"training"},"hardware":)"
            + hardware + "}";
    };
    const gp::Scenario s = gp::parseScenario(doc(R"({"count":16,"zero":3,"shard_group":8})")).scenario;
    QCOMPARE(s.hardware.shardGroup, 8);
    // Saved and read back; absent when unset.
    const std::string saved = gp::scenarioToJson(s);
    QVERIFY(saved.find("\"shard_group\": 8") != std::string::npos);
    QCOMPARE(gp::parseScenario(saved).scenario.hardware.shardGroup, 8);
    QVERIFY(gp::scenarioToJson(gp::parseScenario(doc(R"({"count":16,"zero":3})")).scenario).find("shard_group")
        == std::string::npos);
    auto error = [&](const std::string& hardware) -> std::string {
        try {
            gp::parseScenario(doc(hardware));
        } catch (const gp::InputError& e) {
            for (const auto& d : e.problems())
                if (d.path == "hardware.shard_group")
                    return d.message;
            return "other: " + std::string(e.what());
        }
        return "accepted";
    };
    QCOMPARE(error(R"({"count":16,"zero":3,"shard_group":3})"),
        std::string("must divide the data-parallel GPUs (count / (tp x pp) = 16), got 3"));
    QCOMPARE(error(R"({"count":16,"tp":2,"zero":3,"shard_group":16})"),
        std::string("must divide the data-parallel GPUs (count / (tp x pp) = 8), got 16"));
    QCOMPARE(error(R"({"count":16,"zero":0,"shard_group":8})"),
        std::string("shards ZeRO states: it needs zero 1, 2 or 3 (zero is 0)"));
    QCOMPARE(error(R"({"count":16,"zero":3,"shard_group":0})"),
        std::string("must be a positive integer between 1 and 1000000, got 0"));
    // The form's validation says the same.
    gp::Scenario bad = s;
    bad.hardware.shardGroup = 5;
    const auto d = gp::validateScenario(bad);
    QVERIFY(std::any_of(d.begin(), d.end(), [](const gp::Diagnostic& x) { return x.path == "hardware.shard_group"; }));
}

QTEST_GUILESS_MAIN(TestZero)
#include "tst_zero.moc"
