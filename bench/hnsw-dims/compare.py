#!/usr/bin/env python3
"""Astral's HNSW against hnswlib at equal recall, per fixture and dimension.

usage: compare.py OUT        (the folder run.sh wrote: OUT/DATA-DIM-N/{astral.json,hnswlib.jsonl})
       compare.py --self-test

Each engine gives a curve of (ef, recall@10 against exact f32, p50). At each
target recall the p50 is read off the curve between the two measured ef
that bracket it, linearly in log(p50) against recall; a curve whose smallest
ef already reaches the target gives its p50 there as an upper bound
("≤"), one that never reaches it gives "not reached". hnswlib's p50 is its
in-C++ timer (anchors.py's hnswlib-inproc rows).

With several runs of a case (run.sh's REPEAT: astral-R.json and
hnswlib-R.jsonl, the engines alternated), each curve point is the median of
the runs' recalls and p50s, each build time the median build, and under the
table every run's ratio (run R of Astral against run R of hnswlib).
"""
import glob
import json
import math
import os
import re
import statistics
import sys

TARGETS = (0.90, 0.95, 0.98)


def at_recall(curve, target):
    """curve: [(ef, recall, p50)] in ef order. Returns (p50, bound) where
    bound is "" (interpolated), "≤" (the first point already reaches the
    target) or None with p50 None when the curve never reaches it."""
    for i, (_, r, p) in enumerate(curve):
        if r >= target:
            if i == 0:
                return p, "≤"
            _, r0, p0 = curve[i - 1]
            f = (target - r0) / (r - r0)
            return math.exp(math.log(p0) + f * (math.log(p) - math.log(p0))), ""
    return None, None


def hnswlib_bytes(dim, m=16):
    """hnswlib's memory per vector, from its HierarchicalNSW layout: the
    level-0 block (dim floats, a count word and 2M links, an 8-byte label),
    the per-element upper-list pointer, level and link-list mutex, and the
    expected upper lists ((M+1) words at each of an expected 1/(M-1) upper
    levels). The label hash map is not counted."""
    level0 = 4 * dim + 4 * (2 * m + 1) + 8
    per_element = 8 + 4 + 40  # linkLists_ pointer, element_levels_, std::mutex (glibc x86-64)
    upper = 4 * (m + 1) / (m - 1)
    return level0 + per_element + upper


def run_files(folder, stem, ext):
    """The case's files of one engine in run order: STEM.EXT alone, or
    STEM-1.EXT, STEM-2.EXT, ..."""
    one = os.path.join(folder, stem + ext)
    if os.path.exists(one):
        return [one]
    numbered = glob.glob(os.path.join(folder, f"{stem}-*{ext}"))
    return sorted(numbered, key=lambda p: int(re.search(r"-(\d+)" + re.escape(ext) + "$", p).group(1)))


def load_case(folder):
    reps = []
    for path in run_files(folder, "astral", ".json"):
        with open(path) as f:
            reps.append(json.load(f))
    runs = []
    for path in run_files(folder, "hnswlib", ".jsonl"):
        with open(path) as f:
            lines = [json.loads(line) for line in filter(str.strip, f)]
        runs.append(lines[-1])  # the latest run when a file holds several
    return reps, runs


def median_curves(curves):
    """One curve from several runs' {key: dict(points, build_s, ...)}: each
    point's recall and p50 the median over the runs, build_s the median."""
    out = {}
    for key in curves[0]:
        runs = [c[key] for c in curves if key in c]
        by_ef = {}
        for c in runs:
            for ef, r, p in c["points"]:
                by_ef.setdefault(ef, []).append((r, p))
        pts = sorted((ef, statistics.median(r for r, _ in v), statistics.median(p for _, p in v))
                     for ef, v in by_ef.items())
        builds = [c["build_s"] for c in runs if c["build_s"] is not None]
        out[key] = dict(runs[0], points=pts, build_s=statistics.median(builds) if builds else None)
    return out


