#include "presets.h"

#include <cstdint>

namespace gp {

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
        // torchvision's eager encoder block launches 15 kernels forward in one
        // dtype (LayerNorm, packed in-projection, q/k/v and output copies, SDPA,
        // out-projection, GELU, three dropouts, two adds, second LayerNorm, two
        // MLP linears) x 12, plus the patch convolution, class token, position
        // add, final norm and head: 191 (autocast's casts are added by the
        // performance model).
        v.kernelsPerStep = 191;
        v.encoderLayers = 12;
        v.encoderHidden = 768;
        v.encoderHeads = 12;
        v.encoderMlp = 3072;
        v.patchSize = 16;
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

} // namespace gp
