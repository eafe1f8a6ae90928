#!/bin/sh
# Trustworthy numbers (docs/analyses.md): GPU ops attributed inside CUDA
# command buffers, FLOPs and roofline within the devices' peaks, async ops
# timed start to done, memory that adds up, one time base, inferred steps.
# Profiles: JAX-on-H100-shaped ones written by tests/fixtures/jax_gpu_profile.py
# (with and without command buffers and HLO, and a raw-clock one as a PJRT
# plugin returns it), real JAX profiles recorded on an H100
# (tests/fixtures/h100), and the real fixtures in ../shared when present. Every
# number is also checked against the independent oracle (tests/oracle).
. tests/e2e/lib.sh

if ! $PY -c 'import google.protobuf' 2>/dev/null; then
	skip "fidelity" "python3-protobuf missing (scripts/deps.sh installs it)"
	exit 0
fi

# jcheck NAME JSON PYTHON-EXPR: the expression (with d = the report) holds.
jcheck() {
	name=$1 json=$2 expr=$3
	if $PY -c "
import json, sys, math
d = json.load(open('$json'))
ops = {o['name']: o for o in d['ops']}
mem = d['memory']
ok = bool($expr)
sys.exit(0 if ok else 1)
" 2>"$TMP/jerr"; then
		ok "$name"
	else
		fail "$name" "does not hold: $expr $(head -c 300 "$TMP/jerr")"
	fi
}

oracle_match() {
	name=$1 file=$2 json=$3
	if $PY tests/oracle/xspace_oracle.py "$file" >"$TMP/o.json" 2>"$TMP/err" &&
		$PY tests/oracle/compare.py "$json" "$TMP/o.json" >"$TMP/cmp" 2>&1; then
		ok "$name: $(cat "$TMP/cmp")"
	else
		fail "$name" "$(head -n 8 "$TMP/cmp" "$TMP/err" 2>/dev/null)"
	fi
}

gen() {
	$PY tests/fixtures/jax_gpu_profile.py "$@" 2>"$TMP/err" || {
		fail "generate $*" "$(cat "$TMP/err")"
		return 1
	}
}

report() {
	$XTOP report --json "$1" >"$2" 2>"$TMP/err" || fail "report $1" "$(cat "$TMP/err")"
}

# ---- JAX on an H100 with XLA's default command buffers, HLO in the profile ----
P=$TMP/cb.xplane.pb
gen "$P" && report "$P" "$TMP/cb.json"
oracle_match "command buffers: every number matches the oracle" "$P" "$TMP/cb.json"
jcheck "command buffers: no op is named after the graph launch" "$TMP/cb.json" \
	"not any(o['name'].startswith('command_buffer') for o in d['ops'])"
jcheck "command buffers: fusions named from their kernels, checked against the HLO" "$TMP/cb.json" \
	"all(ops[n]['attribution'] == 'kernel_name' and ops[n]['parent'] == 'command_buffer_1'
	     for n in ('loop_add_fusion', 'wrapped_subtract.1', 'input_reduce_fusion'))"
jcheck "command buffers: the cuBLAS kernel is listed by its name, not dropped" "$TMP/cb.json" \
	"any(o['attribution'] == 'unresolved' and o['name'].startswith('sm90_xmma_gemm')
	     and o['occurrences'] == 10 for o in d['ops'])"
jcheck "command buffers: the op rows account for every kernel" "$TMP/cb.json" \
	"sum(k['occurrences'] for o in d['ops'] for k in o['kernels']) == 52"
# loop_add_fusion adds two f32[2048,4096]: 8,388,608 FLOPs and 3 x 32 MiB per run.
jcheck "command buffers: FLOPs and bytes from the HLO cost model" "$TMP/cb.json" \
	"ops['loop_add_fusion']['flops'] == 10 * 2048 * 4096 and
	 ops['loop_add_fusion']['bytes_accessed'] == 10 * 3 * 2048 * 4096 * 4 and
	 ops['loop_add_fusion']['flops_source'] == 'hlo_cost_model'"
jcheck "H100 peak from the SM table: 4096 FLOP/SM/cycle x 132 SMs x 1.98 GHz" "$TMP/cb.json" \
	"abs(d['devices'][0]['peak_flops_per_s'] - 4096 * 132 * 1.98e9) < 1 and
	 d['devices'][0]['peak_hbm_bytes_per_s'] == 3352320000000"
jcheck "roofline: utilization in 0-1, bound_by set, intensity = FLOPs / bytes" "$TMP/cb.json" \
	"all(0 <= o['hbm_bw_utilization'] <= 1 and o['bound_by'] == 'memory'
	     and abs(o['arithmetic_intensity'] - o['flops'] / o['hbm_bytes']) < 1e-9
	     for o in d['ops'] if o['attribution'] == 'kernel_name')"
# (a step is a run and the time to the next: the last run is none)
jcheck "steps inferred from the 10 runs of jit_train_step: 9 steps" "$TMP/cb.json" \
	"d['steps_source'] == 'inferred' and d['steps_module'] == 'jit_train_step'
	 and len(d['steps']) == 9"
jcheck "memory adds up: live + other live + unattributed = peak" "$TMP/cb.json" \
	"all(sum(x['bytes'] for x in m['live_at_peak']) + m['live_other_bytes']
	     + m['unattributed_bytes'] == m['peak_bytes'] for m in mem)
	 and mem[0]['name'] == 'GPU:0 HBM'"
$XTOP report "$P" >"$TMP/cb.txt" 2>&1
if grep -q "in command buffers (command_buffer_1): named from the kernel names" "$TMP/cb.txt"; then
	ok "command buffers: the report says the names came from kernels"
else
	fail "command buffers: the report says the names came from kernels" "$(head -c 600 "$TMP/cb.txt")"
fi

# ---- the same run without the HLO (enable_hlo_proto off) ----
P=$TMP/nohlo.xplane.pb
gen "$P" --no-hlo && report "$P" "$TMP/nohlo.json"
oracle_match "command buffers, no HLO: every number matches the oracle" "$P" "$TMP/nohlo.json"
jcheck "command buffers, no HLO: kernel names, marked unchecked" "$TMP/nohlo.json" \
	"ops['wrapped_subtract_1']['attribution'] == 'kernel_name_unchecked' and
	 ops['wrapped_subtract_1']['parent'] == 'command_buffer_1' and
	 ops['wrapped_subtract_1']['flops'] is None and
	 ops['wrapped_subtract_1']['flops_per_s'] is None and
	 ops['wrapped_subtract_1']['bound_by'] == 'unknown'"

