// config.json reader: quantization_config (MXFP4, FP8 blocks, AWQ/GPTQ,
// bitsandbytes, compressed-tensors, NVIDIA ModelOpt): how the checkpoint
// stores its weights, and which linear layers its ignore lists keep in 16-bit.
#include "core/model/hfread.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <string>

namespace gp::detail::hf {

namespace {

/// The linear layers an ignore list (compressed-tensors and ModelOpt "ignore",
/// transformers' "modules_to_not_convert", ModelOpt's "exclude_modules") keeps
/// in 16-bit, as a share of each kind. Entries name modules by path
/// ("model.layers.3.self_attn*", "language_model.model.layers.0.mlp.down_proj",
/// "re:.*self_attn.*"); entries outside the decoder layers (lm_head, the vision
/// tower, embeddings) are 16-bit already, as are norms and routers.
CheckpointQuant::Kept keptModules(const json& list, const ModelArch& m, int* unread)
{
    enum Kind { Attention, Linear, Dense, Experts, Shared, KindCount };
    std::set<int> idx[KindCount];
    bool all[KindCount] = {};
    const bool hybrid = m.linearLayers > 0 || m.mlpOnlyLayers > 0;
    for (const auto& e : list) {
        if (!e.is_string())
            continue;
        std::string s = e.get<std::string>();
        if (s.rfind("re:", 0) == 0)
            s = s.substr(3); // a regular expression: read by its module words
        bool tower = false; // the vision tower (its bytes are counted at 16 bits)
        for (const char* w : {"vision", "visual", "multi_modal", "mm_projector", "audio"})
            tower = tower || s.find(w) != std::string::npos;
        if (tower)
            continue;
        int layer = -1; // every layer (a wildcard, or a pattern without a layer path)
        std::string rest = s;
        if (const auto at = s.find("layers."); at != std::string::npos) {
            std::size_t p = at + 7;
            if (p >= s.size() || (s[p] != '*' && !std::isdigit(static_cast<unsigned char>(s[p])))) {
                ++*unread; // neither a layer index nor a wildcard
                continue;
            }
            if (std::isdigit(static_cast<unsigned char>(s[p]))) {
                layer = 0;
                while (p < s.size() && std::isdigit(static_cast<unsigned char>(s[p])) && layer < 1000000)
                    layer = layer * 10 + (s[p++] - '0');
                if (layer >= m.layers)
                    continue; // an MTP layer (model.layers.<num_hidden_layers>)
            }
            rest = s.substr(p);
        } else if (s.find("attn") == std::string::npos && s.find("mlp") == std::string::npos &&
                   s.find("expert") == std::string::npos && s.find("mixer") == std::string::npos) {
            continue; // lm_head, embeddings, norms: 16-bit already
        }
        auto has = [&](const char* w) { return rest.find(w) != std::string::npos; };
        auto mark = [&](Kind k) {
            if (layer < 0)
                all[k] = true;
            else
                idx[k].insert(layer);
        };
        auto ffn = [&] {
            if (layer < 0) {
                all[Dense] = all[Experts] = all[Shared] = true;
            } else if (m.isMoeLayer(layer)) {
                idx[Experts].insert(layer);
                idx[Shared].insert(layer);
            } else {
                idx[Dense].insert(layer);
            }
        };
        const bool whole = rest.empty() || rest == "*" || rest == ".*" || rest == ".*.*";
        const bool endsGate = rest.size() >= 5 && rest.compare(rest.size() - 5, 5, ".gate") == 0;
        if (has("router") || has("norm") || has("conv1d") || has("shared_expert_gate") || endsGate) {
            continue; // routers, gates, norms, convolutions: 16-bit already
        } else if (whole) {
            if (!hybrid)
                mark(Attention);
            ffn();
        } else if (has("linear_attn") || has("mixer.in_proj") || has("mixer.out_proj") || has("mamba")) {
            mark(Linear);
        } else if (has("shared_expert")) {
            mark(Shared);
        } else if (has("experts")) {
            mark(Experts);
        } else if (has("attn") || has("attention") || has("mixer.q_proj") || has("mixer.k_proj") ||
                   has("mixer.v_proj") || has("mixer.o_proj")) {
            mark(Attention);
        } else if ((has("mlp") || has("feed_forward")) && has("_proj")) {
            mark(Dense); // mlp.gate_proj/up_proj/down_proj: a dense FFN (experts sit under mlp.experts)
        } else if (has("mlp") || has("feed_forward") || has("mixer")) {
            ffn(); // a layer's whole FFN: dense, or every expert of a MoE layer
        } else {
            ++*unread;
        }
    }
    auto share = [&](Kind k, int of) {
        if (all[k])
            return 1.0;
        return of > 0 ? std::min(1.0, double(idx[k].size()) / of) : 0.0;
    };
    CheckpointQuant::Kept kept;
    kept.attention = share(Attention, m.attentionLayers());
    kept.linearMixer = share(Linear, m.linearLayers);
    const int moeLayers = m.moeLayers();
    kept.denseFfn = share(Dense, m.layers - m.ffnFreeLayers - moeLayers);
    kept.experts = share(Experts, moeLayers);
    kept.shared = share(Shared, moeLayers);
    return kept;
}

/// MLX (mlx_lm convert -q): every Linear and Embedding whose input width is a
/// multiple of group_size is quantized, the head and the embedding table
/// included; routers written as plain weights (MoEGate) and norms are not.
/// Affine mode keeps a 16-bit scale and bias per group; mxfp4/nvfp4 one scale
/// byte. mlx_lm saves the model's own parameters (utils.save_model), which
/// have no multi-token-prediction layer (glm4_moe's sanitize drops it).
void readMlx(const json& q, ModelArch& m, std::string& unknown)
{
    CheckpointQuant& c = m.quant;
    c.method = "mlx";
    const int bits = q["bits"].is_number_integer() ? q["bits"].get<int>() : 0;
    const int group = q["group_size"].is_number_integer() ? q["group_size"].get<int>() : 0;
    const std::string mode = q.contains("mode") && q["mode"].is_string() ? q["mode"].get<std::string>() : "affine";
    if (bits < 1 || bits > 8 || group < 1) {
        unknown = "MLX quantization of " + std::to_string(bits) + " bits, group " + std::to_string(group);
        return;
    }
    if (mode == "affine") {
        c.kind = QuantKind::Affine;
    } else if (mode == "mxfp4" || mode == "nvfp4") {
        c.kind = mode == "mxfp4" ? QuantKind::MXFP4 : QuantKind::NVFP4;
    } else {
        unknown = "MLX quantization mode \"" + mode + "\"";
        return;
    }
    c.bits = bits;
    c.groupSize = group;
    c.embeddingsQuantized = true;
    int perLayer = 0;
    for (const auto& [key, value] : q.items())
        perLayer += value.is_object() || value.is_boolean() ? 1 : 0;
    if (perLayer > 0)
        m.readNotes.push_back("MLX quantization: " + std::to_string(perLayer) + " per-layer entries (mixed precision) "
                              "not read; every quantized layer counted at " + std::to_string(bits) + " bits");
    if (m.mtpLayers > 0) {
        m.readNotes.push_back("MLX conversion: the multi-token-prediction layer (num_nextn_predict_layers " +
                              std::to_string(m.mtpLayers) + ") is not in the checkpoint (mlx_lm saves the layers it runs)");
        m.mtpLayers = 0;
    }
}

} // namespace

void readQuantization(Keys& k, ModelArch& m)
{
    // mlx_lm writes its quantization twice: "quantization" (what mlx_lm reads)
    // and "quantization_config" (a copy for the Hub); older conversions only the first.
    const json* mlx = k.get("quantization");
    const json* q = k.get("quantization_config");
    if (!q && mlx && mlx->is_object())
        q = mlx;
    if (!q)
        return;
    const std::string qp = k.r.keyPath("quantization_config");
    if (!q->is_object()) {
        k.fail("quantization_config", "must be an object, got " + detail::describe(*q));
        return;
    }
    auto str = [](const json& o, const char* key) {
        return o.contains(key) && o[key].is_string() ? o[key].get<std::string>() : "";
    };
    auto integer = [](const json& o, const char* key, int fb) {
        return o.contains(key) && o[key].is_number_integer() ? o[key].get<int>() : fb;
    };
    auto boolean = [&](const char* key) { return q->contains(key) && (*q)[key].is_boolean() && (*q)[key].get<bool>(); };
    CheckpointQuant& c = m.quant;
    c.method = str(*q, "quant_method");
    std::string unknown; // what is not read, said in the notes
    // NVIDIA ModelOpt writes quant_method "modelopt" and its quant_algo (older
    // exports: quant_algo and producer "modelopt" only, no quant_method).
    const std::string algo = str(*q, "quant_algo");
    if (c.method.empty() && algo.empty() && q->contains("bits") && q->contains("group_size")) {
        readMlx(*q, m, unknown);
    } else if (c.method == "modelopt" || (c.method.empty() && !algo.empty())) {
        if (c.method.empty())
            c.method = "modelopt";
        // The weight group of config_groups, when written, gives the NVFP4 group.
        int group = integer(*q, "group_size", 16);
        if (q->contains("config_groups") && (*q)["config_groups"].is_object() && !(*q)["config_groups"].empty()) {
            const json& g = (*q)["config_groups"].begin().value();
            if (g.is_object() && g.contains("weights") && g["weights"].is_object())
                group = integer(g["weights"], "group_size", group);
        }
        if (algo.rfind("FP8", 0) == 0) {
            c.kind = QuantKind::FP8; // per-tensor (or per-channel) scales
            c.bits = 8;
        } else if (algo == "NVFP4" || algo == "W4A16_NVFP4" || algo == "NVFP4_AWQ") {
            c.kind = QuantKind::NVFP4;
            c.bits = 4;
            c.groupSize = std::clamp(group, 1, 1 << 20);
        } else if (algo == "W4A16_AWQ" || algo == "W4A8_AWQ" || algo == "INT4_AWQ") {
            c.kind = QuantKind::IntGroup; // int4, one 16-bit scale per 128 inputs, symmetric
            c.bits = 4;
            c.groupSize = std::clamp(integer(*q, "group_size", 128), 1, 1 << 20);
            c.zeroPoint = false;
        } else {
            unknown = "quant_algo \"" + algo + "\"";
            if (algo == "MIXED_PRECISION")
                unknown += " (a format per layer, quantized_layers)";
        }
    } else if (c.method == "mxfp4") {
        // transformers' Mxfp4 quantizer converts the experts only; attention,
        // router, embeddings and head stay BF16 (modules_to_not_convert). A
        // dense model has no experts to convert.
        if (m.moe.enabled()) {
            c.kind = QuantKind::MXFP4;
            c.bits = 4;
            c.groupSize = 32;
            c.expertsOnly = true;
        } else {
            unknown = "quant_method \"mxfp4\" on a dense model (transformers converts MoE experts only)";
        }
    } else if (c.method == "fbgemm_fp8") {
        // FBGEMM FP8 (Meta's Llama 4 Maverick FP8): per-row FP8 weights, one fp32
        // scale per output row; modules_to_not_convert lists what stays BF16.
        c.kind = QuantKind::FP8;
        c.bits = 8;
    } else if (c.method == "fp8") {
        const json* block = q->contains("weight_block_size") ? &(*q)["weight_block_size"] : nullptr;
        if (block && block->is_array() && block->size() == 2 && (*block)[0].is_number_integer()) {
            c.kind = QuantKind::FP8Block;
            c.groupSize = std::clamp((*block)[0].get<int>(), 1, 1 << 20);
        } else {
            c.kind = QuantKind::FP8;
        }
        c.bits = 8;
    } else if (c.method == "awq" || c.method == "gptq" || c.method == "auto-round" || c.method == "intel/auto-round") {
        // AutoRound exports pack like GPTQ (qweight, qzeros, 16-bit scales per group).
        c.kind = QuantKind::IntGroup;
        c.bits = integer(*q, "bits", integer(*q, "w_bit", 4));
        c.groupSize = integer(*q, "group_size", integer(*q, "q_group_size", 128));
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
        // The weights of the config group that targets Linear (else the first):
        // FP8 (per tensor, channel or 128x128 block), NVFP4 (4-bit float, group
        // 16), int4/int8 W4A16/W8A8 (symmetric unless said: no zero point).
        const json* groups = q->contains("config_groups") ? &(*q)["config_groups"] : nullptr;
        const json* w = nullptr;
        if (groups && groups->is_object()) {
            for (const auto& [name, g] : groups->items()) {
                if (!g.is_object() || !g.contains("weights") || !g["weights"].is_object())
                    continue;
                const bool linear = g.contains("targets") && g["targets"].is_array() &&
                                    std::find(g["targets"].begin(), g["targets"].end(), "Linear") != g["targets"].end();
                if (!w || linear)
                    w = &g["weights"];
                if (linear)
                    break;
            }
            if (groups->size() > 1)
                m.readNotes.push_back(qp + ".config_groups: " + std::to_string(groups->size()) +
                                      " groups; the Linear group's weight format is counted for every quantized layer");
        }
        if (w) {
            const int bits = integer(*w, "num_bits", 16);
            const std::string type = str(*w, "type");
            const json* block = w->contains("block_structure") ? &(*w)["block_structure"] : nullptr;
            if (bits == 8 && type == "float") {
                c.bits = 8;
                if (block && block->is_array() && block->size() == 2 && (*block)[0].is_number_integer()) {
                    c.kind = QuantKind::FP8Block;
                    c.groupSize = std::clamp((*block)[0].get<int>(), 1, 1 << 20);
                } else {
                    c.kind = QuantKind::FP8;
                }
            } else if (bits == 4 && type == "float") {
                // NVFP4 (group 16, E4M3 scales) or MXFP4 (group 32, E8M0 scales:
                // mxfp4-pack-quantized); one scale byte per group either way.
                c.groupSize = std::clamp(integer(*w, "group_size", 16), 1, 1 << 20);
                c.kind = c.groupSize == 32 ? QuantKind::MXFP4 : QuantKind::NVFP4;
                c.bits = 4;
            } else if (bits >= 1 && bits <= 8 && type == "int") {
                c.kind = QuantKind::IntGroup;
                c.bits = bits;
                c.groupSize = std::max(0, integer(*w, "group_size", 0));
                c.zeroPoint = w->contains("symmetric") && (*w)["symmetric"].is_boolean() && !(*w)["symmetric"].get<bool>();
            } else {
                unknown = "weights of " + std::to_string(bits) + " bits, type \"" + type + "\"";
            }
        }
    }
    if (!c.quantized()) {
        if (unknown.empty())
            unknown = "quant_method \"" + c.method + "\"";
        m.readNotes.push_back(qp + ": " + unknown + " not read; the weights are counted at the checkpoint's torch_dtype");
        return;
    }
    // The modules the checkpoint keeps in 16-bit.
    if (c.expertsOnly)
        return;
    int unread = 0;
    for (const char* key : {"ignore", "modules_to_not_convert", "exclude_modules", "llm_int8_skip_modules"}) {
        if (q->contains(key) && (*q)[key].is_array()) {
            const CheckpointQuant::Kept kk = keptModules((*q)[key], m, &unread);
            c.kept.attention = std::max(c.kept.attention, kk.attention);
            c.kept.linearMixer = std::max(c.kept.linearMixer, kk.linearMixer);
            c.kept.denseFfn = std::max(c.kept.denseFfn, kk.denseFfn);
            c.kept.experts = std::max(c.kept.experts, kk.experts);
            c.kept.shared = std::max(c.kept.shared, kk.shared);
        }
    }
    const auto& kept = c.kept;
    std::string list;
    auto add = [&](double share, const char* what) {
        if (share <= 0)
            return;
        const int pct = int(share * 100 + 0.5);
        list += (list.empty() ? "" : ", ") + std::string(what) + (pct >= 100 ? "" : " (" + std::to_string(pct) + "%)");
    };
    add(kept.attention, "attention");
    add(kept.linearMixer, "linear-attention/Mamba mixers");
    add(kept.denseFfn, "dense FFNs");
    add(kept.experts, "routed experts");
    add(kept.shared, "shared experts");
    if (!list.empty())
        m.readNotes.push_back(qp + ": the ignore list keeps in 16-bit: " + list);
    if (unread > 0)
        m.readNotes.push_back(qp + ": " + std::to_string(unread) + " ignore-list entries not matched to a layer kind "
                                   "(counted as quantized)");
}

} // namespace gp::detail::hf
