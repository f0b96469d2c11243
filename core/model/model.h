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
    /// Width of one shared expert when it differs from a routed one (Granite
    /// 4.0-H's shared_intermediate_size); 0 = expertFfnHidden.
    std::int64_t sharedFfnHidden = 0;
    /// Experts every k-th layer after the dense ones (Llama 4 Maverick's
    /// interleave_moe_layer_step 2, Qwen's decoder_sparse_step): layer i is MoE
    /// when (i + 1) % sparseStep == 0; the others have the dense FFN.
    int sparseStep = 1;
    bool expertBias = false;     // gpt-oss: biases on every expert's projections
    bool routerBias = false;     // gpt-oss: the router linear has a bias
    bool sharedGate = false;     // Qwen MoE: a hidden x 1 gate on the shared expert
    bool enabled() const { return experts > 0; }
};

/// How the checkpoint stores its weights (config.json quantization_config).
enum class QuantKind { None, MXFP4, NVFP4, FP8Block, FP8, IntGroup, NF4, Int8, Affine };
struct CheckpointQuant {
    QuantKind kind = QuantKind::None;
    std::string method;          // quant_method as written ("mxfp4", "fp8", "awq", "gptq", "bitsandbytes", "modelopt", "mlx")
    int bits = 16;
    int groupSize = 0;           // AWQ/GPTQ/MLX scale group; FP8 block edge (128)
    bool doubleQuant = false;    // bitsandbytes bnb_4bit_use_double_quant
    bool zeroPoint = true;       // IntGroup: a packed zero point per group (AWQ, GPTQ); symmetric compressed-tensors has none
    bool expertsOnly = false;    // only the routed experts are quantized (gpt-oss: attention stays BF16)
    /// MLX: the embedding table and the head are quantized too (mlx_lm quantizes
    /// every Linear and Embedding).
    bool embeddingsQuantized = false;
    /// Share (0..1) of each kind of linear layer the quantization leaves in 16-bit
    /// (the config's ignore / modules_to_not_convert / exclude_modules lists).
    struct Kept { double attention = 0, linearMixer = 0, denseFfn = 0, experts = 0, shared = 0; };
    Kept kept;
    bool quantized() const { return kind != QuantKind::None; }
    /// Bytes one quantized weight takes, scales included.
    double bytesPerParam() const;
    /// "MXFP4", "FP8 (128x128 blocks)", "AWQ int4 (group 128)", ...
    std::string label() const;
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
    int mlaQLoraRank = 0;        // 0 = DeepSeek-V3's 1536 (detail::kMlaQLoraRank)

    // Layer kinds. Attention layers are layers - linearLayers - mlpOnlyLayers;
    // of them slidingLayers attend within slidingWindow tokens, chunkedLayers
    // within chunks of chunkSize (Llama 4), the rest attend to the whole context.
    int slidingLayers = 0;
    int slidingWindow = 0;
    int chunkedLayers = 0;
    int chunkSize = 0;
    /// Linear-attention / Mamba layers: a fixed recurrent state per sequence
    /// (conv + SSM state, bytes per layer at bf16) instead of a KV cache, and
    /// linearLayerParams parameters in place of attention.
    int linearLayers = 0;
    double linearStateBytes = 0;
    double linearLayerParams = 0;
    std::string linearKind;      // "Gated DeltaNet", "Mamba-2"
    /// Gated DeltaNet shape (Qwen3-Next: linear_num_key_heads, ...); 0 for
    /// other linear kinds. What HF's torch fallback's launches and FLOPs follow.
    struct DeltaNet { int keyHeads = 0; int valueHeads = 0; int keyDim = 0; int valueDim = 0; int convKernel = 0; };
    DeltaNet deltaNet;
    /// Mamba-2 shape (Nemotron-H, Granite 4.0-H: heads, head_dim, d_state, n_groups,
    /// conv kernel); 0 for other linear kinds. SGLang's state pool (conv bf16, SSM
    /// float32) follows it (core/engines/sglangpool.cpp).
    struct Mamba2Shape { int heads = 0; int headDim = 0; int stateSize = 0; int groups = 0; int convKernel = 0; };
    Mamba2Shape mamba2Shape;
    int mlpOnlyLayers = 0;       // Nemotron-H '-' blocks: an FFN and no token mixer
    int ffnFreeLayers = 0;       // Nemotron-H 'M' and '*' blocks: a mixer and no FFN
    int normsPerLayer = 2;       // Gemma 2/3: 4 (sandwich norms); Nemotron-H: 1 per block
    enum class QkNorm { None, PerHead, Full };
    QkNorm qkNorm = QkNorm::None; // Qwen3/Gemma 3: RMSNorm over head_dim; OLMo 2: over all q / k features
    bool oBias = false;          // gpt-oss attention_bias: o_proj has a bias too
    bool gatedAttention = false; // Qwen3-Next: q_proj also emits an output gate (2 x heads x head_dim)
    bool attentionSinks = false; // gpt-oss: one learned sink logit per head and layer
    int mtpLayers = 0;           // multi-token-prediction layers in the checkpoint (num_nextn_predict_layers)
    bool mtpOwnEmbeddings = false; // DeepSeek-format MTP layers store their own embedding and head copies
    double visionTowerParams = 0; // a vision encoder + projector beside the language model
    std::string visionTowerNote;
    CheckpointQuant quant;
    double storageBytes = 2;     // bytes per unquantized parameter in the checkpoint (torch_dtype)
    std::vector<std::string> readNotes; // what the config reader assumed or ignored (said, never silent)
    MoeSpec moe;
    VisionSpec vision;           // used when family == Vision
    bool approximate = false;    // shape guessed from a size only
    std::string shapeNote;       // how an approximate shape was chosen
    std::string source;          // "preset", "explicit", "hf_config", "params"

