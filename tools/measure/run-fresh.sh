#!/bin/sh
# Runs each case of a group in its own Python process, so that no allocator
# cache or leftover tensor of an earlier case is counted in a later case's
# peak_reserved_mib, and merges the records into $OUT/results.json after every
# case (an interrupted run keeps what finished).
# Usage: OUT=dir tools/measure/run-fresh.sh GPU_ID GROUP [case-prefix ...]
# MEASURE_DEADLINE_S: stop starting new cases after this many seconds, for
#   machines lent for a limited time.
# MEASURE_CASE_TIMEOUT_S: end a case that runs longer than this and record it
#   as failed ("timed out"), so one slow case cannot take the whole lease.
set -eu
here=$(dirname "$0")
gpu=$1; group=$2; shift 2
out=${OUT:?set OUT to the output folder}
mkdir -p "$out/cases"

merge() {
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
}

OUT="$out/cases/_micro" python3 "$here/measure.py" --gpu-id "$gpu" --group none >/dev/null 2>&1 || true
merge
deadline=$(( $(date +%s) + ${MEASURE_DEADLINE_S:-1000000} ))
case_timeout=${MEASURE_CASE_TIMEOUT_S:-1000000}
for name in $(python3 "$here/measure.py" --list --group "$group" "$@"); do
    [ "$(date +%s)" -lt "$deadline" ] || { echo "deadline reached before $name" >&2; break; }
    mkdir -p "$out/cases/$name"
    rc=0
    OUT="$out/cases/$name" timeout "$case_timeout" python3 "$here/measure.py" --gpu-id "$gpu" --group "$group" \
        --no-micro "$name" >"$out/cases/$name/log.txt" 2>&1 || rc=$?
    grep '^{' "$out/cases/$name/log.txt" | cut -c1-300 || true
    # a case killed by the timeout (or by a crash) leaves no record of its own: say so
    python3 - "$out/cases/$name/results.json" "$name" "$rc" "$case_timeout" "$gpu" <<'PY'
import json, os, sys
path, name, rc, limit, gpu = sys.argv[1:]
recs = json.load(open(path)) if os.path.exists(path) else []
if not any(r.get("name") == name for r in recs):
    why = "timed out after %s s" % limit if rc in ("124", "137") else "process ended with status %s" % rc
    recs.append({"name": name, "ok": False, "error": why, "gpu_id": gpu})
    json.dump(recs, open(path, "w"), indent=1)
    print(json.dumps(recs[-1]))
PY
    [ "$rc" = 0 ] || tail -5 "$out/cases/$name/log.txt" | cut -c1-300
    merge
done
