#!/usr/bin/env bash
# Astral's IVF against FAISS's IndexIVFFlat and IndexIVFScalarQuantizer
# (8-bit) on the same vectors, the same exact f32 truth and the same nlist
# and nprobe values (issue 21). One query per call, one thread, on both.
#
# usage: bench/faiss-ivf/run.sh [OUT]     (default OUT: build/faiss-ivf)
# environment (defaults in brackets): DATA [spectral], N [1000000], NQ [1000],
#   NLIST [1024], NPROBE [8,16,32,48,64], RUNS [3], RUN_SECONDS [0.5]
# Needs Debian's python3-faiss and python3-numpy (a generic SSE2 build of
# FAISS 1.7.3: say so when you quote it).
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
OUT="${1:-$ROOT/build/faiss-ivf}"
DATA="${DATA:-spectral}" N="${N:-1000000}" NQ="${NQ:-1000}"
NLIST="${NLIST:-1024}" NPROBE="${NPROBE:-8,16,32,48,64}" RUNS="${RUNS:-3}" RUN_SECONDS="${RUN_SECONDS:-0.5}"
export PATH="/usr/local/go/bin:$PATH"
/usr/bin/python3 -c 'import faiss, numpy' 2>/dev/null ||
	{ echo "run.sh: FAISS missing: apt-get install -y python3-faiss python3-numpy libopenblas0-pthread" >&2; exit 1; }
case "$(readlink -f /usr/lib/x86_64-linux-gnu/libblas.so.3 2>/dev/null)" in
*/blas/libblas.so.3) echo "run.sh: the reference BLAS trains FAISS very slowly at 1M: apt-get install -y libopenblas0-pthread" >&2 ;;
esac
mkdir -p "$OUT"
go build -C "$ROOT" -o "$OUT/astral" ./cmd/astral
"$OUT/astral" fixture --data "$DATA" --n "$N" --nq "$NQ" --out "$OUT/base.fvecs" --queries-out "$OUT/queries.fvecs"
/usr/bin/python3 "$HERE/ivf.py" "$OUT/base.fvecs" "$OUT/queries.fvecs" "$OUT" --nlist "$NLIST" --nprobe "$NPROBE" \
	--runs "$RUNS" --run-seconds "$RUN_SECONDS" | tee "$OUT/faiss.txt"
"$OUT/astral" bench --data "$OUT/base.fvecs" --queries "$OUT/queries.fvecs" --truth "$OUT/truth.ivecs" \
	--index ivf --nlist "$NLIST" --nprobe "$NPROBE" --threads 0 --runs "$RUNS" --run-seconds "$RUN_SECONDS" \
	--json "$OUT/astral.json" | tee "$OUT/astral.txt"
/usr/bin/python3 "$HERE/compare.py" "$OUT/astral.json" "$OUT/faiss.jsonl" | tee "$OUT/compare.md"
