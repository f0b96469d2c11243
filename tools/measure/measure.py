"""Ground-truth measurements of training and inference on a CUDA GPU.

GPU Planner's measurement script (tools/measure/README.md). Based on the
calibration script in the project's shared data (same record format), with the
round-2 cases and a third group of shapes added, a tf32/fp32 training mode,
BERT, and a gpu_id tag so `gpuplanner-cli validate` and `calibrate` read the
records without guessing the catalog id.

Usage: python3 measure.py [--gpu-id CATALOG_ID] [--group all|base|round2|round3|round4] [case-prefix ...]

The script is split by concern into the measure_*.py modules beside it: measure_common.py
(command line, results file, the case decorator, device info, roofline micro-benchmarks),
measure_runs.py (training and inference runs), measure_hfinfer.py (round-4 inference through
Hugging Face's classes) and measure_cases.py (the models and the cases of each group).

Writes results.json (list of cases) under $OUT (default: a folder in the temp dir), rewriting
it after every case, so an interrupted run keeps what finished. Every case records its full config so a
planner can predict it.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # the measure_* modules beside this file

from measure_common import *  # noqa: E402,F401,F403 (the command line, device_info, the micro cases)
from measure_cases import cases_llm_inf, cases_vision, cases_train, cases_round2, cases_round3, cases_round4  # noqa: E402


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