# ---- XLA_FLAGS=--xla_gpu_enable_command_buffer= ----
P=$TMP/nocb.xplane.pb
gen "$P" --no-command-buffers && report "$P" "$TMP/nocb.json"
oracle_match "no command buffers: every number matches the oracle" "$P" "$TMP/nocb.json"
# The GEMM is [2048,4096] x [4096,4096]: 2 x 2048 x 4096 x 4096 FLOPs a run.
jcheck "no command buffers: the cuBLAS GEMM's FLOPs from its dimensions" "$TMP/nocb.json" \
	"ops['custom-call.2']['attribution'] == 'hlo_op' and
	 ops['custom-call.2']['category'] == 'gemm' and
	 ops['custom-call.2']['flops'] == 10 * 2 * 2048 * 4096 * 4096 and
	 ops['custom-call.2']['bound_by'] == 'compute' and
	 0 < ops['custom-call.2']['flops_utilization'] < 1"
jcheck "no command buffers: the GEMM's kernel is beneath its op" "$TMP/nocb.json" \
	"ops['custom-call.2']['kernels'][0]['name'].startswith('sm90_xmma_gemm') and
	 ops['custom-call.2']['kernels'][0]['occurrences'] == 10"

# ---- an XSpace as a PJRT plugin returns it: a raw monotonic clock ----
P=$TMP/raw.xplane.pb
gen "$P" --raw-clock && report "$P" "$TMP/raw.json"
oracle_match "raw clock: every number matches the oracle" "$P" "$TMP/raw.json"
jcheck "raw clock: times are from the profile start, not the clock's epoch" "$TMP/raw.json" \
	"d['hosts'][0]['time_origin'] == 'first_line' and
	 0 <= mem[0]['peak_time_ps'] < 10**13 and 0 <= d['steps'][0]['start_ps'] < 10**13"
if $XTOP report "$P" | grep -q "6083479"; then
	fail "raw clock: the text report shows no absolute clock" "$($XTOP report "$P" | grep 6083479 | head -2)"
else
	ok "raw clock: the text report shows no absolute clock"
fi

# ---- real JAX profiles from an H100 (tests/fixtures/h100/README.md) ----
H=tests/fixtures/h100
# xspace_eval FILE EXPR: EXPR of the file itself (sp, as xspace_io reads it).
xspace_eval() {
	$PY -c "
import sys
sys.path.insert(0, 'tests/fixtures')
import xspace_io
sp = xspace_io.read('$1', sys.exit)
print($2)
"
}
# Kernels on the GPU plane's lines, counted from the file itself.
gpu_kernels() {
	xspace_eval "$1" \
		"sum(len(l.events) for p in sp.planes if p.name.startswith('/device:GPU:') for l in p.lines)"
}
# peaks NAME JSON MODEL HBM: a Hopper's peaks from its plane (4096 FLOP/SM/
# cycle x 132 SMs x 1.98 GHz; HBM bytes/s), and no op's rate above them.
peaks() {
	jcheck "$1" "$2" \
		"d['devices'][0]['model'] == '$3' and
		 abs(d['devices'][0]['peak_flops_per_s'] - 4096 * 132 * 1.98e9) < 1 and
		 d['devices'][0]['peak_hbm_bytes_per_s'] == $4 and
		 all(o['flops_per_s'] is None or o['flops_per_s'] <= 4096 * 132 * 1.98e9 for o in d['ops']) and
		 all(o['hbm_bytes_per_s'] is None or o['hbm_bytes_per_s'] <= $4 for o in d['ops'])"
}
for n in mlp-cb mlp-nocb tfm-cb tfm-nocb scan-cb scan-nocb; do
	report "$H/jax-h100-$n.xplane.pb.gz" "$TMP/h-$n.json"
	oracle_match "H100 $n: every number matches the oracle" "$H/jax-h100-$n.xplane.pb.gz" "$TMP/h-$n.json"
done
# Inferred steps are periods: the MLP that xtop run captured ran its 288
# runs 726 us apart, 322 us each, and the device idles 55 % of its span.
# A step is a run and the time to the next, so the steps hold that idle, as
# host time or idle (they read 322 us and 0.07 % idle as runs alone), and
# the last run, which
# the capture's end cut to 6 of its 21 kernels (108.8 us), is no step.
report "$H/agent-h100-mlp-cb.xplane.pb.gz" "$TMP/h-agent.json"
jcheck "H100 agent MLP: 287 steps of 288 runs, a period each (mean 726 us), idle as the device's" \
	"$TMP/h-agent.json" \
	"d['steps_source'] == 'inferred' and len(d['steps']) == 287 and
	 abs(sum(s['duration_ps'] for s in d['steps']) / 287 - 726.3e6) < 0.1e6 and
	 min(s['duration_ps'] for s in d['steps']) > 500e6 and
	 abs(sum(s['idle_ps'] + s['host_compute_ps'] for s in d['steps'])
	     / sum(s['duration_ps'] for s in d['steps']) - d['devices'][0]['idle_percent'] / 100) < 0.01"
# A -cb file and its -nocb twin ran the same program: the same ops, once a step.
jcheck "H100 MLP, command buffers: the same 21 ops and counts as without them, times within 10%" \
	"$TMP/h-mlp-cb.json" \
	"[(o['name'], o['occurrences']) for o in sorted(d['ops'], key=lambda o: o['name'])] ==
	 [(o['name'], o['occurrences']) for o in sorted(json.load(open('$TMP/h-mlp-nocb.json'))['ops'],
	                                                 key=lambda o: o['name'])] and
	 len(d['ops']) == 21 and
	 all(abs(o['self_ps'] / n['self_ps'] - 1) < 0.1 for o in d['ops']
	     for n in json.load(open('$TMP/h-mlp-nocb.json'))['ops'] if n['name'] == o['name'])"
jcheck "H100 MLP: a reused kernel and a cuBLAS call named by their places in the run" \
	"$TMP/h-mlp-cb.json" \
	"ops['loop_convert_multiply_fusion.1']['attribution'] == 'kernel_order' and
	 ops['loop_convert_multiply_fusion.1']['kernels'][0]['name'] == 'loop_convert_multiply_fusion' and
	 ops['loop_convert_multiply_fusion']['occurrences'] == 12 and
	 ops['custom-call.1']['category'] == 'gemm' and ops['custom-call.1']['occurrences'] == 12 and
	 ops['custom-call.1']['kernels'][0]['name'].startswith('nvjet_sm90') and
	 ops['custom-call.1']['parent'] == 'command_buffer_1' and
	 0 < ops['custom-call.1']['flops_utilization'] < 1"
jcheck "H100 transformer, command buffers: 94 ops, each once a step, none unresolved, as without" \
	"$TMP/h-tfm-cb.json" \
	"len(d['ops']) == 94 == len(json.load(open('$TMP/h-tfm-nocb.json'))['ops']) and
	 all(o['occurrences'] == 12 for o in d['ops']) and
	 not any(o['attribution'] == 'unresolved' for o in d['ops'])"
