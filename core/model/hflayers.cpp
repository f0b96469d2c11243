// config.json reader: the keys Llama-style decoders share, per-layer attention
// kinds (full, sliding, chunked, linear) and the recurrent mixers (Gated
// DeltaNet, Mamba-2) with their state per sequence.
#include "core/model/hfread.h"

#include <algorithm>
#include <string>
#include <vector>

namespace gp::detail::hf {

/// The keys Llama-style decoders share.
void readLlamaLike(Keys& k, ModelArch& m, const Defaults& d)
{
    auto req = [&](const std::string& key, std::optional<std::int64_t> fb, std::int64_t lo, std::int64_t hi) {
        if (!fb || k.has(key))
            return k.integer(key, lo, hi);
        k.used.insert(key);
        m.readNotes.push_back(key + " absent: the configuration class's default " + std::to_string(*fb));
        return *fb;
    };
    m.layers = toInt(req("num_hidden_layers", d.layers, 1, kMaxLayers));
    m.hidden = toInt(req("hidden_size", d.hidden, 1, kMaxHidden));
    m.heads = toInt(req("num_attention_heads", d.heads, 1, kMaxHeads));
    m.kvHeads = toInt(k.has("num_key_value_heads") ? k.integer("num_key_value_heads", 1, kMaxHeads)
                                                   : req("num_key_value_heads", d.kvHeads ? d.kvHeads : m.heads, 1,
                                                         kMaxHeads));
    if (k.has("head_dim"))
        m.headDim = toInt(k.integer("head_dim", 1, kMaxHeadDim));
    else if (d.headDim)
        m.headDim = toInt(req("head_dim", d.headDim, 1, kMaxHeadDim));
    else
        m.headDim = defaultHeadDim(k.r, "head_dim", m.hidden, m.heads, "hidden_size", "num_attention_heads");
    k.used.insert("head_dim");
    m.ffnHidden = req("intermediate_size", d.ffn, 1, kMaxFfnHidden);
    m.vocab = req("vocab_size", d.vocab, 1, kMaxVocab);
    m.tiedEmbeddings = k.booleanOr("tie_word_embeddings", d.tied);
    m.maxPositions = k.integerOr("max_position_embeddings", d.maxPositions.value_or(0), 0, kMaxPositions);
    m.family = ModelFamily::Decoder;
    m.ffn = FfnKind::SwiGLU; // gated FFN whatever hidden_act says
    m.positional = Positional::Rope;
    m.biases = false;
}

/// An integer key with its configuration class's default when absent (said in readNotes).
std::int64_t classDefault(Keys& k, ModelArch& m, const std::string& key, std::int64_t fallback, std::int64_t lo,
                          std::int64_t hi)
{
    if (!k.has(key)) {
        k.used.insert(key);
        m.readNotes.push_back(key + " absent: the configuration class's default " + std::to_string(fallback));
        return fallback;
    }
    return k.integer(key, lo, hi);
}

/// sliding_window as a window over every layer (Mistral v0.1, Phi-3): none when
/// null or at least the context (Phi-4's 16384 = max_position_embeddings).
void readUniformWindow(Keys& k, ModelArch& m)
{
    if (!k.has("sliding_window")) {
        k.used.insert("sliding_window");
        return;
    }
    if (k.has("use_sliding_window") && !k.booleanOr("use_sliding_window", false)) {
        k.used.insert("sliding_window");
        return; // Qwen2/3 write a window and switch it off
    }
    const auto w = k.integer("sliding_window", 1, kMaxPositions);
    if (m.maxPositions > 0 && w >= m.maxPositions) {
        m.readNotes.push_back("sliding_window " + std::to_string(w) + " >= max_position_embeddings: read as full attention");
        return;
    }
    m.slidingWindow = toInt(w);
    m.slidingLayers = m.attentionLayers();
}

/// Qwen2/Qwen3 (and their MoE) windows: use_sliding_window defaults to false; when
/// on, layers from max_window_layers (default 28) on slide over sliding_window
/// (default 4096), as Qwen2Config/Qwen3Config build layer_types. layer_types, when
/// written (transformers >= 4.53), is read as is.
void readQwenWindow(Keys& k, ModelArch& m)
{
    k.used.insert("max_window_layers");
    k.used.insert("use_sliding_window");
    std::vector<std::string> types;
    if (readLayerTypes(k, m, types)) {
        applyLayerTypes(k, m, types);
        readWindow(k, m, 4096);
        return;
    }
    if (!k.booleanOr("use_sliding_window", false)) {
        k.used.insert("sliding_window");
        return;
    }
    const auto from = k.integerOr("max_window_layers", 28, 0, kMaxLayers);
    m.slidingLayers = toInt(std::max<std::int64_t>(0, m.layers - from));
    readWindow(k, m, 4096);
}

/// Per-layer kinds from layer_types (transformers >= 4.53): "full_attention",
/// "sliding_attention", "chunked_attention", "linear_attention", "mamba", "attention".
bool readLayerTypes(Keys& k, ModelArch& m, std::vector<std::string>& types)
{
    const json* lt = k.get("layer_types");
    if (!lt)
        return false;
    if (!lt->is_array() || lt->size() != std::size_t(m.layers)) {
        k.fail("layer_types", "must be a list of num_hidden_layers (" + std::to_string(m.layers) + ") layer kinds");
        return false;
    }
    for (std::size_t i = 0; i < lt->size(); ++i) {
        const json& t = (*lt)[i];
        if (!t.is_string()) {
            k.fail("layer_types", "entry " + std::to_string(i) + " must be a string");
            return false;
        }
        types.push_back(t.get<std::string>());
    }
    return true;
}

/// Counts sliding/chunked/linear layers from a kinds list; unknown kinds fail.
void applyLayerTypes(Keys& k, ModelArch& m, const std::vector<std::string>& types)
{
    int sliding = 0, chunked = 0, linear = 0;
    for (const auto& t : types) {
        if (t == "sliding_attention")
            ++sliding;
        else if (t == "chunked_attention")
            ++chunked;
        else if (t == "linear_attention" || t == "mamba")
            ++linear;
        else if (t != "full_attention" && t != "attention") {
            k.fail("layer_types", "unknown layer kind \"" + t + "\" (known: full_attention, sliding_attention, "
                                  "chunked_attention, linear_attention, mamba, attention)");
            return;
        }
    }
    m.slidingLayers = sliding;
    m.chunkedLayers = chunked;
    m.linearLayers = linear;
}

/// The sliding window for layers typed "sliding_attention".
void readWindow(Keys& k, ModelArch& m, std::int64_t fallback)
{
    if (m.slidingLayers == 0) {
        k.used.insert("sliding_window");
        return;
    }
    if (k.has("sliding_window")) {
        m.slidingWindow = toInt(k.integer("sliding_window", 1, kMaxPositions));
    } else {
        k.used.insert("sliding_window");
        m.slidingWindow = toInt(fallback);
        m.readNotes.push_back("sliding_window absent: the configuration class's default " + std::to_string(fallback));
    }
}

/// A Gated DeltaNet layer (Qwen3-Next, transformers modeling_qwen3_next.py):
/// in_proj_qkvz, in_proj_ba, a depthwise conv over q/k/v, dt_bias, A_log,
/// a gated RMSNorm over the value head and out_proj. Its state per sequence:
/// the conv window (kernel - 1 positions of the conv channels) and one
/// key x value matrix per value head.
void gatedDeltaNet(Keys& k, ModelArch& m)
{
    // Qwen3NextConfig's defaults (transformers 008e5743) when a key is absent.
    const double kHeads = double(classDefault(k, m, "linear_num_key_heads", 16, 1, kMaxHeads));
    const double vHeads = double(classDefault(k, m, "linear_num_value_heads", 32, 1, kMaxHeads));
    const double kDim = double(classDefault(k, m, "linear_key_head_dim", 128, 1, kMaxHeadDim));
    const double vDim = double(classDefault(k, m, "linear_value_head_dim", 128, 1, kMaxHeadDim));
    const double kernel = double(classDefault(k, m, "linear_conv_kernel_dim", 4, 1, 1024));
    const double h = m.hidden;
    const double keyDim = kHeads * kDim;
    const double valueDim = vHeads * vDim;
    const double convDim = 2 * keyDim + valueDim;
    m.linearLayerParams = h * (2 * keyDim + 2 * valueDim) + h * 2 * vHeads + convDim * kernel + 2 * vHeads + vDim
                        + valueDim * h;
    m.linearStateBytes = 2.0 * (convDim * (kernel - 1) + vHeads * kDim * vDim);
    m.linearKind = "Gated DeltaNet";
    m.deltaNet = {int(kHeads), int(vHeads), int(kDim), int(vDim), int(kernel)};
}

/// A Mamba-2 mixer (transformers modeling_nemotron_h / granitemoehybrid):
/// in_proj to z, x, B, C and dt; a depthwise conv over x, B, C; dt_bias, A_log,
/// D; a gated RMSNorm; out_proj. State per sequence: the conv window and
/// heads x head_dim x d_state.
void mamba2(ModelArch& m, double heads, double headDim, double dState, double groups, double kernel, bool convBias,
            bool projBias, double ssmBytes)
{
    const double h = m.hidden;
    const double inner = heads * headDim;
    const double convDim = inner + 2 * groups * dState;
    const double inOut = 2 * inner + 2 * groups * dState + heads;
    m.linearLayerParams = h * inOut + (projBias ? inOut : 0) + convDim * kernel + (convBias ? convDim : 0) + 3 * heads
                        + inner + inner * h + (projBias ? h : 0);
    m.linearStateBytes = 2.0 * convDim * (kernel - 1) + ssmBytes * heads * headDim * dState;
    m.linearKind = "Mamba-2";
    m.mamba2Shape = {int(heads), int(headDim), int(dState), int(groups), int(kernel)};
}

} // namespace gp::detail::hf
