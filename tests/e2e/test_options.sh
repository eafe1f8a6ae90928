#!/bin/sh
# Option checks in every command (the viewer, report, capture): a rejected
# option is one line on stderr naming the option and what it accepts, with
# exit status 2 and nothing on stdout; accepted values are not refused.
# Then what a refused capture leaves behind: nothing.
. tests/e2e/lib.sh

# bad NAME PATTERN ARGS...: xtop ARGS must fail that way.
bad() {
	name=$1 pat=$2
	shift 2
	expect_error "$name" 2 "$pat" $XTOP "$@"
}

# capture
bad "capture --every 0" "^xtop: --every needs seconds from 1 to 604800, not '0'$" \
	capture --every 0 127.0.0.1:1
bad "capture --keep 0 --every 5" "^xtop: --keep needs a number of runs from 1 to 100000, not '0'$" \
	capture --keep 0 --every 5 127.0.0.1:1
bad "capture --deadline 0" "^xtop: --deadline needs milliseconds from 1 to 604800000, not '0'$" \
	capture --deadline 0 127.0.0.1:1
bad "capture --host-tracer 9 names the option" "^xtop: --host-tracer needs a level from 0 to 3, not '9'$" \
	capture --host-tracer 9 127.0.0.1:1
bad "capture --device-tracer 3 (0 or 1)" "^xtop: --device-tracer needs a level, 0 or 1, not '3'$" \
	capture --device-tracer 3 127.0.0.1:1
bad "capture --python-tracer 3 (0 or 1)" "^xtop: --python-tracer needs a level, 0 or 1, not '3'$" \
	capture --python-tracer 3 127.0.0.1:1
bad "capture --duration abc" "^xtop: --duration needs milliseconds from 1 to 86400000, not 'abc'$" \
	capture --duration abc 127.0.0.1:1
bad "capture --every=-5" "^xtop: --every needs seconds from 1 to 604800, not '-5'$" \
	capture --every=-5 127.0.0.1:1
bad "capture --every 2^70 (overflow)" "^xtop: --every needs seconds .* not '1180591620717411303424'$" \
	capture --every 1180591620717411303424 127.0.0.1:1
bad "capture --every without a value" "^xtop: --every needs a value (SECONDS: capture again every" \
	capture --every
bad "capture --keep without --every" "^xtop: --keep goes with --every$" capture --keep 3 127.0.0.1:1
bad "capture unknown long option" "^xtop: unknown option '--bogus' (see xtop capture --help)$" \
	capture --bogus 127.0.0.1:1
bad "capture unknown short option" "^xtop: unknown option '-z' (see xtop capture --help)$" \
	capture -z 127.0.0.1:1
bad "capture --trace-json=1 (takes no value)" "^xtop: --trace-json takes no value" \
	capture --trace-json=1 127.0.0.1:1

# report
bad "report --top -1" "^xtop: --top needs a number of rows (0 = all), 0 or more, not '-1'$" \
	report --top -1 x
bad "report --threads x" "^xtop: --threads needs a number of threads (0 = all CPUs) from 0 to 1024, not 'x'$" \
	report --threads x x
bad "report --threads 5000" "^xtop: --threads needs .* from 0 to 1024, not '5000'$" report -j 5000 x
bad "report --top without a value" "^xtop: --top needs a value (N: show the top N" report --top
bad "report -jq: -j's value is checked" "^xtop: --threads needs .* not 'q'$" report -jq x
bad "report --json=1 (takes no value)" "^xtop: --json takes no value (see xtop report --help)$" \
	report --json=1 x
bad "report unknown option" "^xtop: unknown option '--bogus' (see xtop report --help)$" \
	report --bogus x

# the viewer's own
bad "viewer --duration 0" "^xtop: --duration needs milliseconds from 1 to 86400000, not '0'$" \
	--duration 0 x
bad "viewer -d without a value" "^xtop: --duration needs a value (MS: capture length" -d
bad "viewer unknown option" "^xtop: unknown option '--nope' (see xtop --help)$" --nope x
bad "viewer unknown short option in a group" "^xtop: unknown option '-y' (see xtop --help)$" -yh x

# Accepted values are accepted: the capture then fails on the network, not
# on its options (nothing listens on port 1).
timeout 30 $XTOP capture --duration 100 --host-tracer 3 --device-tracer 1 --python-tracer 0 \
	--deadline 5000 --logdir "$TMP/logok" 127.0.0.1:1 >"$TMP/out" 2>"$TMP/err"
rc=$?
if [ $rc -ne 0 ] && ! grep -q -- "--\|needs" "$TMP/err" && [ -s "$TMP/err" ]; then
	ok "capture: in-range levels and deadline are accepted (then: $(head -c 80 "$TMP/err"))"
else
	fail "capture: in-range values accepted" "exit $rc: $(cat "$TMP/err")"
fi
$GEN --kind tpu --events 2000 --seed 4 -o "$TMP/t.xplane.pb" >/dev/null 2>&1
if $XTOP report --top 0 --threads 2 "$TMP/t.xplane.pb" >/dev/null 2>"$TMP/err"; then
	ok "report: --top 0 and --threads 2 are accepted"
else
	fail "report: --top 0 --threads 2" "$(cat "$TMP/err")"
fi

# A refused capture leaves nothing behind: no logdir, no plugins/profile,
# no run directory; a logdir that was there before stays, as it was.
timeout 30 $XTOP capture --duration 100 --logdir "$TMP/D" 127.0.0.1:1 >/dev/null 2>&1
rc=$?
if [ $rc -ne 0 ] && [ ! -e "$TMP/D" ]; then
	ok "refused capture: the logdir it would have made is not left behind"
else
	fail "refused capture leftovers" "exit $rc, left: $(find "$TMP/D" 2>/dev/null | tr '\n' ' ')"
fi
mkdir -p "$TMP/E/mine"
timeout 30 $XTOP capture --duration 100 --logdir "$TMP/E" 127.0.0.1:1 >/dev/null 2>&1
if [ "$(cd "$TMP/E" && find . | sort | tr '\n' ' ')" = ". ./mine " ]; then
	ok "refused capture into an existing logdir: the logdir stays as it was"
else
	fail "refused capture, existing logdir" "now holds: $(cd "$TMP/E" && find . | tr '\n' ' ')"
fi

# Every --help fits an 80-column terminal; a long help text wraps under its
# own column, and a wrapped option still lists every view.
for c in "" report capture top run diff; do
	wide=$($XTOP $c --help 2>&1 | awk 'length($0) > 80')
	[ -z "$wide" ] && ok "xtop ${c:+$c }--help fits 80 columns" ||
		fail "xtop ${c:+$c }--help fits 80 columns" "$wide"
done
$XTOP --help | grep -A1 -- "--view VIEW" | tr -s ' \n' ' ' |
	grep -q "overview, timeline, ops, steps, memory, kernels, devices, diff" &&
	ok "--help: the wrapped --view line lists every view" ||
	fail "--help: --view" "$($XTOP --help | grep -A1 -- --view)"
$GEN --help 2>&1 | awk 'length($0) > 80' | grep -q . &&
	fail "xtop-gen --help fits 80 columns" "$($GEN --help 2>&1 | awk 'length($0) > 80')" ||
	ok "xtop-gen --help fits 80 columns"
