#!/usr/bin/python3
"""Compare xtop's JSON analysis output with the oracle's.

Usage: compare.py XTOP.json ORACLE.json

Checked (fields present in either side beyond these are ignored):
  events        total event count, exact
  hosts         host names in order; per host the clock (clock_offset_ps,
                aligned_by, skew_ps, skew_spread_ps, skew_method, skew_matches,
                skew_corrected) exact, and the planes in order with their
                name, line count and event count
  devices       keyed by (host, name): busy_ps, span_ps exact, idle_percent
                within 0.01; the overview's host_bound_ps, longest_gap_ps,
                longest_gap_start_ps, gaps_over_1ms, kernels, small_kernels,
                small_kernel_ps exact (null where the oracle has null)
  overview      steps (count, p50/p95/min/max exact, mean_ps to 1e-9
                relative), host_bound_ps/_device, compile_ps, compiles,
                collective_ps, h2d_in_steps_ps, d2h_in_steps_ps exact, the
                *_percent within 0.01 (null where the oracle has null);
                top_ops in order (name,
                program, self_ps exact, percent within 0.01); findings: the
                ids in order, each with a non-empty text and its numbers
                (strings and integers exact, *_percent within 0.01)
  ops           the full list as a map keyed by (program, name): occurrences,
                self_ps, total_ps exact, category exact
  steps         keyed by id: start_ps, duration_ps and every *_ps column exact,
                device and device_host (whose marker or run it is)
  memory        keyed by (host, allocator): peak_bytes, peak_time_ps,
                lifetime_peak_bytes, capacity_bytes exact; the list of
                live_at_peak bytes exact (in order)
  kernels       a multiset keyed by (name, op, program, grid, block): per key the
                sorted list of (occurrences, total_ps, min_ps, max_ps) exact
Prints each difference (at most 20 lines, then a count) and exits 1 if any;
otherwise prints "match: N ops, N devices, N steps, N allocators, N kernels,
N findings"
and exits 0.  Unreadable input exits 2.
"""

import json
import sys

MAX_LINES = 20
HOST_CLOCK = ('clock_offset_ps', 'aligned_by', 'skew_ps', 'skew_spread_ps', 'skew_method',
              'skew_matches', 'skew_corrected')
STEP_FIELDS = ('start_ps', 'duration_ps', 'device_compute_ps', 'collectives_ps',
               'host_to_device_ps', 'device_to_host_ps', 'host_compute_ps', 'idle_ps',
               'device', 'device_host')
MEM_FIELDS = ('peak_bytes', 'peak_time_ps', 'lifetime_peak_bytes', 'capacity_bytes',
              'reserved_bytes', 'live_other_bytes', 'unattributed_bytes', 'live_count',
              'allocator_lifetime_peak_bytes')
OP_REAL = ('flops', 'bytes_accessed', 'hbm_bytes', 'flops_per_s', 'bytes_per_s',
           'hbm_bytes_per_s', 'flops_utilization', 'hbm_bw_utilization', 'arithmetic_intensity')
OP_EXACT = ('attribution', 'parent', 'flops_source', 'async', 'host_copy', 'bound_by')
DEV_OVERVIEW = ('host_bound_ps', 'longest_gap_ps', 'longest_gap_start_ps', 'gaps_over_1ms',
                'kernels', 'small_kernels', 'small_kernel_ps')
OV_EXACT = ('host_bound_ps', 'host_bound_device', 'host_bound_host', 'compile_ps', 'compiles', 'collective_ps',
            'h2d_in_steps_ps', 'd2h_in_steps_ps')
OV_PERCENT = ('collective_percent', 'h2d_in_steps_percent', 'd2h_in_steps_percent')
STEP_STATS_EXACT = ('count', 'p50_ps', 'p95_ps', 'min_ps', 'max_ps')
PERCENT_TOL = 0.01


def same_real(a, b, rel=1e-9):
    """Both absent (null), or equal to a relative tolerance (summation order)."""
    if a is None or b is None:
        return a is None and b is None
    try:
        a, b = float(a), float(b)
    except (TypeError, ValueError):
        return False
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-300)


