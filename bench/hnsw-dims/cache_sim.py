#!/usr/bin/env python3
"""Reads callgrind's cache simulation for cache-sim.sh.

usage: cache_sim.py ENGINE SMALL.out LARGE.out QUERIES [HOPS]

SMALL.out and LARGE.out are two callgrind runs (--cache-sim=yes) that
searched the same index with a few and with QUERIES more queries; the
difference is what those queries cost, warm, without the load before
them. ENGINE says which functions are the search:
  astral   Astral's graph and kernel packages, with what they call
           outside them (runtime.memmove); Go's runtime otherwise, the
           loader and the command's printing are left out. A hop is a
           call of hnsw.(*Graph).expand or a list read by
           hnsw.(*Graph).greedy
  hnswlib  the whole program (it loads, searches and prints one line); the
           hops are HOPS, the difference of its own counter
Prints one JSON line: per query and per hop, data reads, first-level
(D1) read misses and last-level (LL) read misses, the simulated sizes.
"""
import json
import re
import sys

SEARCH = re.compile(r"astral-engine/astral/(hnsw|kernel)\.")
LOADER = re.compile(r"validator|EachAttr|fillIDs|install|splitIDs|FromParts|OpenParts|fromParts|attrColumn")
EXPAND = "hnsw.(*Graph).expand"
GREEDY = "hnsw.(*Graph).greedy"
READ_LINKS = "hnsw.(*Graph).readLinks"


def parse(path):
    """Self costs per function, calls and their inclusive costs per
    (caller, callee), events, caches."""
    names = {}
    events, caches = [], {}
    self_cost, calls, call_cost = {}, {}, {}
    fn = None
    pending_call = None  # (callee, count): the next cost line is the call's
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                continue
            if line.startswith("events:"):
                events = line.split()[1:]
                continue
            if line.startswith("desc: "):
                m = re.match(r"desc: (I1|D1|LL) cache:\s+(.*)", line)
                if m:
                    caches[m.group(1)] = m.group(2).strip()
                continue
            head = line[0]
            if head.isdigit() or head in "+-*":
                parts = line.split()
                costs = [int(x) for x in parts[1:]]
                if pending_call is not None:
                    # The inclusive cost of a call: not the caller's own.
                    acc = call_cost.setdefault((fn, pending_call[0]), [0] * len(events))
                    for i, c in enumerate(costs):
                        acc[i] += c
                    pending_call = None
                    continue
                if fn is not None:
                    acc = self_cost.setdefault(fn, [0] * len(events))
                    for i, c in enumerate(costs):
                        acc[i] += c
                continue
            key, _, value = line.partition("=")
            if key in ("fn", "cfn", "cfi", "cfl", "fl", "fi", "fe", "ob", "cob"):
                m = re.match(r"\((\d+)\)(?: (.*))?", value)
                name = value
                if m:
                    if m.group(2) is not None:
                        names[(key[-2:], m.group(1))] = m.group(2)
                    name = names.get((key[-2:], m.group(1)), value)
                if key == "fn":
                    fn = name
                elif key == "cfn":
                    callee = name
                continue
            if key == "calls":
                count = int(value.split()[0])
                calls[(fn, callee)] = calls.get((fn, callee), 0) + count
                pending_call = (callee, count)
    return events, caches, self_cost, calls, call_cost


def summarize(engine, path):
    events, caches, self_cost, calls, call_cost = parse(path)
    idx = {e: i for i, e in enumerate(events)}
    total = [0] * len(events)

    def searching(fn):
        return engine != "astral" or bool(fn and SEARCH.search(fn) and not LOADER.search(fn))

    for fn, cost in self_cost.items():
        if searching(fn):
            for i, c in enumerate(cost):
                total[i] += c
    if engine == "astral":
        for (caller, callee), cost in call_cost.items():
            if searching(caller) and not SEARCH.search(callee):
                for i, c in enumerate(cost):
                    total[i] += c
    hops = 0
    if engine == "astral":
        for (caller, callee), n in calls.items():
            if callee.endswith(EXPAND) or (callee.endswith(READ_LINKS) and caller and caller.endswith(GREEDY)):
                hops += n
    pick = {k: total[idx[k]] for k in ("Ir", "Dr", "D1mr", "DLmr") if k in idx}
    return pick, hops, caches


def main():
    if len(sys.argv) not in (5, 6):
        sys.exit(__doc__)
    engine, small, large, queries = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    a, hops_a, caches = summarize(engine, small)
    b, hops_b, _ = summarize(engine, large)
    hops = hops_b - hops_a if engine == "astral" else int(sys.argv[5])
    diff = {k: b[k] - a[k] for k in b}
    out = {"engine": engine, "queries": queries, "hops_per_query": round(hops / queries, 1), "caches": caches}
    for k, v in diff.items():
        out[k + "_per_query"] = round(v / queries, 1)
        out[k + "_per_hop"] = round(v / hops, 2) if hops else None
    print(json.dumps(out))


if __name__ == "__main__":
    main()
