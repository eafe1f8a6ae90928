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
      contains `Memcpy`, or whose op/metadata name is one of
      CopyHostToDevice/CopyDeviceToHost/CopyDeviceToDevice/CopyHostToHost.
      host_to_device: any of those three strings contains `MemcpyH2D` or
      `CopyHostToDevice`; device_to_host: `MemcpyD2H` or `CopyDeviceToHost`.
  C9  Collective: the op name or the category contains all-reduce,
      all-gather, reduce-scatter, all-to-all or collective-permute, or starts
      with nccl/rccl, or with its numeric suffix stripped equals send, recv,
      send-done or recv-done (case-sensitive).  The raw event-metadata name
      (full HLO text on TPU) is not searched.  Collectives are tested before
      memcpy.
  C10 GPU merging of "consecutive events with the same (program, name,
      group_id)" applies only to events whose name came from the `hlo_op`
      stat (the fusion-launched-as-several-kernels case; XProf's
      ConvertDeviceTraceXPlaneToOpMetricsDb merges only XLA ops, TF ops and
      plain kernels/memcpys are one occurrence per event).  Read literally,
      the rule would fold e.g. the TF fixture's 97 back-to-back FillPhilox
      launches of one step into one occurrence.  "Consecutive" = adjacent in
      the line's events sorted by start time (stable); any non-matching
      event in between breaks the run.  A missing group_id equals a missing
      group_id.  flops/bytes of a merged occurrence come from its first
      event.
  C11 A merged op's category is the one of its first occurrence in
      processing order (hosts in argument order, planes/lines/events in file
      order).  Op ties: self desc, total desc, name asc, program asc.
  C12 Device span 0 -> idle_percent 0.  Device planes that are neither an
      XLA-ops device nor /device:GPU:N have busy = span = 0.
  C13 Steps: host markers are used only when no host of the run has any
      device marker.  A host marker whose id (step_num, else group_id) is not
      an integer is dropped.  The index fallback for device markers is the
      index in the Steps line's events sorted by start time (= file order in
      all fixtures).  Markers are merged by id across devices and hosts.  Activity intervals of all hosts are clipped to every step.
  C14 Host compute: every event of /host:CPU that is not a host step marker
      (by the marker predicate, whether or not host markers are in use) and
      not on a line named exactly `python`; markers are removed *before*
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
      event-metadata name; op = the op-profile name of the event (hlo_op last
      element, else tf_op, else the kernel name).  shared = static_shared +
      dynamic_shared when either is present, else group_mem, else 0 (the old
      TF key `shm` is not read: it is not in the spec).  registers = regs
      else 0; occupancy = occ_pct else 0; grid/block default 1 per missing
      component.  Rows tie-broken by name, op, grid, block.
  C17 Host name: file name minus `.gz` (if present) minus `.xplane.pb`;
      "file" is the path as given (directory + entry name for directories).
      Directory entries are taken in sorted name order; any unparseable
      host file makes the whole run fail (exit 2, one line on stderr).
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
    except (OSError, subprocess.CalledProcessError) as e:
        die('cannot run protoc: %s' % e)
    sys.path.insert(0, tmp)
    try:
        import xplane_pb2  # noqa: E402
    finally:
        sys.path.remove(tmp)
        shutil.rmtree(tmp, ignore_errors=True)
    return xplane_pb2


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
    __slots__ = ('id', 'name', 'events', 'index')


class Plane:
    __slots__ = ('name', 'lines', 'nevents')


class Host:
    __slots__ = ('name', 'file', 'planes', 'modules', 'index')


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

    emd = {}
    for k, v in p.event_metadata.items():
        emd[k] = (v.name, v.display_name, stats_of(v.stats))
    empty = ('', '', [])
    for li, l in enumerate(p.lines):
        line = Line()
        line.id = l.id
        line.name = l.name
        line.index = li
        line.events = []
        base = l.timestamp_ns * 1000
        for ei, e in enumerate(l.events):
            plane.nevents += 1
            if e.WhichOneof('data') == 'num_occurrences':
                continue  # CHOICE C1
            name, disp, mst = emd.get(e.metadata_id, empty)
            line.events.append(Event(base + e.offset_ps, e.duration_ps, name, disp,
                                     stats_of(e.stats), mst, line, ei))
        plane.lines.append(line)
    return plane


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


def load_host(pb, path, index):
    sp = read_space(pb, path)
    h = Host()
    h.name = host_name_of(path)
    h.file = path
    h.index = index
    h.planes = [convert_plane(pb, p) for p in sp.planes]
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


def memcpy_kind(opname, rawname, linename):
    """CHOICE C8: returns (is_memcpy, H2D|D2H|None)."""
    strs = (opname or '', rawname or '', linename or '')
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


