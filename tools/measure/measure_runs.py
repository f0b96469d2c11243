"""measure.py's runs: training a Hugging Face language model (full, LoRA, compiled),
a torchvision model (training or inference), and inference on a minimal Llama-shaped
decoder with a static KV cache and a CUDA-graph decode step (or HF generate). Each
returns the record of one case; the cases themselves are in measure_cases.py."""
from measure_common import *  # noqa: F401,F403 (torch, F, case, timed, mib, reset, log)

# ---------------------------------------------------------------- round 4 (tests/data/round4): the models people run today
# Each config is the model's published config.json (the text model's part for Gemma 3), sources in
# tests/data/round4/README.md. The record stores the dict the model was built from, so `validate` reads exactly the
# model that ran; where a case builds fewer layers than published, the dict says so (num_hidden_layers, layer_types)
# and the record carries "layers_published".
HF_CLASSES = {"qwen3": ("Qwen3Config", "Qwen3ForCausalLM"), "qwen3_moe": ("Qwen3MoeConfig", "Qwen3MoeForCausalLM"),
              "gemma3_text": ("Gemma3TextConfig", "Gemma3ForCausalLM"), "gpt_oss": ("GptOssConfig", "GptOssForCausalLM"),
              "olmo2": ("Olmo2Config", "Olmo2ForCausalLM"), "phi3": ("Phi3Config", "Phi3ForCausalLM"),
              "qwen3_next": ("Qwen3NextConfig", "Qwen3NextForCausalLM")}
# keys of a config.json that describe the file, not the model
HF_META_KEYS = ("architectures", "torch_dtype", "dtype", "transformers_version", "_name_or_path")


def _hf_config(cfg_cls, d):
    """The config class built from a config.json dict; returns (config, keys the class refused)."""
    kw = {k: v for k, v in d.items() if k not in HF_META_KEYS}
    try:
        return cfg_cls(**kw), []
    except TypeError:  # a strict config class: keep the keys its __init__ names
        import inspect
        names = set(inspect.signature(cfg_cls.__init__).parameters)
        dropped = sorted(k for k in kw if k not in names)
        return cfg_cls(**{k: v for k, v in kw.items() if k in names}), dropped


# ---------------------------------------------------------------- LLM training
def count_params(m):
    return sum(p.numel() for p in m.parameters())


def train_llm(arch, cfg_kw, seq, mb, ckpt=False, mode="amp_bf16", optim="adamw", lora=None, steps=8, compile=False):
    import transformers as T
    if arch in HF_CLASSES:  # round 4: the published config.json of a current model
        cfg_cls, cls = (getattr(T, n) for n in HF_CLASSES[arch])
    else:
        cfg_cls, cls = {"gpt2": (T.GPT2Config, T.GPT2LMHeadModel), "llama": (T.LlamaConfig, T.LlamaForCausalLM),
                        "qwen2": (T.Qwen2Config, T.Qwen2ForCausalLM), "mixtral": (T.MixtralConfig, T.MixtralForCausalLM),
                        "bert": (T.BertConfig, T.BertForMaskedLM)}[arch]
    cfg, dropped = _hf_config(cfg_cls, cfg_kw)
    cfg._attn_implementation = "sdpa"
    if arch != "bert":
        cfg.use_cache = False
    torch.backends.cuda.matmul.allow_tf32 = mode == "tf32"
    base_dtype = torch.bfloat16 if mode in ("pure_bf16",) or lora else torch.float32
    torch.set_default_dtype(base_dtype)
    with torch.device("cuda"):
        model = cls(cfg)
    torch.set_default_dtype(torch.float32)
    n_params = count_params(model)
    if ckpt:
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    trainable = n_params
    if lora:
        from peft import LoraConfig, get_peft_model
        model.enable_input_require_grads() if ckpt else None
        model = get_peft_model(model, LoraConfig(r=lora["r"], lora_alpha=2 * lora["r"], target_modules=lora["targets"],
                                                 lora_dropout=0.0, bias="none"))
        trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    model.train()
    torch.cuda.synchronize()
    mem_weights = torch.cuda.memory_allocated()
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=1e-4, fused=True) if optim == "adamw" else torch.optim.SGD(params, lr=1e-3, momentum=0.9)
    V = cfg.vocab_size
    x = torch.randint(0, V, (mb, seq), device="cuda")
    fwd = torch.compile(model) if compile else model

    def step():
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=(mode == "amp_bf16")):
            out = fwd(input_ids=x, labels=x)
        out.loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)

    step()
    torch.cuda.synchronize()
    mem_after_step = torch.cuda.memory_allocated()
    if compile:
        step(); step()
    t = timed(step, steps, warm=2)
    peak = torch.cuda.max_memory_allocated()
    reserved = torch.cuda.max_memory_reserved()
    tok_s = mb * seq / t
    res = {"kind": "train_llm", "arch": arch, "config": cfg_kw, "params": n_params, "trainable_params": trainable,
           "seq_len": seq, "micro_batch": mb, "grad_checkpointing": ckpt, "precision_mode": mode,
           "optimizer": optim, "lora": lora, "compiled": compile,
           "framework": ("torch.compile" if compile else "pytorch eager") + " + HF transformers (sdpa attention), fused AdamW",
           "step_s": round(t, 4), "tokens_per_s": round(tok_s, 1),
           "model_tflops_6N": round(6 * n_params * tok_s / 1e12, 1) if not lora else None,
           "mem_weights_mib": mib(mem_weights), "mem_persistent_after_step_mib": mib(mem_after_step),
           "peak_allocated_mib": mib(peak), "peak_reserved_mib": mib(reserved)}
    if dropped:
        res["config_keys_not_accepted"] = dropped
    torch.backends.cuda.matmul.allow_tf32 = False
    del model, opt, x
    return res


