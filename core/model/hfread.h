#pragma once
// Internal (core/model only): the pieces of the config.json reader, split by
// concern. hfconfig.cpp detects the model_type and drives the read;
// hflayouts.cpp reads each layout's keys (MoE variants, MLA, the vision
// tower), hfhybrid.cpp those of the Mamba-2 hybrids; hflayers.cpp the per-layer attention kinds and recurrent mixers;
// hfquant.cpp the quantization_config.
#include "core/base/jsonread.h"
#include "core/model/model.h"
#include "core/model/modelcheck.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace gp::detail::hf {

using json = nlohmann::json;

// Hugging Face config.json layouts. Each model_type's keys and defaults follow
// its configuration_*.py in transformers (v4.56) and its modeling code for the
// parameter shapes.
enum class HfLayout {
    Llama, Llama4, Mistral, Mistral3, Mixtral, Qwen2, Qwen2Moe, Qwen3, Qwen3Moe, Qwen3Next, Gemma2, Gemma3,
    GptOss, DeepseekV2, DeepseekV3, Phi3, Glm4Moe, Olmo2, GraniteMoeHybrid, NemotronH, Gpt2, Bert
};

/// Reads keys through an ObjectReader and remembers which ones it read.
struct Keys {
    ObjectReader& r;
    std::set<std::string>& used;
    bool has(const std::string& k) const { return r.has(k); }
    /// Written as null (has() is false for it too).
    bool isNull(const std::string& k) const
    {
        try {
            return r.at(k).is_null();
        } catch (const json::out_of_range&) {
            return false;
        }
    }
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

/// Defaults of a configuration class for keys its config.json may leave out
/// (Gemma3TextConfig writes only what differs from them).
struct Defaults {
    std::optional<std::int64_t> vocab{}, hidden{}, ffn{}, layers{}, heads{}, kvHeads{}, headDim{}, maxPositions{};
    bool tied = false;
};

// hflayers.cpp
/// The keys Llama-style decoders share.
void readLlamaLike(Keys& k, ModelArch& m, const Defaults& d = {});
/// An integer key with its configuration class's default when absent (said in readNotes).
std::int64_t classDefault(Keys& k, ModelArch& m, const std::string& key, std::int64_t fallback, std::int64_t lo,
                          std::int64_t hi);
/// sliding_window as a window over every layer (Mistral v0.1, Phi-3).
void readUniformWindow(Keys& k, ModelArch& m);
/// Qwen2/Qwen3 windows: use_sliding_window (default false), max_window_layers, layer_types.
void readQwenWindow(Keys& k, ModelArch& m);
/// Per-layer kinds from layer_types; false when the key is absent.
bool readLayerTypes(Keys& k, ModelArch& m, std::vector<std::string>& types);
/// Counts sliding/chunked/linear layers from a kinds list; unknown kinds fail.
void applyLayerTypes(Keys& k, ModelArch& m, const std::vector<std::string>& types);
/// The sliding window for layers typed "sliding_attention".
void readWindow(Keys& k, ModelArch& m, std::int64_t fallback);
/// A Gated DeltaNet layer (Qwen3-Next): parameters and state per sequence.
void gatedDeltaNet(Keys& k, ModelArch& m);
/// A Mamba-2 mixer (Nemotron-H, Granite 4.0-H): parameters and state per sequence.
/// `ssmBytes`: bytes per SSM state value (2; 4 when the config keeps it in float32).
void mamba2(ModelArch& m, double heads, double headDim, double dState, double groups, double kernel, bool convBias,
            bool projBias, double ssmBytes = 2);

// hflayouts.cpp
/// The keys of one layout into `m`; `keys` names them for the shape check.
/// `wrapped`: the language model sits in text_config (`k`), the wrapper in `kt`.
void readLayout(HfLayout layout, bool wrapped, Keys& k, Keys& kt, KeyNames& keys, ModelArch& m);

// hfhybrid.cpp
/// Granite 4.0-H (granitemoehybrid): Mamba-2 and attention layers, shared MLP and experts.
void readGraniteHybrid(Keys& k, KeyNames& keys, ModelArch& m);
/// Nemotron-H: Mamba-2, attention, MLP and MoE blocks from the block pattern.
void readNemotronH(Keys& k, KeyNames& keys, ModelArch& m);

// hfquant.cpp
/// quantization_config: how the checkpoint stores its weights.
void readQuantization(Keys& k, ModelArch& m);

} // namespace gp::detail::hf
