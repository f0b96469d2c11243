// Performance model: time per phase from the work (FLOPs, bytes, kernels) and
// what the GPU achieves on it.
//
//   time = GEMM FLOPs / (peak(format) x e_gemm(M, N, K))      tensor cores
//        + attention FLOPs / (peak x e_attn)                   flash / SDPA
//        + elementwise bytes / (bandwidth x e_bw)              norms, activations, casts, loss
//        + optimizer bytes / (bandwidth x e_bw)
//        + kernels x t_kernel(runtime)                         launch / host overhead
//        + exposed communication                               multi-GPU
//
// Decode is a roofline: max(bytes / bandwidth, FLOPs / peak) + a per-layer floor.
// Vision models are timed in visionperf.cpp with the rates declared in perfparts.h.
//
// Efficiencies depend on shapes and the runtime, never on the GPU's name. The
// fitted constants live in resources/calibration/builtin-calibration.json (each
// with what it was fitted on and why it has its form), are read through
// Plan::cal, and are re-checked by tst_validation and `gpuplanner-cli validate`.
#include "core/estimate/perfparts.h"
#include "core/estimate/servingload.h"
#include "core/estimate/sizing.h"

#include "core/base/units.h"

#include <algorithm>
#include <cmath>

namespace gp::detail {

namespace {

// Large-GEMM ceiling as a fraction of the dense datasheet peak, measured on
// 8192^3 products (gemm_eff_*). INT8 is not used for GEMM timing: int8
// weight-only kernels run in 16-bit.
double gemmCeiling(const Calibration& c, DType t)
{
    switch (t) {
    case DType::FP32: return c.gemmEffFp32;
    case DType::TF32: return c.gemmEffTf32;
    case DType::FP16: return c.gemmEffFp16;
    case DType::BF16: return c.gemmEffBf16;
    case DType::FP8: return c.gemmEffFp8;
    default: return c.gemmEffOther;
    }
}

/// The GPU's architecture family's scales on the Hopper-fitted rates (all 1
/// for Hopper and for a family without published rows; calibration.h).
const FamilyConstants& family(const Plan& p) { return *p.family; }

/// An efficiency times its family scale, capped at the whole peak.
double scaled(double eff, double scale) { return std::min(1.0, eff * scale); }

/// The family's scale on tensor-core work (GEMMs and flash attention), chosen
/// by the plan's compute format: an fp8 / fp4 model's work scales with gemm8
/// (its 16-bit leftovers included), a 16-bit or fp32 model's with gemm16, so
/// each scale moves only the rows of its own formats.
double computeScale(const Plan& p, DType)
{
    const DType t = p.compute;
    const bool eightBit = t == DType::FP8 || t == DType::FP4 || t == DType::INT8;
    return eightBit ? family(p).gemm8 : family(p).gemm16;
}

} // namespace

/// Tensor-core generation (the SM major version) read from the catalog's
/// architecture field: its family and, for Blackwell, the die code. Datacenter
/// Blackwell (GB100/GB110, "2-die") is sm_100 with tcgen05; the GB2xx dies of
/// RTX 50 / RTX PRO 6000 are sm_120, which issue mma.sync like Ada. 0 = unknown.
int smMajor(const Gpu& g)
{
    const std::string& a = g.architecture;
    auto has = [&](const char* s) { return a.find(s) != std::string::npos; };
    if (has("Blackwell"))
        return has("GB2") ? 12 : 10;
    if (has("Hopper"))
        return 9;
    if (has("Ada") || has("Ampere"))
        return 8;
    if (has("Volta") || has("Turing"))
        return 7;
    return 0;
}

// Flash attention (SDPA) forward efficiency relative to the format's peak;
// backward does 2.5x the forward FLOPs at the same rate. FlashAttention-2-class
// kernels issue mma.sync and reach a smaller share of the peak of the parts
// whose peak needs wgmma (sm_90) or tcgen05 (sm_100).
double attnEff(const Plan& p)
{
    const double scale = computeScale(p, p.compute);
    if (!p.nvidia)
        return scaled(p.cal->attnEffNonNvidia, scale); // ROCm CK / Gaudi / XLA flash kernels: the family's rows
    const int sm = p.sm;
    return scaled(sm == 9 || sm == 10 ? p.cal->attnEffHopperBlackwell : p.cal->attnEffNvidia, scale);
}

/// Forward-only attention (prefill). On sm_90/sm_100 PyTorch SDPA and serving
/// engines run Hopper-native forward kernels (cuDNN / FlashAttention-3), which
/// reach a larger share of the peak than the FA2-class fwd + bwd of training.
double attnFwdEff(const Plan& p)
{
    const int sm = p.sm; // 0 off NVIDIA
    return sm == 9 || sm == 10 ? scaled(p.cal->attnFwdEffHopperBlackwell, computeScale(p, p.compute)) : attnEff(p);
}

/// Attention FLOP rate (FLOP/s). FlashAttention needs 16-bit inputs: with fp32
/// inputs SDPA runs the memory-efficient kernel in fp32 on CUDA cores whatever
/// allow_tf32 says, and that SIMT peak is reached on every generation as on
/// Ampere (attn_eff_nvidia), unlike the wgmma-only share of a Hopper tensor peak.
double attnRate(const Plan& p, bool forwardOnly)
{
    // FP4 models keep attention in FP8 (NVFP4 quantizes the linear layers only).
    const DType t = attnFp32(p) ? DType::FP32 : p.compute == DType::FP4 ? DType::FP8 : p.compute;
    return peak(p, t) * attnEffUsed(p, forwardOnly);
}

bool attnFp32(const Plan& p) { return p.compute == DType::FP32 || p.compute == DType::TF32; }

double attnEffUsed(const Plan& p, bool forwardOnly)
{
    if (attnFp32(p))
        return scaled(p.nvidia ? p.cal->attnEffNvidia : p.cal->attnEffNonNvidia, computeScale(p, DType::FP32));
    return forwardOnly ? attnFwdEff(p) : attnEff(p);
}

std::string attnRateText(const Plan& p, bool forwardOnly)
{
    return std::string(attnFp32(p) ? "fp32 memory-efficient kernel: fp32 " : "") + "peak x " + fmt(attnEffUsed(p, forwardOnly));
}

// Small matrices run below the ceiling: each dimension x contributes
// x / (x + gemm_shape_c), normalized to 8192^3.
namespace {
double shapeFactor(const Calibration& c, double x) { return x / (x + c.gemmShapeC); }
} // namespace

double gemmEff(const Plan& p, DType t, double m, double n, double k)
{
    const Calibration& c = *p.cal;
    const double ref = p.gemmRef;
    const double ceiling = scaled(gemmCeiling(c, t), computeScale(p, t));
    return ceiling * shapeFactor(c, std::max(m, 1.0)) * shapeFactor(c, std::max(n, 1.0)) *
           shapeFactor(c, std::max(k, 1.0)) / ref;
}

double peak(const Plan& p, DType t)
{
    const double v = p.gpu->peakFlops(t);
    if (v > 0)
        return v;
    // Fall back to the best 16-bit or fp32 rate the part has.
    return std::max({p.gpu->peakFlops(DType::BF16), p.gpu->peakFlops(DType::FP16), p.gpu->peakFlops(DType::FP32),
                     1e12});
}

double bandwidth(const Plan& p)
{
    return units::gbpsToBytesPerS(p.gpu->bandwidthGbps) * scaled(p.cal->bandwidthEff, family(p).bandwidth);
}

namespace {

/// Eager HF MoE loops over the experts in Python (a host sync to find each
/// expert's tokens, gather, GEMMs, activation, scatter); optimized stacks run
/// grouped GEMMs whose launches do not grow with the expert count. Launches per
/// layer forward of that loop.
double expertLoopKernelsPerLayer(const Plan& p)
{
    const ModelArch& m = *p.m;
    return m.moe.enabled() && !p.optimized ? p.cal->kernelsPerExpert * m.moe.experts : 0;
}

/// GPT-2's tanh GELU (HF "gelu_new") is a Python composition of eight
/// elementwise kernels over the fc output (pow, three scalings, add, tanh, add,
/// product). Under autocast torch.pow runs in fp32, so the chain after it is
/// fp32. Element accesses (reads + writes) per fc-output element: 17 forward
/// (8 kernels), 28 backward (mul grads, tanh_backward, pow_backward's x^2 and
/// products, accumulating x's three gradients). Decoders with learned positions
/// and a GELU MLP are GPT-2-style (the same test as memorymodel's saved tensors);
/// BERT's erf GELU and compiled stacks run one fused kernel.
constexpr double kTanhGeluAccessesFwd = 17;
constexpr double kTanhGeluAccessesBwd = 28;

bool composedTanhGelu(const Plan& p)
{
    const ModelArch& m = *p.m;
    return !p.optimized && m.ffn == FfnKind::GELU && m.family == ModelFamily::Decoder &&
           m.positional == Positional::Learned;
}

/// Forward kernel launches per transformer layer in the framework's eager code.
double kernelsPerLayer(const Plan& p)
{
    const ModelArch& m = *p.m;
    const Calibration& c = *p.cal;
    double k;
    // Effective (not overlapped) launches per layer forward, fitted: Llama-style
    // layers launch ~46 kernels under autocast but many hide behind long GEMMs.
    if (m.ffn == FfnKind::SwiGLU)
        k = p.autocast ? c.kernelsLayerSwigluAmp : c.kernelsLayerSwiglu;
    else
        k = p.autocast ? c.kernelsLayerGeluAmp : c.kernelsLayerGelu; // LayerNorm, fused qkv, tanh-GELU, dropouts
    k += expertLoopKernelsPerLayer(p);
    if (p.training && p.s->training.method != TrainMethod::Full)
        k += c.kernelsPerLoraTarget * p.s->training.loraTargets.size();
    if (p.optimized)
        k = std::max(c.kernelsOptimizedMin, k / c.kernelsOptimizedFusion); // fused by the compiler
    return k;
}

struct GemmWork {
    double flops = 0;
    double seconds = 0;
};

/// Forward GEMMs of all layers for `tokens` tokens, plus the LM head over
/// `headTokens` tokens. Each linear is timed at its own shape.
GemmWork forwardGemms(const Plan& p, double tokens, double headTokens, DType t)
{
    const ModelArch& m = *p.m;
    GemmWork w;
    const double pk = peak(p, t);
    const int layers = (m.layers + p.pp - 1) / p.pp;
    for (const auto& lin : p.linears) {
        double mTokens = tokens;
        double copies = lin.perLayer;
        if (m.moe.enabled() && lin.perLayer > 1) {
            // Routed experts see tokens x active / experts rows each.
            mTokens = tokens * m.moe.active / m.moe.experts;
            copies = m.moe.experts * 1.0;
            const double routedShare = double(m.moe.active) / (m.moe.active + m.moe.shared);
            const double flops = 2.0 * tokens * double(lin.in) * double(lin.out) * lin.perLayer / p.tp;
            w.flops += flops;
            w.seconds += flops * routedShare / (pk * gemmEff(p, t, mTokens, double(lin.out) / p.tp, double(lin.in)));
            w.seconds += flops * (1 - routedShare) / (pk * gemmEff(p, t, tokens, double(lin.out) / p.tp, double(lin.in)));
            continue;
        }
        const double flops = 2.0 * mTokens * double(lin.in) * double(lin.out) * copies / p.tp;
        w.flops += flops;
        w.seconds += flops / (pk * gemmEff(p, t, mTokens, double(lin.out) / p.tp, double(lin.in)));
    }
    w.flops *= layers;
    w.seconds *= layers;
    if (m.vocab > 0 && headTokens > 0 && m.family != ModelFamily::Encoder) {
        const double flops = 2.0 * headTokens * double(m.vocab) * m.hidden / p.tp;
        w.flops += flops;
        w.seconds += flops / (pk * gemmEff(p, t, headTokens, double(m.vocab) / p.tp, m.hidden));
    }
    return w;
}

/// Attention score FLOPs (QK^T and AV) per forward for `sequences` of length s.
double attentionFlops(const Plan& p, double sequences, double s)
{
    const ModelArch& m = *p.m;
    const double hq = double(m.heads) * m.headDim;
    const double causal = m.family == ModelFamily::Decoder ? 0.5 : 1.0;
    const int layers = (m.layers + p.pp - 1) / p.pp;
    // Decoders: each attention layer's causal pairs, windows applied (sliding and
    // chunked layers see at most their window; linear/Mamba layers have none).
    const double layerEq = m.family == ModelFamily::Decoder ? m.causalAttentionLayerEquivalents(s) : double(m.layers);
    return 4.0 * s * s * hq * layerEq * double(layers) / std::max(1, m.layers) * sequences * causal / p.tp;
}

/// Model FLOPs of one training micro-batch for the whole model (every layer, no
/// tensor/pipeline split): the forward GEMMs x (1 + backward factor), LoRA
/// adapters, attention x 3.5 (backward 2.5x the forward). Recompute is not
/// model work. MFU and TFLOP/s per GPU divide it by the GPUs of one replica.
double modelTrainFlops(const Plan& p, double bwdFactor, double adapterFlops)
{
    const ModelArch& m = *p.m;
    const auto& t = p.s->training;
    const double tokens = double(t.microBatch) * t.seqLen;
    double perToken = 0; // forward GEMM FLOPs per token, all layers
    for (const auto& lin : p.linears)
        perToken += 2.0 * double(lin.in) * double(lin.out) * lin.perLayer;
    perToken *= m.layers;
    if (m.vocab > 0 && m.family != ModelFamily::Encoder)
        perToken += 2.0 * double(m.vocab) * m.hidden;
    const double hq = double(m.heads) * m.headDim;
    const double causal = m.family == ModelFamily::Decoder ? 0.5 : 1.0;
    const double layerEq = m.family == ModelFamily::Decoder ? m.causalAttentionLayerEquivalents(t.seqLen) : double(m.layers);
    const double attn = 4.0 * double(t.seqLen) * t.seqLen * hq * layerEq * t.microBatch * causal;
    return tokens * perToken * (1 + bwdFactor) + adapterFlops + attn * 3.5;
}

/// NF4 storage per weight: 4 bits plus the double-quantized absmax (memorymodel).
constexpr double kNf4BytesPerParam = 0.516;

/// Base-model linear weights one GPU holds (what QLoRA stores in NF4): every
/// parameter but the embeddings and an untied LM head.
double qloraBaseParams(const Plan& p)
{
    const ModelArch& m = *p.m;
    const double head = m.tiedEmbeddings ? 0 : double(m.vocab) * m.hidden;
    return (p.loadedParams - p.embeddingParams - head) / (p.tp * p.pp);
}

/// Intra-node link bandwidth per GPU per direction (bytes/s) for a group of
/// `groupSize` GPUs inside one scale-up domain.
double intraNodeBandwidth(const Plan& p, int groupSize)
{
    const Gpu& g = *p.gpu;
    // NVLink bridges join pairs only; larger groups on bridged cards fall back to PCIe.
    // Collectives run at the bus bandwidth NCCL reaches on the link (nvlink_bus_eff,
    // pcie_eff), scaled by the family's collective efficiency.
    const double scale = family(p).collective;
    if (g.interconnectGbps > 0 && (groupSize <= 2 || !p.bridged))
        return g.interconnectGbps / 2 * 1e9 * scaled(p.cal->nvlinkBusEff, scale);
    return g.pcieGbps() * 1e9 * scaled(p.cal->pcieEff, scale);
}

double networkBandwidth(const Plan& p) { return std::max(1.0, p.s->hardware.networkGbps) / 8 * 1e9; }

/// Seconds to reduce-scatter (or all-gather) `bytes` held by each of `n` GPUs,
/// hierarchically as NCCL does: inside each node over NVLink/PCIe, then across
/// nodes, where each GPU ships only its 1/G share over its own NIC.
double scatterSeconds(const Plan& p, double bytes, int n)
{
    if (n <= 1)
        return 0;
    const int g = std::min(n, p.nodeSize);
    const int nodes = (n + g - 1) / g;
    double t = bytes * (g - 1) / g / intraNodeBandwidth(p, g);
    if (nodes > 1)
        t += bytes / g * (nodes - 1) / nodes / networkBandwidth(p);
    return t;
}

double allReduceSeconds(const Plan& p, double bytes, int n) { return 2 * scatterSeconds(p, bytes, n); }

/// Fixed cost of one small all-reduce inside a node: launch plus one
/// synchronization per ring step (NCCL / TensorRT-LLM custom all-reduce: ~10 us
/// on 2 GPUs, ~30 us on 8).
double allReduceLatency(const Plan& p, int n)
{
    return n <= 1 ? 0 : p.cal->allReduceLatencySBase + p.cal->allReduceLatencySPerGpu * (n - 1);
}

/// Seconds to send `bytes` of activations from one pipeline stage to the next:
/// a point-to-point copy over the link between the two GPUs (NVLink / PCIe in a
/// node, the NIC once the replica spans nodes) plus one synchronization.
double stageSendSeconds(const Plan& p, double bytes)
{
    if (p.pp <= 1)
        return 0;
    const bool crossNode = p.tp * p.pp > p.nodeSize;
    return bytes / (crossNode ? networkBandwidth(p) : intraNodeBandwidth(p, 2)) + allReduceLatency(p, 2);
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
        const double recompute = t.checkpointing == Checkpointing::Full ? 1 : 0;
        // Backward: input and weight grads (2x forward); frozen LoRA bases need
        // only input grads (1x). Adapters add 6 x r x (in + out) per token.
        const double bwdFactor = lora ? 1 : 2;
        double gemm = fwd.seconds * (1 + bwdFactor + recompute) / (p.optimized ? c.trainGemmDerateOptimized : 1.0);
        double adapterFlops = 0;
        if (lora) {
            for (const auto& lin : p.linears)
                if (lin.targeted)
                    adapterFlops += 6.0 * tokens * t.loraRank * double(lin.in + lin.out) * lin.perLayer * m.layers;
            // peft keeps the adapters in fp32 over a 16-bit base: without autocast
            // their skinny GEMMs run in fp32 on CUDA cores (matmul TF32 is off by
            // default), far below the base's tensor-core rate.
            const DType at = p.autocast || p.compute == DType::TF32 ? p.compute : DType::FP32;
            gemm += adapterFlops / (peak(p, at) * gemmEff(p, at, tokens, t.loraRank, m.hidden));
        }
        const double attnF = attentionFlops(p, t.microBatch, t.seqLen);
        const double attn = attnF * (1 + 2.5 + recompute) / attnRate(p, false);

        // Elementwise traffic scales with what the layers save (see memorymodel);
        // the composed tanh GELU's saved intermediates are counted by its own term.
        const bool tanhGelu = composedTanhGelu(p);
        const double ffnElems = m.moe.enabled() ? double(m.moe.expertFfnHidden) * (m.moe.active + m.moe.shared)
                                                : double(m.ffnHidden);
        const double perLayer = activationBytesPerTokenLayer(p) - (tanhGelu ? 3 * p.actBytes * ffnElems : 0);
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
        const double launches = (kernelsPerLayer(p) - expertLoop) * layers * (3 + recompute);
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
        p.term("time.gemm", recompute ? "Matmuls (fwd + bwd + recompute)" : "Matmuls (fwd + bwd)", gemm * 1e3, "ms",
               [&] { return std::string(fmt(fwd.flops / 1e12) + " TFLOP forward x " + fmt(1 + bwdFactor + recompute) + " at " +
                   fmt(fwd.flops / fwd.seconds / 1e12) + " TFLOP/s achieved (shape-dependent)"); });
        p.term("time.attention", "Attention (flash)", attn * 1e3, "ms",
               [&] { return std::string(fmt(attnF / 1e12) + " TFLOP forward x 3.5 / (" + attnRateText(p, false) + ")"); });
        p.term("time.elementwise", "Elementwise ops", ew * 1e3, "ms",
               [&] { return std::string(fmt(p.optimized ? c.ewTrafficOptimized : c.ewTrafficEager) + " x " + fmtGiB(saved) + " saved activations / bandwidth"); });
        p.term("time.logits", "Logits and cross-entropy", logits * 1e3, "ms",
               [&] { return std::string(fmt(p.optimized ? c.logitTrafficOptimized : c.logitTrafficEager) + " B x tokens x vocab / bandwidth"); });
        p.term("time.overhead", "Kernel launches (host, beyond the GPU's work)", kernels * 1e3, "ms",
               [&] { return std::string(fmt(kernelsPerLayer(p)) + " kernels/layer x " + std::to_string(layers) + " layers x " +
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

namespace {

/// Continuous batching with chunked prefill (runtime "serving") under load: the
/// `batch` users in the system (closed loop) or targets.requests_per_s (open
/// loop), queueing for prefill and for KV blocks included (servingload.h).
/// `forward(tokens, head, attnFlops)` times one pass; `decodeStep` is the decode
/// step of the whole batch, of which `kvReadS` reads its KV cache and
/// max(`weightReadS`, `gemmS`) streams the weights (`gemmS`: their GEMMs at the
/// batch's rows, `minRows` the smallest tile). Returns the requests per second served.
template <class Forward>
double servingLatency(Plan& p, InferenceResult& r, double decodeStep, double kvReadS, double weightReadS, double gemmS,
                      double minRows, Forward&& forward)
{
    const auto& inf = p.s->inference;
    const double batch = std::max(1, inf.batch);
    const double prompt = std::max(1, inf.promptTokens);
    const double kvPerSeq = kvReadS / batch;
    const double attnPrompt = attentionFlops(p, 1, prompt);
    EngineShape shape;
    shape.promptTokens = prompt;
    shape.outputTokens = std::max(1, inf.outputTokens);
    shape.chunkTokens = std::max(1.0, p.cal->servingChunkTokens);
    shape.admitted = p.admitted;
    // A step decodes `decoding` sequences (the decode roofline, its KV reads
    // scaled from the batch's) and carries `prefillTokens` prompt tokens (a
    // forward pass over them and the decodes, with their share of a prompt's
    // causal attention); a step is never faster than its decodes alone.
    // The decode step at `decoding` sequences: the weight roofline at its own
    // rows, its KV reads, and the rest of the batch's step (per-layer floor, TP).
    const double weightS = std::max(weightReadS, gemmS);
    const double rows = std::max(minRows, batch);
    auto decodeOnly = [=](double decoding) {
        return decodeStep - weightS - kvReadS + std::max(weightReadS, gemmS * std::max(minRows, decoding) / rows) +
               kvPerSeq * decoding;
    };
    shape.step = [=, &forward](double prefillTokens, double decoding) {
        if (prefillTokens <= 0)
            return decodeOnly(decoding);
        const double pass = forward(prefillTokens + decoding, 1 + decoding, attnPrompt * prefillTokens / prompt) +
                            kvPerSeq * decoding;
        return std::max(pass, decodeOnly(decoding));
    };
    shape.promptCost = [=, &forward](double prefillTokens, double decoding) {
        return forward(prefillTokens + decoding, 1 + decoding, attnPrompt * prefillTokens / prompt) -
               (decoding >= 1 ? forward(decoding, decoding, 0) : 0);
    };
    const LoadResult load = inf.targets.requestsPerS ? openLoop(shape, *inf.targets.requestsPerS)
                                                     : closedLoop(shape, inf.batch);
    r.ttftMs = load.ttftS * 1e3;
    r.ttftP99Ms = load.ttftP99S * 1e3;
    r.tpotMs = load.tpotS * 1e3;
    if (p.admitted >= 1)
        r.admitted = static_cast<int>(std::min(p.admitted, 1e9));
    if (load.saturated && p.explain)
        p.notes.push_back("The load of " + fmt(*inf.targets.requestsPerS) + " requests/s is above what this replica serves (" +
                          fmt(load.requestsPerS) + " requests/s with the engine full): the queue grows without bound; "
                          "TTFT shown with the engine full.");
    p.term("time.serving.ttft", "Serving: time to first token (mean, under load)", load.ttftS * 1e3, "ms", [&] {
        return std::string(inf.targets.requestsPerS ? "open loop at " + fmt(*inf.targets.requestsPerS) + " requests/s"
                                                    : "closed loop, " + std::to_string(inf.batch) + " users") +
               ": half a step " + " + KV-block wait " + fmt(load.kvWaitS * 1e3) + " ms + prefill queue and the prompt's "
               "own chunked prefill " + fmt(load.prefillS * 1e3) + " ms (chunk " + fmt(shape.chunkTokens) + " tokens, " +
               fmt(load.decoding) + " sequences decoding, prefill " + fmt(load.utilization * 100) + "% of engine time)";
    });
    p.term("time.serving.ttft_p99", "Serving: time to first token (p99)", load.ttftP99S * 1e3, "ms",
           [&] { return std::string("one step + KV-block wait + own prefill + the queue's p99 wait (M/G/1 heavy-traffic tail)"); });
    p.term("time.serving.tpot", "Serving: time per output token", load.tpotS * 1e3, "ms", [&] {
        return "decode step of " + fmt(load.decoding) + " sequences, stretched by the prompt tokens riding in the steps (" +
               fmt(load.utilization * 100) + "% of engine time)";
    });
    return load.requestsPerS;
}

} // namespace

InferenceResult inferencePerformance(Plan& p)
{
    const Scenario& s = *p.s;
    const ModelArch& m = *p.m;
    const auto& inf = s.inference;
    const Calibration& c = *p.cal;
    InferenceResult r;
    const double bw = bandwidth(p);

    if (!m.isLanguageModel()) {
        visionInference(p, r);
        return r;
    }

    const int layers = (m.layers + p.pp - 1) / p.pp;
    double f = double(m.ffnHidden);
    if (m.moe.enabled())
        f = double(m.moe.expertFfnHidden) * (m.moe.active + m.moe.shared);
    const double tk = p.optimized ? c.kernelSInferOptimized : c.kernelSInferEager;
    const double kernelsPre = c.prefillKernelsLayerOptimized * layers * tk *
                              (p.optimized ? 1 : c.prefillKernelsLayerEager / c.prefillKernelsLayerOptimized);
    // One forward pass over `tokens` tokens (`head` of them need logits) whose
    // attention costs `attnFlops`: GEMMs, attention, elementwise traffic,
    // launches and the TP all-reduces, across every pipeline stage in turn.
    auto forwardSeconds = [&](double tokens, double head, double passAttnFlops, GemmWork& gemm, double& attnS) {
        gemm = forwardGemms(p, tokens, head, p.compute);
        attnS = passAttnFlops / attnRate(p, true);
        // Norms, activation, residuals: ~ (8 h + 10 ffn) x 2 B written and read.
        // (fitted with the kernel cost on the three prefill runs: 4.4% mean error)
        const double ewBytes = c.prefillEwFactor * (8.0 * m.hidden + 10.0 * f) * 2 * tokens * layers / p.tp;
        double sec = gemm.seconds + attnS + ewBytes / bw + kernelsPre;
        // Weight-only quantized formats dequantize in the GEMM: compute stays 16-bit.
        if (p.tp > 1)
            sec += 2.0 * layers * (allReduceSeconds(p, tokens * m.hidden * 2, p.tp) + allReduceLatency(p, p.tp));
        // One batch crosses every pipeline stage in turn, its activations sent
        // from each stage to the next.
        return sec * p.pp + (p.pp - 1) * stageSendSeconds(p, tokens * m.hidden * 2 / p.tp);
    };
    // Prefill: one forward over batch x prompt tokens; logits for the last token only.
    const double attnF = attentionFlops(p, inf.batch, inf.promptTokens);
    GemmWork pre;
    double attn = 0;
    const double prefill = forwardSeconds(double(inf.batch) * inf.promptTokens, inf.batch, attnF, pre, attn);
    r.ttftMs = prefill * 1e3;
    // A serving engine pipelines the prefill too: with m = min(pp, batch)
    // micro-batches in flight the stages work in parallel, and the batch's
    // prefill occupies the pipeline (m + pp - 1) micro-batch stage times
    // instead of pp whole-batch ones (its throughput share; TTFT stays the
    // stages in turn).
    const double inFlight = p.serving && p.pp > 1 ? std::min(p.pp, inf.batch) : 1;
    const double prefillCycle = prefill * (inFlight + p.pp - 1) / (inFlight * p.pp);
    p.term("time.prefill.gemm", "Prefill matmuls", pre.seconds * 1e3, "ms",
           [&] { return std::string(fmt(pre.flops / 1e12) + " TFLOP at " + fmt(pre.flops / pre.seconds / 1e12) + " TFLOP/s achieved"); });
    p.term("time.prefill.attention", "Prefill attention", attn * 1e3, "ms",
           [&] { return std::string(fmt(attnF / 1e12) + " TFLOP / (" + attnRateText(p, true) + ")"); });
    p.term("time.prefill.overhead", "Prefill kernel launches", kernelsPre * 1e3, "ms",
           [&] { return std::string(fmt(kernelsPre / tk / layers) + " kernels/layer x " + std::to_string(layers) + " x " + fmt(tk * 1e6) + " us"); });

    // Decode: each step reads the (touched) weights and the KV cache once.
    const double wBytesPerParam = p.inferPrecision == InferPrecision::FP32 ? 4
                                  : p.inferPrecision == InferPrecision::INT8 || p.inferPrecision == InferPrecision::FP8
                                      ? 1.0 + 2.0 / 128
                                  : p.inferPrecision == InferPrecision::INT4 ? 0.5 + 4.0 / 128
                                  : p.inferPrecision == InferPrecision::FP4  ? 0.5 + 1.0 / 16 // NVFP4: 4.5 bits
                                                                             : 2;
    double weightParams = p.loadedParams - p.embeddingParams + (m.tiedEmbeddings ? p.embeddingParams : 0);
    std::string moeNote;
    if (m.moe.enabled()) {
        // Distinct experts touched per layer by `batch` tokens choosing `active` of `experts`.
        const double e = m.moe.experts;
        const double touched = e * (1 - std::pow(1 - double(m.moe.active) / e, inf.batch));
        const double expertParams = m.routedExpertParams() / std::max(1.0, e);
        weightParams = m.activeParams() - p.embeddingParams + (touched - m.moe.active) * expertParams;
        moeNote = ", " + fmt(touched, 3) + " of " + std::to_string(m.moe.experts) + " experts touched per layer";
    }
    const double ctxMean = inf.promptTokens + inf.outputTokens / 2.0;
    // precision "checkpoint": the checkpoint's bytes per loaded parameter, on average.
    const double ckptBytesPerParam =
        inf.checkpointWeights ? m.loadedCheckpointBytes() / std::max(1.0, p.loadedParams) : 0;
    const double weightBytes = weightParams * (inf.checkpointWeights ? ckptBytesPerParam : wBytesPerParam) / (p.tp * p.pp);
    // Windowed layers read their window, linear layers their state.
    const double kvBytes = double(inf.batch) * m.kvBytesPerSequence(ctxMean, p.kvBytes) / (p.tp * p.pp);
    const double attendedKeys = m.kvElementsReadPerToken(ctxMean) / std::max(1.0, m.kvElementsPerTokenPerLayer()) * ctxMean;
    // GEMV-style decode kernels stream below the copy rate (decode_bandwidth_eff,
    // fitted with the per-layer floor on the two batch-1 decode runs). The weight GEMMs and the attention over the KV cache are
    // separate kernels: each is its own roofline, and their times add.
    const double decodeBw = units::gbpsToBytesPerS(p.gpu->bandwidthGbps) * scaled(c.decodeBandwidthEff, family(p).bandwidth);
    const DType ct = p.compute == DType::FP8 || p.compute == DType::FP4
                         ? p.compute
                         : (p.gpu->supports(DType::BF16) ? DType::BF16 : DType::FP16);
    const double pk = peak(p, p.inferPrecision == InferPrecision::FP32 ? DType::FP32 : ct);
    // Serving engines keep pp micro-batches of batch / pp sequences in flight
    // through the pipeline (vLLM's virtual engines, TensorRT-LLM's in-flight
    // micro-batches): each stage then works on one micro-batch at a time, and a
    // round in which every sequence gets its token is pp micro-batch stage times.
    // A static batch (and a batch smaller than pp) passes the stages whole.
    const double micro = p.serving && p.pp > 1 ? double(inf.batch) / std::min(p.pp, inf.batch) : double(inf.batch);
    const double gemmFlops = 2.0 * m.activeParams() * micro / (p.tp * p.pp);
    // A decode GEMM is weight-load bound until the batch nears the ridge point;
    // its compute is timed at its real rows (the batch, floored at one 64-row
    // tile, decode_gemm_min_rows): at batch 128 few tiles fill the SMs, so on a
    // part with the H200's bandwidth the GEMMs turn compute-bound first.
    const double weightTime = std::max(
        weightBytes / decodeBw,
        gemmFlops / (pk * gemmEff(p, ct, std::max(c.decodeGemmMinRows, micro), double(m.hidden) / p.tp, m.hidden)));
    const double attnFlops = 4.0 * attendedKeys * double(m.heads) * m.headDim * micro / (p.tp * p.pp);
    const double kvTime = std::max(kvBytes * micro / inf.batch / decodeBw, attnFlops / (pk * attnEff(p)));
    const double memTime = weightTime + kvTime;
    const double computeTime =
        gemmFlops / (pk * gemmEff(p, ct, std::max(c.decodeGemmMinRows, micro), double(m.hidden) / p.tp, m.hidden));
    // HF's eager MoE loops only over the experts some token of the step chose
    // (transformers' expert_hit): at decode, the batch's tokens touch
    // e x (1 - (1 - k/e)^batch) of them, not all e.
    const double expertLoop = expertLoopKernelsPerLayer(p);
    const double touchedShare =
        m.moe.enabled() ? 1 - std::pow(1 - double(m.moe.active) / std::max(1, m.moe.experts), micro) : 1.0;
    const double decodeKernels = kernelsPerLayer(p) - expertLoop + expertLoop * touchedShare;
    const double floor = p.optimized ? c.decodeLayerSGraph * m.layers : decodeKernels * m.layers * c.kernelSDecodeEager;
    // weightTime and kvTime are one pipeline stage's work on one micro-batch
    // (its layers' weights and KV cache): a decode step passes the stages one
    // after another, so a token waits for all of them, plus the activation send
    // between stages. Pipeline parallelism splits the memory, never the
    // per-token latency of a batch that fits in one micro-batch.
    double stage = weightTime + kvTime;
    if (p.tp > 1)
        stage += 2.0 * layers * (allReduceSeconds(p, micro * m.hidden * 2, p.tp) + allReduceLatency(p, p.tp));
    const double sends = (p.pp - 1) * stageSendSeconds(p, micro * m.hidden * 2 / p.tp);
    double tpot = stage * p.pp + sends + floor;
    if (p.pp > 1)
        p.term("time.decode.pipeline", "Decode: pipeline stages in turn", (stage * (p.pp - 1) + sends) * 1e3, "ms", [&] {
            return std::to_string(p.pp) + " stages x " + fmt(stage * 1e3) + " ms each (micro-batches of " + fmt(micro) +
                   "; the token passes the stages one after another; " + std::to_string(p.pp - 1) +
                   " counted here beyond the first) + " + fmt(sends * 1e3) + " ms of activation sends";
        });
    r.tpotMs = tpot * 1e3;
    double served = 0; // serving: requests/s under the load
    if (p.serving)
        served = servingLatency(p, r, tpot, kvTime, weightBytes / decodeBw, computeTime,
                                std::max(c.decodeGemmMinRows, 1.0), [&](double tokens, double head, double stepAttnFlops) {
            GemmWork g;
            double a = 0;
            return forwardSeconds(tokens, head, stepAttnFlops, g, a);
        });
    p.term("time.decode.memory", "Decode: weights + KV", memTime * 1e3, "ms",
           [&] { return std::string("max(" + fmtGiB(weightBytes) + " weights / bandwidth, GEMM FLOPs / peak) + max(" +
                                    fmtGiB(kvBytes) + " KV at mean context " + fmt(ctxMean) +
               " / bandwidth, attention FLOPs / peak); bandwidth " + fmt(p.gpu->bandwidthGbps) + " GB/s x " + fmt(c.decodeBandwidthEff) + moeNote); });
    p.term("time.decode.compute", "Decode: GEMM compute", computeTime * 1e3, "ms",
           [&] { return std::string("2 x active params x batch / achievable peak (counts when above the weight-read time)"); });
    p.term("time.decode.overhead", "Decode: per-layer floor", floor * 1e3, "ms",
           [&] { return std::string(p.optimized ? std::to_string(m.layers) + " layers x " + fmt(c.decodeLayerSGraph * 1e6) + " us (CUDA graph)"
                       : "eager generate(): " + fmt(decodeKernels) + " kernels/layer (MoE: the experts the batch touches) x " + fmt(c.kernelSDecodeEager * 1e6) +
                             " us host time"); });
    const double cycle = prefillCycle + inf.outputTokens * tpot;
    r.tokensPerS = (p.serving ? served * inf.outputTokens : double(inf.batch) * inf.outputTokens / cycle) * p.dp;
    return r;
}

} // namespace gp::detail