jcheck "H100 transformer: fusion.148 and fusion.153 share one kernel, each counted once a step" \
	"$TMP/h-tfm-cb.json" \
	"[k['name'] for k in ops['fusion.148']['kernels']] == ['fusion_153'] ==
	 [k['name'] for k in ops['fusion.153']['kernels']] and
	 ops['fusion.148']['attribution'] == 'kernel_order' and
	 ops['fusion.153']['attribution'] == 'kernel_name' and
	 ops['fusion.148']['occurrences'] == ops['fusion.153']['occurrences'] == 12"
jcheck "H100 transformer: the 14 cuBLAS calls are gemms with their nvjet kernels (and memsets)" \
	"$TMP/h-tfm-cb.json" \
	"sorted(o['name'] for o in d['ops'] if o['category'] == 'gemm') ==
	 sorted('custom-call.%d' % i for i in range(14)) and
	 all(k['name'].startswith(('nvjet_sm90', 'Memset'))
	     for o in d['ops'] if o['category'] == 'gemm' for k in o['kernels'])"
jcheck "H100 scan, command buffers: the ops and counts of its twin (but the GEMM it tuned to Triton)" \
	"$TMP/h-scan-cb.json" \
	"{(o['name'], o['occurrences']) for o in d['ops']} ^
	 {(o['name'], o['occurrences']) for o in json.load(open('$TMP/h-scan-nocb.json'))['ops']} ==
	 {('gemm_fusion_dot.2', 96), ('custom-call.1', 96)} and
	 not any(o['attribution'] == 'unresolved' for o in d['ops'])"
jcheck "H100 scan: the loop's dynamic slices, run as copies in the graphs, are their fusions" \
	"$TMP/h-scan-cb.json" \
	"all(ops[n]['attribution'] == 'kernel_order' and ops[n]['occurrences'] == 96 and
	     ops[n]['kernels'][0]['name'].startswith('memcpy')
	     for n in ('loop_dynamic_slice_fusion.3', 'loop_dynamic_slice_fusion.4',
	               'loop_dynamic_slice_fusion.5', 'loop_dynamic_update_slice_fusion.7',
	               'loop_dynamic_update_slice_fusion.8')) and
	 ops['loop_dynamic_slice_fusion.4']['parent'] == 'command_buffer_29' and
	 ops['loop_add_fusion.2']['kernels'][0]['name'] == 'loop_add_fusion'"
# The scan's carry (32 MiB) takes a 4 MiB update in place: the fusion reads
# the update, not the carry it writes into (8.4 MB a run, not 41.9), and its
# rate is under the H100's peak, shown.
for n in scan-cb scan-nocb; do
	jcheck "H100 $n: dynamic-update-slice fusions read their update, not the carry (rates shown)" \
		"$TMP/h-$n.json" \
		"all(ops[n]['bytes_accessed'] == 8388612 * 96 and ops[n]['hbm_bytes_per_s'] is not None and
		     0.5 < ops[n]['hbm_bw_utilization'] < 1
		     for n in ('loop_dynamic_update_slice_fusion.1', 'loop_dynamic_update_slice_fusion.2',
		               'loop_dynamic_update_slice_fusion.7'))"
done
jcheck "H100 scan, no command buffers: 12 runs (11 steps), the loop's side-stream copies join no two" \
	"$TMP/h-scan-nocb.json" \
	"d['steps_source'] == 'inferred' and len(d['steps']) == 11 and
	 all(s['duration_ps'] < 10**10 for s in d['steps'])"
for n in tfm-cb tfm-nocb mlp-cb scan-cb scan-nocb; do
	k=$(gpu_kernels "$H/jax-h100-$n.xplane.pb.gz")
	jcheck "H100 $n: the op rows account for all $k kernels of the file" "$TMP/h-$n.json" \
		"sum(k['occurrences'] for o in d['ops'] for k in o['kernels']) == $k"
done
jcheck "H100 scan: its one compute stream, Stream #14(MemcpyD2D,Compute), runs 1392 kernels, not copies" \
	"$TMP/h-scan-nocb.json" \
	"d['devices'][0]['kernels'] == 1392 and d['devices'][0]['small_kernels'] == 1328 and
	 any(f['id'] == 'launch_bound' for f in d['overview']['findings'])"
for n in mlp scan; do
	jcheck "H100 $n: launch_bound without command buffers, not with them (kernels launched as one graph)" \
		"$TMP/h-$n-cb.json" \
		"not any(f['id'] == 'launch_bound' for f in d['overview']['findings']) and
		 any(f['id'] == 'launch_bound' and 'enable command buffers' in f['text']
		     for f in json.load(open('$TMP/h-$n-nocb.json'))['overview']['findings'])"
done
# Launch overhead idles a device within its programs' runs; the idle
# between them is the host's loop. The transformer without command buffers
# is 26 % idle over its span and 8 % within its runs: no launch_bound. The
# MLP's runs are 20.0 % idle, the scan's 73 %: theirs name that share.
jcheck "H100 tfm without command buffers: idle 26 %, 8 % within its runs, no launch_bound" \
	"$TMP/h-tfm-nocb.json" \
	"d['devices'][0]['idle_percent'] > 25 and
	 not any(f['id'] == 'launch_bound' for f in d['overview']['findings'])"
jcheck "H100 mlp and scan without command buffers: launch_bound names the idle within runs" \
	"$TMP/h-mlp-nocb.json" \
	"[round(f['numbers']['run_idle_percent'], 1) for f in d['overview']['findings']
	  if f['id'] == 'launch_bound'] == [20.0] and
	 [round(f['numbers']['run_idle_percent']) for f in json.load(open('$TMP/h-scan-nocb.json'))
	  ['overview']['findings'] if f['id'] == 'launch_bound'] == [73] and
	 any('20.0% of the time its programs run' in f['text'] for f in d['overview']['findings'])"
for n in mlp-cb mlp-nocb tfm-cb scan-nocb; do
	jcheck "H100 $n: %DEV adds up to 100 (concurrent streams do not push it over)" "$TMP/h-$n.json" \
		"abs(sum(o['percent'] for o in d['ops']) - 100) < 0.01"
done
peaks "H100: peaks from the plane (4096 FLOP/SM/cycle x 132 SMs x 1.98 GHz, 3.35 TB/s)" \
	"$TMP/h-tfm-cb.json" "NVIDIA H100 80GB HBM3" 3352320000000
jcheck "H100 MLP: 12 steps from the host markers, times from the profile start" "$TMP/h-mlp-cb.json" \
	"d['steps_source'] == 'host' and len(d['steps']) == 12 and
	 0 < d['steps'][0]['start_ps'] < 10**12 and d['time_base'] == 'profile_start'"
jcheck "H100 transformer: 11 steps inferred from jit_train_step's 12 runs" "$TMP/h-tfm-cb.json" \
	"d['steps_source'] == 'inferred' and d['steps_module'] == 'jit_train_step' and
	 len(d['steps']) == 11"
