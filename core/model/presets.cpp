#include "core/model/presets.h"

#include "core/model/hfconfig.h"

#include <nlohmann/json.hpp>

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

/// The models people serve and fine-tune today, each from its published
/// config.json (the keys that change memory or time; token ids, rope details and
/// initialisation left out), read by the same code as a dropped config.json.
struct HfPreset {
    const char* id;
    const char* name;
    const char* config;
};

const HfPreset kHfPresets[] = {
    // huggingface.co/openai/gpt-oss-20b config.json (copy: ai-dynamo/aiconfigurator model_configs/openai--gpt-oss-20b_config.json)
    {"gpt-oss-20b", "gpt-oss-20b (21B MoE, MXFP4 experts)", R"json({"architectures":["GptOssForCausalLM"],"attention_bias":true,"experts_per_token":4,"head_dim":64,"hidden_act":"silu","hidden_size":2880,"initial_context_length":4096,"intermediate_size":2880,"layer_types":["sliding_attention","full_attention","sliding_attention","full_attention","sliding_attention","full_attention","sliding_attention","full_attention","sliding_attention","full_attention","sliding_attention","full_attention","sliding_attention","full_attention","sliding_attention","full_attention","sliding_attention","full_attention","sliding_attention","full_attention","sliding_attention","full_attention","sliding_attention","full_attention"],"max_position_embeddings":131072,"model_type":"gpt_oss","num_attention_heads":64,"num_experts_per_tok":4,"num_hidden_layers":24,"num_key_value_heads":8,"num_local_experts":32,"quantization_config":{"modules_to_not_convert":["model.layers.*.self_attn","model.layers.*.mlp.router","model.embed_tokens","lm_head"],"quant_method":"mxfp4"},"rope_theta":150000,"sliding_window":128,"swiglu_limit":7.0,"tie_word_embeddings":false,"vocab_size":201088})json"},
    // huggingface.co/openai/gpt-oss-120b config.json (copy: ai-dynamo/aiconfigurator model_configs/openai--gpt-oss-120b_config.json)
    {"gpt-oss-120b", "gpt-oss-120b (117B MoE, MXFP4 experts)", R"json({"architectures":["GptOssForCausalLM"],"attention_bias":true,"experts_per_token":4,"head_dim":64,"hidden_act":"silu","hidden_size":2880,"initial_context_length":4096,"intermediate_size":2880,"layer_types":["sliding_attention","full_attention","sliding_attention","full_attention","sliding_attention","full_attention","sliding_attention","full_attention","sliding_attention","full_attention","sliding_attention","full_attention","sliding_attention","full_attention","sliding_attention","full_attention","sliding_attention","full_attention","sliding_attention","full_attention","sliding_attention","full_attention","sliding_attention","full_attention","sliding_attention","full_attention","sliding_attention","full_attention","sliding_attention","full_attention","sliding_attention","full_attention","sliding_attention","full_attention","sliding_attention","full_attention"],"max_position_embeddings":131072,"model_type":"gpt_oss","num_attention_heads":64,"num_experts_per_tok":4,"num_hidden_layers":36,"num_key_value_heads":8,"num_local_experts":128,"quantization_config":{"modules_to_not_convert":["model.layers.*.self_attn","model.layers.*.mlp.router","model.embed_tokens","lm_head"],"quant_method":"mxfp4"},"rope_theta":150000,"sliding_window":128,"swiglu_limit":7.0,"tie_word_embeddings":false,"vocab_size":201088})json"},
    // huggingface.co/Qwen/Qwen3-8B config.json (copy: ai-dynamo/aiconfigurator)
    {"qwen3-8b", "Qwen3 8B", R"json({"architectures":["Qwen3ForCausalLM"],"attention_bias":false,"head_dim":128,"hidden_act":"silu","hidden_size":4096,"intermediate_size":12288,"max_position_embeddings":40960,"max_window_layers":36,"model_type":"qwen3","num_attention_heads":32,"num_hidden_layers":36,"num_key_value_heads":8,"rope_theta":1000000,"sliding_window":null,"tie_word_embeddings":false,"torch_dtype":"bfloat16","use_sliding_window":false,"vocab_size":151936})json"},
    // huggingface.co/Qwen/Qwen3-32B config.json (copy: ai-dynamo/aiconfigurator)
    {"qwen3-32b", "Qwen3 32B", R"json({"architectures":["Qwen3ForCausalLM"],"attention_bias":false,"head_dim":128,"hidden_act":"silu","hidden_size":5120,"intermediate_size":25600,"max_position_embeddings":40960,"max_window_layers":64,"model_type":"qwen3","num_attention_heads":64,"num_hidden_layers":64,"num_key_value_heads":8,"rope_theta":1000000,"sliding_window":null,"tie_word_embeddings":false,"torch_dtype":"bfloat16","use_sliding_window":false,"vocab_size":151936})json"},
    // huggingface.co/Qwen/Qwen3-30B-A3B config.json (copy: ai-dynamo/aiconfigurator)
    {"qwen3-30b-a3b", "Qwen3 30B-A3B (MoE)", R"json({"architectures":["Qwen3MoeForCausalLM"],"attention_bias":false,"decoder_sparse_step":1,"head_dim":128,"hidden_act":"silu","hidden_size":2048,"intermediate_size":6144,"max_position_embeddings":40960,"max_window_layers":48,"mlp_only_layers":[],"model_type":"qwen3_moe","moe_intermediate_size":768,"norm_topk_prob":true,"num_attention_heads":32,"num_experts":128,"num_experts_per_tok":8,"num_hidden_layers":48,"num_key_value_heads":4,"rope_theta":1000000.0,"sliding_window":null,"tie_word_embeddings":false,"torch_dtype":"bfloat16","use_sliding_window":false,"vocab_size":151936})json"},
    // huggingface.co/Qwen/Qwen3-235B-A22B config.json (copy: ai-dynamo/aiconfigurator)
    {"qwen3-235b-a22b", "Qwen3 235B-A22B (MoE)", R"json({"architectures":["Qwen3MoeForCausalLM"],"attention_bias":false,"decoder_sparse_step":1,"head_dim":128,"hidden_act":"silu","hidden_size":4096,"intermediate_size":12288,"max_position_embeddings":40960,"max_window_layers":94,"mlp_only_layers":[],"model_type":"qwen3_moe","moe_intermediate_size":1536,"norm_topk_prob":true,"num_attention_heads":64,"num_experts":128,"num_experts_per_tok":8,"num_hidden_layers":94,"num_key_value_heads":4,"rope_theta":1000000.0,"sliding_window":null,"tie_word_embeddings":false,"torch_dtype":"bfloat16","use_sliding_window":false,"vocab_size":151936})json"},
    // huggingface.co/meta-llama/Llama-3.3-70B-Instruct config.json (copy: ai-dynamo/aiconfigurator)
    {"llama-3.3-70b", "Llama 3.3 70B", R"json({"architectures":["LlamaForCausalLM"],"attention_bias":false,"hidden_act":"silu","hidden_size":8192,"intermediate_size":28672,"max_position_embeddings":131072,"mlp_bias":false,"model_type":"llama","num_attention_heads":64,"num_hidden_layers":80,"num_key_value_heads":8,"pretraining_tp":1,"rope_theta":500000.0,"tie_word_embeddings":false,"torch_dtype":"bfloat16","vocab_size":128256})json"},
    // huggingface.co/meta-llama/Llama-4-Scout-17B-16E-Instruct config.json, with its vision_config (copy: inference-sim/inference-sim)
    {"llama-4-scout", "Llama 4 Scout (109B MoE)", R"json({"architectures":["Llama4ForConditionalGeneration"],"boi_token_index":200080,"eoi_token_index":200081,"image_token_index":200092,"model_type":"llama4","text_config":{"attention_bias":false,"attention_chunk_size":8192,"head_dim":128,"hidden_act":"silu","hidden_size":5120,"interleave_moe_layer_step":1,"intermediate_size":8192,"intermediate_size_mlp":16384,"max_position_embeddings":10485760,"model_type":"llama4_text","no_rope_layers":[],"num_attention_heads":40,"num_experts_per_tok":1,"num_hidden_layers":48,"num_key_value_heads":8,"num_local_experts":16,"rope_theta":500000.0,"torch_dtype":"bfloat16","use_qk_norm":true,"vocab_size":202048},"torch_dtype":"bfloat16","vision_config":{"hidden_act":"gelu","hidden_size":1408,"image_size":336,"intermediate_size":5632,"model_type":"llama4_vision_model","multi_modal_projector_bias":false,"norm_eps":1e-05,"num_attention_heads":16,"num_channels":3,"num_hidden_layers":34,"patch_size":14,"pixel_shuffle_ratio":0.5,"projector_dropout":0.0,"projector_input_dim":4096,"projector_output_dim":4096,"rope_theta":10000,"vision_feature_layer":-1,"vision_feature_select_strategy":"default","vision_output_dim":4096}})json"},
    // huggingface.co/meta-llama/Llama-4-Maverick-17B-128E-Instruct config.json, text_config (copy: ai-dynamo/aiconfigurator)
    {"llama-4-maverick", "Llama 4 Maverick (400B MoE)", R"json({"architectures":["Llama4ForConditionalGeneration"],"model_type":"llama4","text_config":{"attention_bias":false,"attention_chunk_size":8192,"head_dim":128,"hidden_act":"silu","hidden_size":5120,"interleave_moe_layer_step":2,"intermediate_size":8192,"intermediate_size_mlp":16384,"max_position_embeddings":1048576,"model_type":"llama4_text","num_attention_heads":40,"num_experts_per_tok":1,"num_hidden_layers":48,"num_key_value_heads":8,"num_local_experts":128,"rope_theta":500000.0,"torch_dtype":"bfloat16","use_qk_norm":false,"vocab_size":202048},"torch_dtype":"bfloat16"})json"},
    // huggingface.co/deepseek-ai/DeepSeek-R1 config.json (copy: ai-dynamo/aiconfigurator)
    {"deepseek-r1", "DeepSeek-R1 (671B MoE, FP8)", R"json({"architectures":["DeepseekV3ForCausalLM"],"attention_bias":false,"ep_size":1,"first_k_dense_replace":3,"hidden_act":"silu","hidden_size":7168,"intermediate_size":18432,"kv_lora_rank":512,"max_position_embeddings":163840,"model_type":"deepseek_v3","moe_intermediate_size":2048,"moe_layer_freq":1,"n_group":8,"n_routed_experts":256,"n_shared_experts":1,"norm_topk_prob":true,"num_attention_heads":128,"num_experts_per_tok":8,"num_hidden_layers":61,"num_key_value_heads":128,"num_nextn_predict_layers":1,"q_lora_rank":1536,"qk_nope_head_dim":128,"qk_rope_head_dim":64,"quantization_config":{"activation_scheme":"dynamic","fmt":"e4m3","quant_method":"fp8","weight_block_size":[128,128]},"rope_theta":10000,"routed_scaling_factor":2.5,"scoring_func":"sigmoid","tie_word_embeddings":false,"topk_group":4,"topk_method":"noaux_tc","torch_dtype":"bfloat16","v_head_dim":128,"vocab_size":129280})json"},
    // huggingface.co/moonshotai/Kimi-K2-Instruct config.json (copy: ai-dynamo/aiconfigurator)
    {"kimi-k2", "Kimi K2 (1T MoE, FP8)", R"json({"architectures":["DeepseekV3ForCausalLM"],"attention_bias":false,"aux_loss_alpha":0.001,"first_k_dense_replace":1,"hidden_act":"silu","hidden_size":7168,"intermediate_size":18432,"kv_lora_rank":512,"max_position_embeddings":131072,"model_type":"kimi_k2","moe_intermediate_size":2048,"moe_layer_freq":1,"n_group":1,"n_routed_experts":384,"n_shared_experts":1,"norm_topk_prob":true,"num_attention_heads":64,"num_experts_per_tok":8,"num_hidden_layers":61,"num_key_value_heads":64,"num_nextn_predict_layers":0,"pretraining_tp":1,"q_lora_rank":1536,"qk_nope_head_dim":128,"qk_rope_head_dim":64,"quantization_config":{"activation_scheme":"dynamic","fmt":"e4m3","quant_method":"fp8","weight_block_size":[128,128]},"rope_theta":50000.0,"routed_scaling_factor":2.827,"scoring_func":"sigmoid","seq_aux":true,"tie_word_embeddings":false,"topk_group":1,"topk_method":"noaux_tc","torch_dtype":"bfloat16","v_head_dim":128,"vocab_size":163840})json"},
    // Gemma 3 27B: huggingface.co/google/gemma-3-27b-it config.json (its
    // text_config names only what differs from Gemma3TextConfig's defaults:
    // vocab 262208, sliding_window_pattern 6); Gemma 3 technical report
    // (arXiv 2503.19786), table 1: 27B with a 417M SigLIP vision encoder.
    {"gemma-3-27b", "Gemma 3 27B", R"json({"architectures":["Gemma3ForConditionalGeneration"],"model_type":"gemma3","text_config":{"head_dim":128,"hidden_size":5376,"intermediate_size":21504,"model_type":"gemma3_text","num_attention_heads":32,"num_hidden_layers":62,"num_key_value_heads":16,"query_pre_attn_scalar":168,"sliding_window":1024},"torch_dtype":"bfloat16","vision_config":{"hidden_size":1152,"image_size":896,"intermediate_size":4304,"model_type":"siglip_vision_model","num_attention_heads":16,"num_hidden_layers":27,"patch_size":14,"vision_use_head":false}})json"},
};

ModelArch hfPreset(const HfPreset& h)
{
    ModelArch m = modelFromHfConfig(nlohmann::json::parse(h.config), "preset");
    m.id = h.id;
    m.name = h.name;
    m.source = "preset";
    m.readNotes.clear(); // vetted: the defaults they fall back on are the configuration classes'
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
    for (const auto& h : kHfPresets)
        p.push_back(hfPreset(h));

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
        // 671B main model + the HF checkpoint's 14B multi-token-prediction module
        // (counted in params, not loaded: inference and fine-tuning skip it).
        ModelArch m = llamaStyle({"deepseek-v3", "DeepSeek-V3 (671B MoE)", 61, 7168, 128, 128, 128, 18432, 129280,
                                  false, 163840});
        m.mlaKvLoraRank = 512;
        m.mlaRopeHeadDim = 64;
        m.moe.experts = 256;
        m.moe.active = 8;
        m.moe.shared = 1;
        m.moe.expertFfnHidden = 2048;
        m.moe.denseLayers = 3;
        m.mtpLayers = 1;
        m.mtpOwnEmbeddings = true;
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
