"""measure.py's cases: each model's shape (a published config.json where the comment says
so) and the named cases of each group (base, round2, round3, round4), in the order they run."""
from measure_common import case
from measure_runs import train_llm, vision, llm_infer, hf_generate  # noqa: F401
from measure_hfinfer import hf_infer

GPT2_124M = dict(n_layer=12, n_embd=768, n_head=12, vocab_size=50257, n_positions=1024)
GPT2_350M = dict(n_layer=24, n_embd=1024, n_head=16, vocab_size=50257, n_positions=1024)
TINYLLAMA = dict(hidden_size=2048, num_hidden_layers=22, num_attention_heads=32, num_key_value_heads=4,
                 intermediate_size=5632, vocab_size=32000, max_position_embeddings=4096, tie_word_embeddings=False)
LLAMA2_7B = dict(hidden_size=4096, num_hidden_layers=32, num_attention_heads=32, num_key_value_heads=32,
                 intermediate_size=11008, vocab_size=32000, max_position_embeddings=4096, tie_word_embeddings=False)
LLAMA3_8B = dict(hidden_size=4096, num_hidden_layers=32, num_attention_heads=32, num_key_value_heads=8,
                 intermediate_size=14336, vocab_size=128256, max_position_embeddings=8192, tie_word_embeddings=False)

cases_train = [
    case("train_gpt2_124m_s1024_mb16_amp_compiled")(lambda: train_llm("gpt2", GPT2_124M, 1024, 16, compile=True)),
    case("train_gpt2_124m_s1024_mb8_amp")(lambda: train_llm("gpt2", GPT2_124M, 1024, 8)),
    case("train_gpt2_350m_s1024_mb8_amp")(lambda: train_llm("gpt2", GPT2_350M, 1024, 8)),
    case("train_tinyllama_s2048_mb4_amp")(lambda: train_llm("llama", TINYLLAMA, 2048, 4)),
    case("train_tinyllama_s2048_mb8_amp_ckpt")(lambda: train_llm("llama", TINYLLAMA, 2048, 8, ckpt=True)),
    case("train_llama2_7b_lora16_s2048_mb2_ckpt")(lambda: train_llm("llama", LLAMA2_7B, 2048, 2, ckpt=True, mode="pure_bf16",
                                                                   lora={"r": 16, "targets": ["q_proj", "k_proj", "v_proj", "o_proj"]}, steps=5)),
]


cases_vision = [
    case("train_resnet50_b128_amp")(lambda: vision("resnet50", 128, True, "amp_bf16")),
    case("infer_resnet50_b32_bf16")(lambda: vision("resnet50", 32, False, "bf16")),
]


cases_llm_inf = [
    case("infer_hfgen_tinyllama_b1_p512_o128")(lambda: hf_generate("tinyllama-1.1b", TINYLLAMA, 1, 512, 128)),
    case("infer_hfgen_llama3_8b_b8_p512_o64")(lambda: hf_generate("llama3-8b", LLAMA3_8B, 8, 512, 64)),
    case("infer_tinyllama_b1_ctx1024")(lambda: llm_infer("tinyllama-1.1b", TINYLLAMA, 1, 1024)),
    case("infer_llama3_8b_b1_ctx1024")(lambda: llm_infer("llama3-8b", LLAMA3_8B, 1, 1024)),
    case("infer_llama3_8b_b32_ctx1024")(lambda: llm_infer("llama3-8b", LLAMA3_8B, 32, 1024)),
]


# ---------------------------------------------------------------- round 2 (shared/calibration/measured-round2.json)
LLAMA32_1B = dict(hidden_size=2048, num_hidden_layers=16, num_attention_heads=32, num_key_value_heads=8,
                  intermediate_size=8192, vocab_size=128256, max_position_embeddings=4096, tie_word_embeddings=True)
