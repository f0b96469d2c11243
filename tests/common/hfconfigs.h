#pragma once
// Hugging Face config.json files shared by the tests (tst_model, tst_scenario,
// tst_mainwindow): real files, trimmed to the keys that matter plus a few that do
// not (the parser must ignore those). Deliberately broken configs stay next to
// the test that feeds them.
#include <string>

namespace gp::test {

// meta-llama/Llama-3.1-8B config.json.
inline constexpr const char* kLlama31_8bConfig = R"({
  "_name_or_path": "meta-llama/Llama-3.1-8B",
  "architectures": ["LlamaForCausalLM"],
  "attention_bias": false,
  "attention_dropout": 0.0,
  "bos_token_id": 128000,
  "eos_token_id": 128001,
  "hidden_act": "silu",
  "hidden_size": 4096,
  "initializer_range": 0.02,
  "intermediate_size": 14336,
  "max_position_embeddings": 131072,
  "mlp_bias": false,
  "model_type": "llama",
  "num_attention_heads": 32,
  "num_hidden_layers": 32,
  "num_key_value_heads": 8,
  "pretraining_tp": 1,
  "rms_norm_eps": 1e-05,
  "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                   "original_max_position_embeddings": 8192, "rope_type": "llama3"},
  "rope_theta": 500000.0,
  "tie_word_embeddings": false,
  "torch_dtype": "bfloat16",
  "transformers_version": "4.43.0.dev0",
  "use_cache": true,
  "vocab_size": 128256
})";

// mistralai/Mixtral-8x7B-v0.1 config.json.
inline constexpr const char* kMixtralConfig = R"({
  "architectures": ["MixtralForCausalLM"],
  "hidden_act": "silu",
  "hidden_size": 4096,
  "intermediate_size": 14336,
  "max_position_embeddings": 32768,
  "model_type": "mixtral",
  "num_attention_heads": 32,
  "num_experts_per_tok": 2,
  "num_hidden_layers": 32,
  "num_key_value_heads": 8,
  "num_local_experts": 8,
  "output_router_logits": false,
  "rope_theta": 1000000.0,
  "router_aux_loss_coef": 0.02,
  "sliding_window": null,
  "tie_word_embeddings": false,
  "vocab_size": 32000
})";

// openai-community/gpt2 config.json.
inline constexpr const char* kGpt2Config = R"({
  "activation_function": "gelu_new",
  "architectures": ["GPT2LMHeadModel"],
  "attn_pdrop": 0.1,
  "bos_token_id": 50256,
  "embd_pdrop": 0.1,
  "eos_token_id": 50256,
  "initializer_range": 0.02,
  "layer_norm_epsilon": 1e-05,
  "model_type": "gpt2",
  "n_ctx": 1024,
  "n_embd": 768,
  "n_head": 12,
  "n_inner": null,
  "n_layer": 12,
  "n_positions": 1024,
  "resid_pdrop": 0.1,
  "summary_type": "cls_index",
  "task_specific_params": {"text-generation": {"do_sample": true, "max_length": 50}},
  "vocab_size": 50257
})";

// google-bert/bert-base-uncased config.json.
inline constexpr const char* kBertConfig = R"({
  "architectures": ["BertForMaskedLM"],
  "attention_probs_dropout_prob": 0.1,
  "hidden_act": "gelu",
  "hidden_size": 768,
  "intermediate_size": 3072,
  "max_position_embeddings": 512,
  "model_type": "bert",
  "num_attention_heads": 12,
  "num_hidden_layers": 12,
  "type_vocab_size": 2,
  "vocab_size": 30522
})";

// Qwen/Qwen2.5-72B config.json.
inline constexpr const char* kQwen25_72bConfig = R"({
  "architectures": ["Qwen2ForCausalLM"],
  "hidden_size": 8192,
  "intermediate_size": 29568,
  "max_position_embeddings": 32768,
  "model_type": "qwen2",
  "num_attention_heads": 64,
  "num_hidden_layers": 80,
  "num_key_value_heads": 8,
  "tie_word_embeddings": false,
  "vocab_size": 152064
})";

// deepseek-ai/DeepSeek-V3 config.json.
inline constexpr const char* kDeepseekV3Config = R"({
  "architectures": ["DeepseekV3ForCausalLM"],
  "first_k_dense_replace": 3,
  "hidden_size": 7168,
  "intermediate_size": 18432,
  "kv_lora_rank": 512,
  "max_position_embeddings": 163840,
  "model_type": "deepseek_v3",
  "moe_intermediate_size": 2048,
  "moe_layer_freq": 1,
  "n_group": 8,
  "n_routed_experts": 256,
  "n_shared_experts": 1,
  "num_attention_heads": 128,
  "num_experts_per_tok": 8,
  "num_hidden_layers": 61,
  "num_key_value_heads": 128,
  "num_nextn_predict_layers": 1,
  "q_lora_rank": 1536,
  "qk_nope_head_dim": 128,
  "qk_rope_head_dim": 64,
  "tie_word_embeddings": false,
  "v_head_dim": 128,
  "vocab_size": 129280
})";

// TinyLlama/TinyLlama-1.1B config.json, on one line as a user might paste it.
inline constexpr const char* kTinyLlamaConfig = R"({"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 2048,
  "intermediate_size": 5632, "num_hidden_layers": 22, "num_attention_heads": 32,
  "num_key_value_heads": 4, "vocab_size": 32000, "max_position_embeddings": 2048,
  "tie_word_embeddings": false, "hidden_act": "silu"})";

/// A scenario "model" object written as an hf_config: {"hf_config": CONFIG}.
inline std::string hfModel(const char* config) { return std::string(R"({"hf_config": )") + config + "}"; }

} // namespace gp::test
