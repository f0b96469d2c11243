#include "core/model/hfconfig.h"

#include "core/base/errors.h"
#include "core/base/jsonread.h"
#include "core/model/modelcheck.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <set>
#include <utility>

namespace gp {

namespace {

using json = nlohmann::json;
using namespace detail;

// ---------------------------------------------------------------------------
// Hugging Face config.json layouts. Each model_type's keys and defaults follow
// its configuration_*.py in transformers (v4.56) and its modeling code for the
// parameter shapes.

enum class HfLayout {
    Llama, Llama4, Mistral, Mistral3, Mixtral, Qwen2, Qwen2Moe, Qwen3, Qwen3Moe, Qwen3Next, Gemma2, Gemma3,
    GptOss, DeepseekV2, DeepseekV3, Phi3, Glm4Moe, Olmo2, GraniteMoeHybrid, NemotronH, Gpt2, Bert
};

struct HfType {
    const char* modelType;
    const char* architectureStem; // architectures[0] up to "For" / "LMHeadModel" / "Model"
    HfLayout layout;
};

const std::array<HfType, 25> kHfTypes = {{
    {"llama", "Llama", HfLayout::Llama},
    {"llama4", "Llama4", HfLayout::Llama4},
    {"llama4_text", "Llama4Text", HfLayout::Llama4},
    {"mistral", "Mistral", HfLayout::Mistral},
    {"mistral3", "Mistral3", HfLayout::Mistral3},
    {"mixtral", "Mixtral", HfLayout::Mixtral},
    {"qwen2", "Qwen2", HfLayout::Qwen2},
    {"qwen2_moe", "Qwen2Moe", HfLayout::Qwen2Moe},
    {"qwen3", "Qwen3", HfLayout::Qwen3},
    {"qwen3_moe", "Qwen3Moe", HfLayout::Qwen3Moe},
    {"qwen3_next", "Qwen3Next", HfLayout::Qwen3Next},
    {"gemma2", "Gemma2", HfLayout::Gemma2},
    {"gemma3", "Gemma3", HfLayout::Gemma3},
    {"gemma3_text", "Gemma3Text", HfLayout::Gemma3},
    {"gpt_oss", "GptOss", HfLayout::GptOss},
    {"deepseek_v2", "DeepseekV2", HfLayout::DeepseekV2},
    {"deepseek_v3", "DeepseekV3", HfLayout::DeepseekV3},
    {"kimi_k2", "KimiK2", HfLayout::DeepseekV3},
    {"phi3", "Phi3", HfLayout::Phi3},
    {"glm4_moe", "Glm4Moe", HfLayout::Glm4Moe},
    {"olmo2", "Olmo2", HfLayout::Olmo2},
    {"granitemoehybrid", "GraniteMoeHybrid", HfLayout::GraniteMoeHybrid},
    {"nemotron_h", "NemotronH", HfLayout::NemotronH},
    {"gpt2", "GPT2", HfLayout::Gpt2},
    {"bert", "Bert", HfLayout::Bert},
}};

// Keys that never change memory or time: token ids, initialisation, dropout,
// positional-encoding details, activation names, training-only settings.
const std::set<std::string> kIrrelevantKeys = {
    "_name_or_path", "architectures", "model_type", "auto_map", "bos_token_id", "eos_token_id", "pad_token_id",
    "torch_dtype", "dtype", "transformers_version", "use_cache", "initializer_range", "rms_norm_eps",
    "layer_norm_eps", "layer_norm_epsilon", "norm_eps", "rope_theta", "rope_scaling", "rope_parameters",
    "rope_local_base_freq", "partial_rotary_factor", "attention_dropout", "hidden_dropout", "embd_pdrop",
    "resid_pdrop", "attn_pdrop", "summary_first_dropout", "hidden_dropout_prob", "attention_probs_dropout_prob",
    "hidden_act", "hidden_activation", "mlp_hidden_act", "mamba_hidden_act", "activation_function",
    "router_aux_loss_coef", "aux_loss_alpha", "output_router_logits", "router_jitter_noise", "norm_topk_prob",
    "routed_scaling_factor", "scoring_func", "topk_method", "n_group", "topk_group", "seq_aux", "ep_size",
    "pretraining_tp", "tie_word_embeddings", "max_position_embeddings", "original_max_position_embeddings",
    "initial_context_length", "swiglu_limit", "rope_ntk_alpha", "rope_ntk_beta", "rope_scaling_factor",
    "query_pre_attn_scalar", "attn_logit_softcapping", "final_logit_softcapping", "cache_implementation",
    "max_window_layers", "use_sliding_window", "time_step_floor", "time_step_limit", "time_step_max",
    "time_step_min", "time_step_rank", "rescale_prenorm_residual", "residual_in_fp32", "use_mamba_kernels",
    "num_logits_to_keep", "chunk_size", "mamba_chunk_size", "embedding_multiplier", "attention_multiplier",
    "residual_multiplier", "logits_scaling", "position_embedding_type", "normalization_function",
    "attention_chunk_size", "no_rope_layer_interval", "attn_temperature_tuning", "floor_scale", "attn_scale",
    "use_qk_norm", "router_aux_loss_coef", "boi_token_index", "eoi_token_index", "image_token_index",
    "image_token_id", "mm_tokens_per_image", "initializer_factor", "projector_hidden_act", "vision_feature_layer",
    "vision_feature_select_strategy", "spatial_merge_size", "multimodal_projector_bias", "text_config",
    "vision_config", "quantization_config", "layer_types", "sliding_window", "sliding_window_pattern",
    "full_attention_interval", "hybrid_override_pattern", "keys_to_ignore_at_inference", "tokenizer_class",
    "n_ctx", "scale_attn_weights", "summary_type", "summary_use_proj", "summary_activation",
    "summary_proj_to_labels", "task_specific_params", "type_vocab_size", "classifier_dropout", "gradient_checkpointing",
    "is_decoder", "add_cross_attention", "num_experts_per_tok", "mlp_only_layers", "decoder_sparse_step",
    "qkv_bias", "clip_qkv", "interleave_moe_layer_step", "moe_layer_freq", "first_k_dense_replace",
    "num_nextn_predict_layers", "head_dim", "attention_bias", "mlp_bias", "experts_per_token",
};

/// A key that could change memory or time when a reader leaves it unread.
bool couldChangeMemory(const std::string& key)
{
    if (key.empty() || key[0] == '_')
        return false; // transformers' private bookkeeping (_attn_implementation_autoset, ...)
    if (key.rfind("n_", 0) == 0)
        return true; // n_layer, n_routed_experts, ...
    for (const char* word : {"layer", "expert", "head", "size", "dim", "rank", "window", "chunk", "state", "proj",
                             "moe", "kv", "quant", "vocab", "shared", "num_", "mtp", "nextn", "bits", "group",
                             "sparse", "dense", "lora", "mamba", "ssm", "linear", "conv", "expand", "inner"}) {
        if (key.find(word) != std::string::npos)
            return true;
    }
    return false;
}

std::string supportedHfTypes()
{
    std::string s;
    for (const auto& t : kHfTypes)
        s += (s.empty() ? "" : ", ") + std::string(t.modelType);
    return s;
}

/// architectures[0] without its head suffix: "Qwen3MoeForCausalLM" -> "Qwen3Moe".
std::string architectureStem(const std::string& name)
{
    for (const char* suffix : {"For", "LMHeadModel", "Model"}) {
        const auto at = name.find(suffix);
        if (at != std::string::npos && at > 0)
            return name.substr(0, at);
    }
    return name;
}

const HfType* typeFromArchitectures(const json& config, std::string* archName)
{
    if (!config.contains("architectures") || !config.at("architectures").is_array())
        return nullptr;
    for (const auto& a : config.at("architectures")) {
        if (!a.is_string())
            continue;
        const auto name = a.get<std::string>();
        const auto stem = architectureStem(name);
        for (const auto& t : kHfTypes) {
            if (stem == t.architectureStem) {
                *archName = name;
                return &t;
            }
        }
    }
    return nullptr;
}

/// Reads keys through an ObjectReader and remembers which ones it read.
struct Keys {
    ObjectReader& r;
    std::set<std::string>& used;
    bool has(const std::string& k) const { return r.has(k); }
    std::int64_t integer(const std::string& k, std::int64_t lo, std::int64_t hi)
    {
        used.insert(k);
        return r.integer(k, lo, hi);
    }
    std::int64_t integerOr(const std::string& k, std::int64_t fb, std::int64_t lo, std::int64_t hi)
    {
        used.insert(k);
        return r.integerOr(k, fb, lo, hi);
    }
    bool booleanOr(const std::string& k, bool fb)
    {
        used.insert(k);
        return r.booleanOr(k, fb);
    }
    const json* get(const std::string& k)
    {
        used.insert(k);
        return r.has(k) ? &r.at(k) : nullptr;
    }
    void fail(const std::string& k, std::string msg) { r.fail(k, std::move(msg)); }
};

KeyNames llamaKeys()
{
    KeyNames k;
    k.layers = "num_hidden_layers";
    k.hidden = "hidden_size";
    k.heads = "num_attention_heads";
    k.kvHeads = "num_key_value_heads";
    k.headDim = "head_dim";
    k.ffnHidden = "intermediate_size";
    k.vocab = "vocab_size";
    k.maxPositions = "max_position_embeddings";
    k.kvLoraRank = "kv_lora_rank";
    k.ropeHeadDim = "qk_rope_head_dim";
    k.experts = "num_local_experts";
    k.active = "num_experts_per_tok";
    k.shared = "n_shared_experts";
    k.expertFfn = "intermediate_size";
    k.denseLayers = "first_k_dense_replace";
    k.slidingLayers = "layer_types";
    k.slidingWindow = "sliding_window";
    k.linearLayers = "layer_types";
    k.linearStateBytes = "layer_types";
    return k;
}

/// Defaults of a configuration class for keys its config.json may leave out
/// (Gemma3TextConfig writes only what differs from them).
struct Defaults {
    std::optional<std::int64_t> vocab, hidden, ffn, layers, heads, kvHeads, headDim, maxPositions;
    bool tied = false;
};

/// The keys Llama-style decoders share.
void readLlamaLike(Keys& k, ModelArch& m, const Defaults& d = {})
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
    const double kHeads = double(k.integer("linear_num_key_heads", 1, kMaxHeads));
    const double vHeads = double(k.integer("linear_num_value_heads", 1, kMaxHeads));
    const double kDim = double(k.integer("linear_key_head_dim", 1, kMaxHeadDim));
    const double vDim = double(k.integer("linear_value_head_dim", 1, kMaxHeadDim));
    const double kernel = double(k.integerOr("linear_conv_kernel_dim", 4, 1, 1024));
    const double h = m.hidden;
    const double keyDim = kHeads * kDim;
    const double valueDim = vHeads * vDim;
    const double convDim = 2 * keyDim + valueDim;
    m.linearLayerParams = h * (2 * keyDim + 2 * valueDim) + h * 2 * vHeads + convDim * kernel + 2 * vHeads + vDim
                        + valueDim * h;
    m.linearStateBytes = 2.0 * (convDim * (kernel - 1) + vHeads * kDim * vDim);
    m.linearKind = "Gated DeltaNet";
}

/// A Mamba-2 mixer (transformers modeling_nemotron_h / granitemoehybrid):
/// in_proj to z, x, B, C and dt; a depthwise conv over x, B, C; dt_bias, A_log,
/// D; a gated RMSNorm; out_proj. State per sequence: the conv window and
/// heads x head_dim x d_state.
void mamba2(ModelArch& m, double heads, double headDim, double dState, double groups, double kernel, bool convBias,
            bool projBias)
{
    const double h = m.hidden;
    const double inner = heads * headDim;
    const double convDim = inner + 2 * groups * dState;
    const double inOut = 2 * inner + 2 * groups * dState + heads;
    m.linearLayerParams = h * inOut + (projBias ? inOut : 0) + convDim * kernel + (convBias ? convDim : 0) + 3 * heads
                        + inner + inner * h + (projBias ? h : 0);
    m.linearStateBytes = 2.0 * (convDim * (kernel - 1) + heads * headDim * dState);
    m.linearKind = "Mamba-2";
}

/// A ViT-style vision encoder from vision_config (SigLIP for Gemma 3, Pixtral
/// for Mistral 3, Llama 4's), plus the projector into the language model.
void visionTower(Keys& top, ModelArch& m, HfLayout layout)
{
    const json* vc = top.get("vision_config");
    if (!vc || !vc->is_object()) {
        m.readNotes.push_back("no vision_config: the vision tower is not counted");
        return;
    }
    // Out-of-range values fall back to the configuration class's default (the
    // tower is a small share of the model; a typo here must not make it infinite).
    auto num = [&](const char* key, double fb) {
        if (!vc->contains(key) || !(*vc)[key].is_number())
            return fb;
        const double v = (*vc)[key].get<double>();
        return std::isfinite(v) && v > 0 && v <= 1e6 ? v : fb;
    };
    double p = 0;
    const double text = m.hidden;
    if (layout == HfLayout::Gemma3) {
        // SiglipVisionModel: patch conv + bias, learned positions, per layer
        // q/k/v/o with biases, 2 LayerNorms, fc1/fc2 with biases; post LayerNorm.
        // Gemma3MultiModalProjector: a vision_hidden x text_hidden matrix and a norm.
        const double h = num("hidden_size", 768), f = num("intermediate_size", 3072), l = num("num_hidden_layers", 12);
        const double patch = num("patch_size", 16), image = num("image_size", 224);
        p = 3 * patch * patch * h + h + std::pow(image / patch, 2) * h;
        p += l * (4 * (h * h + h) + 4 * h + 2 * h * f + f + h) + 2 * h;
        p += h * text + h;
        m.visionTowerNote = "SigLIP";
    } else if (layout == HfLayout::Mistral3) {
        // PixtralVisionModel: patch conv (no bias), ln_pre, per layer q/k/v/o
        // (no bias), gated FFN (3 matrices), 2 RMSNorms. Mistral3MultiModalProjector:
        // norm, patch merger (h s^2 -> h), linear_1 (h -> text), linear_2 (text -> text).
        const double h = num("hidden_size", 1024), f = num("intermediate_size", 4096), l = num("num_hidden_layers", 24);
        const double patch = num("patch_size", 16);
        const double merge = top.has("spatial_merge_size") ? double(top.integer("spatial_merge_size", 1, 64)) : 2;
        p = 3 * patch * patch * h + h + l * (4 * h * h + 3 * h * f + 2 * h);
        p += h + h * merge * merge * h + h * text + text * text;
        m.visionTowerNote = "Pixtral";
    } else {
        // Llama4VisionModel: patch unfold linear, class token, positions,
        // per layer q/k/v/o with biases, 2 LayerNorms, fc1/fc2 with biases,
        // pixel-shuffle MLP adapter and the projector to the text width.
        const double h = num("hidden_size", 768), f = num("intermediate_size", 5632), l = num("num_hidden_layers", 34);
        const double patch = num("patch_size", 14), image = num("image_size", 336);
        const double outDim = num("vision_output_dim", 4096), adapter = num("projector_output_dim", 4096);
        const double ratio = num("pixel_shuffle_ratio", 0.5);
        p = 3 * patch * patch * h + h + (std::pow(image / patch, 2) + 1) * h + 4 * h;
        p += l * (4 * (h * h + h) + 4 * h + 2 * h * f + f + h);
        const double shuffled = h / (ratio * ratio);
        p += shuffled * num("projector_input_dim", 4096) + num("projector_input_dim", 4096) * adapter;
        p += outDim * text;
        m.visionTowerNote = "Llama 4 vision";
    }
    m.visionTowerParams = p;
}

void readMoeRouted(Keys& k, ModelArch& m, const char* expertsKey, const char* widthKey)
{
    m.moe.experts = toInt(k.integer(expertsKey, 1, kMaxExperts));
    m.moe.active = toInt(k.integer("num_experts_per_tok", 1, kMaxExperts));
    m.moe.expertFfnHidden = k.integer(widthKey, 1, kMaxFfnHidden);
}

/// Qwen's shared expert: one FFN of shared_expert_intermediate_size and a
/// 1-wide sigmoid gate. When the width is a whole number of routed widths it
/// is counted as that many shared experts (so LoRA and FLOPs see its width).
void readQwenShared(Keys& k, ModelArch& m)
{
    const auto width = k.integerOr("shared_expert_intermediate_size", 0, 0, kMaxFfnHidden);
    if (width == 0)
        return;
    m.moe.sharedGate = true;
    if (width % m.moe.expertFfnHidden == 0) {
        m.moe.shared = toInt(width / m.moe.expertFfnHidden);
    } else {
        m.moe.shared = 1;
        m.moe.sharedFfnHidden = width;
    }
}

void readSparseStep(Keys& k, ModelArch& m)
{
    m.moe.sparseStep = toInt(k.integerOr("decoder_sparse_step", 1, 1, kMaxLayers));
    if (const json* only = k.get("mlp_only_layers"); only && !(only->is_array() && only->empty()))
        k.fail("mlp_only_layers", "only an empty list is supported");
}

/// MLA + DeepSeekMoE (DeepSeek-V2/V3/R1, Kimi K2).
void readDeepseek(Keys& k, ModelArch& m)
{
    readLlamaLike(k, m);
    m.mlaKvLoraRank = toInt(k.integer("kv_lora_rank", 1, kMaxLoraRank));
    m.mlaRopeHeadDim = toInt(k.integer("qk_rope_head_dim", 1, kMaxHeadDim));
    m.mlaQLoraRank = k.has("q_lora_rank") ? toInt(k.integer("q_lora_rank", 1, kMaxLoraRank)) : -1;
    k.used.insert("q_lora_rank");
    const auto nope = k.integer("qk_nope_head_dim", 1, kMaxHeadDim);
    const auto vDim = k.integer("v_head_dim", 1, kMaxHeadDim);
    if (k.r.ok() && nope != vDim)
        k.fail("v_head_dim", "must equal qk_nope_head_dim (" + std::to_string(nope) + ") for this estimate, got "
                                 + std::to_string(vDim));
    // MLA's per-head width: the nope part of q/k and the value head.
    m.headDim = toInt(nope);
    m.kvHeads = m.heads;
    readMoeRouted(k, m, "n_routed_experts", "moe_intermediate_size");
    m.moe.shared = toInt(k.integerOr("n_shared_experts", 0, 0, kMaxExperts));
    m.moe.denseLayers = toInt(k.integerOr("first_k_dense_replace", 0, 0, kMaxLayers));
    m.moe.sparseStep = toInt(k.integerOr("moe_layer_freq", 1, 1, kMaxLayers));
    if (k.has("topk_method") && k.r.at("topk_method") == "noaux_tc")
        m.moe.routerBias = true; // e_score_correction_bias
    m.mtpLayers = toInt(k.integerOr("num_nextn_predict_layers", 0, 0, 16));
    m.mtpOwnEmbeddings = true;
}

void readQuantization(Keys& k, ModelArch& m)
{
    const json* q = k.get("quantization_config");
    if (!q)
        return;
    const std::string qp = k.r.keyPath("quantization_config");
    if (!q->is_object()) {
        k.fail("quantization_config", "must be an object, got " + detail::describe(*q));
        return;
    }
    auto str = [&](const char* key) { return q->contains(key) && (*q)[key].is_string() ? (*q)[key].get<std::string>() : ""; };
    auto integer = [&](const char* key, int fb) {
        return q->contains(key) && (*q)[key].is_number_integer() ? (*q)[key].get<int>() : fb;
    };
    auto boolean = [&](const char* key) { return q->contains(key) && (*q)[key].is_boolean() && (*q)[key].get<bool>(); };
    CheckpointQuant& c = m.quant;
    c.method = str("quant_method");
    if (c.method == "mxfp4") {
        // transformers' Mxfp4 quantizer converts the experts only; attention,
        // router, embeddings and head stay BF16 (modules_to_not_convert).
        c.kind = QuantKind::MXFP4;
        c.bits = 4;
        c.groupSize = 32;
        c.expertsOnly = true;
    } else if (c.method == "fp8") {
        const json* block = q->contains("weight_block_size") ? &(*q)["weight_block_size"] : nullptr;
        if (block && block->is_array() && block->size() == 2 && (*block)[0].is_number_integer()) {
            c.kind = QuantKind::FP8Block;
            c.groupSize = std::clamp((*block)[0].get<int>(), 1, 1 << 20);
        } else {
            c.kind = QuantKind::FP8;
        }
        c.bits = 8;
    } else if (c.method == "awq" || c.method == "gptq") {
        c.kind = QuantKind::IntGroup;
        c.bits = integer("bits", integer("w_bit", 4));
        c.groupSize = integer("group_size", integer("q_group_size", 128));
        if (c.groupSize < 0)
            c.groupSize = 0; // GPTQ group_size -1: one scale per column
        if (c.bits < 1 || c.bits > 8) {
            k.fail("quantization_config", "bits must be 1..8, got " + std::to_string(c.bits));
            c.kind = QuantKind::None;
        }
    } else if (c.method == "bitsandbytes") {
        if (boolean("load_in_4bit")) {
            c.kind = QuantKind::NF4; // fp4 has the same storage
            c.bits = 4;
            c.doubleQuant = boolean("bnb_4bit_use_double_quant");
        } else if (boolean("load_in_8bit")) {
            c.kind = QuantKind::Int8;
            c.bits = 8;
        }
    } else if (c.method == "compressed-tensors") {
        // The common FP8 (W8A8) and W4A16 schemes: the first config group's weights.
        if (q->contains("config_groups") && (*q)["config_groups"].is_object() && !(*q)["config_groups"].empty()) {
            const json& g = (*q)["config_groups"].begin().value();
            const json* w = g.contains("weights") ? &g["weights"] : nullptr;
            if (w && w->is_object()) {
                const int bits = w->contains("num_bits") && (*w)["num_bits"].is_number_integer() ? (*w)["num_bits"].get<int>() : 16;
                const std::string type = w->contains("type") && (*w)["type"].is_string() ? (*w)["type"].get<std::string>() : "";
                if (bits == 8 && type == "float") {
                    c.kind = QuantKind::FP8;
                    c.bits = 8;
                } else if (bits <= 8 && type == "int") {
                    c.kind = QuantKind::IntGroup;
                    c.bits = bits;
                    c.groupSize = w->contains("group_size") && (*w)["group_size"].is_number_integer() ? (*w)["group_size"].get<int>() : 0;
                }
            }
        }
    }
    if (!c.quantized())
        m.readNotes.push_back(qp + ": quant_method \"" + c.method +
                              "\" not read; the weights are counted at the checkpoint's torch_dtype");
}

} // namespace

