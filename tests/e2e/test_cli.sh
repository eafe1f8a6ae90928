#!/bin/sh
# The report's behaviour as a user sees it: paths (file, gzip, run directory,
# logdir with --run/--list), text vs JSON, and the generator's known answers.
. tests/e2e/lib.sh

$GEN --kind tpu --events 50000 --seed 5 --expect "$TMP/expect.json" -o "$TMP/t.xplane.pb" \
	>/dev/null 2>&1 || fail "generate" "xtop-gen failed"

# Known answers, computed by the generator while it wrote the file.
if $XTOP report --json "$TMP/t.xplane.pb" >"$TMP/t.json" 2>"$TMP/err" &&
	$PY tests/e2e/expect_check.py "$TMP/t.json" "$TMP/expect.json" >"$TMP/cmp" 2>&1; then
	ok "generated tpu profile matches the generator's answers: $(cat "$TMP/cmp")"
else
	fail "generated tpu known answers" "$(cat "$TMP/err" "$TMP/cmp" 2>/dev/null | head -n 20)"
fi
$GEN --kind gpu --events 50000 --seed 6 --expect "$TMP/gexpect.json" -o "$TMP/g.xplane.pb" \
	>/dev/null 2>&1 || fail "generate gpu" "xtop-gen failed"
if $XTOP report --json "$TMP/g.xplane.pb" >"$TMP/g.json" 2>"$TMP/err" &&
	$PY tests/e2e/expect_check.py "$TMP/g.json" "$TMP/gexpect.json" >"$TMP/cmp" 2>&1; then
	ok "generated gpu profile matches the generator's answers: $(cat "$TMP/cmp")"
else
	fail "generated gpu known answers" "$(cat "$TMP/err" "$TMP/cmp" 2>/dev/null | head -n 20)"
fi

# gzip gives the same report as the plain file (but for the file facts).
gzip -c "$TMP/t.xplane.pb" >"$TMP/t.xplane.pb.gz"
$XTOP report --json "$TMP/t.xplane.pb.gz" >"$TMP/tz.json" 2>&1
if $PY - "$TMP/t.json" "$TMP/tz.json" <<'PYEOF'; then
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for d in (a, b):
    for h in d["hosts"]:
        for k in ("file", "gzip", "bytes", "file_bytes"):
            h.pop(k, None)
sys.exit(0 if a == b else 1)
PYEOF
	ok "gzip input reports exactly what the plain file does"
	# Its size on disk and the XSpace's, both said.
	if [ "$($PY -c 'import json, sys; h = json.load(sys.stdin)["hosts"][0]; print(h["file_bytes"] < h["bytes"], h["gzip"])' <"$TMP/tz.json")" = "True True" ] &&
		$XTOP report "$TMP/t.xplane.pb.gz" | grep -Eq "^  host t: .*\([0-9.]+ [KM]iB gzip, [0-9.]+ [KM]iB XSpace\)"; then
		ok "gzip input: the host line and JSON give the file's size and the XSpace's"
	else
		fail "gzip input: sizes" "$($XTOP report "$TMP/t.xplane.pb.gz" | grep '^  host')"
	fi
else
	fail "gzip input" "reports differ"
fi

# A TensorBoard logdir with two runs: newest by default, --run picks, --list lists.
L="$TMP/logdir/plugins/profile"
mkdir -p "$L/2024_01_01_10_00_00" "$L/2024_03_05_12_30_00"
cp "$TMP/t.xplane.pb" "$L/2024_01_01_10_00_00/hostA.xplane.pb"
cp "$TMP/g.xplane.pb" "$L/2024_03_05_12_30_00/hostB.xplane.pb"
echo junk >"$L/2024_03_05_12_30_00/hostB.SSTABLE"
echo '{}' | gzip >"$L/2024_03_05_12_30_00/hostB.trace.json.gz"
if $XTOP report --json "$TMP/logdir" | grep -q '"name":"hostB"'; then
	ok "logdir opens the newest run (other files skipped)"
else
	fail "logdir newest run" "hostB not reported"
fi
if $XTOP report --json --run 2024_01_01_10_00_00 "$TMP/logdir" | grep -q '"name":"hostA"'; then
	ok "logdir --run picks a run by name"
else
	fail "logdir --run" "hostA not reported"