jcheck "H100: the GPU allocator's memory adds up to its peak" "$TMP/h-tfm-nocb.json" \
	"mem and mem[0]['name'] == 'GPU:0 HBM' and
	 all(sum(x['bytes'] for x in m['live_at_peak']) + m['live_other_bytes']
	     + m['unattributed_bytes'] == m['peak_bytes'] for m in mem)"
$XTOP report "$H/jax-h100-tfm-cb.xplane.pb.gz" >"$TMP/h-tfm-cb.txt" 2>&1
if grep -q "94 ops in command buffers (command_buffer_1): named from the kernel names" "$TMP/h-tfm-cb.txt" &&
	grep -q "49 of them by the kernel's place in the program's schedule" "$TMP/h-tfm-cb.txt"; then
	ok "H100 transformer: the report says how the names were found"
else
	fail "H100 transformer: the report says how the names were found" \
		"$(grep -A2 'ops in command' "$TMP/h-tfm-cb.txt")"
fi
if sed -n 3,4p "$TMP/h-tfm-cb.txt" | grep -q '\.\.'; then
	fail "report: the time-base and FLOPs lines are whole at 80 columns" "$(sed -n 3,4p "$TMP/h-tfm-cb.txt")"
else
	ok "report: the time-base and FLOPs lines are whole at 80 columns"
fi

# ---- real JAX profiles from an H200 (tests/fixtures/h200/README.md) ----
H2=tests/fixtures/h200
report "$H2/jax-h200-tfm-nocb.xplane.pb.gz" "$TMP/h2-tfm.json"
oracle_match "H200 transformer: every number matches the oracle" "$H2/jax-h200-tfm-nocb.xplane.pb.gz" "$TMP/h2-tfm.json"
report "$H2/agent-h200-mlp-cb.xplane.pb.gz" "$TMP/h2-mlp.json"
oracle_match "H200 agent capture: every number matches the oracle" "$H2/agent-h200-mlp-cb.xplane.pb.gz" "$TMP/h2-mlp.json"
peaks "H200: peaks from the plane (the H100's SMs and clock, 4.81 TB/s), no rate above them" \
	"$TMP/h2-tfm.json" "NVIDIA H200" 4814304000000
k=$(gpu_kernels "$H2/jax-h200-tfm-nocb.xplane.pb.gz")
jcheck "H200 transformer: 97 ops once a run, 11 inferred steps (12 runs), all $k kernels in the op rows" \
	"$TMP/h2-tfm.json" \
	"len(d['ops']) == 97 and all(o['occurrences'] == 12 and o['attribution'] == 'hlo_op' for o in d['ops'])
	 and d['steps_source'] == 'inferred' and len(d['steps']) == 11 and
	 sum(k['occurrences'] for o in d['ops'] for k in o['kernels']) == $k"
# The planes of the file itself (the report's are those after any merge).
planes=$(xspace_eval "$H2/agent-h200-mlp-cb.xplane.pb.gz" "' '.join(sorted(p.name for p in sp.planes))")
if [ "$planes" = "/device:GPU:0 /host:CPU /host:__ScopeRangeCallStack__ /host:metadata Task Environment" ]; then
	ok "H200 agent capture: saved with one /host:CPU, the CUPTI planes merged into it"
else
	fail "H200 agent capture: saved with one /host:CPU, the CUPTI planes merged into it" "$planes"
fi
k=$(gpu_kernels "$H2/agent-h200-mlp-cb.xplane.pb.gz")
jcheck "H200 agent capture, command buffers: the MLP's 21 ops by kernel, none unresolved, all $k kernels" \
	"$TMP/h2-mlp.json" \
	"len(d['ops']) == 21 and {o['attribution'] for o in d['ops']} == {'kernel_name', 'kernel_order'} and
	 {o['occurrences'] for o in d['ops']} <= {403, 404} and
	 sum(k['occurrences'] for o in d['ops'] for k in o['kernels']) == $k"
report "$H2/jax-h200-sort-nocb.xplane.pb.gz" "$TMP/h2-sort.json"
oracle_match "H200 sort: every number matches the oracle" "$H2/jax-h200-sort-nocb.xplane.pb.gz" "$TMP/h2-sort.json"
# Its 72 memsets are no kernels: the device's count is the kernels' table's
# 84 launches (it was 156), too few for the launch-bound finding.
jcheck "H200 sort: the device counts the table's 84 kernel launches, not its 72 memsets" \
	"$TMP/h2-sort.json" \
	"d['devices'][0]['kernels'] == sum(k['occurrences'] for k in d['kernels']) == 84 and
	 d['devices'][0]['small_kernels'] == 36 and
	 'launch_bound' not in [f['id'] for f in d['overview']['findings']]"
jcheck "H200 sort: CUB's sort ran once a call (12), though its first kernel, a memset, comes 6 times in each" \
	"$TMP/h2-sort.json" \
	"ops['custom-call.1']['occurrences'] == 12 and ops['loop_select_fusion']['occurrences'] == 12 and
	 {k['name']: k['occurrences'] for k in ops['custom-call.1']['kernels']}['Memset 3'] == 72 and
	 sum(k['occurrences'] for k in ops['custom-call.1']['kernels']) == 144 and
	 d['steps_source'] == 'inferred' and len(d['steps']) == 11"
# Without its HLO a loop body's op could pass for one of the entry: the scan's
# dynamic slices (eight a step, back to back on side streams) keep an
# occurrence per iteration.
$PY -c "
import sys
sys.path.insert(0, 'tests/fixtures')
import xspace_io
sp = xspace_io.read('$H/jax-h100-scan-nocb.xplane.pb.gz', sys.exit)
keep = [p for p in sp.planes if p.name != '/host:metadata']
del sp.planes[:]
sp.planes.extend(keep)
open('$TMP/scan-nohlo.xplane.pb', 'wb').write(sp.SerializeToString())
"
report "$TMP/scan-nohlo.xplane.pb" "$TMP/scan-nohlo.json"
jcheck "H100 scan without its HLO: the loop's slices keep an occurrence an iteration (96)" \
	"$TMP/scan-nohlo.json" \
	"all(o['occurrences'] == 96 for o in d['ops'] if 'dynamic' in o['name']) and
	 sum(1 for o in d['ops'] if 'dynamic' in o['name']) == 10"

