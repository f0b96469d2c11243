// config.json reader: the hybrid Mamba-2 layouts, Granite 4.0-H
// (granitemoehybrid) and Nemotron-H (nemotron_h), with their configuration
// classes' defaults for the keys a config.json leaves out.
#include "core/model/hfread.h"

#include <algorithm>
#include <string>
#include <vector>

namespace gp::detail::hf {

void readGraniteHybrid(Keys& k, KeyNames& keys, ModelArch& m)
{
    // GraniteMoeHybridConfig (transformers 008f5c8c): the defaults below
    // apply when config.json leaves a key out.
    keys.experts = "num_local_experts";
    readLlamaLike(k, m);
    m.tiedEmbeddings = k.booleanOr("tie_word_embeddings", false);
    auto dflt = [&](const char* key, std::int64_t fb, std::int64_t lo, std::int64_t hi) {
        return classDefault(k, m, key, fb, lo, hi);
    };
    const auto experts = dflt("num_local_experts", 8, 0, kMaxExperts);
    // Every layer has the shared MLP (shared_intermediate_size); MoE layers
    // add the routed experts (intermediate_size wide) when experts > 0.
    const auto sharedWidth = dflt("shared_intermediate_size", 1024, 0, kMaxFfnHidden);
    if (experts > 0) {
        m.moe.experts = toInt(experts);
        m.moe.active = toInt(dflt("num_experts_per_tok", 2, 1, kMaxExperts));
        m.moe.expertFfnHidden = m.ffnHidden;
        if (sharedWidth > 0) {
            m.moe.shared = 1;
            m.moe.sharedFfnHidden = sharedWidth;
        }
    } else {
        (void)k.integerOr("num_experts_per_tok", 0, 0, kMaxExperts);
        if (sharedWidth > 0)
            m.ffnHidden = sharedWidth; // dense: the shared MLP is the FFN
    }
    std::vector<std::string> types;
    if (!k.has("layer_types") && k.has("layers_block_type")) {
        // attribute_map: layers_block_type is layer_types' old name.
        const json* lt = k.get("layers_block_type");
        if (!lt->is_array() || lt->size() != std::size_t(m.layers)) {
            k.fail("layers_block_type", "must be a list of num_hidden_layers (" + std::to_string(m.layers)
                                            + ") layer kinds");
        } else {
            for (const auto& t : *lt)
                types.push_back(t.is_string() ? t.get<std::string>() : std::string("?"));
            applyLayerTypes(k, m, types);
        }
    } else if (readLayerTypes(k, m, types)) {
        applyLayerTypes(k, m, types);
    } else {
        // GraniteMoeHybridConfig.layers_block_type: "mamba" for every layer when
        // layer_types is absent; a model without attention layers is not modelled.
        k.fail("layer_types", "absent: GraniteMoeHybridConfig then makes every layer Mamba-2, and a model "
                              "without attention layers is not supported; give layer_types");
    }
    const auto expand = dflt("mamba_expand", 2, 1, 64);
    const auto heads = dflt("mamba_n_heads", 128, 1, kMaxHeads);
    // mamba_d_head "auto" (the default): mamba_expand x hidden_size / mamba_n_heads.
    std::int64_t headDim = 0;
    if (k.has("mamba_d_head") && k.r.at("mamba_d_head").is_number_integer()) {
        headDim = k.integer("mamba_d_head", 1, kMaxHeadDim);
    } else {
        k.used.insert("mamba_d_head");
        headDim = std::max<std::int64_t>(1, expand * m.hidden / heads);
        m.readNotes.push_back("mamba_d_head absent or \"auto\": mamba_expand x hidden_size / mamba_n_heads = "
                              + std::to_string(headDim));
    }
    const double dState = double(dflt("mamba_d_state", 256, 1, kMaxHeadDim));
    const double groups = double(k.integerOr("mamba_n_groups", 1, 1, kMaxHeads));
    const double kernel = double(k.integerOr("mamba_d_conv", 4, 1, 1024));
    mamba2(m, double(heads), double(headDim), dState, groups, kernel, k.booleanOr("mamba_conv_bias", true),
           k.booleanOr("mamba_proj_bias", false));
}

void readNemotronH(Keys& k, KeyNames& keys, ModelArch& m)
{
    // NemotronHConfig (transformers 13923c63): the block kinds come from
    // hybrid_override_pattern (M mamba, * attention, - MLP, E MoE) or, as
    // transformers 5 writes them, layers_block_type / layer_types
    // (linear_attention, full_attention, mlp, moe; legacy mamba, attention).
    keys.headDim = k.has("attention_head_dim") ? "attention_head_dim" : "head_dim";
    keys.linearLayers = keys.slidingLayers = "hybrid_override_pattern";
    std::string pattern;
    const char* patternKey = "hybrid_override_pattern";
    if (const json* pat = k.get("hybrid_override_pattern"); pat && pat->is_string()) {
        pattern = pat->get<std::string>();
    } else {
        patternKey = k.has("layers_block_type") ? "layers_block_type" : "layer_types";
        const json* list = k.get(patternKey);
        if (list && list->is_array()) {
            for (const auto& t : *list) {
                const std::string kind = t.is_string() ? t.get<std::string>() : "";
                pattern += kind == "mamba" || kind == "linear_attention" ? 'M'
                         : kind == "attention" || kind == "full_attention" ? '*'
                         : kind == "mlp" ? '-' : kind == "moe" ? 'E' : '?';
            }
        }
    }
    Defaults d{
        .vocab = 131072, .hidden = 4096, .ffn = 21504, .heads = 32, .kvHeads = 8, .headDim = 128,
        .maxPositions = 4096
    };
    if (!k.has("num_hidden_layers") && !pattern.empty())
        d.layers = std::int64_t(pattern.size()); // the block list sets the depth
    // Older configs name the attention head width attention_head_dim.
    const bool legacyHeadDim = !k.has("head_dim") && k.has("attention_head_dim");
    if (legacyHeadDim)
        d.headDim = k.integer("attention_head_dim", 1, kMaxHeadDim);
    readLlamaLike(k, m, d);
    if (legacyHeadDim)
        std::erase_if(m.readNotes, [](const std::string& n) { return n.rfind("head_dim absent", 0) == 0; });
    m.ffn = FfnKind::GELU; // relu2 MLP: up and down projections, no gate
    m.normsPerLayer = 1;   // one RMSNorm per block
    if (pattern.size() != std::size_t(m.layers)) {
        k.fail(patternKey, "must give num_hidden_layers (" + std::to_string(m.layers) +
                               ") block kinds (M, *, -, E)");
        return;
    }
    int mamba = 0, attn = 0, mlp = 0, moe = 0;
    for (char c : pattern) {
        if (c == 'M')
            ++mamba;
        else if (c == '*')
            ++attn;
        else if (c == '-')
            ++mlp;
        else if (c == 'E')
            ++moe;
        else
            k.fail(patternKey, std::string("unknown block kind '") + c + "' (known: M, *, -, E)");
    }
    if (mlp > 0 && moe > 0)
        k.fail(patternKey, "MLP ('-') and MoE ('E') blocks in one model are not supported");
    m.linearLayers = mamba;
    m.mlpOnlyLayers = mlp + moe;
    m.ffnFreeLayers = mamba + attn;
    if (moe > 0) {
        // NemotronHMoE: relu2 routed experts (up, down), one shared expert of
        // moe_shared_expert_intermediate_size, a router with a score-correction bias.
        keys.experts = "n_routed_experts";
        keys.expertFfn = "moe_intermediate_size";
        m.moe.experts = toInt(classDefault(k, m, "n_routed_experts", 8, 1, kMaxExperts));
        m.moe.active = toInt(classDefault(k, m, "num_experts_per_tok", 2, 1, kMaxExperts));
        m.moe.expertFfnHidden = classDefault(k, m, "moe_intermediate_size", 7688, 1, kMaxFfnHidden);
        const auto shared = classDefault(k, m, "n_shared_experts", 1, 0, kMaxExperts);
        const auto sharedWidth = classDefault(k, m, "moe_shared_expert_intermediate_size", 7688, 1, kMaxFfnHidden);
        if (shared > 0) {
            m.moe.shared = 1;
            m.moe.sharedFfnHidden = shared * sharedWidth;
        }
        m.moe.routerBias = true;
        if (k.has("moe_latent_size") && !k.isNull("moe_latent_size")) {
            // LatentMoE (Nemotron 3 Super): the router reads the hidden state,
            // fc1_latent_proj (hidden -> latent) feeds the routed experts, which run
            // latent -> moe_intermediate_size -> latent, and fc2_latent_proj brings
            // the sum back; the shared expert works on the hidden state. Counted as
            // routed experts of width inter x latent / hidden over the hidden size
            // (the same parameters and FLOPs) and the two projections as a
            // latent-wide part of the always-on shared path.
            const auto latent = k.integer("moe_latent_size", 1, kMaxFfnHidden);
            const auto inter = m.moe.expertFfnHidden;
            const auto width = std::max<std::int64_t>(1, (inter * latent + m.hidden / 2) / m.hidden);
            m.moe.expertFfnHidden = width;
            m.moe.shared = 1;
            m.moe.sharedFfnHidden = (shared > 0 ? shared * sharedWidth : 0) + latent;
            m.readNotes.push_back("moe_latent_size " + std::to_string(latent) + ": routed experts run in the latent ("
                                  + std::to_string(inter) + " wide), counted as " + std::to_string(width)
                                  + "-wide experts over the hidden size; the latent projections with the shared expert"
                                  + ((inter * latent) % m.hidden != 0 ? " (width rounded)" : ""));
        }
    }
    // Legacy names (mamba_n_groups, mamba_d_conv, mamba_expand, mamba_conv_bias)
    // are read as the current ones, as NemotronHConfig does.
    auto alias = [&](const char* now, const char* legacy) { return k.has(now) || !k.has(legacy) ? now : legacy; };
    const double heads = double(classDefault(k, m, "mamba_num_heads", 128, 1, kMaxHeads));
    const double headDim = double(classDefault(k, m, "mamba_head_dim", 64, 1, kMaxHeadDim));
    const double dState = double(classDefault(k, m, "ssm_state_size", 128, 1, kMaxHeadDim));
    const double groups = double(k.integerOr(alias("n_groups", "mamba_n_groups"), 8, 1, kMaxHeads));
    const double kernel = double(k.integerOr(alias("conv_kernel", "mamba_d_conv"), 4, 1, 1024));
    (void)k.integerOr(alias("expand", "mamba_expand"), 2, 1, 64);
    // mamba_ssm_cache_dtype (Nemotron 3 writes "float32"): the SSM state's dtype in
    // the cache; vLLM's NemotronH config hook takes it from config.json
    // (vllm/model_executor/models/config.py NemotronHForCausalLMConfig). The conv
    // state stays in the model dtype.
    double ssmBytes = 2;
    if (const json* dt = k.get("mamba_ssm_cache_dtype"); dt && dt->is_string()) {
        const auto s = dt->get<std::string>();
        if (s == "float32") {
            ssmBytes = 4;
            m.readNotes.push_back("mamba_ssm_cache_dtype float32: the SSM state is kept in 4 bytes per value");
        } else if (s != "bfloat16" && s != "float16" && s != "auto") {
            k.fail("mamba_ssm_cache_dtype", "must be float32, bfloat16, float16 or auto, got \"" + s + "\"");
        }
    }
    mamba2(m, heads, headDim, dState, groups, kernel, k.booleanOr(alias("use_conv_bias", "mamba_conv_bias"), true),
           k.booleanOr("use_bias", false) || k.booleanOr("mamba_proj_bias", false), ssmBytes);
    if (k.booleanOr("mlp_bias", false) || k.booleanOr("attention_bias", false))
        k.fail("attention_bias", "only false is supported");
    m.mtpLayers = toInt(k.integerOr("num_nextn_predict_layers", 0, 0, 16));
}

} // namespace gp::detail::hf
