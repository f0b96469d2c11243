#!/usr/bin/env python3
"""Developer aid: predicted memory terms and times vs the measured calibration
records (allocated, reserved), to see which term is off. Not used by tests."""
import json, subprocess, sys, tempfile, os
CLI = sys.argv[1] if len(sys.argv) > 1 else "build/app/gpuplanner-cli"
DATA = sys.argv[2] if len(sys.argv) > 2 else "tests/data/calibration/measured-h100.json"
recs = json.load(open(DATA))
ctx = next((r.get("context_overhead_mib", 620) for r in recs if r.get("name") == "device"), 620)
gpu = next((r.get("gpu_id") for r in recs if r.get("name") == "device"), "nvidia-h100-sxm")
for r in recs:
    k = r.get("kind")
    if k not in ("train_llm", "infer_llm", "train_vision", "infer_vision") or r.get("scored") is False:
        continue
    if k in ("train_llm", "infer_llm"):
        cfg = dict(r["config"]); cfg.setdefault("model_type", r.get("arch", "llama"))
        model = {"hf_config": cfg}
    else:
        model = {"preset": r["arch"].replace("_", "-")}
    if k == "train_llm":
        pm = {"pure_bf16": "bf16"}.get(r["precision_mode"], r["precision_mode"])
        tr = {"micro_batch": r["micro_batch"], "seq_len": r["seq_len"], "precision": pm,
              "activation_checkpointing": "full" if r["grad_checkpointing"] else "none"}
        if r.get("lora"):
            tr.update(method="lora", lora_rank=r["lora"]["r"], lora_targets=r["lora"]["targets"])
        wl = {"mode": "training", "runtime": "optimized" if r.get("compiled") else "eager", "training": tr}
        meas = r["tokens_per_s"]
    elif k == "infer_llm":
        wl = {"mode": "inference", "runtime": "optimized", "inference": {"batch": r["batch"], "prompt_tokens": r["context_len"], "output_tokens": 1}}
        meas = (r["ttft_ms_prefill_only"], r["decode_step_ms"])
    elif k == "train_vision":
        wl = {"mode": "training", "training": {"micro_batch": r["batch"], "optimizer": "sgd_momentum", "precision": r["precision_mode"]}}
        meas = r["images_per_s"]
    else:
        wl = {"mode": "inference", "inference": {"batch": r["batch"], "precision": r["precision_mode"]}}
        meas = r["images_per_s"]
    doc = {"format": "gpuplanner-scenario", "version": 1, "name": r["name"], "model": model, "workload": wl, "hardware": {"gpus": [gpu]}}
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(doc, f)
    out = subprocess.run([CLI, "estimate", f.name, "--explain"], capture_output=True, text=True)
    os.unlink(f.name)
    if out.returncode:
        print(r["name"], out.stderr); continue
    res = json.loads(out.stdout)["results"][0]
    m = res["memory_gib"]
    alloc = r["peak_allocated_mib"] / 1024
    pred_alloc = m["total"] - m["overhead"]
    print(f"== {r['name']}")
    print(f"   alloc pred {pred_alloc:7.2f} meas {alloc:7.2f} ({(pred_alloc/alloc-1)*100:+.1f}%)  reserved-alloc meas {(r['peak_reserved_mib']-r['peak_allocated_mib'])/1024:.2f}  total pred {m['total']:.2f} meas {(r['peak_reserved_mib']+ctx)/1024:.2f}")
    print("   ", {k2: v for k2, v in m.items()})
    tt = {t["key"]: round(t["value"], 2) for t in res["terms"] if t["key"].startswith("time")}
    print("   ", tt)
    perf = res.get("training") or res.get("inference")
    print("    perf", perf, "measured", meas)
