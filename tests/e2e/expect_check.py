#!/usr/bin/python3
"""Checks `xtop report --json` against the answers xtop-gen computed by
construction (--expect). Usage: expect_check.py XTOP.json EXPECT.json
Prints a one-line summary and exits 0 when every expected value matches."""
import json
import sys


def main():
    x = json.load(open(sys.argv[1]))
    e = json.load(open(sys.argv[2]))
    diffs = []

    def eq(what, got, want):
        if got != want:
            diffs.append("%s: xtop %r, expected %r" % (what, got, want))

    eq("events", x["events"], e["events"])
    planes = {p["name"]: p for h in x["hosts"] for p in h["planes"]}
    for p in e.get("planes", []):
        got = planes.get(p["name"])
        if got is None:
            diffs.append("plane %s missing" % p["name"])
            continue
        eq("plane %s lines" % p["name"], got["lines"], p["lines"])
        eq("plane %s events" % p["name"], got["events"], p["events"])
    ops = {(o["program"], o["name"]): o for o in x["ops"]}
    for o in e.get("ops", []):
        got = ops.get((o["program"], o["name"]))
        if got is None:
            diffs.append("op %s/%s missing" % (o["program"], o["name"]))
            continue
        for k in ("occurrences", "self_ps", "total_ps", "category"):
            if k in o:
                eq("op %s %s" % (o["name"], k), got[k], o[k])
    if len(e.get("ops", [])) != len(x["ops"]):
        diffs.append("ops: xtop has %d, expected %d" % (len(x["ops"]), len(e["ops"])))
    devs = {d["name"]: d for d in x["devices"]}
    for d in e.get("devices", []):
        got = devs.get(d["name"])
        if got is None:
            diffs.append("device %s missing" % d["name"])
            continue
        for k in ("busy_ps", "span_ps"):
            eq("device %s %s" % (d["name"], k), got[k], d[k])
    steps = {s["id"]: s for s in x["steps"]}
    eq("steps", len(x["steps"]), len(e.get("steps", [])))
    for s in e.get("steps", []):
        got = steps.get(s["id"])
        if got is None:
            diffs.append("step %s missing" % s["id"])
            continue
        for k in s:
            eq("step %s %s" % (s["id"], k), got.get(k), s[k])
    mem = {m["allocator"]: m for m in x["memory"]}
    for m in e.get("memory", []):
        got = mem.get(m["allocator"])
        if got is None:
            diffs.append("allocator %s missing" % m["allocator"])
            continue
        for k in m:
            if k != "allocator":
                eq("allocator %s %s" % (m["allocator"], k), got.get(k), m[k])
    kern = {}
    for k in x["kernels"]:
        a = kern.setdefault(k["name"], [0, 0])
        a[0] += k["occurrences"]
        a[1] += k["total_ps"]
    for k in e.get("kernels", []):
        got = kern.get(k["name"])
        if got is None:
            diffs.append("kernel %s missing" % k["name"])
            continue
        eq("kernel %s occurrences" % k["name"], got[0], k["occurrences"])
        eq("kernel %s total_ps" % k["name"], got[1], k["total_ps"])
    if diffs:
        for d in diffs[:20]:
            print(d)
        print("%d differences" % len(diffs))
        sys.exit(1)
    print("%d ops, %d devices, %d steps, %d allocators, %d kernels" % (
        len(e.get("ops", [])), len(e.get("devices", [])), len(e.get("steps", [])),
        len(e.get("memory", [])), len(e.get("kernels", []))))


main()
