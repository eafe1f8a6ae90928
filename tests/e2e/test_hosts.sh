#!/bin/sh
# Several hosts on one clock (docs/analyses.md, "Several hosts"): run
# directories built from copies of real fixtures as other hosts of the same
# run would have written them (tests/fixtures/shift_clock.py), checked in
# xtop report --json and text, against the oracle, and in the viewer (tmux).
. tests/e2e/lib.sh

SHIFT=tests/fixtures/shift_clock.py

if ! have_fixtures; then
	skip_n 25 "several hosts" "$NOFIX"
	exit 0
fi
if ! $PY -c 'import google.protobuf' 2>/dev/null; then
	skip_n 25 "several hosts" "python3-protobuf missing (scripts/deps.sh installs it)"
	exit 0
fi

TPU=$FIX/jax-tpu-v6e-4chip/tpu_inference_2.xplane.pb
ROCM=$FIX/jax-rocm-mi300x-jax08_gemm/tw003.xplane.pb

# run NAME FIXTURE [shift_clock.py options for host b]: a run directory
# NAME with the fixture as host a and the shifted copy as host b.
run() {
	name=$1 src=$2
	shift 2
	mkdir -p "$TMP/$name"
	cp "$src" "$TMP/$name/a.xplane.pb"
	$PY $SHIFT "$src" "$TMP/$name/b.xplane.pb" "$@" 2>"$TMP/err" ||
		fail "$name: shifted copy" "$(cat "$TMP/err")"
}

# jcheck NAME JSON PYTHON-ASSERTIONS (d: the report; h: its hosts by name;
# one: the single-host report of the fixture, when given as 4th argument).
jcheck() {
	if $PY - "$2" "${4:-}" "$3" <<'EOF' 2>"$TMP/jerr"; then
import json, sys
d = json.load(open(sys.argv[1]))
one = json.load(open(sys.argv[2])) if sys.argv[2] else None
h = {x['name']: x for x in d['hosts']}
exec(sys.argv[3])
EOF
		ok "$1"
	else
		fail "$1" "$(tail -n 3 "$TMP/jerr" | tr '\n' ' ' | cut -c 1-400)"
	fi
}

report() {
	if ! $XTOP report --json "$1" >"$2" 2>"$TMP/err"; then
		fail "report $1" "$(cat "$TMP/err")"
		echo '{}' >"$2"
	fi
}

oracle() {
	if $PY tests/oracle/xspace_oracle.py "$2" >"$TMP/o.json" 2>"$TMP/err" &&
		$PY tests/oracle/compare.py "$3" "$TMP/o.json" >"$TMP/cmp" 2>&1; then
		ok "$1: $(cat "$TMP/cmp")"
	else
		fail "$1" "$(head -n 20 "$TMP/cmp" "$TMP/err" 2>/dev/null | tr '\n' ' ' | cut -c 1-600)"
	fi
}

report "$TPU" "$TMP/one.json"

# Host b started 2.5 ms after host a; its events happened at the same
# instants: after the alignment everything lines up with the one-host report.
run start "$TPU" --start 2500000 --lines -2500000
report "$TMP/start" "$TMP/start.json"
jcheck "TPU, b started 2.5 ms later: placed by Task Environment at +2.5 ms" "$TMP/start.json" '
assert h["a"]["aligned_by"] == "task_environment" and h["b"]["aligned_by"] == "task_environment"
assert h["a"]["clock_offset_ps"] == 0 and h["b"]["clock_offset_ps"] == 2500000000, h["b"]
'
jcheck "TPU, b started 2.5 ms later: step starts and durations equal the one host's" \
	"$TMP/start.json" '
assert len(d["steps"]) == len(one["steps"]) == 99
for x, y in zip(d["steps"], one["steps"]):
    assert (x["id"], x["start_ps"], x["duration_ps"]) == (y["id"], y["start_ps"], y["duration_ps"]), (x, y)
dev = {(x["host"], x["name"]): x for x in d["devices"]}
for x in one["devices"]:
    assert dev[("a", x["name"])]["start_ps"] == dev[("b", x["name"])]["start_ps"] == x["start_ps"]
' "$TMP/one.json"
jcheck "TPU, b started 2.5 ms later: skew 0 from the 12 all-reduce ends, nothing corrected" \
	"$TMP/start.json" '
assert h["a"]["skew_method"] == "reference", h["a"]
b = h["b"]
assert (b["skew_ps"], b["skew_spread_ps"], b["skew_method"], b["skew_matches"], b["skew_corrected"]) == (0, 0, "collectives", 12, False), b
'
oracle "TPU, b started 2.5 ms later: the oracle agrees" "$TMP/start" "$TMP/start.json"

# Host b's wall clock is 3 ms ahead: its start reads 3 ms later, its
# normalized timestamps are the same. The skew is found and corrected.
run skew "$TPU" --start 3000000
report "$TMP/skew" "$TMP/skew.json"
jcheck "TPU, b's clock 3 ms ahead: skew +3 ms from 12 collective ends, corrected" \
	"$TMP/skew.json" '