def same_percent(a, b):
    """Both null, or two numbers within PERCENT_TOL (as idle_percent)."""
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, bool) or isinstance(b, bool):
        return False
    try:
        return abs(float(a) - float(b)) <= PERCENT_TOL
    except (TypeError, ValueError):
        return False


def load(path):
    try:
        with open(path, 'r', encoding='utf-8') as f:
            d = json.load(f)
    except (OSError, ValueError) as e:
        sys.stderr.write('compare: cannot read %s: %s\n' % (path, e))
        sys.exit(2)
    if not isinstance(d, dict):
        sys.stderr.write('compare: %s: top level is not a JSON object\n' % path)
        sys.exit(2)
    return d


def num(v):
    """Normalise a JSON number (integral floats become ints)."""
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, float) and v.is_integer():
        return int(v)
    if isinstance(v, str):
        try:
            return int(v)
        except ValueError:
            return v
    return v


def s(v):
    return '' if v is None else str(v)


def short(v, n=60):
    t = str(v)
    return t if len(t) <= n else t[:n - 3] + '...'


class Diffs:
    def __init__(self):
        self.items = []

    def add(self, msg):
        self.items.append(msg)


def lst(d, key):
    v = d.get(key)
    return v if isinstance(v, list) else []


def compare_events(x, o, df):
    if num(x.get('events')) != num(o.get('events')):
        df.add('events: xtop %s, oracle %s' % (x.get('events'), o.get('events')))


def compare_hosts(x, o, df):
    xh, oh = lst(x, 'hosts'), lst(o, 'hosts')
    if len(xh) != len(oh):
        df.add('hosts: xtop has %d, oracle %d' % (len(xh), len(oh)))
    for i, (a, b) in enumerate(zip(xh, oh)):
        if s(a.get('name')) != s(b.get('name')):
            df.add('host %d: name xtop %r, oracle %r' % (i, a.get('name'), b.get('name')))
        hn = s(b.get('name'))
        for f in HOST_CLOCK:
            if f not in a:
                df.add('host %s: xtop has no %s' % (hn, f))
            elif num(a.get(f)) != num(b.get(f)):
                df.add('host %s %s: xtop %s, oracle %s' % (hn, f, a.get(f), b.get(f)))
        xp, op = a.get('planes') or [], b.get('planes') or []
        if len(xp) != len(op):
            df.add('host %s: xtop has %d planes, oracle %d' % (hn, len(xp), len(op)))
        for j, (pa, pb) in enumerate(zip(xp, op)):
            if s(pa.get('name')) != s(pb.get('name')):
                df.add('host %s plane %d: name xtop %r, oracle %r'
                       % (hn, j, pa.get('name'), pb.get('name')))
            for f in ('lines', 'events'):
                if num(pa.get(f)) != num(pb.get(f)):
                    df.add('host %s plane %s: %s xtop %s, oracle %s'
                           % (hn, pb.get('name'), f, pa.get(f), pb.get(f)))


def keyed(items, keyf, what, df, side):
    out = {}
    for it in items:
        k = keyf(it)
        if k in out:
            df.add('%s: duplicate %s in %s' % (what, short(k, 100), side))
        out[k] = it
    return out


def compare_devices(x, o, df):
    kf = lambda d: (s(d.get('host')), s(d.get('name')))
    xd = keyed(lst(x, 'devices'), kf, 'devices', df, 'xtop')
    od = keyed(lst(o, 'devices'), kf, 'devices', df, 'oracle')
    for k in od:
        if k not in xd:
            df.add('device %s:%s missing in xtop' % k)
            continue
        a, b = xd[k], od[k]
        for f in ('busy_ps', 'span_ps', 'start_ps'):
            if num(a.get(f)) != num(b.get(f)):
                df.add('device %s:%s %s: xtop %s, oracle %s' % (k + (f, a.get(f), b.get(f))))
        for f in ('peak_flops_per_s', 'peak_hbm_bytes_per_s'):
            if not same_real(a.get(f), b.get(f)):
                df.add('device %s:%s %s: xtop %s, oracle %s' % (k + (f, a.get(f), b.get(f))))
        if s(a.get('model')) != s(b.get('model')):
            df.add('device %s:%s model: xtop %r, oracle %r' % (k + (a.get('model'), b.get('model'))))
        ia, ib = a.get('idle_percent'), b.get('idle_percent')
        if ia is None or ib is None:
            bad = not (ia is None and ib is None)  # no span: both null
        else:
            try:
                bad = abs(float(ia) - float(ib)) > 0.01
            except (TypeError, ValueError):
                bad = True
        if bad:
            df.add('device %s:%s idle_percent: xtop %s, oracle %s' % (k + (ia, ib)))
        missing = [f for f in DEV_OVERVIEW if f not in a]
        if missing:
            df.add('device %s:%s: xtop has no %s' % (k + (', '.join(missing),)))
        for f in DEV_OVERVIEW:
            if f in a and num(a.get(f)) != num(b.get(f)):
                df.add('device %s:%s %s: xtop %s, oracle %s' % (k + (f, a.get(f), b.get(f))))
    for k in xd:
        if k not in od:
            df.add('device %s:%s only in xtop' % k)
    return len(od)


