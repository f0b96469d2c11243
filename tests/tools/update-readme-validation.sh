#!/usr/bin/env bash
# Rewrites the README's quoted validation tables (tst_validation and
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
python3 - "$root/README.md" "$tmp" <<'PY'
import pathlib, re, sys
readme, tmp = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
text = readme.read_text()
for f in tmp.glob("*.txt"):
    tag = f.stem
    pat = re.compile(r"(<!-- %s:begin -->\n```\n).*?(```\n<!-- %s:end -->)" % (re.escape(tag), re.escape(tag)), re.S)
    if not pat.search(text):
        sys.exit(f"README.md has no <!-- {tag}:begin/end --> block")
    text = pat.sub(lambda m: m.group(1) + f.read_text() + m.group(2), text)
readme.write_text(text)
PY
echo "README.md validation tables updated"