def gpu_opname(ev):
    hlo = as_str(ev.stat('hlo_op'))
    if hlo is not None:
        return hlo.split('::')[-1], 'hlo'
    tf = as_str(ev.stat('tf_op'))
    if tf is not None:
        return tf, 'tf'
    return ev.name, 'raw'


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


# ------------------------------------------------------------ analyses ----

class OpAcc:
    __slots__ = ('name', 'program', 'category', 'occ', 'self_ps', 'total_ps', 'flops', 'bytes')


def analyse(hosts):
    ops = {}
    devices = []
    activity = []  # (start, end, category)
    kernels = {}

    def add_op(program, name, category, self_ps, total_ps, flops, nbytes):
        key = (program, name)
        a = ops.get(key)
        if a is None:
            a = OpAcc()
            a.name, a.program, a.category = name, program, category  # CHOICE C11
            a.occ = a.self_ps = a.total_ps = a.flops = a.bytes = 0
            ops[key] = a
        a.occ += 1
        a.self_ps += self_ps
        a.total_ps += total_ps
        a.flops += flops
        a.bytes += nbytes

    device_markers = []  # (id, start, end)

    for h in hosts:
        for plane in h.planes:
            kind = device_kind(plane)
            if kind is None:
                continue
            busy = span = 0
            if kind == 'xla':
                first = last = None
                for line in plane.lines:
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
                        prog = program_of(h, ev, True)
                        add_op(prog, name, cat, selfp, ev.dur,
                               as_int(ev.stat('flops')) or 0,
                               as_int(ev.stat('bytes_accessed')) or 0)
                        if depth == 0 and ev.dur > 0:
                            activity.append((ev.start, ev.end,
                                             device_category(name, cat, ev.name, line.name)))
                if first is not None:
                    span = last - first
            elif kind == 'gpu':
                spans = []
                for line in plane.lines:
                    if is_derived(line):
                        continue
                    evs = sorted(line.events, key=lambda e: e.start)  # stable, CHOICE C10
                    cur = None  # [key, program, name, cat, total, flops, bytes]
                    for ev in evs:
                        spans.append((ev.start, ev.end))
                        name, src = gpu_opname(ev)
                        prog = program_of(h, ev, False)
                        cat = as_str(ev.stat('hlo_category'))
                        ism, mk = memcpy_kind(name, ev.name, line.name)
                        if cat is None:
                            if ism:
                                cat = 'memcpy'
                            elif src == 'tf' and ':' in name and name.rsplit(':', 1)[1]:
                                cat = name.rsplit(':', 1)[1]
                            else:
                                cat = strip_suffix(name)
                        gid = as_int(ev.stat('group_id'))
                        # CHOICE C10: only hlo_op-named events merge.
                        key = (prog, name, gid) if src == 'hlo' else None
                        if cur is not None and key is not None and cur[0] == key:
                            cur[4] += ev.dur
                        else:
                            if cur is not None:
                                add_op(cur[1], cur[2], cur[3], cur[4], cur[4], cur[5], cur[6])
                            cur = [key, prog, name, cat, ev.dur,
                                   as_int(ev.stat('flops')) or 0,
                                   as_int(ev.stat('bytes_accessed')) or 0]
                        if ev.dur > 0:
                            activity.append((ev.start, ev.end,
                                             device_category(name, cat, ev.name, line.name)))
                            kd = as_str(ev.stat('kernel_details'))
                            if kd is not None:
                                add_kernel(kernels, ev, name, kd)
                    if cur is not None:
                        add_op(cur[1], cur[2], cur[3], cur[4], cur[4], cur[5], cur[6])
                if spans:
                    span = max(e for s, e in spans) - min(s for s, e in spans)
                    busy = union_length(spans)
            idle = 100.0 * (1.0 - busy / span) if span > 0 else 0.0  # CHOICE C12
            devices.append({'host': h.name, 'name': plane.name, 'busy_ps': busy,
                            'span_ps': span, 'idle_percent': idle})
            for line in plane.lines:
                if line.name != 'Steps':
                    continue
                for i, ev in enumerate(sorted(line.events, key=lambda e: e.start)):
                    sid = as_int(ev.stat('group_id'))
                    if sid is None:
                        sid = as_int(ev.stat('step_num'))
                    if sid is None:
                        sid = i
                    device_markers.append((sid, ev.start, ev.end))

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
                            host_markers.append((mk, ev.start, ev.end))
                        continue  # CHOICE C14: markers never count as host compute
                    if line.name == 'python':
                        continue
                    if ev.dur > 0:
                        activity.append((ev.start, ev.end, HOST_COMPUTE))

    markers = device_markers if device_markers else host_markers  # CHOICE C13
    steps = build_steps(markers, activity)

    ops_list = sorted(ops.values(), key=lambda a: (-a.self_ps, -a.total_ps, a.name, a.program))
    ops_out = [{'name': a.name, 'program': a.program, 'category': a.category,
                'occurrences': a.occ, 'self_ps': a.self_ps, 'total_ps': a.total_ps,
                'flops': a.flops, 'bytes_accessed': a.bytes} for a in ops_list]

    krows = sorted(kernels.values(),
                   key=lambda k: (-k['total_ps'], k['name'], k['op'], k['grid'], k['block']))
    return ops_out, devices, steps, krows