def astral_curves(rep):
    """{(storage, rerank): dict(curve, build_s, bytes, exact)}"""
    exact = {r["storage"]: r["recall_at_k"] for r in rep["rows"] if r["index"] == "flat"}
    out = {}
    for r in rep["rows"]:
        if r["index"] != "hnsw" or r["batch"] != 1 or r.get("filter") or r.get("postfilter"):
            continue
        key = (r["storage"], r.get("rerank", 0), r.get("rerank_storage", ""))
        c = out.setdefault(key, dict(points=[], build_s=r["build_s"], bytes=r["bytes_per_vector"],
                                     exact=exact.get(r["storage"])))
        c["points"].append((r["ef"], r["recall_at_k"], r["p50_us"]))
    for c in out.values():
        c["points"].sort()
    return out


def hnswlib_curve(run):
    pts, build = [], None
    for r in run["rows"]:
        if r["section"] == "hnswlib-build":
            build = r["build_s"]
        elif r["section"] == "hnswlib-inproc":
            ef = int(r["params"].split("ef=")[1])
            pts.append((ef, r["recall10"], r["p50"]))
    pts.sort()
    return dict(points=pts, build_s=build, system=run["rows"][0].get("system", "hnswlib"))


def fmt_p(p, bound):
    if p is None:
        return "not reached"
    return f"{bound}{p:.1f}"


def fmt_ratio(a, ab, h, hb):
    """Astral's p50 over hnswlib's. A bound on one side bounds the ratio:
    Astral's "≤" from above, hnswlib's "≤" from below; both: unknown."""
    if a is None or h is None:
        return "–"
    if ab and hb:
        return "?"
    return f"{ab}{'≥' if hb else ''}{a / h:.2f}"


def report(out):
    cases = sorted({os.path.dirname(p) for p in glob.glob(os.path.join(out, "*", "astral*.json"))})
    if not cases:
        sys.exit(f"compare.py: no */astral.json under {out}")
    first = True
    for folder in cases:
        reps, runs = load_case(folder)
        if not runs:
            print(f"{folder}: no hnswlib.jsonl, skipped\n")
            continue
        rep, run = reps[0], runs[-1]
        d = rep["dataset"]
        run_curves = [astral_curves(r) for r in reps]
        run_hnswlib = [hnswlib_curve(r) for r in runs]
        curves = median_curves(run_curves)
        h = median_curves([{"hnswlib": c} for c in run_hnswlib])["hnswlib"]
        if first:
            print(f"Astral {rep['version']} ({rep['kernel']}), {h['system']}; cpu: {rep['cpu']}")
            print("p50 in µs at equal recall@10 against exact f32, interpolated in log(p50) between measured ef; "
                  "≤: the smallest ef measured already reaches it")
            print(f"hnswlib bytes/vector = 4·dim + 4·(2M+1) + 8 (level 0) + 52 (pointer, level, mutex) "
                  f"+ 4·(M+1)/(M−1) (upper lists), label map not counted\n")
            first = False
        meta = run.get("meta", {})
        others = max((r.get("other_cores", 0) for x in runs for r in x["rows"]), default=0)
        print(f"### {os.path.basename(folder)}: {d['name']} {d['n']} × {d['dim']}, {d['nq']} queries, k={d['k']}"
              + (f"; medians of {len(reps)} Astral and {len(runs)} hnswlib runs, alternated" if len(reps) > 1 or len(runs) > 1 else ""))
        hb = hnswlib_bytes(d["dim"])
        print(f"hnswlib: build {h['build_s']:.1f} s, {hb:.0f} bytes/vector; curve "
              + ", ".join(f"ef {e}: {r:.4f} @ {p:.1f}" for e, r, p in h["points"])
              + f" [hnswlib run: others busy up to {others:.2f} cores{'; ' + meta.get('date', '') if meta.get('date') else ''}]")
        print()
        head = ["Astral storage", "exact-scan recall", "bytes/vector (× hnswlib)", "build s (× hnswlib)"]
        for t in TARGETS:
            head += [f"p50 @{t:.2f} Astral / hnswlib", "ratio"]
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        best = {t: None for t in TARGETS}
        for (storage, rerank, rstore), c in sorted(curves.items()):
            name = storage + (f" + {rstore or 'f32'}×{rerank}" if rerank else "")
            cells = [name, f"{c['exact']:.4f}" if c["exact"] is not None else "–",
                     f"{c['bytes']:.0f} ({c['bytes'] / hb:.2f})",
                     f"{c['build_s']:.1f} ({c['build_s'] / h['build_s']:.2f})" if h["build_s"] else f"{c['build_s']:.1f}"]
            for t in TARGETS:
                a, ab = at_recall(c["points"], t)
                p, pb = at_recall(h["points"], t)
                cells += [f"{fmt_p(a, ab)} / {fmt_p(p, pb)}", fmt_ratio(a, ab, p, pb)]
                if a is not None and not (best[t] and best[t][0] <= a):
                    best[t] = (a, name, fmt_ratio(a, ab, p, pb))
            print("| " + " | ".join(cells) + " |")
        print()
        print("Fastest Astral storage at each recall: " + "; ".join(
            f"{t:.2f}: {b[1]} ({b[2]} × hnswlib)" if b else f"{t:.2f}: not reached" for t, b in best.items()))
        print()
        if len(run_curves) > 1 and len(run_curves) == len(run_hnswlib):
            print("Each run's ratio (Astral run R / hnswlib run R), at " + ", ".join(f"{t:.2f}" for t in TARGETS) + ":")
            for key in sorted(curves):
                storage, rerank, rstore = key
                name = storage + (f" + {rstore or 'f32'}×{rerank}" if rerank else "")
                per = []
                for t in TARGETS:
                    rs = []
                    for ac, hc in zip(run_curves, run_hnswlib):
                        a, ab = at_recall(ac[key]["points"], t) if key in ac else (None, None)
                        p, pb = at_recall(hc["points"], t)
                        rs.append(fmt_ratio(a, ab, p, pb))
                    per.append(" ".join(rs))
                print(f"- {name}: " + " | ".join(per))
            print()
        print("Astral curves: " + "; ".join(
            f"{s}{'+' + str(rr) if rr else ''}: " + ", ".join(f"ef {e}: {r:.4f} @ {p:.1f}" for e, r, p in c["points"])
            for (s, rr, _), c in sorted(curves.items())))
        print()


