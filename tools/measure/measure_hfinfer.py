"""measure.py's round-4 inference through Hugging Face's own model classes and cache
(hf_infer): sliding-window and linear-attention caches measured by the bytes their
tensors hold, after prefill and after decode, with the GPU's busy time per step."""
from measure_common import *  # noqa: F401,F403 (torch, F, mib, reset, log)
from measure_runs import HF_CLASSES, _hf_config, count_params

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
