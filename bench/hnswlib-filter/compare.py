#!/usr/bin/env python3
"""Astral's filtered HNSW rows beside hnswlib's, as ratios from one session.

usage: compare.py ASTRAL.json[,ASTRAL2.json...] HNSWLIB.jsonl[,HNSWLIB2.jsonl...]
ASTRAL.json is `astral bench --json`; HNSWLIB.jsonl the harness's --json.
Both recalls are against the same exact filtered f32 truth; Astral's recall
against the exact scan of its own stored vectors is given beside it. Given
several runs of each (run.sh's REPEAT, the engines alternated), a row's
times are the medians over the runs, and a last column lists every run's
ratio, Astral's run i over hnswlib's run i.
"""
import json
import statistics
import sys


def load_astral(path):
    with open(path) as f:
        rep = json.load(f)
    rows = [r for r in rep["rows"] if r["index"] == "hnsw" and r["batch"] == 1]
    engine = {(r["filter"], r["ef"], r.get("rerank", 0)): r for r in rows if r.get("postfilter", 0) == 0}
    post = {}
    for r in rows:
        if r.get("postfilter", 0) > 0:
            post.setdefault((r["filter"], r["ef"], r.get("rerank", 0)), []).append(r)
    return rep, engine, post


def load_hnswlib(path):
    with open(path) as f:
        return {(r["filter"], r["ef"]): r for r in map(json.loads, filter(str.strip, f))}


def main(astral_paths, hnswlib_paths):
    if len(astral_paths) != len(hnswlib_paths):
        sys.exit("compare.py: give as many hnswlib runs as Astral runs")
    runs = [load_astral(p) for p in astral_paths]
    others = [load_hnswlib(p) for p in hnswlib_paths]
    rep, engine, post = runs[0]
    other = others[0]
    repeat = len(runs) > 1
    med = statistics.median
    d = rep["dataset"]
    api = next(iter(other.values()))["filter_api"] if other else "?"
    print(f"{d['name']} {d['n']} × {d['dim']}, {d['nq']} queries, k={d['k']}; Astral {rep['version']} ({rep['kernel']}), "
          f"hnswlib filter by {api}; cpu: {rep['cpu']}" + (f"; median of {len(runs)} alternated runs" if repeat else "") + "\n")
    print("| filter | selectivity | ef | Astral storage | plan | Astral recall@k | Astral vs exact quantized | hnswlib recall@k "
          "| Astral p50 µs | hnswlib p50 µs | Astral / hnswlib p50 | Astral p50 / unfiltered | Astral p99 µs | hnswlib p99 µs "
          "| host post-filter (×x: recall@k, p50 µs) |" + (" run by run: Astral / hnswlib p50 |" if repeat else ""))
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|" + ("---|" if repeat else ""))
    for key in sorted(engine, key=lambda k: (k[2], k[1], engine[k]["selectivity"] if k[0] else -1)):
        a = engine[key]
        h = other.get(key[:2])
        aruns = [r[1][key] for r in runs]
        hruns = [o[key[:2]] for o in others] if h else []
        a50, a99 = med(r["p50_us"] for r in aruns), med(r["p99_us"] for r in aruns)
        h50 = med(r["p50_us"] for r in hruns) if h else None
        h99 = med(r["p99_us"] for r in hruns) if h else None
        storage = a["storage"] + (f" + {a.get('rerank_storage', 'f32')}×{a['rerank']}" if a.get("rerank", 0) else "")
        cells = [a["filter"] or "none", f"{a['selectivity']:.4f}", str(a["ef"]), storage, a["plan"],
                 f"{a['recall_at_k']:.4f}", f"{a['recall_vs_exact_quantized']:.4f}",
                 f"{h['recall_at_k']:.4f}" if h else "-",
                 f"{a50:.1f}", f"{h50:.1f}" if h else "-",
                 f"{a50 / h50:.3f}" if h else "-",
                 f"{med(r['p50_vs_unfiltered'] for r in aruns):.3f}",
                 f"{a99:.1f}", f"{h99:.1f}" if h else "-",
                 "; ".join(f"×{p['postfilter']}: {p['recall_at_k']:.4f}, {p['p50_us']:.1f}" for p in post.get(key, [])) or "-"]
        if repeat:
            cells.append(", ".join(f"{ar['p50_us'] / hr['p50_us']:.3f}" for ar, hr in zip(aruns, hruns)) if h else "-")
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1].split(","), sys.argv[2].split(","))