b = h["b"]
assert (b["skew_ps"], b["skew_spread_ps"], b["skew_method"], b["skew_matches"]) == (3000000000, 0, "collectives", 12), b
assert b["skew_corrected"] is True and b["clock_offset_ps"] == 0, b
for x, y in zip(d["steps"], one["steps"]):
    assert (x["start_ps"], x["duration_ps"]) == (y["start_ps"], y["duration_ps"]), (x, y)
' "$TMP/one.json"
oracle "TPU, b's clock 3 ms ahead: the oracle agrees" "$TMP/skew" "$TMP/skew.json"
if $XTOP report "$TMP/skew" >"$TMP/skew.txt" 2>"$TMP/err" &&
	grep -q "times are from the earliest host's profile start" "$TMP/skew.txt" &&
	grep -q "^    clock: starts at 0 ps, placed by its Task Environment start" "$TMP/skew.txt" &&
	grep -q "^    skew: the reference" "$TMP/skew.txt" &&
	grep -q "^    skew: +3.00 ms, spread 0 ps, from 12 collective ends; corrected" "$TMP/skew.txt"; then
	ok "TPU, b's clock 3 ms ahead: the text report says where each host sits and its skew"
else
	fail "TPU, b's clock 3 ms ahead: text report" "$(grep -A2 '^  host' "$TMP/skew.txt" | tr '\n' '|')"
fi

# The V100 run's two hosts (one file twice) match by their one device
# step: one offset has no spread, which read 0 ps (offsets that agree).
report "$FIX/tf-gpu-v100-2host" "$TMP/v100.json"
$XTOP report "$FIX/tf-gpu-v100-2host" >"$TMP/v100.txt" 2>&1
jcheck "V100, two hosts of one step: the skew rests on one offset, with no spread" \
	"$TMP/v100.json" '
b = d["hosts"][1]
assert (b["skew_ps"], b["skew_spread_ps"], b["skew_method"], b["skew_matches"]) == \
    (0, None, "device_steps", 1), b
assert "skew: 0 ps, spread -, from 1 step start; not corrected" in open("'"$TMP/v100.txt"'").read()
'

# A finding names a device with its host only where two hosts' devices
# share the name: both hosts here have /device:TPU:0, while a TPU host
# beside a ROCm one has nothing to tell apart.
if grep -q "^  ! [ab] /device:TPU:0 is idle" "$TMP/skew.txt"; then
	ok "findings: a device name two hosts share is said with its host"
else
	fail "findings: shared device name" "$(grep -A1 '^  findings' "$TMP/skew.txt" | tr '\n' '|')"
fi
mkdir -p "$TMP/mixed"
cp "$TPU" "$TMP/mixed/a.xplane.pb"
cp "$ROCM" "$TMP/mixed/b.xplane.pb"
if $XTOP report "$TMP/mixed" >"$TMP/mixed.txt" 2>"$TMP/err" &&
	grep -q "^  ! /device:TPU:0 is idle" "$TMP/mixed.txt"; then
	ok "findings: a device name no other host has is said alone"
else
	fail "findings: unshared device name" "$(grep -A1 '^  findings' "$TMP/mixed.txt" | tr '\n' '|') $(cat "$TMP/err")"
fi

# Host b has no Task Environment: it cannot be placed, and says so; its
# skew is measured but never corrected.
run nostart "$TPU" --no-task-env
report "$TMP/nostart" "$TMP/nostart.json"
jcheck "TPU, b without Task Environment: aligned_by none, at the reference's start, not corrected" \
	"$TMP/nostart.json" '
b = h["b"]
assert b["aligned_by"] == "none" and b["profile_start_ns"] is None and b["clock_offset_ps"] == 0, b
assert h["a"]["aligned_by"] == "task_environment"
assert b["skew_method"] == "collectives" and b["skew_ps"] == 0 and b["skew_corrected"] is False, b
'
oracle "TPU, b without Task Environment: the oracle agrees" "$TMP/nostart" "$TMP/nostart.json"

# The real two-host run: byte-identical hosts, no Task Environment.
report "$FIX/tf-gpu-v100-2host" "$TMP/tf.json"
jcheck "tf-gpu-v100-2host: opens; both hosts none, at 0; skew 0 from the device steps" \
	"$TMP/tf.json" '
x = d["hosts"]
assert len(x) == 2 and all(y["aligned_by"] == "none" and y["clock_offset_ps"] == 0 for y in x), x
assert x[0]["skew_method"] == "reference" and x[1]["skew_method"] == "device_steps", x
assert x[1]["skew_ps"] == 0 and x[1]["skew_corrected"] is False, x[1]
'
# Both hosts have a /device:GPU:6: the host-bound device's host says which.
jcheck "tf-gpu-v100-2host: the host-bound device comes with its host" "$TMP/tf.json" '
v = d["overview"]
assert (v["host_bound_device"], v["host_bound_host"]) == ("/device:GPU:6", "34.83.195.179_6003"), v
'