# ---- real profiles ----
if have_fixtures; then
	report "$FIX/jax-tpu-v6e-4chip/tpu_inference_2.xplane.pb" "$TMP/tpu.json"
	jcheck "TPU fixture: copy-starts timed start to done (8-31 GB/s, not PB/s)" "$TMP/tpu.json" \
		"all(o['async'] == 'start' and 5e9 < o['bytes_per_s'] < 40e9
		     for o in d['ops'] if o['category'] == 'copy-start')"
	jcheck "TPU fixture: copy-dones have no rate and say why" "$TMP/tpu.json" \
		"all(o['async'] == 'done' and o['bytes_per_s'] is None and o['rate_note']
		     for o in d['ops'] if o['category'] == 'copy-done')"
	jcheck "TPU fixture: no rate above the 918 TFLOP/s and 1.64 TB/s peaks" "$TMP/tpu.json" \
		"all((o['flops_per_s'] is None or o['flops_per_s'] <= 918e12) and
		     (o['hbm_bytes_per_s'] is None or o['hbm_bytes_per_s'] <= 1637993152512)
		     for o in d['ops'])"
	jcheck "TPU fixture: allocators named by device, peaks add up (reserved stacks)" "$TMP/tpu.json" \
		"[m['name'] for m in mem] == ['TPU:0 HBM', 'TPU:1 HBM', 'TPU:2 HBM', 'TPU:3 HBM'] and
		 all(m['reserved_bytes'] == 21491712000 and m['lifetime_peak_bytes'] >= m['peak_bytes']
		     and sum(x['bytes'] for x in m['live_at_peak']) + m['live_other_bytes']
		         + m['unattributed_bytes'] == m['peak_bytes'] for m in mem)"
	jcheck "TPU fixture: the memory peak is 72.83 s from the profile start" "$TMP/tpu.json" \
		"mem[0]['peak_time_ps'] == 72829706942000"
	jcheck "TPU fixture: steps inferred from the runs of jit_f" "$TMP/tpu.json" \
		"d['steps_source'] == 'inferred' and d['steps_module'] == 'jit_f' and len(d['steps']) == 99"
	report "$FIX/tf-gpu-v100-2host/34.83.195.179_6003.xplane.pb" "$TMP/tf.json"
	jcheck "TF fixture: ops are TensorFlow ops (name and type), kernels beneath" "$TMP/tf.json" \
		"not any(o['name'].startswith('void ') for o in d['ops'] if o['attribution'] != 'event_name')
		 and ops['replica_4/bert_span_labeler/bert_encoder_1/word_embeddings/GatherV2/Cast']['category'] == 'Cast'
		 and ops['replica_4/bert_span_labeler/bert_encoder_1/word_embeddings/GatherV2/Cast']['kernels'][0]['name'].startswith('void Eigen::internal::EigenMetaKernel')"
	jcheck "TF fixture: OCC% absent (the profile has no occupancy), not 0" "$TMP/tf.json" \
		"all(k['occupancy_percent'] is None for k in d['kernels'])"
	report "$FIX/jax-rocm-mi300x-jax08_gemm/tw003.xplane.pb" "$TMP/rocm.json"
	jcheck "ROCm fixture: MI300X peak from the CU table, GEMM compute-bound under it" "$TMP/rocm.json" \
		"abs(d['devices'][0]['peak_flops_per_s'] - 2048 * 304 * 2.1e9) < 1 and
		 ops['custom-call.1']['bound_by'] == 'compute' and
		 0.05 < ops['custom-call.1']['flops_utilization'] < 1 and
		 ops['custom-call.1']['flops_source'] == 'hlo_cost_model'"
	jcheck "ROCm fixture: the profile names no device model: null, not an empty name" "$TMP/rocm.json" \
		"all(x['model'] is None for x in d['devices']) and ops['MemcpyH2D']['program'] == ''"
	report "$FIX/jax-rocm-mi300x-jax08_attention/tw003.xplane.pb" "$TMP/rocm2.json"
	jcheck "ROCm fixture: HBM3 peak 5.3 TB/s (the stat's 2.66 doubled), fusions at 3.07 TB/s shown, not impossible" \
		"$TMP/rocm2.json" \
		"abs(d['devices'][0]['peak_hbm_bytes_per_s'] - 2 * 2662400000000) < 1 and
		 'x2' in d['devices'][0]['peak_hbm_source'] and
		 [o for o in d['ops'] if o['name'] == 'loop_convert_fusion' and o['program'] == 'jit_multiply(86)'][0]['rate_note'] is None and
		 0.5 < [o for o in d['ops'] if o['name'] == 'loop_convert_fusion' and o['program'] == 'jit_multiply(86)'][0]['hbm_bw_utilization'] < 0.7"
	# 12 hipMemcpyHtoDAsync calls ran as HIP's copy kernel on stream 17, no op:
	# host-to-device copies, not a compute op named after the kernel.
	jcheck "ROCm fixture: HIP's copy kernels are the host calls' copies (MemcpyH2D), not compute" \
		"$TMP/rocm.json" \
		"ops['MemcpyH2D']['attribution'] == 'copy_call' and ops['MemcpyH2D']['occurrences'] == 12 and
		 ops['MemcpyH2D']['self_ps'] == 60240000 and ops['MemcpyH2D']['category'] == 'memcpy' and
		 '__amd_rocclr_copyBuffer.kd' not in ops and ops['copy.1']['occurrences'] == 12 and
		 d['devices'][0]['kernels'] == 30"
	# The TPU fixture without its /host: planes, as a capture with the host
	# tracer off: host-bound time is unknown (null, '-'), not 0 ps.
	mkdir -p "$TMP/nohost"
	$PY tests/fixtures/drop_planes.py "$FIX/jax-tpu-v6e-4chip/tpu_inference_2.xplane.pb" \
		"$TMP/nohost/tpu.xplane.pb" /host: 2>"$TMP/err" || fail "drop_planes" "$(cat "$TMP/err")"
	report "$TMP/nohost/tpu.xplane.pb" "$TMP/nohost.json"
	oracle_match "TPU without host planes: every number matches the oracle" \
		"$TMP/nohost/tpu.xplane.pb" "$TMP/nohost.json"
	jcheck "TPU without host planes: host-bound time null, not 0; the idle finding says why" \
		"$TMP/nohost.json" \
		"[x['host_bound_ps'] for x in d['devices']] == [None] * 4 and
		 d['overview']['host_bound_ps'] is None and d['overview']['host_bound_device'] is None and
		 [f['numbers']['host_bound_ps'] for f in d['overview']['findings'] if f['id'] == 'idle_gaps'] == [None] and
		 'no host activity' in d['overview']['findings'][0]['text'] and
		 all(s['host_compute_ps'] is None for s in d['steps'])"
	$XTOP report "$TMP/nohost/tpu.xplane.pb" >"$TMP/nohost.txt" 2>&1
	if grep -Eq "^ +78.78 s +92.48 s +14.8% +- +5.55 s /device:TPU:0" "$TMP/nohost.txt" &&
		grep -q "HOST-BND '-' on 4 devices: no activity of their host" "$TMP/nohost.txt" &&
		grep -q "HOST: unknown, the profile has no host activity" "$TMP/nohost.txt"; then
		ok "TPU without host planes: the report's HOST-BND and steps' HOST are '-', and say why"
	else
		fail "TPU without host planes, HOST-BND" "$(grep -m1 "TPU:0 (" "$TMP/nohost.txt")"
	fi
	# Without its device planes: compilation is the host's, and said.
	$PY tests/fixtures/drop_planes.py "$FIX/jax-tpu-v6e-4chip/tpu_inference_2.xplane.pb" \
		"$TMP/nohost/nodev.xplane.pb" /device: 2>"$TMP/err" || fail "drop_planes" "$(cat "$TMP/err")"
	if $XTOP report "$TMP/nohost/nodev.xplane.pb" 2>&1 |
		grep -q "^  collectives: none on the devices; compilation: 1.53 s inside the profile"; then
		ok "TPU without device planes: the report still says its compilation"
	else
		fail "TPU without device planes" "no compilation line"
	fi
else
	skip "fidelity on the real fixtures" "../shared/fixtures not found"
fi

# ---- HIP's copy kernels, by the host call of the same correlation id ----
# tests/fixtures/rocm_copies.py: 5 steps, each an H2D copy (20-24 us), an add
# and XLA's copy.1 (device to device), a D2H copy (8 us); one copy no host
# call explains, one whose id two calls of different kinds share, and one
# launched by hipMemcpyAsync on a stream named for D2H copies.
if $PY tests/fixtures/rocm_copies.py "$TMP/rocm-copies.xplane.pb" 2>"$TMP/err"; then
	report "$TMP/rocm-copies.xplane.pb" "$TMP/rc.json"
	oracle_match "HIP copies: every number matches the oracle" "$TMP/rocm-copies.xplane.pb" "$TMP/rc.json"
	jcheck "HIP copies: each step's H2D and D2H time is its copies', not compute" "$TMP/rc.json" \
		"[(s['host_to_device_ps'], s['device_to_host_ps'], s['device_compute_ps']) for s in d['steps']]
		 == [((20 + i) * 10**6, 8 * 10**6, 55 * 10**6) for i in range(5)]"
	jcheck "HIP copies: ops MemcpyH2D and MemcpyD2H (copy_call); copy.1 keeps its op" "$TMP/rc.json" \
		"ops['MemcpyH2D']['attribution'] == 'copy_call' and ops['MemcpyH2D']['occurrences'] == 5 and
		 ops['MemcpyD2H']['self_ps'] == 40 * 10**6 and ops['copy.1']['attribution'] == 'hlo_op_unchecked'
		 and ops['MemcpyH2D']['kernels'][0]['name'] == '__amd_rocclr_copyBuffer.kd'"
	jcheck "HIP copies: a copy no host call explains stays its kernel (a copy on a copy stream)" "$TMP/rc.json" \
		"ops['__amd_rocclr_copyBuffer.kd']['occurrences'] == 3 and
		 ops['__amd_rocclr_copyBuffer.kd']['attribution'] == 'event_name' and
		 d['devices'][0]['kernels'] == 7"
else
	fail "generate rocm_copies" "$(cat "$TMP/err")"
fi

# edit_plane FILE PLANE CODE: runs CODE with p, the plane named PLANE of
# FILE (as xspace_io reads it), and writes FILE back.
edit_plane() {
	$PY -c "
import sys
sys.path.insert(0, 'tests/fixtures')
import xspace_io
sp = xspace_io.read('$1', sys.exit)
p = [p for p in sp.planes if p.name == '$2'][0]
$3
xspace_io.write(sp, '$1')
"
}

# ---- a TPU with steps and no ops: its span is known, its busy time 0 ----
# Not a device with no events ('-', null): its Steps line gives it a span,
# and the idle finding that reads it stays consistent with the table.
$GEN --kind tpu --events 2000 --seed 3 -o "$TMP/noops.xplane.pb" >/dev/null 2>&1
edit_plane "$TMP/noops.xplane.pb" /device:TPU:0 "
for l in p.lines:
    if l.name != 'Steps':
        del l.events[:]" || fail "steps only" "could not edit the profile"
report "$TMP/noops.xplane.pb" "$TMP/noops.json"
oracle_match "a TPU of steps only: every number matches the oracle" "$TMP/noops.xplane.pb" "$TMP/noops.json"
jcheck "a TPU of steps only: busy 0 over a known span, no busy_note" "$TMP/noops.json" \
	"[(x['busy_ps'], x['span_ps'] > 0, x['idle_percent'], x['busy_note']) for x in d['devices']
	  if x['name'] == '/device:TPU:0'] == [(0, True, 100.0, None)]"

