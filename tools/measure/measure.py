"""Ground-truth measurements of training and inference on a CUDA GPU.

GPU Planner's measurement script (tools/measure/README.md). Based on the
calibration script in the project's shared data (same record format), with the
round-2 cases and a third group of shapes added, a tf32/fp32 training mode,
BERT, and a gpu_id tag so `gpuplanner-cli validate` and `calibrate` read the
records without guessing the catalog id.

Usage: python3 measure.py [--gpu-id CATALOG_ID] [--group all|base|round2|round3|round4] [case-prefix ...]

Writes results.json (list of cases) under $OUT (default: a folder in the temp dir), rewriting
it after every case, so an interrupted run keeps what finished. Every case records its full config so a
planner can predict it.
"""
import json, os, sys, time, math, traceback, subprocess
try:
    import torch
    import torch.nn.functional as F
except ImportError:  # `--list` works without PyTorch (run-fresh.sh lists the cases with it)
    if "--list" not in sys.argv:
        raise
    torch = F = None

OUT = os.environ.get("OUT") or os.path.join(__import__("tempfile").gettempdir(), "gpu-measure")
os.makedirs(OUT, exist_ok=True)
RESULTS = []
_args = sys.argv[1:]
GPU_ID = None
GROUP = "all"
ONLY = set()
LIST = False
MICRO = True
while _args:
    a = _args.pop(0)
    if a == "--gpu-id" and _args:
        GPU_ID = _args.pop(0)
    elif a == "--group" and _args:
        GROUP = _args.pop(0)
    elif a == "--list":
        LIST = True
    elif a == "--no-micro":
        MICRO = False
    else:
        ONLY.add(a)


def save():
    with open(os.path.join(OUT, "results.json"), "w") as f:
        json.dump(RESULTS, f, indent=1)


def log(*a):
    print(*a, flush=True)


def mib(b):
    return round(b / 2**20, 1)


def reset():
    import gc
    gc.collect()
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()


def case(name):
    def deco(fn):
        def run():
            if LIST:
                if not ONLY or any(name.startswith(o) for o in ONLY):
                    print(name)
                return
            if ONLY and not any(name.startswith(o) for o in ONLY):
                return
            reset()
            t0 = time.time()
            try:
                r = fn()
                r["name"] = name
                r["ok"] = True
            except Exception as e:
                r = {"name": name, "ok": False, "error": repr(e)[:500], "traceback": traceback.format_exc()[-2000:]}
                traceback.print_exc()
            r["wall_s"] = round(time.time() - t0, 1)
            if GPU_ID:
                r["gpu_id"] = GPU_ID
            RESULTS.append(r)
            save()
            log(json.dumps(r)[:600])
            reset()
        return run
    return deco


def timed(fn, iters, warm=3):
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    for _ in range(iters):
        fn()
    e.record()
    torch.cuda.synchronize()
    return s.elapsed_time(e) / 1000 / iters


# ---------------------------------------------------------------- device info
def device_info():
    p = torch.cuda.get_device_properties(0)
    info = {"name": "device", "gpu": p.name, "total_memory_mib": mib(p.total_memory),
            "sm_count": p.multi_processor_count, "torch": torch.__version__,
            "cuda": torch.version.cuda, "ok": True}
    try:
        q = subprocess.run(["nvidia-smi", "--query-gpu=name,memory.total,power.limit,clocks.max.sm,clocks.max.mem,driver_version",
                            "--format=csv"], capture_output=True, text=True, timeout=30)
        info["nvidia_smi"] = q.stdout.strip()
    except Exception as e:
        info["nvidia_smi"] = repr(e)
    for mod in ("transformers", "peft", "torchvision"):
        try:
            info[mod] = __import__(mod).__version__
        except Exception as e:
            info[mod] = "not importable: " + repr(e)[:100]
    torch.zeros(1, device="cuda")
    free, total = torch.cuda.mem_get_info()
    info["context_overhead_mib"] = mib(total - free - torch.cuda.memory_reserved())
    if GPU_ID:
        info["gpu_id"] = GPU_ID
    RESULTS.append(info)
    save()
    log(info)


# ---------------------------------------------------------------- roofline
@case("micro_bandwidth")
def micro_bandwidth():
    n = 4 * 2**30
    x = torch.empty(n, dtype=torch.uint8, device="cuda")
    y = torch.empty_like(x)
    t = timed(lambda: y.copy_(x), 20)
    return {"kind": "micro", "metric": "copy_bandwidth_gbps", "value": round(2 * n / t / 1e9, 1),
            "bytes_per_copy": n}