# ---------------------------------------------------------------- vision
def vision(arch, batch, train, mode, iters=20):
    import torchvision
    model = getattr(torchvision.models, arch)(weights=None).cuda().to(memory_format=torch.channels_last)
    n_params = count_params(model)
    x = torch.randn(batch, 3, 224, 224, device="cuda").to(memory_format=torch.channels_last)
    y = torch.randint(0, 1000, (batch,), device="cuda")
    if train:
        model.train()
        opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)

        def fn():
            with torch.autocast("cuda", dtype=torch.bfloat16, enabled=(mode == "amp_bf16")):
                loss = F.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
    else:
        model.eval()
        if mode in ("bf16", "fp16"):
            dt = torch.bfloat16 if mode == "bf16" else torch.float16
            model = model.to(dt)
            x = x.to(dt)

        def fn():
            with torch.no_grad():
                model(x)
    t = timed(fn, iters)
    return {"kind": "train_vision" if train else "infer_vision", "arch": arch, "params": n_params, "batch": batch,
            "image_size": 224, "precision_mode": mode, "optimizer": "sgd_momentum" if train else None,
            "framework": "pytorch eager, channels_last, cudnn tf32 default=%s" % torch.backends.cudnn.allow_tf32,
            "step_s": round(t, 5), "images_per_s": round(batch / t, 1), "latency_ms": round(t * 1000, 3),
            "peak_allocated_mib": mib(torch.cuda.max_memory_allocated()), "peak_reserved_mib": mib(torch.cuda.max_memory_reserved())}


# ---------------------------------------------------------------- LLM inference (minimal decoder, CUDA graphs)
class Decoder:
    """Llama-shaped decoder with random bf16 weights and a static KV cache."""

    def __init__(self, c, batch, ctx):
        dt = torch.bfloat16
        h, L = c["hidden_size"], c["num_hidden_layers"]
        self.nh, self.nkv = c["num_attention_heads"], c["num_key_value_heads"]
        self.hd = c.get("head_dim") or h // self.nh  # explicit head_dim (Qwen3) where the config gives one
        self.qk_norm = c.get("model_type") in ("qwen3",)  # per-head RMSNorm of q and k (Qwen3)
        ffn, V = c["intermediate_size"], c["vocab_size"]
        r = lambda *s: torch.randn(*s, device="cuda", dtype=dt) * 0.02
        self.embed = r(V, h)
        self.layers = [dict(qkv=r(h, (self.nh + 2 * self.nkv) * self.hd), o=r(self.nh * self.hd, h), w13=r(h, 2 * ffn),
                            w2=r(ffn, h), n1=torch.ones(h, device="cuda", dtype=dt), n2=torch.ones(h, device="cuda", dtype=dt),
                            **({"qn": torch.ones(self.hd, device="cuda", dtype=dt), "kn": torch.ones(self.hd, device="cuda", dtype=dt)}
                               if self.qk_norm else {}))
                       for _ in range(L)]
        self.head = r(h, V)
        self.ffn = ffn
        self.params = sum(t.numel() for t in [self.embed, self.head]) + sum(
            sum(t.numel() for t in l.values()) for l in self.layers)
        torch.cuda.synchronize()
        self.mem_weights = torch.cuda.memory_allocated()
        self.k = torch.zeros(L, batch, self.nkv, ctx + 1, self.hd, device="cuda", dtype=dt)
        self.v = torch.zeros_like(self.k)
        self.ctx = ctx
        torch.cuda.synchronize()
        self.mem_kv = torch.cuda.memory_allocated() - self.mem_weights

    def _layer(self, i, x, causal, write_pos=None):
        l = self.layers[i]
        B, T, h = x.shape
        y = F.rms_norm(x, (h,), l["n1"])
        qkv = y @ l["qkv"]
        q, k, v = qkv.split([self.nh * self.hd, self.nkv * self.hd, self.nkv * self.hd], -1)
        q = q.view(B, T, self.nh, self.hd)
        k = k.view(B, T, self.nkv, self.hd)
        if self.qk_norm:
            q = F.rms_norm(q, (self.hd,), l["qn"])
            k = F.rms_norm(k, (self.hd,), l["kn"])
        q = q.transpose(1, 2)
        k = k.transpose(1, 2)
        v = v.view(B, T, self.nkv, self.hd).transpose(1, 2)
        if write_pos is not None:  # decode: one new token at a fixed position, attend over the cache
            self.k[i, :, :, write_pos:write_pos + 1] = k
            self.v[i, :, :, write_pos:write_pos + 1] = v
            k, v = self.k[i], self.v[i]
        else:  # prefill writes the prompt's keys into the cache
            self.k[i, :, :, :T] = k
            self.v[i, :, :, :T] = v
        a = F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=True)
        x = x + a.transpose(1, 2).reshape(B, T, -1) @ l["o"]
        y = F.rms_norm(x, (h,), l["n2"])
        g, u = (y @ l["w13"]).split([self.ffn, self.ffn], -1)
        return x + (F.silu(g) * u) @ l["w2"]

    def forward(self, tokens, decode):
        x = self.embed[tokens]
        for i in range(len(self.layers)):
            x = self._layer(i, x, causal=not decode, write_pos=self.ctx if decode else None)
        return x[:, -1] @ self.head