fi
# --top N limits the JSON's ops and kernels too, and says how many there are;
# without it the JSON lists every one.
if [ "$($XTOP report --json --top 3 "$TMP/g.xplane.pb" | $PY -c 'import json, sys
d = json.load(sys.stdin); print(len(d["ops"]), len(d["kernels"]), d["ops_total"] > 3, d["kernels_total"] > 3)')" = "3 3 True True" ] &&
	[ "$($XTOP report --json "$TMP/g.xplane.pb" | $PY -c 'import json, sys
d = json.load(sys.stdin); print(len(d["ops"]) == d["ops_total"] > 3)')" = True ]; then
	ok "report --json --top 3: three ops and kernels of their totals; without --top, all"
else
	fail "report --json --top" "$($XTOP report --json --top 3 "$TMP/g.xplane.pb" | head -c 200)"
fi
# --list of one file names the file's directory, not "." (the current one).
if $XTOP report --list --json "$TMP/g.xplane.pb" | $PY -c "
import json, sys
r = json.load(sys.stdin)['runs']
assert len(r) == 1 and r[0]['dir'] == sys.argv[1] and r[0]['name'] == 'g.xplane.pb', r
" "$TMP"; then
	ok "report --list FILE: its directory"
else
	fail "report --list FILE" "$($XTOP report --list "$TMP/g.xplane.pb" | head -1)"
fi
# Which run was read is said: the header, and the JSON's run.
if COLUMNS=100 $XTOP report "$TMP/logdir" | sed -n 2p |
	grep -qx "run 2024_03_05_12_30_00 (the newest of 2; --list lists them, --run picks one)" &&
	[ "$($XTOP report --json --run 2024_01_01_10_00_00 "$TMP/logdir" | $PY -c 'import json, sys; print(json.load(sys.stdin)["run"])')" = 2024_01_01_10_00_00 ] &&
	[ "$($XTOP report --json "$TMP/t.xplane.pb" | $PY -c 'import json, sys; print(json.load(sys.stdin)["run"])')" = None ]; then
	ok "logdir: the report says which run it read"
else
	fail "logdir: run named" "$(COLUMNS=100 $XTOP report "$TMP/logdir" | sed -n 2p)"
fi
# A host's file and a gzip'd copy beside it are one host, not two with
# every time twice.
mkdir -p "$TMP/twice"
cp "$TMP/g.xplane.pb" "$TMP/twice/h.xplane.pb"
gzip -c "$TMP/g.xplane.pb" >"$TMP/twice/h.xplane.pb.gz"
touch -r "$TMP/twice/h.xplane.pb" "$TMP/twice/h.xplane.pb.gz"
one=$($XTOP report --json "$TMP/g.xplane.pb" | $PY -c 'import json, sys; d = json.load(sys.stdin); print(len(d["hosts"]), d["ops"][0]["self_ps"])')
two=$($XTOP report --json "$TMP/twice" | $PY -c 'import json, sys; d = json.load(sys.stdin); print(len(d["hosts"]), d["ops"][0]["self_ps"])')
if [ "$one" = "$two" ] && [ "$($XTOP report --list "$TMP/twice" | grep -c "h.xplane.pb\$")" -eq 1 ]; then
	ok "run directory: h.xplane.pb and h.xplane.pb.gz are one host, the uncompressed read"
else
	fail "run directory: one host in two files" "one file: $one, both: $two"
fi
# A newer gzip'd copy is the one read: here it holds another profile.
gzip -c "$TMP/t.xplane.pb" >"$TMP/twice/h.xplane.pb.gz"
touch -d "@$(($(stat -c %Y "$TMP/twice/h.xplane.pb") + 60))" "$TMP/twice/h.xplane.pb.gz"
tpu=$($XTOP report --json "$TMP/t.xplane.pb" | $PY -c 'import json, sys; d = json.load(sys.stdin); print(len(d["hosts"]), d["ops"][0]["self_ps"])')
newer=$($XTOP report --json "$TMP/twice" | $PY -c 'import json, sys; d = json.load(sys.stdin); print(len(d["hosts"]), d["ops"][0]["self_ps"])')
if [ "$tpu" = "$newer" ] && [ "$tpu" != "$one" ] &&
	[ "$($XTOP report --list "$TMP/twice" | grep -c "h.xplane.pb.gz\$")" -eq 1 ] &&
	[ "$($XTOP report --list "$TMP/twice" | grep -c "h.xplane.pb\$")" -eq 0 ]; then
	ok "run directory: a newer h.xplane.pb.gz is the one read"
else
	fail "run directory: the newer copy" "gz alone: $tpu, both: $newer"
fi
$XTOP report --list "$TMP/logdir" >"$TMP/list" 2>&1
if grep -q "2024_03_05_12_30_00 (newest)" "$TMP/list" && grep -q "hostA" "$TMP/list"; then
	ok "report --list shows runs, hosts and the newest"
else
	fail "report --list" "$(cat "$TMP/list")"
fi
$XTOP report --list --json "$TMP/logdir" | $PY -c "
import json, sys
r = json.load(sys.stdin)['runs']
assert [x['name'] for x in r] == ['2024_01_01_10_00_00', '2024_03_05_12_30_00'], r
assert [x['newest'] for x in r] == [False, True], r
h = r[1]['hosts'][0]
assert h['host'] == 'hostB' and h['bytes'] > 0 and h['path'].endswith('/hostB.xplane.pb'), h
" && ok "report --list --json" || fail "report --list --json" "see above"
expect_error "report --list with a gate" 2 "takes no --baseline" \
	$XTOP report --list --baseline "$TMP/t.xplane.pb" --fail-over 5 "$TMP/logdir"
# Sub-jobs of a logdir: the newest run is the newest by its own name, not
# by the folder of the job above it.
mkdir -p "$TMP/jobs/alpha/plugins/profile/2025_06_01_00_00_00" "$TMP/jobs/beta/plugins/profile/2020_01_01_00_00_00"
cp "$TMP/t.xplane.pb" "$TMP/jobs/alpha/plugins/profile/2025_06_01_00_00_00/hostA.xplane.pb"
cp "$TMP/g.xplane.pb" "$TMP/jobs/beta/plugins/profile/2020_01_01_00_00_00/hostB.xplane.pb"
if $XTOP report --list "$TMP/jobs" | grep -q "^alpha/2025_06_01_00_00_00 (newest)" &&
	$XTOP report --json "$TMP/jobs" | grep -q '"name":"hostA"'; then
	ok "logdir with sub-jobs: the newest run by its own name"
else
	fail "logdir with sub-jobs" "$($XTOP report --list "$TMP/jobs")"
fi

# Text report: sections present, --top honoured.
$XTOP report --top 3 "$TMP/t.xplane.pb" >"$TMP/text" 2>&1
if grep -q "^Devices" "$TMP/text" && grep -q "^Op profile: .*top 3" "$TMP/text" &&
	grep -q "^Steps: " "$TMP/text" && grep -q "^Memory" "$TMP/text"; then
	ok "text report has devices, op profile (top 3), steps and memory"
else
	fail "text report" "$(head -n 30 "$TMP/text")"
fi
# Plain `xtop PATH` with stdout not a terminal prints the report.
if $XTOP "$TMP/t.xplane.pb" | grep -q "^Op profile"; then
	ok "xtop PATH with stdout not a tty prints the report"
else
	fail "xtop PATH not a tty" "no report"
fi
# JSON is valid and its ops are sorted by self time.
if $PY -c '
import json, sys
d = json.load(open(sys.argv[1]))
s = [o["self_ps"] for o in d["ops"]]
assert s == sorted(s, reverse=True) and d["events"] > 0
' "$TMP/t.json"; then
	ok "JSON parses and ops are sorted by self_ps"
else
	fail "JSON schema" "invalid or unsorted"
fi
# The kernel table's shared memory has its unit, as in the viewer.
if have_fixtures; then
	$XTOP report "$FIX/jax-rocm-mi300x-jax08_attention" >"$TMP/kern" 2>&1
	if grep -Eq "^ +468.9 us +12 4,64,1 +8.50 KiB jit_matmul\(19\): Cijk_" "$TMP/kern" &&
		grep -q "^  not in this profile's kernel details: registers\$" "$TMP/kern" &&
		grep -q "^  impossible in this profile's kernel details, not shown: occupancy" "$TMP/kern"; then
		ok "report: a kernel's shared memory with its unit (8.50 KiB, not 8704); columns all '-' left out, said why (absent, impossible)"
	else
		fail "report kernels SHARED" "$(sed -n '/^GPU kernels/,+3p' "$TMP/kern" | tr '\n' '|')"
	fi
else
	skip "report kernels SHARED" "$NOFIX"
fi
# The MI300X conv profile's kernel_details carry a pointer's halves as regs
# and static_shared: no shared memory is known, in text and JSON (not the
# same 31.70 KiB for every kernel).
if have_fixtures; then
	CONV="$FIX/jax-rocm-mi300x-conv-legacy"
	COLUMNS=100 $XTOP report "$CONV" >"$TMP/kern" 2>&1
	if sed -n '/^GPU kernels/,/^$/p' "$TMP/kern" | grep -q "Im3d2Col" &&
		! grep -q "31.70 KiB" "$TMP/kern" &&
		$XTOP report --json "$CONV" | $PY -c '
import json, sys
k = json.load(sys.stdin)["kernels"]
assert len(k) == 5 and all(r["shared_bytes"] is None and r["registers"] is None for r in k), k
'; then
		ok "report: garbage kernel_details (a pointer's halves) give no shared memory, text and JSON"
	else
		fail "report: garbage kernel_details" "$(sed -n '/^GPU kernels/,+3p' "$TMP/kern" | tr '\n' '|')"
	fi
else
	skip "report: garbage kernel_details" "$NOFIX"
fi
# TensorFlow's kernel_details give shm, the static part of a block's shared
# memory, and no dynamic part: no total is shown (it read 0 B on every
# kernel), and the report and the JSON say why.
if have_fixtures; then
	V100="$FIX/tf-gpu-v100-2host/34.83.195.179_6003.xplane.pb"
	COLUMNS=100 $XTOP report "$V100" >"$TMP/kern" 2>&1
	if grep -q "^  shared memory not shown: the kernel details give one part of it, not" "$TMP/kern" &&
		$XTOP report --json "$V100" | $PY -c '
import json, sys
k = json.load(sys.stdin)["kernels"]
assert len(k) == 1330 and all(r["shared_bytes"] is None and r["registers"] is not None and
                              "one part of it" in r["detail_note"] for r in k), k[0]
'; then
		ok "report: TensorFlow's shm (the static part alone) gives no shared memory, and says why"
	else
		fail "report: TensorFlow's shm" "$(grep -A2 "not in this profile's kernel" "$TMP/kern" | tr '\n' '|')"
	fi
else
	skip "report: TensorFlow's shm" "$NOFIX"
fi
# Kernel rows of one name and op: the gemm profile's wrapped_broadcast of
# nine programs (jit_broadcast_in_dim compiled for nine shapes) read apart
# at 60 columns, by their programs' ids, the columns ROCm does not give
# gone first. (Rows of one program apart by their launch keep GRID: unit
# test test_kernel_rows_apart.)
if have_fixtures; then
	COLUMNS=60 $XTOP report "$FIX/jax-rocm-mi300x-jax08_gemm" >"$TMP/kern" 2>&1
	nw=$(sed -n '/^GPU kernels/,/^$/p' "$TMP/kern" | grep -c "wrapped")
	if [ "$nw" -ge 5 ] &&
		[ "$(sed -n '/^GPU kernels/,/^$/p' "$TMP/kern" | grep "wrapped" | sed 's/^.* B //' | sort -u | wc -l)" -eq "$nw" ] &&
		! sed -n '/^GPU kernels/,/^$/p' "$TMP/kern" | grep -q "OCC%"; then
		ok "report at 60 columns: $nw wrapped_broadcast rows of as many programs read apart"
	else
		fail "report kernels at 60 columns" "$(sed -n '/^GPU kernels/,+7p' "$TMP/kern" | tr '\n' '|')"
	fi
else
	skip "report kernels at 60 columns" "$NOFIX"
fi
# A live allocation's missing op is null in JSON, "(null)" included (the
# conv profile's text for it), and "(no op named)" in the text (a bare '-'
# read as a figure left out).
if have_fixtures; then
	$XTOP report "$CONV" >"$TMP/mem" 2>&1
	if ! grep -qF "(null)" "$TMP/mem" && grep -q "live, allocated at .*: (no op named)$" "$TMP/mem" &&
		$XTOP report --json "$CONV" | $PY -c '
import json, sys
m = json.load(sys.stdin)["memory"]
v = [x for r in m for x in r["live_at_peak"]]
assert v and all(x["op"] is None and x["shape"] is None for x in v), v[:2]
'; then
		ok "report: a live allocation's op given as (null) or not at all is null in JSON, '(no op named)' in text"
	else
		fail "report: missing allocation ops" "$(grep -m2 'live,' "$TMP/mem" | tr '\n' '|')"
	fi
else
	skip "report: missing allocation ops" "$NOFIX"
fi
# A narrow terminal: sentences wrap whole, a figure keeps its unit, and no
# line is elided mid-sentence ("1 host, 11 planes, ..ines").
if have_fixtures; then
	COLUMNS=60 $XTOP report "$FIX/jax-rocm-mi300x-jax08_gemm" >"$TMP/narrow" 2>&1
	if head -n 8 "$TMP/narrow" | tr '\n' ' ' | tr -s ' ' |
		grep -qF "1 host, 11 planes, 7 lines, 3,782 events; device busy 3.48 ms times are from the profile start FLOPs and bytes from the programs' HLO where the profile has none" &&
		tr '\n' ' ' <"$TMP/narrow" | tr -s ' ' |
		grep -qF "Steps: 17, inferred from the runs of jit_dot (no step markers): each from a run's start to the next run's mark steps: jax.profiler.StepTraceAnnotation(\"train\", step_num=i) (a capture through the profiler server sees them; one through xtop run cannot)" &&
		! grep -Eq "^ *(ps|ns|us|ms|s|B|KiB|MiB|GiB)( |,|;|\)|$)" "$TMP/narrow"; then
		ok "report at 60 columns: sentences wrap whole, figures keep their units"
	else
		fail "report at 60 columns" "$(head -n 8 "$TMP/narrow" | tr '\n' '|')"
	fi
else
	skip "report at 60 columns" "$NOFIX"
fi
# --wide prints the overview's top ops whole (it cut each to 16 columns:
# "jit_..opy-done.4"), as at 80 columns.
if have_fixtures; then
	$XTOP report --wide "$FIX/jax-tpu-v6e-4chip/tpu_inference_2.xplane.pb" >"$TMP/wide" 2>&1
	if grep -qF "  top ops: jit_f/copy-done.4 24.7%, jit_f/copy-done.2 24.6%, jit_f/copy-done 24.0%, jit_f/copy-done.5 23.1%, jit_f/broadcast_add_fusion.1 1.0%" "$TMP/wide"; then
		ok "report --wide: the overview's top ops whole"
	else
		fail "report --wide, top ops" "$(grep "top ops" "$TMP/wide")"
	fi
else
	skip "report --wide, top ops" "$NOFIX"
fi
# A finding naming an op with accented letters (two bytes each) wraps where
# the line is full in columns, not in bytes.
if $PY -c 'import google.protobuf' 2>/dev/null; then
	$GEN --kind gpu --events 3000 --seed 2 -o "$TMP/mb0.xplane.pb" >/dev/null 2>&1
	$PY tests/fixtures/rename_stat.py "$TMP/mb0.xplane.pb" "$TMP/mb.xplane.pb" all-reduce.13 \
		"all-reduce.13.äöüßéèêëïîôû" && COLUMNS=80 $XTOP report "$TMP/mb.xplane.pb" >"$TMP/mb.txt" 2>&1
	if grep -qxF "    all-reduce.13.äöüßéèêëïîôû): overlap them with compute, or communicate less" "$TMP/mb.txt"; then
		ok "report at 80 columns: a finding with multibyte letters wraps by columns, not bytes"
	else
		fail "report, multibyte finding" "$(grep -A2 'collectives take' "$TMP/mb.txt" | tr '\n' '|')"
	fi
else
	skip "report, multibyte finding" "python3-protobuf missing (scripts/deps.sh installs it)"
fi
# Names alike at both ends read apart: the V100 profile's 16 dropout ops
# (one per layer and replica) all read "replica_6/bert_span..random_uniform
# /RandomUniform" when elided in the middle at 80 columns; each now shows its
# layer between two marks.
if have_fixtures; then
	COLUMNS=80 $XTOP report "$FIX/tf-gpu-v100-2host" >"$TMP/apart.txt" 2>&1
	if [ "$(grep -c "Uniform\$" "$TMP/apart.txt")" -eq 16 ] &&
		[ "$(grep "Uniform\$" "$TMP/apart.txt" | awk '{print $NF}' | sort -u | wc -l)" -eq 16 ] &&
		grep -q " replica_6/b\.\.layer_17/self_\.\.Uniform\$" "$TMP/apart.txt"; then
		ok "report: 16 ops alike at both ends read apart by their layers at 80 columns"
	else
		fail "report, names apart" "$(grep "Uniform\$" "$TMP/apart.txt" | head -3 | tr '\n' '|')"
	fi
	# Their kernels: the op's replica and layer far apart in the middle.
	if [ "$(sed -n '/^GPU kernels/,/^\$/p' "$TMP/apart.txt" | grep -c "void tenso")" -eq 18 ] &&
		[ "$(sed -n '/^GPU kernels/,/^\$/p' "$TMP/apart.txt" | grep "void tenso" |
			awk '{print $NF}' | sort -u | wc -l)" -eq 18 ]; then
		ok "report: kernels of one op in two replicas and many layers read apart"
	else
		fail "report, kernels apart" "$(grep "void tenso" "$TMP/apart.txt" | head -3 | tr '\n' '|')"
	fi
	# Every kernel row: the dropout kernels (two replicas, 24 layers, up
	# to three dropouts a layer) differ in three places, each shown in a
	# window of its own; at 80 and 120 columns none of the 194 reads like
	# another op's (192 did, when two windows were the most).
	f1="$FIX/tf-gpu-v100-2host/34.83.195.179_6003.xplane.pb"
	$XTOP report --json "$f1" | $PY -c 'import json, sys
for k in json.load(sys.stdin)["kernels"]: print(k["op"])' >"$TMP/kops.txt" 2>&1
	for cols in 80 120; do
		COLUMNS=$cols $XTOP report --top 0 "$f1" 2>&1 |
			sed -n '/^GPU kernels/,/^  not in/p' >"$TMP/ktab.txt"
		# The labels: from the KERNEL (OP) heading's column on.
		at=$(sed -n 2p "$TMP/ktab.txt" | awk '{print index($0, "KERNEL (OP)")}')
		sed '1,2d;$d' "$TMP/ktab.txt" | cut -c"$at"- >"$TMP/klab.txt"
		alike=$(paste -d '\t' "$TMP/klab.txt" "$TMP/kops.txt" | grep "RandomUniform\$" |
			sort -u | awk -F '\t' '{n[$1]++} END {for (l in n) if (n[l] > 1) t += n[l]; print t + 0}')
		if [ "$(wc -l <"$TMP/klab.txt")" -eq 1330 ] && [ "$alike" -eq 0 ] &&
			[ "$(grep -c "RandomUniform\$" "$TMP/kops.txt")" -eq 194 ]; then
			ok "report at $cols columns: 194 dropout kernels that differ in three places read apart"
		else
			fail "report, kernels apart at $cols" "$alike alike, $(wc -l <"$TMP/klab.txt") rows"
		fi
	done
	# At 50 columns two hosts' GPUs of one index still read apart, and
	# each host's header names it whole (its path gives way).
	COLUMNS=50 $XTOP report "$FIX/tf-gpu-v100-2host" >"$TMP/apart50.txt" 2>&1
	devs=$(sed -n '/^Devices/,/^$/p' "$TMP/apart50.txt" | grep -E "(-|%) +[^ ]+$" | awk '{print $NF}')
	if [ "$(echo "$devs" | wc -l)" -eq 16 ] && [ "$(echo "$devs" | sort -u | wc -l)" -eq 16 ] &&
		grep -q "^  host 34.83.195.179_6003 " "$TMP/apart50.txt" &&
		grep -q "^  host 34.83.195.180_6003 " "$TMP/apart50.txt"; then
		ok "report at 50 columns: two hosts' devices and headers read apart"
	else
		fail "report at 50 columns, hosts apart" "$(echo "$devs" | head -3 | tr '\n' '|')"
	fi
	# PROGRAM takes the room the names leave: at 14 columns it read
	# "jit_..duce_max" at any width, its names short and the line half empty.
	COLUMNS=160 $XTOP report --top 0 "$FIX/jax-rocm-mi300x-jax08_attention" >"$TMP/att160.txt" 2>&1
	if grep -Eq " jit__reduce_max +input_reduce_fusion$" "$TMP/att160.txt" &&
		grep -Eq " jit__reduce_sum +input_reduce_fusion$" "$TMP/att160.txt" &&
		! grep -q "jit_\.\." "$TMP/att160.txt" && ! awk 'length($0) > 160' "$TMP/att160.txt" | grep -q .; then
		ok "report at 160 columns: the programs whole in their column"
	else
		fail "report at 160 columns, programs" "$(grep -E "reduce_(max|sum)" "$TMP/att160.txt" | head -3 | tr '\n' '|')"
	fi
else
	skip_n 4 "report, names apart" "$NOFIX"
fi
# Figures fit their columns, whole: never "1..300" for 127,300 occurrences,
# "1..0%" for an op with all the time, "20..4 KiB" for 208 KiB of shared
# memory or "+9..0.0%" for a change of +99900% (each cut read as another
# number).
H100=tests/fixtures/h100/jax-h100-tfm-cb.xplane.pb.gz
COLUMNS=100 $XTOP report "$H100" >"$TMP/h100.txt" 2>&1
if grep -Eq "^ +221\.4 us +12 +18\.45 us 2,64,1 +384,1,1 +168 +208 KiB +19 nvjet" "$TMP/h100.txt" &&
	! grep -Eq "[0-9]\.\.[0-9]" "$TMP/h100.txt"; then
	ok "report: an H100 kernel's 208 KiB of shared memory fits its column (was 20..4 KiB)"
else
	fail "report, kernels' shared memory" "$(grep -m2 "nvjet" "$TMP/h100.txt" | tr '\n' '|')"
fi
if $PY -c 'import google.protobuf' 2>/dev/null; then
	$PY tests/fixtures/many_ops.py "$TMP/occ.xplane.pb" 127300
	COLUMNS=80 $XTOP report "$TMP/occ.xplane.pb" >"$TMP/occ.txt" 2>&1
	if grep -Eq "^ +127\.3 ms +100% +127\.3 ms +1\.00 us +127K fusion\.1\$" "$TMP/occ.txt" &&
		! grep -Eq "[0-9]\.\.[0-9]" "$TMP/occ.txt"; then
		ok "report: 127,300 occurrences read 127K and all the time 100%, never cut"
	else
		fail "report, wide counts" "$(grep -m1 " fusion\.1\$" "$TMP/occ.txt")"
	fi
	$PY tests/fixtures/many_ops.py "$TMP/occ10.xplane.pb" 10
	$PY tests/fixtures/slow_op.py "$TMP/occ10.xplane.pb" "$TMP/slow10.xplane.pb" copy.2 1000 \
		2>/dev/null
	COLUMNS=80 $XTOP diff "$TMP/occ10.xplane.pb" "$TMP/slow10.xplane.pb" >"$TMP/d.txt" 2>&1
	if grep -Eq "^ +1\.00 us +1\.00 ms +\+999\.0 us +\+99900% exact +copy\.2\$" "$TMP/d.txt"; then
		ok "diff: a change of +99900% fits the % column whole"
	else
		fail "diff, wide change" "$(grep -m1 "copy.2" "$TMP/d.txt")"
	fi
	# A kernel name of 5,000 bytes: the row still ends with its op, at 80
	# columns and with --wide (both were cut at a buffer's end).
	long=$($PY -c 'print("void cutlass::Kernel<" + "T" * 5000 + ">")')
	$GEN --kind gpu --events 3000 --seed 2 -o "$TMP/k0.xplane.pb" >/dev/null 2>&1
	$PY tests/fixtures/rename_stat.py --names "$TMP/k0.xplane.pb" "$TMP/k.xplane.pb" \
		ncclDevKernel_AllReduce_Sum_f32_RING_LL "$long"
	COLUMNS=80 $XTOP report --top 100 "$TMP/k.xplane.pb" >"$TMP/k80.txt" 2>&1
	$XTOP report --wide --top 100 "$TMP/k.xplane.pb" >"$TMP/kw.txt" 2>&1
	if grep -q "void cutla.*TT> (all-reduce.13)\$" "$TMP/k80.txt" &&
		grep -q "void cutlass::Kernel<T*> (all-reduce.13)\$" "$TMP/kw.txt"; then
		ok "report: a 5,000-byte kernel name keeps its op at the row's end"
	else
		fail "report, long kernel name" "$(grep -m1 "void cut" "$TMP/k80.txt" | cut -c1-120)"
	fi
else
	skip_n 3 "report, wide counts" "python3-protobuf missing (scripts/deps.sh installs it)"
fi
# One op name in several programs (jit_add's and jit_sin's
# loop_convert_fusion, and jit_add compiled for two shapes, programs 11 and
# 28): without the PROGRAM column each such row names its program, so no
# two rows read the same.
if have_fixtures; then
	COLUMNS=80 $XTOP report "$FIX/jax-rocm-mi300x-jax08_elementwise/tw003.xplane.pb" >"$TMP/ew.txt" 2>&1
	rows=$(sed -n '/^Op profile/,/^ *- :/p' "$TMP/ew.txt" | sed '1,2d;$d')
	if echo "$rows" | grep -q " jit_sin/loop_convert_fusion\$" &&
		echo "$rows" | grep -q " jit_add(1" && echo "$rows" | grep -q " jit_add(2" &&
		[ "$(echo "$rows" | awk '{print $NF}' | sort | uniq -d | wc -l)" -eq 0 ]; then
		ok "report: an op name in several programs carries its program (no two rows alike)"
	else
		fail "report: op names in several programs" "$(echo "$rows" | awk '{print $NF}' | sort | uniq -d)"
	fi
else
	skip "report: op names in several programs" "$NOFIX"
fi
# At 80 columns a device keeps its own name (its index), the model giving
# way; a kernel's short op stays whole, "(" and all.
COLUMNS=80 $XTOP report --top 94 tests/fixtures/h100/jax-h100-tfm-cb.xplane.pb.gz >"$TMP/h80.txt" 2>&1
cut=$(sed -n '/^GPU kernels/,/^$/p' "$TMP/h80.txt" | sed '1,2d;/^$/d' | grep -vc " (.*)\$")
if grep -q " /device:GPU:0 (NVID.*HBM3)\$" "$TMP/h80.txt" &&
	grep -q " gem.*dot_12 (gemm_fusion_dot.12)\$" "$TMP/h80.txt" && [ "$cut" -le 30 ]; then
	ok "report at 80 columns: the device's index and a kernel's op read whole"
else
	fail "report at 80 columns: device and kernel names" "$cut of 94 kernel rows cut their op; $(grep -m1 ' /device:G' "$TMP/h80.txt"; grep -m1 'gemm_fusion_dot.12' "$TMP/h80.txt")"
fi
# At 60 columns the steps table fits: the categories 0 in every step give way
# and are named below it.
COLUMNS=60 $XTOP report tests/fixtures/h100/jax-h100-tfm-cb.xplane.pb.gz >"$TMP/h60.txt" 2>&1
wide=$(sed -n '/^Steps/,/^$/p' "$TMP/h60.txt" | awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }')
if [ "$wide" -le 60 ] && grep -q "^  D2H, COLLECTIVE, H2D: 0 in every step\$" "$TMP/h60.txt" &&
	grep -q "^ *STEP .*COMPUTE .*HOST .*IDLE\$" "$TMP/h60.txt"; then
	ok "report at 60 columns: the steps table fits, the empty categories named below it"
else
	fail "report at 60 columns: steps table" "$wide columns wide"
fi
# A live allocation's line keeps "allocated at T" whole at 80 columns: the
# op's name gives way.
if have_fixtures; then
	COLUMNS=80 $XTOP report "$FIX/tf-gpu-v100-2host/34.83.195.179_6003.xplane.pb" >"$TMP/m80.txt" 2>&1
	n=$(grep -c "^ *[0-9.]* [KMG]*i*B  live, allocated at [0-9.]* [mun]*s: " "$TMP/m80.txt")
	if [ "$n" -eq 12 ] && ! grep -q "live, al\.\." "$TMP/m80.txt"; then
		ok "report: live allocations keep their time whole at 80 columns (12 lines)"
	else
		fail "report: live allocation lines" "$n lines whole; $(grep -m1 'live, al' "$TMP/m80.txt")"
	fi
else
	skip "report: live allocation lines" "$NOFIX"
fi
