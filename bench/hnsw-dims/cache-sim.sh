#!/usr/bin/env bash
# Cache lines a search brings in, per query and per hop, Astral's int8 graph
# against hnswlib's, from callgrind's cache simulation (for machines whose
# hardware counters cannot be read, as in a VM). For each fixture and
# dimension it exports the vectors, builds both graphs natively and saves
# them, then, for each simulated last-level size, runs each engine's
# search under callgrind twice, with Q1 and with Q2 queries: the difference
# is what Q2 - Q1 warm queries cost. cache_sim.py prints one JSON line per
# engine, and the table at the end sets them side by side.
#
# The simulation models a first-level data cache (D1) and one last level
# (LL), with no prefetching, hardware or software: a miss is a line the
# search needed that was not resident, the work that prefetches and
# out-of-order execution must hide. Under valgrind neither engine runs
# AVX-512 code (Astral picks its AVX2 kernels, hnswlib is built -mavx2);
# the lines read do not depend on that.
#
# usage: bench/hnsw-dims/cache-sim.sh [OUT]   (default OUT: build/cache-sim)
# environment: DATA [spectral,clustered], DIMS [100,384,768], N [100000],
#   EF [128], Q1 [100], Q2 [300], D1 [49152,12,64: machine E's],
#   LL [1048576,16,64 33554432,16,64: E's L2, then its L3],
#   HNSWLIB_INCLUDE [/usr/include/hnswlib]
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
OUT="${1:-$ROOT/build/cache-sim}"
DATA="${DATA:-spectral,clustered}" DIMS="${DIMS:-100,384,768}" N="${N:-100000}" EF="${EF:-128}"
Q1="${Q1:-100}" Q2="${Q2:-300}" D1="${D1:-49152,12,64}" LL="${LL:-1048576,16,64 33554432,16,64}"
HNSWLIB_INCLUDE="${HNSWLIB_INCLUDE:-/usr/include/hnswlib}"
export PATH="/usr/local/go/bin:$PATH"

command -v valgrind >/dev/null || { echo "cache-sim.sh: needs valgrind (apt-get install valgrind)" >&2; exit 1; }
[ -f "$HNSWLIB_INCLUDE/hnswlib.h" ] || { echo "cache-sim.sh: no hnswlib.h in $HNSWLIB_INCLUDE (apt-get install libhnswlib-dev, or set HNSWLIB_INCLUDE)" >&2; exit 1; }
[ "$Q2" -gt "$Q1" ] || { echo "cache-sim.sh: Q2 must exceed Q1" >&2; exit 1; }
mkdir -p "$OUT"
go build -C "$ROOT" -o "$OUT/astral" ./cmd/astral
g++ -O3 -mavx2 -mfma -DNDEBUG -std=c++17 -fopenmp -I"$HNSWLIB_INCLUDE" "$HERE/hnswlib_search.cpp" -o "$OUT/hnswlib_search"

results="$OUT/results.jsonl"
: >"$results"
for data in ${DATA//,/ }; do
	for dim in ${DIMS//,/ }; do
		dir="$OUT/$data-$dim"
		mkdir -p "$dir"
		"$OUT/astral" fixture --data "$data" --n "$N" --nq "$Q2" --dim "$dim" \
			--out "$dir/base.fvecs" --queries-out "$dir/query.fvecs" >/dev/null
		"$OUT/astral" build --data "$dir/base.fvecs" --index hnsw --storage int8 --m 16 --ef-construction 200 \
			--threads 1 --out "$dir/astral.idx" >/dev/null
		"$OUT/hnswlib_search" build "$dir/base.fvecs" "$dir/hnswlib.bin" 2 >/dev/null
		rm -f "$dir/base.fvecs"
		for ll in $LL; do
			tag="${ll%%,*}"
			for q in "$Q1" "$Q2"; do
				GOMAXPROCS=1 GODEBUG=asyncpreemptoff=1 valgrind -q --tool=callgrind --cache-sim=yes --I1=32768,8,64 --D1="$D1" --LL="$ll" \
					--callgrind-out-file="$dir/astral-$tag-$q.cg" "$OUT/astral" query --index-file "$dir/astral.idx" \
					--queries "$dir/query.fvecs" --first "$q" --ef "$EF" --threads 0 >/dev/null 2>>"$dir/valgrind.log"
				valgrind -q --tool=callgrind --cache-sim=yes --I1=32768,8,64 --D1="$D1" --LL="$ll" \
					--callgrind-out-file="$dir/hnswlib-$tag-$q.cg" "$OUT/hnswlib_search" search "$dir/hnswlib.bin" \
					"$dir/query.fvecs" "$EF" "$q" >"$dir/hnswlib-$tag-$q.txt" 2>>"$dir/valgrind.log"
			done
			hops() { sed -E 's/.* hops ([0-9]+),.*/\1/' "$1"; }
			h=$(($(hops "$dir/hnswlib-$tag-$Q2.txt") - $(hops "$dir/hnswlib-$tag-$Q1.txt")))
			for engine in astral hnswlib; do
				python3 "$HERE/cache_sim.py" "$engine" "$dir/$engine-$tag-$Q1.cg" "$dir/$engine-$tag-$Q2.cg" \
					$((Q2 - Q1)) "$h" | sed "s/^{/{\"data\": \"$data\", \"dim\": $dim, \"ll_bytes\": $tag, /" | tee -a "$results"
			done
			rm -f "$dir"/*.cg
		done
	done
done
python3 - "$results" <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
print()
print("| case | LL | hops/query A / H | D1 read misses/hop A / H | LL read misses/hop A / H | LL read misses/query A / H | instructions/query A / H |")
print("|---|---:|---:|---:|---:|---:|---:|")
by = {}
for r in rows:
    by.setdefault((r["data"], r["dim"], r["ll_bytes"]), {})[r["engine"]] = r
for (data, dim, ll), e in by.items():
    a, h = e.get("astral"), e.get("hnswlib")
    if not a or not h:
        continue
    print(f"| {data} {dim} | {ll // 1024} KiB | {a['hops_per_query']} / {h['hops_per_query']} | "
          f"{a['D1mr_per_hop']} / {h['D1mr_per_hop']} | {a['DLmr_per_hop']} / {h['DLmr_per_hop']} | "
          f"{a['DLmr_per_query']:.0f} / {h['DLmr_per_query']:.0f} | {a['Ir_per_query']:.0f} / {h['Ir_per_query']:.0f} |")
EOF
