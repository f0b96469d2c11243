#pragma once
// Internal (core only): the shape limits and checks that the model readers
// (explicit form, config.json import, size-only solver) share with
// ModelArch::validate().
#include "core/base/errors.h"
#include "core/model/model.h"

#include <cstdint>
#include <string>
#include <vector>

namespace gp::detail {

class ObjectReader;

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

inline double dbl(std::int64_t v) { return static_cast<double>(v); }
inline int toInt(std::int64_t v) { return static_cast<int>(v); } // callers bound v far inside int

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
    std::string slidingLayers = "sliding_layers";
    std::string slidingWindow = "sliding_window";
    std::string linearLayers = "linear_layers";
    std::string linearStateBytes = "linear_state_bytes";
};

/// An integral value without a fraction ("4096"), else "%g".
std::string numberText(double v);
/// Records "<path>.<key>: must be at least lo / at most hi" when value is outside [lo, hi].
void checkRange(std::vector<Diagnostic>& out, const std::string& path, const std::string& key, double value,
                double lo, double hi);
/// The whole shape check; key names per input form.
void checkArch(const ModelArch& m, const std::string& path, const KeyNames& k, std::vector<Diagnostic>& out);
void throwIfAny(std::vector<Diagnostic> problems);

/// head_dim defaults to hidden / heads; that needs the division to be exact.
int defaultHeadDim(ObjectReader& r, const std::string& headDimKey, std::int64_t hidden, std::int64_t heads,
                   const std::string& hiddenKey, const std::string& headsKey);

/// The parameters of one attention layer of this shape: projections, biases, QK
/// norms, sinks (model.cpp); the explicit form counts a linear layer with them.
double attentionParams(const ModelArch& m);

} // namespace gp::detail
