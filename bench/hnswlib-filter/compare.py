#!/usr/bin/env python3
"""Astral's filtered HNSW rows beside hnswlib's, as ratios from one session.

usage: compare.py ASTRAL.json HNSWLIB.jsonl
ASTRAL.json is `astral bench --json`; HNSWLIB.jsonl the harness's --json.
Both recalls are against the same exact filtered f32 truth; Astral's recall
against the exact scan of its own stored vectors is given beside it.
"""
import json
import sys


def main(astral_path, hnswlib_path):
    with open(astral_path) as f:
        rep = json.load(f)
    rows = [r for r in rep["rows"] if r["index"] == "hnsw" and r["batch"] == 1]
    engine = {(r["filter"], r["ef"], r.get("rerank", 0)): r for r in rows if r.get("postfilter", 0) == 0}
    post = {}
    for r in rows:
        if r.get("postfilter", 0) > 0:
            post.setdefault((r["filter"], r["ef"], r.get("rerank", 0)), []).append(r)
    with open(hnswlib_path) as f:
        other = {(r["filter"], r["ef"]): r for r in map(json.loads, filter(str.strip, f))}
    d = rep["dataset"]
    api = next(iter(other.values()))["filter_api"] if other else "?"
    print(f"{d['name']} {d['n']} × {d['dim']}, {d['nq']} queries, k={d['k']}; Astral {rep['version']} ({rep['kernel']}), "
          f"hnswlib filter by {api}; cpu: {rep['cpu']}\n")
    print("| filter | selectivity | ef | Astral storage | plan | Astral recall@k | Astral vs exact quantized | hnswlib recall@k "
          "| Astral p50 µs | hnswlib p50 µs | Astral / hnswlib p50 | Astral p50 / unfiltered | Astral p99 µs | hnswlib p99 µs "
          "| host post-filter (×x: recall@k, p50 µs) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for key in sorted(engine, key=lambda k: (k[2], k[1], engine[k]["selectivity"] if k[0] else -1)):
        a = engine[key]
        h = other.get(key[:2])
        storage = a["storage"] + (f" + {a.get('rerank_storage', 'f32')}×{a['rerank']}" if a.get("rerank", 0) else "")
        cells = [a["filter"] or "none", f"{a['selectivity']:.4f}", str(a["ef"]), storage, a["plan"],
                 f"{a['recall_at_k']:.4f}", f"{a['recall_vs_exact_quantized']:.4f}",
                 f"{h['recall_at_k']:.4f}" if h else "-",
                 f"{a['p50_us']:.1f}", f"{h['p50_us']:.1f}" if h else "-",
                 f"{a['p50_us'] / h['p50_us']:.3f}" if h else "-",
                 f"{a['p50_vs_unfiltered']:.3f}",
                 f"{a['p99_us']:.1f}", f"{h['p99_us']:.1f}" if h else "-",
                 "; ".join(f"×{p['postfilter']}: {p['recall_at_k']:.4f}, {p['p50_us']:.1f}" for p in post.get(key, [])) or "-"]
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