def _mm_case(dtype_name):
    M = N = K = 8192
    if dtype_name in ("fp32", "tf32"):
        torch.backends.cuda.matmul.allow_tf32 = dtype_name == "tf32"
        a = torch.randn(M, K, device="cuda"); b = torch.randn(K, N, device="cuda")
        fn = lambda: a @ b
    elif dtype_name in ("fp16", "bf16"):
        dt = torch.float16 if dtype_name == "fp16" else torch.bfloat16
        a = torch.randn(M, K, device="cuda", dtype=dt); b = torch.randn(K, N, device="cuda", dtype=dt)
        fn = lambda: a @ b
    elif dtype_name == "fp8":
        a = torch.randn(M, K, device="cuda").to(torch.float8_e4m3fn)
        b = torch.randn(N, K, device="cuda").to(torch.float8_e4m3fn).t()
        one = torch.tensor(1.0, device="cuda")
        fn = lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
    elif dtype_name == "int8":
        a = torch.randint(-64, 64, (M, K), device="cuda", dtype=torch.int8)
        b = torch.randint(-64, 64, (K, N), device="cuda", dtype=torch.int8)
        fn = lambda: torch._int_mm(a, b)
    t = timed(fn, 20)
    torch.backends.cuda.matmul.allow_tf32 = False
    return {"kind": "micro", "metric": f"matmul_{dtype_name}_tflops", "value": round(2 * M * N * K / t / 1e12, 1),
            "shape": [M, N, K]}


for _d in ["fp32", "tf32", "fp16", "bf16", "fp8", "int8"]:
    globals()[f"mm_{_d}"] = case(f"micro_matmul_{_d}")(lambda _d=_d: _mm_case(_d))


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


cases_vision = [
    case("train_resnet50_b128_amp")(lambda: vision("resnet50", 128, True, "amp_bf16")),
    case("infer_resnet50_b32_bf16")(lambda: vision("resnet50", 32, False, "bf16")),
]


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


def _tensor_bytes(obj, seen, depth=0):
    """Bytes of the distinct tensors an object (a HF cache) holds, looking 4 levels into attributes and lists."""
    if torch.is_tensor(obj):
        key = (obj.untyped_storage().data_ptr(), obj.untyped_storage().nbytes())
        if key in seen or obj.device.type != "cuda":
            return 0
        seen.add(key)
        return obj.untyped_storage().nbytes()
    if depth > 4 or isinstance(obj, (str, int, float, bool, type(None))):
        return 0
    if isinstance(obj, dict):
        return sum(_tensor_bytes(v, seen, depth + 1) for v in obj.values())
    if isinstance(obj, (list, tuple)):
        return sum(_tensor_bytes(v, seen, depth + 1) for v in obj)
    if hasattr(obj, "__dict__"):
        return sum(_tensor_bytes(v, seen, depth + 1) for v in vars(obj).values())
    return 0


def _view_bytes(obj, seen, depth=0):
    """Bytes of the tensors' own elements (a slice counts its slice, not the storage under it)."""
    if torch.is_tensor(obj):
        key = (obj.data_ptr(), tuple(obj.shape))
        if key in seen or obj.device.type != "cuda":
            return 0
        seen.add(key)
        return obj.numel() * obj.element_size()
    if depth > 4 or isinstance(obj, (str, int, float, bool, type(None))):
        return 0
    if isinstance(obj, dict):
        return sum(_view_bytes(v, seen, depth + 1) for v in obj.values())
    if isinstance(obj, (list, tuple)):
        return sum(_view_bytes(v, seen, depth + 1) for v in obj)
    if hasattr(obj, "__dict__"):
        return sum(_view_bytes(v, seen, depth + 1) for v in vars(obj).values())
    return 0


def _cache_info(cache):
    """Which cache class HF used, what each layer keeps, and the bytes it holds: cache_bytes counts the storage the
    cache's tensors keep alive (a window sliced out of a longer tensor keeps the whole tensor), cache_bytes_elements
    only their elements."""
    info = {"cache_class": type(cache).__name__, "cache_bytes": _tensor_bytes(cache, set()),
            "cache_bytes_elements": _view_bytes(cache, set())}
    layers = getattr(cache, "layers", None)
    if isinstance(layers, (list, tuple)) and layers:
        kinds, lens = {}, []
        for l in layers:
            kinds[type(l).__name__] = kinds.get(type(l).__name__, 0) + 1
            k = getattr(l, "keys", None)
            lens.append(int(k.shape[-2]) if torch.is_tensor(k) and k.dim() >= 2 else None)
        info["cache_layer_classes"] = kinds
        info["cache_tokens_per_layer"] = lens
    else:
        kc = getattr(cache, "key_cache", None)
        if isinstance(kc, (list, tuple)):
            info["cache_tokens_per_layer"] = [int(k.shape[-2]) if torch.is_tensor(k) and k.dim() >= 2 else None
                                              for k in kc]
    return info


