// Performance of vision models: CNNs as convolutions (cuDNN) plus the traffic
// of their elementwise layers, vision transformers as a transformer encoder over
// their patch tokens. Eager launches overlap the GPU's work: a step takes the
// longer of the host's launch time and the GPU's time (see perfmodel.cpp).
#include "core/estimate/perfparts.h"
#include "core/estimate/sizing.h"

#include <algorithm>
#include <cmath>

namespace gp::detail {

namespace {

/// cuDNN convolutions (channels_last implicit GEMM) as a share of the peak of
/// the format they run in. Like FlashAttention-2, most of cuDNN's convolution
/// kernels issue mma.sync, which reaches a smaller share of the peak of the
/// parts that need wgmma (sm_90) or tcgen05 (sm_100) to reach it.
double convEff(const Plan& p)
{
    const int sm = p.sm; // 0 off NVIDIA
    return sm == 9 || sm == 10 ? p.cal->convEffHopperBlackwell : p.cal->convEff;
}

/// A vision transformer's forward over `images` at `imageSize`: its GEMM time
/// (each linear of the encoder at its own shape, patch embedding as a GEMM of
/// patches x 3p^2 x hidden) and its attention FLOPs (bidirectional over the
/// patch tokens and the class token: no causal halving).
struct VitWork {
    double gemmFlops = 0;
    double gemmSeconds = 0;
    double attnFlops = 0;
    double tokens = 0; // patch + class tokens over all images
};

VitWork vitForward(const Plan& p, double images, int imageSize, DType t)
{
    const VisionSpec& v = p.m->vision;
    VitWork w;
    const double side = std::max(1.0, std::floor(double(imageSize) / v.patchSize));
    const double patches = side * side;
    const double s = patches + 1;
    const double rows = images * s;
    const double h = v.encoderHidden;
    const double f = v.encoderMlp;
    const double pk = peak(p, t);
    struct Shape {
        double m, n, k;
    };
    const double patchK = 3.0 * v.patchSize * v.patchSize;
    const Shape shapes[] = {{rows, 3 * h, h}, {rows, h, h}, {rows, f, h}, {rows, h, f}};
    double flops = 0;
    double secs = 0;
    for (const Shape& sh : shapes) {
        const double fl = 2 * sh.m * sh.n * sh.k * v.encoderLayers;
        flops += fl;
        secs += fl / (pk * gemmEff(p, t, sh.m, sh.n, sh.k));
    }
    const double patchFlops = 2 * images * patches * patchK * h;
    flops += patchFlops;
    secs += patchFlops / (pk * gemmEff(p, t, images * patches, h, patchK));
    w.attnFlops = 4.0 * s * s * h * v.encoderLayers * images;
    w.tokens = rows;
    // The model's FLOPs per image set the total (a ViT scaled from a size keeps
    // B/16's shapes); the shapes set the rate.
    const double scale = std::pow(double(imageSize) / v.nativeImageSize, 2);
    w.gemmFlops = std::max(0.0, v.gflopsPerImage * 1e9 * scale * images - w.attnFlops);
    w.gemmSeconds = flops > 0 ? secs * w.gemmFlops / flops : 0;
    return w;
}

} // namespace

VisionStep visionTrainingStep(Plan& p, double tKernel)
{
    const ModelArch& m = *p.m;
    const Calibration& c = *p.cal;
    const auto& t = p.s->training;
    const double bw = bandwidth(p);
    VisionStep out;
    out.mfuPeak = peak(p, p.compute);
    double& micro = out.seconds;
    double& modelFlops = out.modelFlops;
    double& mfuPeak = out.mfuPeak;
        const VisionSpec& v = m.vision;
        const double scale = std::pow(double(t.imageSize) / v.nativeImageSize, 2);
        const double fwd = v.gflopsPerImage * 1e9 * scale * t.microBatch;
        const double recompute = t.checkpointing == Checkpointing::Full ? 1 : 0;
        const double act = v.trainActivationBytesPerImage * scale * t.microBatch * (p.actBytes / 2);
        // Eager launches (forward, twice as many backward): the host's cost
        // overlaps the GPU's work, each kernel's device time does not.
        // Under autocast each ViT linear casts its weight and bias, the in- and
        // fc1-projections their fp32 LayerNorm input too (10 per layer), plus the
        // patch convolution's 3 and the head's 2.
        const double casts = p.autocast && v.encoderLayers > 0 ? 10.0 * v.encoderLayers + 5 : 0;
        const double launches = (v.kernelsPerStep + casts) * (3 + recompute);
        // A cuDNN convolution or batch-norm call plans and dispatches through
        // cuDNN's frontend on the host, dearer than an aten kernel launch.
        const double tHost = v.encoderLayers == 0 && !p.optimized ? c.kernelSTrainCnnEager : tKernel;
        const double host = launches * tHost;
        const double device = launches * c.kernelSDevice;
        double gpu = 0;
        modelFlops = 3 * fwd;
        if (v.encoderLayers > 0) {
            // Vision transformer: GEMMs at their shapes in the matmul format (fp32
            // training runs true FP32: PyTorch leaves matmul TF32 off), flash
            // attention over the patch tokens, elementwise traffic of an eager
            // transformer encoder (LayerNorm, GELU, dropout, residual adds).
            const VitWork w = vitForward(p, t.microBatch, t.imageSize, p.compute);
            const double gemm = w.gemmSeconds * (3 + recompute);
            const double attn = w.attnFlops * (1 + 2.5 + recompute) / attnRate(p, false);
            const double ew = c.ewTrafficEager * act * (1 + recompute / 3) / bw;
            const double castBytes = p.autocast ? 6.0 * v.params * (1 + recompute) / bw : 0;
            gpu = gemm + attn + ew + castBytes + device;
            p.term("time.gemm", recompute ? "Matmuls (fwd + bwd + recompute)" : "Matmuls (fwd + bwd)", gemm * 1e3, "ms",
                   [&] { return std::string(fmt(w.gemmFlops / 1e12) + " TFLOP forward over " + fmt(w.tokens) + " patch tokens x " +
                                            fmt(3 + recompute) + " at " + fmt(w.gemmFlops / std::max(w.gemmSeconds, 1e-30) / 1e12) +
                                            " TFLOP/s achieved (shape-dependent)"); });
            p.term("time.attention", "Attention (flash, bidirectional)", attn * 1e3, "ms",
                   [&] { return std::string(fmt(w.attnFlops / 1e12) + " TFLOP forward x 3.5 / (" + attnRateText(p, false) + ")"); });
            p.term("time.elementwise", "Elementwise ops", (ew + castBytes) * 1e3, "ms",
                   [&] { return std::string(fmt(c.ewTrafficEager) + " x " + fmtGiB(act) + " saved activations / bandwidth"); });
        } else {
            // cuDNN runs fp32 convolutions as TF32 by default.
            const DType ct = p.compute == DType::FP32 && p.gpu->supports(DType::TF32) ? DType::TF32 : p.compute;
            const double conv = (3 + recompute) * fwd / (peak(p, ct) * convEff(p));
            const double ew = c.visionEwTraffic * act * (1 + recompute / 3) / bw;
            gpu = conv + ew + device;
            mfuPeak = peak(p, ct); // MFU against the rate the convolutions actually run at
            p.term("time.compute", "Convolutions", conv * 1e3, "ms",
                   [&] { return std::string(fmt(v.gflopsPerImage) + " GFLOP/image x 3 (fwd+bwd) x batch / (peak x " + fmt(convEff(p)) + ")"); });
            p.term("time.memory", "Elementwise (BN, ReLU, adds)", ew * 1e3, "ms",
                   [&] { return std::string(fmt(c.visionEwTraffic) + " x activation bytes / bandwidth"); });
        }
        const double exposed = std::max(0.0, host - gpu);
        micro = gpu + exposed;
        p.term("time.overhead", "Kernel launches (device time + host beyond the GPU's work)", (device + exposed) * 1e3, "ms",
               [&] { return std::string(fmt(v.kernelsPerStep + casts) + " kernels x " + fmt(3 + recompute) + " passes x (" +
                                        fmt(c.kernelSDevice * 1e6) + " us on the GPU; " + fmt(tHost * 1e6) +
                                        " us on the host, hidden behind the GPU's work)"); });
    return out;
}

void visionInference(Plan& p, InferenceResult& r)
{
    const ModelArch& m = *p.m;
    const auto& inf = p.s->inference;
    const Calibration& c = *p.cal;
    const double bw = bandwidth(p);
        const VisionSpec& v = m.vision;
        const double scale = std::pow(double(inf.imageSize) / v.nativeImageSize, 2);
        const double fwd = v.gflopsPerImage * 1e9 * scale * inf.batch;
        const double act = v.trainActivationBytesPerImage * scale * inf.batch * (p.actBytes / 2);
        const double tk = p.optimized ? c.kernelSInferOptimized : c.kernelSInferEager;
        const double host = v.kernelsPerStep * tk;
        const double device = v.kernelsPerStep * c.kernelSDevice;
        double gpu = 0;
        if (v.encoderLayers > 0) {
            // Vision transformer: forward GEMMs at their shapes, forward-only
            // flash attention, and the elementwise kernels of an eager encoder
            // block, counted in element accesses per token: two LayerNorms (2 h
            // each), q/k/v and output copies (6 h + 2 h), two residual adds (3 h
            // each), GELU (2 x mlp).
            const VitWork w = vitForward(p, inf.batch, inf.imageSize, p.compute);
            const double attn = w.attnFlops / attnRate(p, true);
            const double ew = (18.0 * v.encoderHidden + 2.0 * v.encoderMlp) * p.actBytes * w.tokens * v.encoderLayers / bw;
            gpu = w.gemmSeconds + attn + ew + device;
            p.term("time.compute", "Matmuls and attention", (w.gemmSeconds + attn) * 1e3, "ms",
                   [&] { return std::string(fmt(w.gemmFlops / 1e12) + " TFLOP of GEMMs over " + fmt(w.tokens) + " patch tokens + " +
                                            fmt(w.attnFlops / 1e12) + " TFLOP of attention"); });
            p.term("time.memory", "Elementwise traffic", ew * 1e3, "ms",
                   [&] { return std::string("(18 h + 2 mlp) element accesses x element bytes per token and layer / bandwidth"); });
        } else {
            const DType ct = p.compute == DType::FP32 && p.gpu->supports(DType::TF32) ? DType::TF32 : p.compute;
            const double conv = fwd / (peak(p, ct) * convEff(p));
            // Every layer output is written once and read once.
            const double traffic = 2 * act / bw;
            gpu = conv + traffic + device;
            p.term("time.compute", "Convolutions", conv * 1e3, "ms",
                   [&] { return std::string(fmt(v.gflopsPerImage) + " GFLOP/image x batch / (peak x " + fmt(convEff(p)) + ")"); });
            p.term("time.memory", "Activation traffic", traffic * 1e3, "ms", [&] { return std::string("2 x activation bytes / bandwidth"); });
        }
        const double exposed = std::max(0.0, host - gpu);
        const double t = gpu + exposed;
        r.latencyMs = t * 1e3;
        r.samplesPerS = inf.batch / t * p.dp;
        p.term("time.overhead", "Kernel launches (device time + host beyond the GPU's work)", (device + exposed) * 1e3, "ms",
               [&] { return std::string(fmt(v.kernelsPerStep) + " kernels x (" + fmt(c.kernelSDevice * 1e6) + " us on the GPU; " +
                                        fmt(tk * 1e6) + " us on the host, hidden behind the GPU's work)"); });
}

} // namespace gp::detail