# ---- a device whose events are all instants: no span ----
# Its idle share and gap figures are unknown: null in JSON, '-' in the text,
# never 0 (an idle share of 0 reads as busy throughout); it still counts.
$GEN --kind gpu --events 3000 --seed 2 -o "$TMP/inst.xplane.pb" >/dev/null 2>&1
edit_plane "$TMP/inst.xplane.pb" /device:GPU:1 "
for l in p.lines:
    for e in l.events:
        e.offset_ps = 1000
        e.duration_ps = 0" || fail "instants" "could not edit the profile"
report "$TMP/inst.xplane.pb" "$TMP/inst.json"
oracle_match "a device of instants only: every number matches the oracle" "$TMP/inst.xplane.pb" "$TMP/inst.json"
jcheck "a device of instants only: span 0; start, idle share and gap figures null; events counted" \
	"$TMP/inst.json" \
	"[(x['span_ps'], x['start_ps'], x['idle_percent'], x['host_bound_ps'], x['longest_gap_ps'],
	   x['gaps_over_1ms'], x['op_events'] > 0) for x in d['devices'] if x['name'] == '/device:GPU:1']
	 == [(0, None, None, None, None, None, True)]"
$XTOP report "$TMP/inst.xplane.pb" >"$TMP/inst.txt" 2>&1
if grep -Eq "^ +0 ps +0 ps +- +- +- /device:GPU:1" "$TMP/inst.txt" &&
	grep -q "^  devices: 2, " "$TMP/inst.txt"; then
	ok "a device of instants only: the text says '-' for its span, idle share and gaps, and counts it"
else
	fail "instants, text" "$(grep -E 'devices:|GPU:1' "$TMP/inst.txt" | tr '\n' '|')"
