// Performance model of training (the model itself: perfrates.cpp): a step is
// the micro-batches' GEMMs, attention, elementwise traffic and launches, the
// optimizer, the pipeline bubble and the exposed communication.
#include "core/estimate/perfparts.h"
#include "core/estimate/sizing.h"

#include "core/base/units.h"

#include <algorithm>
#include <cmath>

namespace gp::detail {

namespace {

/// The share of one forward pass that the backward runs again, by kind of work.
struct Recompute {
    double gemm = 0;
    double attention = 0;
    double other = 0; // elementwise traffic, casts, launches
};

Recompute recomputed(const Plan& p, const GemmWork& fwd, double tokens)
{
    const auto& t = p.s->training;
    if (t.checkpointing == Checkpointing::Full)
        return {1, 1, 1};
    if (t.checkpointing != Checkpointing::Selective || t.selectiveRecompute == 0)
        return {};
    if (t.selectiveRecompute > 0) {
        const double r = 1.0 / t.selectiveRecompute; // every N-th block whole
        return {r, r, r};
    }
    // torchtitan's 'op' policy saves the outputs of matmuls and attention but
    // those of every second matmul of a block in call order (q, k, v, o, gate,
    // up, down: k, o and up): those and every non-matmul op run again.
    double all = 0;
    double second = 0;
    int i = 0;
    for (const auto& lin : p.linears) {
        const double f = double(lin.in) * double(lin.out) * lin.perLayer;
        all += f;
        if (i++ % 2 == 1)
            second += f;
    }
    const ModelArch& m = *p.m;
    const double head = m.vocab > 0 && m.family != ModelFamily::Encoder ? 2.0 * tokens * double(m.vocab) * m.hidden / p.tp : 0;
    const double blocks = fwd.flops > 0 ? std::max(0.0, fwd.flops - head) / fwd.flops : 0;
    return {all > 0 ? second / all * blocks : 0, 0, 1};
}

} // namespace

TrainingResult trainingPerformance(Plan& p)
{
    const Scenario& s = *p.s;
    const ModelArch& m = *p.m;
    const Calibration& c = *p.cal;
    const auto& t = s.training;
    TrainingResult r;
    const double bw = bandwidth(p);
    const double tKernel = p.optimized ? c.kernelSTrainOptimized : c.kernelSTrainEager;
    double micro = 0;       // seconds per micro-batch
    double modelFlops = 0;  // useful FLOPs per micro-batch (for MFU)
    double mfuPeak = peak(p, p.compute);

    if (!m.isLanguageModel()) {
        const VisionStep v = visionTrainingStep(p, tKernel);
        micro = v.seconds;
        modelFlops = v.modelFlops;
        mfuPeak = v.mfuPeak;
    } else {
        const double tokens = double(t.microBatch) * t.seqLen;
        const bool lora = t.method != TrainMethod::Full;
        const GemmWork fwd = forwardGemms(p, tokens, tokens, p.compute);
        const Recompute again = recomputed(p, fwd, tokens);
        const double recompute = again.other;
        // Backward: input and weight grads (2x forward); frozen LoRA bases need
        // only input grads (1x). Adapters add 6 x r x (in + out) per token.
        const double bwdFactor = lora ? 1 : 2;
        double gemm = fwd.seconds * (1 + bwdFactor + again.gemm) / (p.optimized ? c.trainGemmDerateOptimized : 1.0);
        double adapterFlops = 0;
        if (lora) {
            for (const auto& lin : p.linears)
                if (lin.targeted)
                    adapterFlops += 6.0 * tokens * t.loraRank * double(lin.in + lin.out) * lin.perLayer * m.layers;
            // peft keeps the adapters in fp32 over a 16-bit base: without autocast
            // their skinny GEMMs run in fp32 on CUDA cores (matmul TF32 is off by
            // default), far below the base's tensor-core rate.
            const DType at = p.autocast || p.compute == DType::TF32 ? p.compute : DType::FP32;
            // 6 = forward 2 + backward 4; full checkpointing runs the adapters'
            // forward once more with the rest of the layer (peft's LoRA linear
            // is inside the checkpointed decoder layer).
            gemm += adapterFlops * (1 + recompute / 3) / (peak(p, at) * gemmEff(p, at, tokens, t.loraRank, m.hidden));
        }
        const double attnF = attentionFlops(p, t.microBatch, t.seqLen);
        // FP8 training swaps the linear layers only (torchao's convert_to_float8_training
        // replaces nn.Linear modules; Transformer Engine's fp8_dpa is off by default):
        // attention runs at its bf16 rate.
        double attnRateTrain = attnRate(p, false);
        std::string attnText = p.explain ? attnRateText(p, false) : std::string();
        if (p.compute == DType::FP8) {
            p.compute = DType::BF16;
            attnRateTrain = attnRate(p, false);
            if (p.explain)
                attnText = "bf16: FP8 covers the linears only; " + attnRateText(p, false);
            p.compute = DType::FP8;
        }
        // Triton FlashAttention (flash-attn 1.0's flash_attn_triton, which LLM
        // Foundry runs for attn_impl: triton) reaches a share of the FA2 / SDPA
        // rate the attention efficiencies are fitted on.
        if (t.tritonAttention) {
            attnRateTrain *= c.attnTritonShare;
            if (p.explain)
                attnText += " x " + fmt(c.attnTritonShare) + " (Triton FlashAttention)";
        }
        // HF's SDPA path masks windowed layers explicitly once the sequence
        // reaches the window: their kernel computes the whole s x s product.
        const MaskedAttention masked = hfMaskedAttention(p, t.microBatch, t.seqLen);
        const double attn = (attnF + masked.flops - masked.replaced) * (1 + 2.5 + again.attention) / attnRateTrain;

        // Elementwise traffic scales with what the layers save (see memorymodel);
        // the composed tanh GELU's saved intermediates are counted by its own term.
        const bool tanhGelu = composedTanhGelu(p);
        const double ffnElems = m.moe.enabled() ? double(m.moe.expertFfnHidden) * (m.moe.active + m.moe.shared)
                                                : double(m.ffnHidden);
        // Norms beyond a Llama layer's two (Gemma 3's sandwich norms, q/k norms)
        // save and stream what one of those two does per element, and launch
        // an HF RMSNorm's kernels each.
        const double normElemBytes = p.autocast || p.actBytes >= 4 ? 2 * p.residualBytes : 6;
        const double extraNorms = normElemBytes * extraNormWidth(p) * (p.optimized ? c.activationOptimizedFactor : 1);
        const double perLayer = activationBytesPerTokenLayer(p) - (tanhGelu ? 3 * p.actBytes * ffnElems : 0) + extraNorms;
        const int layers = (m.layers + p.pp - 1) / p.pp;
        const double saved = perLayer * layers * tokens / p.tp;
        const double ew = (p.optimized ? c.ewTrafficOptimized : c.ewTrafficEager) * saved * (1 + recompute / 3) / bw;
        const double geluElemBytes = p.autocast ? 4 : p.actBytes;
        const double gelu = tanhGelu ? (kTanhGeluAccessesFwd * (1 + recompute) + kTanhGeluAccessesBwd) * geluElemBytes *
                                           ffnElems * tokens * layers / p.tp / bw
                                     : 0;
        const double logits = (p.optimized ? c.logitTrafficOptimized : c.logitTrafficEager) * tokens * double(m.vocab) / p.tp / bw;
        const double casts = p.autocast ? 6.0 * m.matmulParamsPerToken() / (p.tp * p.pp) * (1 + recompute) / bw : 0;
        // Eager launches are asynchronous: the host runs ahead of the GPU, so its
        // launch time hides behind the GPU's work and the micro-batch takes the
        // longer of the two. The MoE expert loop syncs the host with the GPU for
        // every expert (torch.where on the routing), so those launches add.
        const double expertLoop = expertLoopKernelsPerLayer(p);
        const double normKernels = hfEagerRuntime(p) && m.isLanguageModel()
                                       ? kHfRmsNormKernels * (std::max(0, m.normsPerLayer - 2) +
                                                             (m.qkNorm != ModelArch::QkNorm::None ? 2 : 0))
                                       : 0;
        const double launches = (kernelsPerLayer(p) - expertLoop + normKernels) * layers * (3 + recompute);
        const double hostKernels = launches * tKernel;
        const double syncedKernels = expertLoop * layers * (3 + recompute) * tKernel;
        // Each kernel also holds the GPU for a fixed device-side time (launch
        // latency, ramp-up and tail of its waves) that no byte or FLOP count shows.
        const double deviceKernels = launches * c.kernelSDevice;
        // QLoRA: bitsandbytes dequantizes each NF4 base weight to bf16 before its
        // GEMM (read 0.516 B with the absmax, write 2 B), once in the forward,
        // once for the input gradients, once more when recomputing.
        double dequant = 0;
        if (t.method == TrainMethod::Qlora) {
            dequant = (2 + recompute) * qloraBaseParams(p) * (kNf4BytesPerParam + 2) / bw;
            p.term("time.qlora_dequant", "NF4 dequantization (QLoRA)", dequant * 1e3, "ms",
                   [&] { return std::string(fmt(2 + recompute) + " passes x " + fmt(qloraBaseParams(p) / 1e9) +
                                            "B base weights x (0.516 B read + 2 B written) / bandwidth"); });
        }
        const double gpu = gemm + attn + ew + gelu + logits + casts + dequant + deviceKernels;
        const double exposedHost = std::max(0.0, hostKernels - gpu);
        const double kernels = exposedHost + syncedKernels;
        micro = gpu + kernels;
        if (tanhGelu)
            p.term("time.gelu", "Composed tanh GELU (eager)", gelu * 1e3, "ms", [&] {
                return std::string(fmt(kTanhGeluAccessesFwd * (1 + recompute) + kTanhGeluAccessesBwd) + " accesses x " +
                                   fmt(geluElemBytes) + " B x ffn width x tokens x layers / bandwidth");
            });
        modelFlops = modelTrainFlops(p, bwdFactor, adapterFlops);
        p.term("time.gemm", again.gemm > 0 ? "Matmuls (fwd + bwd + recompute)" : "Matmuls (fwd + bwd)", gemm * 1e3, "ms",
               [&] { return std::string(fmt(fwd.flops / 1e12) + " TFLOP forward x " + fmt(1 + bwdFactor + again.gemm) + " at " +
                   fmt(fwd.flops / fwd.seconds / 1e12) + " TFLOP/s achieved (shape-dependent)"); });
        p.term("time.attention", "Attention (flash)", attn * 1e3, "ms",
               [&] { return std::string(fmt((attnF + masked.flops - masked.replaced) / 1e12) + " TFLOP forward x 3.5 / (" +
                                        attnText + ")" +
                                        (masked.layers > 0 ? "; " + std::to_string(masked.layers) +
                                                                 " windowed layers through HF's SDPA mask (whole s x s)"
                                                           : "")); });
        p.term("time.elementwise", "Elementwise ops", ew * 1e3, "ms",
               [&] { return std::string(fmt(p.optimized ? c.ewTrafficOptimized : c.ewTrafficEager) + " x " + fmtGiB(saved) + " saved activations / bandwidth"); });
        p.term("time.logits", "Logits and cross-entropy", logits * 1e3, "ms",
               [&] { return std::string(fmt(p.optimized ? c.logitTrafficOptimized : c.logitTrafficEager) + " B x tokens x vocab / bandwidth"); });
        p.term("time.overhead", "Kernel launches (host, beyond the GPU's work)", kernels * 1e3, "ms",
               [&] { return std::string(fmt(kernelsPerLayer(p) + normKernels) + " kernels/layer x " + std::to_string(layers) + " layers x " +
                   fmt(3 + recompute) + " passes x " + fmt(tKernel * 1e6) + " us, hidden behind " + fmt(gpu * 1e3) +
                   " ms of GPU work" + (syncedKernels > 0 ? " except the expert loop's synced launches" : "")); });
    }

    // Optimizer step: fused AdamW reads p, g, m, v and writes p, m, v.
    const double trainable = trainableParams(p);
    const double stateBytes = t.method != TrainMethod::Full ? 4 : p.stateBytes;
    double optBytesPerParam = 0;
    switch (t.optimizer) {
    case Optimizer::AdamW: optBytesPerParam = 2 * p.weightBytes + p.gradBytes + 4 * stateBytes; break;
    case Optimizer::AdamW8bit: optBytesPerParam = 2 * p.weightBytes + p.gradBytes + 4; break;
    case Optimizer::SGDMomentum: optBytesPerParam = 2 * p.weightBytes + p.gradBytes + 2 * stateBytes; break;
    case Optimizer::SGD: optBytesPerParam = 2 * p.weightBytes + p.gradBytes; break;
    }
    double shard = double(p.tp) * p.pp * (p.zero >= 1 ? p.shard : 1);
    if (t.method != TrainMethod::Full)
        shard = 1;
    const double optimizer = optBytesPerParam * trainable / shard / bw;
    p.term("time.optimizer", "Optimizer step", optimizer * 1e3, "ms",
           [&] { return std::string(fmt(optBytesPerParam) + " B/param x " + fmt(trainable / 1e6) + "M params / bandwidth"); });

    // Pipeline bubble (1F1B): (pp - 1) idle slots per grad_accum micro-batches.
    const double accum = t.gradAccum;
    double step = micro * accum + optimizer;
    if (p.pp > 1) {
        // 1F1B: a step is (accum + pp - 1) stage slots, so the idle share is
        // (pp - 1) / (accum + pp - 1). Filling and draining the pipeline also
        // waits for each boundary's activation send (forward) and gradient
        // send (backward); the steady-state sends overlap with compute.
        const double sendBytes = m.isLanguageModel() ? double(t.microBatch) * t.seqLen * m.hidden * p.actBytes / p.tp : 0;
        const double sends = 2.0 * (p.pp - 1) * stageSendSeconds(p, sendBytes);
        const double bubble = micro * (p.pp - 1) + sends;
        step += bubble;
        p.term("time.pipeline_bubble", "Pipeline bubble (1F1B)", bubble * 1e3, "ms", [&] {
            return std::string("(pp - 1) x micro-batch time = " + std::to_string(p.pp - 1) + " x " + fmt(micro * 1e3) +
                               " ms (idle share (pp - 1) / (grad_accum + pp - 1) = " +
                               fmt(double(p.pp - 1) / (accum + p.pp - 1)) + ") + " + fmt(sends * 1e3) +
                               " ms of stage-to-stage sends while filling and draining");
        });
    }
    // Communication: data-parallel gradient reduction (overlapped with backward
    // except the last bucket), ZeRO-3 parameter gathers, tensor-parallel
    // all-reduces (two per layer forward, two backward; not overlapped).
    double comm = 0;
    if (p.dp > 1) {
        // The data-parallel group leaves the node once the job is wider than it
        // (tensor parallelism fills the node first): its collectives then cross
        // the network, one NIC per GPU.
        const bool crossNode = p.count > p.nodeSize;
        const int dpInNode = std::max(1, std::min(p.dp, p.nodeSize / std::max(1, p.tp * p.pp)));
        const bool lora = t.method != TrainMethod::Full;
        const double gradBytes = trainable * (lora ? 4 : std::min(p.gradBytes, 4.0)) / (p.tp * p.pp);
        auto collective = [&](double bytes, int n) {
            // A group of n data-parallel GPUs spread over nodes: dpInNode of them
            // share each node's links, each ships its share over its own NIC.
            if (n <= 1)
                return 0.0;
            if (!crossNode)
                return scatterSeconds(p, bytes, n);
            const int inNode = std::min(n, dpInNode);
            const int nodes = (n + inNode - 1) / inNode;
            double secs = inNode > 1 ? bytes * (inNode - 1) / inNode / intraNodeBandwidth(p, inNode) : 0;
            secs += bytes / inNode * (nodes - 1) / nodes / networkBandwidth(p);
            return secs;
        };
        // HSDP (hardware.shard_group): ZeRO collectives stay inside a shard group;
        // the groups' gradient shards are then all-reduced across the replicas
        // (one GPU per group, a different node once a group fills one).
        const int groups = p.dp / std::max(1, p.shard);
        auto replicaAllReduce = [&](double bytes) {
            if (groups <= 1)
                return 0.0;
            const bool sameNode = p.shard * p.tp * p.pp * groups <= p.nodeSize;
            return 2 * bytes * (groups - 1) / groups / (sameNode ? intraNodeBandwidth(p, groups) : networkBandwidth(p));
        };
        double coll = 0;
        double hidden = 0;
        if (p.zero >= 3) {
            // FSDP: every micro-batch all-gathers the 16-bit parameters (a LoRA base
            // too, in its stored format) for forward and again for backward, and
            // reduce-scatters the gradients; prefetch overlaps it with compute.
            double paramBytes = m.isLanguageModel() ? p.loadedParams * 2 / (p.tp * p.pp) : m.vision.params * 2;
            if (lora && m.isLanguageModel() && t.method == TrainMethod::Qlora)
                paramBytes = qloraBaseParams(p) * kNf4BytesPerParam + p.embeddingParams * 2 / (p.tp * p.pp);
            coll = accum * (2 * collective(paramBytes, p.shard) + collective(gradBytes, p.shard) +
                            replicaAllReduce(gradBytes / p.shard));
            hidden = c.fsdpOverlap * micro * accum;
        } else if (p.zero >= 1 && groups > 1) {
            // ZeRO-1/2 in shard groups: reduce-scatter and all-gather inside the
            // group, all-reduce of the shard across the groups, once per step.
            coll = 2 * collective(gradBytes, p.shard) + replicaAllReduce(gradBytes / p.shard);
            hidden = c.ddpOverlap * micro * (2.0 / 3.0);
        } else {
            // One all-reduce (or reduce-scatter + all-gather for ZeRO-1/2, same
            // volume) per step, bucketed behind the last backward pass.
            coll = 2 * collective(gradBytes, p.dp);
            hidden = c.ddpOverlap * micro * (2.0 / 3.0);
        }
        const double exposed = std::max(0.0, coll - hidden);
        comm += exposed;
        p.term("time.comm.dp", p.zero >= 3 ? "FSDP gathers and reduce-scatters (exposed)" : "Gradient all-reduce (exposed)",
               exposed * 1e3, "ms", [&] {
                   return fmt(coll * 1e3) + " ms of collectives (hierarchical: NVLink/PCIe in the node" +
                          std::string(crossNode ? ", hardware.network_gbps between nodes" : "") + "), " +
                          fmt(std::min(coll, hidden) * 1e3) + " ms hidden behind compute";
               });
    }
    if (p.tp > 1 && m.isLanguageModel()) {
        const double bytes = double(t.microBatch) * t.seqLen * m.hidden * p.actBytes;
        const int layers = (m.layers + p.pp - 1) / p.pp;
        const double tpComm = 4.0 * layers * allReduceSeconds(p, bytes, p.tp) * accum;
        comm += tpComm;
        p.term("time.comm.tp", "Tensor-parallel all-reduces", tpComm * 1e3, "ms",
               [&] { return std::string("4 per layer x " + fmtGiB(bytes) + " over " + fmt(intraNodeBandwidth(p, p.tp) / 1e9) + " GB/s"); });
    }
    step += comm;

    r.stepMs = step * 1e3;
    const double samples = double(t.microBatch) * accum * p.dp;
    r.samplesPerS = samples / step;
    if (m.isLanguageModel())
        r.tokensPerS = r.samplesPerS * t.seqLen;
    // Per GPU: a replica's tp x pp GPUs share its model FLOPs, so each GPU does
    // modelFlops / (tp x pp); over the job, MFU = model FLOPs/s / (count x peak).
    const double flopsPerGpuS = modelFlops * accum * p.dp / step / p.count;
    r.mfu = flopsPerGpuS / mfuPeak;
    p.term("perf.tflops_per_gpu", "Model TFLOP/s per GPU", flopsPerGpuS / 1e12, "TFLOP/s", [&] {
        return fmt(modelFlops / 1e12) + " TFLOP per micro-batch x " + fmt(accum) + " x dp " + std::to_string(p.dp) + " / " +
               fmt(step * 1e3) + " ms / " + std::to_string(p.count) + " GPUs (MFU = this / " + fmt(mfuPeak / 1e12) +
               " TFLOP/s peak)";
    });
    return r;
}

} // namespace gp::detail