def self_test():
    curve = [(16, 0.80, 10.0), (32, 0.90, 20.0), (64, 0.96, 40.0)]
    p, b = at_recall(curve, 0.93)
    assert b == "" and abs(p - 20.0 * 2 ** 0.5) < 1e-9, p  # halfway in log between 20 and 40
    p, b = at_recall(curve, 0.90)
    assert b == "" and abs(p - 20.0) < 1e-9, p
    assert at_recall(curve, 0.70) == (10.0, "≤")
    assert at_recall(curve, 0.98) == (None, None)
    # a dip in recall: the first point that reaches the target counts
    assert at_recall([(16, 0.91, 5.0), (32, 0.89, 9.0), (64, 0.95, 12.0)], 0.90) == (5.0, "≤")
    assert fmt_ratio(10.0, "≤", 20.0, "") == "≤0.50"
    assert fmt_ratio(10.0, "", 20.0, "≤") == "≥0.50"
    assert fmt_ratio(10.0, "≤", 20.0, "≤") == "?"
    assert round(hnswlib_bytes(384)) == 1733  # 1536 + 132 + 8 + 52 + 4.5
    m = median_curves([{"a": dict(points=[(16, 0.8, 10.0), (32, 0.9, 30.0)], build_s=5.0, bytes=1)},
                       {"a": dict(points=[(16, 0.8, 14.0), (32, 0.9, 20.0)], build_s=7.0, bytes=1)},
                       {"a": dict(points=[(16, 0.7, 12.0), (32, 0.9, 25.0)], build_s=6.0, bytes=1)}])
    assert m["a"]["points"] == [(16, 0.8, 12.0), (32, 0.9, 25.0)] and m["a"]["build_s"] == 6.0, m
    print("compare.py self-test: ok")


if __name__ == "__main__":
    if len(sys.argv) == 2 and sys.argv[1] == "--self-test":
        self_test()
    elif len(sys.argv) == 2:
        report(sys.argv[1])
    else:
        sys.exit(__doc__)
