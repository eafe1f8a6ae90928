#!/bin/sh
# xtop diff and the regression gate (xtop report --baseline --fail-over) on
# real fixtures and generated profiles, against copies in which one op ran
# twice as long (tests/fixtures/slow_op.py).
. tests/e2e/lib.sh

SLOW=tests/fixtures/slow_op.py

# first_op NAME JSON OP: the diff's first op is OP, matched exactly, at +100 %,
# and no other op changed by more than 1 %.
first_op() {
	if $PY - "$2" "$3" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
ops = d['ops']
top = ops[0]
assert top['name'] == sys.argv[2], 'first op is %s' % top['name']
assert top['match'] == 'exact', top['match']
assert abs(top['delta_percent'] - 100) < 0.01, top['delta_percent']
assert top['new_ps'] == 2 * top['base_ps'] or abs(top['new_ps'] - 2 * top['base_ps']) <= 2, top
for o in ops[1:]:
    if o['name'] == sys.argv[2] and o['match'] == 'exact':
        # the same op of another program (a module compiled for several
        # shapes: jit_dot(49), jit_dot(79)...), slowed alike
        assert abs(o['delta_percent'] - 100) < 0.01, o
    elif o['match'] in ('exact', 'identity') and o['base_ps']:
        assert abs(o['delta_percent']) < 1, o
    else:
        assert o['match'] in ('added', 'removed') and o['base_ps'] in (0, None) or o['new_ps'] in (0, None), o
for k in ('mean', 'p50', 'p95'):
    assert k in d['steps']
assert isinstance(d['memory'], list)
EOF
	then ok "$1"; else fail "$1" "see the assertion above"; fi
}

# diff_case NAME PROFILE OP: slows OP in PROFILE, diffs, gates.
diff_case() {
	name=$1 prof=$2 op=$3
	if ! $PY $SLOW "$prof" "$TMP/$name.slow.pb" "$op" 2>"$TMP/err"; then
		fail "$name: slow copy" "$(cat "$TMP/err")"
		return
	fi
	if ! $XTOP diff --json "$prof" "$TMP/$name.slow.pb" >"$TMP/$name.json" 2>"$TMP/err"; then
		fail "$name: diff --json" "$(cat "$TMP/err")"
		return
	fi
	first_op "$name: $op first at +100%" "$TMP/$name.json" "$op"
	# Text: the op is on the first row of the op table, at +100.0%.
	$XTOP diff --wide "$prof" "$TMP/$name.slow.pb" >"$TMP/$name.txt" 2>&1
	row=$(sed -n '/^ *BASE  *NEW  *DELTA/{n;p;q}' "$TMP/$name.txt")
	case $row in
	*+100.0%*exact*"$op"*) ok "$name: text diff row" ;;
	*) fail "$name: text diff row" "'$row'" ;;
	esac
	# The gate: +100 % fails a 50 % limit, passes 150 % unless the
	# step or device time grew more than that (it does not).
	$XTOP report --baseline "$prof" --fail-over 50 "$TMP/$name.slow.pb" >"$TMP/out" 2>&1
	rc=$?
	if [ $rc -eq 3 ] && grep -q "regression: op .*$op self time" "$TMP/out"; then
		ok "$name: gate exits 3 over 50%"
	else
		fail "$name: gate exits 3 over 50%" "exit $rc"
	fi
	$XTOP report --baseline "$prof" --fail-over 150 "$TMP/$name.slow.pb" >"$TMP/out" 2>&1
	rc=$?
	if [ $rc -eq 0 ] && grep -q "^passed: " "$TMP/out"; then
		ok "$name: gate exits 0 under 150%"
	else
		fail "$name: gate exits 0 under 150%" "exit $rc: $(grep regression "$TMP/out" | head -3)"
	fi
	$XTOP report --json --baseline "$prof" --fail-over 50 "$TMP/$name.slow.pb" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	if [ $rc -eq 3 ] && $PY -c "
import json, sys
d = json.load(open('$TMP/out'))
g = d['gate']
assert g['failed'] and g['fail_over_percent'] == 50
assert any(r['what'] == 'op' and r['name'] == '$op' for r in g['regressions'])
assert d['comparison']['ops'][0]['name'] == '$op'
assert d['baseline'] == '$prof'
" && grep -q "regression: op" "$TMP/err"; then
		ok "$name: gate --json carries the comparison"
	else
		fail "$name: gate --json carries the comparison" "exit $rc"
	fi
}