def compare_ops(x, o, df):
    kf = lambda d: (s(d.get('program')), s(d.get('name')))
    xo = keyed(lst(x, 'ops'), kf, 'ops', df, 'xtop')
    oo = keyed(lst(o, 'ops'), kf, 'ops', df, 'oracle')
    for k in oo:
        label = 'op %s/%s' % (short(k[0], 40), short(k[1]))
        if k not in xo:
            df.add('%s missing in xtop' % label)
            continue
        a, b = xo[k], oo[k]
        for f in ('occurrences', 'self_ps', 'total_ps'):
            if num(a.get(f)) != num(b.get(f)):
                df.add('%s %s: xtop %s, oracle %s' % (label, f, a.get(f), b.get(f)))
        if s(a.get('category')) != s(b.get('category')):
            df.add('%s category: xtop %r, oracle %r'
                   % (label, short(a.get('category')), short(b.get('category'))))
        for f in OP_EXACT:
            if a.get(f) != b.get(f):
                df.add('%s %s: xtop %r, oracle %r' % (label, f, a.get(f), b.get(f)))
        for f in ('rate_ps', 'rate_occurrences'):
            if num(a.get(f)) != num(b.get(f)):
                df.add('%s %s: xtop %s, oracle %s' % (label, f, a.get(f), b.get(f)))
        for f in OP_REAL:
            if not same_real(a.get(f), b.get(f)):
                df.add('%s %s: xtop %s, oracle %s' % (label, f, a.get(f), b.get(f)))
        if (a.get('rate_note') is None) != (b.get('rate_note') is None):
            df.add('%s rate_note: xtop %r, oracle %r' % (label, a.get('rate_note'),
                                                        b.get('rate_note')))
        ka = [(s(k.get('name')), num(k.get('occurrences')), num(k.get('total_ps')))
              for k in a.get('kernels') or []]
        kb = [(s(k.get('name')), num(k.get('occurrences')), num(k.get('total_ps')))
              for k in b.get('kernels') or []]
        if ka != kb:
            df.add('%s kernels: xtop %s, oracle %s' % (label, short(ka, 80), short(kb, 80)))
    for k in xo:
        if k not in oo:
            df.add('op %s/%s only in xtop' % (short(k[0], 40), short(k[1])))
    return len(oo)


def compare_steps(x, o, df):
    for f in ('steps_source', 'steps_module'):
        if x.get(f) != o.get(f):
            df.add('%s: xtop %r, oracle %r' % (f, x.get(f), o.get(f)))
    kf = lambda d: num(d.get('id'))
    xs = keyed(lst(x, 'steps'), kf, 'steps', df, 'xtop')
    os_ = keyed(lst(o, 'steps'), kf, 'steps', df, 'oracle')
    for k in os_:
        if k not in xs:
            df.add('step %s missing in xtop' % (k,))
            continue
        a, b = xs[k], os_[k]
        for f in STEP_FIELDS:
            if num(a.get(f)) != num(b.get(f)):
                df.add('step %s %s: xtop %s, oracle %s' % (k, f, a.get(f), b.get(f)))
    for k in xs:
        if k not in os_:
            df.add('step %s only in xtop' % (k,))
    return len(os_)


