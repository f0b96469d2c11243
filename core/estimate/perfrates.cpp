// Performance model, the shared parts: the rates the GPU reaches (GEMM and
// attention efficiency, peaks, bandwidth), the work of a forward pass, and the
// collectives. trainingPerformance is in perfmodel.cpp, inferencePerformance
// in inferenceperf.cpp.
//
// The model: time per phase from the work (FLOPs, bytes, kernels) and
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

/// The share of its datasheet tensor rate a GPU sustains within its board
/// power: a family whose GPUs hold their tensor clock only from clockPowerW
/// watts up runs a part rated below that at tdp / clockPowerW of its clock
/// (the same CDNA 3 die is an MI300X at 750 W and an MI325X at 1000 W, and
/// MLPerf's LoRA run is 1.34x faster on the MI325X). 1 where the family has
/// no power term or the catalog no board power.
double powerShare(const Plan& p)
{
    const double full = family(p).clockPowerW;
    const double tdp = p.gpu->tdpW;
    return full > 0 && tdp > 0 ? std::min(1.0, tdp / full) : 1.0;
}

/// The family's scale on tensor-core work (GEMMs and flash attention), chosen
/// by the plan's compute format: an fp8 / fp4 model's work scales with gemm8
/// (its 16-bit leftovers included), a 16-bit or fp32 model's with gemm16, so
/// each scale moves only the rows of its own formats; times the part's power share.
double computeScale(const Plan& p, DType)
{
    return (isEightBitCompute(p.compute) ? family(p).gemm8 : family(p).gemm16) * powerShare(p);
}

} // namespace

double scaled(double eff, double scale) { return std::min(1.0, eff * scale); }

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

/// Eager HF MoE loops over the experts in Python (a host sync to find each
/// expert's tokens, gather, GEMMs, activation, scatter); optimized stacks run
/// grouped GEMMs whose launches do not grow with the expert count. Launches per
/// layer forward of that loop, as fitted on MoE training steps (the training
/// pass; a forward-only HF pass is counted by hfMoeForwardKernelsPerLayer).
double expertLoopKernelsPerLayer(const Plan& p)
{
    const ModelArch& m = *p.m;
    return m.moe.enabled() && !p.optimized ? p.cal->kernelsPerExpert * m.moe.experts : 0;
}

/// GPT-2's composed tanh GELU (perfparts.h: kTanhGeluAccessesFwd).
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
    const double scale = p.family->collective;
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

/// A decode step's all-reduce (`bytes`: one row per sequence, a few MB): NCCL
/// moves messages of that size over NVLink below its large-message bus
/// bandwidth (nvlink_bus_eff_decode instead of nvlink_bus_eff: 8x H100 at
/// 4-16 MB). PCIe groups and the hop between nodes keep their rates. Inside a
/// serving engine the step's all-reduces sit between the layer's kernels, each
/// rank waiting for the slowest: they reach serving_decode_allreduce_eff of that
/// isolated rate (an engine constant, fitted on the serving rows but Hopper's).
double decodeAllReduceSeconds(const Plan& p, double bytes, int n)
{
    const double whole = allReduceSeconds(p, bytes, n);
    const int g = std::min(n, p.nodeSize);
    const Gpu& gpu = *p.gpu;
    if (g <= 1 || gpu.interconnectGbps <= 0 || (g > 2 && p.bridged))
        return whole; // no NVLink part (intraNodeBandwidth's PCIe case)
    const double inNode = 2 * bytes * (g - 1) / g;
    const double decodeRate = gpu.interconnectGbps / 2 * 1e9 * scaled(p.cal->nvlinkBusEffDecode, p.family->collective) *
                              (p.serving ? p.cal->servingDecodeAllreduceEff : 1.0);
    return whole - inNode / intraNodeBandwidth(p, g) + inNode / decodeRate;
}

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

} // namespace gp::detail
