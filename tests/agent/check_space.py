#!/usr/bin/python3
"""Checks a profile the agent captured, with protobuf's own parser (Debian's
python3-protobuf), independently of xtop's reader.

  check_space.py SAVED [--fixture FILE]... [--annotations] [--threads a,b]
                 [--odd-names]

Every plane of each fixture (what the fake plugins served) must be in SAVED
with each of its lines and their event counts; with --annotations, the
C API's events must be there as XLA's host tracer would write them: lines
named after the workload's threads in /host:CPU, "compute" with the stats
batch (int64 32), lr (double 0.5) and tag (string fwd), "train" step
markers with step_num and _r=1, "checkpoint" instants with a step stat.
Exactly one Task Environment plane, with dates. With --odd-names, the
workload's odd_names() thread, its names made valid UTF-8 (protobuf's
parser rejects the file otherwise). Prints one line.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


HOST_PLANES = ("/host:CPU", "/host:CUPTI", "/host:ROCTRACER", "/host:python-tracer",
               "/host:TPU-runtime", "/host:NVTX-CUPTI")


def load_pb2():
    out = tempfile.mkdtemp(prefix="xtop-pb2-")
    subprocess.run(["protoc", "--python_out=" + out, "-I", os.path.join(REPO, "proto"),
                    os.path.join(REPO, "proto", "xplane.proto")], check=True)
    sys.path.insert(0, out)
    import xplane_pb2  # noqa: E402
    shutil.rmtree(out, ignore_errors=True)  # imported: its file is needed no more
    return xplane_pb2


def space(pb, path):
    s = pb.XSpace()
    with open(path, "rb") as f:
        data = f.read()
    try:
        s.ParseFromString(data)
    except Exception as e:  # noqa: BLE001 (a DecodeError, e.g. a string that is no UTF-8)
        fail("protobuf cannot parse %s: %s" % (os.path.basename(path), e))
    return s


def stat_value(plane, st):
    kind = st.WhichOneof("value")
    v = getattr(st, kind) if kind else None
    return plane.stat_metadata[st.metadata_id].name, kind, v


def fail(msg):
    print("FAIL " + msg)
    sys.exit(1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("saved")
    ap.add_argument("--fixture", action="append", default=[])
    ap.add_argument("--annotations", action="store_true")
    ap.add_argument("--threads", default="xt-main,xt-worker")
    ap.add_argument("--odd-names", action="store_true")
    a = ap.parse_args()
    pb = load_pb2()
    got = space(pb, a.saved)
    planes = {}
    for p in got.planes:
        planes.setdefault(p.name, []).append(p)
    fixture_events = 0
    # A fixture's host planes (as a PJRT plugin makes them: TraceMe, CUPTI
    # API calls, NVTX apart) are saved as one /host:CPU plane, as upstream's
    # ProfilerSession saves them: a line id's events are those of every
    # host plane's line of that id.
    host_want = {}
    for fx in a.fixture:
        for p in space(pb, fx).planes:
            if p.name == "Task Environment":
                continue
            if p.name in HOST_PLANES:
                for line in p.lines:
                    fixture_events += len(line.events)
                    if p.name == "/host:NVTX-CUPTI":
                        # its ids may move (from 2^32 on): counted as a whole
                        host_want["nvtx"] = host_want.get("nvtx", 0) + len(line.events)
                        continue
                    host_want[line.id] = host_want.get(line.id, 0) + len(line.events)
                continue
            if p.name not in planes:
                fail("plane %s of %s is missing" % (p.name, os.path.basename(fx)))
            for line in p.lines:
                fixture_events += len(line.events)
                match = [l for q in planes[p.name] for l in q.lines
                         if l.name == line.name and l.id == line.id and
                         len(l.events) == len(line.events)]
                if not match:
                    fail("line %r of plane %s (%d events) is missing or changed" %
                         (line.name, p.name, len(line.events)))
    if host_want:
        for name in HOST_PLANES[1:]:
            if name in planes:
                fail("plane %s was not merged into /host:CPU" % name)
        if len(planes.get("/host:CPU", [])) != 1:
            fail("%d /host:CPU planes" % len(planes.get("/host:CPU", [])))
        got_n = {}
        for line in planes["/host:CPU"][0].lines:
            got_n[line.id] = got_n.get(line.id, 0) + len(line.events)
        nvtx = host_want.pop("nvtx", 0)
        for lid, n in host_want.items():
            if got_n.get(lid) != n:
                fail("host line %d: %s events, not %d" % (lid, got_n.get(lid), n))
        # NVTX lines keep their ids or move: their events are on lines of
        # ids the other host planes do not have (beside the C API's).
        extra = sum(n for lid, n in got_n.items() if lid not in host_want)
        if extra < nvtx:
            fail("NVTX lines: %d events on lines of their own, not %d" % (extra, nvtx))
    env = planes.get("Task Environment", [])
    if len(env) != 1:
        fail("%d Task Environment planes" % len(env))
    times = {env[0].stat_metadata[s.metadata_id].name: s.uint64_value for s in env[0].stats}
    if not (times.get("profile_start_time", 0) > 1e18 and
            times.get("profile_stop_time", 0) >= times["profile_start_time"]):
        fail("Task Environment times %r" % times)
    annotations = 0
    if a.annotations:
        host = planes.get("/host:CPU")
        if not host:
            fail("no /host:CPU plane")
        seen = {}
        for p in host:
            for line in p.lines:
                if line.name not in a.threads.split(","):
                    continue
                for ev in line.events:
                    md = p.event_metadata[ev.metadata_id]
                    stats = {}
                    for st in ev.stats:
                        n, kind, v = stat_value(p, st)
                        stats[n] = (kind, v)
                    seen.setdefault(md.name, stats)
                    annotations += 1
        want = {
            "compute": {"batch": ("int64_value", 32), "lr": ("double_value", 0.5),
                        "tag": ("str_value", "fwd")},
            "train": {"_r": ("int64_value", 1)},
        }
        if not a.threads.startswith("xt-main"):
            want = {}
        for name, stats in want.items():
            if name not in seen:
                fail("no %r event among %s" % (name, sorted(seen)))
            for k, v in stats.items():
                if seen[name].get(k) != v:
                    fail("%s: stat %s is %r, not %r" % (name, k, seen[name].get(k), v))
        if want and "step_num" not in seen["train"]:
            fail("train has no step_num")
        if want and "checkpoint" not in seen:
            fail("no checkpoint instant")
        if annotations == 0:
            fail("no annotation events")
    if a.odd_names:
        # The kernel kept "prefetch-queue" and the first byte of "é": that
        # half is dropped; the 1023 'a's cut before "é" likewise; bytes of
        # no character read '?'.
        odd = [(p, l) for p in planes.get("/host:CPU", []) for l in p.lines
               if l.name == "prefetch-queue"]
        if not odd:
            fail("no line named 'prefetch-queue': %r" %
                 sorted(l.name for p in planes.get("/host:CPU", []) for l in p.lines))
        p, line = odd[0]
        names = {}
        for ev in line.events:
            md = p.event_metadata[ev.metadata_id]
            names[md.name] = {n: v for n, kind, v in (stat_value(p, st) for st in ev.stats)}
        if "a" * 1023 not in names or "bad??name" not in names or "odd" not in names:
            fail("odd names: %r" % sorted(n[:20] for n in names))
        if names["odd"] != {"note": "v?", "ok": "caf\u00e9"}:
            fail("odd stats: %r" % names["odd"])
    print("OK %d fixture events, %d annotation events, %d planes" %
          (fixture_events, annotations, len(got.planes)))


if __name__ == "__main__":
    main()