def _gpu_busy_ms(fn, n=3):
    """GPU kernel time per call of fn (sum of the kernels' own times, torch.profiler), to tell host-bound steps."""
    from torch.profiler import profile, ProfilerActivity
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(n):
            fn()
        torch.cuda.synchronize()
    total_us = 0.0
    for e in prof.key_averages():
        v = getattr(e, "self_device_time_total", None)
        total_us += v if v is not None else getattr(e, "self_cuda_time_total", 0)
    return round(total_us / 1000 / n, 3)


def hf_infer(cfg_name, c, batch, ctx, attn="sdpa", prefill_iters=2, decode_steps=12, layers_published=None):
    """The real Hugging Face model (random bf16 weights): prefill of ctx tokens with the cache HF makes itself, then
    eager decode steps on that cache. Records the cache class and what it holds."""
    import transformers as T
    cfg_cls, cls = (getattr(T, n) for n in HF_CLASSES[c["model_type"]])
    cfg, dropped = _hf_config(cfg_cls, c)
    cfg._attn_implementation = attn
    torch.set_default_dtype(torch.bfloat16)
    try:
        with torch.device("cuda"):
            model = cls(cfg)
    finally:
        torch.set_default_dtype(torch.float32)
    model.eval()
    n_params = count_params(model)
    torch.cuda.synchronize()
    mem_weights = torch.cuda.memory_allocated()
    V = cfg.vocab_size
    x = torch.randint(0, V, (batch, ctx), device="cuda")
    tok = torch.randint(0, V, (batch, 1), device="cuda")
    out, t_pre = None, []
    with torch.no_grad():
        for i in range(1 + prefill_iters):  # the first is a warm-up
            out = None
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            out = model(input_ids=x, use_cache=True, logits_to_keep=1)
            torch.cuda.synchronize()
            if i:
                t_pre.append(time.perf_counter() - t0)
        cache = out.past_key_values
        out = None
        after_prefill = _cache_info(cache)
        state = {"cache": cache}

        def step():
            o = model(input_ids=tok, past_key_values=state["cache"], use_cache=True)
            state["cache"] = o.past_key_values

        for _ in range(2):
            step()
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(decode_steps):
            step()
        torch.cuda.synchronize()
        t_step = (time.perf_counter() - t0) / decode_steps
        peak, reserved = torch.cuda.max_memory_allocated(), torch.cuda.max_memory_reserved()
        after_decode = _cache_info(state["cache"])
        mem_after_decode = torch.cuda.memory_allocated()
        try:
            busy = _gpu_busy_ms(step)
        except Exception as e:
            busy = "profiler failed: " + repr(e)[:200]
    t_prefill = min(t_pre)
    res = {"kind": "infer_llm", "model": cfg_name, "config": c, "params": n_params, "batch": batch, "context_len": ctx,
           "precision_mode": "bf16", "runtime": "eager",
           "framework": "HF transformers %s model forward, eager PyTorch, %s attention, the cache the model makes "
                        "(use_cache=True), logits_to_keep=1, decode steps feed a fixed token (no sampling)" % (T.__version__, attn),
           "attn_implementation": getattr(cfg, "_attn_implementation", attn),
           "experts_implementation": getattr(cfg, "_experts_implementation", None),
           "layers_built": cfg.num_hidden_layers, "layers_published": layers_published or cfg.num_hidden_layers,
           "prefill_s": round(t_prefill, 5), "ttft_ms_prefill_only": round(t_prefill * 1000, 2),
           "prefill_runs_s": [round(t, 4) for t in t_pre],
           "decode_step_ms": round(t_step * 1000, 3), "decode_tokens_per_s_per_seq": round(1 / t_step, 1),
           "decode_tokens_per_s_total": round(batch / t_step, 1),
           "decode_context_range": [ctx + 2, ctx + 2 + decode_steps],
           "decode_gpu_busy_ms": busy,
           "mem_weights_mib": mib(mem_weights), "mem_kv_cache_mib": mib(after_prefill["cache_bytes"]),
           "cache_after_prefill": after_prefill, "cache_after_decode": after_decode,
           "mem_allocated_after_decode_mib": mib(mem_after_decode),
           "peak_allocated_mib": mib(peak), "peak_reserved_mib": mib(reserved)}
    if dropped:
        res["config_keys_not_accepted"] = dropped
    del model, state, cache
    return res


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


if __name__ == "__main__":
    if not LIST:
        device_info()
    if MICRO and not LIST:
        for n in ["fp32", "tf32", "fp16", "bf16", "fp8", "int8"]:
            globals()[f"mm_{n}"]()
        micro_bandwidth()
    groups = {"base": cases_llm_inf + cases_vision + cases_train, "round2": cases_round2, "round3": cases_round3,
              "round4": cases_round4}
    for g in (["base", "round2", "round3", "round4"] if GROUP == "all" else GROUP.split(",")):
        for f in groups.get(g, []):
            f()
    if not LIST:
        log("DONE", len(RESULTS))
