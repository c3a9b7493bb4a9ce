#!/usr/bin/python3
"""Astral's IVF rows beside FAISS's at each nprobe: recall@10 against the
same exact f32 truth and the p50 ratio. usage: compare.py astral.json faiss.jsonl"""
import json
import sys


def main():
    astral = json.load(open(sys.argv[1]))
    faiss_rows = [json.loads(line) for line in open(sys.argv[2]) if line.strip()]
    ivf = {r["nprobe"]: r for r in astral["rows"] if r["index"] == "ivf" and r["threads"] == 0}
    flat = [r for r in astral["rows"] if r["index"] == "flat" and r["threads"] == 0]
    kinds = sorted({r["index"] for r in faiss_rows})
    head = ["nprobe", "Astral E5M2 recall", "Astral p50 µs"]
    for k in kinds:
        head += [f"{k} recall", f"{k} p50 µs", f"Astral / {k}"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for nprobe in sorted(ivf):
        a = ivf[nprobe]
        cells = [str(nprobe), f"{a['recall_at_k']:.4f}", f"{a['p50_us']:.1f}"]
        for k in kinds:
            f = next((r for r in faiss_rows if r["index"] == k and r["nprobe"] == nprobe), None)
            if f is None:
                cells += ["-", "-", "-"]
                continue
            cells += [f"{f['recall_at_k']:.4f}", f"{f['p50_us']:.1f}", f"{a['p50_us'] / f['p50_us']:.3f}"]
        print("| " + " | ".join(cells) + " |")
    print()
    if flat:
        print(f"Astral flat scan p50 (threads 0): {flat[0]['p50_us']:.1f} µs; Astral IVF build {next(iter(ivf.values()))['build_s']:.1f} s")
    for k in kinds:
        r = next(r for r in faiss_rows if r["index"] == k)
        print(f"{k} ({r['engine']}, generic Debian build): build {r['build_s']:.1f} s, largest partition {r['largest_partition_share']:.2%}")
    a = next(iter(ivf.values()))
    print(f"Astral IVF largest partition {a['largest_partition_share']:.2%}")


if __name__ == "__main__":
    main()