if ! $PY -c 'import google.protobuf' 2>/dev/null || ! command -v protoc >/dev/null; then
	skip "compare" "python3-protobuf or protoc missing (scripts/deps.sh installs them)"
	exit 0
fi

# A generated GPU profile (kernels attributed by hlo_op) and a TPU one.
$GEN --kind gpu --events 4000 -o "$TMP/gpu.pb" >/dev/null 2>&1
$GEN --kind tpu --events 4000 -o "$TMP/tpu.pb" >/dev/null 2>&1
gop=$($XTOP report --json "$TMP/gpu.pb" | $PY -c "import json,sys; print(json.load(sys.stdin)['ops'][0]['name'])")
top=$($XTOP report --json "$TMP/tpu.pb" | $PY -c "
import json,sys
ops = json.load(sys.stdin)['ops']
# A leaf op (self = total) that is not async: its own time doubles.
print([o for o in ops if o['self_ps'] == o['total_ps'] and not o['async']][0]['name'])")
diff_case "generated gpu" "$TMP/gpu.pb" "$gop"
# JAX on an H100 without command buffers: kernels carry their op's hlo_op.
if $PY tests/fixtures/jax_gpu_profile.py --no-command-buffers "$TMP/jax.pb" 2>"$TMP/err"; then
	jop=$($XTOP report --json "$TMP/jax.pb" | $PY -c "import json,sys; print(json.load(sys.stdin)['ops'][0]['name'])")
	diff_case "jax h100" "$TMP/jax.pb" "$jop"
else
	fail "jax h100: profile" "$(cat "$TMP/err")"
fi
diff_case "generated tpu" "$TMP/tpu.pb" "$top"

# The same profile against itself: nothing changed, the gate passes at 0 %.
$XTOP report --baseline "$TMP/gpu.pb" --fail-over 0 "$TMP/gpu.pb" >"$TMP/out" 2>&1
rc=$?
[ $rc -eq 0 ] && ok "gate: a profile against itself passes at 0%" ||
	fail "gate: a profile against itself passes at 0%" "exit $rc"
$XTOP diff --json "$TMP/gpu.pb" "$TMP/gpu.pb" | $PY -c "
import json, sys
d = json.load(sys.stdin)
assert all(o['delta_ps'] == 0 and o['match'] == 'exact' for o in d['ops'])
assert d['steps']['mean'] is None or d['steps']['mean']['delta_ps'] == 0
" && ok "diff: a profile against itself has no change" || fail "diff: a profile against itself has no change" "see above"

# Bad input: one clear line, exit 2.
expect_error "diff: one profile" 2 "needs two profiles" $XTOP diff "$TMP/gpu.pb"
expect_error "diff: missing file" 2 "nope.pb" $XTOP diff "$TMP/gpu.pb" "$TMP/nope.pb"
expect_error "gate: --fail-over without --baseline" 2 "needs --baseline" \
	$XTOP report --fail-over 5 "$TMP/gpu.pb"
expect_error "gate: --fail-over not a number" 2 "percentage" \
	$XTOP report --baseline "$TMP/gpu.pb" --fail-over 5x "$TMP/gpu.pb"
# Decimal only: strtod read 0x10 as 16 % and 1e1 as 10 %.
expect_error "gate: --fail-over in hex" 2 "percentage" \
	$XTOP report --baseline "$TMP/gpu.pb" --fail-over 0x10 "$TMP/gpu.pb"
expect_error "gate: --fail-over with an exponent" 2 "percentage" \
	$XTOP report --baseline "$TMP/gpu.pb" --fail-over 1e1 "$TMP/gpu.pb"
# --top N cuts the comparison's ops as diff --json --top N does.
if $XTOP report --json --top 2 --baseline "$TMP/gpu.pb" "$TMP/gpu.pb" 2>/dev/null |
	$PY -c 'import json, sys; d = json.load(sys.stdin); sys.exit(not (len(d["ops"]) == 2 and len(d["comparison"]["ops"]) == 2))'; then
	ok "gate: report --json --top 2 lists 2 ops and 2 compared"
else
	fail "gate: report --json --top 2" "not 2 and 2"
fi
expect_error "gate: missing baseline" 2 "baseline: .*nope" \
	$XTOP report --baseline "$TMP/nope" --fail-over 5 "$TMP/gpu.pb"

if ! have_fixtures; then
	skip "compare: real fixtures" "../shared/fixtures not found"
	exit 0
fi
diff_case "tpu fixture" "$FIX/jax-tpu-v6e-4chip/tpu_inference_2.xplane.pb" broadcast_add_fusion.1
diff_case "rocm fixture" "$FIX/jax-rocm-mi300x-jax08_gemm/tw003.xplane.pb" custom-call.1

# Two JAX programs on one GPU: the same op names in other programs are
# added and removed, never matched across programs.
$XTOP diff --json "$FIX/jax-rocm-mi300x-jax08_gemm/tw003.xplane.pb" \
	"$FIX/jax-rocm-mi300x-jax08_attention/tw003.xplane.pb" | $PY -c "
import json, sys
d = json.load(sys.stdin)
cc = [o for o in d['ops'] if o['name'] == 'custom-call.1']
assert set(o['match'] for o in cc) == {'added', 'removed'}, cc
ds = [abs(o['delta_ps']) for o in d['ops']]
assert ds == sorted(ds, reverse=True)
" && ok "diff: two programs, sorted by |delta|" || fail "diff: two programs, sorted by |delta|" "see above"

# One host against the run directory of two: the devices of the second host
# are only in NEW.
$XTOP diff --json "$FIX/tf-gpu-v100-2host/34.83.195.179_6003.xplane.pb" "$FIX/tf-gpu-v100-2host" |
	$PY -c "
import json, sys
d = json.load(sys.stdin)
only_new = [x for x in d['devices'] if x['base_busy_ps'] is None]
assert len(only_new) >= 3, only_new
" && ok "diff: devices only in NEW" || fail "diff: devices only in NEW" "see above"

# without_devices SRC DST: SRC without its /device: planes, as a capture
# whose device tracer failed writes it.
without_devices() {
	$PY - "$1" "$2" <<'PYEOF'
import sys
sys.path.insert(0, 'tests/fixtures')
import xspace_io
sp = xspace_io.read(sys.argv[1], sys.exit)
keep = [p for p in sp.planes if not p.name.startswith('/device:')]
del sp.planes[:]
sp.planes.extend(keep)
xspace_io.write(sp, sys.argv[2])
PYEOF
}

# A NEW that lost its steps and its device time (a crashed workload, a
# capture whose device tracer failed) does not pass the gate: -100 % is
# not an improvement.
ATT="$FIX/jax-rocm-mi300x-jax08_attention/tw003.xplane.pb"
if without_devices "$ATT" "$TMP/hostonly.pb" 2>"$TMP/err"; then
	$XTOP report --baseline "$ATT" --fail-over 5 "$TMP/hostonly.pb" >"$TMP/out" 2>&1
	rc=$?
	if [ $rc -eq 3 ] && grep -q "regression: NEW has no steps (BASE has 23)" "$TMP/out" &&
		grep -q "regression: NEW has no device time (BASE: .* busy)" "$TMP/out"; then
		ok "gate: NEW without steps or device time fails"
	else
		fail "gate: NEW without steps or device time fails" "exit $rc: $(grep -A3 'Regression gate' "$TMP/out")"
	fi
	$XTOP report --json --baseline "$ATT" --fail-over 5 "$TMP/hostonly.pb" 2>/dev/null | $PY -c "
import json, sys
g = json.load(sys.stdin)['gate']
assert g['failed'] is True
w = {r['what']: r for r in g['regressions']}
assert w['no_steps']['base_steps'] == 23 and w['no_steps']['base_ps'] is None, w
assert w['no_device_time']['base_ps'] > 0 and w['no_device_time']['new_ps'] == 0, w
" && ok "gate --json: no_steps and no_device_time" || fail "gate --json: no_steps and no_device_time" "see above"
	$XTOP report --json "$TMP/hostonly.pb" 2>/dev/null | $PY -c "
import json, sys
o = json.load(sys.stdin)['overview']
assert o['steps'] is None, o['steps']
for k in ('h2d_in_steps_ps', 'h2d_in_steps_percent', 'd2h_in_steps_ps', 'd2h_in_steps_percent'):
    assert o[k] is None, (k, o[k])
" && ok "overview without steps: copies in steps are null, not 0" ||
		fail "overview without steps: copies in steps are null, not 0" "see above"
else
	fail "host-only profile" "$(cat "$TMP/err")"
fi

# The same when NEW keeps its host step markers and BASE's steps are
# inferred runs: steps of two kinds compare no busy time, but NEW having
# none at all is still a regression (it passed the gate before).
MLP="tests/fixtures/h100/jax-h100-mlp-cb.xplane.pb.gz"
AGT="tests/fixtures/h100/agent-h100-mlp-cb.xplane.pb.gz"
if without_devices "$MLP" "$TMP/mlp-hostonly.pb" 2>"$TMP/err"; then
	$XTOP report --baseline "$AGT" --fail-over 10 "$TMP/mlp-hostonly.pb" >"$TMP/out" 2>&1
	rc=$?
	if [ $rc -eq 3 ] && grep -q "steps: 12" "$TMP/out" &&
		grep -q "regression: NEW has no device time (BASE: .* busy)" "$TMP/out"; then
		ok "gate: NEW with host steps but no device time fails against inferred steps"
	else
		fail "gate: host steps, no device time" "exit $rc: $(grep -A3 'Regression gate' "$TMP/out")"
	fi
else
	fail "host-only MLP profile" "$(cat "$TMP/err")"
fi

# diff --json lists every op unless --top asks for fewer, and says how many.
V="$FIX/tf-gpu-v100-2host"
$XTOP diff --json "$V" "$V/34.83.195.179_6003.xplane.pb" | $PY -c "
import json, sys
d = json.load(sys.stdin)
assert d['ops_total'] == len(d['ops']) == 1332, (d['ops_total'], len(d['ops']))
" && ok "diff --json: every op by default, ops_total" || fail "diff --json: every op by default" "see above"
$XTOP diff --json --top 5 "$V" "$V/34.83.195.179_6003.xplane.pb" | $PY -c "
import json, sys
d = json.load(sys.stdin)
assert d['ops_total'] == 1332 and len(d['ops']) == 5
" && ok "diff --json --top 5: five of ops_total" || fail "diff --json --top 5" "see above"
# Per step, the devices' busy too (one device: the same as busy).
H=tests/fixtures/h100
$XTOP diff --json "$H/jax-h100-tfm-nocb.xplane.pb.gz" "$H/jax-h100-tfm-cb.xplane.pb.gz" | $PY -c "
import json, sys
d = json.load(sys.stdin)
assert d['per_step'] and len(d['devices']) == 1
dv = d['devices'][0]
assert dv['base_busy_ps'] == d['busy']['base_ps'] and dv['new_busy_ps'] == d['busy']['new_ps'], (dv, d['busy'])
" && ok "diff --json: devices' busy per step, as busy" || fail "diff --json: devices' busy per step" "see above"
# An op renamed by a recompile, at 80 columns: its new name stays, the old
# one from where they differ ("custom-call.4 (was .6)").
if COLUMNS=80 $XTOP diff "$H/jax-h100-tfm-nocb.xplane.pb.gz" "$H/jax-h100-tfm-cb.xplane.pb.gz" \
	>"$TMP/dh80.txt" && grep -q "identity .*-call\.4 (was \.6) *$" "$TMP/dh80.txt"; then
	ok "diff at 80 columns: an op matched by identity keeps its new name, the old one shortened"
else
	fail "diff at 80 columns: renamed op" "$(grep identity "$TMP/dh80.txt" | head -n 3)"
fi
# A long old name gives way before the new one: the row read
# "jit_trai..emm_fusion_dot.14)", as if it were the old op.
if grep -q " work  *custom-call\.10 (was g\.\.14) *\$" "$TMP/dh80.txt" &&
	grep -q " work  *gemm_fusion_dot\.64 *\$" "$TMP/dh80.txt"; then
	ok "diff at 80 columns: the new name stays whole where the old one does not fit"
else
	fail "diff at 80 columns: new name whole" "$(grep ' work ' "$TMP/dh80.txt" | head -n 3)"
fi
# Every op in one program: it is named once, above them, and the rows name
# the ops alone ("jit_train_step/" took 15 of the name's 26 columns).
grep -q "^Ops of jit_train_step: self time per step" "$TMP/dh80.txt" &&
	grep -q "% MATCH     OP\$" "$TMP/dh80.txt" &&
	grep -q " exact  *input_transpose_fusion\.8\$" "$TMP/dh80.txt" &&
	! sed -n '/^Ops/,/^Devices/p' "$TMP/dh80.txt" | grep -q "jit_train_step/" &&
	ok "diff: ops all in one program name it once, above them" ||
	fail "diff: one program" "$(sed -n '/^Ops/,+3p' "$TMP/dh80.txt")"
# Narrow: MATCH, then BASE give way to the names (at 60 columns they had
# 17 and read "gemm..ion_dot.14"); never OLD's tail for NEW's name
# ("jit_..om-call.2)" was gemm_fusion_dot.64, once custom-call.2).
COLUMNS=60 $XTOP diff "$H/jax-h100-tfm-nocb.xplane.pb.gz" "$H/jax-h100-tfm-cb.xplane.pb.gz" >"$TMP/dh60.txt"
sed -n '/^Ops/,/^Devices/p' "$TMP/dh60.txt" | grep -E '%  *[^ ]+$' >"$TMP/dh60ops.txt"
if ! grep -q ")\$" "$TMP/dh60ops.txt" && grep -q "% gemm_fusion_dot\.64\$" "$TMP/dh60ops.txt" &&
	grep -q "^ *NEW  *DELTA  *% OP\$" "$TMP/dh60.txt" &&
	grep -q "% input_transpose_fusion\.8\$" "$TMP/dh60ops.txt"; then
	ok "diff at 60 columns: BASE and MATCH give way, names whole, none ends in the old name"
else
	fail "diff at 60 columns" "$(sed -n '/^Ops/,+4p' "$TMP/dh60.txt")"
fi
# At 80 columns no two rows read alike: ops of 24 layers, the GPUs of two hosts.
COLUMNS=80 $XTOP diff --top 40 "$V" "$V/34.83.195.179_6003.xplane.pb" >"$TMP/d80.txt"
ops=$(sed -n '/^Ops:/,/^$/p' "$TMP/d80.txt" | sed '1,2d;/^$/d' | awk '{print $NF}')
devs=$(sed -n '/^Devices:/,/^$/p' "$TMP/d80.txt" | grep "GPU" | awk '{print $NF}')
if [ "$(echo "$ops" | sort | uniq -d | wc -l)" -eq 0 ] && [ "$(echo "$ops" | wc -l)" -eq 40 ] &&
	[ "$(echo "$devs" | sort | uniq -d | wc -l)" -eq 0 ] && [ "$(echo "$devs" | wc -l)" -eq 6 ] &&
	grep -q "34.83.195.180_6003:/.*GPU:1\$" "$TMP/d80.txt"; then
	ok "diff at 80 columns: op rows and two hosts' devices read apart"
else
	fail "diff at 80 columns: rows apart" "$(echo "$ops" | sort | uniq -d | head -3) $(echo "$devs" | sort | uniq -d)"
fi
# Nothing on either side is no change, not "new".
if [ -s "$TMP/hostonly.pb" ]; then
	$XTOP diff "$TMP/hostonly.pb" "$TMP/hostonly.pb" >"$TMP/d0.txt"
	if grep -q "^  busy  *- *\$" "$TMP/d0.txt" && ! grep -q " new *\$" "$TMP/d0.txt"; then
		ok "diff: no device time on either side is '-', not 0 -> 0 nor 'new'"
	else
		fail "diff: 0 -> 0" "$(grep busy "$TMP/d0.txt")"
	fi
fi
# Paired by device name alone only when one device of BASE has it: the two
# V100 hosts' GPU:0 are not the H100's.
$XTOP diff --json "$V" tests/fixtures/h100/jax-h100-mlp-cb.xplane.pb.gz | $PY -c "
import json, sys
d = json.load(sys.stdin)
g = [x for x in d['devices'] if x['name'] == '/device:GPU:0']
assert len(g) == 3 and sum(not x['in_base'] for x in g) == 1, g
h = [x for x in g if x['host'] == 'jax-h100-mlp-cb'][0]
assert not h['in_base'] and h['base_busy_ps'] is None and h['new_busy_ps'] > 0, h
# The V100's GPU:0 has no events: its busy time is unknown, not 0.
assert all(x['base_busy_ps'] is None for x in g if x['in_base']), g
" && ok "diff: a device name two hosts of BASE have pairs with neither" ||
	fail "diff: ambiguous device names" "see above"
$XTOP diff --json tests/fixtures/h100/jax-h100-mlp-cb.xplane.pb.gz "$V" | $PY -c "
import json, sys
d = json.load(sys.stdin)
g = [x for x in d['devices'] if x['name'] == '/device:GPU:0']
assert len(g) == 3 and all(not x['in_base'] or not x['in_new'] for x in g), g
" && ok "diff: nor when NEW has the two hosts" || fail "diff: ambiguous device names in NEW" "see above"
# Steps of different kinds: the server capture's 12 host markers (which
# include dispatch) against the agent capture's 288 inferred device runs of
# the same training loop. Their step times differ by what a step is (899.6
# against 322.6 us), so they are not compared and the gate does not read
# them as a regression; nor is busy time, each capture of its own length.
M=tests/fixtures/h100/jax-h100-mlp-cb.xplane.pb.gz
A=tests/fixtures/h100/agent-h100-mlp-cb.xplane.pb.gz
$XTOP diff "$M" "$A" >"$TMP/kinds.txt"
if grep -q "^  step times not compared: what a step is differs" "$TMP/kinds.txt" &&
	grep -q "^    BASE: host step markers$" "$TMP/kinds.txt" &&
	grep -q "^    NEW:  inferred runs of jit_train_step$" "$TMP/kinds.txt" &&
	grep -q "^  mean  *-$" "$TMP/kinds.txt"; then
	ok "diff: steps of different kinds are said so, their times not compared"
else
	fail "diff: steps of different kinds" "$(sed -n 5,12p "$TMP/kinds.txt")"
fi
$XTOP diff --json "$M" "$A" | $PY -c "
import json, sys
s = json.load(sys.stdin)['steps']
assert (s['base_source'], s['new_source'], s['compared']) == ('host', 'inferred', False), s
assert s['mean'] is None and s['p50'] is None, s
" && ok "diff --json: each side's steps source, compared false, step times null" ||
	fail "diff --json: steps of different kinds" "see above"
$XTOP report "$A" --baseline "$M" --fail-over 5 --json 2>/dev/null | $PY -c "
import json, sys
g = json.load(sys.stdin)['gate']
assert not [r for r in g['regressions'] if r['what'] in ('step_mean', 'busy')], g
" && ok "gate: steps of different kinds do not fail the step time" ||
	fail "gate: steps of different kinds" "see above"
$XTOP diff --json "$M" "$M" | $PY -c "
import json, sys
s = json.load(sys.stdin)['steps']
assert s['compared'] is True and s['mean']['delta_ps'] == 0, s
" && ok "diff --json: steps of one kind are compared" || fail "diff: steps of one kind" "see above"
# XLA numbers instructions per build, and the H100 transformer with command
# buffers runs some GEMMs as Triton fusions that the build without them runs
# as cuBLAS custom calls: custom-call.2 of one is another GEMM than of the
# other. Ops pair by the same work a run: the four GEMMs that changed their
# implementation pair across names and categories ("work"), nothing is left
# added, removed or paired with other work, and `--fail-over 30` passes
# (it failed on custom-call.2, +95.5 %, by name).
TN=tests/fixtures/h100/jax-h100-tfm-nocb.xplane.pb.gz
TC=tests/fixtures/h100/jax-h100-tfm-cb.xplane.pb.gz
$XTOP diff --json "$TN" "$TC" | $PY -c "
import json, sys
ops = json.load(sys.stdin)['ops']
w = {o['name']: o['base_name'] for o in ops if o['match'] == 'work'}
assert w == {'custom-call.10': 'gemm_fusion_dot.14', 'custom-call.11': 'gemm_fusion_dot.8',
             'gemm_fusion_dot.64': 'custom-call.2', 'gemm_fusion_dot.68': 'custom-call.3'}, w
assert not [o['name'] for o in ops if o['work_differs'] or o['match'] in ('added', 'removed')]
" >"$TMP/why" 2>&1 && ok "diff: GEMMs implemented another way pair by their work" ||
	fail "diff: pairs by work" "$(cat "$TMP/why")"
# GEMMs of equal work but transposed shapes pair by their output shape:
# the build with command buffers runs [2,512,2048] as custom-call.7 and
# [2,2048,512] as custom-call.3, the other as custom-call.9 and .5; by
# self time alone they crossed (.7 with .5, .3 with .9), and the gate at
# 0 % named .3, which got faster. A gated pair names BASE's op too.
$XTOP diff --json "$TN" "$TC" | $PY -c "
import json, sys
ops = {o['name']: o for o in json.load(sys.stdin)['ops']}
assert ops['custom-call.7']['base_name'] == 'custom-call.9', ops['custom-call.7']
assert ops['custom-call.3']['base_name'] == 'custom-call.5', ops['custom-call.3']
assert ops['custom-call.3']['delta_percent'] < 0, ops['custom-call.3']
" >"$TMP/why" 2>&1 && ok "diff: GEMMs of equal work pair by their output shape" ||
	fail "diff: pairs by shape" "$(cat "$TMP/why")"
$XTOP report --json "$TC" --baseline "$TN" --fail-over 1 2>/dev/null | $PY -c "
import json, sys
r = {x['name']: x for x in json.load(sys.stdin)['gate']['regressions']}
assert r['custom-call.7']['base_name'] == 'custom-call.9', r['custom-call.7']
assert r['fusion.148']['base_name'] == 'fusion.148' and 'custom-call.3' not in r, r.keys()
" >"$TMP/why" 2>&1 && ok "gate --json: a regression names BASE's op" || fail "gate: base_name" "$(cat "$TMP/why")"
$XTOP report "$TC" --baseline "$TN" --fail-over 1 2>&1 |
	grep -q "^regression: op jit_train_step/custom-call.7 (was custom-call.9) self time" &&
	ok "gate: a regression of a renamed op says what it was" ||
	fail "gate: (was ...)" "$($XTOP report "$TC" --baseline "$TN" --fail-over 1 2>&1 | grep -m3 ^regression)"
COLUMNS=120 $XTOP diff "$TN" "$TC" >"$TMP/w.txt"
grep -q " work  *custom-call.11 (was gemm_fusion_dot.8) *$" "$TMP/w.txt" &&
	ok "diff: a pair by work reads 'work', with the old name" || fail "diff: work label" "$(grep -m2 ' work ' "$TMP/w.txt")"
if $XTOP report "$TC" --baseline "$TN" --fail-over 30 >"$TMP/g.txt" 2>&1; then
	ok "gate: the transformer with and without command buffers passes at 30 %"
else
	fail "gate: the twins" "$(grep ^regression "$TMP/g.txt")"
fi
$XTOP diff --json tests/fixtures/h100/jax-h100-mlp-nocb.xplane.pb.gz \
	tests/fixtures/h100/jax-h100-mlp-cb.xplane.pb.gz | $PY -c "
import json, sys
ops = json.load(sys.stdin)['ops']
assert ops and all(o['match'] == 'exact' and not o['work_differs'] for o in ops), \
    [o['name'] for o in ops if o['match'] != 'exact' or o['work_differs']]
" && ok "diff: the MLP's twins pair by name, op for op" || fail "diff: MLP twins" "see above"
# A pair that does other work (the TPU's broadcast_add_fusion.1 with twice
# its FLOPs and bytes, and 4x its time) is marked and gated on its time for
# BASE's work: +100 %, not +300 %.
if have_fixtures; then
	T0="$FIX/jax-tpu-v6e-4chip/tpu_inference_2.xplane.pb"
	$PY - "$T0" "$TMP/t2.pb" <<'PYEOF'
import sys
sys.path.insert(0, 'tests/fixtures')
import xspace_io
s = xspace_io.read(sys.argv[1], sys.exit)
for p in s.planes:
    fl = [k for k, m in p.stat_metadata.items() if m.name in ('flops', 'bytes_accessed')]
    ids = [k for k, m in p.event_metadata.items()
           if (m.display_name or m.name) == 'broadcast_add_fusion.1']
    for k in ids:
        for st in p.event_metadata[k].stats:
            if st.metadata_id in fl:
                f = st.WhichOneof('value')
                setattr(st, f, getattr(st, f) * 2)
xspace_io.write(s, sys.argv[2])
PYEOF
	$PY tests/fixtures/slow_op.py "$TMP/t2.pb" "$TMP/t3.pb" broadcast_add_fusion.1 4 >/dev/null 2>&1
	$XTOP diff "$T0" "$TMP/t3.pb" >"$TMP/w.txt"
	grep -q " identity\* .*ast_add_fusion\.1 *$" "$TMP/w.txt" &&
		grep -q "^  \* does other work in NEW: FLOPs or bytes a run differ" "$TMP/w.txt" &&
		ok "diff: a pair that does other work is marked, with a note" ||
		fail "diff: the mark" "$(grep -m3 'broadcast_add' "$TMP/w.txt")"
	$XTOP report "$TMP/t3.pb" --baseline "$T0" --fail-over 50 --json 2>/dev/null | $PY -c "
import json, sys
r = [x for x in json.load(sys.stdin)['gate']['regressions'] if x['name'] == 'broadcast_add_fusion.1']
assert r and r[0]['what'] == 'op_work' and abs(r[0]['delta_percent'] - 100) < 1, r
" && ok "gate: a pair that does other work is gated on its time for BASE's work (+100 %)" ||
		fail "gate: work_differs pairs" "see above"
else
	skip_n 2 "diff: a pair that does other work" "$NOFIX"
fi
# Steps of two kinds: ops compare per occurrence, so a slower op is caught
# whatever each side counts as a step (a count of steps is no common unit).
$PY tests/fixtures/slow_op.py "$A" "$TMP/slowa.pb" loop_convert_multiply_fusion 3 >/dev/null 2>&1
$XTOP report "$TMP/slowa.pb" --baseline "$M" --fail-over 30 --json 2>/dev/null | $PY -c "
import json, sys
d = json.load(sys.stdin)
assert d['comparison']['per_occurrence'] is True and d['comparison']['per_step'] is False
assert d['comparison']['busy'] is None or d['comparison']['busy'].get('base_ps') is None, d['comparison']['busy']
r = [x for x in d['gate']['regressions'] if x['name'] == 'loop_convert_multiply_fusion']
assert r and r[0]['delta_percent'] > 150, r
" && ok "gate: steps of two kinds: ops per occurrence, a 3x slower op caught, busy not compared" ||
	fail "gate: steps of two kinds, per occurrence" "see above"
# Nor per device: the text's device table has no busy delta there.
dev=$($XTOP diff -w "$M" "$A" 2>/dev/null | grep -A2 '^Devices' | grep 'GPU:0')
case "$dev" in
*" - "*) ok "diff: steps of two kinds: no per-device busy delta ($dev)" ;;
*) fail "diff: steps of two kinds: per-device busy delta shown" "$dev" ;;
esac

# Inferred steps: a run and the time to the next, so n runs make n - 1
# steps, and op and busy times, which hold all n runs, are per run. Per
# step they read 1/(n-1) higher, and a profile against itself scaled x4
# (12 runs against 48) failed the gate at +6.8 % on every op.
SCAN=tests/fixtures/h100/jax-h100-scan-cb.xplane.pb.gz
if $GEN --scale "$SCAN" 4 -o "$TMP/scan4.pb" >/dev/null 2>&1; then
	$XTOP report --baseline "$TMP/scan4.pb" --fail-over 1 "$SCAN" >"$TMP/out" 2>&1
	rc=$?
	if [ $rc -eq 0 ] && grep -Eq "^  busy/step +781\.0 us -> +781\.0 us +0 +0\.0%" "$TMP/out"; then
		ok "gate: a profile against itself x4 (inferred steps of 12 and 48 runs) passes, busy/step equal"
	else
		fail "gate: inferred steps of 12 and 48 runs" "exit $rc: $(grep -A2 'busy/step\|^Regression' "$TMP/out" | tr '\n' '|')"
	fi
else
	fail "gate: inferred steps of 12 and 48 runs" "xtop-gen --scale failed"
fi