# ROCm: host b started 0.7 ms later; another run where its clock is 0.7 ms
# ahead (no collectives in this profile: nothing to estimate the skew from).
run rstart "$ROCM" --start 700000 --lines -700000
run rskew "$ROCM" --start 700000
report "$TMP/rstart" "$TMP/rstart.json"
report "$TMP/rskew" "$TMP/rskew.json"
jcheck "ROCm, b started 0.7 ms later: devices start together, b at +0.7 ms" "$TMP/rstart.json" '
dev = {(x["host"], x["name"]): x for x in d["devices"]}
assert dev[("a", "/device:GPU:0")]["start_ps"] == dev[("b", "/device:GPU:0")]["start_ps"]
assert h["b"]["clock_offset_ps"] == 700000000 and h["b"]["aligned_by"] == "task_environment"
assert h["b"]["skew_method"] is None and h["b"]["skew_ps"] is None and h["b"]["skew_spread_ps"] is None
'
jcheck "ROCm, b's clock 0.7 ms ahead: no skew estimate (null), b's events 0.7 ms late" \
	"$TMP/rskew.json" '
dev = {(x["host"], x["name"]): x for x in d["devices"]}
assert dev[("b", "/device:GPU:0")]["start_ps"] - dev[("a", "/device:GPU:0")]["start_ps"] == 700000000
assert h["b"]["skew_method"] is None and h["b"]["skew_corrected"] is False
'
oracle "ROCm, b started 0.7 ms later: the oracle agrees" "$TMP/rstart" "$TMP/rstart.json"

# A generated GPU profile: its all-reduce kernels repeat every few tens of
# microseconds, far closer than a 1.5 ms skew, so they cannot tell which
# run is which; the device steps can (never used to correct).
mkdir -p "$TMP/gen"
if $GEN --kind gpu --events 30000 --seed 11 -o "$TMP/gen/a.xplane.pb" >/dev/null 2>&1; then
	$PY $SHIFT "$TMP/gen/a.xplane.pb" "$TMP/gen/b.xplane.pb" --start 1500000 2>"$TMP/err" ||
		fail "generated: shifted copy" "$(cat "$TMP/err")"
	report "$TMP/gen" "$TMP/gen.json"
	jcheck "generated GPU, b's clock 1.5 ms ahead: dense collectives left out, +1.5 ms from the steps" \
		"$TMP/gen.json" '
b = h["b"]
assert (b["skew_method"], b["skew_ps"], b["skew_corrected"]) == ("device_steps", 1500000000, False), b
assert b["clock_offset_ps"] == 1500000000, b
'
	oracle "generated GPU, b's clock 1.5 ms ahead: the oracle agrees" "$TMP/gen" "$TMP/gen.json"
else
	fail "generated GPU profile" "xtop-gen failed"
fi

# The viewer: the same track of both hosts shows its events in the same
# columns when aligned, and 0.7 ms apart when the clock is off.
. tests/e2e/tui_lib.sh

# rows TRACK: the timeline row of TRACK under each host's plane header,
# right of the label column, one a line (host a's first).
rows() {
	awk -v t="$1" 'index($0, t) == 3 { sub(/^[^│]*│/, ""); print }' "$TMP/screen"
}
start 100 40 "$XTOP" "$TMP/rstart"
check "viewer: both hosts' planes show" 'has "(a, 54 events)" && has "(b, 54 events)"' \
	"no plane of b"
if [ "$(rows 'Stream #16(Kernel)' | wc -l)" -eq 2 ] &&
	[ "$(rows 'Stream #16(Kernel)' | sort -u | wc -l)" -eq 1 ] &&
	[ "$(rows 'Host Threads/1083' | sort -u | wc -l)" -eq 1 ] &&
	rows 'Stream #16(Kernel)' | grep -q '[^ ]'; then
	ok "viewer: b started 0.7 ms later: its tracks show their events in the same columns as a's"
else
	fail "viewer: aligned hosts" "rows differ: $(rows 'Stream #16(Kernel)' | tr '\n' '|')"
fi
check "viewer: the status line points to the hosts' clocks" \
	'bottom | grep -q "m shows the hosts. clocks"' "no hint"
keys m
check "viewer: the message log says where each host sits and its skew" \
	'has "host b: starts at +700.0 us, placed by its Task Environment start; skew unknown"' \
	"no clock lines"
keys q
start 100 40 "$XTOP" "$TMP/rskew"
check "viewer: b's clock ahead: both hosts' planes show" 'has "(b, 54 events)"' "no plane of b"
if [ "$(rows 'Stream #16(Kernel)' | wc -l)" -eq 2 ] &&
	[ "$(rows 'Stream #16(Kernel)' | sort -u | wc -l)" -eq 2 ]; then
	ok "viewer: b's clock 0.7 ms ahead (nothing to correct it by): its track is drawn later"
else
	fail "viewer: skewed hosts" "rows equal: $(rows 'Stream #16(Kernel)' | tr '\n' '|')"
fi
keys q