MISTRAL_7B = dict(hidden_size=4096, num_hidden_layers=32, num_attention_heads=32, num_key_value_heads=8,
                  intermediate_size=14336, vocab_size=32000, max_position_embeddings=32768, tie_word_embeddings=False)
LLAMA31_70B = dict(hidden_size=8192, num_hidden_layers=80, num_attention_heads=64, num_key_value_heads=8,
                   intermediate_size=28672, vocab_size=128256, max_position_embeddings=8192, tie_word_embeddings=False)
GPT2_XL = dict(n_layer=48, n_embd=1600, n_head=25, vocab_size=50257, n_positions=1024)
MIXTRAL_TINY = dict(hidden_size=1024, num_hidden_layers=8, num_attention_heads=16, num_key_value_heads=8,
                    intermediate_size=3584, num_local_experts=8, num_experts_per_tok=2, vocab_size=32000,
                    max_position_embeddings=4096, tie_word_embeddings=False)

cases_round2 = [
    case("infer_llama3_8b_b128_ctx512")(lambda: llm_infer("llama3-8b", LLAMA3_8B, 128, 512)),
    case("train_resnet50_b64_fp32")(lambda: vision("resnet50", 64, True, "fp32")),
    case("train_resnet18_b1_fp32_seed")(lambda: vision("resnet18", 1, True, "fp32")),
    case("infer_resnet50_b256_bf16")(lambda: vision("resnet50", 256, False, "bf16")),
    case("train_gpt2_124m_s1024_mb32_amp")(lambda: train_llm("gpt2", GPT2_124M, 1024, 32)),
    case("infer_llama32_1b_b256_ctx1024")(lambda: llm_infer("llama3.2-1b", LLAMA32_1B, 256, 1024)),
    case("train_vit_b_16_b64_amp")(lambda: vision("vit_b_16", 64, True, "amp_bf16")),
    case("train_llama32_1b_s4096_mb2_purebf16_ckpt")(lambda: train_llm("llama", LLAMA32_1B, 4096, 2, ckpt=True, mode="pure_bf16")),
    case("infer_mistral7b_b4_ctx16384")(lambda: llm_infer("mistral-7b", MISTRAL_7B, 4, 16384)),
    case("infer_llama31_70b_b1_ctx1024")(lambda: llm_infer("llama3.1-70b", LLAMA31_70B, 1, 1024)),
    case("train_gpt2_xl_s1024_mb4_amp_ckpt")(lambda: train_llm("gpt2", GPT2_XL, 1024, 4, ckpt=True)),
    case("train_mixtral_tiny_moe_s2048_mb4_amp")(lambda: train_llm("mixtral", MIXTRAL_TINY, 2048, 4)),
]

# ---------------------------------------------------------------- round 3 (tests/data/round3): other shapes
QWEN25_05B = dict(hidden_size=896, num_hidden_layers=24, num_attention_heads=14, num_key_value_heads=2,
                  intermediate_size=4864, vocab_size=151936, max_position_embeddings=32768, tie_word_embeddings=True)
QWEN25_15B = dict(hidden_size=1536, num_hidden_layers=28, num_attention_heads=12, num_key_value_heads=2,
                  intermediate_size=8960, vocab_size=151936, max_position_embeddings=32768, tie_word_embeddings=True)
QWEN25_7B = dict(hidden_size=3584, num_hidden_layers=28, num_attention_heads=28, num_key_value_heads=4,
                 intermediate_size=18944, vocab_size=152064, max_position_embeddings=32768, tie_word_embeddings=False)
QWEN25_32B = dict(hidden_size=5120, num_hidden_layers=64, num_attention_heads=40, num_key_value_heads=8,
                  intermediate_size=27648, vocab_size=152064, max_position_embeddings=32768, tie_word_embeddings=False)
LLAMA32_3B = dict(hidden_size=3072, num_hidden_layers=28, num_attention_heads=24, num_key_value_heads=8,
                  intermediate_size=8192, vocab_size=128256, max_position_embeddings=8192, tie_word_embeddings=True)