def llm_infer(cfg_name, c, batch, ctx, prefill_iters=5, prefill_warm=2):
    m = Decoder(c, batch, ctx)
    prompt = torch.randint(0, c["vocab_size"], (batch, ctx), device="cuda")
    with torch.no_grad():
        t_prefill = timed(lambda: m.forward(prompt, decode=False), prefill_iters, warm=prefill_warm)
        tok = torch.randint(0, c["vocab_size"], (batch, 1), device="cuda")
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(3):
                m.forward(tok, decode=True)
        torch.cuda.current_stream().wait_stream(s)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            m.forward(tok, decode=True)
        t_step = timed(g.replay, 50, warm=5)
    kv_bytes = 2 * len(m.layers) * batch * m.nkv * (ctx + 1) * m.hd * 2
    res = {"kind": "infer_llm", "model": cfg_name, "config": c, "params": m.params, "batch": batch, "context_len": ctx,
           "precision_mode": "bf16", "framework": "minimal PyTorch decoder, SDPA attention, CUDA graph decode step, no RoPE/sampling"
           + (", per-head QK RMSNorm, head_dim %d" % m.hd if m.qk_norm else ""),
           "prefill_s": round(t_prefill, 5), "ttft_ms_prefill_only": round(t_prefill * 1000, 2),
           "decode_step_ms": round(t_step * 1000, 3), "decode_tokens_per_s_per_seq": round(1 / t_step, 1),
           "decode_tokens_per_s_total": round(batch / t_step, 1),
           "decode_bytes_per_step_est": m.params * 2 + kv_bytes,
           "achieved_bandwidth_gbps_est": round((m.params * 2 + kv_bytes) / t_step / 1e9, 1),
           "mem_weights_mib": mib(m.mem_weights), "mem_kv_cache_mib": mib(m.mem_kv),
           "peak_allocated_mib": mib(torch.cuda.max_memory_allocated()), "peak_reserved_mib": mib(torch.cuda.max_memory_reserved())}
    del m, g
    return res


def hf_generate(cfg_name, c, batch, prompt, out_tokens):
    from transformers import LlamaConfig, LlamaForCausalLM
    cfg = LlamaConfig(**c)
    cfg._attn_implementation = "sdpa"
    torch.set_default_dtype(torch.bfloat16)
    with torch.device("cuda"):
        model = LlamaForCausalLM(cfg)
    torch.set_default_dtype(torch.float32)
    model.eval()
    n_params = count_params(model)
    x = torch.randint(0, c["vocab_size"], (batch, prompt), device="cuda")
    kw = dict(do_sample=False, pad_token_id=0, eos_token_id=None)
    with torch.no_grad():
        model.generate(x, max_new_tokens=4, min_new_tokens=4, **kw)
        torch.cuda.synchronize()
        t0 = time.time(); model.generate(x, max_new_tokens=1, min_new_tokens=1, **kw); torch.cuda.synchronize()
        t_first = time.time() - t0
        t0 = time.time(); model.generate(x, max_new_tokens=out_tokens, min_new_tokens=out_tokens, **kw); torch.cuda.synchronize()
        t_all = time.time() - t0
    tpot = (t_all - t_first) / (out_tokens - 1)
    res = {"kind": "infer_llm", "model": cfg_name, "config": c, "params": n_params, "batch": batch, "context_len": prompt,
           "output_tokens": out_tokens, "precision_mode": "bf16",
           "framework": "HF transformers generate(), eager PyTorch, SDPA, dynamic KV cache, greedy",
           "prefill_s": round(t_first, 5), "ttft_ms_prefill_only": round(t_first * 1000, 2),
           "decode_step_ms": round(tpot * 1000, 3), "decode_tokens_per_s_per_seq": round(1 / tpot, 1),
           "decode_tokens_per_s_total": round(batch / tpot, 1), "runtime": "eager",
           "peak_allocated_mib": mib(torch.cuda.max_memory_allocated()), "peak_reserved_mib": mib(torch.cuda.max_memory_reserved())}
    del model
    return res
