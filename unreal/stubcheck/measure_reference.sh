#!/usr/bin/env bash
# CTest unreal_measure_reference: the Automation tests' measurement
# (examples/cpp/astral_bench.hpp) on the reference workload, its recall checked
# against `astral bench` on the .fvecs files `astral fixture` writes.
# Usage: measure_reference.sh UNREAL_MEASURE GO SOURCE_DIR WORK_DIR
set -euo pipefail
measure=$1 go=$2 src=$3 work=$4
mkdir -p "$work"
base=$work/random-base.fvecs queries=$work/random-queries.fvecs
(cd "$src" && "$go" build -o "$work/astral" ./cmd/astral)
"$work/astral" fixture --data random --out "$base" --queries-out "$queries" >/dev/null
"$work/astral" bench --data "$base" --queries "$queries" --index flat --threads 1 --batch 1 \
  --runs 1 --run-seconds 0.01 --json "$work/bench.json" >/dev/null
want=$(sed -nE 's/.*"recall_at_k": *([0-9.eE+-]+),?$/\1/p' "$work/bench.json" | head -n 1)
[ -n "$want" ] || { echo "no recall_at_k in $work/bench.json"; exit 1; }
echo "astral bench recall_at_k: $want"
"$measure" --reference --threads 1 --base "$base" --queries "$queries" --expect-recall "$want"
