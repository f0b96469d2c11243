#!/bin/sh
# Runs each case of a group in its own Python process, so that no allocator
# cache or leftover tensor of an earlier case is counted in a later case's
# peak_reserved_mib, then merges the records into $OUT/results.json.
# Usage: OUT=dir tools/measure/run-fresh.sh GPU_ID GROUP [case-prefix ...]
set -eu
here=$(dirname "$0")
gpu=$1; group=$2; shift 2
out=${OUT:?set OUT to the output folder}
mkdir -p "$out/cases"
OUT="$out/cases/_micro" python3 "$here/measure.py" --gpu-id "$gpu" --group none >/dev/null 2>&1 || true
# MEASURE_DEADLINE_S: stop starting new cases after this many seconds (the
# merge below still runs), for machines lent for a limited time.
deadline=$(( $(date +%s) + ${MEASURE_DEADLINE_S:-1000000} ))
for name in $(python3 "$here/measure.py" --list --group "$group" "$@"); do
    [ "$(date +%s)" -lt "$deadline" ] || { echo "deadline reached before $name" >&2; break; }
    OUT="$out/cases/$name" python3 "$here/measure.py" --gpu-id "$gpu" --group "$group" --no-micro "$name" 2>&1 \
        | grep '^{' | cut -c1-200 || true
done
python3 - "$out" <<'PY'
import json, os, sys
out = sys.argv[1]
merged, seen = [], set()
for d in ["_micro"] + sorted(x for x in os.listdir(os.path.join(out, "cases")) if x != "_micro"):
    p = os.path.join(out, "cases", d, "results.json")
    if not os.path.exists(p):
        continue
    for r in json.load(open(p)):
        if r.get("name") == "device" and "device" in seen:
            continue
        seen.add(r.get("name"))
        merged.append(r)
json.dump(merged, open(os.path.join(out, "results.json"), "w"), indent=1)
print("merged", len(merged), "records")
PY
