#!/bin/sh
# The threads under ThreadSanitizer: a report's load and analyses on two
# threads (the lines' chunks, the unions, the step breakdown's windows),
# and the viewer's live load, where the UI thread reads the trace while the
# workers decode it. TSAN names a ThreadSanitizer build of xtop (`make
# check` builds build-tsan/xtop); the checks run in the first build's pass
# only, and each wants no report from TSan and the normal build's output.
. tests/e2e/lib.sh

N=5
if [ "${O#*asan}" != "$O" ]; then
	skip_n $N "ThreadSanitizer" "run once, in the normal build's pass"
	exit 0
fi
if [ -z "${TSAN:-}" ] || [ ! -x "$TSAN" ]; then
	skip_n $N "ThreadSanitizer" "no ThreadSanitizer build (make check makes build-tsan/xtop)"
	exit 0
fi
# Reports go to files of their own; a race fails the run (exit 66).
TSAN_OPTIONS="log_path=$TMP/tsan:exitcode=66${TSAN_OPTIONS:+:$TSAN_OPTIONS}"
export TSAN_OPTIONS
if ! "$TSAN" --help >/dev/null 2>&1; then
	skip_n $N "ThreadSanitizer" "the TSan build does not run here: $(cat "$TMP"/tsan.* 2>/dev/null | head -c 200)"
	exit 0
fi

races() { cat "$TMP"/tsan.* 2>/dev/null | grep -c "WARNING: ThreadSanitizer"; }

# tsan_report NAME PATH: report --json under TSan, the same bytes as the
# normal build's, no race.
tsan_report() {
	rm -f "$TMP"/tsan.*
	"$XTOP" report --json "$2" >"$TMP/want.json" 2>/dev/null
	timeout 300 "$TSAN" report --json "$2" >"$TMP/got.json" 2>"$TMP/err"
	rc=$?
	n=$(races)
	if [ $rc -eq 0 ] && [ "$n" -eq 0 ] && cmp -s "$TMP/want.json" "$TMP/got.json"; then
		ok "$1"
	else
		fail "$1" "exit $rc, $n races: $(grep -h -A4 'WARNING: ThreadSanitizer' "$TMP"/tsan.* 2>/dev/null | head -5 | tr '\n' ' ')"
	fi
}

$GEN --kind tpu --events 400000 --steps 2000 --seed 3 -o "$TMP/tpu.pb" >/dev/null 2>&1
$GEN --kind gpu --events 400000 --steps 500 --devices 4 --seed 4 -o "$TMP/gpu.pb" >/dev/null 2>&1
tsan_report "TSan: report of a generated TPU profile, 2,000 steps" "$TMP/tpu.pb"
tsan_report "TSan: report of a generated 4-GPU profile" "$TMP/gpu.pb"
if have_fixtures; then
	# The TPU run ten times over: 127 k steps' windows on two threads.
	$GEN --scale "$FIX/jax-tpu-v6e-4chip/tpu_inference_2.xplane.pb" 10 -o "$TMP/tpu10.pb" \
		>/dev/null 2>&1
	tsan_report "TSan: report of the TPU fixture x10" "$TMP/tpu10.pb"
	tsan_report "TSan: report of the two-host V100 run" "$FIX/tf-gpu-v100-2host"
else
	skip_n 2 "TSan: reports of fixtures" "$NOFIX"
fi

# The viewer loading a profile of big lines (split into chunks) while it
# draws each line as it comes.
. tests/e2e/tui_lib.sh
$GEN --kind tpu --events 1500000 --seed 8 -o "$TMP/big.pb" >/dev/null 2>&1
rm -f "$TMP"/tsan.*
start 100 30 XTOP_FRAME_LOG="$TMP/frames" "$TSAN" "$TMP/big.pb"
if wait_until 'grep -q "^ready " "$TMP/frames" 2>/dev/null' 120; then
	keys q
	if wait_for "EXIT=0" 60 && [ "$(races)" -eq 0 ]; then
		ok "TSan: the viewer's live load and its frames meanwhile"
	else
		fail "TSan: the viewer's live load" "$(races) races: $(grep -h -A4 'WARNING: ThreadSanitizer' "$TMP"/tsan.* 2>/dev/null | head -5 | tr '\n' ' ') $(shot)"
	fi
else
	fail "TSan: the viewer's live load" "no ready in the frame log: $(shot)"
fi
