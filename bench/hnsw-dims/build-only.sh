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
#   STORAGE [int8], HNSWLIB_INCLUDE [/usr/include/hnswlib]
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
OUT="${1:-$ROOT/build/hnsw-build}"
DATA="${DATA:-spectral}" DIM="${DIM:-100}" N="${N:-100000}" REPEAT="${REPEAT:-3}" STORAGE="${STORAGE:-int8}"
HNSWLIB_INCLUDE="${HNSWLIB_INCLUDE:-/usr/include/hnswlib}"
export PATH="/usr/local/go/bin:$PATH"

[ -f "$HNSWLIB_INCLUDE/hnswlib.h" ] || { echo "build-only.sh: no hnswlib.h in $HNSWLIB_INCLUDE (apt-get install libhnswlib-dev, or set HNSWLIB_INCLUDE)" >&2; exit 1; }
mkdir -p "$OUT"
go build -C "$ROOT" -o "$OUT/astral" ./cmd/astral
g++ -O3 -march=native -DNDEBUG -std=c++17 -fopenmp -I"$HNSWLIB_INCLUDE" "$HERE/hnswlib_build.cpp" -o "$OUT/hnswlib_build"
"$OUT/astral" fixture --data "$DATA" --n "$N" --nq 1000 --dim "$DIM" \
	--out "$OUT/base.fvecs" --queries-out "$OUT/query.fvecs"
ratios=()
for r in $(seq 1 "$REPEAT"); do
	"$OUT/astral" bench --data "$OUT/base.fvecs" --queries "$OUT/query.fvecs" --index hnsw --threads 1 --batch 1 \
		--storage "$STORAGE" --rerank 0 --m 16 --ef-construction 200 --ef 64 --runs 1 --run-seconds 0.1 \
		--json "$OUT/astral-$r.json" >/dev/null
	# the hnsw row's build_s (the report's first row is the flat truth's, 0)
	a=$(grep -o '"build_s": *[0-9.e+-]*' "$OUT/astral-$r.json" | awk '{ v = $2 } END { printf "%.3f", v }')
	h=$("$OUT/hnswlib_build" "$OUT/base.fvecs" 2 1 | awk '{ print $(NF-1) }')
	ratio=$(awk -v a="$a" -v h="$h" 'BEGIN { printf "%.2f", a / h }')
	echo "run $r: Astral $STORAGE build $a s, hnswlib $h s: $ratio"
	ratios+=("$ratio")
done
printf '%s\n' "${ratios[@]}" | sort -n | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "median ratio over %d runs: %.2f\n", NR, m }'
rm -f "$OUT/base.fvecs" "$OUT/query.fvecs"