LLAMA2_13B = dict(hidden_size=5120, num_hidden_layers=40, num_attention_heads=40, num_key_value_heads=40,
                  intermediate_size=13824, vocab_size=32000, max_position_embeddings=4096, tie_word_embeddings=False)
BERT_BASE = dict(hidden_size=768, num_hidden_layers=12, num_attention_heads=12, intermediate_size=3072,
                 vocab_size=30522, max_position_embeddings=512)
BERT_LARGE = dict(hidden_size=1024, num_hidden_layers=24, num_attention_heads=16, intermediate_size=4096,
                  vocab_size=30522, max_position_embeddings=512)
ATTN = ["q_proj", "k_proj", "v_proj", "o_proj"]
ALL_LINEAR = ATTN + ["gate_proj", "up_proj", "down_proj"]

cases_round3 = [
    # language-model training (eager HF, fused AdamW unless said)
    case("train_qwen25_05b_s1024_mb8_amp")(lambda: train_llm("qwen2", QWEN25_05B, 1024, 8)),
    case("train_qwen25_15b_s2048_mb2_purebf16")(lambda: train_llm("qwen2", QWEN25_15B, 2048, 2, mode="pure_bf16")),
    case("train_llama32_1b_s2048_mb4_amp_ckpt")(lambda: train_llm("llama", LLAMA32_1B, 2048, 4, ckpt=True)),
    case("train_llama32_3b_s2048_mb2_purebf16_ckpt")(lambda: train_llm("llama", LLAMA32_3B, 2048, 2, ckpt=True, mode="pure_bf16")),
    case("train_gpt2_350m_s1024_mb16_amp")(lambda: train_llm("gpt2", GPT2_350M, 1024, 16)),
    case("train_gpt2_124m_s1024_mb8_fp32")(lambda: train_llm("gpt2", GPT2_124M, 1024, 8, mode="fp32")),
    case("train_gpt2_124m_s1024_mb8_tf32")(lambda: train_llm("gpt2", GPT2_124M, 1024, 8, mode="tf32")),
    case("train_gpt2_350m_s1024_mb8_amp_sgd")(lambda: train_llm("gpt2", GPT2_350M, 1024, 8, optim="sgd")),
    case("train_tinyllama_lora8_s2048_mb4")(lambda: train_llm("llama", TINYLLAMA, 2048, 4, mode="pure_bf16",
                                                              lora={"r": 8, "targets": ["q_proj", "v_proj"]})),
    case("train_llama2_7b_lora16all_s1024_mb4_ckpt")(lambda: train_llm("llama", LLAMA2_7B, 1024, 4, ckpt=True, mode="pure_bf16",
                                                                       lora={"r": 16, "targets": ALL_LINEAR}, steps=5)),
    case("train_bert_base_s512_mb32_amp")(lambda: train_llm("bert", BERT_BASE, 512, 32)),
    case("train_bert_large_s512_mb16_amp")(lambda: train_llm("bert", BERT_LARGE, 512, 16)),
    case("train_mixtral_tiny_moe_s1024_mb8_amp")(lambda: train_llm("mixtral", MIXTRAL_TINY, 1024, 8)),
    # vision
    case("train_resnet50_b256_amp")(lambda: vision("resnet50", 256, True, "amp_bf16")),
    case("train_resnet18_b128_amp")(lambda: vision("resnet18", 128, True, "amp_bf16")),
    case("train_resnet18_b32_fp32")(lambda: vision("resnet18", 32, True, "fp32")),
    case("train_resnet50_b1_amp")(lambda: vision("resnet50", 1, True, "amp_bf16")),
    case("train_vit_b_16_b128_amp")(lambda: vision("vit_b_16", 128, True, "amp_bf16")),
    case("train_vit_b_16_b32_fp32")(lambda: vision("vit_b_16", 32, True, "fp32")),
    case("infer_vit_b_16_b64_bf16")(lambda: vision("vit_b_16", 64, False, "bf16")),
    case("infer_vit_b_16_b1_fp32")(lambda: vision("vit_b_16", 1, False, "fp32")),
    case("infer_resnet18_b1_bf16")(lambda: vision("resnet18", 1, False, "bf16")),
    case("infer_resnet18_b256_bf16")(lambda: vision("resnet18", 256, False, "bf16")),
    case("infer_resnet50_b1_fp32")(lambda: vision("resnet50", 1, False, "fp32")),
    # language-model inference (minimal decoder, static KV cache, CUDA-graph decode)
    case("infer_qwen25_7b_b16_ctx4096")(lambda: llm_infer("qwen2.5-7b", QWEN25_7B, 16, 4096)),
    case("infer_llama32_3b_b32_ctx2048")(lambda: llm_infer("llama3.2-3b", LLAMA32_3B, 32, 2048)),
    case("infer_llama3_8b_b64_ctx2048")(lambda: llm_infer("llama3-8b", LLAMA3_8B, 64, 2048)),
    case("infer_llama3_8b_b8_ctx8192")(lambda: llm_infer("llama3-8b", LLAMA3_8B, 8, 8192)),
    case("infer_mistral7b_b1_ctx32768")(lambda: llm_infer("mistral-7b", MISTRAL_7B, 1, 32768)),
    case("infer_tinyllama_b64_ctx4096")(lambda: llm_infer("tinyllama-1.1b", TINYLLAMA, 64, 4096)),
    case("infer_llama2_13b_b8_ctx1024")(lambda: llm_infer("llama2-13b", LLAMA2_13B, 8, 1024)),
    case("infer_qwen25_32b_b1_ctx1024")(lambda: llm_infer("qwen2.5-32b", QWEN25_32B, 1, 1024)),
    # compiled (runtime "optimized"): about a minute of compilation
    case("train_llama32_1b_s2048_mb4_amp_compiled")(lambda: train_llm("llama", LLAMA32_1B, 2048, 4, compile=True)),
]


