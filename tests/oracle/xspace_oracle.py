#!/usr/bin/python3
"""Independent reference implementation ("oracle") of xtop's analyses.

Usage: xspace_oracle.py PATH [PATH...]

Each PATH is an XSpace file (`*.xplane.pb`, optionally gzip-compressed, detected
by the magic bytes 1f 8b) or a directory holding several `*.xplane.pb` files
(one host each; other files such as `.SSTABLE` are skipped).  Prints one JSON
object with the numbers defined in docs/analyses.md; see the test suite's
compare.py for how it is checked against xtop's own JSON output.

Only /usr/bin/python3 and Debian packages are used: the protobuf module is
generated at start-up with `protoc` from <repo>/proto/xplane.proto.

Where docs/analyses.md leaves a point open, the reading chosen here is marked
with "CHOICE Cn" in the code; the list below is what the C side must match:

  C1  Aggregated events (num_occurrences set) are counted in "events" and the
      plane/line counts but ignored by every analysis.  An event with neither
      offset_ps nor num_occurrences on the wire is an ordinary event at
      offset 0.
  C2  Stat lookup on an event: the event's own stats (first match in file
      order), then (host step markers only) the keys decoded from a TraceMe
      name `name#k=v,...#`, then the event metadata's stats.  Integer stats
      accept int64, uint64, and (for decoded TraceMe keys) decimal strings.
  C3  Program ids are compared and printed as unsigned 64-bit numbers
      (an int64 stat is taken modulo 2^64).  `/host:metadata` event-metadata
      names `module(DIGITS)` map DIGITS -> module, per host.
  C4  Derived lines: name in the list, or id in [0xdeadbeef, 0xdeadbeef+289],
      or the id is that range sign-extended from 32 bits (the TF fixture
      writes -559038737.. for 0xdeadbeef..; those lines are also caught by
      name).
  C5  Nesting (self time, depth): events of one line sorted by (start asc,
      end desc, file order); a stack walk makes an event the child of the
      innermost open event whose [start, end] contains it (equal spans: the
      earlier one in that order is the parent).  Self time is not clamped.
  C6  Numeric-suffix stripping for categories is repeated:
      `([._][0-9]+)+$` is removed (`cudnn-conv.1.0` -> `cudnn-conv`).
  C7  GPU category: hlo_category stat, else "memcpy" for memcpy events, else
      the type after the last ':' of the tf_op name (when the name came from
      tf_op and that type is non-empty), else the suffix-stripped name.
      XLA-ops devices: hlo_category, else the suffix-stripped name.
  C8  A memcpy event is one whose op name, event-metadata name or line name
      contains `Memcpy` (a line's name only when the kinds it lists in
      parentheses are all copies: `Stream #14(MemcpyD2D,Compute)` runs
      kernels too), or whose op/metadata name is one of
      CopyHostToDevice/CopyDeviceToHost/CopyDeviceToDevice/CopyHostToHost.
      host_to_device: any of those three strings contains `MemcpyH2D` or
      `CopyHostToDevice`; device_to_host: `MemcpyD2H` or `CopyDeviceToHost`.
  C9  Collective: the op name or the category contains all-reduce,
      all-gather, reduce-scatter, all-to-all or collective-permute, or starts
      with nccl/rccl, or with its numeric suffix stripped equals send, recv,
      send-done or recv-done (case-sensitive).  The raw event-metadata name
      (full HLO text on TPU) is not searched.  Collectives are tested before
      memcpy.
  C10 GPU merging of "consecutive events with the same (program id,
      program, name, group_id)" applies only to events whose name came from
      the `hlo_op` stat (attribution hlo_op, hlo_op_unchecked, kernel_name,
      kernel_name_unchecked), and stops when the occurrence's first kernel
      name comes again (the op ran again), except for an op the HLO places
      outside loops whose program's current run on the line (C20) another op opened: it
      runs once a run (CUB's radix sort repeats its memset).  TF ops, unresolved kernels,
      plain kernels and memcpys are one occurrence per event.
      "Consecutive" = adjacent in the line's events sorted by (start,
      longer first, file order).  A missing group_id equals a missing
      group_id.  flops/bytes of a merged occurrence come from its first
      event (its stats, else the HLO cost of its instruction).
  C11 A merged op's category is the one of its first occurrence in
      processing order (hosts in argument order, planes/lines/events in file
      order).  Op ties: self desc, total desc, name asc, program asc.
  C12 Device span 0 -> idle_percent and start_ps null (no span: nothing to
      be idle of; 0 would read as busy throughout).  Device planes that are neither an
      XLA-ops device nor /device:GPU:N have busy = span = 0.
  C13 Steps: host markers are used only when no host of the run has any
      device marker.  A host marker whose id (step_num, else group_id) is not
      an integer is dropped.  The index fallback for device markers is the
      index in the Steps line's events sorted by start time (= file order in
      all fixtures).  Markers of one id (devices, hosts) make one step, the
      longest of them (the earliest on a tie), as XProf times a step by its
      longest device marker.  A step's breakdown clips the activity of the
      device whose marker (or run) it is, and of that device's host; a host
      marker's, the activity of every device and host.
  C14 Host compute: every event of /host:CPU that is not a host step marker
      (by the marker predicate, whether or not host markers are in use) and
      not a Python tracer frame (its metadata name starts with `$`, on
      whatever line); markers are removed *before*
      depth is taken, which makes "depth 0" equal to "all remaining events"
      (they are all the same category, so only the union counts).
  C15 Memory: events processed per allocator sorted by (time, host order,
      line order, event order).  Events with no allocator key are skipped.
      When allocator_name is absent, the last index_on_host/device_ordinal
      among the event's own stats wins (then its metadata's stats).  Missing
      byte stats count as 0.  Live set keyed by addr (events without addr do
      not change it); an allocation at a live addr replaces it; a
      deallocation of an unknown addr is ignored.  live_at_peak sorted by
      bytes desc, then allocation order.
  C16 Kernel stats: GPU devices only (not XLA-ops devices).  Kernel name =
      event-metadata name; op = the op-profile name of the event (C19).
      shared = static_shared (or the old TF key shm) + dynamic_shared when
      both are present, else group_mem, else null: one part alone is not a
      block's total (TF's shm is the static part; its tracer records no
      dynamic part); null too above 1 MiB (a part or the sum), or when regs
      is garbage and static_shared (or shm) came with it (the two halves of
      a pointer).  registers = regs when in [0, 512], else null; occupancy =
      occ_pct when in (0, 100], else null; grid/block default 1 per missing
      component.  Rows tie-broken by name, op, grid, block.
  C17 Host name: file name minus `.gz` (if present) minus `.xplane.pb`;
      "file" is the path as given (directory + entry name for directories).
      Directory entries are taken in sorted name order; any unparseable
      host file makes the whole run fail (exit 2, one line on stderr).
  C18 Time base: every time is relative to the profile start: 0 when the
      timestamps of lines with events lie within [-(w), w], w = an hour plus
      Task Environment's stop - start; else Task Environment's start when it
      is at most an hour before the first line; else the first line.  Hosts:
      the earliest, once placed on one clock (C29) and corrected (C30).
  C19 GPU op attribution (docs "Op profile"): hlo_op checked against the
      program's HLO (program id, else a unique module name); command buffer
      or unknown instruction -> the kernel name's instruction (kernel_name)
      or the kernel name itself (unresolved); memcpy before tf_op/`level 0`
      ("name:Type", both non-empty); else the event name.  HLO is read only
      for hosts with a GPU plane that has lines.
  C20 Steps without markers: runs per device (XLA Modules events; GPU
      stretches of one (module, program id) with restarts on the run's
      first op unless it is in a while loop, or is not an XLA op; in a
      program of one op on a line, on the run's first kernel; stretches
      on several streams joined when they overlap); the module with the most
      summed run time among those run twice on a device (ties: shorter name,
      then byte order); step k is the longest of the k-th runs of the
      devices (C13).
  C21 Rates: per device, ps = total time (async start: the Async XLA Ops
      spans of (metadata program_id, instruction name) when their count
      equals the occurrences, else left out; async done: left out); FLOPs
      and bytes only from devices where every occurrence had them; a
      utilization over 1 (or, no peak, > 5e15 FLOP/s, > 50e12 B/s) drops the
      rate; all-bytes rate also dropped when it equals the HBM one.  An XLA
      op whose first event's HLO text has "S(5)" in a layout, before its "}"
      or an SC/P/M part (host memory),
      has no HBM rate, share or intensity (its bytes cross the host link).
  C22 Memory names and split as docs "Memory".
  C23 Overview kernels (GPU): a stream-line event (duration > 0) is a copy,
      and no kernel, when the step breakdown files it as one: the collective
      rule (C9, op-profile name and category) first, so a collective is
      never a copy, then the memcpy rule (C8: op-profile name, event-metadata
      name, line name; device-to-device copies included).  A memset (its
      event-metadata name starts with "Memset") is no kernel either: CUPTI
      records it as its own activity, with no kernel_details, and the kernel
      table leaves it out.  Small: duration < 10 us (strictly).
  C24 Gaps: the span [start, start + span) minus the union of the busy
      spans (B); when the span is 0, host_bound_ps, longest_gap_ps and
      gaps_over_1ms are null (no idle time to measure).  longest_gap_start_ps is null
      when the device has no gap (longest_gap_ps 0), never 0.  A gap of
      exactly 1 ms counts in gaps_over_1ms.  H is per host (the host file
      the device plane is in).
  C25 Compilation events: matched on the event-metadata name as stored (no
      TraceMe decoding), on every line of /host:CPU including `python`,
      duration > 0 only (as every other overview rule).  compiles counts
      those no other compilation event of their line contains ([start, end]
      within; equal spans: the first in C5's order contains the others).
  C31 AMD HBM3 peaks: ROCm's memory_bandwidth stat doubled on gfx942 and
      gfx950 (see AMD_HBM_X).
  C26 Finding thresholds are compared exactly on the integers they rest on
      (idle >= 20 %: 5 (span - busy) >= span, for launch_bound of the
      time the programs' runs span where it has runs (the idle between runs
      is the host's loop); >= 50 % small: 2 small >=
      kernels, the small ones in command buffers (launched as one graph)
      left out; idle >= 10 %: 10 (span - busy) >= span; h2d >= 5 %: 20 h2d >=
      summed step time; first op >= 50 %: 2 self >= summed busy; collectives
      >= 20 %: 5 collective >= summed busy), never on a rounded percentage
      (100 (1 - 4/5) is 19.999999999999996 in doubles).  idle_gaps and
      launch_bound consider XLA-ops and GPU devices with span > 0; ties
      (idle_gaps, host_bound_device) go to the first in device order (hosts
      in argument order, planes in file order).  The collectives finding's
      op is the first collective in the op order.
  C27 host_bound_device is null when no device was host-bound (the largest
      host_bound_ps is 0) as well as when there are no devices; the
      overview's host_bound_ps is null (unknown, not 0) when no device has
      a span for idle time to lie in (none with events), or none a host
      with activity (C44).
  C28 Percentages over a zero total are null: collective_percent when the
      summed device busy time is 0, h2d_in_steps_percent without steps or
      when the steps' durations sum to 0; h2d_in_steps_ps and
      d2h_in_steps_ps are null without steps.  Step statistics: mean is the
      exact quotient (a float), p50/p95 by nearest rank (the ceil(p n /
      100)-th shortest step).
  C29 Several hosts on one clock: W (ns) is set by the first host in
      argument order that has a clock: a normalized host's Task Environment
      start (0 < start < 2^63), else an absolute host's first line when W
      is unset.  A normalized host with a start moves by start - W when
      |start - W| < 9e15 ns ("task_environment"); without one (or farther)
      its 0 stays at W ("none").  An absolute host whose lowest and highest
      line timestamps are within 9e15 ns of W is on W ("shared_clock"); else
      it is rebased on its first line ("shared_clock" if that set W, else
      "none").  clock_offset_ps = the host's start on that clock minus the
      earliest host's.
  C30 Skew, against the reference (the first host not "none" with
      collectives or device steps, else the first with any): per device
      plane the ends of events whose display name (else name), without
      "-", "_", ".", " ", cut to 255 characters and lower-cased, contains
      allreduce, allgather, reducescatter or alltoall not directly followed
      by "start", on the XLA Ops line when the plane has one, else on its
      non-derived lines; key = (name, program_id, run_id, hlo_op), each
      stat from the event, then its metadata (strings compared as text,
      numbers modulo 2^64).  Devices pair by plane name (the first of that
      name on the reference), or, when no name is shared, by order among
      the planes with such events.  Each end is matched with the nearest
      end of the same key on the paired device (the earlier on a tie),
      kept only when the second nearest end of that key is at least 10 ms
      away and d2 // 4 >= d1 (d1, d2: the two distances in ps), or there is
      no second.
      Without any collective match: device Steps events (group_id, else
      step_num, read as stat_as_int does; per host the earliest start and
      latest end per id) of the same id whose closed spans overlap, start
      against start.  skew = nearest-rank p50 of the offsets (this host -
      reference), spread = p75 - p25 (null from one offset); null when
      nothing matched.
      Corrected (every event of the host moves back by the skew rounded to
      the ns, halves away from 0) when the method is collectives, there are
      >= 8 offsets, 4 spread <= |skew|, 500 ps <= |skew| <= 1 hour, and
      neither the host nor the reference is "none".
  C32 Command buffer runs (docs "Op profile"): consecutive events of a
      stream line (C5's order) attributed kernel_name or unresolved, with
      the program's HLO and a launch sequence for the command buffer's
      computation, the same program, computation, correlation_id (none
      equals none) and hlo_op (its last scope). The anchors are the chain patience sorting keeps
      (bisect_left on the chain ends' places; a kernel whose place equals
      the end found is skipped, else it replaces that end and its
      predecessor is the end before its slot). Category of an op found by order: the
      instruction's kind, never the event's hlo_category.
  C33 GPU program runs: a stretch counts as holding an entry op when one of
      its events restarts-capable (an XLA op, not in a loop) was added to
      it, the opening event included; stretches without one are dropped,
      before the cross-stream merge, when the same (module, program id) has
      a stretch with one on that device.
  C34 An op's percent is its self time over all ops' summed self time, so
      the column adds up to 100 %; dominant_op: 2 self >= that sum.
  C35 A profile that no ProfilerSession post-processed (the xtop agent's
      before it was merged) has its host's planes apart: /host:CUPTI,
      /host:ROCTRACER, /host:python-tracer and /host:TPU-runtime planes are
      read as one /host:CPU plane with /host:CPU's, lines of one id as one
      line (the earliest timestamp, the first non-empty name), events in
      file order; /host:NVTX-CUPTI's lines after them, under ids not taken
      (from 2^32 on).
  C36 HIP blit copies (docs "HIP runs copies as kernels"): a GPU event
      whose name starts with `__amd_rocclr_copy` and whose correlation_id
      (the event's own stat, read as a signed 64-bit integer; -2^63 counts
      as none) is that of exactly one kind of host call on a /host:CPU line
      of its host (`hipMemcpy…` with `HtoD` -> host_to_device, `DtoH` ->
      device_to_host, `DtoD` or `Peer` -> device to device; calls of two
      kinds under one id say nothing) is that copy: in the step breakdown
      (device to device is compute there) and not a kernel in the counts.
      One attributed `event_name` with no (or an empty) hlo_module and no
      program_id is the op `MemcpyH2D` / `MemcpyD2H` / `MemcpyD2D`,
      category `memcpy`, attribution `copy_call`, never continuing an
      occurrence.
  C37 An op's rate_note is set whenever one of its rates or utilizations
      is null, whatever the reason (the text is not compared).
  C38 Host offload in the step breakdown: an XLA-ops event that is neither
      a collective nor a memcpy, whose HLO text "NAME = RESULT OPCODE(ARGS)"
      has S(5) (as in C21) in RESULT or in ARGS (balanced parentheses),
      counts as host_to_device / device_to_host: copy-start by its ARGS
      (there: to the device, else to the host), copy-done and
      dynamic-update-slice by their RESULT (there: to the host, else to the
      device), other opcodes when only one
      side has it (RESULT: to the host, ARGS: to the device).  JSON op
      field host_copy: "to_device" / "to_host" / null, from the op's first
      event.
  C41 Device time: on a /device: plane whose stat metadata names both
      device_offset_ps and device_duration_ps, an event carrying both (its
      own stats, integers, the first of each) starts at device_offset_ps
      (absolute ps, as the line's timestamp * 1000 + offset_ps is) and lasts
      device_duration_ps, as XProf's GetDeviceEventTimespan times a TPU's
      ops; unless that start is before the line's timestamp.
  C40 A device with no op events (none on its plane, not even instants)
      has busy_ps and span_ps null: it was idle, or it was not traced (the
      MI300X conv profile's GPU:1-6 ran programs and have no events). One
      with instants only keeps busy 0 and span 0.  A GPU with no op events
      has its kernel counts (kernels, small_kernels, small_kernel_ps) null
      too: what it ran is as unknown as its busy time.
  C42 arithmetic_intensity (FLOPs over HBM bytes) stays when the FLOP
      rate or the HBM bandwidth is dropped as above the device's peak, and
      bound_by is the larger of the two shares before the drop: both are
      ratios of the counts, where the op's time cancels out (as XProf's
      SetRooflineMetrics, which drops nothing). Not for a host offload.
  C43 Programs: a program name (as program_of gives it) under which ops
      ran with several program ids is several programs, each named
      "name(id)" (XProf keys op metrics by program id, and names programs
      "module(id)"); ops without an id keep the plain name.
  C44 Host-bound time is null (a device's, the overview's, the idle_gaps
      finding's host_bound_ps) where the device's host has no activity in
      the profile (no event on its thread lines: the host tracer off): the
      device's idle time cannot be told host-bound or not, so it is not 0.
      Where no device's host has activity, each step's host_compute_ps is
      null too (its idle_ps then holds any host time).
"""

