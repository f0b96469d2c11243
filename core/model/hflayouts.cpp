// config.json reader: each model_type's layout (its keys and defaults, the
// MoE variants, MLA, hybrid layer patterns) and the vision tower beside the
// language model.
#include "core/model/hfread.h"

#include <cmath>
#include <string>
#include <vector>

namespace gp::detail::hf {

namespace {

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
void readQwenShared(Keys& k, ModelArch& m, std::int64_t fallback = 0)
{
    const auto width = k.integerOr("shared_expert_intermediate_size", fallback, 0, kMaxFfnHidden);
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
void readDeepseek(Keys& k, ModelArch& m, bool v3)
{
    readLlamaLike(k, m);
    m.mlaKvLoraRank = toInt(k.integer("kv_lora_rank", 1, kMaxLoraRank));
    m.mlaRopeHeadDim = toInt(k.integer("qk_rope_head_dim", 1, kMaxHeadDim));
    // q_lora_rank: null = no query compression (DeepSeek-V2-Lite); absent = the
    // configuration class's default 1536 (DeepseekV2Config and DeepseekV3Config).
    if (k.isNull("q_lora_rank")) {
        k.used.insert("q_lora_rank");
        m.mlaQLoraRank = -1;
    } else {
        m.mlaQLoraRank = toInt(classDefault(k, m, "q_lora_rank", 1536, 1, kMaxLoraRank));
    }
    const auto nope = k.integer("qk_nope_head_dim", 1, kMaxHeadDim);
    const auto vDim = k.integer("v_head_dim", 1, kMaxHeadDim);
    if (k.r.ok() && nope != vDim)
        k.fail("v_head_dim", "must equal qk_nope_head_dim (" + std::to_string(nope) + ") for this estimate, got "
                                 + std::to_string(vDim));
    // MLA's per-head width: the nope part of q/k and the value head.
    m.headDim = toInt(nope);
    m.kvHeads = m.heads;
    readMoeRouted(k, m, "n_routed_experts", "moe_intermediate_size");
    // DeepseekV3Config's defaults: n_shared_experts 1, first_k_dense_replace 3;
    // DeepseekV2Config's: none (null), 0. (Its topk_method default "noaux_tc" is
    // not applied when the key is absent: the router's score-correction bias, one
    // value per expert and layer, is counted only when the config names it, as the
    // deepseek-v3 preset does.)
    if (v3) {
        m.moe.shared = toInt(classDefault(k, m, "n_shared_experts", 1, 0, kMaxExperts));
        m.moe.denseLayers = toInt(classDefault(k, m, "first_k_dense_replace", 3, 0, kMaxLayers));
    } else {
        m.moe.shared = toInt(k.integerOr("n_shared_experts", 0, 0, kMaxExperts));
        m.moe.denseLayers = toInt(k.integerOr("first_k_dense_replace", 0, 0, kMaxLayers));
    }
    m.moe.sparseStep = toInt(k.integerOr("moe_layer_freq", 1, 1, kMaxLayers));
    if (k.has("topk_method") && k.r.at("topk_method") == "noaux_tc")
        m.moe.routerBias = true; // e_score_correction_bias
    m.mtpLayers = toInt(k.integerOr("num_nextn_predict_layers", 0, 0, 16));
    m.mtpOwnEmbeddings = true;
}

} // namespace

void readLayout(HfLayout layout, bool wrapped, Keys& k, Keys& kt, KeyNames& keys, ModelArch& m)
{
    switch (layout) {
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
        readQwenWindow(k, m);
        break;
    case HfLayout::Qwen3:
        readLlamaLike(k, m);
        m.qkNorm = ModelArch::QkNorm::PerHead;
        m.qkvBias = k.booleanOr("attention_bias", false);
        readQwenWindow(k, m);
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
        if (layout == HfLayout::Qwen2Moe) {
            m.qkvBias = true;
        } else {
            m.qkNorm = ModelArch::QkNorm::PerHead;
            m.qkvBias = k.booleanOr("attention_bias", false);
        }
        readQwenWindow(k, m);
        break;
    case HfLayout::Qwen3Next: {
        keys.experts = "num_experts";
        keys.expertFfn = "moe_intermediate_size";
        // Qwen3NextConfig (transformers 008e5743): defaults for what config.json leaves out.
        Defaults d{
            .vocab = 151936, .hidden = 2048, .ffn = 5632, .layers = 48, .heads = 16, .kvHeads = 2, .headDim = 256,
            .maxPositions = 32768
        };
        readLlamaLike(k, m, d);
        m.moe.experts = toInt(classDefault(k, m, "num_experts", 512, 1, kMaxExperts));
        m.moe.active = toInt(classDefault(k, m, "num_experts_per_tok", 10, 1, kMaxExperts));
        m.moe.expertFfnHidden = classDefault(k, m, "moe_intermediate_size", 512, 1, kMaxFfnHidden);
        if (!k.has("shared_expert_intermediate_size"))
            m.readNotes.push_back("shared_expert_intermediate_size absent: the configuration class's default 512");
        readQwenShared(k, m, 512);
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
        if (layout == HfLayout::Gemma3) {
            // Gemma3TextConfig's defaults (configuration_gemma3.py): the released
            // config.json files leave out what equals them (vocab_size, ...).
            d = Defaults{262208, 2304, 9216, 26, 8, 4, 256, 131072, true};
        }
        readLlamaLike(k, m, d);
        m.normsPerLayer = 4; // input, post-attention, pre- and post-feedforward norms
        m.biases = false;
        if (k.booleanOr("attention_bias", false))
            m.qkvBias = m.oBias = true; // q/k/v/o biases (Gemma2Config, Gemma3TextConfig)
        if (layout == HfLayout::Gemma3)
            m.qkNorm = ModelArch::QkNorm::PerHead;
        std::vector<std::string> types;
        if (readLayerTypes(k, m, types)) {
            applyLayerTypes(k, m, types);
        } else if (layout == HfLayout::Gemma3) {
            // Every sliding_window_pattern-th layer is global (default 6): layer i
            // is full when (i + 1) % pattern == 0. Transformers >= 4.53 keeps the
            // pattern as _sliding_window_pattern beside layer_types.
            const char* key = !k.has("sliding_window_pattern") && k.has("_sliding_window_pattern")
                                ? "_sliding_window_pattern" : "sliding_window_pattern";
            const int pattern = toInt(classDefault(k, m, key, 6, 1, kMaxLayers));
            m.slidingLayers = m.layers - m.layers / pattern;
        } else {
            m.slidingLayers = (m.layers + 1) / 2; // Gemma 2: even layers slide
        }
        readWindow(k, m, 4096); // Gemma2Config and Gemma3TextConfig default
        if (layout == HfLayout::Gemma3 && wrapped)
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
        // attention_chunk_size: Llama4TextConfig's default 8192 when absent; null
        // turns chunking off (every layer full).
        if (k.isNull("attention_chunk_size")) {
            k.used.insert("attention_chunk_size");
            m.chunkedLayers = 0;
        } else {
            m.chunkSize = toInt(classDefault(k, m, "attention_chunk_size", 8192, 1, kMaxPositions));
        }
        // moe_layers (transformers >= 4.57 writes it) overrides interleave_moe_layer_step.
        if (const json* ml = k.get("moe_layers"); ml && !ml->is_null()) {
            if (!ml->is_array() || ml->empty()) {
                k.fail("moe_layers", "must be a non-empty list of layer indices");
            } else {
                // Read as a step when the indices are step - 1, 2 step - 1, ... (the
                // interleave pattern); otherwise refused (not modelled).
                const auto n = std::int64_t(ml->size());
                const std::int64_t step = m.layers / n;
                bool regular = step >= 1 && m.layers / step == n;
                for (std::int64_t i = 0; regular && i < n; ++i)
                    regular = (*ml)[std::size_t(i)].is_number_integer()
                           && (*ml)[std::size_t(i)].get<std::int64_t>() == (i + 1) * step - 1;
                if (regular)
                    m.moe.sparseStep = toInt(step);
                else
                    k.fail("moe_layers", "only every k-th layer (k - 1, 2k - 1, ...) is supported");
            }
        }
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
        m.moe.experts = toInt(classDefault(k, m, "num_local_experts", 128, 1, kMaxExperts));
        // GptOssConfig: num_experts_per_tok (default 4); OpenAI's own config.json
        // names it experts_per_token.
        m.moe.active = toInt(classDefault(k, m, !k.has("num_experts_per_tok") && k.has("experts_per_token")
                                                    ? "experts_per_token" : "num_experts_per_tok", 4, 1, kMaxExperts));
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
        readDeepseek(k, m, layout == HfLayout::DeepseekV3);
        break;
    case HfLayout::Glm4Moe: {
        // Glm4MoeConfig (transformers c7ec229a): its defaults are GLM-4.5-Air's
        // shape ("GLM-4-MOE-100B-A10B"); head_dim is not a class attribute, the
        // modeling code takes getattr(config, "head_dim", hidden // heads).
        keys.experts = "n_routed_experts";
        keys.expertFfn = "moe_intermediate_size";
        Defaults d{
            .vocab = 151552, .hidden = 4096, .ffn = 10944, .layers = 46, .heads = 96, .kvHeads = 8,
            .maxPositions = 131072
        };
        readLlamaLike(k, m, d);
        auto dflt = [&](const char* key, std::int64_t fb, std::int64_t lo, std::int64_t hi) {
            return classDefault(k, m, key, fb, lo, hi);
        };
        m.moe.experts = toInt(dflt("n_routed_experts", 128, 1, kMaxExperts));
        m.moe.active = toInt(dflt("num_experts_per_tok", 8, 1, kMaxExperts));
        m.moe.expertFfnHidden = dflt("moe_intermediate_size", 1408, 1, kMaxFfnHidden);
        m.moe.shared = toInt(dflt("n_shared_experts", 1, 0, kMaxExperts));
        m.moe.denseLayers = toInt(dflt("first_k_dense_replace", 1, 0, kMaxLayers));
        m.moe.routerBias = true; // e_score_correction_bias
        m.qkvBias = k.booleanOr("attention_bias", false); // q/k/v only; o_proj has none
        if (k.booleanOr("use_qk_norm", false))
            m.qkNorm = ModelArch::QkNorm::PerHead;
        // The checkpoint stores the MTP layer (model.layers.<num_hidden_layers>.*);
        // transformers does not build it. The model cards' totals leave it out
        // (loadedParams()).
        m.mtpLayers = toInt(k.integerOr("num_nextn_predict_layers", 0, 0, 16));
        m.mtpOwnEmbeddings = true;
        break;
    }
    case HfLayout::GraniteMoeHybrid:
        readGraniteHybrid(k, keys, m);
        break;
    case HfLayout::NemotronH:
        readNemotronH(k, keys, m);
        break;
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
        if (k.r.ok() && m.hidden % m.heads != 0)
            k.r.fail("n_head", "must divide n_embd (" + std::to_string(m.hidden) + "), got " + std::to_string(m.heads));
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
        m.headDim = defaultHeadDim(k.r, "head_dim", m.hidden, m.heads, "hidden_size", "num_attention_heads");
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
}

} // namespace gp::detail::hf