fi
# The TPU's host offload: copy-starts whose HLO puts an operand or the
# result in host memory (S(5)) move 5 GiB over the host link at 9-30 GB/s.
# Read as HBM traffic they were "memory bound" at 0.5-1.9 % of the HBM
# roof; they have no HBM figures now, say why, and keep the link's rate.
if have_fixtures; then
	report "$FIX/jax-tpu-v6e-4chip/tpu_inference_2.xplane.pb" "$TMP/tpu.json"
	# A TPU op is timed by the device's own clock (device_offset_ps and
	# device_duration_ps), as XProf times it: copy-done.4's 400 waits add
	# up to 77.77 s by it, 70.54 s by the events' own durations (which put
	# it third, behind copy-done.2's 87.96 s, 77.64 s by the device).
	want=$(xspace_eval "$FIX/jax-tpu-v6e-4chip/tpu_inference_2.xplane.pb" "
sum(st.int64_value or st.uint64_value for p in sp.planes if p.name.startswith('/device:TPU:')
    for l in p.lines if l.name == 'XLA Ops' for e in l.events
    if p.event_metadata[e.metadata_id].display_name == 'copy-done.4'
    for st in e.stats if p.stat_metadata[st.metadata_id].name == 'device_duration_ps')")
	jcheck "TPU ops by the device's clock: copy-done.4's total is its device durations'" "$TMP/tpu.json" \
		"ops['copy-done.4']['total_ps'] == $want and d['ops'][0]['name'] == 'copy-done.4'
		 and round(ops['copy-done.2']['total_ps'] / 1e12, 2) == 77.64"
	jcheck "TPU host offload: copy-starts have no HBM rate, share or bound, and say why" "$TMP/tpu.json" \
		"sorted((o['name'], o['hbm_bytes_per_s'], o['hbm_bw_utilization'], o['bound_by'],
		         o['rate_note'].startswith('to or from host memory (S(5)'),
		         8e9 < o['bytes_per_s'] < 4e10)
		        for o in d['ops'] if o['name'].startswith('copy-start'))
		 == [(n, None, None, 'unknown', True, True) for n in
		     ['copy-start', 'copy-start.1', 'copy-start.2', 'copy-start.3', 'copy-start.4', 'copy-start.5']]"
	# Their copy-dones (no time of their own) read "AI 0.00" (0 FLOPs over
	# the host copy's bytes): no intensity either.
	jcheck "TPU host offload: copy-dones have no arithmetic intensity" "$TMP/tpu.json" \
		"[o['arithmetic_intensity'] for o in d['ops'] if o['name'].startswith('copy-done')]
		 == [None] * 6"
	# A done measures no time: rate_ps is null, not 0.
	jcheck "TPU host offload: a copy-done's rate_ps is null, a copy-start's its spans" "$TMP/tpu.json" \
		"[o['rate_ps'] for o in d['ops'] if o['name'].startswith('copy-done')] == [None] * 6
		 and all(o['rate_ps'] > 0 for o in d['ops'] if o['name'].startswith('copy-start'))"
	# Only TPU:0 has Async XLA Ops spans: the rates are of its 100 runs of
	# each copy-start's 400, and say so (their bytes over rate_ps).
	jcheck "TPU host offload: a copy-start's rates are of the 100 runs timed, of 400" "$TMP/tpu.json" \
		"all(o['occurrences'] == 400 and o['rate_occurrences'] == 100 and
		     abs(o['bytes_accessed'] / 4 / (o['rate_ps'] * 1e-12) - o['bytes_per_s']) < 1
		     for o in d['ops'] if o['name'].startswith('copy-start'))
		 and all(o['rate_occurrences'] is None for o in d['ops'] if o['name'].startswith('copy-done'))"
	# Which way each copy moves, from its HLO: copy-start, .2 and .4 read
	# a parameter from host memory (prefetches), .1, .3 and .5 write a
	# fusion's result there (offloads); a done goes the way of its start.
	jcheck "TPU host offload: each copy's direction comes from its HLO" "$TMP/tpu.json" \
		"sorted((o['name'], o['host_copy']) for o in d['ops'] if o['name'].startswith('copy'))
		 == sorted([(p + s, 'to_device') for p in ('copy-start', 'copy-done') for s in ('', '.2', '.4')]
		           + [(p + s, 'to_host') for p in ('copy-start', 'copy-done') for s in ('.1', '.3', '.5')])
		 and all(o['host_copy'] is None for o in d['ops'] if not o['name'].startswith('copy'))"
	# The steps were 100 % compute: the waits in the copy-dones (96 % of
	# the device's op time) are the device waiting on the host link. Now
	# 76 % of the step time is prefetch waits and 22 % offload waits, and
	# the findings say so, naming the longest wait each way.
	# Each step is one chip's run, broken down over that chip's work: swept
	# over all four chips, out of phase, it read 56/36/8 %, and step 0 had
	# 158.7 ms of compute where the chip whose run it is computes 24.05 ms.
	jcheck "TPU host offload: the step breakdown files the copy waits as transfers" "$TMP/tpu.json" \
		"(lambda st, tot: (round(100 * sum(s['host_to_device_ps'] for s in st) / tot),
		                   round(100 * sum(s['device_to_host_ps'] for s in st) / tot),
		                   round(100 * sum(s['device_compute_ps'] for s in st) / tot)))(
		     d['steps'], sum(s['duration_ps'] for s in d['steps'])) == (76, 22, 3)"
	jcheck "TPU steps: each is one chip's run, broken down over that chip's work" "$TMP/tpu.json" \
		"(d['steps'][0]['device'], d['steps'][0]['device_host'], d['steps'][0]['device_compute_ps'])
		 == ('/device:TPU:3', 'tpu_inference_2', 24052373750)
		 and {s['device'] for s in d['steps']} == {'/device:TPU:%d' % i for i in range(4)}"
	jcheck "TPU host offload: the findings name the waits and the host link" "$TMP/tpu.json" \
		"[(f['id'], f['numbers']['host_offload_ops'], f['numbers']['op'], 'host link' in f['text'])
		  for f in d['overview']['findings'] if f['id'] in ('h2d_in_steps', 'd2h_in_steps')]
		 == [('h2d_in_steps', 3, 'copy-done.4', True), ('d2h_in_steps', 3, 'copy-done.5', True)]"
else
	skip "TPU host offload" "$NOFIX"
fi
# At 80 columns the op table keeps both shares of the peaks (it dropped
# %PKF first: "835T 584G 11% compute" put the HBM share beside a
# compute-bound GEMM) and says what its abbreviations mean. (jit_dot ran
# five programs, one per shape: the largest, 49, first.)
if have_fixtures; then
	COLUMNS=80 $XTOP report "$FIX/jax-rocm-mi300x-jax08_gemm/tw003.xplane.pb" >"$TMP/g80.txt" 2>&1
	if grep -q "^      SELF  %DEV FLOP/s  %PKF  %PKB    AI BOUND   NAME\$" "$TMP/g80.txt" &&
		grep -q " 900T   69%  8.3%  2048 compute jit_dot(49)/custom-call.1\$" "$TMP/g80.txt" &&
		grep -q "^  columns: %PKF FLOP rate as a share of the device's peak; %PKB HBM bandwidth as\$" "$TMP/g80.txt"; then
		ok "report at 80 columns: both shares of the peaks, and a legend for them"
	else
		fail "report, op columns at 80" "$(sed -n '/^Op profile/,/^\$/p' "$TMP/g80.txt" | head -4 | tr '\n' '|')"
	fi
