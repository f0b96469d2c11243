#pragma once
// Internal to the core: the rates and work the performance models share
// (perfrates.cpp; training in perfmodel.cpp, inference in inferenceperf.cpp)
// and the vision models' timing (visionperf.cpp).
#include "core/base/precision.h"

#include <string>

namespace gp {
struct Gpu;
struct InferenceResult;
} // namespace gp

namespace gp::detail {

struct Plan;

/// Tensor-core generation (SM major version) from the catalog's architecture; 0 = unknown.
int smMajor(const Gpu& g);
/// Flash attention efficiency (training: forward + backward) and forward-only (prefill).
double attnEff(const Plan& p);
double attnFwdEff(const Plan& p);
/// Attention FLOP/s in the plan's format (fp32 inputs: the memory-efficient kernel on CUDA cores).
double attnRate(const Plan& p, bool forwardOnly);
bool attnFp32(const Plan& p);
double attnEffUsed(const Plan& p, bool forwardOnly);
/// "peak x 0.25" (or the fp32 kernel's) for the terms' formulas.
std::string attnRateText(const Plan& p, bool forwardOnly);
/// Achieved share of the format's peak for an m x n x k GEMM.
double gemmEff(const Plan& p, DType t, double m, double n, double k);
/// Dense peak of the format (falls back to the best 16-bit / fp32 rate).
double peak(const Plan& p, DType t);
/// Streaming bandwidth (bytes/s) elementwise kernels reach.
double bandwidth(const Plan& p);

/// An efficiency times its family scale, capped at the whole peak.
double scaled(double eff, double scale);

// The work of a transformer pass and the collectives (perfrates.cpp), shared
// by the training (perfmodel.cpp) and inference (inferenceperf.cpp) models.

/// Launches per layer forward of eager HF MoE's Python loop over the experts
/// (0 for dense models and optimized stacks, which run grouped GEMMs).
double expertLoopKernelsPerLayer(const Plan& p);
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
/// True for a GPT-2-style eager model: the composed tanh GELU above.
bool composedTanhGelu(const Plan& p);
/// Forward kernel launches per transformer layer in the framework's eager code.
double kernelsPerLayer(const Plan& p);

// Hugging Face transformers' own code in the `eager` runtime (hfeager.cpp).
/// True for runtime "eager": HF's model forward, one step at a time.
bool hfEagerRuntime(const Plan& p);
/// Launches of HF's forward-only MoE block (transformers 5: router + the
/// grouped_mm experts path) beyond the dense MLP it replaces, per MoE layer; 0
/// for dense models and optimized stacks. Independent of the experts touched.
constexpr double kHfGroupedMoeKernels = 19;
constexpr double kHfRouterKernels = 6;
constexpr double kHfDenseMlpKernels = 5;
double hfMoeForwardKernelsPerLayer(const Plan& p);
/// A shared expert under HF (its gate, up, activation, product and down, and
/// the add to the routed output), per MoE layer with shared experts.
constexpr double kHfSharedExpertKernels = 6;
/// Gated DeltaNet layers (Qwen3-Next) under HF without flash-linear-attention
/// and causal-conv1d: transformers' pure-PyTorch fallbacks
/// (torch_causal_conv1d_update, torch_chunk_gated_delta_rule over chunks of
/// kHfDeltaChunk tokens, torch_recurrent_gated_delta_rule one token at a time).
/// `kernels`: launches of one such layer's mixer beyond the Llama attention
/// block it replaces (kHfLlamaAttentionKernels), whatever the batch; `flops`:
/// the chunked rule's fp32 matmuls, this GPU's share, all sequences.
constexpr double kHfDeltaChunk = 64;
constexpr double kHfLlamaAttentionKernels = 18;
struct HfDeltaNet {
    double kernels = 0;
    double flops = 0;
};
/// `tokens` per sequence of one forward; `cached`: a decode step (seq_len 1
/// with the layer's state in the cache: the recurrent rule).
HfDeltaNet hfDeltaNetForward(const Plan& p, double sequences, double tokens, bool cached);
/// Bytes one Gated DeltaNet layer's cache holds per sequence under HF
/// (Qwen3NextDynamicCache / LinearAttentionLayer): the conv state padded to the
/// whole kernel (F.pad(mixed_qkv, (kernel - L, 0))) in 16-bit, and the
/// recurrent state as the gated delta rule returns it, in fp32. 0 when the
/// model has no such layer or the runtime is not HF eager.
double hfDeltaNetStateBytes(const Plan& p);
/// Sliding-window and chunked layers under HF's SDPA path once the sequence
/// reaches the window: an explicit bool mask, and a masked kernel that computes
/// the whole s x s product. `flops`: what that kernel computes (forward, this
/// GPU's share); `replaced`: the windowed FLOPs attentionFlops counted for the
/// same layers; `maskBytes`: the largest mask tensor (batch x s x s x 1 B).
struct MaskedAttention {
    int layers = 0;
    double flops = 0;
    double replaced = 0;
    double maskBytes = 0;
};
MaskedAttention hfMaskedAttention(const Plan& p, double sequences, double s);
/// Attention-sink models (gpt-oss) under HF: its eager_attention_forward
/// materializes each layer's scores (batch x heads x s x s). Element accesses
/// per score, in 16-bit: the QK^T product written (1), the scaling (2), the
/// mask add (2), the cat with the sink column (2), the row max (1), the
/// subtraction (2), the softmax (2), the contiguous copy of the sliced
/// probabilities for the PV product (2) and its read (1) = 15. Live at the
/// peak: the masked scores, the max-subtracted logits and the probabilities.
constexpr double kHfEagerScoreAccesses = 15;
constexpr double kHfEagerScoreTensorsLive = 3;
struct EagerScores {
    double elements = 0;  // score elements of one forward, all layers of this stage
    double flops = 0;     // QK^T and PV over the whole square
    double bytes = 0;     // elementwise traffic over the scores
    double peakBytes = 0; // one layer's score tensors alive at once
};
EagerScores hfEagerScores(const Plan& p, double sequences, double s);
/// Elements per token normalized beyond a Llama layer's two RMSNorms: Gemma's
/// sandwich norms (normsPerLayer - 2 of hidden width) and the q/k norms of
/// Qwen3 / Gemma 3 (per head) and OLMo 2 (all features), whole layer.
double extraNormWidth(const Plan& p);
/// Launches of one HF RMSNorm forward (fp32 cast, pow, mean, add eps, rsqrt,
/// product, cast back, weight product: modeling_llama / modeling_olmo2).
constexpr double kHfRmsNormKernels = 8;

struct GemmWork {
    double flops = 0;
    double seconds = 0;
};
/// Forward GEMMs of all layers for `tokens` tokens, plus the LM head over
/// `headTokens` tokens. Each linear is timed at its own shape.
GemmWork forwardGemms(const Plan& p, double tokens, double headTokens, DType t);
/// Attention score FLOPs (QK^T and AV) per forward for `sequences` of length s.
double attentionFlops(const Plan& p, double sequences, double s);
/// Model FLOPs of one training micro-batch for the whole model (MFU's numerator).
double modelTrainFlops(const Plan& p, double bwdFactor, double adapterFlops);
/// NF4 storage per weight: 4 bits plus the double-quantized absmax (memorymodel).
constexpr double kNf4BytesPerParam = 0.516;
/// Base-model linear weights one GPU holds (what QLoRA stores in NF4).
double qloraBaseParams(const Plan& p);
/// Intra-node link bandwidth per GPU per direction (bytes/s) for `groupSize` GPUs.
double intraNodeBandwidth(const Plan& p, int groupSize);
/// hardware.network_gbps in bytes/s (one NIC per GPU).
double networkBandwidth(const Plan& p);
/// Seconds to reduce-scatter (or all-gather) `bytes` held by each of `n` GPUs.
double scatterSeconds(const Plan& p, double bytes, int n);
double allReduceSeconds(const Plan& p, double bytes, int n);
double decodeAllReduceSeconds(const Plan& p, double bytes, int n);
/// Fixed cost of one small all-reduce inside a node.
double allReduceLatency(const Plan& p, int n);
/// Seconds to send `bytes` of activations from one pipeline stage to the next.
double stageSendSeconds(const Plan& p, double bytes);

/// One training micro-batch of a vision model: seconds, useful FLOPs, and the
/// peak MFU is taken against (the rate the convolutions run at).
struct VisionStep {
    double seconds = 0;
    double modelFlops = 0;
    double mfuPeak = 0;
};
VisionStep visionTrainingStep(Plan& p, double tKernel);
/// Fills latency and images/s of a vision model's inference.
void visionInference(Plan& p, InferenceResult& r);

} // namespace gp::detail