import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import bisect
import math

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hlo_oracle  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
PROTO_DIR = os.path.join(REPO, 'proto')

U64 = (1 << 64) - 1
DERIVED_MIN = 0xdeadbeef
DERIVED_MAX = 0xdeadbeef + 289
DERIVED_NAMES = {'Steps', 'XLA Modules', 'XLA Ops', 'TensorFlow Ops', 'Framework Ops',
                 'TensorFlow Name Scope', 'Framework Name Scope', 'Source code',
                 'Launch Stats'}

# Step-breakdown categories, higher number wins on overlap.
HOST_COMPUTE, H2D, COLLECTIVES, D2H, DEVICE_COMPUTE = 1, 2, 3, 4, 5
CAT_FIELD = {DEVICE_COMPUTE: 'device_compute_ps', COLLECTIVES: 'collectives_ps',
             H2D: 'host_to_device_ps', D2H: 'device_to_host_ps',
             HOST_COMPUTE: 'host_compute_ps'}

SUFFIX_RE = re.compile(r'([._][0-9]+)+$')
MODULE_RE = re.compile(r'^(.*)\(([0-9]+)\)$', re.S)
COLLECTIVE_TOKENS = ('all-reduce', 'all-gather', 'reduce-scatter', 'all-to-all',
                     'collective-permute')
SENDRECV = {'send', 'recv', 'send-done', 'recv-done'}
COPY_NAMES = {'CopyHostToDevice', 'CopyDeviceToHost', 'CopyDeviceToDevice', 'CopyHostToHost'}


def die(msg):
    sys.stderr.write('xspace_oracle: ' + msg.replace('\n', ' ') + '\n')
    sys.exit(2)


def load_pb2():
    tmp = tempfile.mkdtemp(prefix='xspace_oracle_')
    try:
        subprocess.run(['protoc', '--python_out=' + tmp, '-I', PROTO_DIR,
                        os.path.join(PROTO_DIR, 'xplane.proto')],
                       check=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        subprocess.run(['protoc', '--python_out=' + tmp, '-I', PROTO_DIR,
                        os.path.join(PROTO_DIR, 'hlo_subset.proto')],
                       check=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    except (OSError, subprocess.CalledProcessError) as e:
        die('cannot run protoc: %s' % e)
    sys.path.insert(0, tmp)
    try:
        import xplane_pb2  # noqa: E402
        import hlo_subset_pb2  # noqa: E402
    finally:
        sys.path.remove(tmp)
        shutil.rmtree(tmp, ignore_errors=True)
    return xplane_pb2, hlo_subset_pb2


# ---------------------------------------------------------------- model ----

class Event:
    __slots__ = ('start', 'dur', 'end', 'name', 'display', 'stats', 'mstats',
                 'line', 'idx')

    def __init__(self, start, dur, name, display, stats, mstats, line, idx):
        self.start = start
        self.dur = dur
        self.end = start + dur
        self.name = name
        self.display = display
        self.stats = stats      # [(name, value)] of the event, file order
        self.mstats = mstats    # [(name, value)] of the event metadata
        self.line = line
        self.idx = idx

    def stat(self, key, extra=None):
        for k, v in self.stats:
            if k == key:
                return v
        if extra:
            for k, v in extra:
                if k == key:
                    return v
        for k, v in self.mstats:
            if k == key:
                return v
        return None

    def has(self, key, extra=None):
        return self.stat(key, extra) is not None


class Line:
    __slots__ = ('id', 'name', 'events', 'index', 'ts', 'has_events')


class Plane:
    __slots__ = ('name', 'lines', 'nevents', 'stats')


class Host:
    __slots__ = ('name', 'file', 'planes', 'modules', 'index', 'programs', 'origin', 'aligned',
                 'skew', 'corrected')


def stat_value(sm, s):
    kind = s.WhichOneof('value')
    if kind is None:
        return None
    if kind == 'ref_value':
        md = sm.get(s.ref_value)
        return md if md is not None else ''
    return getattr(s, kind)


def as_int(v):
    """Integer stat value (int64 / uint64; decimal string for TraceMe keys)."""
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, int):
        return v
    if isinstance(v, str):
        try:
            return int(v.strip(), 10)
        except ValueError:
            return None
    return None


def as_str(v):
    if v is None:
        return None
    if isinstance(v, str):
        return v
    if isinstance(v, bytes):
        return v.decode('utf-8', 'replace')
    return str(v)


def convert_plane(pb, p):
    plane = Plane()
    plane.name = p.name
    plane.lines = []
    plane.nevents = 0
    sm = {k: v.name for k, v in p.stat_metadata.items()}

    def stats_of(lst):
        return [(sm.get(s.metadata_id), stat_value(sm, s)) for s in lst]

    plane.stats = stats_of(p.stats)
    emd = {}
    for k, v in p.event_metadata.items():
        emd[k] = (v.name, v.display_name, stats_of(v.stats))
    empty = ('', '', [])
    names = set(sm.values())
    dev_time = p.name.startswith('/device:') and \
        {'device_offset_ps', 'device_duration_ps'} <= names
    for li, l in enumerate(p.lines):
        line = Line()
        line.id = l.id
        line.name = l.name
        line.index = li
        line.events = []
        line.ts = l.timestamp_ns
        line.has_events = len(l.events) > 0
        base = l.timestamp_ns * 1000
        for ei, e in enumerate(l.events):
            plane.nevents += 1
            if e.WhichOneof('data') == 'num_occurrences':
                continue  # CHOICE C1
            name, disp, mst = emd.get(e.metadata_id, empty)
            start, dur = base + e.offset_ps, e.duration_ps
            if dev_time:
                # CHOICE C41: the device's own clock, when the event has both.
                dv = {}
                for s in e.stats:
                    k = sm.get(s.metadata_id)
                    if k in ('device_offset_ps', 'device_duration_ps') and k not in dv and \
                            s.WhichOneof('value') in ('int64_value', 'uint64_value'):
                        dv[k] = getattr(s, s.WhichOneof('value'))
                if len(dv) == 2 and dv['device_duration_ps'] >= 0 and \
                        dv['device_offset_ps'] >= base:
                    start, dur = dv['device_offset_ps'], dv['device_duration_ps']
            line.events.append(Event(start, dur, name, disp,
                                     stats_of(e.stats), mst, line, ei))
        plane.lines.append(line)
    return plane


HOST_PLANES = ('/host:CPU', '/host:CUPTI', '/host:ROCTRACER', '/host:python-tracer',
               '/host:TPU-runtime')


def merge_host_planes(planes):
    """CHOICE C35: the host's planes as one /host:CPU plane, after the others."""
    host = [p for p in planes if p.name in HOST_PLANES]
    nvtx = [p for p in planes if p.name == '/host:NVTX-CUPTI'][:1]
    if not nvtx and (not host or (len(host) == 1 and host[0].name == '/host:CPU')):
        return planes
    used = {l.id for p in host for l in p.lines}
    nxt = 1 << 32
    sources = [(p, l, l.id) for p in host for l in p.lines]
    for p in nvtx:
        for l in p.lines:
            lid = l.id
            if lid in used:
                while nxt in used:
                    nxt += 1
                lid = nxt
                nxt += 1
            used.add(lid)
            sources.append((p, l, lid))
    merged = Plane()
    merged.name = '/host:CPU'
    merged.lines = []
    merged.nevents = sum(p.nevents for p in host + nvtx)
    merged.stats = [s for p in host + nvtx for s in p.stats]
    by_id = {}
    for _, l, lid in sources:
        m = by_id.get(lid)
        if m is None:
            m = Line()
            m.id, m.name, m.events, m.ts, m.has_events = lid, l.name, [], l.ts, False
            m.index = len(merged.lines)
            by_id[lid] = m
            merged.lines.append(m)
        elif l.has_events and (not m.has_events or l.ts < m.ts):
            m.ts = l.ts
        if not m.name:
            m.name = l.name
        m.has_events = m.has_events or l.has_events
        for e in l.events:
            e.line = m
            e.idx = len(m.events)
            m.events.append(e)
    rest = [p for p in planes if p not in host and p not in nvtx]
    return rest + [merged]


def read_space(pb, path):
    try:
        with open(path, 'rb') as f:
            data = f.read()
    except OSError as e:
        die('%s: %s' % (path, e.strerror or e))
    if data[:2] == b'\x1f\x8b':
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, ValueError) as e:
            die('%s: bad gzip data: %s' % (path, e))
    sp = pb.XSpace()
    try:
        sp.ParseFromString(data)
    except Exception as e:  # DecodeError, RuntimeWarning-as-error, ...
        die('%s: not a valid XSpace protobuf (%s)' % (path, str(e) or type(e).__name__))
    return sp


