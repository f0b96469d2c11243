#pragma once
#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace gp {

enum class ModelFamily { Decoder, Encoder, Vision };
enum class FfnKind { SwiGLU, GELU };
enum class Positional { Rope, Learned };

struct MoeSpec {
    int experts = 0;             // 0 = dense model
    int active = 0;              // routed experts per token
    int shared = 0;              // always-on shared experts
    std::int64_t expertFfnHidden = 0;
    int denseLayers = 0;         // leading layers with a dense FFN (DeepSeek-V3: 3)
    bool enabled() const { return experts > 0; }
};

/// Vision models are described by measured/published totals rather than layers.
struct VisionSpec {
    double params = 0;
    double gflopsPerImage = 0;      // forward FLOPs (2 x MACs) at nativeImageSize
    /// Bytes of activations saved for backward per image at nativeImageSize in
    /// bf16/fp16 autocast (what training keeps alive).
    double trainActivationBytesPerImage = 0;
    /// Peak transient activation bytes per image in inference (no_grad).
    double inferActivationBytesPerImage = 0;
    int nativeImageSize = 224;
    int kernelsPerStep = 0;          // approximate kernel launches per forward
    /// Vision transformers: the encoder over the patch tokens, whose GEMMs,
    /// attention and elementwise work are timed like a language model's.
    /// encoderLayers == 0: a CNN, timed as convolutions.
    int encoderLayers = 0;
    int encoderHidden = 0;
    int encoderHeads = 0;
    int encoderMlp = 0;
    int patchSize = 0;
};

/// A model architecture resolved from any of the four scenario forms.
struct ModelArch {
    std::string id;              // preset id, or "" for custom
    std::string name;            // display name
    ModelFamily family = ModelFamily::Decoder;
    int layers = 0;
    int hidden = 0;
    int heads = 0;
    int kvHeads = 0;
    int headDim = 0;
    std::int64_t ffnHidden = 0;
    FfnKind ffn = FfnKind::SwiGLU;
    std::int64_t vocab = 0;
    bool tiedEmbeddings = false;
    Positional positional = Positional::Rope;
    std::int64_t maxPositions = 0;
    bool biases = false;         // GPT-2 / BERT linear biases and LayerNorm (vs RMSNorm, no bias)
    bool qkvBias = false;        // Qwen2/2.5: biases on q/k/v projections only (biases stays false)
    /// Multi-head latent attention (DeepSeek-V3): KV cache stores a compressed
    /// latent of kvLoraRank + ropeHeadDim per token and layer.
    int mlaKvLoraRank = 0;
    int mlaRopeHeadDim = 0;
    MoeSpec moe;
    VisionSpec vision;           // used when family == Vision
    bool approximate = false;    // shape guessed from a size only
    std::string shapeNote;       // how an approximate shape was chosen
    std::string source;          // "preset", "explicit", "hf_config", "params"

    /// Every parameter, embeddings included.
    double totalParams() const;
    /// Parameters one token passes through (MoE: routed active + shared experts).
    double activeParams() const;
    /// Token (and learned position) embedding parameters.
    double embeddingParams() const;
    /// Parameters in matmuls per token in a forward pass over the full sequence
    /// (active, excluding the embedding lookup; the LM head included).
    double matmulParamsPerToken() const;
    /// Elements stored in the KV cache per token, all layers (K and V).
    double kvElementsPerToken() const;
    /// Parameters of one transformer layer's linear projections, by module name
    /// (q_proj, k_proj, v_proj, o_proj, gate_proj, up_proj, down_proj): in x out.
    struct Linear { std::string name; std::int64_t in = 0; std::int64_t out = 0; int perLayer = 1; };
    std::vector<Linear> layerLinears() const;
    bool isLanguageModel() const { return family != ModelFamily::Vision; }
    /// Checks the shape; throws InputError with paths under `path`.
    void validate(const std::string& path) const;
};

/// Reads the explicit-architecture form of the scenario spec.
ModelArch modelFromExplicit(const nlohmann::json& spec, const std::string& path);

} // namespace gp
