// Memory model: every term of the per-GPU peak, as nvidia-smi would show it.
//
// Training activations are counted bottom-up from the tensors autograd saves in
// a Hugging Face / PyTorch eager layer (see activationBytesPerTokenLayer), not
// from the textbook 34·s·b·h: under AMP the residual stream and norms stay fp32
// and each linear saves its own bf16 cast of its input, which the textbook
// (pure fp16) formula misses. The result was checked against the H100 runs in
// tests/data/calibration (TinyLlama: 54.5 bytes/(token·hidden) counted vs
// ~53 measured per layer).
//
// This file: training (activations saved for backward, the model states under
// ZeRO, pipeline stages); inference is in inferencememory.cpp.
#include "core/estimate/sizing.h"

#include "core/base/units.h"

#include <algorithm>
#include <cmath>

namespace gp::detail {

namespace {

using units::kMiB;

// The fitted constants (context sizes, framework buffers, allocator reserve,
// activation factors) are in resources/calibration/builtin-calibration.json,
// read through Plan::cal. Those below are counts of tensors, not fits.

// Bytes per (token x vocab) of the logits and loss at the start of backward in HF
// eager: bf16 logits kept in the output (2) + fp32 log-softmax saved (4) + its
// gradient (4) + the gradient of the logits (4). Fused/chunked cross-entropy
// (torch.compile, torchtitan, Liger) keeps ~ the bf16 logits and one fp32 grad.
constexpr double kLogitBytesEager = 14;
constexpr double kLogitBytesOptimized = 6;
// training.chunked_loss (torchtune's CEWithChunkedOutputLoss, 8 chunks): the
// logits are never upcast whole, only one chunk at a time (4 / 8 B per element
// in flight). Eager, each chunk's fp32 log-softmax stays saved for backward (4)
// beside the 16-bit logits of every chunk (2); the recipe deletes the logits
// before backward, leaving the saved 4. Compiled (torchtune compiles the loss),
// the fused cross-entropy saves its 16-bit input and a log-sum-exp per token
// and recomputes the softmax in backward: 2 B kept.
constexpr double kLossChunks = 8;
constexpr double kLogitBytesChunkedEager = 2 + 4 + 4 / kLossChunks;
constexpr double kLogitBytesChunkedCompiled = 2 + 4 / kLossChunks;
// QLoRA's NF4 base weight: 4 bits + the double-quantized absmax, an int8 per
// block of 64 weights and an fp32 scale per 256 blocks (bitsandbytes
// bnb_4bit_use_double_quant; torchao's NF4Tensor: block_size 64,
// scaler_block_size 256): 0.5 + 1/64 + 4/16384 = 0.515869 B.
constexpr double kNf4Bytes = 0.5 + 1.0 / 64 + 4.0 / (64 * 256);

bool isLoraLike(const Plan& p)
{
    return p.s->training.method != TrainMethod::Full;
}

/// training.lora_targets names the module (LoraModule bits, read once by makePlan).
bool targeted(const Plan& p, LoraModule module) { return (p.loraModules & module) != 0; }

} // namespace

/// CUDA context + runtime modules (a fixed per-process reservation).
double contextBytes(const Plan& p)
{
    if (p.nvidia)
        return p.cal->contextCudaMib * kMiB;
    if (p.amd)
        return p.cal->contextRocmMib * kMiB;
    return p.cal->contextOtherMib * kMiB;
}

double activationBytesPerTokenLayer(const Plan& p)
{
    const ModelArch& m = *p.m;
    const double h = m.hidden;
    const double hq = double(m.heads) * m.headDim;
    const double hkv = m.mlaKvLoraRank > 0 ? hq : double(m.kvHeads) * m.headDim;
    double f = double(m.ffnHidden);
    double ffnCopies = 1; // expert FFNs a token passes through
    if (m.moe.enabled()) {
        f = double(m.moe.expertFfnHidden);
        ffnCopies = m.moe.active + m.moe.shared;
    }
    const double a = p.actBytes;
    const double r = p.residualBytes;
    const bool amp = p.autocast;
    const bool lora = isLoraLike(p);
    const bool swiglu = m.ffn == FfnKind::SwiGLU;

    // Norms: the input (residual) and the normalized output are saved; AMP keeps
    // both in fp32, pure 16-bit keeps an fp32 copy of the input inside RMSNorm.
    const double normBytes = amp || a >= 4 ? 2 * r * h : 4 * h + 2 * h;
    // Linear inputs: each linear under autocast saves its own 16-bit cast; without
    // autocast the norm output itself is saved once for all consumers. Frozen
    // (LoRA) linears save nothing; their adapters save an fp32 copy (peft keeps
    // adapters in fp32 and casts the input).
    auto linearInputs = [&](std::initializer_list<LoraModule> modules, double in) {
        double bytes = 0;
        bool shared = false;
        for (const LoraModule mod : modules) {
            if (lora) {
                if (targeted(p, mod))
                    bytes += 4 * in;
            } else if (amp) {
                bytes += a * in;
            } else {
                shared = true;
            }
        }
        return bytes + (shared ? a * in : 0);
    };

    double attn = normBytes + linearInputs({kLoraQ, kLoraK, kLoraV}, h);
    // q, k after RoPE, v, the attention output (saved by SDPA) and its contiguous
    // copy (the o_proj input).
    attn += a * (2 * hq + 2 * hkv);
    // o_proj input (the contiguous attention output, already 16-bit): saved for
    // its weight grad, or as an fp32 copy by a LoRA adapter on o_proj.
    attn += lora ? (targeted(p, kLoraO) ? 4 * hq : 0) : a * hq;
    double mlp = normBytes;
    if (swiglu) {
        mlp += linearInputs({kLoraGate, kLoraUp}, h);
        // gate (saved by SiLU), SiLU output and up (saved by the product),
        // product (down_proj input, only needed for down_proj's weight grad).
        mlp += ffnCopies * a * f * 3;
        mlp += ffnCopies * (lora ? (targeted(p, kLoraDown) ? 4 * f : 0) : a * f);
    } else {
        mlp += linearInputs({kLoraUp}, h);
        // fc output; GPT-2's tanh GELU is a Python composition that saves three
        // more intermediates; BERT's erf GELU is one kernel.
        const bool gpt2Style = m.family == ModelFamily::Decoder && m.positional == Positional::Learned;
        const double geluSaved = gpt2Style ? 4 : 1;
        mlp += ffnCopies * a * f * geluSaved;
        mlp += ffnCopies * (lora ? (targeted(p, kLoraDown) ? 4 * f : 0) : a * f);
    }
    if (m.biases)
        mlp += 2 * h; // dropout masks (1 byte each) after attention and MLP
    if (m.biases && m.family == ModelFamily::Decoder && amp)
        mlp += p.cal->activationGpt2Extra * h; // measured on HF GPT-2 beyond the tensors counted above (80 vs 72 B x h)
    if (m.moe.enabled())
        mlp += ffnCopies * (r + 2 * a) * h; // gathered token copies and cast inputs per routed expert
    double total = attn + mlp;
    if (p.optimized)
        total *= p.cal->activationOptimizedFactor; // Inductor's min-cut recomputes elementwise ops
    return total;
}

namespace {

double logitBytesPerElement(const Plan& p)
{
    if (p.training && p.s->training.chunkedLoss)
        return p.optimized ? kLogitBytesChunkedCompiled : kLogitBytesChunkedEager;
    if (p.optimized)
        return kLogitBytesOptimized;
    return p.actBytes >= 4 ? 16 : kLogitBytesEager;
}

} // namespace

double trainableParams(const Plan& p)
{
    const ModelArch& m = *p.m;
    if (!m.isLanguageModel() || p.s->training.method == TrainMethod::Full)
        return m.isLanguageModel() ? p.loadedParams : m.vision.params;
    const int r = p.s->training.loraRank;
    double n = 0;
    for (const auto& lin : p.linears)
        if (lin.targeted)
            n += double(r) * double(lin.in + lin.out) * (m.moe.enabled() && lin.perLayer > 1 ? m.moe.experts + m.moe.shared : 1);
    return n * m.layers;
}

namespace {

enum class Stage { Only, First, Last };

/// Memory of one pipeline stage of a transformer (the whole model when pp = 1).
MemoryBreakdown lmStageMemory(Plan& p, Stage stage)
{
    const Scenario& s = *p.s;
    const ModelArch& m = *p.m;
    const auto& t = s.training;
    MemoryBreakdown mem;
    const bool lora = t.method != TrainMethod::Full;
    const double n = p.loadedParams; // the MTP layers of a checkpoint are not loaded
    const double headParams = double(m.vocab) * m.hidden;
    const double embParams = p.embeddingParams;
    const double layerParams = (n - embParams - (m.tiedEmbeddings ? 0 : headParams)) / std::max(1, m.layers);
    const int layers = (m.layers + p.pp - 1) / p.pp;
    const double layerShare = double(layers) / std::max(1, m.layers);
    double stageParams = layers * layerParams;
    if (stage != Stage::Last)
        stageParams += embParams;
    if (stage == Stage::Last || (stage == Stage::Only && !m.tiedEmbeddings))
        stageParams += headParams; // a pipeline's last stage keeps its own copy of a tied head
    const int inFlight = stage == Stage::First ? std::min(p.pp, t.gradAccum) : 1;
    const bool hasLogits = stage != Stage::First;
    const double trainable = trainableParams(p) * (lora ? layerShare : stageParams / n);
    const int tp = p.tp;
    const StateBytes sb = stateBytesPerParam(p);
    const double d = p.shard;
    const bool fsdp = p.zero >= 3 && d > 1; // parameters (frozen ones included) sharded and gathered per unit
    // The all-gather unit: one transformer block (FSDP wraps each block; DeepSpeed
    // gathers module by module, up to its prefetch bucket).
    const double unitParams = layerParams / tp;

    // Weights
    double gathered = 0;
    if (lora) {
        // Frozen base in bf16 (or 4-bit NF4 for QLoRA: kNf4Bytes per weight with the
        // double-quantized absmax, embeddings and head kept in bf16). FSDP shards it
        // like any parameter and all-gathers the current and the prefetched block.
        const bool nf4 = t.method == TrainMethod::Qlora;
        const double baseBytes = p.weightBytes >= 4 && !p.autocast ? 4 : 2;
        const double base = nf4 ? layers * layerParams * kNf4Bytes + (stageParams - layers * layerParams) * 2
                                : stageParams * baseBytes;
        if (fsdp)
            gathered = 2 * unitParams * (nf4 ? kNf4Bytes : baseBytes);
        mem.weights = base / tp / (fsdp ? d : 1) + gathered + trainable * 4 / (fsdp ? d : 1);
        p.term("memory.weights", "Weights (frozen base + adapters)", units::bytesToGiB(mem.weights), "GiB", [&] {
            std::string f = nf4 ? fmt(kNf4Bytes, 4) + " B x base linears (NF4 + absmax) + bf16 embeddings"
                                : fmt(baseBytes) + " B x " + fmt(stageParams / 1e9) + "B base";
            if (tp > 1 || fsdp)
                f += " / " + fmt(tp * (fsdp ? d : 1)) + (fsdp ? " (tp x ZeRO-3 shard)" : " (tp)");
            f += " + 4 B x " + fmt(trainable / 1e6) + "M fp32 adapters";
            if (gathered > 0)
                f += " + 2 all-gathered blocks (" + fmtGiB(gathered) + ")";
            return f;
        });
        if (nf4) {
            std::int64_t biggest = 0;
            for (const auto& lin : p.linears)
                biggest = std::max(biggest, lin.in * lin.out);
            mem.activations += double(biggest) * 2 / tp; // one dequantized bf16 weight at a time
        }
    } else {
        mem.weights = stageParams * sb.weights / tp;
        double copies = 0;
        if (p.autocast && t.checkpointing == Checkpointing::None && p.zero == 0) {
            // autocast's 16-bit copies of every matmul weight stay saved for backward
            // (under ZeRO the model itself runs in 16-bit: no copies)
            copies = m.matmulParamsPerToken() * layerShare * (p.compute == DType::FP8 ? 1 : 2) / tp;
            mem.weights += copies;
        }
        if (fsdp) {
            // In backward FSDP holds the current block's unsharded 16-bit parameters and
            // gradients (before the reduce-scatter) and the prefetched next block.
            gathered = 3 * unitParams * sb.gathered;
            mem.weights += gathered;
        }
        p.term("memory.weights", "Weights", units::bytesToGiB(mem.weights), "GiB", [&] {
            std::string f = fmt(sb.weights, 4) + " B x " + fmt(stageParams / 1e9) + "B params";
            if (p.zero >= 1 && p.autocast)
                f += p.zero >= 3 ? " (the fp32 shard is the master copy)" : " (16-bit model; fp32 master with the optimizer)";
            if (tp > 1)
                f += " / tp " + std::to_string(tp);
            if (copies > 0)
                f += " + 16-bit autocast copies of the matmul weights (" + fmtGiB(copies) + ")";
            if (gathered > 0)
                f += " + unsharded blocks in flight: current params and grads, prefetched params (" + fmtGiB(gathered) + ")";
            return f;
        });
    }
    if (gathered > 0)
        p.term("memory.weights.gathered", "ZeRO-3 all-gathered units", units::bytesToGiB(gathered), "GiB", [&] {
            return fmt(lora ? 2 : 3) + " x " + fmt(unitParams / 1e6) + "M params (one block" +
                   (tp > 1 ? " / tp" : "") + ") x " + fmt(lora ? (t.method == TrainMethod::Qlora ? kNf4Bytes : 2.0) : sb.gathered) + " B";
        });
    // Optimizer states (mixed precision under ZeRO: with the fp32 master weights)
    double opt = 0;
    if (lora) {
        const double stateElems = t.optimizer == Optimizer::AdamW ? 2 : t.optimizer == Optimizer::SGDMomentum ? 1 : 0;
        opt = t.optimizer == Optimizer::AdamW8bit ? trainable * 2.0 * 1.016 : trainable * stateElems * 4;
        if (p.zero >= 1)
            opt /= d;
    } else {
        opt = trainable * sb.optimizer / tp;
    }
    mem.optimizer = opt;
    p.term("memory.optimizer", "Optimizer states", units::bytesToGiB(opt), "GiB", [&] {
        std::string f = std::string(toString(t.optimizer)) + ": ";
        if (lora)
            f += (t.optimizer == Optimizer::AdamW8bit ? std::string("2 x 1 B") : "fp32 states") + " x " +
                 fmt(trainable / 1e6) + "M adapter params";
        else
            f += fmt(sb.optimizer, 4) + " B x " + fmt(trainable / 1e9) + "B params" +
                 (p.zero >= 1 && p.autocast && p.zero < 3 ? " (fp32 master + states, sharded)" : "");
        if (p.zero >= 1 && d > 1)
            f += " over " + fmt(d) + " GPUs (ZeRO-" + std::to_string(p.zero) + (d < p.dp ? ", HSDP group" : "") + ")";
        return f;
    });
    // Gradients (full size; see the peak below)
    const double gradBytes = lora ? 4 : p.gradBytes;
    double grads = 0;
    if (lora) {
        grads = trainable * 4;
        if (p.zero >= 2)
            grads /= d;
    } else {
        grads = trainable * sb.gradients / tp;
    }
    if (t.optimizerInBackward) {
        // torchtune optimizer_in_backward: a hook steps each parameter as its
        // gradient is ready and frees it, so at most one parameter's gradient
        // (the largest trainable tensor) is alive, never the full buffer.
        double largest = 0;
        if (lora) {
            for (const auto& lin : p.linears)
                if (lin.targeted)
                    largest = std::max(largest, double(p.s->training.loraRank) * double(std::max(lin.in, lin.out)));
        } else {
            for (const auto& lin : p.linears)
                largest = std::max(largest, double(lin.in) * double(lin.out) / tp);
            if (hasLogits || stage == Stage::First)
                largest = std::max(largest, headParams / tp);
        }
        grads = std::min(grads, largest * gradBytes);
    }
    // DDP (no ZeRO) keeps flat all-reduce buckets the size of the gradients.
    const double buckets =
        (p.dp > 1 && p.zero == 0 && !t.optimizerInBackward) ? trainable * std::min(gradBytes, 4.0) / (lora ? 1 : tp) : 0;

    // Activations for one micro-batch
    const double tokens = double(t.microBatch) * t.seqLen;
    const double perLayer = activationBytesPerTokenLayer(p) / tp;
    const double layerInput = p.residualBytes * m.hidden / tp;
    double act = 0;
    switch (t.checkpointing) {
    case Checkpointing::None: act = perLayer * layers * tokens; break;
    case Checkpointing::Selective: act = p.cal->activationSelectiveFactor * perLayer * layers * tokens; break;
    case Checkpointing::Full: act = layerInput * layers * tokens; break;
    }
    // Embedding output, final norm and head input outside the layers.
    act += tokens * m.hidden * (p.residualBytes * 3 + p.actBytes) / tp;
    act *= inFlight;
    double logits = 0;
    if (hasLogits) {
        logits = tokens * double(m.vocab) * logitBytesPerElement(p) / tp;
        if (t.checkpointing == Checkpointing::Full) {
            // The first layer is recomputed after the loss backward has freed all
            // but the 16-bit logits: the peak is whichever moment is larger.
            const double recomputeMoment =
                perLayer * tokens + tokens * double(m.vocab) * (t.chunkedLoss && !p.optimized ? 4 : 2) / tp;
            logits = std::max(logits, recomputeMoment);
        }
    } else if (t.checkpointing == Checkpointing::Full) {
        act += perLayer * tokens; // one layer recomputed during backward
    }
    p.term("memory.activations.layers", "Activations saved for backward", units::bytesToGiB(act), "GiB", [&] {
        std::string f;
        switch (t.checkpointing) {
        case Checkpointing::None:
            f = fmt(perLayer * tp / m.hidden, 3) + " B x h x L x tokens = " + fmt(perLayer * tp / m.hidden, 3) + " x " +
                std::to_string(m.hidden) + " x " + std::to_string(layers) + " x " + fmt(tokens);
            break;
        case Checkpointing::Selective:
            f = "selective: " + fmt(p.cal->activationSelectiveFactor) + " x " + fmt(perLayer * tp / m.hidden, 3) + " B x h x L x tokens";
            break;
        case Checkpointing::Full:
            f = "full: layer inputs " + fmt(p.residualBytes) + " B x h x L x tokens (+ one layer recomputed, " +
                fmt(perLayer * tp / m.hidden, 3) + " B x h x tokens, once the loss buffers are freed)";
            break;
        }
        if (tp > 1)
            f += " / tp " + std::to_string(tp) + " (sequence parallel)";
        if (inFlight > 1)
            f += " x " + std::to_string(inFlight) + " micro-batches in flight";
        return f;
    });
    if (hasLogits)
        p.term("memory.activations.logits", "Logits and loss buffers", units::bytesToGiB(logits), "GiB", [&] {
            return fmt(logitBytesPerElement(p)) + " B x tokens x vocab = " + fmt(logitBytesPerElement(p)) + " x " +
                   fmt(tokens) + " x " + std::to_string(m.vocab);
        });
    mem.activations += act + logits;

    // Peak: gradients are allocated as backward frees activations (grads are
    // set to None between steps), so the peak is the larger of the start of
    // backward (all activations + logits buffers, head grads) and the end of
    // backward (all gradients).
    const double headGrad = lora || !hasLogits ? 0 : headParams * sb.gradients / tp;
    const double atStart = mem.activations + headGrad;
    const double atEnd = grads + tokens * m.hidden * 4 / tp;
    p.term("memory.gradients.full", "Gradients (all, end of backward)", units::bytesToGiB(grads), "GiB", [&] {
        if (t.optimizerInBackward)
            return "optimizer in backward: each gradient is applied and freed as soon as it is computed; the largest "
                   "one alive is " + fmtGiB(grads);
        return fmt(lora ? 4.0 : sb.gradients, 4) + " B x " + fmt(trainable / 1e6) + "M trainable params" +
               (p.zero >= 1 && p.autocast && !lora
                    ? (p.zero >= 3 ? " (fp32 gradient shard)" : " (16-bit grads + the fp32 partition the optimizer steps on)")
                    : "") +
               (p.zero >= 2 && d > 1 ? ", sharded (ZeRO-2+)" : "");
    });
    if (atStart >= atEnd) {
        mem.gradients = headGrad;
        if (p.explain)
            p.notes.push_back("Peak at the start of backward: activations (" + fmtGiB(mem.activations) +
                              ") outweigh the gradients (" + fmtGiB(grads) +
                              "), which are allocated as activations are freed.");
    } else {
        mem.gradients = grads;
        mem.activations = tokens * m.hidden * 4 / tp;
    }
    if (buckets > 0) {
        mem.gradients += buckets;
        p.term("memory.gradients.buckets", "DDP gradient buckets", units::bytesToGiB(buckets), "GiB",
               [&] { return std::string("data parallel without ZeRO keeps flat all-reduce buckets the size of the gradients"); });
    }
    return mem;
}

} // namespace

MemoryBreakdown trainingMemory(Plan& p)
{
    const Scenario& s = *p.s;
    const ModelArch& m = *p.m;
    const auto& t = s.training;
    MemoryBreakdown mem;
    const double shard = double(p.tp) * p.pp; // model-parallel split of weights and states

    if (!m.isLanguageModel()) {
        const double n = m.vision.params;
        mem.weights = n * p.weightBytes / shard;
        mem.gradients = n * p.gradBytes / shard;
        const double states = t.optimizer == Optimizer::AdamW ? 2 : t.optimizer == Optimizer::AdamW8bit ? 0.5
                              : t.optimizer == Optimizer::SGDMomentum ? 1 : 0;
        mem.optimizer = n * states * p.stateBytes / shard;
        if (p.autocast)
            mem.weights += n * 2; // 16-bit working copies cached by autocast
        const double scale = std::pow(double(t.imageSize) / m.vision.nativeImageSize, 2);
        const double perImage = m.vision.trainActivationBytesPerImage * scale * (p.actBytes / 2);
        double act = perImage * t.microBatch;
        if (t.checkpointing == Checkpointing::Full)
            act *= p.cal->visionCheckpointFullFactor;
        else if (t.checkpointing == Checkpointing::Selective)
            act *= p.cal->activationSelectiveFactor;
        // Gradients are allocated as backward frees the activations (grads set
        // to None between steps): the peak holds the larger of the two. At the
        // end of backward only the fp32 input batch is still alive.
        if (mem.gradients > act)
            act = double(t.microBatch) * 3 * t.imageSize * t.imageSize * 4;
        else
            mem.gradients = 0;
        mem.activations = act;
        p.term("memory.activations", "Activations", units::bytesToGiB(act), "GiB",
               [&] { return std::string(fmt(perImage / 1e6) + " MB per image (calibrated at " + std::to_string(m.vision.nativeImageSize) +
                   " px, scaled by area) x batch " + std::to_string(t.microBatch)); });
    } else if (p.pp == 1) {
        mem = lmStageMemory(p, Stage::Only);
    } else {
        // Pipeline stages: the first holds the embedding and up to pp micro-batches
        // in flight (1F1B), the last holds the head and the logits; report the worse.
        Plan probe = p;
        probe.explain = false;
        const double first = lmStageMemory(probe, Stage::First).total();
        const double last = lmStageMemory(probe, Stage::Last).total();
        const Stage worst = first >= last ? Stage::First : Stage::Last;
        mem = lmStageMemory(p, worst);
        if (p.explain)
            p.notes.push_back(std::string("Pipeline parallel: per-GPU memory is the ") +
                              (worst == Stage::First ? "first stage's (embedding + " : "last stage's (LM head + logits, ") +
                              std::to_string(worst == Stage::First ? std::min(p.pp, t.gradAccum) : 1) +
                              " micro-batch(es) in flight), the worse of the two.");
    }

    // Runtime overhead
    const double allocated = mem.weights + mem.gradients + mem.optimizer + mem.activations;
    const Calibration& c = *p.cal;
    const double buffers = (p.optimized ? c.buffersTrainOptimizedMib : c.buffersTrainEagerMib) * kMiB;
    const double slack = c.allocatorSlack * allocated +
                         (s.training.checkpointing == Checkpointing::Full ? c.allocatorSlackCheckpoint * mem.activations : 0);
    mem.overhead = contextBytes(p) + buffers + slack;
    p.term("memory.overhead", "Runtime overhead", units::bytesToGiB(mem.overhead), "GiB",
           [&] { return std::string("CUDA context " + fmt(contextBytes(p) / kMiB) + " MiB + framework workspaces " + fmt(buffers / kMiB) +
               " MiB + allocator cache " + fmt(c.allocatorSlack * 100) + "% of allocated" +
               (s.training.checkpointing == Checkpointing::Full
                    ? " (+" + fmt(c.allocatorSlackCheckpoint * 100) + "% of activations: recompute churn)"
                    : std::string())); });
    return mem;
}

} // namespace gp::detail