fi
# At 40 columns a memory row's figure stays whole and its text gives way
# ("3.74..rofile or without an event" cut the figure).
if have_fixtures; then
	COLUMNS=40 $XTOP report "$FIX/tf-gpu-v100-2host" >"$TMP/v40.txt" 2>&1
	sed -n '/^Memory/,/^GPU kernels/p' "$TMP/v40.txt" | grep '^      ' >"$TMP/v40m.txt"
	if [ -s "$TMP/v40m.txt" ] &&
		! grep -Eq '^ +[0-9.]+\.\.' "$TMP/v40m.txt" &&
		grep -Eq '^ +3\.74 GiB  alloca' "$TMP/v40m.txt" &&
		grep -Eq '^ +3\.00 KiB  replic' "$TMP/v40m.txt"; then
		ok "report at 40 columns: memory figures whole, their text elided"
	else
		fail "report, memory at 40" "$(head -4 "$TMP/v40m.txt" | tr '\n' '|')"
	fi
fi
# One op name in nine programs is nine kernel rows, as it is nine ops:
# the MI300X elementwise profile's loop_convert_fusion (84 % of its device
# time; eight modules, jit_add compiled for two shapes) was two rows (two
# grids), one of 35 launches, which no op-profile row matched.
if have_fixtures; then
	report "$FIX/jax-rocm-mi300x-jax08_elementwise/tw003.xplane.pb" "$TMP/ew.json"
	jcheck "kernels: loop_convert_fusion of nine programs is nine rows, each its op's" "$TMP/ew.json" \
		"(lambda ks, ops: sorted(set(k['program'] for k in ks if k['op'] == 'loop_convert_fusion'))
		  == sorted(o['program'] for o in ops if o['name'] == 'loop_convert_fusion')
		  and len(set(k['program'] for k in ks if k['op'] == 'loop_convert_fusion')) == 9
		  and all(sum(k['total_ps'] for k in ks if k['op'] == o['name'] and k['program'] == o['program'])
		          == o['total_ps'] for o in ops if o['name'] == 'loop_convert_fusion'))
		 (d['kernels'], d['ops'])"
	COLUMNS=80 $XTOP report "$FIX/jax-rocm-mi300x-jax08_elementwise/tw003.xplane.pb" >"$TMP/ew.txt" 2>&1
	if grep -q " jit_add(11)\.\.kd (loop_convert_fusion)\$" "$TMP/ew.txt" &&
		grep -q " jit_sin: lo\.\.kd (loop_convert_fusion)\$" "$TMP/ew.txt"; then
		ok "report at 80 columns: a kernel row of a shared op name leads with its program"
	else
		fail "report, kernel program" "$(sed -n '/^GPU kernels/,/^\$/p' "$TMP/ew.txt" | head -5 | tr '\n' '|')"
	fi
else
	skip "kernels by program" "$NOFIX"
fi
# The idle finding names a device that computes: the MI300X conv profile's
# GPU:0 only copies (no kernel, idle 96.8 %); GPU:7 runs the convolutions.
if have_fixtures; then
	report "$FIX/jax-rocm-mi300x-conv-legacy" "$TMP/conv.json"
	jcheck "idle_gaps names the GPU that computes, not one that only copies" "$TMP/conv.json" \
		"[x['numbers']['device'] for x in d['overview']['findings'] if x['id'] == 'idle_gaps']
		 == ['/device:GPU:7']"
	# GPU:1-6 ran programs (their host threads' ExecuteHelper events, their
	# allocators' peaks) and have no events: not "idle", not 0 busy, but
	# unknown, and the text and JSON say why.
	jcheck "devices with no events: busy and span null, with the reason" "$TMP/conv.json" \
		"sorted(x['name'][-1] for x in d['devices'] if x['busy_ps'] is None and x['span_ps'] is None
		        and x['op_events'] == 0 and 'not traced' in x['busy_note']) == list('123456')
		 and all(x['busy_note'] is None for x in d['devices'] if x['op_events'])"
	$XTOP report "$FIX/jax-rocm-mi300x-conv-legacy" >"$TMP/conv.txt" 2>&1
	if [ "$(grep -Ec '^ +- +- +- .*/device:GPU:[1-6]' "$TMP/conv.txt")" -eq 6 ] &&
		! sed -n '/^Devices/,/^$/p' "$TMP/conv.txt" | grep -q " idle " &&
		grep -q "^  6 devices without events (all '-'): idle, or not traced" "$TMP/conv.txt"; then
		ok "devices with no events: '-' for busy, span and idle share in the text, and why"
	else
		fail "devices with no events, text" "$(sed -n '/^Devices/,/^$/p' "$TMP/conv.txt" | tr '\n' '|')"
	fi
	# So does "idle while the host worked" (GPU:0 was named: 23.55 ms).
	jcheck "the host-bound device is one that computes, not one that only copies" "$TMP/conv.json" \
		"(d['overview']['host_bound_device'], round(d['overview']['host_bound_ps'] / 1e9, 2))
		 == ('/device:GPU:7', 11.97)"
	# The main thread's dispatch work counts as host work on the line the
	# Python tracer's frames share with it ("python" in the JAX 0.8
	# profiles): leaving the whole line out gave 1.18 ms for gemm.
	report "$FIX/jax-rocm-mi300x-jax08_gemm/tw003.xplane.pb" "$TMP/gemm.json"
	jcheck "host work: the python line's TraceMe events count, its Python frames do not" "$TMP/gemm.json" \
		"(d['overview']['host_bound_device'], round(d['overview']['host_bound_ps'] / 1e9, 2))
		 == ('/device:GPU:0', 4.14)"
fi
# One device running its program under another id (a module compiled for
# two shapes; here TPU:1's jit_f retagged 777): two programs, each its own
# op rows, "jit_f(id)" as XProf names them, the oracle agreeing (C43).
if have_fixtures; then
	if $PY tests/fixtures/split_program.py "$FIX/jax-tpu-v6e-4chip/tpu_inference_2.xplane.pb" \
		"$TMP/split.xplane.pb" /device:TPU:1 jit_f 777 >/dev/null 2>"$TMP/err"; then
		report "$TMP/split.xplane.pb" "$TMP/split.json"
		jcheck "split program: TPU:1's ops are jit_f(777)'s rows, the others' their own" \
			"$TMP/split.json" \
			"[o['occurrences'] for o in d['ops'] if o['name'] == 'copy-done.4' and o['program'] == 'jit_f(777)'] == [100] and
			 [o['occurrences'] for o in d['ops'] if o['name'] == 'copy-done.4' and o['program'] == 'jit_f(12190760917235803885)'] == [300] and
			 not [o for o in d['ops'] if o['program'] == 'jit_f']"
		oracle_match "split program: every number matches the oracle" "$TMP/split.xplane.pb" \
			"$TMP/split.json"
	else
		fail "split program: fixture" "$(cat "$TMP/err")"
	fi
else
	skip_n 2 "split program" "$NOFIX"
fi