# ---------------------------------------------------------------- round 4 (tests/data/round4): the models people run today
# Each config is the model's published config.json (the text model's part for Gemma 3), sources in
# tests/data/round4/README.md. The record stores the dict the model was built from, so `validate` reads exactly the
# model that ran; where a case builds fewer layers than published, the dict says so (num_hidden_layers, layer_types)
# and the record carries "layers_published".
QWEN3_8B = {  # Qwen/Qwen3-8B config.json
    "architectures": ["Qwen3ForCausalLM"], "attention_bias": False, "attention_dropout": 0.0, "bos_token_id": 151643,
    "eos_token_id": 151645, "head_dim": 128, "hidden_act": "silu", "hidden_size": 4096, "initializer_range": 0.02,
    "intermediate_size": 12288, "max_position_embeddings": 40960, "max_window_layers": 36, "model_type": "qwen3",
    "num_attention_heads": 32, "num_hidden_layers": 36, "num_key_value_heads": 8, "rms_norm_eps": 1e-06,
    "rope_scaling": None, "rope_theta": 1000000, "sliding_window": None, "tie_word_embeddings": False,
    "torch_dtype": "bfloat16", "use_cache": True, "use_sliding_window": False, "vocab_size": 151936}
QWEN3_30B_A3B = {  # Qwen/Qwen3-30B-A3B config.json
    "architectures": ["Qwen3MoeForCausalLM"], "attention_bias": False, "attention_dropout": 0.0, "bos_token_id": 151643,
    "decoder_sparse_step": 1, "eos_token_id": 151645, "head_dim": 128, "hidden_act": "silu", "hidden_size": 2048,
    "initializer_range": 0.02, "intermediate_size": 6144, "max_position_embeddings": 40960, "max_window_layers": 48,
    "mlp_only_layers": [], "model_type": "qwen3_moe", "moe_intermediate_size": 768, "norm_topk_prob": True,
    "num_attention_heads": 32, "num_experts": 128, "num_experts_per_tok": 8, "num_hidden_layers": 48,
    "num_key_value_heads": 4, "output_router_logits": False, "rms_norm_eps": 1e-06, "rope_scaling": None,
    "rope_theta": 1000000.0, "router_aux_loss_coef": 0.001, "sliding_window": None, "tie_word_embeddings": False,
    "torch_dtype": "bfloat16", "use_cache": True, "use_sliding_window": False, "vocab_size": 151936}
