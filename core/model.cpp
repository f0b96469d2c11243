#include "model.h"

#include "errors.h"
#include "jsonread.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <utility>

namespace gp {

namespace {

using json = nlohmann::json;

// Sanity bounds: far beyond any real model, tight enough to catch typos
// (an extra zero, a byte count where a count was meant) and to keep the
// values inside int.
constexpr std::int64_t kMaxLayers = 1000;
constexpr std::int64_t kMaxHidden = 1'000'000;
constexpr std::int64_t kMaxHeads = 100'000;
constexpr std::int64_t kMaxHeadDim = 100'000;
constexpr std::int64_t kMaxFfnHidden = 10'000'000;
constexpr std::int64_t kMaxVocab = 100'000'000;
constexpr std::int64_t kMaxPositions = 1'000'000'000;
constexpr std::int64_t kMaxExperts = 4096;
constexpr std::int64_t kMaxLoraRank = 1'000'000;

// DeepSeek-V3's MLA query low-rank dimension. ModelArch carries only the two
// MLA dims that size the KV cache; the query rank only matters for the
// parameter count, and every model using this layout (DeepSeek-V3, R1,
// Kimi K2) has 1536, so it stays a constant here. The nope/value head dims
// are ModelArch::headDim (both 128 in V3; the HF reader checks they agree).
constexpr std::int64_t kMlaQLoraRank = 1536;

// BERT adds token-type (segment) embeddings. Every BERT checkpoint we care
// about has type_vocab_size 2, and the difference for other values is a few
// thousand parameters, so it is a constant rather than a ModelArch field.
constexpr std::int64_t kEncoderTokenTypes = 2;

double dbl(std::int64_t v) { return static_cast<double>(v); }

// ---------------------------------------------------------------------------
// Parameter counting. Everything is computed from the shape so the three
// input forms (preset, explicit, hf_config) can never disagree.

/// One normalization layer: LayerNorm has weight + bias, RMSNorm weight only.
double normParams(const ModelArch& m) { return m.biases ? 2.0 * m.hidden : dbl(m.hidden); }

double attentionParams(const ModelArch& m)
{
    const double h = m.hidden;
    const double hd = m.headDim;
    const double heads = m.heads;
    if (m.mlaKvLoraRank > 0) {
        // Multi-head latent attention (DeepSeek-V3 modeling code):
        // q_a_proj, q_a_layernorm, q_b_proj, kv_a_proj_with_mqa,
        // kv_a_layernorm, kv_b_proj, o_proj; no biases.
        const double qRank = dbl(kMlaQLoraRank);
        const double kvRank = m.mlaKvLoraRank;
        const double rope = m.mlaRopeHeadDim;
        return h * qRank + qRank + qRank * heads * (hd + rope) + h * (kvRank + rope) + kvRank
             + kvRank * heads * (hd + hd) + heads * hd * h;
    }
    const double qOut = heads * hd;
    const double kvOut = static_cast<double>(m.kvHeads) * hd;
    double p = h * qOut + 2.0 * h * kvOut + qOut * h;
    if (m.biases || m.qkvBias)
        p += qOut + 2.0 * kvOut;
    if (m.biases)
        p += h; // o_proj bias
    return p;
}

/// One FFN (a dense FFN, or one expert) of inner width `inner`.
double ffnParams(const ModelArch& m, double inner)
{
    const double h = m.hidden;
    if (m.ffn == FfnKind::SwiGLU)
        return 3.0 * h * inner + (m.biases ? 2.0 * inner + h : 0.0);
    return 2.0 * h * inner + (m.biases ? inner + h : 0.0);
}

int moeLayerCount(const ModelArch& m) { return m.moe.enabled() ? m.layers - m.moe.denseLayers : 0; }

/// Routed experts a token skips, summed over all MoE layers.
double inactiveExpertParams(const ModelArch& m)
{
    if (!m.moe.enabled())
        return 0;
    return static_cast<double>(moeLayerCount(m)) * (m.moe.experts - m.moe.active)
         * ffnParams(m, dbl(m.moe.expertFfnHidden));
}

// ---------------------------------------------------------------------------
// Validation shared by validate(), the explicit reader and the HF reader. The
// key names differ between the forms, so the checks take them as data.

struct KeyNames {
    std::string layers = "layers";
    std::string hidden = "hidden";
    std::string heads = "heads";
    std::string kvHeads = "kv_heads";
    std::string headDim = "head_dim";
    std::string ffnHidden = "ffn_hidden";
    std::string vocab = "vocab";
    std::string maxPositions = "max_positions";
    std::string kvLoraRank = "mla_kv_lora_rank";
    std::string ropeHeadDim = "mla_rope_head_dim";
    std::string experts = "moe.experts";
    std::string active = "moe.active";
    std::string shared = "moe.shared";
    std::string expertFfn = "moe.expert_ffn_hidden";
    std::string denseLayers = "moe.dense_layers";
};

std::string numberText(double v)
{
    if (std::isfinite(v) && std::floor(v) == v && std::abs(v) < 1e15)
        return std::to_string(static_cast<long long>(v));
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

std::string joinPath(const std::string& path, const std::string& key)
{
    return path.empty() ? key : path + "." + key;
}

void checkRange(std::vector<Diagnostic>& out, const std::string& path, const std::string& key, double value,
                double lo, double hi)
{
    if (!(value >= lo))
        out.push_back({joinPath(path, key), "must be at least " + numberText(lo) + ", got " + numberText(value)});
    else if (value > hi)
        out.push_back({joinPath(path, key), "must be at most " + numberText(hi) + ", got " + numberText(value)});
}

void checkArch(const ModelArch& m, const std::string& path, const KeyNames& k, std::vector<Diagnostic>& out)
{
    if (m.family == ModelFamily::Vision) {
        const VisionSpec& v = m.vision;
        checkRange(out, path, "vision.params", v.params, 1, 1e13);
        checkRange(out, path, "vision.gflops_per_image", v.gflopsPerImage, 1e-6, 1e7);
        checkRange(out, path, "vision.train_activation_bytes_per_image", v.trainActivationBytesPerImage, 0, 1e13);
        checkRange(out, path, "vision.infer_activation_bytes_per_image", v.inferActivationBytesPerImage, 0, 1e13);
        checkRange(out, path, "vision.native_image_size", v.nativeImageSize, 1, 100'000);
        checkRange(out, path, "vision.kernels_per_step", v.kernelsPerStep, 0, 1e7);
        return;
    }
    checkRange(out, path, k.layers, m.layers, 1, dbl(kMaxLayers));
    checkRange(out, path, k.hidden, m.hidden, 1, dbl(kMaxHidden));
    checkRange(out, path, k.heads, m.heads, 1, dbl(kMaxHeads));
    checkRange(out, path, k.headDim, m.headDim, 1, dbl(kMaxHeadDim));
    checkRange(out, path, k.ffnHidden, dbl(m.ffnHidden), 1, dbl(kMaxFfnHidden));
    checkRange(out, path, k.vocab, dbl(m.vocab), 1, dbl(kMaxVocab));
    checkRange(out, path, k.maxPositions, dbl(m.maxPositions), m.positional == Positional::Learned ? 1 : 0,
               dbl(kMaxPositions));
    checkRange(out, path, k.kvLoraRank, m.mlaKvLoraRank, 0, dbl(kMaxLoraRank));
    checkRange(out, path, k.ropeHeadDim, m.mlaRopeHeadDim, 0, dbl(kMaxHeadDim));
    // Grouped-query attention shares each KV head among a whole group of query heads.
    if (m.kvHeads < 1)
        out.push_back({joinPath(path, k.kvHeads), "must be a positive integer, got " + std::to_string(m.kvHeads)});
    else if (m.heads >= 1 && m.kvHeads > m.heads)
        out.push_back({joinPath(path, k.kvHeads), "must be at most " + k.heads + " (" + std::to_string(m.heads)
                                                      + "), got " + std::to_string(m.kvHeads)});
    else if (m.heads >= 1 && m.heads % m.kvHeads != 0)
        out.push_back({joinPath(path, k.kvHeads), "must divide " + k.heads + " (" + std::to_string(m.heads)
                                                      + ") evenly, got " + std::to_string(m.kvHeads)});
    if (m.moe.enabled() || m.moe.active != 0 || m.moe.shared != 0) {
        const MoeSpec& e = m.moe;
        checkRange(out, path, k.experts, e.experts, 1, dbl(kMaxExperts));
        if (e.active < 1)
            out.push_back({joinPath(path, k.active), "must be a positive integer, got " + std::to_string(e.active)});
        else if (e.experts >= 1 && e.active > e.experts)
            out.push_back({joinPath(path, k.active), "must be at most " + k.experts + " ("
                                                         + std::to_string(e.experts) + "), got "
                                                         + std::to_string(e.active)});
        checkRange(out, path, k.shared, e.shared, 0, dbl(kMaxExperts));
        checkRange(out, path, k.expertFfn, dbl(e.expertFfnHidden), 1, dbl(kMaxFfnHidden));
        checkRange(out, path, k.denseLayers, e.denseLayers, 0, std::max(0, m.layers - 1));
    }
}

void throwIfAny(std::vector<Diagnostic> problems)
{
    if (!problems.empty())
        throw InputError(std::move(problems));
}

// ---------------------------------------------------------------------------
// JSON reading with key-path diagnostics. Problems are collected so one
// error lists every bad key, not just the first.

/// The integer value of a JSON number, or nullopt if it is not an integer.
/// Integral floats (4096.0) are accepted because some tools write them.
std::optional<std::int64_t> integerValue(const json& v)
{
    if (v.is_number_unsigned()) {
        const auto u = v.get<std::uint64_t>();
        if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
            return std::numeric_limits<std::int64_t>::max();
        return static_cast<std::int64_t>(u);
    }
    if (v.is_number_integer())
        return v.get<std::int64_t>();
    if (v.is_number_float()) {
        const double d = v.get<double>();
        if (std::isfinite(d) && std::floor(d) == d && std::abs(d) < 9e18)
            return static_cast<std::int64_t>(d);
    }
    return std::nullopt;
}

class Reader {
public:
    Reader(const json& obj, std::string path)
        : m_obj(obj)
        , m_path(std::move(path))
    {
    }

    const std::string& path() const { return m_path; }
    std::string keyPath(const std::string& key) const { return joinPath(m_path, key); }

    /// Present and not null.
    bool has(const std::string& key) const { return m_obj.contains(key) && !m_obj.at(key).is_null(); }
    const json& at(const std::string& key) const { return m_obj.at(key); }

    void fail(const std::string& key, std::string message) { m_problems.push_back({keyPath(key), std::move(message)}); }
    /// Takes over the problems of a reader for a nested object.
    void absorb(Reader& nested)
    {
        for (auto& d : nested.m_problems)
            m_problems.push_back(std::move(d));
        nested.m_problems.clear();
    }

    /// A required integer in [min, max]; on a problem records it and returns `min`
    /// so the caller can keep reading (the collected problems are thrown later).
    std::int64_t integer(const std::string& key, std::int64_t min, std::int64_t max)
    {
        if (!m_obj.contains(key)) {
            fail(key, "missing");
            return min;
        }
        return check(key, min, max);
    }

    std::int64_t integerOr(const std::string& key, std::int64_t fallback, std::int64_t min, std::int64_t max)
    {
        return has(key) ? check(key, min, max) : fallback;
    }

    bool booleanOr(const std::string& key, bool fallback)
    {
        if (!has(key))
            return fallback;
        const json& v = m_obj.at(key);
        if (!v.is_boolean()) {
            fail(key, "must be true or false, got " + detail::describe(v));
            return fallback;
        }
        return v.get<bool>();
    }

    /// An optional string that must be one of `allowed`; returns its index.
    std::size_t choiceOr(const std::string& key, const std::vector<std::string>& allowed, std::size_t fallback)
    {
        if (!has(key))
            return fallback;
        const json& v = m_obj.at(key);
        if (v.is_string()) {
            const auto s = v.get<std::string>();
            for (std::size_t i = 0; i < allowed.size(); ++i) {
                if (allowed[i] == s)
                    return i;
            }
        }
        std::string list;
        for (const auto& a : allowed)
            list += (list.empty() ? "" : ", ") + ("\"" + a + "\"");
        fail(key, "must be one of " + list + ", got " + detail::describe(v));
        return fallback;
    }

    std::vector<Diagnostic> takeProblems() { return std::move(m_problems); }
    bool ok() const { return m_problems.empty(); }

private:
    std::int64_t check(const std::string& key, std::int64_t min, std::int64_t max)
    {
        const json& v = m_obj.at(key);
        const auto i = integerValue(v);
        const char* what = min > 0 ? "must be a positive integer" : "must be a non-negative integer";
        if (!i || *i < min) {
            fail(key, std::string(what) + ", got " + detail::describe(v));
            return min;
        }
        if (*i > max) {
            fail(key, "must be at most " + std::to_string(max) + ", got " + detail::describe(v));
            return min;
        }
        return *i;
    }

    const json& m_obj;
    std::string m_path;
    std::vector<Diagnostic> m_problems;
};

int toInt(std::int64_t v) { return static_cast<int>(v); } // callers bound v far inside int

/// head_dim defaults to hidden / heads; that needs the division to be exact.
int defaultHeadDim(Reader& r, const std::string& headDimKey, std::int64_t hidden, std::int64_t heads,
                   const std::string& hiddenKey, const std::string& headsKey)
{
    if (r.has(headDimKey))
        return toInt(r.integer(headDimKey, 1, kMaxHeadDim));
    // Skipped when hidden or heads was already reported (they hold fallbacks).
    if (r.ok() && (heads <= 0 || hidden % heads != 0)) {
        r.fail(headDimKey, "missing, and " + hiddenKey + " (" + std::to_string(hidden) + ") is not a multiple of "
                               + headsKey + " (" + std::to_string(heads) + ")");
        return 1;
    }
    return std::max(1, toInt(hidden / std::max<std::int64_t>(1, heads)));
}

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
void readLlamaLike(Reader& r, ModelArch& m, const KeyNames& k)
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

} // namespace

// ---------------------------------------------------------------------------
// ModelArch

double ModelArch::embeddingParams() const
{
    if (family == ModelFamily::Vision)
        return 0;
    const double h = hidden;
    double p = dbl(vocab) * h;
    if (positional == Positional::Learned)
        p += dbl(maxPositions) * h;
    if (family == ModelFamily::Encoder)
        p += dbl(kEncoderTokenTypes) * h;
    return p;
}

double ModelArch::totalParams() const
{
    if (family == ModelFamily::Vision)
        return vision.params;
    const double h = hidden;
    const int moeLayers = moeLayerCount(*this);
    const int denseLayers = layers - moeLayers;

    double p = embeddingParams();
    p += static_cast<double>(layers) * (attentionParams(*this) + 2.0 * normParams(*this));
    p += static_cast<double>(denseLayers) * ffnParams(*this, dbl(ffnHidden));
    if (moeLayers > 0) {
        const double experts = static_cast<double>(moe.experts) + moe.shared;
        const double router = h * moe.experts; // gate linear, no bias
        p += static_cast<double>(moeLayers) * (experts * ffnParams(*this, dbl(moe.expertFfnHidden)) + router);
    }
    if (family == ModelFamily::Encoder) {
        // BertModel: embedding LayerNorm and the pooler (dense h x h + bias);
        // no final norm and no MLM head (BertModel, not BertForMaskedLM).
        p += normParams(*this) + h * h + h;
    } else {
        p += normParams(*this); // final norm
        if (!tiedEmbeddings)
            p += dbl(vocab) * h; // separate LM head
    }
    return p;
}

double ModelArch::activeParams() const
{
    return totalParams() - inactiveExpertParams(*this);
}

double ModelArch::matmulParamsPerToken() const
{
    // Vision models have no tokens: their compute is VisionSpec::gflopsPerImage.
    if (family == ModelFamily::Vision)
        return 0;
    double p = activeParams() - embeddingParams();
    // A tied LM head is still a vocab x hidden matmul per token; an untied one
    // is already in activeParams. Encoders (BertModel) have no head.
    if (family == ModelFamily::Decoder && tiedEmbeddings)
        p += dbl(vocab) * hidden;
    return p;
}

double ModelArch::kvElementsPerToken() const
{
    // Only decoders generate, so only they keep a KV cache.
    if (family != ModelFamily::Decoder)
        return 0;
    if (mlaKvLoraRank > 0)
        return static_cast<double>(layers) * (mlaKvLoraRank + mlaRopeHeadDim);
    return 2.0 * layers * kvHeads * headDim;
}

std::vector<ModelArch::Linear> ModelArch::layerLinears() const
{
    std::vector<Linear> out;
    if (family == ModelFamily::Vision)
        return out;
    const std::int64_t h = hidden;
    const std::int64_t qOut = std::int64_t(heads) * headDim;
    if (mlaKvLoraRank > 0) {
        // MLA has no q/k/v projections; these are DeepSeek-V3's HF module names.
        out.push_back({"q_a_proj", h, kMlaQLoraRank, 1});
        out.push_back({"q_b_proj", kMlaQLoraRank, std::int64_t(heads) * (headDim + mlaRopeHeadDim), 1});
        out.push_back({"kv_a_proj_with_mqa", h, std::int64_t(mlaKvLoraRank) + mlaRopeHeadDim, 1});
        out.push_back({"kv_b_proj", mlaKvLoraRank, std::int64_t(heads) * (headDim + headDim), 1});
        out.push_back({"o_proj", qOut, h, 1});
    } else {
        // GPT-2 fuses q/k/v into one c_attn (and names o_proj c_proj); they are
        // listed split so every model answers to the same names.
        const std::int64_t kvOut = std::int64_t(kvHeads) * headDim;
        out.push_back({"q_proj", h, qOut, 1});
        out.push_back({"k_proj", h, kvOut, 1});
        out.push_back({"v_proj", h, kvOut, 1});
        out.push_back({"o_proj", qOut, h, 1});
    }
    // MoE layers: one entry per FFN matrix of an expert, counted once per expert
    // a token passes through (routed active + shared). DeepSeek-V3's leading
    // dense layers (18432 = 9 x 2048) match that active width exactly; the
    // router gate (hidden x experts) is left out as negligible.
    std::int64_t inner = ffnHidden;
    int perLayer = 1;
    if (moe.enabled()) {
        inner = moe.expertFfnHidden;
        perLayer = moe.active + moe.shared;
    }
    if (ffn == FfnKind::SwiGLU)
        out.push_back({"gate_proj", h, inner, perLayer});
    out.push_back({"up_proj", h, inner, perLayer});
    out.push_back({"down_proj", inner, h, perLayer});
    return out;
}

void ModelArch::validate(const std::string& path) const
{
    std::vector<Diagnostic> problems;
    checkArch(*this, path, KeyNames{}, problems);
    throwIfAny(std::move(problems));
}

// ---------------------------------------------------------------------------
// Presets

namespace {

struct DecoderShape {
    const char* id;
    const char* name;
    int layers;
    int hidden;
    int heads;
    int kvHeads;
    int headDim;
    std::int64_t ffnHidden;
    std::int64_t vocab;
    bool tied;
    std::int64_t maxPositions;
};

ModelArch llamaStyle(const DecoderShape& s)
{
    ModelArch m;
    m.id = s.id;
    m.name = s.name;
    m.family = ModelFamily::Decoder;
    m.layers = s.layers;
    m.hidden = s.hidden;
    m.heads = s.heads;
    m.kvHeads = s.kvHeads;
    m.headDim = s.headDim;
    m.ffnHidden = s.ffnHidden;
    m.ffn = FfnKind::SwiGLU;
    m.vocab = s.vocab;
    m.tiedEmbeddings = s.tied;
    m.positional = Positional::Rope;
    m.maxPositions = s.maxPositions;
    m.biases = false;
    m.source = "preset";
    return m;
}

ModelArch gpt2Style(const char* id, const char* name, int layers, int hidden)
{
    ModelArch m;
    m.id = id;
    m.name = name;
    m.family = ModelFamily::Decoder;
    m.layers = layers;
    m.hidden = hidden;
    m.heads = hidden / 64;
    m.kvHeads = m.heads;
    m.headDim = 64;
    m.ffnHidden = 4 * std::int64_t(hidden);
    m.ffn = FfnKind::GELU;
    m.vocab = 50257;
    m.tiedEmbeddings = true;
    m.positional = Positional::Learned;
    m.maxPositions = 1024;
    m.biases = true;
    m.source = "preset";
    return m;
}

ModelArch visionPreset(const char* id, const char* name, const VisionSpec& v)
{
    ModelArch m;
    m.id = id;
    m.name = name;
    m.family = ModelFamily::Vision;
    m.vision = v;
    m.source = "preset";
    return m;
}

std::vector<ModelArch> buildPresets()
{
    std::vector<ModelArch> p;

    // Decoder shapes are the Hugging Face config.json values of each model.
    p.push_back(gpt2Style("gpt2-124m", "GPT-2 (124M)", 12, 768));
    p.push_back(gpt2Style("gpt2-355m", "GPT-2 Medium (355M)", 24, 1024));

    p.push_back(llamaStyle({"tinyllama-1.1b", "TinyLlama 1.1B", 22, 2048, 32, 4, 64, 5632, 32000, false, 2048}));
    p.push_back(llamaStyle({"llama-3.2-1b", "Llama 3.2 1B", 16, 2048, 32, 8, 64, 8192, 128256, true, 131072}));
    p.push_back(llamaStyle({"llama-3.2-3b", "Llama 3.2 3B", 28, 3072, 24, 8, 128, 8192, 128256, true, 131072}));
    p.push_back(llamaStyle({"llama-2-7b", "Llama 2 7B", 32, 4096, 32, 32, 128, 11008, 32000, false, 4096}));
    p.push_back(llamaStyle({"llama-2-13b", "Llama 2 13B", 40, 5120, 40, 40, 128, 13824, 32000, false, 4096}));
    p.push_back(llamaStyle({"llama-2-70b", "Llama 2 70B", 80, 8192, 64, 8, 128, 28672, 32000, false, 4096}));
    p.push_back(llamaStyle({"llama-3.1-8b", "Llama 3.1 8B", 32, 4096, 32, 8, 128, 14336, 128256, false, 131072}));
    p.push_back(llamaStyle({"llama-3.1-70b", "Llama 3.1 70B", 80, 8192, 64, 8, 128, 28672, 128256, false, 131072}));
    p.push_back(
        llamaStyle({"llama-3.1-405b", "Llama 3.1 405B", 126, 16384, 128, 8, 128, 53248, 128256, false, 131072}));
    p.push_back(llamaStyle({"mistral-7b", "Mistral 7B (v0.1)", 32, 4096, 32, 8, 128, 14336, 32000, false, 32768}));

    {
        ModelArch m = llamaStyle({"mixtral-8x7b", "Mixtral 8x7B", 32, 4096, 32, 8, 128, 14336, 32000, false, 32768});
        m.moe.experts = 8;
        m.moe.active = 2;
        m.moe.expertFfnHidden = 14336;
        p.push_back(m);
    }
    {
        ModelArch m = llamaStyle({"qwen2.5-7b", "Qwen2.5 7B", 28, 3584, 28, 4, 128, 18944, 152064, false, 32768});
        m.qkvBias = true;
        p.push_back(m);
    }
    {
        ModelArch m = llamaStyle({"qwen2.5-72b", "Qwen2.5 72B", 80, 8192, 64, 8, 128, 29568, 152064, false, 32768});
        m.qkvBias = true;
        p.push_back(m);
    }
    {
        // 671B counts the main model only; the HF checkpoint's extra 14B is the
        // multi-token-prediction module, which inference and fine-tuning skip.
        ModelArch m = llamaStyle({"deepseek-v3", "DeepSeek-V3 (671B MoE)", 61, 7168, 128, 128, 128, 18432, 129280,
                                  false, 163840});
        m.mlaKvLoraRank = 512;
        m.mlaRopeHeadDim = 64;
        m.moe.experts = 256;
        m.moe.active = 8;
        m.moe.shared = 1;
        m.moe.expertFfnHidden = 2048;
        m.moe.denseLayers = 3;
        p.push_back(m);
    }
    {
        // Counted as BertModel (embeddings + encoder + pooler = 109.5M), the
        // form people fine-tune; the MLM head would add ~0.6M (its decoder is
        // tied to the word embeddings).
        ModelArch m;
        m.id = "bert-base";
        m.name = "BERT-base";
        m.family = ModelFamily::Encoder;
        m.layers = 12;
        m.hidden = 768;
        m.heads = 12;
        m.kvHeads = 12;
        m.headDim = 64;
        m.ffnHidden = 3072;
        m.ffn = FfnKind::GELU;
        m.vocab = 30522;
        m.tiedEmbeddings = true;
        m.positional = Positional::Learned;
        m.maxPositions = 512;
        m.biases = true;
        m.source = "preset";
        p.push_back(m);
    }

    // Vision: params and GMACs from the torchvision model tables
    // (pytorch.org/vision/stable/models.html, "GFLOPS" column, which counts
    // multiply-accumulates; FLOPs = 2 x MACs). Activation bytes per image were
    // calibrated against measured bf16-autocast peaks on the H100 (ResNet-50:
    // batch 128 training peaks at 5.93 GiB allocated = 14 B/param + 0.31 GiB of
    // workspaces + 44 MB/image). Inference (no_grad) keeps only the largest
    // block's live tensors: ResNet-50's first downsampling bottleneck holds the
    // block input, its output, the shortcut conv and BN outputs and the image,
    // 2.76M elements = 5.5 MB/image in bf16 (ResNet-18: the stem's conv and BN
    // outputs and the image, 1.76M = 3.5 MB); cuDNN workspaces are the constant
    // buffers_infer_vision_mib. ViT-B/16 training saves, per patch token (197)
    // and layer under AMP, the fp32 LayerNorm inputs (2 x 4h), the bf16 casts
    // for the packed in-projection and fc1 (2 x 2h), q/k/v and the output of
    // flash SDPA (8h; torchvision's MultiheadAttention calls SDPA when no
    // weights are requested, so no 197^2 scores), the out-projection input (2h)
    // and the GELU input and output (2 x 2 x 4h): 38h = 29184 B, x 197 x 12 =
    // 69.0 MB + image, patch cast and final norm = 70.5 MB/image. Kernels per
    // step count a PyTorch eager forward (conv, BN, ReLU, add each launch one).
    {
        VisionSpec v;
        v.params = 11'689'512;
        v.gflopsPerImage = 3.64; // 1.82 GMACs
        v.trainActivationBytesPerImage = 17e6;
        v.inferActivationBytesPerImage = 3.5e6;
        v.nativeImageSize = 224;
        v.kernelsPerStep = 70;
        p.push_back(visionPreset("resnet18", "ResNet-18", v));
    }
    {
        VisionSpec v;
        v.params = 25'557'032;
        v.gflopsPerImage = 8.18; // 4.09 GMACs
        v.trainActivationBytesPerImage = 44e6;
        v.inferActivationBytesPerImage = 5.5e6;
        v.nativeImageSize = 224;
        v.kernelsPerStep = 175;
        p.push_back(visionPreset("resnet50", "ResNet-50", v));
    }
    {
        VisionSpec v;
        v.params = 86'567'656;
        v.gflopsPerImage = 35.12; // 17.56 GMACs
        v.trainActivationBytesPerImage = 70.5e6;
        v.inferActivationBytesPerImage = 8e6;
        v.nativeImageSize = 224;
        v.kernelsPerStep = 200;
        p.push_back(visionPreset("vit-b-16", "ViT-B/16", v));
    }
    return p;
}

} // namespace

const std::vector<ModelArch>& modelPresets()
{
    static const std::vector<ModelArch> presets = buildPresets();
    return presets;
}

const ModelArch* findPreset(std::string_view id)
{
    for (const auto& m : modelPresets()) {
        if (m.id == id)
            return &m;
    }
    return nullptr;
}

// ---------------------------------------------------------------------------
// Hugging Face config.json

namespace {

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

void readGpt2(Reader& r, ModelArch& m, KeyNames& k)
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

void readBert(Reader& r, ModelArch& m, KeyNames& k)
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

void readDeepseekV3(Reader& r, ModelArch& m, KeyNames& k)
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

void readQwen2Moe(Reader& r, ModelArch& m, KeyNames& k)
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
    Reader r(config, path);
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

// ---------------------------------------------------------------------------
// Explicit form

ModelArch modelFromExplicit(const nlohmann::json& spec, const std::string& path)
{
    if (!spec.is_object())
        throw InputError(path, "must be a JSON object");

    Reader r(spec, path);
    ModelArch m;
    const bool encoder = r.choiceOr("family", {"decoder", "encoder"}, 0) == 1;
    m.family = encoder ? ModelFamily::Encoder : ModelFamily::Decoder;
    m.layers = toInt(r.integer("layers", 1, kMaxLayers));
    m.hidden = toInt(r.integer("hidden", 1, kMaxHidden));
    m.heads = toInt(r.integer("heads", 1, kMaxHeads));
    m.kvHeads = toInt(r.integerOr("kv_heads", m.heads, 1, kMaxHeads));
    m.headDim = defaultHeadDim(r, "head_dim", m.hidden, m.heads, "hidden", "heads");
    m.ffnHidden = r.integer("ffn_hidden", 1, kMaxFfnHidden);
    // Defaults follow the family: BERT-style encoders, Llama-style decoders.
    m.ffn = r.choiceOr("ffn", {"swiglu", "gelu"}, encoder ? 1 : 0) == 1 ? FfnKind::GELU : FfnKind::SwiGLU;
    m.vocab = r.integer("vocab", 1, kMaxVocab);
    m.tiedEmbeddings = r.booleanOr("tied_embeddings", false);
    m.positional =
        r.choiceOr("positional", {"rope", "learned"}, encoder ? 1 : 0) == 1 ? Positional::Learned : Positional::Rope;
    if (m.positional == Positional::Learned && !r.has("max_positions"))
        r.fail("max_positions", "missing (required with learned positions: they are parameters)");
    else
        m.maxPositions = r.integerOr("max_positions", 0, m.positional == Positional::Learned ? 1 : 0, kMaxPositions);
    // The form has no biases key; they follow the style the FFN implies:
    // GELU models (GPT-2, BERT) have linear biases and LayerNorm, SwiGLU
    // models (Llama family) have neither. Worth 0.1% of GPT-2's count.
    m.biases = encoder || m.ffn == FfnKind::GELU;

    if (r.has("moe")) {
        const json& moeJson = r.at("moe");
        if (!moeJson.is_object()) {
            r.fail("moe", "must be an object, got " + detail::describe(moeJson));
        } else {
            Reader mr(moeJson, r.keyPath("moe"));
            m.moe.experts = toInt(mr.integer("experts", 1, kMaxExperts));
            m.moe.active = toInt(mr.integer("active", 1, kMaxExperts));
            m.moe.shared = toInt(mr.integerOr("shared", 0, 0, kMaxExperts));
            m.moe.expertFfnHidden = mr.integerOr("expert_ffn_hidden", m.ffnHidden, 1, kMaxFfnHidden);
            r.absorb(mr);
        }
    }

    std::vector<Diagnostic> problems = r.takeProblems();
    if (problems.empty())
        checkArch(m, path, KeyNames{}, problems);
    throwIfAny(std::move(problems));

    m.source = "explicit";
    m.name = std::string("Custom ") + (encoder ? "encoder" : "decoder") + " (" + std::to_string(m.layers) + " x "
           + std::to_string(m.hidden) + (m.moe.enabled() ? ", MoE" : "") + ")";
    return m;
}

// ---------------------------------------------------------------------------
// Size only

namespace {

/// "124M", "1.1B", "405B", "1.2T".
std::string formatCount(double n)
{
    const char* suffix = "";
    double v = n;
    if (n >= 1e12) {
        v = n / 1e12;
        suffix = "T";
    } else if (n >= 1e9) {
        v = n / 1e9;
        suffix = "B";
    } else if (n >= 1e6) {
        v = n / 1e6;
        suffix = "M";
    } else if (n >= 1e3) {
        v = n / 1e3;
        suffix = "K";
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g%s", v, suffix);
    return buf;
}

struct Anchor {
    int layers;
    int hidden;
};

// Known shapes, smallest first: GPT-2 small/medium (125M, 350M), GPT-3 XL /
// OPT-1.3B (24x2048), Llama 3.2 3B, Llama 3 8B, Llama 2 13B, Code Llama 34B,
// Llama 3 70B, GPT-3 175B, Llama 3.1 405B. They place a size on the width
// axis; the depth is then solved for the size.
constexpr std::array<Anchor, 10> kAnchors = {{
    {12, 768},
    {24, 1024},
    {24, 2048},
    {28, 3072},
    {32, 4096},
    {40, 5120},
    {48, 8192},
    {80, 8192},
    {96, 12288},
    {126, 16384},
}};

constexpr double kFfnRatio = 3.5; // SwiGLU FFN width / hidden in Llama 3 (14336 / 4096)

/// The fixed (non-size) choices for a family; vocabulary and tying depend on
/// the model's total size `params`.
ModelArch styleFor(ModelFamily family, double params, int layers, int hidden)
{
    ModelArch m;
    m.family = family;
    m.layers = layers;
    m.hidden = hidden;
    if (family == ModelFamily::Encoder) {
        // BERT style: GELU, biases, LayerNorm, learned positions, MHA.
        m.headDim = 64;
        m.heads = std::max(1, hidden / 64);
        m.kvHeads = m.heads;
        m.ffn = FfnKind::GELU;
        m.ffnHidden = 4 * std::int64_t(hidden);
        m.vocab = 30522;
        m.tiedEmbeddings = true;
        m.positional = Positional::Learned;
        m.maxPositions = 512;
        m.biases = true;
        return m;
    }
    // Llama style. Head dim 64 up to hidden 2048 (GPT-3 XL, Llama 3.2 1B),
    // 128 above; GQA with up to 8 KV heads.
    m.headDim = hidden > 2048 ? 128 : 64;
    m.heads = std::max(1, hidden / m.headDim);
    m.kvHeads = 1;
    for (int kv = std::min(8, m.heads); kv >= 1; --kv) {
        if (m.heads % kv == 0) {
            m.kvHeads = kv;
            break;
        }
    }
    m.ffn = FfnKind::SwiGLU;
    m.ffnHidden = (static_cast<std::int64_t>(kFfnRatio * hidden) + 255) / 256 * 256;
    // Vocabulary: below 1B the 128K Llama 3 vocabulary would be a third or
    // more of the model, so those take Llama 2's 32000 tokens, tied. From 1B
    // the Llama 3 vocabulary, tied below 7B (as Llama 3.2 1B/3B do) and with a
    // separate LM head from 7B (Llama 3.1 8B and up).
    m.vocab = params < 1e9 ? 32000 : 128256;
    m.tiedEmbeddings = params < 7e9;
    m.positional = Positional::Rope;
    m.maxPositions = 8192;
    m.biases = false;
    return m;
}

/// Hidden width for a size: log-log interpolation between the anchors'
/// nominal sizes (each anchor in the family's style), extrapolated from the
/// end segments outside the table. `styleParams` (the model's real size)
/// picks the vocabulary.
double interpolateHidden(ModelFamily family, double styleParams, double target)
{
    std::array<double, kAnchors.size()> nominal{};
    for (std::size_t i = 0; i < kAnchors.size(); ++i)
        nominal[i] = styleFor(family, styleParams, kAnchors[i].layers, kAnchors[i].hidden).totalParams();
    std::size_t seg = 0;
    while (seg + 2 < kAnchors.size() && target > nominal[seg + 1])
        ++seg;
    const double t =
        (std::log(target) - std::log(nominal[seg])) / (std::log(nominal[seg + 1]) - std::log(nominal[seg]));
    const double a = kAnchors[seg].hidden;
    const double b = kAnchors[seg + 1].hidden;
    return std::exp(std::log(a) + t * (std::log(b) - std::log(a)));
}

/// Rounds a width to whole attention heads, and with 16 or more heads to a
/// multiple of 8 heads, so GQA gets its usual 8 KV heads (3840 becomes 4096,
/// 4864 becomes 5120). Uses styleFor's head-dim rule.
int niceHidden(ModelFamily family, double hiddenF)
{
    const int headDim = family == ModelFamily::Decoder && hiddenF > 2048 ? 128 : 64;
    long long heads = std::max(1LL, std::llround(hiddenF / headDim));
    if (heads >= 16)
        heads = std::llround(static_cast<double>(heads) / 8.0) * 8;
    else if (heads > 2)
        heads = heads / 2 * 2;
    return std::clamp(toInt(heads * headDim), 64, toInt(kMaxHidden));
}

/// The layer count whose total is nearest `target` (totalParams is linear in it).
int solveLayers(ModelArch m, double target)
{
    m.layers = 0;
    const double fixed = m.totalParams();
    m.layers = 1;
    const double perLayer = m.totalParams() - fixed;
    const double layers = (target - fixed) / perLayer;
    return std::clamp(toInt(std::llround(std::max(1.0, layers))), 1, toInt(kMaxLayers));
}

void setFfnWidth(ModelArch& m, std::int64_t width)
{
    m.ffnHidden = width;
    if (m.moe.enabled())
        m.moe.expertFfnHidden = width; // all layers are MoE; ffnHidden mirrors it
}

/// Solves the FFN width (dense, or per expert) so totalParams hits `target`;
/// totalParams is linear in it. Rounds to a multiple of 256 when that stays
/// within 0.5%, else 64, else 1.
std::int64_t solveFfn(ModelArch& m, double target)
{
    setFfnWidth(m, 0);
    const double base = m.totalParams();
    setFfnWidth(m, 1024);
    const double slope = (m.totalParams() - base) / 1024.0;
    const double exact = (target - base) / slope;
    std::int64_t width = 1;
    for (std::int64_t grain : {256, 64, 1}) {
        width = std::max<std::int64_t>(grain, std::llround(exact / static_cast<double>(grain)) * grain);
        setFfnWidth(m, width);
        if (std::abs(m.totalParams() - target) <= 0.005 * target)
            break;
    }
    return width;
}

/// Dense: width from the table, depth solved at ffn = 3.5 x hidden, then the
/// FFN width solved exactly. Tiny sizes narrow the model until the FFN is at
/// least as wide as it (the embeddings alone would otherwise eat the budget).
ModelArch denseFromParams(double params, ModelFamily family)
{
    int hidden = niceHidden(family, interpolateHidden(family, params, params));
    for (;;) {
        ModelArch m = styleFor(family, params, 1, hidden);
        m.layers = solveLayers(m, params);
        const std::int64_t width = solveFfn(m, params);
        if (width >= hidden || hidden <= 64)
            return m;
        const int narrower = niceHidden(family, 0.8 * hidden);
        hidden = narrower < hidden ? narrower : hidden - 64;
    }
}

/// Expert width relative to hidden before the final solve: Mixtral-style full
/// FFNs (3.5x) up to 8 experts, finer experts as the count grows (DBRX 16
/// experts: 1.75x; DeepSeek-V3 256: 0.29x, floored here at 0.25x).
double expertRatio(int experts)
{
    return std::max(0.25, kFfnRatio * std::min(1.0, 8.0 / experts));
}

/// MoE: a dense base of size D supplies layers and width (Mixtral 8x7B is
/// Mistral 7B with its FFN replicated); D is found by bisection so that base
/// plus experts of expertRatio() width comes to `params`, then the expert
/// width is solved exactly.
ModelArch moeFromParams(double params, const MoeSpec& moe)
{
    const double ratio = expertRatio(moe.experts);
    auto build = [&](double denseSize) {
        const int hidden = niceHidden(ModelFamily::Decoder, interpolateHidden(ModelFamily::Decoder, params, denseSize));
        ModelArch m = styleFor(ModelFamily::Decoder, params, 1, hidden);
        m.layers = solveLayers(m, denseSize);
        m.moe = moe;
        m.moe.denseLayers = 0;
        setFfnWidth(m, std::max<std::int64_t>(64, std::llround(ratio * hidden / 64.0) * 64));
        return m;
    };
    double lo = std::log(1e6);
    double hi = std::log(params);
    for (int i = 0; i < 60; ++i) {
        const double mid = 0.5 * (lo + hi);
        (build(std::exp(mid)).totalParams() > params ? hi : lo) = mid;
    }
    ModelArch m = build(std::exp(lo));
    solveFfn(m, params);
    return m;
}

ModelArch visionFromParams(double params)
{
    // Scaled from ViT-B/16 (86.57M): at a fixed 224px / 196 tokens a ViT's
    // FLOPs grow with its parameters; activations grow with depth x width,
    // roughly params^0.75 (ViT-L/16: 3.5x params, ~2.7x activations), and
    // kernel launches with depth, roughly params^0.5.
    const ModelArch* vit = findPreset("vit-b-16");
    const double r = params / vit->vision.params;
    ModelArch m;
    m.family = ModelFamily::Vision;
    m.vision = vit->vision;
    m.vision.params = params;
    m.vision.gflopsPerImage = vit->vision.gflopsPerImage * r;
    m.vision.trainActivationBytesPerImage = vit->vision.trainActivationBytesPerImage * std::pow(r, 0.75);
    m.vision.inferActivationBytesPerImage = vit->vision.inferActivationBytesPerImage * std::pow(r, 0.75);
    m.vision.kernelsPerStep = std::max(1, toInt(std::llround(vit->vision.kernelsPerStep * std::sqrt(r))));
    m.shapeNote = "approximate: ViT-B/16 scaled to " + formatCount(params)
                + " parameters (FLOPs per image proportional to parameters, activations to params^0.75)";
    return m;
}

std::string fixed2(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", v);
    return buf;
}

std::string shapeNoteFor(const ModelArch& m, double params, const MoeSpec& requested)
{
    const bool isMoe = m.moe.enabled();
    const std::int64_t width = isMoe ? m.moe.expertFfnHidden : m.ffnHidden;
    char err[32];
    std::snprintf(err, sizeof err, "%+.2f%%", 100.0 * (m.totalParams() - params) / params);

    std::string note = "approximate: ";
    note += m.family == ModelFamily::Encoder ? "BERT-style encoder" : "Llama-style decoder";
    note += " for " + formatCount(params) + ": " + std::to_string(m.layers) + " layers x " + std::to_string(m.hidden)
          + " hidden (" + std::to_string(m.heads) + " heads of " + std::to_string(m.headDim) + ", "
          + std::to_string(m.kvHeads) + " KV heads), ";
    note += m.ffn == FfnKind::SwiGLU ? "SwiGLU " : "GELU ";
    if (isMoe)
        note += std::to_string(m.moe.experts) + " experts (" + std::to_string(m.moe.active) + " active, "
              + std::to_string(m.moe.shared) + " shared) of width ";
    else
        note += "FFN width ";
    note += std::to_string(width) + " (" + fixed2(static_cast<double>(width) / m.hidden) + "x hidden), vocab "
          + std::to_string(m.vocab) + (m.tiedEmbeddings ? " tied" : " untied") + ". ";
    if (isMoe)
        note += "Layers and hidden are those of a dense base model (Mixtral 8x7B is Mistral 7B with its FFN "
                "replicated), sized so that with experts of about " + fixed2(expertRatio(m.moe.experts))
              + "x hidden the total is reached. ";
    note += "Hidden is interpolated log-log between known shapes (12x768 at 125M, 32x4096 at 8B, 80x8192 at "
            "70B, 126x16384 at 405B) and rounded to a multiple of 8 heads; layers are solved for an FFN of ";
    note += m.ffn == FfnKind::GELU ? "4x" : "3.5x";
    note += " hidden; the ";
    note += isMoe ? "expert" : "FFN";
    note += " width is then solved so the total is " + std::string(err) + " from the requested size.";
    if (isMoe && requested.expertFfnHidden > 0)
        note += " The given expert_ffn_hidden was replaced by the solved width.";
    return note;
}

} // namespace

ModelArch modelFromParams(double params, ModelFamily family, const MoeSpec& moe)
{
    if (!std::isfinite(params) || params < 1e6)
        throw InputError("model.params", "must be a number of parameters of at least 1e6, got " + numberText(params));
    if (params > 1e14)
        throw InputError("model.params", "must be at most 1e14, got " + numberText(params));

    const bool isMoe = moe.enabled() && family != ModelFamily::Vision;
    if (isMoe) {
        std::vector<Diagnostic> problems;
        checkRange(problems, "model", "moe.experts", moe.experts, 1, dbl(kMaxExperts));
        if (moe.active < 1 || moe.active > moe.experts)
            problems.push_back({"model.moe.active", "must be between 1 and moe.experts ("
                                                        + std::to_string(moe.experts) + "), got "
                                                        + std::to_string(moe.active)});
        checkRange(problems, "model", "moe.shared", moe.shared, 0, dbl(kMaxExperts));
        if (family == ModelFamily::Encoder)
            problems.push_back({"model.moe", "mixture-of-experts sizing is only supported for decoders"});
        throwIfAny(std::move(problems));
    }

    ModelArch m;
    if (family == ModelFamily::Vision) {
        m = visionFromParams(params);
    } else {
        m = isMoe ? moeFromParams(params, moe) : denseFromParams(params, family);
        m.shapeNote = shapeNoteFor(m, params, moe);
    }
    m.approximate = true;
    m.source = "params";
    m.name = "~" + formatCount(params);
    if (isMoe)
        m.name += " MoE " + std::to_string(moe.experts) + "x" + std::to_string(moe.active);
    m.name += " (approximate shape)";
    return m;
}

} // namespace gp
