#!/usr/bin/env python3
"""Converts a version 1 calibration table to version 2 (per-kind family bands,
issue #16) in place, keeping the file's layout, so that calibrate can start from
it: each uncertainty_family_<family>_throughput entry becomes _training and
_inference entries with its value and a _memory entry at 0 (the reading
loadCalibration gives a version 1 table), uncertainty_unmeasured_family becomes
"fitted" (calibrate measures it), and the header's version, count and counts
follow. For merging a branch that still writes version 1 into this one:

    tests/tools/calibration-v1-to-v2.py resources/calibration/builtin-calibration.json
    /work/fastbuild.sh && tests/tools/update-calibration.sh build/fast/app/gpuplanner-cli
"""
import json
import os
import re
import sys

KINDS = [
    ("training", "Training throughput band", "training throughput rows (tokens/s or images/s per GPU)",
     "0 = none: uncertainty_unmeasured_family applies"),
    ("inference", "Serving/inference throughput band",
     "serving and inference throughput rows (prefill, decode, output tokens/s)",
     "0 = none: uncertainty_unmeasured_family applies"),
    ("memory", "Memory band", "scored memory rows",
     "0 = none: uncertainty_memory widened for another architecture applies"),
]
UNMEASURED_FORM = ("Throughput band of a GPU whose architecture family has no published rows of the workload's kind "
                   "(training, or serving/inference): the spread of the Hopper-fitted efficiencies applied to other "
                   "datasheets with nothing of the family fitted (every family scale at 1), measured on the published "
                   "rows of the families that have them; the estimate says so.")


def main(path):
    text = open(path).read()
    doc = json.loads(text)
    if doc.get("version", 1) != 1:
        sys.exit(f"{path}: version {doc.get('version')}, nothing to convert")
    lines = text.split("\n")
    out = []
    i = 0
    while i < len(lines):
        m = re.match(r'    \{"id": "uncertainty_family_(\w+?)_throughput", "value": ([0-9.eE+-]+),', lines[i])
        if not m:
            out.append(lines[i])
            i += 1
            continue
        family, value = m.group(1), m.group(2)
        label = re.match(r'     "form": "Throughput band of (.*?) GPUs', lines[i + 2]).group(1)
        trail = "," if lines[i + 2].endswith("},") else ""
        entries = []
        for kind, what, rows, fallback in KINDS:
            v = value if kind != "memory" else "0"
            fitted_on = f"version 1 table: its one throughput band, {value}" if kind != "memory" else \
                "version 1 table: no memory band"
            form = (f"{what} of {label} GPUs: RMS of the leave-one-out ln(predicted/measured) of that family's {rows} "
                    f"(at least 3 rows; {fallback}).")
            entries.append(f'    {{"id": "uncertainty_family_{family}_{kind}", "value": {v}, "unit": "relative 1-sigma", '
                           f'"min": 0, "max": 1, "kind": "fitted",\n     "fitted_on": {json.dumps(fitted_on)},\n'
                           f'     "form": {json.dumps(form)}}}')
        out.append(",\n".join(entries) + trail)
        i += 3
    text = "\n".join(out)
    text = re.sub(r'("id": "uncertainty_unmeasured_family", "value": [0-9.eE+-]+, "unit": "relative 1-sigma", '
                  r'"min": [0-9.]+, "max": [0-9.]+, "kind": )"assumed"', r'\1"fitted"', text)
    text = re.sub(r'("id": "uncertainty_unmeasured_family".*?\n.*?\n     "form": )"[^"]*"',
                  lambda m: m.group(1) + json.dumps(UNMEASURED_FORM), text)
    converted = json.loads(text)
    counts = {}
    for c in converted["constants"]:
        counts[c["kind"]] = counts.get(c["kind"], 0) + 1
    text = text.replace('"version": 1,', '"version": 2,', 1)
    text = re.sub(r'"count": \d+,', f'"count": {len(converted["constants"])},', text, count=1)
    text = re.sub(r'"counts": \{[^}]*\}', '"counts": {' + ", ".join(f'"{k}": {counts[k]}' for k in sorted(counts)) + "}",
                  text, count=1)
    json.loads(text)
    # Atomic: the old table stays whole if the write fails (full disk, no permission).
    part = path + ".part"
    try:
        with open(part, "w") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(part, path)
    except OSError as e:
        if os.path.exists(part):
            os.remove(part)
        sys.exit(f"{path}: not written ({e.strerror}); the old table is kept")
    print(f"{path}: version 2, {len(converted['constants'])} constants")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: calibration-v1-to-v2.py FILE")
    main(sys.argv[1])