def host_name_of(path):
    base = os.path.basename(path)
    if base.endswith('.gz'):
        base = base[:-3]
    if base.endswith('.xplane.pb'):
        base = base[:-len('.xplane.pb')]
    return base


TS_LIMIT = 9000000000000000


HOUR_NS = 3600000000000
I64_MAX = (1 << 63) - 1


def near(ts, base):
    return -TS_LIMIT < ts - base < TS_LIMIT


def task_env(h):
    start = stop = None
    for p in h.planes:
        if p.name == 'Task Environment':
            for k, v in p.stats:
                if k == 'profile_start_time':
                    start = as_int(v)
                elif k == 'profile_stop_time':
                    stop = as_int(v)
    return start, stop


def place_hosts(hosts):
    """CHOICE C18 and C29 (docs "Time base", "Several hosts"): puts every
    host on one clock and sets h.origin (its profile start) on it.

    The trace's clock is W, an absolute ns value set by the first host (in
    argument order) that has a known clock: a normalized host's Task
    Environment start, or an absolute host's first line when it is not
    near W.  Normalized timestamps (those of lines with events within
    [-w, w], w = an hour plus stop - start; or no such line) count from the
    host's own start: a host with a start (0 < start < 2^63) is placed at
    start - W when that is within TS_LIMIT (task_environment), else its 0
    stays at W (none).  An absolute clock whose lowest and highest line are
    within TS_LIMIT of W is on W (shared_clock); else it is rebased on its
    first line (shared_clock when it set W, else none).  Its start is Task
    Environment's when at most an hour before its first line and not after
    it, else the first line.  Every event moves by the host's shift."""
    W = None
    for h in hosts:
        stamps = [l.ts for p in h.planes for l in p.lines if l.has_events]
        start, stop = task_env(h)
        has_start = start is not None and 0 < start <= I64_MAX
        window = HOUR_NS
        if start and stop and stop > start and stop - start < TS_LIMIT:
            window += stop - start
        h.aligned = 'none'
        if not stamps or (-window <= min(stamps) and max(stamps) <= window):
            shift = 0
            if has_start:
                if W is None:
                    W = start
                if near(start, W):
                    shift = (start - W) * 1000
                    h.aligned = 'task_environment'
            h.origin = shift
        else:
            lo, hi = min(stamps), max(stamps)
            if W is not None and near(lo, W) and near(hi, W):
                base = W
                h.aligned = 'shared_clock'
            else:
                base = lo
                if W is None:
                    W = lo
                    h.aligned = 'shared_clock'
            shift = -base * 1000
            origin = lo * 1000
            if has_start and start <= lo and lo - start <= HOUR_NS:
                origin = start * 1000
            h.origin = origin + shift
        if shift:
            shift_host(h, shift)


def shift_host(h, ps):
    for p in h.planes:
        for line in p.lines:
            for ev in line.events:
                ev.start += ps
                ev.end += ps


# ---- the skew (CHOICE C30) ----

SYNC_OPS = ('allreduce', 'allgather', 'reducescatter', 'alltoall')


def sync_collective(name):
    """Ends at the same instant on every participant: all-reduce,
    all-gather, reduce-scatter, all-to-all (lower case, without - _ . and
    spaces, first 255 characters), not followed by "start"."""
    b = ''.join(c for c in name if c not in '-_. ')[:255]
    b = ''.join(chr(ord(c) + 32) if 'A' <= c <= 'Z' else c for c in b)
    for op in SYNC_OPS:
        i = b.find(op)
        if i >= 0 and not b.startswith('start', i + len(op)):
            return True
    return False


def c_int(v):
    """A stat as xtop's stat_as_int reads it: integers, doubles truncated,
    decimal strings; 0 otherwise."""
    if isinstance(v, float):
        return int(v) if v == v and abs(v) < 2 ** 63 else 0
    r = as_int(v)
    return 0 if r is None else r


def key_part(v):
    if v is None:
        return None
    if isinstance(v, (str, bytes)):
        return ('s', as_str(v))
    if isinstance(v, bool):
        return ('i', int(v))
    if isinstance(v, int):
        return ('i', v & U64)
    if isinstance(v, float):
        return ('i', int(v) & U64)
    return ('i', 0)


def host_sync(h):
    """Per device plane with synchronizing collectives (file order): its
    name and {key: sorted ends}; per host the device Steps spans by id."""
    devs = []
    steps = {}
    for p in h.planes:
        if not p.name.startswith('/device:'):
            continue
        xla = any(l.name == 'XLA Ops' for l in p.lines)
        ends = {}
        for line in p.lines:
            if (line.name != 'XLA Ops') if xla else is_derived(line):
                continue
            for ev in line.events:
                name = ev.display or ev.name
                if not sync_collective(name):
                    continue
                key = (name, key_part(ev.stat('program_id')), key_part(ev.stat('run_id')),
                       key_part(ev.stat('hlo_op')))
                ends.setdefault(key, []).append(ev.end)
        if ends:
            for v in ends.values():
                v.sort()
            devs.append((p.name, ends))
        for line in p.lines:
            if line.name != 'Steps':
                continue
            for ev in line.events:
                sid = ev.stat('group_id')
                if sid is None:
                    sid = ev.stat('step_num')
                    if sid is None:
                        continue
                sid = c_int(sid)
                if sid in steps:
                    s0, e0 = steps[sid]
                    steps[sid] = (min(s0, ev.start), max(e0, ev.end))
                else:
                    steps[sid] = (ev.start, ev.end)
    return devs, steps


MIN_REPEAT_PS = 10000000000  # 10 ms


