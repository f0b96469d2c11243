#include "core/model/hfconfig.h"

#include "core/base/errors.h"
#include "core/base/jsonread.h"
#include "core/model/hfread.h"
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
using namespace detail::hf;

struct HfType {
    const char* modelType;
    const char* architectureStem; // architectures[0] up to "For" / "LMHeadModel" / "Model"
    HfLayout layout;
};

const std::array<HfType, 26> kHfTypes = {{
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
    // Kimi K2.5 and later: Kimi K2's language model (text_config, kimi_k2 or
    // deepseek_v3) beside a MoonViT vision tower.
    {"kimi_k25", "KimiK25", HfLayout::DeepseekV3},
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
    // Nemotron-H (transformers 5): expert/shared overlap is scheduling, the MTP
    // layers' kinds only shape the unloaded MTP module.
    "moe_shared_expert_overlap", "mtp_layers_block_type", "mtp_hybrid_override_pattern",
    // Early Gemma 2 configs carry sliding_window_size beside sliding_window;
    // Gemma2Config and its modeling code read only sliding_window.
    "sliding_window_size",
    // PretrainedConfig's generation and bookkeeping attributes, which some
    // exporters write out in full (Kimi K2.5's text_config), and the vision
    // preprocessing switch beside it.
    "chunk_size_feed_forward", "encoder_no_repeat_ngram_size", "no_repeat_ngram_size", "num_beam_groups",
    "num_beams", "num_return_sequences", "pruned_heads", "use_unified_vision_chunk",
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
    const bool wrapped = (*layout == HfLayout::Gemma3 || *layout == HfLayout::Llama4 || *layout == HfLayout::Mistral3
                          || *layout == HfLayout::DeepseekV3)
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
    readLayout(*layout, wrapped, k, kt, keys, m);
    // A wrapper may keep the quantization with its language model (Kimi K2.5's
    // text_config).
    if (wrapped && !kt.has("quantization_config") && !kt.has("quantization") && k.has("quantization_config"))
        readQuantization(k, m);
    else
        readQuantization(kt, m);
    if (!wrapped)
        used.insert(usedTop.begin(), usedTop.end()); // one object: what kt read, k did
    if (wrapped && *layout == HfLayout::DeepseekV3 && config.contains("vision_config")) {
        usedTop.insert("vision_config");
        m.readNotes.push_back("vision_config: the vision tower (MoonViT) is not counted");
    }
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