def live_bytes(m):
    return [(num(e.get('bytes')), num(e.get('time_ps'))) for e in (m.get('live_at_peak') or [])]


def compare_memory(x, o, df):
    kf = lambda d: (s(d.get('host')), s(d.get('allocator')))
    xm = keyed(lst(x, 'memory'), kf, 'memory', df, 'xtop')
    om = keyed(lst(o, 'memory'), kf, 'memory', df, 'oracle')
    for k in om:
        if k not in xm:
            df.add('allocator %s:%s missing in xtop' % k)
            continue
        a, b = xm[k], om[k]
        for f in MEM_FIELDS:
            if num(a.get(f)) != num(b.get(f)):
                df.add('allocator %s:%s %s: xtop %s, oracle %s' % (k + (f, a.get(f), b.get(f))))
        la, lb = live_bytes(a), live_bytes(b)
        if la != lb:
            df.add('allocator %s:%s live_at_peak (bytes, time): xtop %s, oracle %s'
                   % (k + (short(la, 80), short(lb, 80))))
        if s(a.get('name')) != s(b.get('name')):
            df.add('allocator %s:%s name: xtop %r, oracle %r' % (k + (a.get('name'), b.get('name'))))
        parts = sum(e for e, _ in la) + (num(a.get('live_other_bytes')) or 0) + \
            (num(a.get('unattributed_bytes')) or 0)
        if parts != num(a.get('peak_bytes')):
            df.add('allocator %s:%s: live_at_peak + live_other + unattributed = %s != peak %s'
                   % (k + (parts, a.get('peak_bytes'))))
    for k in xm:
        if k not in om:
            df.add('allocator %s:%s only in xtop' % k)
    return len(om)


def dims(v):
    if isinstance(v, list):
        return tuple(num(e) for e in v)
    return (s(v),)


def compare_kernels(x, o, df):
    def group(items):
        g = {}
        for k in items:
            key = (s(k.get('name')), s(k.get('op')), s(k.get('program')), dims(k.get('grid')),
                   dims(k.get('block')))
            g.setdefault(key, []).append((num(k.get('occurrences')), num(k.get('total_ps')),
                                          num(k.get('min_ps')), num(k.get('max_ps')),
                                          num(k.get('registers')),
                                          k.get('occupancy_percent')))
        for v in g.values():
            v.sort(key=repr)
        return g
    xk, ok = group(lst(x, 'kernels')), group(lst(o, 'kernels'))
    for k in ok:
        label = 'kernel %s (op %s/%s, grid %s, block %s)' % (short(k[0], 50), short(k[2], 30),
                                                             short(k[1], 30), list(k[3]), list(k[4]))
        if k not in xk:
            df.add('%s missing in xtop' % label)
        elif xk[k] != ok[k]:
            df.add('%s (occ,total,min,max,regs,occ%%): xtop %s, oracle %s'
                   % (label, xk[k], ok[k]))
    for k in xk:
        if k not in ok:
            df.add('kernel %s (op %s/%s, grid %s, block %s) only in xtop'
                   % (short(k[0], 50), short(k[2], 30), short(k[1], 30), list(k[3]), list(k[4])))
    return len(lst(o, 'kernels'))


def same_value(key, a, b):
    """A finding's number: strings and integers exact, *_percent within 0.01."""
    if 'percent' in key:
        return same_percent(a, b)
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    a, b = num(a), num(b)
    if isinstance(a, float) or isinstance(b, float):
        return same_real(a, b)
    return a == b


