#!/usr/bin/env bash
# Snapshots gpuplanner-cli's diagnostics for a fixed set of bad inputs, the
# counterpart of cli-snapshot.sh (which covers valid inputs only): a refactor
# of the JSON readers must keep every message byte-identical.
#
#   tests/tools/cli-errors-snapshot.sh BUILD/app/gpuplanner-cli OUTDIR
#   ... change the code, rebuild ...
#   tests/tools/cli-errors-snapshot.sh BUILD/app/gpuplanner-cli OUTDIR2
#   diff -r OUTDIR OUTDIR2          # must print nothing for a pure refactor
#
# Covers: bad values for every catalog overlay field kind (numbers, nullable
# numbers, integers, strings, booleans, category, price object, sparse object,
# string lists, id, remove), unknown keys, wrong types, long non-ASCII values,
# an overlay with more than 100 problems (the error cap), bad enums and values
# in scenarios, bad hf_config values and bad explicit model values. A few
# valid overlays are included so merged values are recorded too.
# Each case records stdout, stderr and the exit code.
set -uo pipefail
cli=${1:?usage: cli-errors-snapshot.sh CLI OUTDIR}
out=${2:?usage: cli-errors-snapshot.sh CLI OUTDIR}
mkdir -p "$out"
# The cases run inside a temporary folder: make both paths absolute first.
[[ $cli == */* && $cli != /* ]] && cli=$PWD/$cli
out=$(cd "$out" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export GPUPLANNER_CATALOG_OVERLAY=/nonexistent/gpuplanner-snapshot-overlay.json

# Paths in messages name the input file; keep them independent of mktemp.
cd "$tmp" || exit 1

run() { # name, then the command's arguments
    local name=$1
    shift
    "$cli" "$@" >"$out/$name.out" 2>"$out/$name.err"
    echo "exit $?" >>"$out/$name.err"
}

# overlay NAME: the overlay JSON on stdin; runs `gpus --format json` and the
# first GPU estimate with it (stdout of gpus shows merged values).
overlay() {
    local name=$1
    cat >"ov-$name.json"
    GPUPLANNER_CATALOG_OVERLAY="ov-$name.json" run "overlay-$name" gpus --format json
}

# scenario NAME: the scenario JSON on stdin; runs `estimate --format json`.
scenario() {
    local name=$1
    cat >"sc-$name.gpuplan.json"
    run "scenario-$name" estimate "sc-$name.gpuplan.json" --gpu nvidia-h100-sxm --format json
}

# A scenario whose "model" is $1 and workload/hardware/pricing valid.
withModel() {
    cat <<EOF
{"format": "gpuplanner-scenario", "version": 1, "model": $1,
 "workload": {"mode": "inference", "inference": {"precision": "bf16", "batch": 1, "prompt_tokens": 128, "output_tokens": 64}},
 "hardware": {"gpus": ["nvidia-h100-sxm"], "count": 1}}
EOF
}

long=$(printf 'Ä%.0s' $(seq 1 80))
longkey=$(printf 'k%.0s' $(seq 1 200))

# --- catalog overlay: numbers -------------------------------------------
overlay number-types <<'EOF'
[{"id": "nvidia-t4", "memory_gb": "16", "memory_bandwidth_gbps": -1, "fp32_tflops": true,
  "tf32_tflops": -0.5, "fp16_tflops": [1], "bf16_tflops": {"a": 1}, "fp8_tflops": 1e300,
  "int8_tops": 1e8, "fp4_tflops": "x", "tdp_w": -70, "interconnect_gbps": false,
  "purchase_usd": "1500", "fp64_tflops": -1, "fp16_acc16_tflops": "n"}]
EOF
overlay number-zero <<'EOF'
[{"id": "nvidia-t4", "memory_gb": 0, "memory_bandwidth_gbps": null}]
EOF
overlay number-integral-float <<'EOF'
[{"id": "nvidia-t4", "memory_gb": 24.0, "tdp_w": null, "purchase_usd": 10000000}]
EOF
# --- integers -------------------------------------------------------------
overlay ints <<'EOF'
[{"id": "nvidia-t4", "pcie_gen": 0, "mig_max_instances": 65, "year": 1989.5}]
EOF
overlay ints-types <<'EOF'
[{"id": "nvidia-l4", "pcie_gen": "4", "mig_max_instances": true, "year": 2100.0},
 {"id": "nvidia-a10", "pcie_gen": 8, "mig_max_instances": -1, "year": 1e20}]
EOF
# --- strings, booleans, category ----------------------------------------
overlay strings <<'EOF'
[{"id": "nvidia-t4", "name": "", "vendor": 1, "architecture": [], "form_factor": {},
  "memory_type": true, "interconnect": 3.5, "purchase_note": null, "confidence": false, "notes": ["x"]}]
EOF
overlay name-null <<'EOF'
[{"id": "nvidia-t4", "name": null}]
EOF
overlay bools <<'EOF'
[{"id": "nvidia-t4", "ecc": "yes", "mig": 1}, {"id": "nvidia-l4", "ecc": null}]
EOF
overlay category <<'EOF'
[{"id": "nvidia-t4", "category": "server"}, {"id": "nvidia-l4", "category": 3},
 {"id": "nvidia-a10", "category": "Datacenter"}, {"id": "nvidia-a30", "category": "tpu"}]
EOF
# --- nested objects and lists -------------------------------------------
overlay price <<'EOF'
[{"id": "nvidia-t4", "price_hour_usd": {"low": -1, "typical": "2", "high": 1e9, "spot": "x",
  "providers": 3, "seen": [], "extra": 1}},
 {"id": "nvidia-l4", "price_hour_usd": [1, 2]}, {"id": "nvidia-a10", "price_hour_usd": 2.5}]
EOF
overlay price-merge <<'EOF'
[{"id": "nvidia-t4", "price_hour_usd": {"typical": 2.5, "spot": null}},
 {"id": "nvidia-l4", "price_hour_usd": null}, {"id": "nvidia-a10", "price_hour_usd": {"spot": 0.2, "seen": null}}]
EOF
overlay sparse <<'EOF'
[{"id": "nvidia-t4", "sparse": {"tf32": -1, "fp16": "a", "bf16": 2, "int8": null}},
 {"id": "nvidia-l4", "sparse": [1]}, {"id": "nvidia-a10", "sparse": null}]
EOF
overlay lists <<'EOF'
[{"id": "nvidia-t4", "uncertain_fields": "memory_gb", "sources": ["a", 1, null, {"x": 2}]},
 {"id": "nvidia-l4", "uncertain_fields": null, "sources": {}}]
EOF
# --- ids, remove, entries -----------------------------------------------
overlay ids <<'EOF'
[{"name": "no id"}, {"id": ""}, {"id": "Nvidia-T4"}, {"id": "-x"}, {"id": 4}, {"id": "a b"},
 {"id": "nvidia-t4", "notes": "a"}, {"id": "nvidia-t4", "notes": "b"}, 3, "str", null, []]
EOF
overlay remove <<'EOF'
[{"id": "nvidia-t4", "remove": "yes"}, {"id": "nvidia-l4", "remove": true, "name": "x"},
 {"id": "nvidia-t5", "remove": true}, {"id": "zzzzzzzzzzzzzzzzzz-not-close", "remove": true},
 {"id": "nvidia-a10", "remove": true}, {"id": "nvidia-a30", "remove": false, "notes": "kept"}]
EOF
overlay new-entry-missing <<'EOF'
[{"id": "my-gpu"}, {"id": "my-gpu-2", "name": "Mine", "memory_gb": 24, "memory_bandwidth_gbps": 900},
 {"id": "my-gpu-3", "name": "Ok", "memory_gb": 24, "memory_bandwidth_gbps": 900, "fp32_tflops": 0}]
EOF
overlay new-entry-valid <<'EOF'
[{"id": "my-gpu", "name": "My GPU", "memory_gb": 48, "memory_bandwidth_gbps": 960, "bf16_tflops": 181,
  "category": "workstation", "year": 2024.0, "price_hour_usd": {"typical": 0.9}, "sources": ["me"]}]
EOF
overlay no-compute-left <<'EOF'
[{"id": "nvidia-t4", "fp32_tflops": 0, "fp16_tflops": null, "int8_tops": 0, "fp64_tflops": 3}]
EOF
overlay unknown-keys <<EOF
[{"id": "nvidia-t4", "memroy_gb": 16, "$longkey": 1, "price_hour_usd": {"$longkey": 2}, "sparse": {"fp64": 1}}]
EOF
overlay non-ascii <<EOF
[{"id": "nvidia-t4", "name": 5, "memory_gb": "$long", "category": "$long", "notes": {"$long": "$long"}},
 {"id": "$long"}]
EOF
overlay control-chars <<'EOF'
[{"id": "nvidia-t4", "memory_gb": "a\u0001b\nc\u0085", "category": "tab\there"}]
EOF
# More than 100 problems: 130 entries with one bad key each -> the cap line.
{
    printf '['
    for i in $(seq 1 130); do
        [ "$i" -gt 1 ] && printf ','
        printf '{"id": "nvidia-t4", "memory_gb": -%d}' "$i"
    done
    printf ']'
} | overlay error-cap
{
    printf '['
    for i in $(seq 1 60); do
        [ "$i" -gt 1 ] && printf ','
        printf '{"id": "g%d", "memory_gb": "x", "year": 1}' "$i"
    done
    printf ']'
} | overlay error-cap-mixed
overlay not-array <<'EOF'
{"id": "nvidia-t4"}
EOF
overlay bad-json <<'EOF'
[{"id": "nvidia-t4",}]
EOF
overlay too-deep <<'EOF'
[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]
EOF
overlay overflow-number <<'EOF'
[{"id": "nvidia-t4", "memory_gb": 1e999}]
EOF

# --- scenarios ------------------------------------------------------------
scenario enums <<'EOF'
{"format": "gpuplanner-scenario", "version": 1, "model": {"preset": "gpt2-124m"},
 "workload": {"mode": "train", "runtime": 1,
   "training": {"method": "LoRA", "precision": "bf32", "optimizer": ["adamw"], "activation_checkpointing": true,
                "lora_targets": ["q_proj", "x_proj", 3]}},
 "hardware": {"gpus": "all"}, "pricing": {"model": "free"}}
EOF
scenario inference-enums <<'EOF'
{"format": "gpuplanner-scenario", "version": 1, "model": {"preset": "gpt2-124m"},
 "workload": {"mode": "inference", "runtime": "optimised",
   "inference": {"precision": "fp4", "kv_precision": null, "batch": 0, "prompt_tokens": 1.5, "output_tokens": "64"}},
 "hardware": {"gpus": [], "count": 3, "tp": 2}}
EOF
scenario values <<'EOF'
{"format": "gpuplanner-scenario", "version": 1, "model": {"params": 1e3, "family": "rnn", "moe": {"experts": 0, "active": 9}},
 "workload": {"mode": "training", "training": {"micro_batch": -1, "seq_len": 1e20, "grad_accum": true,
   "dataset_tokens": 0, "dataset_samples": 5, "epochs": "1", "image_size": 8, "lora_rank": 0,
   "targets": {"deadline_hours": -1, "budget_usd": "x", "extra": 1}}},
 "hardware": {"gpus": "all", "count": 1, "zero": 4, "network_gbps": 1e300, "pp": 0},
 "pricing": {"utilization": 1.5, "pue": 0.5, "electricity_usd_per_kwh": null, "amortization_years": 0}}
EOF
scenario types-unknown <<EOF
{"format": "gpuplanner-scenario", "version": 1, "$longkey": 1, "notes": 5, "name": ["x"],
 "model": {"preset": 7, "extra": true}, "workload": {"mode": "inference", "inference": {"precision": "$long"}},
 "hardware": {"gpus": [""], "counts": 1}, "pricing": []}
EOF
scenario header <<'EOF'
{"format": "gpuplan", "version": 2, "model": {"preset": "gpt2-124m"}, "workload": {"mode": "inference"}}
EOF
scenario duplicates <<'EOF'
{"format": "gpuplanner-scenario", "version": 1, "version": 1, "model": {"preset": "gpt2-124m", "preset": "x"},
 "workload": {"mode": "inference"}, "hardware": {"gpus": "all"}}
EOF
scenario unknown-preset <<'EOF'
{"format": "gpuplanner-scenario", "version": 1, "model": {"preset": "gpt-5"}, "workload": {"mode": "inference"}}
EOF
scenario two-models <<'EOF'
{"format": "gpuplanner-scenario", "version": 1, "model": {"preset": "gpt2-124m", "params": 1e9}, "workload": {"mode": "inference"}}
EOF
scenario not-object <<'EOF'
[1, 2]
EOF
scenario bad-json <<'EOF'
{"format": "gpuplanner-scenario", "version": 1,
EOF

# --- hf_config --------------------------------------------------------------
withModel '{"hf_config": {"model_type": "llama", "num_hidden_layers": 0, "hidden_size": "4096", "num_attention_heads": 32.5, "num_key_value_heads": -8, "intermediate_size": 1e12, "vocab_size": true, "tie_word_embeddings": "no", "max_position_embeddings": null}}' | scenario hf-llama
withModel '{"hf_config": {"model_type": "gpt2", "n_layer": 12, "n_embd": 768, "n_head": 13, "vocab_size": 50257, "n_positions": 0, "n_inner": "x", "tie_word_embeddings": 1}}' | scenario hf-gpt2
withModel '{"hf_config": {"model_type": "bert", "num_hidden_layers": 12, "hidden_size": 768, "num_attention_heads": 12, "intermediate_size": 3072, "vocab_size": 30522, "type_vocab_size": 0}}' | scenario hf-bert
withModel '{"hf_config": {"model_type": "mixtral", "num_hidden_layers": 32, "hidden_size": 4096, "num_attention_heads": 32, "intermediate_size": 14336, "vocab_size": 32000, "num_local_experts": "8", "num_experts_per_tok": 9}}' | scenario hf-mixtral
withModel '{"hf_config": {"model_type": "deepseek_v3", "num_hidden_layers": 61, "hidden_size": 7168, "num_attention_heads": 128, "intermediate_size": 18432, "vocab_size": 129280, "kv_lora_rank": 0, "qk_rope_head_dim": 64, "q_lora_rank": "x", "moe_layer_freq": 2}}' | scenario hf-deepseek
withModel '{"hf_config": {"model_type": "mamba"}}' | scenario hf-unknown-type
withModel '{"hf_config": {"hidden": 1}}' | scenario hf-no-type
withModel '{"hf_config": "config.json"}' | scenario hf-not-object

# --- explicit model ---------------------------------------------------------
withModel '{"layers": 0, "hidden": 4097.5, "heads": "32", "kv_heads": 0, "ffn_hidden": -1, "vocab": 1e30, "family": "rnn", "ffn": "relu", "positional": 3, "tied_embeddings": "yes"}' | scenario explicit-values
withModel '{"layers": 32, "hidden": 4096, "heads": 32, "ffn_hidden": 11008, "vocab": 32000, "positional": "learned", "moe": {"experts": 0, "active": "2", "shared": -1}}' | scenario explicit-moe
withModel '{"layers": 32, "hidden": 4096, "heads": 30, "ffn_hidden": 11008, "vocab": 32000, "moe": [1]}' | scenario explicit-arch
withModel '{"layers": 2, "hidden": 64, "heads": 4, "ffn_hidden": 256, "vocab": 1000, "family": "encoder", "max_positions": 512, "nonsense": 1}' | scenario explicit-ok-unknown-key

echo "snapshot of $(ls "$out" | wc -l) files in $out"
