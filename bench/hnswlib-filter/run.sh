#!/usr/bin/env bash
# Astral's filtered search against hnswlib's on the same data, filters and
# exact filtered truth (issue 17): `astral bench --filter ... --export DIR`
# measures Astral and writes the data, then the harness (hnswlib built -O3
# -march=native) measures hnswlib on it, and compare.py prints the ratios.
#
# usage: bench/hnswlib-filter/run.sh [OUT]     (default OUT: build/hnswlib-filter)
# environment (defaults in brackets): DATA [spectral], N [100000], NQ [64],
#   FILTERS [none,tags:0.001,tags:0.01,tags:0.1,tags:0.5,allow:10,allow:1000,allow:10000,owner:100],
#   EF [128], M [16], EFC [200], STORAGE [e5m2], RERANK [0: none; e.g. 4 rescores 4k candidates against an f32 copy], POSTFILTER [10], RUNS [5],
#   RUN_SECONDS [0.3], BUILD_THREADS [number of CPUs], REPEAT [1: engines measured
#   one after the other REPEAT times, alternating; compare.py takes each row's median]
# Needs g++ and Debian's libhnswlib-dev (apt-get install -y g++ libhnswlib-dev).
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
OUT="${1:-$ROOT/build/hnswlib-filter}"
DATA="${DATA:-spectral}" N="${N:-100000}" NQ="${NQ:-64}"
FILTERS="${FILTERS:-none,tags:0.001,tags:0.01,tags:0.1,tags:0.5,allow:10,allow:1000,allow:10000,owner:100}"
EF="${EF:-128}" M="${M:-16}" EFC="${EFC:-200}" STORAGE="${STORAGE:-e5m2}" RERANK="${RERANK:-0}" POSTFILTER="${POSTFILTER:-10}"
RUNS="${RUNS:-5}" RUN_SECONDS="${RUN_SECONDS:-0.3}" BUILD_THREADS="${BUILD_THREADS:-$(nproc)}" REPEAT="${REPEAT:-1}"
export PATH="/usr/local/go/bin:$PATH"
mkdir -p "$OUT"

HNSW_INC=/usr/include/hnswlib
[ -f "$HNSW_INC/hnswlib.h" ] || { echo "run.sh: $HNSW_INC/hnswlib.h missing: apt-get install -y libhnswlib-dev" >&2; exit 1; }
# hnswlib 0.7+ has BaseFilterFunctor; Debian's 0.6.2 does not (the harness
# then marks non-matching records deleted, which runs the same search).
DEFS=()
if printf '#include <hnswlib.h>\nint main(){hnswlib::BaseFilterFunctor f; (void)f; return 0;}\n' |
	g++ -std=c++17 -fsyntax-only -isystem "$HNSW_INC" -x c++ - 2>/dev/null; then
	DEFS=(-DHAVE_FILTER_FUNCTOR)
fi
g++ -O3 -march=native -DNDEBUG -std=c++17 -pthread "${DEFS[@]}" -isystem "$HNSW_INC" \
	"$HERE/harness.cpp" -o "$OUT/harness"
go build -C "$ROOT" -o "$OUT/astral" ./cmd/astral

# The load of a shared machine drifts between the two processes: with
# REPEAT > 1 each engine runs REPEAT times, alternating, and compare.py
# reports each row's median p50 and every repeat's ratio.
astral_json=() hnswlib_json=()
for r in $(seq 1 "$REPEAT"); do
	sfx=$([ "$REPEAT" = 1 ] || echo "-$r")
	export_args=()
	[ "$r" != 1 ] || export_args=(--export "$OUT/export")
	"$OUT/astral" bench --data "$DATA" --n "$N" --nq "$NQ" --index hnsw --threads 0 --batch 1 \
		--storage "$STORAGE" --rerank "$RERANK" --m "$M" --ef-construction "$EFC" --ef "$EF" \
		--filter "$FILTERS" --postfilter "$POSTFILTER" --runs "$RUNS" --run-seconds "$RUN_SECONDS" \
		"${export_args[@]}" --json "$OUT/astral$sfx.json" | tee "$OUT/astral$sfx.txt"
	"$OUT/harness" "$OUT/export" --m "$M" --ef-construction "$EFC" --ef "$EF" \
		--build-threads "$BUILD_THREADS" --runs "$RUNS" --run-seconds "$RUN_SECONDS" \
		--json "$OUT/hnswlib$sfx.jsonl" | tee "$OUT/hnswlib$sfx.txt"
	astral_json+=("$OUT/astral$sfx.json") hnswlib_json+=("$OUT/hnswlib$sfx.jsonl")
done
python3 "$HERE/compare.py" "$(IFS=,; echo "${astral_json[*]}")" "$(IFS=,; echo "${hnswlib_json[*]}")" | tee "$OUT/compare.md"