def match_device(a, b, out):
    """Nearest end of the same key (the earlier on a tie), kept only when
    the second nearest is at least 4 times as far (d2 // 4 >= d1) and at
    least 10 ms away (or there is none)."""
    for key, ends in b.items():
        ref = a.get(key)
        if not ref:
            continue
        for t in ends:
            i = bisect.bisect_left(ref, t)
            dl = t - ref[i - 1] if i > 0 else None
            du = ref[i] - t if i < len(ref) else None
            if du is not None and (dl is None or du < dl):
                best, d1, d2 = ref[i], du, dl
                if i + 1 < len(ref) and (d2 is None or ref[i + 1] - t < d2):
                    d2 = ref[i + 1] - t
            else:
                best, d1, d2 = ref[i - 1], dl, du
                if i > 1 and (d2 is None or t - ref[i - 2] < d2):
                    d2 = t - ref[i - 2]
            if d2 is not None and (d2 < MIN_REPEAT_PS or d2 // 4 < d1):
                continue
            out.append(t - best)


def rank_pct(v, p):
    r = (p * len(v) + 99) // 100
    return v[r - 1 if r else 0]


def settle_clocks(hosts):
    """CHOICE C30: each host's skew against the reference host (the first
    placed host with collectives or steps, else the first with any): the
    ends of the same collective (key: name, program_id, run_id, hlo_op;
    devices paired by plane name, else by order among those with
    collectives), each against the nearest end on the reference's device
    (the earlier on a tie); else device step starts of the same id when the
    two steps overlap (closed intervals).  skew = nearest-rank median of
    the offsets, spread = p75 - p25.  A host moves back by the skew rounded
    to the ns (halves away from 0) when the method is collectives, there
    are >= 8 offsets, 4 spread <= |skew|, 500 ps <= |skew| <= 1 hour, and
    neither it nor the reference is 'none'."""
    for h in hosts:
        h.skew = None
        h.corrected = False
    if len(hosts) < 2:
        return
    sync = [host_sync(h) for h in hosts]
    ref = None
    for i, h in enumerate(hosts):
        if (sync[i][0] or sync[i][1]) and h.aligned != 'none':
            ref = i
            break
    if ref is None:
        for i, h in enumerate(hosts):
            if sync[i][0] or sync[i][1]:
                ref = i
                break
    if ref is None:
        return
    hosts[ref].skew = ('reference', 0, 0, 0)
    adevs, asteps = sync[ref]
    for i, h in enumerate(hosts):
        if i == ref:
            continue
        bdevs, bsteps = sync[i]
        out = []
        anames = {}
        for n, e in adevs:
            anames.setdefault(n, e)
        named = False
        for n, e in bdevs:
            if n in anames:
                match_device(anames[n], e, out)
                named = True
        if not named:
            for (_, ea), (_, eb) in zip(adevs, bdevs):
                match_device(ea, eb, out)
        method = 'collectives'
        if not out:
            method = 'device_steps'
            for sid in sorted(bsteps):
                if sid in asteps:
                    (bs, be), (as_, ae) = bsteps[sid], asteps[sid]
                    if bs <= ae and as_ <= be:
                        out.append(bs - as_)
        if not out:
            continue
        out.sort()
        # CHOICE C30: one offset has no spread (null, not 0)
        spread = rank_pct(out, 75) - rank_pct(out, 25) if len(out) > 1 else None
        h.skew = (method, rank_pct(out, 50), spread, len(out))
    for i, h in enumerate(hosts):
        if i == ref or h.skew is None:
            continue
        method, skew, spread, n = h.skew
        a = abs(skew)
        if (method == 'collectives' and n >= 8 and h.aligned != 'none' and
                hosts[ref].aligned != 'none' and 4 * spread <= a and 500 <= a <= HOUR_NS * 1000):
            ns = (skew + 500) // 1000 if skew >= 0 else -((-skew + 500) // 1000)
            shift_host(h, -ns * 1000)
            h.origin -= ns * 1000
            h.corrected = True


def load_programs(hpb, sp, h):
    """Program id -> hlo_oracle.Program, for hosts with GPU planes."""
    progs = {}
    if hpb is None or not any(p.name.startswith('/device:GPU:') and len(p.lines)
                              for p in sp.planes):
        return progs
    for p in sp.planes:
        if p.name != '/host:metadata':
            continue
        sm = {k: v.name for k, v in p.stat_metadata.items()}
        for md in p.event_metadata.values():
            m = MODULE_RE.match(md.name)
            pid = int(m.group(2)) & U64 if m else md.id & U64
            for st in md.stats:
                if sm.get(st.metadata_id) not in ('Hlo Proto', 'HLO Proto'):
                    continue
                if st.WhichOneof('value') not in ('bytes_value', 'str_value'):
                    continue
                data = st.bytes_value if st.WhichOneof('value') == 'bytes_value' \
                    else st.str_value.encode()
                if pid not in progs:
                    try:
                        progs[pid] = hlo_oracle.Program(hpb, data, pid)
                    except Exception:
                        pass
                break
    return progs


def load_host(pb, path, index, hpb=None):
    sp = read_space(pb, path)
    h = Host()
    h.name = host_name_of(path)
    h.file = path
    h.index = index
    h.planes = merge_host_planes([convert_plane(pb, p) for p in sp.planes])
    h.origin = None     # set by place_hosts()
    h.programs = load_programs(hpb, sp, h)
    # CHOICE C3: module names from /host:metadata, keyed by unsigned id string.
    h.modules = {}
    for p in sp.planes:
        if p.name != '/host:metadata':
            continue
        for md in p.event_metadata.values():
            m = MODULE_RE.match(md.name)
            if m:
                h.modules[int(m.group(2)) & U64] = m.group(1)
    return h


def expand_paths(args):
    files = []
    for a in args:
        if os.path.isdir(a):
            found = sorted(n for n in os.listdir(a) if n.endswith('.xplane.pb'))
            if not found:
                die('%s: no *.xplane.pb files in directory' % a)
            files.extend(os.path.join(a, n) for n in found)
        elif os.path.exists(a):
            files.append(a)
        else:
            die('%s: no such file or directory' % a)
    return files


# ------------------------------------------------------------ helpers ----

def is_derived(line):
    if line.name in DERIVED_NAMES:
        return True
    i = line.id
    if DERIVED_MIN <= i <= DERIVED_MAX:
        return True
    if i < 0 and DERIVED_MIN <= (i + (1 << 32)) <= DERIVED_MAX:  # CHOICE C4
        return True
    return False


def nest(events):
    """CHOICE C5: returns [(event, depth, children_duration_sum)] in sorted order."""
    order = sorted(events, key=lambda e: (e.start, -e.end, e.idx))
    out = []
    stack = []  # indices into out
    for e in order:
        while stack:
            p = out[stack[-1]][0]
            if p.start <= e.start and e.end <= p.end:
                break
            stack.pop()
        depth = len(stack)
        if stack:
            out[stack[-1]][2] += e.dur
        out.append([e, depth, 0])
        stack.append(len(out) - 1)
    return out


def strip_suffix(name):
    return SUFFIX_RE.sub('', name)  # CHOICE C6


def is_collective(name, category):
    for s in (name, category):
        if not s:
            continue
        for t in COLLECTIVE_TOKENS:
            if t in s:
                return True
        if s.startswith('nccl') or s.startswith('rccl'):
            return True
        if strip_suffix(s) in SENDRECV:
            return True
    return False


def copy_line(linename):
    """C8: a line's name counts only when it lists copies alone:
    "Stream #14(MemcpyD2D,Compute)" runs kernels too."""
    if '(' not in linename or ')' not in linename:
        return linename
    kinds = linename[linename.index('(') + 1:].split(')', 1)[0].split(',')
    return linename if all(k.startswith('Memcpy') for k in kinds) else ''


def memcpy_kind(opname, rawname, linename):
    """CHOICE C8: returns (is_memcpy, H2D|D2H|None)."""
    strs = (opname or '', rawname or '', copy_line(linename or ''))
    kind = None
    if any('MemcpyH2D' in s or 'CopyHostToDevice' in s for s in strs):
        kind = H2D
    elif any('MemcpyD2H' in s or 'CopyDeviceToHost' in s for s in strs):
        kind = D2H
    ism = (kind is not None or any('Memcpy' in s for s in strs)
           or opname in COPY_NAMES or rawname in COPY_NAMES)
    return ism, kind


def program_of(host, ev, xla_first):
    """XLA-ops: module(program_id) > hlo_module > decimal id > ''.
    GPU: hlo_module > module(program_id) > decimal id > ''."""
    pid = as_int(ev.stat('program_id'))
    if pid is not None:
        pid &= U64
    mod = as_str(ev.stat('hlo_module'))
    resolved = host.modules.get(pid) if pid is not None else None
    if xla_first:
        order = (resolved, mod)
    else:
        order = (mod, resolved)
    for c in order:
        if c is not None:
            return c
    if pid is not None:
        return str(pid)
    return ''


def device_kind(plane):
    if not plane.name.startswith('/device:'):
        return None
    if any(l.name == 'XLA Ops' for l in plane.lines):
        return 'xla'
    if re.match(r'^/device:GPU:[0-9]+$', plane.name):
        return 'gpu'
    return 'other'


def last_scope(v):
    return v.split('::')[-1]


def is_command_buffer_name(op):
    return strip_suffix(op) == 'command_buffer'


D2D = 'D2D'
BLIT_OP = {H2D: 'MemcpyH2D', D2H: 'MemcpyD2H', D2D: 'MemcpyD2D'}


def event_corr(ev):
    """CHOICE C36: the event's own correlation_id as a signed 64-bit
    integer; None when absent or -2^63."""
    for k, v in ev.stats:
        if k == 'correlation_id':
            c = as_int(v)
            if c is None:
                return None
            c &= U64
            c = c - (1 << 64) if c >= (1 << 63) else c
            return None if c == -(1 << 63) else c
    return None


def copy_calls(h):
    """CHOICE C36: correlation id -> H2D | D2H | D2D of a host's HIP copy
    calls (None where calls of two kinds share an id)."""
    out = {}
    for plane in h.planes:
        if plane.name != '/host:CPU':
            continue
        for line in plane.lines:
            for ev in line.events:
                n = ev.name
                if not n.startswith('hipMemcpy'):
                    continue
                rest = n[len('hipMemcpy'):]
                d = (H2D if 'HtoD' in rest else D2H if 'DtoH' in rest
                     else D2D if ('DtoD' in rest or 'Peer' in rest) else None)
                c = event_corr(ev)
                if d is None or c is None:
                    continue
                out[c] = d if out.get(c, d) == d else None
    return out


def blit_dir(calls, ev):
    """CHOICE C36: the direction of a HIP blit copy kernel, else None."""
    if not ev.name.startswith('__amd_rocclr_copy'):
        return None
    c = event_corr(ev)
    return calls.get(c) if c is not None else None


def gpu_attr(h, ev, line):
    """CHOICE C19 (docs "Op profile", GPU): (name, category, attribution,
    parent, program, program_obj, inst, from_hlo, in_entry)."""
    kernel = ev.name[:-3] if len(ev.name) > 3 and ev.name.endswith('.kd') else ev.name
    hlo = as_str(ev.stat('hlo_op'))
    mod = as_str(ev.stat('hlo_module'))
    pid = as_int(ev.stat('program_id'))
    if pid is not None:
        pid &= U64
    if hlo:
        op = last_scope(hlo)
        prog = None
        if h.programs:
            prog = h.programs.get(pid) if pid is not None else None
            if prog is None and mod:
                named = [p for p in h.programs.values() if p.name == mod]
                prog = named[0] if len(named) == 1 else None
        inst, parent = None, ''
        if prog is not None:
            i = prog.by_name.get(op)
            if i is not None and not prog.is_command_buffer(i):
                name, attr, inst = op, 'hlo_op', i
            else:
                k = prog.find_kernel(ev.name)
                parent = op
                if k is not None and not prog.is_command_buffer(k):
                    name, attr, inst = k.name, 'kernel_name', k
                else:
                    name, attr = kernel, 'unresolved'
        elif is_command_buffer_name(op):
            name, attr, parent = kernel, 'kernel_name_unchecked', op
        else:
            name, attr = op, 'hlo_op_unchecked'
        cat = as_str(ev.stat('hlo_category'))
        if not cat:
            cat = prog.category(inst) if inst is not None else strip_suffix(name)
        in_entry = prog.in_entry(inst) if inst is not None else True
        from_hlo = attr != 'unresolved'
        return (name, cat, attr, parent, program_of(h, ev, False), prog, inst, from_hlo,
                in_entry)
    ism, _ = memcpy_kind(ev.name, ev.name, line.name)
    if ism and is_collective(ev.display or ev.name, ''):
        ism = False  # C9: collectives are tested before memcpy
    if not ism:
        tf = as_str(ev.stat('tf_op')) or as_str(ev.stat('level 0'))
        if tf and ':' in tf:
            n, t = tf.rsplit(':', 1)
            if n and t:
                return (n, t, 'tf_op', '', '', None, None, False, True)
    name = ev.display or ev.name
    cat = as_str(ev.stat('hlo_category'))
    if not cat:
        cat = 'memcpy' if ism else strip_suffix(name)
    return (name, cat, 'event_name', '', program_of(h, ev, False), None, None, False, True)


CB_EDGE_MAX = 256


def cb_computation(prog, op):
    """CHOICE C32: the computation whose launch sequence a command buffer's
    kernels replay: the one its instruction calls, else (XLA converts
    thunks, not HLO, so the op names no instruction) the entry."""
    i = prog.by_name.get(op)
    if i is not None:
        return next((c for c in i.called if c in prog.comps), None)
    return prog.entry_id if prog.entry_id in prog.comps else None


def cb_resolve(prog, comp, kernels):
    """Docs "Op profile", command buffers: each kernel of one run (names
    without .kd, in start order) -> the instruction its place in the launch
    sequence gives, where that differs from its name's; else None."""
    n = len(kernels)
    own = [prog.find_kernel(k) for k in kernels]
    # The computation holding most of the kernels' places (tie: the hint,
    # else the first met).
    votes = {}
    for o in own:
        if o is not None and o.seq_comp is not None:
            votes[o.seq_comp] = votes.get(o.seq_comp, 0) + 1
    best, bestn = comp, 0
    for c, v in votes.items():
        if v > bestn or (v == bestn and c == comp):
            best, bestn = c, v
    comp = best
    seq = prog.seq.get(comp) or []
    fusion_like = [o is not None for o in own]
    place = [o.seq_pos if o is not None and o.seq_comp == comp else None for o in own]
    memset = [k.startswith('Memset') for k in kernels]
    copy = [k.startswith(('memcpy', 'Memcpy')) for k in kernels]
    out = [None] * n
    if not seq or not n:
        return out
    # Anchors: the longest chain of strictly rising places (patience sort).
    ends, back = [], [None] * n
    for k in range(n):
        if place[k] is None:
            continue
        j = bisect.bisect_left([place[e] for e in ends], place[k])
        if j < len(ends) and place[ends[j]] == place[k]:
            continue  # a reused kernel: the earliest launch keeps the place
        back[k] = ends[j - 1] if j else None
        if j == len(ends):
            ends.append(k)
        else:
            ends[j] = k
    anchors = []
    k = ends[-1] if ends else None
    while k is not None:
        anchors.append(k)
        k = back[k]
    anchors.reverse()
    for k in anchors:
        out[k] = seq[place[k]]

    def parse(a, b, c, d):
        got, ki, ii = {}, a, c
        while ii < d:
            if seq[ii].opcode == 'fusion':
                if ki >= b or not (fusion_like[ki] or copy[ki]):
                    return None
                got[ki] = seq[ii]
                ki, ii = ki + 1, ii + 1
                continue
            jj = ii
            while jj < d and seq[jj].opcode != 'fusion':
                jj += 1
            kj = ki
            while kj < b and not fusion_like[kj]:
                kj += 1
            calls = sum(1 for x in range(ki, kj) if not memset[x])
            if kj > ki and jj - ii > 1 and calls != jj - ii:
                return None
            t = ii
            for x in range(ki, kj):
                got[x] = seq[t]
                if not memset[x] and t + 1 < jj:
                    t += 1
            ii, ki = jj, kj
        return got if ki == b else None

    def take(got):
        for x, inst in got.items():
            out[x] = inst

    for k1, k2 in zip(anchors, anchors[1:]):
        if k1 + 1 < k2:
            got = parse(k1 + 1, k2, place[k1] + 1, place[k2])
            if got:
                take(got)
    if anchors and 0 < anchors[0] <= CB_EDGE_MAX:
        b, d = anchors[0], place[anchors[0]]
        for c in range(d - 1, -1, -1):
            if d - c > 2 * b + 2:
                break
            got = parse(0, b, c, d)
            if got:
                take(got)
                break
    if anchors and 0 < n - anchors[-1] - 1 <= CB_EDGE_MAX:
        a, c = anchors[-1] + 1, place[anchors[-1]] + 1
        for d in range(c + 1, len(seq) + 1):
            if d - c > 2 * (n - a) + 2:
                break
            got = parse(a, n, c, d)
            if got:
                take(got)
                break
    return [o if o is not None and o is not own[x] else None for x, o in enumerate(out)]


def cb_attrs(attrs, evs):
    """Rewrites the attributions of command buffer runs (consecutive
    kernels of one graph launch: same program, computation and
    correlation_id) whose places name other instructions."""
    run, key = [], None

    def flush():
        if not run:
            return
        prog, comp = key[0], key[1]
        names = [evs[x].name[:-3] if evs[x].name.endswith('.kd') else evs[x].name for x in run]
        for x, inst in zip(run, cb_resolve(prog, comp, names)):
            if inst is None:
                continue
            a = attrs[x]
            attrs[x] = (inst.name, prog.category(inst), 'kernel_order', a[3], a[4], prog, inst,
                        True, prog.in_entry(inst))
        run.clear()

    for x, a in enumerate(attrs):
        k = None
        if a[2] in ('kernel_name', 'unresolved') and a[5] is not None:
            comp = cb_computation(a[5], a[3])
            if comp is not None and a[5].seq.get(comp):
                k = (a[5], comp, as_int(evs[x].stat('correlation_id')), a[3])
        if k is None or (run and (k[0] is not key[0] or k[1:] != key[1:])):
            flush()
        if k is not None:
            key = k
            run.append(x)
    flush()


def hbm_of_breakdown(data):
    """HBM bytes of a MemoryAccessBreakdown (memory space 1); None: no entry."""
    if isinstance(data, str):
        data = data.encode('latin-1')

    def varint(b, i):
        v = shift = 0
        while True:
            if i >= len(b):
                raise ValueError
            c = b[i]
            i += 1
            v |= (c & 0x7f) << shift
            shift += 7
            if not c & 0x80:
                return v, i

    def fields(b):
        i = 0
        while i < len(b):
            tag, i = varint(b, i)
            f, t = tag >> 3, tag & 7
            if t == 0:
                v, i = varint(b, i)
            elif t == 2:
                n, i = varint(b, i)
                v = b[i:i + n]
                if len(v) != n:
                    raise ValueError
                i += n
            elif t == 1:
                v, i = b[i:i + 8], i + 8
            elif t == 5:
                v, i = b[i:i + 4], i + 4
            else:
                raise ValueError
            yield f, t, v
    try:
        hbm, n = 0, 0
        for f, t, v in fields(data):
            if f == 1 and t == 2:
                n += 1
                space = nbytes = 0
                for f2, t2, v2 in fields(v):
                    if f2 == 2 and t2 == 0:
                        space = v2
                    elif f2 == 3 and t2 == 0:
                        nbytes = v2
                if space == 1:
                    hbm += nbytes
        return hbm if n else None
    except ValueError:
        return None


def async_kind(name, cat):
    b = strip_suffix(name)
    if (len(b) > 6 and b.endswith('-start')) or (len(cat) > 6 and cat.endswith('-start')):
        return 'start'
    if (len(b) > 5 and b.endswith('-done')) or (len(cat) > 5 and cat.endswith('-done')):
        return 'done'
    return None


# Peak FLOP per SM (NVIDIA) or CU (AMD) per cycle: docs "Device peaks".
NVIDIA_SM = [(2000, 64), (3000, 384), (5000, 256), (6000, 256), (6010, 256), (7000, 1024),
             (7050, 1024), (8000, 2048), (8060, 1024), (8090, 1024), (9000, 4096),
             (10000, 8192)]
AMD_CU = {(9, 0): 1024, (9, 4): 2048, (9, 5): 4096}
# CHOICE C31: ROCm's memory_bandwidth is memory clock x bus width x 2 / 8;
# HBM3/HBM3E (gfx942, gfx950) move 4 bits per pin per clock, so their peak
# is twice the stat (MI300X: 2.66 TB/s in the profile, 5.3 TB/s real).
AMD_HBM_X = {(9, 4): 2, (9, 5): 2}


def device_peaks(plane):
    st = {}
    for k, v in plane.stats:
        st[k] = v
    num = lambda k: float(st[k]) if isinstance(st.get(k), (int, float)) else None  # noqa: E731
    pf = pb = None
    src = None
    tf, hbm = num('peak_teraflops_per_second'), num('peak_hbm_bw_gigabytes_per_second')
    if hbm and hbm > 0:
        pb = hbm * 1e9
    elif num('memory_bandwidth') and num('memory_bandwidth') > 0:
        pb = num('memory_bandwidth')
    clock, cores = num('clock_rate'), num('core_count')
    major, minor = as_int(st.get('compute_cap_major')), as_int(st.get('compute_cap_minor'))
    if not (hbm and hbm > 0) and pb and as_str(st.get('device_vendor')) == 'AMD':
        pb *= AMD_HBM_X.get((major, minor), 1)
    if tf and tf > 0:
        pf, src = tf * 1e12, 'profile'
    elif clock and clock > 0 and cores and cores > 0 and major is not None and minor is not None:
        if as_str(st.get('device_vendor')) == 'AMD':
            per = AMD_CU.get((major, minor))
            if per:
                pf, src = per * cores * clock * 1e3, 'amd'
        else:
            key = major * 1000 + minor * 10
            per = NVIDIA_SM[0][1]
            for cap, f in NVIDIA_SM:
                if cap <= key:
                    per = f
            pf, src = per * cores * clock * 1e3, 'sm table'
    model = as_str(st.get('device_type_string')) or as_str(st.get('gpu_device_name')) or ''
    return pf, pb, src, model


def union_length(intervals):
    total = 0
    cur_s = cur_e = None
    for s, e in sorted(intervals):
        if e <= s:
            continue
        if cur_e is None or s > cur_e:
            if cur_e is not None:
                total += cur_e - cur_s
            cur_s, cur_e = s, e
        elif e > cur_e:
            cur_e = e
    if cur_e is not None:
        total += cur_e - cur_s
    return total


def merged(intervals):
    """Sorted, disjoint [start, end) intervals covering the non-empty ones given."""
    out = []
    for s, e in sorted(intervals):
        if e <= s:
            continue
        if out and s <= out[-1][1]:
            if e > out[-1][1]:
                out[-1][1] = e
        else:
            out.append([s, e])
    return out


def overlap_length(a, b):
    """Length of the intersection of two sorted, disjoint interval lists."""
    total = 0
    i = j = 0
    while i < len(a) and j < len(b):
        lo = max(a[i][0], b[j][0])
        hi = min(a[i][1], b[j][1])
        if hi > lo:
            total += hi - lo
        if a[i][1] <= b[j][1]:
            i += 1
        else:
            j += 1
    return total


# ------------------------------------------------------------ analyses ----

class OpAcc:
    __slots__ = ('name', 'program', 'category', 'attr', 'parent', 'async_', 'occ', 'self_ps',
                 'total_ps', 'flops', 'bytes', 'hbm', 'n_flops', 'n_bytes', 'src', 'kernels',
                 'per_plane', 'pid', 'host_mem', 'host_copy')


def split_programs(hosts):
    """C43: the program names whose ops ran under several program ids."""
    seen = {}
    for h in hosts:
        for plane in h.planes:
            kind = device_kind(plane)
            for line in plane.lines:
                if kind == 'xla' and line.name == 'XLA Ops':
                    for ev in line.events:
                        pid = as_int(ev.stat('program_id'))
                        prog = program_of(h, ev, True)
                        if pid is not None and prog:
                            seen.setdefault(prog, set()).add(pid & U64)
                elif kind == 'gpu' and not is_derived(line):
                    for ev in line.events:
                        at = gpu_attr(h, ev, line)
                        pid = as_int(ev.stat('program_id'))
                        if pid is not None and at[2] != 'tf_op' and at[4]:
                            seen.setdefault(at[4], set()).add(pid & U64)
    return {p for p, ids in seen.items() if len(ids) > 1}


def analyse(hosts, origin):
    ops = {}
    split = split_programs(hosts)

    def label(prog, pid):
        # C43: one module compiled for several shapes is several programs
        if prog in split and pid is not None:
            return '%s(%d)' % (prog, pid & U64)
        return prog

    devices = []
    activity = []  # (start, end, category)
    kernels = {}
    all_runs = []  # per device: (its key, [(module, start, end)])
    dev_names = {}  # device key -> (plane name, host name)

    def op_of(program, name, category, attr, parent, asy):
        key = (program, name)
        a = ops.get(key)
        if a is None:
            a = OpAcc()
            a.name, a.program, a.category = name, program, category  # CHOICE C11
            a.attr, a.parent, a.async_ = attr, parent, asy
            a.occ = a.self_ps = a.total_ps = a.flops = a.bytes = a.hbm = 0
            a.n_flops = a.n_bytes = 0
            a.host_copy = None
            a.src = set()
            a.kernels = {}
            a.per_plane = {}
            a.pid = None
            a.host_mem = False
            ops[key] = a
        return a

    def add_occ(a, plane_key, self_ps, total_ps, flops, nbytes, hbm, src):
        a.occ += 1
        a.self_ps += self_ps
        a.total_ps += total_ps
        pp = a.per_plane.setdefault(plane_key, [0, 0, 0, 0, 0, 0, 0])
        # [occ, total, flops, bytes, hbm, n_flops, n_bytes]
        pp[0] += 1
        pp[1] += total_ps
        if flops is not None:
            a.flops += flops
            a.n_flops += 1
            pp[2] += flops
            pp[5] += 1
            a.src.add(src[0])
        if nbytes is not None:
            a.bytes += nbytes
            a.hbm += hbm
            a.n_bytes += 1
            pp[3] += nbytes
            pp[4] += hbm
            pp[6] += 1
            a.src.add(src[1])

    device_markers = []  # (id, start, end)
    facts = []           # per device row: (kind, host index, first, span, B, kernels)
    host_busy = {}       # host index -> the overview's host activity H, [(start, end)]
    plane_info = {}      # plane key -> (peak flops, peak bw, async spans)

    for h in hosts:
        calls = copy_calls(h)
        for pi, plane in enumerate(h.planes):
            kind = device_kind(plane)
            if kind is None:
                continue
            pkey = (h.index, pi)
            pf, pb, psrc, model = device_peaks(plane)
            asyncs = {}
            busy = span = 0
            no_ev = False  # no event on the device (C40)
            first = None
            runs = []
            bspans = []          # the overview's busy spans B
            kern = [0, 0, 0, 0]  # GPU: kernels, small kernels, their ps, small in command buffers
            if kind == 'xla':
                last = None
                for line in plane.lines:
                    if line.name == 'Async XLA Ops':
                        for ev in line.events:
                            pid = as_int(dict(ev.mstats).get('program_id'))
                            nm = ev.name[1:] if ev.name.startswith('%') else ev.name
                            nm = re.split(r'[ =]', nm, 1)[0]
                            if not nm:
                                continue
                            acc = asyncs.setdefault(((pid or 0) & U64, nm), [0, 0])
                            acc[0] += 1
                            acc[1] += ev.dur
                    if line.name == 'XLA Modules':
                        for ev in sorted(line.events, key=lambda e: (e.start, -e.dur, e.idx)):
                            m = MODULE_RE.match(ev.name)
                            runs.append((m.group(1) if m else ev.name, 0, ev.start, ev.end))
                    if line.name not in ('XLA Ops', 'Steps'):
                        continue
                    for ev in line.events:
                        first = ev.start if first is None else min(first, ev.start)
                        last = ev.end if last is None else max(last, ev.end)
                    if line.name != 'XLA Ops':
                        continue
                    for ev, depth, child in nest(line.events):
                        selfp = ev.dur - child
                        busy += selfp
                        name = ev.display or ev.name
                        cat = as_str(ev.stat('hlo_category'))
                        if cat is None:
                            cat = strip_suffix(name)
                        prog = label(program_of(h, ev, True), as_int(ev.stat('program_id')))
                        a = op_of(prog, name, cat, 'xla_op', '', async_kind(name, cat))
                        if a.occ == 0:
                            # C21: an operand or result in host memory (S(5))
                            a.host_mem = re.search(r'S\(5\)[}SPM]', ev.name) is not None
                            if a.host_mem:  # C38
                                a.host_copy = {H2D: 'to_device', D2H: 'to_host'}.get(
                                    device_category(name, cat, ev.name, line.name, True))
                        if a.pid is None:
                            a.pid = (as_int(ev.stat('program_id')) or 0) & U64
                        fl = ev.stat('flops')
                        by = ev.stat('bytes_accessed')
                        fl = float(fl) if isinstance(fl, (int, float)) else None
                        by = float(by) if isinstance(by, (int, float)) else None
                        hbm = by
                        bd = ev.stat('memory_access_breakdown')
                        if by is not None and isinstance(bd, (bytes, str)):
                            hb = hbm_of_breakdown(bd)
                            if hb is not None:
                                hbm = float(hb)
                        add_occ(a, pkey, selfp, ev.dur, fl, by, hbm, ('profile', 'profile'))
                        if depth == 0 and ev.dur > 0:
                            activity.append((ev.start, ev.end,
                                             device_category(name, cat, ev.name, line.name,
                                                             True), pkey))
                            bspans.append((ev.start, ev.end))
                if first is not None:
                    span = last - first
                no_ev = first is None
            elif kind == 'gpu':
                spans = []
                for line in plane.lines:
                    if is_derived(line):
                        continue
                    # Line order: start, longer first, file order.
                    evs = sorted(line.events, key=lambda e: (e.start, -e.dur, e.idx))
                    attrs = [gpu_attr(h, ev, line) for ev in evs]
                    cb_attrs(attrs, evs)
                    dirs = [blit_dir(calls, ev) for ev in evs]
                    for i, d in enumerate(dirs):
                        if (d is not None and attrs[i][2] == 'event_name'
                                and not as_str(evs[i].stat('hlo_module'))
                                and as_int(evs[i].stat('program_id')) is None):
                            attrs[i] = (BLIT_OP[d], 'memcpy', 'copy_call', '', '', None, None,
                                        False, True)
                    prev = None
                    first_kernel = None
                    lruns = []
                    for ev, at, bd in zip(evs, attrs, dirs):
                        spans.append((ev.start, ev.end))
                        (name, cat, attr, parent, prog, pobj, inst, from_hlo,
                         in_entry) = at
                        if attr != 'tf_op':
                            prog = label(prog, as_int(ev.stat('program_id')))
                        gid = as_int(ev.stat('group_id'))
                        a = op_of(prog, name, cat, attr, parent, None)
                        # CHOICE C10: a fusion's consecutive kernels are one occurrence
                        # (same program id too: two programs are two runs).
                        pidk = as_int(ev.stat('program_id')) if attr != 'tf_op' else None
                        key = (pidk, prog, name, gid) if from_hlo else None
                        # The program this kernel runs (CHOICE C20, below).
                        modname = as_str(ev.stat('hlo_module')) if attr != 'tf_op' else None
                        pidv = as_int(ev.stat('program_id')) if attr != 'tf_op' else None
                        if modname:
                            # One module compiled for several shapes is several
                            # programs: their back-to-back runs are two runs.
                            ident = (modname, pidv if pidv is not None else 0)
                        elif pidv is not None:
                            ident = ('', pidv)
                        else:
                            ident = None
                        slot = (pidk, prog, name, cat)
                        # C10: an op of the entry computation that did not open
                        # the current run of its program runs once in it.
                        within = (in_entry and inst is not None and ident is not None and lruns and
                                  lruns[-1][0] == ident and lruns[-1][3] != slot)
                        if key is not None and prev == key and (ev.name != first_kernel or within):
                            a.total_ps += ev.dur
                            a.self_ps += ev.dur
                            a.per_plane[pkey][1] += ev.dur
                        else:
                            first_kernel = ev.name
                            fl = ev.stat('flops')
                            by = ev.stat('bytes_accessed')
                            fsrc = bsrc = 'profile'
                            fl = float(fl) if isinstance(fl, (int, float)) else None
                            by = float(by) if isinstance(by, (int, float)) else None
                            if fl is None and inst is not None and inst.flops is not None:
                                fl, fsrc = float(inst.flops), 'hlo_cost_model'
                            if by is None and inst is not None and inst.bytes is not None \
                                    and inst.bytes >= 0:
                                by, bsrc = float(inst.bytes), 'hlo_cost_model'
                            add_occ(a, pkey, ev.dur, ev.dur, fl, by, by, (fsrc, bsrc))
                        prev = key
                        k = a.kernels.setdefault(ev.name, [0, 0])
                        k[0] += 1
                        k[1] += ev.dur
                        # Program runs (CHOICE C20): restart on the run's first op.
                        if ident is not None:
                            restarts = in_entry and attr not in ('tf_op', 'event_name')
                            r = lruns[-1] if lruns else None
                            again = r and r[0] == ident and restarts and slot == r[3]
                            if r and r[0] == ident and not (again and (r[4] or ev.name == r[6])):
                                r[2] = max(r[2], ev.end)
                                if slot != r[3]:
                                    r[4] = True
                                r[5] = r[5] or restarts
                            else:
                                # A one-op program: its first kernel again is a
                                # new run (split), undone below where the
                                # program ran other ops on this line.
                                lruns.append([ident, ev.start, ev.end, slot, False, restarts,
                                              ev.name, bool(again and not r[4])])
                        if ev.dur > 0:
                            dc = device_category(name, cat, ev.name, line.name)
                            if bd is not None:
                                dc = bd if bd != D2D else DEVICE_COMPUTE
                            activity.append((ev.start, ev.end, dc, pkey))
                            bspans.append((ev.start, ev.end))
                            # C23: a memset (CUPTI's own activity, no
                            # kernel_details) is not a kernel either.
                            if bd is None and not is_copy(name, cat, ev.name, line.name) \
                                    and not ev.name.startswith('Memset'):
                                kern[0] += 1
                                if ev.dur < SMALL_KERNEL_PS:
                                    kern[1] += 1
                                    kern[2] += ev.dur
                                    # C26: a command buffer launches its kernels
                                    # as one graph (an hlo_op the module lacks
                                    # is no proof of one; its name is).
                                    pi = pobj.by_name.get(parent) if pobj and parent else None
                                    kern[3] += 1 if parent and (
                                        pobj.is_command_buffer(pi) if pi is not None
                                        else is_command_buffer_name(parent)) else 0
                            kd = as_str(ev.stat('kernel_details'))
                            if kd is not None:
                                add_kernel(kernels, ev, name, kd, prog)
                    multi = set(r[0] for r in lruns if r[4])
                    joined = []
                    for r in lruns:
                        if r[7] and joined and r[0] in multi:
                            joined[-1][2] = max(joined[-1][2], r[2])
                            joined[-1][4] = joined[-1][4] or r[4]
                            joined[-1][5] = joined[-1][5] or r[5]
                        else:
                            joined.append(r)
                    runs.extend((r[0][0], r[0][1], r[1], r[2], r[5]) for r in joined)
                no_ev = not spans
                if spans:
                    span = max(e for s, e in spans) - min(s for s, e in spans)
                    first = min(s for s, e in spans)
                    busy = union_length(spans)
                # CHOICE C33: a stretch made only of in-loop ops counts only for a
                # program with no stretch holding an entry op.
                with_entry = {(r[0], r[1]) for r in runs if r[4]}
                runs = [r[:4] for r in runs if r[4] or (r[0], r[1]) not in with_entry]
                # Overlapping stretches of one program on several streams: one run.
                runs.sort(key=lambda r: r[2])
                merged = []
                for r in runs:
                    if merged and merged[-1][0] == r[0] and merged[-1][1] == r[1] and \
                            r[2] < merged[-1][3]:
                        merged[-1][3] = max(merged[-1][3], r[3])
                    else:
                        merged.append(list(r))
                runs = merged
            if kind in ('xla', 'gpu'):
                all_runs.append((pkey, [(r[0], r[2], r[3]) for r in runs]))
            plane_info[pkey] = (pf, pb, asyncs)
            dev_names[pkey] = (plane.name, h.name)
            idle = 100.0 * (1.0 - busy / span) if span > 0 else None  # CHOICE C12
            devices.append({'host': h.name, 'name': plane.name, 'busy_ps': busy,
                            'span_ps': span, 'idle_percent': idle, 'no_events': no_ev,
                            'start_ps': (first - origin) if span else None,
                            'peak_flops_per_s': pf, 'peak_hbm_bytes_per_s': pb,
                            'model': model,
                            # C26: the time the program runs span (launch_bound)
                            'run_ps': union_length([(r[2], r[3]) for r in runs])
                            if kind in ('xla', 'gpu') and runs else None})
            facts.append((kind, h.index, first if span else None, span, bspans, kern))
            for line in plane.lines:
                if line.name != 'Steps':
                    continue
                for i, ev in enumerate(sorted(line.events, key=lambda e: e.start)):
                    sid = as_int(ev.stat('group_id'))
                    if sid is None:
                        sid = as_int(ev.stat('step_num'))
                    if sid is None:
                        sid = i
                    device_markers.append((sid, ev.start, ev.end, pkey))

    # Host step markers and host activity.
    host_markers = []
    for h in hosts:
        for plane in h.planes:
            if plane.name != '/host:CPU':
                continue
            for line in plane.lines:
                for ev in line.events:
                    mk = host_marker(ev)
                    if mk is not False:
                        if mk is not None:
                            host_markers.append((mk, ev.start, ev.end, None))
                        continue  # CHOICE C14: markers never count as host compute
                    if ev.name.startswith('$'):
                        continue  # C14: a Python tracer frame
                    if ev.dur > 0:
                        activity.append((ev.start, ev.end, HOST_COMPUTE, ('host', h.index)))
                        host_busy.setdefault(h.index, []).append((ev.start, ev.end))

    device_overview(devices, facts, host_busy, origin)
    markers = device_markers if device_markers else host_markers  # CHOICE C13
    source = 'device' if device_markers else 'host' if host_markers else 'none'
    module = None
    if not markers:
        markers, module = infer_steps(all_runs)
        if markers:
            source = 'inferred'
    steps = build_steps(markers, activity, origin, dev_names)

    ops_list = sorted(ops.values(), key=lambda a: (-a.self_ps, -a.total_ps, a.name, a.program))
    # C34: an op's percent is of all ops' self time (the column adds up to
    # 100 %; device busy, a union of concurrent streams, would not).
    self_total = sum(a.self_ps for a in ops_list)
    ops_out = [op_row(a, plane_info, self_total) for a in ops_list]
    krows = sorted(kernels.values(),
                   key=lambda k: (-k['total_ps'], k['name'], k['op'], k['grid'], k['block']))
    return ops_out, devices, steps, source, module, krows


MAX_FLOPS, MAX_BW = 5e15, 50e12


def op_row(a, plane_info, self_total):
    """CHOICE C21 (docs "FLOP rate, bandwidth and roofline")."""
    has_f = a.occ > 0 and a.n_flops == a.occ
    has_b = a.occ > 0 and a.n_bytes == a.occ
    ps = rocc = 0
    fl = by = hb = 0.0
    f_unknown = b_unknown = unmeasured = False
    fpeak = bpeak = 0.0
    fpeak_ps = bpeak_ps = 0
    for pkey, (occ, total, pfl, pby, phb, nf, nb) in a.per_plane.items():
        pf, pb, asyncs = plane_info[pkey]
        if a.async_ == 'done':
            unmeasured = True
            continue
        if a.async_ == 'start':
            # The program id of an XLA op's metadata keys its async spans.
            sp = asyncs.get(((a.pid or 0) & U64, a.name))
            if sp is None or sp[0] != occ:
                unmeasured = True
                continue
            t = sp[1]
        else:
            t = total
        ps += t
        rocc += occ
        if nf == occ:
            fl += pfl
        else:
            f_unknown = True
        if nb == occ:
            by += pby
            hb += phb
        else:
            b_unknown = True
        if pf is not None:
            fpeak += t * pf
            fpeak_ps += t
        if pb is not None:
            bpeak += t * pb
            bpeak_ps += t
    r = {'name': a.name, 'program': a.program, 'category': a.category,
         'attribution': a.attr, 'parent': a.parent, 'occurrences': a.occ,
         'self_ps': a.self_ps, 'total_ps': a.total_ps,
         'flops': a.flops if has_f else None,
         'bytes_accessed': a.bytes if has_b else None,
         'hbm_bytes': a.hbm if has_b else None,
         'async': a.async_, 'host_copy': a.host_copy, 'rate_ps': ps if ps > 0 else None,
         'rate_occurrences': rocc if ps > 0 else None,
         'kernels': sorted(({'name': k, 'occurrences': v[0], 'total_ps': v[1]}
                            for k, v in a.kernels.items()),
                           key=lambda k: (-k['total_ps'], k['name']))}
    src = set()
    if has_f or has_b:
        src = a.src
    r['flops_source'] = ('profile+hlo_cost_model' if len(src) == 2 else
                         next(iter(src)) if src else None)
    fr = br = hr = fu = hu = None
    note = None
    bound = 'unknown'
    # no HBM intensity for a host offload, timed or not (a copy-done's 0)
    intensity = a.flops / a.hbm if has_f and has_b and a.hbm > 0 and not a.host_mem else None
    if ps <= 0:
        if a.async_ == 'done':
            note = 'async done'
        elif unmeasured:
            note = 'async start'
        elif (has_f and not f_unknown) or (has_b and not b_unknown):
            note = 'no duration'
    else:
        sec = ps * 1e-12
        if has_f and not f_unknown:
            fr = fl / sec
            if fpeak_ps == ps and fpeak > 0:
                fu = fl / (fpeak * 1e-12)
        if has_b and not b_unknown:
            br = by / sec
            hr = hb / sec
            if bpeak_ps == ps and bpeak > 0:
                hu = hb / (bpeak * 1e-12)
        # C42: the bound is the larger share before any is dropped (the
        # time cancels out); the intensity stays (FLOPs over HBM bytes).
        bound = ('compute' if fu >= hu else 'memory') \
            if fu is not None and hu is not None and not a.host_mem else 'unknown'
        if fr is not None and (fr > MAX_FLOPS if fu is None else fu > 1):
            fr = fu = None
            note = 'flops above peak'
        if hr is not None and (hr > MAX_BW if hu is None else hu > 1):
            hr = hu = None
            note = 'flops and bandwidth above peak' if note else 'bandwidth above peak'
        if br is not None and (br > MAX_BW or (a.hbm == a.bytes and hr is None)):
            br = None
            note = note or 'bandwidth above any memory'
        if a.host_mem and hr is not None:
            hr = hu = intensity = None
            note = note or 'host memory'
    if note is None and None in (fr, br, hr, fu, hu):
        note = 'counts or peak unknown'  # C37: every absent figure says why
    r.update({'flops_per_s': fr, 'bytes_per_s': br, 'hbm_bytes_per_s': hr,
              'flops_utilization': fu, 'hbm_bw_utilization': hu,
              'arithmetic_intensity': intensity,
              'bound_by': bound,
              'rate_note': note,
              'percent': 100.0 * a.self_ps / self_total if self_total > 0 else 0.0})
    return r


def infer_steps(all_runs):
    """CHOICE C20: steps from the runs of the module with most device time
    among those run at least twice on some device; step k on a device is its
    k-th run's start to its next run's start (the last run is no step)."""
    best, best_t, best_n = None, -1, 0
    names = []
    for _, runs in all_runs:
        for m, s, e in runs:
            if m and m not in names:
                names.append(m)
    for m in names:
        t = sum(e - s for _, runs in all_runs for mm, s, e in runs if mm == m)
        most = max(sum(1 for mm, s, e in runs if mm == m) for _, runs in all_runs)
        if most >= 2 and (t > best_t or (t == best_t and (len(m), m.encode()) <
                                          (len(best), best.encode()))):
            best, best_t, best_n = m, t, most
    if best is None:
        return [], None
    markers = []
    for k in range(best_n - 1):
        for dev, runs in all_runs:
            mine = [rs for mm, rs, re_ in runs if mm == best]
            if k + 1 < len(mine):
                markers.append((k, mine[k], mine[k + 1], dev))
    return markers, best


HOST_SPACE_RE = re.compile(r'S\(5\)[}SPM]')
HLO_HEAD_RE = re.compile(r'= (.*?) ([A-Za-z][\w-]*)\(', re.S)


def host_copy_kind(rawname):
    """CHOICE C38: H2D | D2H | None for an op's HLO text."""
    if not rawname or not HOST_SPACE_RE.search(rawname):
        return None
    m = HLO_HEAD_RE.search(rawname)
    if m is None:
        return None
    result, opcode = m.group(1), m.group(2)
    depth, j = 0, m.end() - 1
    for j in range(m.end() - 1, len(rawname)):
        depth += {'(': 1, ')': -1}.get(rawname[j], 0)
        if depth == 0:
            break
    args = rawname[m.end() - 1:j + 1]
    in_res = HOST_SPACE_RE.search(result) is not None
    in_args = HOST_SPACE_RE.search(args) is not None
    if opcode == 'copy-start':
        return H2D if in_args else D2H if in_res else None
    if opcode in ('copy-done', 'dynamic-update-slice'):
        return D2H if in_res else H2D if in_args else None
    if in_res and not in_args:
        return D2H
    if in_args and not in_res:
        return H2D
    return None


def device_category(name, cat, rawname, linename, xla=False):
    if is_collective(name, cat):  # CHOICE C9
        return COLLECTIVES
    ism, kind = memcpy_kind(name, rawname, linename)
    if kind is not None:
        return kind
    if xla and not ism:
        kind = host_copy_kind(rawname)
        if kind is not None:
            return kind
    return DEVICE_COMPUTE


def decode_traceme(name):
    """`name#k=v,k2=v2#` -> [(k, v)] (None when the name is not encoded)."""
    if not name.endswith('#'):
        return None
    body = name[:-1]
    parts = body.split('#', 1)
    if len(parts) < 2:
        return None
    out = []
    for pair in parts[1].split(','):
        if '=' not in pair:
            continue
        k, v = pair.split('=', 1)
        k, v = k.strip(), v.strip()
        if k and v:
            out.append((k, v))
    return out


def host_marker(ev):
    """False: not a marker.  None: a marker without a usable id.  int: its id."""
    dec = decode_traceme(ev.name)
    is_m = False
    if ev.has('step_num', dec):
        is_m = True
    elif dec is not None and any(k == 'step_num' for k, v in dec):
        is_m = True
    elif ev.has('_r', dec) and ev.has('group_id', dec):
        is_m = True
    if not is_m:
        return False
    sid = as_int(ev.stat('step_num', dec))
    if sid is None:
        sid = as_int(ev.stat('group_id', dec))
    return sid


def paint(activity):
    """Disjoint segments of the timeline, each with the winning category."""
    pts = []
    for s, e, c in activity:
        if e > s:
            pts.append((s, 1, c))
            pts.append((e, -1, c))
    pts.sort()
    counts = [0] * 6
    seg_s, seg_e, seg_c = [], [], []
    prev = None
    i = 0
    n = len(pts)
    while i < n:
        t = pts[i][0]
        if prev is not None and t > prev:
            top = 0
            for c in (5, 4, 3, 2, 1):
                if counts[c] > 0:
                    top = c
                    break
            if top:
                if seg_e and seg_e[-1] == prev and seg_c[-1] == top:
                    seg_e[-1] = t
                else:
                    seg_s.append(prev)
                    seg_e.append(t)
                    seg_c.append(top)
        while i < n and pts[i][0] == t:
            counts[pts[i][2]] += pts[i][1]
            i += 1
        prev = t
    return seg_s, seg_e, seg_c


def build_steps(markers, activity, origin, dev_names):
    """CHOICE C13: a step is the longest of its markers; its breakdown is
    of the activity of that marker's device (owner) and of that device's
    host, or of everything for a host marker (owner None)."""
    if not markers:
        return []
    byid = {}
    for sid, s, e, dev in markers:
        a = byid.get(sid)
        if a is None or e - s > a[1] - a[0] or (e - s == a[1] - a[0] and s < a[0]):
            byid[sid] = [s, e, dev]
    painted = {}
    out = []
    for sid, (s, e, dev) in byid.items():
        if dev not in painted:
            mine = [(a, b, c) for a, b, c, o in activity
                    if dev is None or o == dev or o == ('host', dev[0])]
            painted[dev] = paint(mine)
        seg_s, seg_e, seg_c = painted[dev]
        row = {'id': sid, 'start_ps': s - origin, 'duration_ps': e - s,
               'device': dev_names[dev][0] if dev else None,
               'device_host': dev_names[dev][1] if dev else None}
        acc = {c: 0 for c in CAT_FIELD}
        j = bisect.bisect_right(seg_e, s)
        while j < len(seg_s) and seg_s[j] < e:
            lo = max(seg_s[j], s)
            hi = min(seg_e[j], e)
            if hi > lo:
                acc[seg_c[j]] += hi - lo
            j += 1
        covered = 0
        for c, f in CAT_FIELD.items():
            row[f] = acc[c]
            covered += acc[c]
        row['idle_ps'] = (e - s) - covered
        out.append(row)
    out.sort(key=lambda r: (r['start_ps'], r['id']))
    return out


def parse_dims(v):
    dims = [1, 1, 1]
    for i, p in enumerate(v.split(',')[:3]):
        try:
            dims[i] = int(p)
        except ValueError:
            pass
    return dims


def add_kernel(kernels, ev, opname, details, prog):
    kv = {}
    for tok in details.split():
        if ':' in tok:
            k, v = tok.split(':', 1)
            kv[k] = v

    def num(k, conv=int):
        if k not in kv:
            return None
        try:
            return conv(kv[k])
        except ValueError:
            return None
    regs = num('regs')
    garbage = regs is not None and (regs > 512 or regs < 0)
    if regs is None or garbage:  # CHOICE C16: garbage counts are absent
        regs = None
    static = 'static_shared' if 'static_shared' in kv else 'shm'
    if static in kv and 'dynamic_shared' in kv:
        st, dyn = num(static) or 0, num('dynamic_shared') or 0
        shared = st + dyn if 0 <= st <= 1 << 20 and 0 <= dyn <= 1 << 20 else None
    elif 'group_mem' in kv:
        shared = num('group_mem') or 0
    else:
        shared = None  # CHOICE C16: a part alone (TF's shm) is no total
    if garbage and (static in kv or 'dynamic_shared' in kv):
        shared = None  # a pointer's halves: the part beside it is garbage too
    if shared is not None and not 0 <= shared <= 1 << 20:
        shared = None
    occ = num('occ_pct', float)
    if occ is not None and not (0 < occ <= 100):
        occ = None  # CHOICE C16: a kernel that ran had some occupancy
    grid = parse_dims(kv['grid']) if 'grid' in kv else [1, 1, 1]
    block = parse_dims(kv['block']) if 'block' in kv else [1, 1, 1]
    # Ops of one name in several programs are several rows.
    key = (ev.name, opname, prog or '', tuple(grid), tuple(block), regs, shared)
    k = kernels.get(key)
    if k is None:
        k = {'name': ev.name, 'op': opname, 'program': prog or '', 'grid': grid, 'block': block,
             'registers': regs, 'shared_bytes': shared, 'occupancy_percent': occ,
             'occurrences': 0, 'total_ps': 0, 'min_ps': ev.dur, 'max_ps': ev.dur}
        kernels[key] = k
    k['occurrences'] += 1
    k['total_ps'] += ev.dur
    k['min_ps'] = min(k['min_ps'], ev.dur)
    k['max_ps'] = max(k['max_ps'], ev.dur)


def allocator_of(ev):
    name = ev.stat('allocator_name')
    if name is not None:
        return as_str(name)
    found = None
    for lst in (ev.stats, ev.mstats):  # CHOICE C15: last one on the event wins
        for k, v in lst:
            if k in ('index_on_host', 'device_ordinal'):
                iv = as_int(v)
                found = str(iv) if iv is not None else as_str(v)
        if found is not None:
            return found
    return None


def allocator_label(h, key):
    """CHOICE C22: a readable allocator name."""
    if key and key.isdigit():
        for kind in ('TPU', 'GPU'):
            if any(p.name == '/device:%s:%s' % (kind, key) for p in h.planes):
                return '%s:%s HBM' % (kind, key)
        return 'device ' + key
    m = re.match(r'^GPU_([0-9]+)_bfc$', key)
    if m:
        return 'GPU:%s HBM' % m.group(1)
    if 'host_bfc' in key:
        return 'host pinned'
    return key


def memory(hosts, origin):
    out = []
    for h in hosts:
        per = {}
        for plane in h.planes:
            if plane.name != '/host:CPU':
                continue
            for line in plane.lines:
                for ev in line.events:
                    if ev.name not in ('MemoryAllocation', 'MemoryDeallocation'):
                        continue
                    alloc = allocator_of(ev)
                    if alloc is None:
                        continue
                    per.setdefault(alloc, []).append(ev)
        for alloc in sorted(per):
            evs = sorted(per[alloc], key=lambda e: (e.start, e.line.index, e.idx))
            peak = -1
            peak_t = 0
            cap = 0
            reserved = 0
            live = {}
            seq = 0
            peak_live = []
            lifetime = 0
            for ev in evs:
                res = as_int(ev.stat('bytes_reserved')) or 0
                alc = as_int(ev.stat('bytes_allocated')) or 0
                avail = as_int(ev.stat('bytes_available')) or 0
                lifetime = max(lifetime, as_int(ev.stat('peak_bytes_in_use')) or 0)
                addr = as_int(ev.stat('addr'))
                if addr is not None:
                    if ev.name == 'MemoryAllocation':
                        b = as_int(ev.stat('allocation_bytes'))
                        if b is None:
                            b = as_int(ev.stat('requested_bytes')) or 0
                        # Missing text is null; so is the literal "(null)"
                        # the MI300X conv profile writes for it.
                        op, sh = as_str(ev.stat('tf_op')), as_str(ev.stat('shape'))
                        live[addr] = (b, seq, op if op and op != '(null)' else None,
                                      sh if sh and sh != '(null)' else None, ev.start)
                        seq += 1
                    else:
                        live.pop(addr, None)
                inuse = res + alc
                if inuse >= peak:
                    peak = inuse
                    peak_t = ev.start
                    cap = res + alc + avail
                    reserved = res
                    peak_live = list(live.values())
            peak = max(peak, 0)
            peak_live.sort(key=lambda x: (-x[0], x[1]))
            attributed = sum(x[0] for x in peak_live)
            listed = sum(x[0] for x in peak_live[:10])
            if attributed > peak:
                over = attributed - peak
                other = max(attributed - listed - over, 0)
                unattr = max(peak - listed - other, 0)
            else:
                other = attributed - listed
                unattr = peak - attributed
            out.append({'host': h.name, 'allocator': alloc, 'name': allocator_label(h, alloc),
                        'peak_bytes': peak, 'peak_time_ps': peak_t - origin,
                        'reserved_bytes': reserved, 'live_other_bytes': other,
                        'unattributed_bytes': unattr, 'live_count': len(peak_live),
                        'lifetime_peak_bytes': max(lifetime, peak),
                        'allocator_lifetime_peak_bytes': lifetime,
                        'capacity_bytes': cap,
                        'live_at_peak': [{'bytes': b, 'op': op, 'shape': sh, 'time_ps': t - origin}
                                         for b, _, op, sh, t in peak_live[:10]]})
    out.sort(key=lambda m: (m['host'], m['allocator']))
    return out


# ------------------------------------------------------------ overview ----

SMALL_KERNEL_PS = 10 * 1000 * 1000       # 10 us
GAP_1MS_PS = 1000 * 1000 * 1000          # 1 ms
COMPILE_NAMES = {'backend_compile', 'compile_or_get_cached'}
COMPILE_SUFFIXES = ('::Compile', '::RunBackend', '::RunHloPasses')
OVERVIEW_DEVICE_FIELDS = ('host_bound_ps', 'longest_gap_ps', 'longest_gap_start_ps',
                          'gaps_over_1ms', 'kernels', 'small_kernels', 'small_kernel_ps')


def is_copy(name, cat, rawname, linename):
    """CHOICE C23: a copy for the kernel count is what the step breakdown
    files as a copy: the memcpy rule (C8) on (op-profile name, event-metadata
    name, line name), after the collective rule (C9) on (op name, category),
    so a collective is never a copy."""
    if is_collective(name, cat):
        return False
    return memcpy_kind(name, rawname, linename)[0]


def device_overview(devices, facts, host_busy, origin):
    """docs "Overview", per device: gaps in the span not covered by the busy
    spans B, the host activity H inside them, and (GPU) the kernel counts."""
    hmerged = {hi: merged(iv) for hi, iv in host_busy.items()}
    for d, (kind, hi, first, span, bspans, kern) in zip(devices, facts):
        for k in OVERVIEW_DEVICE_FIELDS:
            d[k] = None
        if kind in ('xla', 'gpu'):
            d['_host_known'] = bool(hmerged.get(hi))  # C44
        if kind not in ('xla', 'gpu'):
            continue
        gaps = []
        if first is not None and span > 0:
            cur, end = first, first + span
            for s, e in merged(bspans):
                if s > cur:
                    gaps.append([cur, min(s, end)])
                cur = max(cur, e)
                if cur >= end:
                    break
            if cur < end:
                gaps.append([cur, end])
        longest, longest_at, over = 0, None, 0
        for s, e in gaps:
            if e - s > longest:          # the earliest of equal ones
                longest, longest_at = e - s, s
            if e - s >= GAP_1MS_PS:
                over += 1
        if span > 0:  # CHOICE C24: no span, no idle time to measure (null)
            # C44: a host with no activity (its tracer off): unknown.
            d['host_bound_ps'] = (overlap_length(gaps, hmerged[hi]) if hmerged.get(hi)
                                  else None)
            d['longest_gap_ps'] = longest
            d['gaps_over_1ms'] = over
        # CHOICE C24: no gap, no start (null), not 0.
        d['longest_gap_start_ps'] = longest_at - origin if longest_at is not None else None
        if kind == 'gpu':
            d['kernels'], d['small_kernels'], d['small_kernel_ps'], d['small_cb'] = kern


def is_compile_name(n):
    return (n in COMPILE_NAMES or n.endswith(COMPILE_SUFFIXES) or 'XlaCompile' in n)


def compile_stats(hosts):
    """CHOICE C25: compilation events are matched on the event-metadata name
    as stored, on every line of /host:CPU (the `python` line too), and, as
    everywhere in the overview, only events with duration > 0 count.
    compile_ps: per host the union of their spans.  compiles: the events no
    other compilation event of their line contains; with equal spans the
    first in C5's order contains the others."""
    total = count = 0
    for h in hosts:
        spans = []
        for plane in h.planes:
            if plane.name != '/host:CPU':
                continue
            for line in plane.lines:
                evs = [ev for ev in line.events if ev.dur > 0 and is_compile_name(ev.name)]
                evs.sort(key=lambda e: (e.start, -e.end, e.idx))
                reach = None       # the latest end of the events before, all starting earlier
                for ev in evs:
                    if reach is None or reach < ev.end:
                        count += 1
                    reach = ev.end if reach is None else max(reach, ev.end)
                    spans.append((ev.start, ev.end))
        total += union_length(spans)
    return total, count


def nearest_rank(sorted_vals, p):
    """The smallest value with at least p % of the values at or below it."""
    n = len(sorted_vals)
    k = max((p * n + 99) // 100, 1)
    return sorted_vals[k - 1]


def pct(part, whole):
    return 100.0 * part / whole


def overview(hosts, devices, ops, steps):
    """docs "Overview": the overall numbers and the findings.

    CHOICE C26: thresholds are compared exactly on the integers they rest on
    (idle >= 10 %: 10 (span - busy) >= span; small kernels >= 50 %:
    2 small >= kernels; op percent >= 50: 2 self >= summed busy; and so on),
    never on a rounded percentage.  Ties (host-bound device, idle_gaps
    device) go to the first in device order.
    CHOICE C27: host_bound_device is null when no device was host-bound
    (the largest host_bound_ps is 0), as well as when there are no devices;
    host_bound_ps is null when no device has a span for idle time.
    CHOICE C28: percentages over a zero total are null (collective_percent
    without device busy time, h2d_in_steps_percent without steps or when
    the steps sum to 0; h2d/d2h_in_steps_ps null without steps); dominant_op needs summed busy time > 0."""
    ov = {}
    durs = sorted(r['duration_ps'] for r in steps)
    if durs:
        ov['steps'] = {'count': len(durs), 'mean_ps': sum(durs) / len(durs),
                       'p50_ps': nearest_rank(durs, 50), 'p95_ps': nearest_rank(durs, 95),
                       'min_ps': durs[0], 'max_ps': durs[-1]}
    else:
        ov['steps'] = None
    # A device that computes first (a GPU that ran no kernel only copies),
    # as for idle_gaps.
    best, best_rank = None, None
    for d in devices:
        if not d.get('host_bound_ps'):
            continue
        rank = (d.get('kernels') != 0, d['host_bound_ps'])
        if best is None or rank > best_rank:
            best, best_rank = d, rank
    gaps = any(d.get('host_bound_ps') is not None and (d.get('span_ps') or 0) > 0
               for d in devices)
    ov['host_bound_ps'] = best['host_bound_ps'] if best else (0 if gaps else None)
    ov['host_bound_device'] = best['name'] if best and best['host_bound_ps'] > 0 else None
    ov['host_bound_host'] = best['host'] if best and best['host_bound_ps'] > 0 else None
    ov['compile_ps'], ov['compiles'] = compile_stats(hosts)
    busy_total = sum(d['busy_ps'] for d in devices)
    coll = [o for o in ops if is_collective(o['name'], o['category'])]
    coll_ps = sum(o['self_ps'] for o in coll)
    ov['collective_ps'] = coll_ps
    ov['collective_percent'] = pct(coll_ps, busy_total) if busy_total > 0 else None
    h2d = sum(r['host_to_device_ps'] for r in steps)
    step_total = sum(durs)
    ov['h2d_in_steps_ps'] = h2d if steps else None
    ov['h2d_in_steps_percent'] = pct(h2d, step_total) if step_total > 0 else None
    d2h = sum(r['device_to_host_ps'] for r in steps)
    ov['d2h_in_steps_ps'] = d2h if steps else None
    ov['d2h_in_steps_percent'] = pct(d2h, step_total) if step_total > 0 else None
    ov['top_ops'] = [{'name': o['name'], 'program': o['program'], 'self_ps': o['self_ps'],
                      'percent': o['percent']} for o in ops[:5]]

    findings = []

    def add(fid, text, numbers):
        findings.append({'id': fid, 'text': text, 'numbers': numbers})

    for d in devices:
        k, n = d.get('kernels'), d.get('small_kernels')
        if k is None or d['span_ps'] is None or d['span_ps'] <= 0:
            continue
        # C26: the idle within the programs' runs (the time between runs is
        # the host's loop), or, without runs, of the span
        inside = d['run_ps'] if d.get('run_ps') else d['span_ps']
        idle = inside - d['busy_ps']
        if k < 100 or 2 * (n - d['small_cb']) < k or idle < 0 or 5 * idle < inside:
            continue
        extra = {'run_idle_percent': 100.0 * idle / inside} if d.get('run_ps') else {}
        add('launch_bound',
            '%s ran %d kernels, %d of them under 10 us (%.3f ms in all), and sat idle %.1f %% '
            'of its span: kernel launches, not the kernels, set the pace.'
            % (d['name'], k, n, d['small_kernel_ps'] / 1e9, d['idle_percent']),
            {'host': d['host'], 'device': d['name'], 'kernels': k, 'small_kernels': n,
             'small_kernels_in_command_buffers': d['small_cb'],
             'small_kernel_ps': d['small_kernel_ps'], 'idle_percent': d['idle_percent'],
             **extra})
        break
    worst, worst_rank = None, None
    for d in devices:
        if d.get('longest_gap_ps') is None or d['span_ps'] <= 0:
            continue
        idle = d['span_ps'] - d['busy_ps']
        # A GPU that ran no kernel (copies only) only when no computing device is idle enough.
        rank = (d.get('kernels') != 0, idle)
        if 10 * idle >= d['span_ps'] and (worst is None or rank > worst_rank):
            worst, worst_rank = d, rank
    if worst is not None:
        idle = worst['span_ps'] - worst['busy_ps']
        add('idle_gaps',
            '%s sat idle %.1f %% of its span (%.3f ms); its longest gap is %.3f ms, '
            '%d gaps last 1 ms or more, and its host was busy for %.3f ms of the idle time.'
            % (worst['name'], worst['idle_percent'], idle / 1e9, worst['longest_gap_ps'] / 1e9,
               worst['gaps_over_1ms'], (worst['host_bound_ps'] or 0) / 1e9)
            + ('' if worst['host_bound_ps'] is not None else ' (no host activity: unknown)'),
            {'host': worst['host'], 'device': worst['name'], 'idle_ps': idle,
             'idle_percent': worst['idle_percent'], 'longest_gap_ps': worst['longest_gap_ps'],
             'longest_gap_start_ps': worst['longest_gap_start_ps'],
             'gaps_over_1ms': worst['gaps_over_1ms'], 'host_bound_ps': worst['host_bound_ps']})
    for key, way, t in (('h2d', 'to_device', h2d), ('d2h', 'to_host', d2h)):
        if step_total > 0 and 20 * t >= step_total:
            # The ops waiting on host offloads that way (not the starts).
            waits = [o for o in ops if o.get('host_copy') == way and o['async'] != 'start']
            nums = {key + '_in_steps_ps': t,
                    key + '_in_steps_percent': ov[key + '_in_steps_percent'],
                    'steps': len(durs), 'host_offload_ops': len(waits)}
            if waits:
                nums['op'] = waits[0]['name']
            add(key + '_in_steps',
                '%s copies take %.1f %% of the step time (%.3f ms over %d steps).'
                % (key, ov[key + '_in_steps_percent'], t / 1e9, len(durs)), nums)
    self_total = sum(o['self_ps'] for o in ops)
    if ops and self_total > 0 and 2 * ops[0]['self_ps'] >= self_total:
        o = ops[0]
        add('dominant_op',
            '%s takes %.1f %% of the device time (%.3f ms, %s-bound).'
            % (o['name'], o['percent'], o['self_ps'] / 1e9, o['bound_by']),
            {'op': o['name'], 'program': o['program'], 'self_ps': o['self_ps'],
             'percent': o['percent'], 'bound_by': o['bound_by']})
    if ov['compile_ps'] > 0:
        add('compilation',
            'Compilation took %.3f ms of host time in the profile (%d compiles).'
            % (ov['compile_ps'] / 1e9, ov['compiles']),
            {'compile_ps': ov['compile_ps'], 'compiles': ov['compiles']})
    if busy_total > 0 and coll and 5 * coll_ps >= busy_total:
        add('collectives',
            'Collectives take %.1f %% of the device time (%.3f ms); the largest is %s.'
            % (ov['collective_percent'], coll_ps / 1e9, coll[0]['name']),
            {'collective_ps': coll_ps, 'collective_percent': ov['collective_percent'],
             'op': coll[0]['name']})
    ov['findings'] = findings
    return ov


def main(argv):
    if len(argv) < 2:
        sys.stderr.write('usage: xspace_oracle.py PATH [PATH...]\n')
        return 2
    files = expand_paths(argv[1:])
    pb, hpb = load_pb2()
    hosts = [load_host(pb, f, i, hpb) for i, f in enumerate(files)]
    place_hosts(hosts)
    settle_clocks(hosts)
    origin = min(h.origin for h in hosts) if hosts else 0
    total = 0
    hosts_out = []
    for h in hosts:
        planes = []
        for p in h.planes:
            planes.append({'name': p.name, 'lines': len(p.lines), 'events': p.nevents})
            total += p.nevents
        sk = h.skew
        hosts_out.append({'name': h.name, 'file': h.file, 'planes': planes,
                          'clock_offset_ps': h.origin - origin, 'aligned_by': h.aligned,
                          'skew_ps': sk[1] if sk else None,
                          'skew_spread_ps': sk[2] if sk else None,
                          'skew_method': sk[0] if sk else None,
                          'skew_matches': sk[3] if sk else 0,
                          'skew_corrected': h.corrected})
    ops, devices, steps, source, module, kernels = analyse(hosts, origin)
    ov = overview(hosts, devices, ops, steps)
    # C44: no host activity beside any device: the steps' host time is
    # unknown (null), not 0.
    known = [d.pop('_host_known') for d in devices if '_host_known' in d]
    if known and not any(known):
        for s in steps:
            s['host_compute_ps'] = None
    for d in devices:
        # CHOICE C40: no events, no busy time or span (idle, or not traced).
        if d.pop('no_events'):
            d['busy_ps'] = d['span_ps'] = None
            d['kernels'] = d['small_kernels'] = d['small_kernel_ps'] = None
    result = {'events': total, 'hosts': hosts_out,
              'overview': ov, 'ops': ops, 'devices': devices,
              'steps_source': source, 'steps_module': module,
              'steps': steps, 'memory': memory(hosts, origin), 'kernels': kernels}
    json.dump(result, sys.stdout, indent=1)
    sys.stdout.write('\n')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
