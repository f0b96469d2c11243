#!/usr/bin/env bash
# Snapshots every text output of gpuplanner-cli that a refactor must keep
# byte-identical: for each example scenario `estimate --explain` (table and
# JSON), `plan`, `rent-vs-buy`, and once `rules`, `gpus`, `presets` and
# `validate` over the shipped measured and published data.
#
#   tests/tools/cli-snapshot.sh BUILD/app/gpuplanner-cli OUTDIR
#   ... change the code, rebuild ...
#   tests/tools/cli-snapshot.sh BUILD/app/gpuplanner-cli OUTDIR2
#   diff -r OUTDIR OUTDIR2          # must print nothing for a pure refactor
#
# Exit codes are recorded too (a changed exit code is a behaviour change).
set -uo pipefail
cli=${1:?usage: cli-snapshot.sh CLI OUTDIR}
out=${2:?usage: cli-snapshot.sh CLI OUTDIR}
root=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"
# No user overlay: the snapshot must not depend on the machine.
export GPUPLANNER_CATALOG_OVERLAY=/nonexistent/gpuplanner-snapshot-overlay.json

snap() { # name, then the command's arguments
    local name=$1
    shift
    "$cli" "$@" >"$out/$name.out" 2>"$out/$name.err"
    echo "exit $?" >>"$out/$name.err"
}

for f in "$root"/resources/examples/*.gpuplan.json; do
    base=$(basename "$f" .gpuplan.json)
    snap "$base.estimate" estimate "$f" --format table --explain
    snap "$base.estimate-json" estimate "$f" --format json --explain
    snap "$base.plan" plan "$f" --format table
    snap "$base.plan-json" plan "$f" --format json
    snap "$base.rent-vs-buy" rent-vs-buy "$f" --format table
done
snap rules rules --format table
snap rules-json rules --format json
snap gpus gpus --format json
snap presets presets --format json
snap validate-calibration validate "$root/tests/data/calibration"
snap validate-published validate "$root/tests/data/published"
snap validate-summary validate "$root/tests/data/calibration" --summary
echo "snapshot of $(ls "$out" | wc -l) files in $out"