_GEMMA3_12B_LAYERS = (["sliding_attention"] * 5 + ["full_attention"]) * 8
GEMMA3_12B_TEXT = {  # google/gemma-3-12b-it config.json, text_config (the language model; no vision tower built)
    "_sliding_window_pattern": 6, "attention_bias": False, "attention_dropout": 0.0, "attn_logit_softcapping": None,
    "cache_implementation": "hybrid", "final_logit_softcapping": None, "head_dim": 256,
    "hidden_activation": "gelu_pytorch_tanh", "hidden_size": 3840, "initializer_range": 0.02, "intermediate_size": 15360,
    "layer_types": _GEMMA3_12B_LAYERS, "max_position_embeddings": 131072, "model_type": "gemma3_text",
    "num_attention_heads": 16, "num_hidden_layers": 48, "num_key_value_heads": 8, "query_pre_attn_scalar": 256,
    "rms_norm_eps": 1e-06, "rope_local_base_freq": 10000, "rope_scaling": {"factor": 8.0, "rope_type": "linear"},
    "rope_theta": 1000000, "sliding_window": 1024, "sliding_window_pattern": 6, "use_cache": True, "vocab_size": 262208}
GPT_OSS_20B_BF16 = {  # openai/gpt-oss-20b config.json without its quantization_config: experts built in bf16
    "architectures": ["GptOssForCausalLM"], "attention_bias": True, "attention_dropout": 0.0, "eos_token_id": 200002,
    "experts_per_token": 4, "head_dim": 64, "hidden_act": "silu", "hidden_size": 2880, "initial_context_length": 4096,
    "initializer_range": 0.02, "intermediate_size": 2880, "layer_types": ["sliding_attention", "full_attention"] * 12,
    "max_position_embeddings": 131072, "model_type": "gpt_oss", "num_attention_heads": 64, "num_experts_per_tok": 4,
    "num_hidden_layers": 24, "num_key_value_heads": 8, "num_local_experts": 32, "output_router_logits": False,
    "pad_token_id": 199999, "rms_norm_eps": 1e-05,
    "rope_scaling": {"beta_fast": 32.0, "beta_slow": 1.0, "factor": 32.0, "original_max_position_embeddings": 4096,
                     "rope_type": "yarn", "truncate": False},
    "rope_theta": 150000, "router_aux_loss_coef": 0.9, "sliding_window": 128, "swiglu_limit": 7.0,
    "tie_word_embeddings": False, "use_cache": True, "vocab_size": 201088}
OLMO2_7B = {  # allenai/OLMo-2-1124-7B config.json
    "architectures": ["Olmo2ForCausalLM"], "attention_bias": False, "attention_dropout": 0.0, "eos_token_id": 100257,
    "hidden_act": "silu", "hidden_size": 4096, "initializer_range": 0.02, "intermediate_size": 11008,
    "max_position_embeddings": 4096, "model_type": "olmo2", "num_attention_heads": 32, "num_hidden_layers": 32,
    "num_key_value_heads": 32, "pad_token_id": 100277, "rms_norm_eps": 1e-06, "rope_theta": 500000.0,
    "tie_word_embeddings": False, "torch_dtype": "bfloat16", "use_cache": True, "vocab_size": 100352}