    /// Every parameter, embeddings included.
    double totalParams() const;
    /// Parameters one token passes through (MoE: routed active + shared experts),
    /// its embedding table included; what the estimate's time model charges.
    double activeParams() const;
    /// Active parameters as the MoE model cards count them (OpenAI's gpt-oss
    /// card): what one token's forward pass multiplies by (attention, norms,
    /// shared and picked routed experts, the LM head), without the input
    /// embedding table (a row lookup), the MTP layers and the vision tower.
    /// Dense models: every parameter (= totalParams()). The summary line's figure.
    double modelCardActiveParams() const;
    /// Token (and learned position) embedding parameters.
    double embeddingParams() const;
    /// Parameters in matmuls per token in a forward pass over the full sequence
    /// (active, excluding the embedding lookup; the LM head included).
    double matmulParamsPerToken() const;
    /// Elements stored in the KV cache per token, all attention layers (K and V),
    /// as if every one of them kept the whole context.
    double kvElementsPerToken() const;
    /// KV elements per token of one attention layer (K and V; MLA: the latent).
    double kvElementsPerTokenPerLayer() const;
    int attentionLayers() const;
    int fullAttentionLayers() const;
    int moeLayers() const;
    /// Whether decoder layer i (0-based) has routed experts: past the dense first
    /// layers, every moe.sparseStep-th layer.
    bool isMoeLayer(int i) const;
    /// Bytes of KV cache and recurrent state one sequence of `tokens` holds:
    /// full layers keep every token, sliding/chunked layers at most their window
    /// (what vLLM's hybrid KV cache manager and HF's DynamicSlidingWindowLayer
    /// keep), linear layers their fixed state (bf16, whatever kvBytes is).
    /// `block` > 1 rounds each layer's tokens up to whole pages (vLLM).
    double kvBytesPerSequence(double tokens, double kvBytes, double block = 1) const;
    /// KV elements per token averaged over the layers for a sequence of `tokens`
    /// (what decode reads per context token), windows applied.
    double kvElementsReadPerToken(double tokens) const;
    /// Attention score FLOPs factor: sum over attention layers of the keys a
    /// query at position t attends to, integrated over t in [0, s), divided by
    /// s^2 / 2 (= layers for a model with only full, causal layers).
    double causalAttentionLayerEquivalents(double s) const;
    /// Parameters of the multi-token-prediction layers (not loaded to serve or train).
    double mtpParams() const;
    /// Parameters the runtimes load (everything but the MTP layers).
    double loadedParams() const { return totalParams() - mtpParams(); }
    /// Parameters of the routed experts (all MoE layers), the ones MXFP4 stores.
    double routedExpertParams() const;
    /// Bytes the checkpoint stores (quantization_config applied; storageBytes otherwise).
    double checkpointBytes(bool includeMtp = true) const;
    /// Bytes of the weights a runtime loads as the checkpoint stores them.
    double loadedCheckpointBytes() const { return checkpointBytes(false); }
    /// One line: "gpt-oss-120b: 116.8B parameters (5.1B active), 36 layers: 18 full + 18 sliding (128), ...".
    std::string summary() const;
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
