#!/usr/bin/python3
"""FAISS IVF on the vectors `astral fixture` wrote: exact truth, then
IndexIVFFlat and IndexIVFScalarQuantizer (8-bit) at the same nlist and
nprobe values as Astral's bench, one query per call on one thread.

usage: ivf.py BASE.fvecs QUERIES.fvecs OUTDIR --nlist L --nprobe P,P,... [--k 10]
writes OUTDIR/truth.ivecs (exact cosine top-100 over the f32 vectors, the
truth `astral bench --truth` reads) and OUTDIR/faiss.jsonl (a row per
index and nprobe)."""
import argparse
import json
import os
import time

import faiss
import numpy as np


def read_fvecs(path):
    raw = np.fromfile(path, dtype=np.int32)
    dim = int(raw[0])
    return raw.reshape(-1, dim + 1)[:, 1:].view(np.float32).copy()


def write_ivecs(path, ids):
    n, k = ids.shape
    out = np.empty((n, k + 1), dtype=np.int32)
    out[:, 0] = k
    out[:, 1:] = ids
    out.tofile(path)


def normalize(x):
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    norms[norms == 0] = 1
    return np.ascontiguousarray(x / norms, dtype=np.float32)


def recall(found, truth, k):
    hits = sum(len(set(f[:k]) & set(t[:k])) for f, t in zip(found, truth))
    return hits / (len(truth) * k)


def latency(index, xq, runs, run_seconds):
    """p50/p99 of one query per call; the run with the median p50."""
    results = []
    for _ in range(runs):
        times, end = [], time.perf_counter() + run_seconds
        i = 0
        while time.perf_counter() < end or i < len(xq):
            q = xq[i % len(xq) : i % len(xq) + 1]
            t0 = time.perf_counter_ns()
            index.search(q, 10)
            times.append(time.perf_counter_ns() - t0)
            i += 1
        times.sort()
        results.append((times[len(times) // 2] / 1e3, times[min(len(times) - 1, int(len(times) * 0.99))] / 1e3))
    results.sort()
    return results[len(results) // 2]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("base")
    p.add_argument("queries")
    p.add_argument("out")
    p.add_argument("--nlist", type=int, required=True)
    p.add_argument("--nprobe", required=True)
    p.add_argument("--k", type=int, default=10)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--run-seconds", type=float, default=0.5)
    p.add_argument("--build-threads", type=int, default=os.cpu_count())
    a = p.parse_args()
    xb, xq = normalize(read_fvecs(a.base)), normalize(read_fvecs(a.queries))
    n, dim = xb.shape
    faiss.omp_set_num_threads(a.build_threads)
    exact = faiss.IndexFlatIP(dim)
    exact.add(xb)
    _, truth = exact.search(xq, 100)
    write_ivecs(os.path.join(a.out, "truth.ivecs"), truth.astype(np.int32))
    del exact
    rows = []
    for name in ["IndexIVFFlat", "IndexIVFScalarQuantizer-8bit"]:
        faiss.omp_set_num_threads(a.build_threads)
        quantizer = faiss.IndexFlatIP(dim)
        if name == "IndexIVFFlat":
            index = faiss.IndexIVFFlat(quantizer, dim, a.nlist, faiss.METRIC_INNER_PRODUCT)
        else:
            index = faiss.IndexIVFScalarQuantizer(quantizer, dim, a.nlist, faiss.ScalarQuantizer.QT_8bit, faiss.METRIC_INNER_PRODUCT)
        t0 = time.perf_counter()
        index.train(xb)
        index.add(xb)
        build = time.perf_counter() - t0
        sizes = [index.invlists.list_size(i) for i in range(a.nlist)]
        faiss.omp_set_num_threads(1)
        for nprobe in [int(v) for v in a.nprobe.split(",")]:
            index.nprobe = nprobe
            _, found = index.search(xq, a.k)
            p50, p99 = latency(index, xq, a.runs, a.run_seconds)
            row = {"engine": "faiss " + faiss.__version__, "index": name, "nlist": a.nlist, "nprobe": nprobe,
                   "recall_at_k": recall(found, truth, a.k), "p50_us": p50, "p99_us": p99, "build_s": build,
                   "largest_partition_share": max(sizes) / n, "n": n, "dim": dim, "nq": len(xq)}
            print(json.dumps(row), flush=True)
            rows.append(row)
        del index, quantizer
    with open(os.path.join(a.out, "faiss.jsonl"), "w") as f:
        for row in rows:
            f.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()