def compare_overview(x, o, df):
    ob = o.get('overview')
    if not isinstance(ob, dict):
        df.add('overview: the oracle has none')
        return 0
    xb = x.get('overview')
    if not isinstance(xb, dict):
        df.add('overview: missing in xtop (no "overview" object)')
        return 0
    xs, os_ = xb.get('steps'), ob.get('steps')
    if (xs is None) != (os_ is None) or not isinstance(xs or {}, dict):
        df.add('overview steps: xtop %s, oracle %s' % (short(xs, 80), short(os_, 80)))
    elif os_ is not None:
        for f in STEP_STATS_EXACT:
            if num(xs.get(f)) != num(os_.get(f)):
                df.add('overview steps %s: xtop %s, oracle %s' % (f, xs.get(f), os_.get(f)))
        if not same_real(xs.get('mean_ps'), os_.get('mean_ps')):
            df.add('overview steps mean_ps: xtop %s, oracle %s'
                   % (xs.get('mean_ps'), os_.get('mean_ps')))
    for f in OV_EXACT:
        if f not in xb:
            df.add('overview %s: missing in xtop' % f)
        elif num(xb.get(f)) != num(ob.get(f)):
            df.add('overview %s: xtop %r, oracle %r' % (f, xb.get(f), ob.get(f)))
    for f in OV_PERCENT:
        if f not in xb:
            df.add('overview %s: missing in xtop' % f)
        elif not same_percent(xb.get(f), ob.get(f)):
            df.add('overview %s: xtop %s, oracle %s' % (f, xb.get(f), ob.get(f)))
    xt, ot = lst(xb, 'top_ops'), lst(ob, 'top_ops')
    if len(xt) != len(ot):
        df.add('overview top_ops: xtop has %d, oracle %d' % (len(xt), len(ot)))
    for i, (a, b) in enumerate(zip(xt, ot)):
        for f in ('name', 'program'):
            if s(a.get(f)) != s(b.get(f)):
                df.add('overview top_ops[%d] %s: xtop %r, oracle %r'
                       % (i, f, short(a.get(f)), short(b.get(f))))
        if num(a.get('self_ps')) != num(b.get('self_ps')):
            df.add('overview top_ops[%d] self_ps: xtop %s, oracle %s'
                   % (i, a.get('self_ps'), b.get('self_ps')))
        if not same_percent(a.get('percent'), b.get('percent')):
            df.add('overview top_ops[%d] percent: xtop %s, oracle %s'
                   % (i, a.get('percent'), b.get('percent')))
    xf, of = lst(xb, 'findings'), lst(ob, 'findings')
    xids = [s(f.get('id')) if isinstance(f, dict) else '?' for f in xf]
    oids = [s(f.get('id')) for f in of]
    if xids != oids:
        df.add('overview findings: xtop %s, oracle %s' % (xids, oids))
    for a in xf:
        if not isinstance(a, dict) or not isinstance(a.get('text'), str) or \
                not a.get('text').strip():
            df.add('overview finding %s: no text' % (a.get('id') if isinstance(a, dict)
                                                       else short(a),))
    xby = {s(f.get('id')): f for f in xf if isinstance(f, dict)}
    for b in of:
        fid = s(b.get('id'))
        a = xby.get(fid)
        if a is None:
            continue
        na, nb = a.get('numbers'), b.get('numbers') or {}
        if not isinstance(na, dict):
            df.add('overview finding %s: xtop has no numbers' % fid)
            continue
        if sorted(na) != sorted(nb):
            df.add('overview finding %s numbers: xtop has %s, oracle %s'
                   % (fid, sorted(na), sorted(nb)))
        for key in nb:
            if key in na and not same_value(key, na[key], nb[key]):
                df.add('overview finding %s %s: xtop %r, oracle %r'
                       % (fid, key, na[key], nb[key]))
    return len(of)


def main(argv):
    if len(argv) != 3:
        sys.stderr.write('usage: compare.py XTOP.json ORACLE.json\n')
        return 2
    x, o = load(argv[1]), load(argv[2])
    df = Diffs()
    compare_events(x, o, df)
    compare_hosts(x, o, df)
    nd = compare_devices(x, o, df)
    no = compare_ops(x, o, df)
    ns = compare_steps(x, o, df)
    nm = compare_memory(x, o, df)
    nk = compare_kernels(x, o, df)
    nf = compare_overview(x, o, df)
    if df.items:
        for line in df.items[:MAX_LINES]:
            print(line)
        if len(df.items) > MAX_LINES:
            print('... and %d more differences' % (len(df.items) - MAX_LINES))
        print('%d differences' % len(df.items))
        return 1
    print('match: %d ops, %d devices, %d steps, %d allocators, %d kernels, %d findings'
          % (no, nd, ns, nm, nk, nf))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
