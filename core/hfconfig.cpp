#include "hfconfig.h"

#include "errors.h"
#include "jsonread.h"
#include "modelcheck.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <optional>
#include <utility>

namespace gp {

namespace {

using json = nlohmann::json;
using namespace detail;

// ---------------------------------------------------------------------------
// Hugging Face config.json layouts.

enum class HfLayout { Llama, Mixtral, Qwen2, Qwen2Moe, Gpt2, Bert, DeepseekV3 };

struct HfType {
    const char* modelType;
    const char* architecturePrefix; // of architectures[0], for configs without model_type
    HfLayout layout;
};

// Order matters for the prefix match: Qwen2Moe before Qwen2.
const std::array<HfType, 8> kHfTypes = {{
    {"llama", "Llama", HfLayout::Llama},
    {"mistral", "Mistral", HfLayout::Llama},
    {"mixtral", "Mixtral", HfLayout::Mixtral},
    {"qwen2_moe", "Qwen2Moe", HfLayout::Qwen2Moe},
    {"qwen2", "Qwen2", HfLayout::Qwen2},
    {"gpt2", "GPT2", HfLayout::Gpt2},
    {"bert", "Bert", HfLayout::Bert},
    {"deepseek_v3", "DeepseekV3", HfLayout::DeepseekV3},
}};

std::string supportedHfTypes()
{
    std::string s;
    for (const auto& t : kHfTypes)
        s += (s.empty() ? "" : ", ") + std::string(t.modelType);
    return s;
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
    return k;
}

/// The keys Llama, Mistral, Mixtral, Qwen2 and DeepSeek-V3 share.
void readLlamaLike(ObjectReader& r, ModelArch& m, const KeyNames& k)
{
    m.layers = toInt(r.integer(k.layers, 1, kMaxLayers));
    m.hidden = toInt(r.integer(k.hidden, 1, kMaxHidden));
    m.heads = toInt(r.integer(k.heads, 1, kMaxHeads));
    m.kvHeads = toInt(r.integerOr(k.kvHeads, m.heads, 1, kMaxHeads));
    m.headDim = defaultHeadDim(r, k.headDim, m.hidden, m.heads, k.hidden, k.heads);
    m.ffnHidden = r.integer(k.ffnHidden, 1, kMaxFfnHidden);
    m.vocab = r.integer(k.vocab, 1, kMaxVocab);
    m.tiedEmbeddings = r.booleanOr("tie_word_embeddings", false);
    m.maxPositions = r.integerOr(k.maxPositions, 0, 0, kMaxPositions);
    m.family = ModelFamily::Decoder;
    m.ffn = FfnKind::SwiGLU; // gated FFN whatever hidden_act says
    m.positional = Positional::Rope;
    m.biases = false;
}

const HfType* typeFromArchitectures(const json& config)
{
    if (!config.contains("architectures") || !config.at("architectures").is_array())
        return nullptr;
    for (const auto& a : config.at("architectures")) {
        if (!a.is_string())
            continue;
        const auto name = a.get<std::string>();
        for (const auto& t : kHfTypes) {
            if (name.rfind(t.architecturePrefix, 0) == 0)
                return &t;
        }
    }
    return nullptr;
}

bool looksLlamaLike(const json& config)
{
    for (const char* key : {"num_hidden_layers", "hidden_size", "num_attention_heads", "intermediate_size"}) {
        if (!config.contains(key))
            return false;
    }
    return true;
}

void readGpt2(ObjectReader& r, ModelArch& m, KeyNames& k)
{
    k.layers = "n_layer";
    k.hidden = "n_embd";
    k.heads = "n_head";
    k.kvHeads = "n_head";
    k.headDim = "n_embd";
    k.ffnHidden = "n_inner";
    k.maxPositions = "n_positions";
    m.layers = toInt(r.integer("n_layer", 1, kMaxLayers));
    m.hidden = toInt(r.integer("n_embd", 1, kMaxHidden));
    m.heads = toInt(r.integer("n_head", 1, kMaxHeads));
    m.kvHeads = m.heads;
    if (r.ok() && m.hidden % m.heads != 0)
        r.fail("n_head", "must divide n_embd (" + std::to_string(m.hidden) + "), got " + std::to_string(m.heads));
    m.headDim = std::max(1, m.hidden / m.heads);
    // n_inner is null in the released GPT-2 configs: the MLP is 4 x n_embd.
    m.ffnHidden = r.integerOr("n_inner", 4 * std::int64_t(m.hidden), 1, kMaxFfnHidden);
    m.vocab = r.integer("vocab_size", 1, kMaxVocab);
    m.maxPositions = r.integerOr("n_positions", 1024, 1, kMaxPositions);
    m.tiedEmbeddings = r.booleanOr("tie_word_embeddings", true);
    m.family = ModelFamily::Decoder;
    m.ffn = FfnKind::GELU;
    m.positional = Positional::Learned;
    m.biases = true;
}

void readBert(ObjectReader& r, ModelArch& m, KeyNames& k)
{
    k = llamaKeys();
    k.kvHeads = "num_attention_heads";
    m.layers = toInt(r.integer("num_hidden_layers", 1, kMaxLayers));
    m.hidden = toInt(r.integer("hidden_size", 1, kMaxHidden));
    m.heads = toInt(r.integer("num_attention_heads", 1, kMaxHeads));
    m.kvHeads = m.heads;
    m.headDim = defaultHeadDim(r, "head_dim", m.hidden, m.heads, "hidden_size", "num_attention_heads");
    m.ffnHidden = r.integer("intermediate_size", 1, kMaxFfnHidden);
    m.vocab = r.integer("vocab_size", 1, kMaxVocab);
    m.maxPositions = r.integerOr("max_position_embeddings", 512, 1, kMaxPositions);
    // Read to validate it; the count assumes BERT's 2 (see kEncoderTokenTypes).
    (void)r.integerOr("type_vocab_size", kEncoderTokenTypes, 1, kMaxVocab);
    m.family = ModelFamily::Encoder;
    m.ffn = FfnKind::GELU;
    m.positional = Positional::Learned;
    m.tiedEmbeddings = true; // the MLM decoder reuses the word embeddings
    m.biases = true;
}

void readDeepseekV3(ObjectReader& r, ModelArch& m, KeyNames& k)
{
    k.experts = "n_routed_experts";
    k.expertFfn = "moe_intermediate_size";
    readLlamaLike(r, m, k);
    m.mlaKvLoraRank = toInt(r.integer("kv_lora_rank", 1, kMaxLoraRank));
    m.mlaRopeHeadDim = toInt(r.integer("qk_rope_head_dim", 1, kMaxHeadDim));
    const auto qRank = r.integer("q_lora_rank", 1, kMaxLoraRank);
    if (r.ok() && qRank != kMlaQLoraRank)
        r.fail("q_lora_rank", "only DeepSeek-V3's " + std::to_string(kMlaQLoraRank) + " is supported, got "
                                  + std::to_string(qRank));
    const auto nope = r.integer("qk_nope_head_dim", 1, kMaxHeadDim);
    const auto vDim = r.integer("v_head_dim", 1, kMaxHeadDim);
    if (r.ok() && nope != vDim)
        r.fail("v_head_dim", "must equal qk_nope_head_dim (" + std::to_string(nope) + ") for this estimate, got "
                                 + std::to_string(vDim));
    // MLA's per-head width: the nope part of q/k and the value head.
    m.headDim = toInt(nope);
    m.moe.experts = toInt(r.integer("n_routed_experts", 1, kMaxExperts));
    m.moe.active = toInt(r.integer("num_experts_per_tok", 1, kMaxExperts));
    m.moe.shared = toInt(r.integerOr("n_shared_experts", 0, 0, kMaxExperts));
    m.moe.expertFfnHidden = r.integer("moe_intermediate_size", 1, kMaxFfnHidden);
    m.moe.denseLayers = toInt(r.integerOr("first_k_dense_replace", 0, 0, kMaxLayers));
    if (r.integerOr("moe_layer_freq", 1, 1, kMaxLayers) != 1)
        r.fail("moe_layer_freq", "only 1 (every layer after first_k_dense_replace is MoE) is supported");
}

void readQwen2Moe(ObjectReader& r, ModelArch& m, KeyNames& k)
{
    k.experts = "num_experts";
    k.expertFfn = "moe_intermediate_size";
    k.shared = "shared_expert_intermediate_size";
    readLlamaLike(r, m, k);
    m.qkvBias = true;
    m.moe.experts = toInt(r.integer("num_experts", 1, kMaxExperts));
    m.moe.active = toInt(r.integer("num_experts_per_tok", 1, kMaxExperts));
    m.moe.expertFfnHidden = r.integer("moe_intermediate_size", 1, kMaxFfnHidden);
    // The shared expert is one wide FFN; as a width it is a whole number of
    // routed-expert widths in every Qwen MoE (5632 = 4 x 1408), so it is
    // counted as that many shared experts. Its 1-wide gate is ignored.
    const auto sharedWidth = r.integerOr("shared_expert_intermediate_size", 0, 0, kMaxFfnHidden);
    if (r.ok() && sharedWidth % m.moe.expertFfnHidden != 0)
        r.fail("shared_expert_intermediate_size",
               "must be a multiple of moe_intermediate_size (" + std::to_string(m.moe.expertFfnHidden)
                   + ") for this estimate, got " + std::to_string(sharedWidth));
    m.moe.shared = toInt(sharedWidth / std::max<std::int64_t>(1, m.moe.expertFfnHidden));
    if (r.integerOr("decoder_sparse_step", 1, 1, kMaxLayers) != 1)
        r.fail("decoder_sparse_step", "only 1 (every layer MoE) is supported");
    if (r.has("mlp_only_layers") && !(r.at("mlp_only_layers").is_array() && r.at("mlp_only_layers").empty()))
        r.fail("mlp_only_layers", "only an empty list is supported");
}

} // namespace

ModelArch modelFromHfConfig(const nlohmann::json& config, const std::string& path)
{
    if (!config.is_object())
        throw InputError(path, "must be a JSON object (the contents of config.json)");

    std::string modelType;
    std::optional<HfLayout> layout;
    const std::string typePath = joinPath(path, "model_type");
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
            throw InputError(typePath, "unsupported model type \"" + modelType
                                           + "\"; supported: " + supportedHfTypes());
    } else if (const HfType* fromArch = typeFromArchitectures(config)) {
        layout = fromArch->layout;
        modelType = fromArch->modelType;
    } else if (looksLlamaLike(config)) {
        // Hand-written configs often drop model_type; the Llama keys are the
        // de-facto standard, so read them as Llama.
        layout = HfLayout::Llama;
        modelType = "llama";
    } else {
        throw InputError(typePath, "missing, and the keys do not look like a Llama-style config; supported: "
                                       + supportedHfTypes());
    }

