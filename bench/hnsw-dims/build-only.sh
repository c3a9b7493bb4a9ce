#!/usr/bin/env bash
# Build time only, Astral's int8 graph against hnswlib (-march=native), on
# machines without the anchors harness's Python packages: g++ with OpenMP
# and hnswlib's headers (Debian's libhnswlib-dev, or HNSWLIB_INCLUDE) are
# enough. For one fixture it exports the vectors, then alternates REPEAT
# times: `astral bench` builds (threads 1: one worker and the caller) and
# hnswlib_build.cpp builds on 2 threads, each as run.sh measures it; it
# prints each pair's ratio and the median.
#
# usage: bench/hnsw-dims/build-only.sh [OUT]   (default OUT: build/hnsw-build)
# environment: DATA [spectral], DIM [100], N [100000], REPEAT [3],
#   STORAGE [int8], HNSWLIB_INCLUDE [/usr/include/hnswlib],
#   ASTRAL_BIN [built from this checkout; set it to a prebuilt astral
#   binary on a machine without Go],
#   BASELINE_BIN [none; another astral binary, e.g. an older commit's,
#   that builds in each run too, after hnswlib, with its ratio printed]
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
OUT="${1:-$ROOT/build/hnsw-build}"
DATA="${DATA:-spectral}" DIM="${DIM:-100}" N="${N:-100000}" REPEAT="${REPEAT:-3}" STORAGE="${STORAGE:-int8}"
HNSWLIB_INCLUDE="${HNSWLIB_INCLUDE:-/usr/include/hnswlib}"
export PATH="/usr/local/go/bin:$PATH"

[ -f "$HNSWLIB_INCLUDE/hnswlib.h" ] || { echo "build-only.sh: no hnswlib.h in $HNSWLIB_INCLUDE (apt-get install libhnswlib-dev, or set HNSWLIB_INCLUDE)" >&2; exit 1; }
mkdir -p "$OUT"
ASTRAL_BIN="${ASTRAL_BIN:-}" BASELINE_BIN="${BASELINE_BIN:-}"
if [ -z "$ASTRAL_BIN" ]; then
	go build -C "$ROOT" -o "$OUT/astral" ./cmd/astral
	ASTRAL_BIN="$OUT/astral"
fi
g++ -O3 -march=native -DNDEBUG -std=c++17 -fopenmp -I"$HNSWLIB_INCLUDE" "$HERE/hnswlib_build.cpp" -o "$OUT/hnswlib_build"
"$ASTRAL_BIN" fixture --data "$DATA" --n "$N" --nq 1000 --dim "$DIM" \
	--out "$OUT/base.fvecs" --queries-out "$OUT/query.fvecs"
# astral_build BIN JSON prints BIN's build time of the hnsw row (the
# report's first row is the flat truth's, 0).
astral_build() {
	"$1" bench --data "$OUT/base.fvecs" --queries "$OUT/query.fvecs" --index hnsw --threads 1 --batch 1 \
		--storage "$STORAGE" --rerank 0 --m 16 --ef-construction 200 --ef 64 --runs 1 --run-seconds 0.1 \
		--json "$2" >/dev/null
	grep -o '"build_s": *[0-9.e+-]*' "$2" | awk '{ v = $2 } END { printf "%.3f", v }'
}
median() {
	sort -n | awk -v what="$1" '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "median %s over %d runs: %.2f\n", what, NR, m }'
}
ratios=() base_ratios=()
for r in $(seq 1 "$REPEAT"); do
	a=$(astral_build "$ASTRAL_BIN" "$OUT/astral-$r.json")
	h=$("$OUT/hnswlib_build" "$OUT/base.fvecs" 2 1 | awk '{ print $(NF-1) }')
	ratio=$(awk -v a="$a" -v h="$h" 'BEGIN { printf "%.2f", a / h }')
	line="run $r: Astral $STORAGE build $a s, hnswlib $h s: $ratio"
	if [ -n "$BASELINE_BIN" ]; then
		b=$(astral_build "$BASELINE_BIN" "$OUT/baseline-$r.json")
		base_ratio=$(awk -v a="$b" -v h="$h" 'BEGIN { printf "%.2f", a / h }')
		line="$line; baseline $b s: $base_ratio"
		base_ratios+=("$base_ratio")
	fi
	echo "$line"
	ratios+=("$ratio")
done
printf '%s\n' "${ratios[@]}" | median ratio
if [ -n "$BASELINE_BIN" ]; then
	printf '%s\n' "${base_ratios[@]}" | median "baseline ratio"
fi
rm -f "$OUT/base.fvecs" "$OUT/query.fvecs"
