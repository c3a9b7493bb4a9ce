#!/usr/bin/env bash
# Astral's HNSW against hnswlib (-march=native) at several dimensions, by
# recall@10 against exact f32 (issue 22). For each fixture and dimension:
# `astral fixture` exports the vectors and queries as .fvecs, `astral bench`
# measures Astral's graph on them, ../shared/anchors/anchors.py measures
# hnswlib on the very same files, and compare.py prints p50 ratios at equal
# recall, build-time ratios and bytes per vector.
#
# usage: bench/hnsw-dims/run.sh [OUT]     (default OUT: build/hnsw-dims)
# environment (defaults in brackets):
#   DATA [spectral,clustered], DIMS [100,384,768,1536],
#   N [100000; 50000 at dim 1536 unless N is set], NQ [1000],
#   EF [16,32,64,128,256,512], STORAGE [e5m2,int8], RERANK [0,4],
#   M [16], EFC [200], RUNS [3], RUN_SECONDS [0.3],
#   ANCHORS [/work/shared/anchors], NATIVE [/opt/anchors-native],
#   SKIP_HNSWLIB [0; 1 reuses an existing OUT/CASE/hnswlib.jsonl],
#   REPEAT [1: each engine measures each case REPEAT times, alternating;
#   compare.py takes the medians and lists every run's ratio]
# Small development run: N=20000 DIMS=100 DATA=spectral EF=32,64,128 bench/hnsw-dims/run.sh /tmp/hd
# Both engines build on 2 threads (Astral: --threads 1 is one worker plus
# the caller) and search one query per call on one thread.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
OUT="${1:-$ROOT/build/hnsw-dims}"
DATA="${DATA:-spectral,clustered}" DIMS="${DIMS:-100,384,768,1536}" NQ="${NQ:-1000}"
EF="${EF:-16,32,64,128,256,512}" STORAGE="${STORAGE:-e5m2,int8}" RERANK="${RERANK:-0,4}"
M="${M:-16}" EFC="${EFC:-200}" RUNS="${RUNS:-3}" RUN_SECONDS="${RUN_SECONDS:-0.3}"
ANCHORS="${ANCHORS:-/work/shared/anchors}" NATIVE="${NATIVE:-/opt/anchors-native}" SKIP_HNSWLIB="${SKIP_HNSWLIB:-0}" REPEAT="${REPEAT:-1}"
export PATH="/usr/local/go/bin:$PATH"

[ -f "$ANCHORS/anchors.py" ] || { echo "run.sh: $ANCHORS/anchors.py missing (set ANCHORS)" >&2; exit 1; }
if [ "$SKIP_HNSWLIB" != 1 ] && ! ls "$NATIVE"/hnsw_native*.so >/dev/null 2>&1; then
	echo "run.sh: no hnsw_native module in $NATIVE: run $ANCHORS/build_hnswlib_native.sh $NATIVE (its README lists the apt packages)" >&2
	exit 1
fi
if [ "$M" != 16 ] || [ "$EFC" != 200 ]; then
	# anchors.py builds hnswlib with M 16 and efConstruction 200 only.
	echo "run.sh: M=$M EFC=$EFC: hnswlib's side is fixed at M 16, efConstruction 200" >&2
	exit 1
fi
mkdir -p "$OUT"
go build -C "$ROOT" -o "$OUT/astral" ./cmd/astral

IFS=, read -ra datas <<<"$DATA"
IFS=, read -ra dims <<<"$DIMS"
for data in "${datas[@]}"; do
	for dim in "${dims[@]}"; do
		n="${N:-100000}"
		if [ -z "${N:-}" ] && [ "$dim" -ge 1536 ]; then n=50000; fi
		case_dir="$OUT/$data-$dim-$n"
		mkdir -p "$case_dir"
		echo "== $data, $n × $dim, $NQ queries"
		"$OUT/astral" fixture --data "$data" --n "$n" --nq "$NQ" --dim "$dim" \
			--out "$case_dir/$data.fvecs" --queries-out "$case_dir/query.fvecs"
		for r in $(seq 1 "$REPEAT"); do
			sfx=$([ "$REPEAT" = 1 ] || echo "-$r")
			"$OUT/astral" bench --data "$case_dir/$data.fvecs" --queries "$case_dir/query.fvecs" \
				--index hnsw --threads 1 --batch 1 --storage "$STORAGE" --rerank "$RERANK" \
				--m "$M" --ef-construction "$EFC" --ef "$EF" --runs "$RUNS" --run-seconds "$RUN_SECONDS" \
				--json "$case_dir/astral$sfx.json" | tee "$case_dir/astral$sfx.txt"
			if [ "$SKIP_HNSWLIB" != 1 ]; then
				rm -f "$case_dir/hnswlib$sfx.jsonl"
				/usr/bin/python3 "$ANCHORS/anchors.py" --dataset fvecs --base "$case_dir/$data.fvecs" \
					--queries "$case_dir/query.fvecs" --threads 2 --variant native --native-dir "$NATIVE" \
					--sections hnswlib --ef "$EF" --runs "$RUNS" --run-seconds "$RUN_SECONDS" \
					--json "$case_dir/hnswlib$sfx.jsonl" | tee "$case_dir/hnswlib$sfx.txt"
			fi
		done
		rm -f "$case_dir/$data.fvecs" "$case_dir/query.fvecs"
	done
done
python3 "$HERE/compare.py" "$OUT" | tee "$OUT/compare.md"
