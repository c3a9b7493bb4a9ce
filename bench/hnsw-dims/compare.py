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
"""
import glob
import json
import math
import os
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


def load_case(folder):
    with open(os.path.join(folder, "astral.json")) as f:
        rep = json.load(f)
    hl = []
    with open(os.path.join(folder, "hnswlib.jsonl")) as f:
        for line in filter(str.strip, f):
            hl.append(json.loads(line))
    return rep, hl[-1]  # the latest run when the file holds several


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
    cases = sorted(glob.glob(os.path.join(out, "*", "astral.json")))
    if not cases:
        sys.exit(f"compare.py: no */astral.json under {out}")
    first = True
    for path in cases:
        folder = os.path.dirname(path)
        if not os.path.exists(os.path.join(folder, "hnswlib.jsonl")):
            print(f"{folder}: no hnswlib.jsonl, skipped\n")
            continue
        rep, run = load_case(folder)
        d = rep["dataset"]
        h = hnswlib_curve(run)
        if first:
            print(f"Astral {rep['version']} ({rep['kernel']}), {h['system']}; cpu: {rep['cpu']}")
            print("p50 in µs at equal recall@10 against exact f32, interpolated in log(p50) between measured ef; "
                  "≤: the smallest ef measured already reaches it")
            print(f"hnswlib bytes/vector = 4·dim + 4·(2M+1) + 8 (level 0) + 52 (pointer, level, mutex) "
                  f"+ 4·(M+1)/(M−1) (upper lists), label map not counted\n")
            first = False
        meta = run.get("meta", {})
        others = max((r.get("other_cores", 0) for r in run["rows"]), default=0)
        print(f"### {os.path.basename(folder)}: {d['name']} {d['n']} × {d['dim']}, {d['nq']} queries, k={d['k']}")
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
        for (storage, rerank, rstore), c in sorted(astral_curves(rep).items()):
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
        print("Astral curves: " + "; ".join(
            f"{s}{'+' + str(rr) if rr else ''}: " + ", ".join(f"ef {e}: {r:.4f} @ {p:.1f}" for e, r, p in c["points"])
            for (s, rr, _), c in sorted(astral_curves(rep).items())))
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
    print("compare.py self-test: ok")


if __name__ == "__main__":
    if len(sys.argv) == 2 and sys.argv[1] == "--self-test":
        self_test()
    elif len(sys.argv) == 2:
        report(sys.argv[1])
    else:
        sys.exit(__doc__)