def device_category(name, cat, rawname, linename):
    if is_collective(name, cat):  # CHOICE C9
        return COLLECTIVES
    ism, kind = memcpy_kind(name, rawname, linename)
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


def build_steps(markers, activity):
    if not markers:
        return []
    byid = {}
    for sid, s, e in markers:
        if sid in byid:
            a = byid[sid]
            a[0] = min(a[0], s)
            a[1] = max(a[1], e)
        else:
            byid[sid] = [s, e]
    # Paint the timeline once: disjoint segments with the winning category.
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
    out = []
    for sid, (s, e) in byid.items():
        row = {'id': sid, 'start_ps': s, 'duration_ps': e - s}
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


def add_kernel(kernels, ev, opname, details):
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
    regs = num('regs') or 0
    if 'static_shared' in kv or 'dynamic_shared' in kv:
        shared = (num('static_shared') or 0) + (num('dynamic_shared') or 0)
    elif 'group_mem' in kv:
        shared = num('group_mem') or 0
    else:
        shared = 0
    occ = num('occ_pct', float) or 0.0
    grid = parse_dims(kv['grid']) if 'grid' in kv else [1, 1, 1]
    block = parse_dims(kv['block']) if 'block' in kv else [1, 1, 1]
    key = (ev.name, opname, tuple(grid), tuple(block), regs, shared)
    k = kernels.get(key)
    if k is None:
        k = {'name': ev.name, 'op': opname, 'grid': grid, 'block': block,
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


def memory(hosts):
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
            live = {}
            seq = 0
            peak_live = []
            for ev in evs:
                res = as_int(ev.stat('bytes_reserved')) or 0
                alc = as_int(ev.stat('bytes_allocated')) or 0
                avail = as_int(ev.stat('bytes_available')) or 0
                addr = as_int(ev.stat('addr'))
                if addr is not None:
                    if ev.name == 'MemoryAllocation':
                        b = as_int(ev.stat('allocation_bytes'))
                        if b is None:
                            b = as_int(ev.stat('requested_bytes')) or 0
                        live[addr] = (b, seq, as_str(ev.stat('tf_op')) or '',
                                      as_str(ev.stat('shape')) or '')
                        seq += 1
                    else:
                        live.pop(addr, None)
                inuse = res + alc
                if inuse >= peak:
                    peak = inuse
                    peak_t = ev.start
                    cap = res + alc + avail
                    peak_live = list(live.values())
            last = as_int(evs[-1].stat('peak_bytes_in_use')) or 0
            peak_live.sort(key=lambda x: (-x[0], x[1]))
            out.append({'host': h.name, 'allocator': alloc, 'peak_bytes': max(peak, 0),
                        'peak_time_ps': peak_t, 'lifetime_peak_bytes': last,
                        'capacity_bytes': cap,
                        'live_at_peak': [{'bytes': b, 'op': op, 'shape': sh}
                                         for b, _, op, sh in peak_live[:10]]})
    out.sort(key=lambda m: (m['host'], m['allocator']))
    return out


def main(argv):
    if len(argv) < 2:
        sys.stderr.write('usage: xspace_oracle.py PATH [PATH...]\n')
        return 2
    files = expand_paths(argv[1:])
    pb = load_pb2()
    hosts = [load_host(pb, f, i) for i, f in enumerate(files)]
    total = 0
    hosts_out = []
    for h in hosts:
        planes = []
        for p in h.planes:
            planes.append({'name': p.name, 'lines': len(p.lines), 'events': p.nevents})
            total += p.nevents
        hosts_out.append({'name': h.name, 'file': h.file, 'planes': planes})
    ops, devices, steps, kernels = analyse(hosts)
    result = {'events': total, 'hosts': hosts_out, 'ops': ops, 'devices': devices,
              'steps': steps, 'memory': memory(hosts), 'kernels': kernels}
    json.dump(result, sys.stdout, indent=1)
    sys.stdout.write('\n')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
