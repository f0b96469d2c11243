#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan + UBSan) in build/fuzz and runs each
# for a bounded time on a scratch copy of its seed corpus.
#
#   tests/fuzz/run.sh [SECONDS_PER_TARGET] [TARGET...]
#
#   SECONDS_PER_TARGET  default 30
#   TARGET              scenario, hfconfig, overlay, validate, calibration, records (default: all six)
#
# Each target uses its seed corpus tests/fuzz/corpus/<target>/ and its
# dictionary tests/fuzz/<target>.dict (the format's keys and words).
# The seed corpora are never written to: new
# inputs and crash artifacts go to a temporary directory, which is kept (and
# printed) when something crashed. Inputs named crash-*.json in the corpus are
# regression inputs: libFuzzer runs every seed first, so one that still crashes
# fails the run immediately.
#
# Environment: BUILD_DIR (default build/fuzz), JOBS (default 2), FUZZ_ARGS (extra
# libFuzzer flags, e.g. "-max_len=65536").
# Exit status: 0 when no target crashed, 1 when one did, 2 for a build problem.
set -u -o pipefail

seconds=${1:-30}
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(scenario hfconfig overlay validate calibration records)

if ! [[ "$seconds" =~ ^[0-9]+$ ]] || [ "$seconds" -lt 1 ]; then
    echo "usage: $0 [SECONDS_PER_TARGET] [scenario|hfconfig|overlay|validate|calibration|records ...]" >&2
    exit 2
fi

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${BUILD_DIR:-$repo/build/fuzz}
jobs=${JOBS:-2}

echo "== configuring $build"
cmake -S "$repo" -B "$build" -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DGP_FUZZ=ON -DGP_SANITIZE=ON \
      -DGP_BUILD_GUI=OFF -DGP_BUILD_TESTS=OFF -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-gline-tables-only >/dev/null || exit 2
build_targets=()
for t in "${targets[@]}"; do
    case "$t" in
    scenario|hfconfig|overlay|validate|calibration|records) build_targets+=("fuzz_$t") ;;
    *) echo "unknown target '$t' (scenario, hfconfig, overlay, validate, calibration, records)" >&2; exit 2 ;;
    esac
done
echo "== building ${build_targets[*]} (-j$jobs)"
cmake --build "$build" -j "$jobs" --target "${build_targets[@]}" || exit 2

work=$(mktemp -d "${TMPDIR:-/tmp}/gp-fuzz.XXXXXX")
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_stack_use_after_return=1:strict_string_checks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}

failed=()
for t in "${targets[@]}"; do
    corpus=$work/$t/corpus
    artifacts=$work/$t/artifacts
    mkdir -p "$corpus" "$artifacts"
    cp "$repo/tests/fuzz/corpus/$t/"* "$corpus/" 2>/dev/null || true
    log=$work/$t/fuzz.log
    dict=()
    [ -f "$repo/tests/fuzz/$t.dict" ] && dict=(-dict="$repo/tests/fuzz/$t.dict")
    echo "== fuzz_$t: ${seconds}s on $(find "$corpus" -type f | wc -l) seeds (log: $log)"
    # (the outer 2>/dev/null drops bash's "Aborted" job notice; the log has the report)
    # shellcheck disable=SC2086 # FUZZ_ARGS is a list of flags
    {
        "$build/tests/fuzz/fuzz_$t" "$corpus" \
            -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
            -artifact_prefix="$artifacts/" "${dict[@]}" ${FUZZ_ARGS:-} >"$log" 2>&1
        rc=$?
    } 2>/dev/null
    # The last status line and the final statistics.
    grep -E '^#[0-9]+.*(DONE|pulse|NEW|REDUCE)' "$log" | tail -n 1
    grep -E '^stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb)' "$log" \
        | tr '\n' ' '
    echo
    crashes=$(ls "$artifacts" 2>/dev/null)
    if [ $rc -ne 0 ] || [ -n "$crashes" ]; then
        failed+=("$t")
        echo "!! fuzz_$t failed (exit $rc); artifacts in $artifacts:"
        ls -l "$artifacts"
        grep -E -m 5 'ERROR: |runtime error|SUMMARY|fuzz_[a-z]+: ' "$log" | cut -c1-240 | sed 's/^/   /'
    fi
done

if [ ${#failed[@]} -gt 0 ]; then
    echo "== FAILED: ${failed[*]} (work directory kept: $work)"
    echo "   reproduce: $build/tests/fuzz/fuzz_<target> <artifact>"
    exit 1
fi
rm -rf "$work"
echo "== no crashes"
exit 0
