"""measure.py's common parts: the command line (--gpu-id, --group, --list, --no-micro,
case prefixes), the results file under $OUT, the `case` decorator that runs, times and
records one case (or lists it), GPU timing, the device description and the roofline
micro-benchmarks (copy bandwidth, matmul TFLOPS per format)."""
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