std::string knownHfModelTypes() { return supportedHfTypes(); }

std::string withoutPythonNumbers(std::string_view text)
{
    std::string out;
    out.reserve(text.size());
    bool inString = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            out += c;
            if (c == '\\' && i + 1 < text.size())
                out += text[++i];
            else if (c == '"')
                inString = false;
            continue;
        }
        if (c == '"') {
            inString = true;
            out += c;
            continue;
        }
        bool replaced = false;
        for (std::string_view token : {"-Infinity", "Infinity", "NaN"}) {
            if (text.substr(i, token.size()) == token) {
                out += "null";
                i += token.size() - 1;
                replaced = true;
                break;
            }
        }
        if (!replaced)
            out += c;
    }
    return out;
}

ModelArch modelFromHfConfig(const nlohmann::json& config, const std::string& path)
{
    if (!config.is_object())
        throw InputError(path, "must be a JSON object (the contents of config.json)");

    std::string modelType;
    std::optional<HfLayout> layout;
    std::vector<std::string> notes;
    const std::string typePath = joinPath(path, "model_type");
    std::string archName;
    if (config.contains("model_type") && !config.at("model_type").is_null()) {
        const json& t = config.at("model_type");
        if (!t.is_string())
            throw InputError(typePath, "must be a string, got " + detail::describe(t));
        modelType = t.get<std::string>();
        for (const auto& ht : kHfTypes) {
            if (modelType == ht.modelType)
                layout = ht.layout;
        }
        if (!layout)
            throw InputError(typePath, "unsupported model type \"" + modelType + "\"; supported: " + supportedHfTypes());
    } else if (const HfType* fromArch = typeFromArchitectures(config, &archName)) {
        layout = fromArch->layout;
        modelType = fromArch->modelType;
        notes.push_back("model_type absent: read as \"" + modelType + "\" from architectures (" + archName + ")");
    } else {
        // Hand-written configs often drop model_type. A plain Llama-style
        // decoder is read as one, with a warning; a config with the keys of
        // another mechanism (experts, latent attention, layer kinds, a nested
        // text_config) cannot be told and is refused.
        for (const char* key : {"num_hidden_layers", "hidden_size", "num_attention_heads", "intermediate_size"}) {
            if (!config.contains(key))
                throw InputError(typePath, "missing, and the keys do not look like a Llama-style config; supported: "
                                               + supportedHfTypes());
        }
        for (const char* key : {"kv_lora_rank", "n_routed_experts", "num_experts", "num_local_experts", "layer_types",
                                "sliding_window_pattern", "hybrid_override_pattern", "text_config",
                                "linear_num_key_heads", "mamba_n_heads", "query_pre_attn_scalar",
                                "full_attention_interval", "attention_chunk_size"}) {
            if (config.contains(key))
                throw InputError(typePath, std::string("missing, and \"") + key +
                                               "\" says this is not a plain Llama-style decoder: give model_type "
                                               "(or architectures); supported: " + supportedHfTypes());
        }
        layout = HfLayout::Llama;
        modelType = "llama";
        notes.push_back("model_type and architectures absent: read as a Llama-style decoder (gated FFN, RMSNorm, no "
                        "biases, every layer full attention)");
    }

    // Multimodal wrappers keep the language model in text_config.
    const bool wrapped = (*layout == HfLayout::Gemma3 || *layout == HfLayout::Llama4 || *layout == HfLayout::Mistral3)
                      && config.contains("text_config") && config.at("text_config").is_object();
    const json& cfg = wrapped ? config.at("text_config") : config;
    const std::string cfgPath = wrapped ? joinPath(path, "text_config") : path;

    ModelArch m;
    m.readNotes = notes;
    KeyNames keys = llamaKeys();
    ObjectReader r(cfg, cfgPath);
    ObjectReader top(config, path);
    std::set<std::string> used, usedTop;
    Keys k{r, used};
    Keys kt{top, usedTop};
    switch (*layout) {
    case HfLayout::Llama:
        readLlamaLike(k, m);
        if (k.booleanOr("attention_bias", false)) {
            m.qkvBias = true;
            m.oBias = true;
        }
        if (k.booleanOr("mlp_bias", false))
            k.fail("mlp_bias", "only false is supported");
        break;
    case HfLayout::Mistral:
        readLlamaLike(k, m);
        readUniformWindow(k, m);
        break;
    case HfLayout::Phi3:
        readLlamaLike(k, m);
        readUniformWindow(k, m);
        break;
    case HfLayout::Qwen2:
        readLlamaLike(k, m);
        m.qkvBias = true; // Qwen2 attention: q/k/v have biases, o_proj none
        readUniformWindow(k, m);
        break;
    case HfLayout::Qwen3:
        readLlamaLike(k, m);
        m.qkNorm = ModelArch::QkNorm::PerHead;
        m.qkvBias = k.booleanOr("attention_bias", false);
        readUniformWindow(k, m);
        break;
    case HfLayout::Olmo2:
        readLlamaLike(k, m);
        m.qkNorm = ModelArch::QkNorm::Full; // q_norm over heads x head_dim, k_norm over kv_heads x head_dim
        m.qkvBias = m.oBias = k.booleanOr("attention_bias", false);
        break;
    case HfLayout::Mixtral:
        keys.experts = "num_local_experts";
        readLlamaLike(k, m);
        m.moe.experts = toInt(k.integer("num_local_experts", 1, kMaxExperts));
        m.moe.active = toInt(k.integer("num_experts_per_tok", 1, kMaxExperts));
        m.moe.expertFfnHidden = m.ffnHidden; // each expert is a full-width SwiGLU FFN
        readUniformWindow(k, m);
        break;
    case HfLayout::Qwen2Moe:
    case HfLayout::Qwen3Moe:
        keys.experts = "num_experts";
        keys.expertFfn = "moe_intermediate_size";
        keys.shared = "shared_expert_intermediate_size";
        readLlamaLike(k, m);
        readMoeRouted(k, m, "num_experts", "moe_intermediate_size");
        readQwenShared(k, m);
        readSparseStep(k, m);
        if (*layout == HfLayout::Qwen2Moe) {
            m.qkvBias = true;
        } else {
            m.qkNorm = ModelArch::QkNorm::PerHead;
            m.qkvBias = k.booleanOr("attention_bias", false);
        }
        readUniformWindow(k, m);
        break;
    case HfLayout::Qwen3Next: {
        keys.experts = "num_experts";
        keys.expertFfn = "moe_intermediate_size";
        readLlamaLike(k, m);
        readMoeRouted(k, m, "num_experts", "moe_intermediate_size");
        readQwenShared(k, m);
        readSparseStep(k, m);
        m.qkNorm = ModelArch::QkNorm::PerHead;
        m.gatedAttention = true; // q_proj emits the query and its output gate
        std::vector<std::string> types;
        if (readLayerTypes(k, m, types)) {
            applyLayerTypes(k, m, types);
        } else {
            const int interval = toInt(k.integerOr("full_attention_interval", 4, 1, kMaxLayers));
            m.linearLayers = m.layers - m.layers / interval; // layer i is full when (i + 1) % interval == 0
        }
        gatedDeltaNet(k, m);
        // The released checkpoints carry one MTP layer (mtp.* weights) that the
        // config does not announce; it is not counted.
        m.readNotes.push_back("multi-token-prediction weights (mtp.*) of the checkpoint are not announced in "
                              "config.json and not counted");
        break;
    }
    case HfLayout::Gemma2:
    case HfLayout::Gemma3: {
        Defaults d;
        d.tied = true;
        if (*layout == HfLayout::Gemma3) {
            // Gemma3TextConfig's defaults (configuration_gemma3.py): the released
            // config.json files leave out what equals them (vocab_size, ...).
            d = Defaults{262208, 2304, 9216, 26, 8, 4, 256, 131072, true};
        }
        readLlamaLike(k, m, d);
        m.normsPerLayer = 4; // input, post-attention, pre- and post-feedforward norms
        m.biases = false;
        if (*layout == HfLayout::Gemma3)
            m.qkNorm = ModelArch::QkNorm::PerHead;
        std::vector<std::string> types;
        if (readLayerTypes(k, m, types)) {
            applyLayerTypes(k, m, types);
        } else if (*layout == HfLayout::Gemma3) {
            // Every sliding_window_pattern-th layer is global (default 6).
            const int pattern = toInt(k.integerOr("sliding_window_pattern", 6, 1, kMaxLayers));
            m.slidingLayers = m.layers - m.layers / pattern;
        } else {
            m.slidingLayers = (m.layers + 1) / 2; // Gemma 2: even layers slide
        }
        readWindow(k, m, 4096); // Gemma2Config and Gemma3TextConfig default
        if (*layout == HfLayout::Gemma3 && wrapped)
            visionTower(kt, m, HfLayout::Gemma3);
        break;
    }
    case HfLayout::Llama4: {
        keys.experts = "num_local_experts";
        readLlamaLike(k, m);
        m.ffnHidden = k.integerOr("intermediate_size_mlp", 16384, 1, kMaxFfnHidden); // dense layers
        m.moe.experts = toInt(k.integer("num_local_experts", 1, kMaxExperts));
        m.moe.active = toInt(k.integer("num_experts_per_tok", 1, kMaxExperts));
        m.moe.expertFfnHidden = k.integer("intermediate_size", 1, kMaxFfnHidden);
        m.moe.shared = 1; // Llama4TextMoe: one shared expert beside the routed ones
        m.moe.sparseStep = toInt(k.integerOr("interleave_moe_layer_step", 1, 1, kMaxLayers));
        // Chunked attention on the RoPE layers; every no_rope_layer_interval-th
        // (default 4) layer is global NoPE attention (Llama4TextConfig).
        std::vector<std::string> types;
        if (readLayerTypes(k, m, types)) {
            applyLayerTypes(k, m, types);
        } else if (const json* nr = k.get("no_rope_layers"); nr && nr->is_array() && !nr->empty()) {
            int rope = 0;
            for (const auto& v : *nr)
                rope += v.is_number() && v.get<double>() != 0 ? 1 : 0;
            m.chunkedLayers = rope;
        } else {
            const int interval = toInt(k.integerOr("no_rope_layer_interval", 4, 1, kMaxLayers));
            m.chunkedLayers = m.layers - m.layers / interval;
        }
        if (k.has("attention_chunk_size"))
            m.chunkSize = toInt(k.integer("attention_chunk_size", 1, kMaxPositions));
        else
            m.chunkedLayers = 0;
        if (wrapped)
            visionTower(kt, m, HfLayout::Llama4);
        break;
    }
    case HfLayout::Mistral3:
        readLlamaLike(k, m);
        readUniformWindow(k, m);
        if (wrapped)
            visionTower(kt, m, HfLayout::Mistral3);
        break;
    case HfLayout::GptOss: {
        keys.experts = "num_local_experts";
        readLlamaLike(k, m);
        m.moe.experts = toInt(k.integer("num_local_experts", 1, kMaxExperts));
        m.moe.active = toInt(k.integer("num_experts_per_tok", 1, kMaxExperts));
        m.moe.expertFfnHidden = m.ffnHidden;
        m.moe.expertBias = true;
        m.moe.routerBias = true;
        m.qkvBias = m.oBias = k.booleanOr("attention_bias", true);
        m.attentionSinks = true;
        std::vector<std::string> types;
        if (readLayerTypes(k, m, types))
            applyLayerTypes(k, m, types);
        else
            m.slidingLayers = (m.layers + 1) / 2; // GptOssConfig: even layers slide
        readWindow(k, m, 128);
        break;
    }
    case HfLayout::DeepseekV2:
    case HfLayout::DeepseekV3:
        keys.experts = "n_routed_experts";
        keys.expertFfn = "moe_intermediate_size";
        readDeepseek(k, m);
        break;
    case HfLayout::Glm4Moe:
        keys.experts = "n_routed_experts";
        keys.expertFfn = "moe_intermediate_size";
        readLlamaLike(k, m);
        readMoeRouted(k, m, "n_routed_experts", "moe_intermediate_size");
        m.moe.shared = toInt(k.integerOr("n_shared_experts", 0, 0, kMaxExperts));
        m.moe.denseLayers = toInt(k.integerOr("first_k_dense_replace", 0, 0, kMaxLayers));
        m.moe.routerBias = true; // e_score_correction_bias
        m.qkvBias = k.booleanOr("attention_bias", false);
        if (k.booleanOr("use_qk_norm", false))
            m.qkNorm = ModelArch::QkNorm::PerHead;
        m.mtpLayers = toInt(k.integerOr("num_nextn_predict_layers", 0, 0, 16));
        m.mtpOwnEmbeddings = true;
        break;
    case HfLayout::GraniteMoeHybrid: {
        keys.experts = "num_local_experts";
        readLlamaLike(k, m);
        m.tiedEmbeddings = k.booleanOr("tie_word_embeddings", true);
        const auto experts = k.integerOr("num_local_experts", 0, 0, kMaxExperts);
        const auto sharedWidth = k.integerOr("shared_intermediate_size", 0, 0, kMaxFfnHidden);
        if (experts > 0) {
            m.moe.experts = toInt(experts);
            m.moe.active = toInt(k.integer("num_experts_per_tok", 1, kMaxExperts));
            m.moe.expertFfnHidden = m.ffnHidden;
            if (sharedWidth > 0) {
                m.moe.shared = 1;
                m.moe.sharedFfnHidden = sharedWidth;
            }
        } else if (sharedWidth > 0) {
            m.ffnHidden = sharedWidth; // dense: the shared MLP is the FFN
        }
        std::vector<std::string> types;
        if (readLayerTypes(k, m, types))
            applyLayerTypes(k, m, types);
        const double heads = double(k.integer("mamba_n_heads", 1, kMaxHeads));
        const double headDim = double(k.integer("mamba_d_head", 1, kMaxHeadDim));
        const double dState = double(k.integer("mamba_d_state", 1, kMaxHeadDim));
        const double groups = double(k.integerOr("mamba_n_groups", 1, 1, kMaxHeads));
        const double kernel = double(k.integerOr("mamba_d_conv", 4, 1, 1024));
        (void)k.integerOr("mamba_expand", 2, 1, 64);
        mamba2(m, heads, headDim, dState, groups, kernel, k.booleanOr("mamba_conv_bias", true),
               k.booleanOr("mamba_proj_bias", false));
        break;
    }
    case HfLayout::NemotronH: {
        keys.headDim = "attention_head_dim";
        keys.linearLayers = keys.slidingLayers = "hybrid_override_pattern";
        readLlamaLike(k, m);
        if (k.has("attention_head_dim"))
            m.headDim = toInt(k.integer("attention_head_dim", 1, kMaxHeadDim));
        m.ffn = FfnKind::GELU; // relu2 MLP: up and down projections, no gate
        m.normsPerLayer = 1;   // one RMSNorm per block
        const json* pat = k.get("hybrid_override_pattern");
        if (!pat || !pat->is_string() || pat->get<std::string>().size() != std::size_t(m.layers)) {
            k.fail("hybrid_override_pattern", "must be a string of num_hidden_layers (" + std::to_string(m.layers) +
                                                  ") block kinds (M, *, -)");
            break;
        }
        int mamba = 0, attn = 0, mlp = 0;
        for (char c : pat->get<std::string>()) {
            if (c == 'M')
                ++mamba;
            else if (c == '*')
                ++attn;
            else if (c == '-')
                ++mlp;
            else
                k.fail("hybrid_override_pattern", std::string("unknown block kind '") + c + "' (known: M, *, -)");
        }
        m.linearLayers = mamba;
        m.mlpOnlyLayers = mlp;
        m.ffnFreeLayers = mamba + attn;
        const double heads = double(k.integer("mamba_num_heads", 1, kMaxHeads));
        const double headDim = double(k.integer("mamba_head_dim", 1, kMaxHeadDim));
        const double dState = double(k.integer("ssm_state_size", 1, kMaxHeadDim));
        const double groups = double(k.integerOr("n_groups", 1, 1, kMaxHeads));
        const double kernel = double(k.integerOr("conv_kernel", 4, 1, 1024));
        (void)k.integerOr("expand", 2, 1, 64);
        mamba2(m, heads, headDim, dState, groups, kernel, k.booleanOr("use_conv_bias", true),
               k.booleanOr("use_bias", false) || k.booleanOr("mamba_proj_bias", false));
        if (k.booleanOr("mlp_bias", false) || k.booleanOr("attention_bias", false))
            k.fail("attention_bias", "only false is supported");
        break;
    }
    case HfLayout::Gpt2: {
        keys.layers = "n_layer";
        keys.hidden = "n_embd";
        keys.heads = "n_head";
        keys.kvHeads = "n_head";
        keys.headDim = "n_embd";
        keys.ffnHidden = "n_inner";
        keys.maxPositions = "n_positions";
        m.layers = toInt(k.integer("n_layer", 1, kMaxLayers));
        m.hidden = toInt(k.integer("n_embd", 1, kMaxHidden));
        m.heads = toInt(k.integer("n_head", 1, kMaxHeads));
        m.kvHeads = m.heads;
        if (r.ok() && m.hidden % m.heads != 0)
            r.fail("n_head", "must divide n_embd (" + std::to_string(m.hidden) + "), got " + std::to_string(m.heads));
        m.headDim = std::max(1, m.hidden / m.heads);
        // n_inner is null in the released GPT-2 configs: the MLP is 4 x n_embd.
        m.ffnHidden = k.integerOr("n_inner", 4 * std::int64_t(m.hidden), 1, kMaxFfnHidden);
        m.vocab = k.integer("vocab_size", 1, kMaxVocab);
        m.maxPositions = k.integerOr("n_positions", 1024, 1, kMaxPositions);
        m.tiedEmbeddings = k.booleanOr("tie_word_embeddings", true);
        m.family = ModelFamily::Decoder;
        m.ffn = FfnKind::GELU;
        m.positional = Positional::Learned;
        m.biases = true;
        break;
    }
    case HfLayout::Bert:
        keys.kvHeads = "num_attention_heads";
        m.layers = toInt(k.integer("num_hidden_layers", 1, kMaxLayers));
        m.hidden = toInt(k.integer("hidden_size", 1, kMaxHidden));
        m.heads = toInt(k.integer("num_attention_heads", 1, kMaxHeads));
        m.kvHeads = m.heads;
        m.headDim = defaultHeadDim(r, "head_dim", m.hidden, m.heads, "hidden_size", "num_attention_heads");
        m.ffnHidden = k.integer("intermediate_size", 1, kMaxFfnHidden);
        m.vocab = k.integer("vocab_size", 1, kMaxVocab);
        m.maxPositions = k.integerOr("max_position_embeddings", 512, 1, kMaxPositions);
        // Read to validate it; the count assumes BERT's 2 (see kEncoderTokenTypes).
        (void)k.integerOr("type_vocab_size", kEncoderTokenTypes, 1, kMaxVocab);
        m.family = ModelFamily::Encoder;
        m.ffn = FfnKind::GELU;
        m.positional = Positional::Learned;
        m.tiedEmbeddings = true; // the MLM decoder reuses the word embeddings
        m.biases = true;
        break;
    }
    readQuantization(kt, m);
    // The checkpoint's unquantized dtype.
    for (const char* key : {"torch_dtype", "dtype"}) {
        const json& src = config.contains(key) ? config : cfg;
        if (src.contains(key) && src.at(key).is_string()) {
            const auto t = src.at(key).get<std::string>();
            m.storageBytes = t == "float32" ? 4 : 2;
            break;
        }
    }

    std::vector<Diagnostic> problems = r.takeProblems();
    for (auto& d : top.takeProblems())
        problems.push_back(std::move(d));
    if (problems.empty())
        checkArch(m, cfgPath, keys, problems);
    throwIfAny(std::move(problems));

    // Say what was not read: keys that could change memory, neither read nor
    // known to be irrelevant.
    auto unread = [&](const json& obj, const std::set<std::string>& read, const std::string& where) {
        std::string list;
        for (const auto& [key, value] : obj.items()) {
            if (read.count(key) || kIrrelevantKeys.count(key) || value.is_null() || value.is_string() || !couldChangeMemory(key))
                continue;
            if (value.is_boolean() && !value.get<bool>())
                continue;
            list += (list.empty() ? "" : ", ") + key;
        }
        if (!list.empty())
            m.readNotes.push_back("not read" + where + ": " + list + " (could change memory; not modelled)");
    };
    unread(cfg, used, wrapped ? " in text_config" : "");
    if (wrapped)
        unread(config, usedTop, "");

    m.source = "hf_config";
    m.name = modelType;
    if (config.contains("_name_or_path") && config.at("_name_or_path").is_string()
        && !config.at("_name_or_path").get<std::string>().empty())
        m.name = config.at("_name_or_path").get<std::string>();
    return m;
}

} // namespace gp