QWEN3_NEXT_80B_8L = {  # Qwen/Qwen3-Next-80B-A3B-Instruct config.json with 8 of its 48 layers (6 linear + 2 full)
    "architectures": ["Qwen3NextForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
    "bos_token_id": 151643, "decoder_sparse_step": 1, "eos_token_id": 151645, "full_attention_interval": 4,
    "head_dim": 256, "hidden_act": "silu", "hidden_size": 2048, "initializer_range": 0.02, "intermediate_size": 5120,
    "layer_types": ["linear_attention"] * 3 + ["full_attention"] + ["linear_attention"] * 3 + ["full_attention"],
    "linear_conv_kernel_dim": 4, "linear_key_head_dim": 128, "linear_num_key_heads": 16, "linear_num_value_heads": 32,
    "linear_value_head_dim": 128, "max_position_embeddings": 262144, "mlp_only_layers": [], "model_type": "qwen3_next",
    "moe_intermediate_size": 512, "norm_topk_prob": True, "num_attention_heads": 16, "num_experts": 512,
    "num_experts_per_tok": 10, "num_hidden_layers": 8, "num_key_value_heads": 2, "output_router_logits": False,
    "partial_rotary_factor": 0.25, "rms_norm_eps": 1e-06, "rope_scaling": None, "rope_theta": 10000000,
    "router_aux_loss_coef": 0.001, "shared_expert_intermediate_size": 512, "tie_word_embeddings": False,
    "use_cache": True, "use_sliding_window": False, "vocab_size": 151936}


R4_ATTN = ["q_proj", "k_proj", "v_proj", "o_proj"]

cases_round4 = [
    # Qwen3-8B on the minimal decoder with a CUDA-graph decode step (runtime "optimized"), QK norm and head_dim 128
    case("infer_r4_qwen3_8b_b1_ctx4096")(lambda: llm_infer("qwen3-8b", QWEN3_8B, 1, 4096)),
    # Gemma 3 12B at 32k: HF's own cache (sliding layers may keep only the window), sdpa
    case("infer_r4_gemma3_12b_hf_b1_ctx32768")(lambda: hf_infer("gemma-3-12b (text)", GEMMA3_12B_TEXT, 1, 32768)),
    # gpt-oss-20b, experts in bf16: sinks need HF's eager attention
    case("infer_r4_gptoss_20b_bf16_hf_b1_ctx4096")(lambda: hf_infer("gpt-oss-20b (bf16 experts)", GPT_OSS_20B_BF16, 1, 4096,
                                                                   attn="eager")),
    case("infer_r4_qwen3_8b_b32_ctx2048")(lambda: llm_infer("qwen3-8b", QWEN3_8B, 32, 2048, prefill_iters=2, prefill_warm=1)),
    case("infer_r4_qwen3_30b_a3b_hf_b1_ctx1024")(lambda: hf_infer("qwen3-30b-a3b", QWEN3_30B_A3B, 1, 1024)),
    case("train_r4_gemma3_12b_lora16_s2048_mb2_ckpt")(lambda: train_llm("gemma3_text", GEMMA3_12B_TEXT, 2048, 2, ckpt=True,
                                                                        mode="pure_bf16", steps=4,
                                                                        lora={"r": 16, "targets": R4_ATTN})),
    case("train_r4_olmo2_7b_lora16_s2048_mb4_ckpt")(lambda: train_llm("olmo2", OLMO2_7B, 2048, 4, ckpt=True, mode="pure_bf16",
                                                                      steps=4, lora={"r": 16, "targets": R4_ATTN})),
    case("infer_r4_qwen3_8b_hf_b1_ctx4096")(lambda: hf_infer("qwen3-8b", QWEN3_8B, 1, 4096)),
    case("infer_r4_qwen3next_80b_8of48l_hf_b1_ctx2048")(lambda: hf_infer("qwen3-next-80b-a3b (8 of 48 layers)",
                                                                         QWEN3_NEXT_80B_8L, 1, 2048, layers_published=48)),
]
