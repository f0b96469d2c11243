#!/usr/bin/env bash
# Rewrites the quoted validation tables of README.md and docs/accuracy-history.md (tst_validation and
# tst_calibrate check that they are exactly what `gpuplanner-cli validate DIR
# --summary` and `validate DIR... --cross --summary` print):
#   tests/tools/update-readme-validation.sh [build/dev/app/gpuplanner-cli]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cli=${1:-$root/build/dev/app/gpuplanner-cli}
export GPUPLANNER_CATALOG_OVERLAY=/nonexistent/gpuplanner-readme-overlay.json
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for pair in validate:calibration validate-published:published validate-round2:round2 validate-round3:round3; do
    tag=${pair%%:*}
    "$cli" validate "$root/tests/data/${pair#*:}" --summary >"$tmp/$tag.txt"
done
# The leave-one-out table of the README's "Calibration" section (checked by
# tst_calibrate): the shipped data dirs the built-in calibration is fitted on.
cross=(tests/data/calibration tests/data/round2)
[ -d "$root/tests/data/round3" ] && cross+=(tests/data/round3)
(cd "$root" && "$cli" validate "${cross[@]}" --family-dir tests/data/published --cross --summary) >"$tmp/validate-cross.txt"
python3 - "$tmp" "$root/README.md" "$root/docs/accuracy-history.md" <<'PY'
import pathlib, re, sys
tmp, docs = pathlib.Path(sys.argv[1]), [pathlib.Path(p) for p in sys.argv[2:]]
texts = {d: d.read_text() for d in docs}
for f in tmp.glob("*.txt"):
    tag = f.stem
    pat = re.compile(r"(<!-- %s:begin -->\n```\n).*?(```\n<!-- %s:end -->)" % (re.escape(tag), re.escape(tag)), re.S)
    holders = [d for d in docs if pat.search(texts[d])]
    if not holders:
        sys.exit(f"no <!-- {tag}:begin/end --> block in README.md or docs/accuracy-history.md")
    for d in holders:
        texts[d] = pat.sub(lambda m: m.group(1) + f.read_text() + m.group(2), texts[d])
for d, t in texts.items():
    d.write_text(t)
PY
echo "README.md and docs/accuracy-history.md validation tables updated"