    ModelArch m;
    KeyNames keys = llamaKeys();
    ObjectReader r(config, path);
    switch (*layout) {
    case HfLayout::Llama:
        readLlamaLike(r, m, keys);
        break;
    case HfLayout::Qwen2:
        readLlamaLike(r, m, keys);
        m.qkvBias = true; // Qwen2 attention: q/k/v have biases, o_proj none
        break;
    case HfLayout::Mixtral:
        keys.experts = "num_local_experts";
        readLlamaLike(r, m, keys);
        m.moe.experts = toInt(r.integer("num_local_experts", 1, kMaxExperts));
        m.moe.active = toInt(r.integer("num_experts_per_tok", 1, kMaxExperts));
        m.moe.expertFfnHidden = m.ffnHidden; // each expert is a full-width SwiGLU FFN
        break;
    case HfLayout::Qwen2Moe:
        readQwen2Moe(r, m, keys);
        break;
    case HfLayout::Gpt2:
        readGpt2(r, m, keys);
        break;
    case HfLayout::Bert:
        readBert(r, m, keys);
        break;
    case HfLayout::DeepseekV3:
        readDeepseekV3(r, m, keys);
        break;
    }
    std::vector<Diagnostic> problems = r.takeProblems();
    if (problems.empty())
        checkArch(m, path, keys, problems);
    throwIfAny(std::move(problems));

    m.source = "hf_config";
    m.name = modelType;
    if (config.contains("_name_or_path") && config.at("_name_or_path").is_string()
        && !config.at("_name_or_path").get<std::string>().empty())
        m.name = config.at("_name_or_path").get<std::string>();
    return m;
}

} // namespace gp
