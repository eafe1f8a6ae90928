#!/bin/sh
# The viewer's diff view in tmux: xtop --diff BASE NEW, Enter on an op, D on
# loaded profiles, and the one-profile case.
. tests/e2e/lib.sh
. tests/e2e/tui_lib.sh

if ! $PY -c 'import google.protobuf' 2>/dev/null || ! command -v protoc >/dev/null; then
	skip "diff view" "python3-protobuf or protoc missing (scripts/deps.sh installs them)"
	exit 0
fi
$GEN --kind gpu --events 4000 -o "$TMP/base.pb" >/dev/null 2>&1
op=$($XTOP report --json "$TMP/base.pb" | $PY -c "import json,sys; print(json.load(sys.stdin)['ops'][0]['name'])")
$PY tests/fixtures/slow_op.py "$TMP/base.pb" "$TMP/new.pb" "$op" 2>/dev/null ||
	{ fail "diff view: slow copy" "slow_op.py failed"; exit 0; }

start 80 24 "$XTOP" --diff "$TMP/base.pb" "$TMP/new.pb"
check "diff view: xtop --diff opens on it, the slowed op first at +100%" \
	'has "[diff]" && has "base 1: " && has "new  2: " &&
	 sed -n "/BASE  *NEW  *DELTA/{n;p;q}" "$TMP/screen" | grep -q "+100.0% exact .*$op"' "no diff"
check "diff view: no line wider than the screen" '! too_wide 80' "cut"
keys Enter
check "diff view: Enter shows the op in the op profile" \
	'has "[op profile]" && bottom | grep -q "^op .*$op"' "no op"
keys '['
wait_for "profile 1 of 2" >/dev/null
keys D
check "diff view: D compares profile 1 with profile 2, the op at -50%" \
	'has "[diff]" && has "base 2: " &&
	 sed -n "/BASE  *NEW  *DELTA/{n;p;q}" "$TMP/screen" | grep -q -- "-50.0% exact .*$op"' "no D"
keys '\'
text "no such op"
keys Enter
check "diff view: the filter hides every op" 'has "no op matches the filter"' "filter"
keys q
wait_for "EXIT=" >/dev/null

start 80 24 "$XTOP" "$TMP/base.pb"
wait_for "[timeline]" >/dev/null
keys D
check "diff view: D with one profile says there is nothing to compare" \
	'bottom | grep -q "^one profile is open"' "no message"
keys 8
check "diff view: view 8 says how to compare" 'has "[diff]" && has "nothing to compare"' "no hint"
keys q
wait_for "EXIT=" >/dev/null

# Not a terminal: the diff as text.
$XTOP --diff "$TMP/base.pb" "$TMP/new.pb" >"$TMP/out" 2>&1 </dev/null
grep -q "^xtop diff" "$TMP/out" && ok "diff: --diff without a terminal prints xtop diff" ||
	fail "diff: --diff without a terminal prints xtop diff" "$(head -3 "$TMP/out")"
expect_error "diff: --diff with a missing BASE" 2 "nope" sh -c "$XTOP --diff '$TMP/nope' '$TMP/new.pb' </dev/null"
# At 40 columns the summary's figures stay whole with their units: a part
# that does not fit its line starts the next, or is left out.
start 40 14 "$XTOP" --diff tests/fixtures/h100/jax-h100-tfm-nocb.xplane.pb.gz \
	tests/fixtures/h100/jax-h100-tfm-cb.xplane.pb.gz
wait_for "[diff]" >/dev/null
check "diff view at 40 columns: the summary's figures whole" \
	'has " mean 1.08 ms -> 1.32 ms (+21.9%)" && has " busy/step 787.5 us -> 779.7 us (-1.0%)" &&
	 ! sed -n 5,6p "$TMP/screen" | grep -q "[0-9] *\$"' "a figure cut" 5
# At 60 the summary takes the rows its figures need: p95, the last, fell
# off the second row.
$T resize-window -t t -x 60 -y 24
check "diff view at 60 columns: every step figure, p95 too" \
	'has " p95 1.40 ms -> 1.59 ms (+13.1%)" && has " p50 1.04 ms -> 1.30 ms (+24.4%)" &&
	 has "ops'"'"' self time per step"' "p95 dropped" 5
keys q
wait_for "EXIT=" >/dev/null
# At 80 columns a renamed op keeps NEW's name whole: OLD gives way, then
# the program ("jit_trai…was custom-call.2)" showed only the old op).
start 80 30 "$XTOP" --diff tests/fixtures/h100/jax-h100-tfm-nocb.xplane.pb.gz \
	tests/fixtures/h100/jax-h100-tfm-cb.xplane.pb.gz
wait_for "[diff]" >/dev/null
check "diff view at 80 columns: a renamed op's new name whole, the old one giving way" \
	'grep -q " work  *custom-call.10 (was g…t.14) *\$" "$TMP/screen" &&
	 grep -q " identity  *custom-call.4 (was .6) *\$" "$TMP/screen" &&
	 grep -q " work  *gemm_fusion_dot.64 *\$" "$TMP/screen" && ! has "…was "' "names cut" 5
keys q
wait_for "EXIT=" >/dev/null
# A rename the row has no room to show is in the footer: the scan's top
# row, gemm_fusion_dot.2, was a cuBLAS call in BASE.
start 80 24 "$XTOP" --diff tests/fixtures/h100/jax-h100-scan-nocb.xplane.pb.gz \
	tests/fixtures/h100/jax-h100-scan-cb.xplane.pb.gz
wait_for "[diff]" >/dev/null
check "diff view: the footer names BASE's op of a renamed row" \
	'bottom_1=$(line $((H - 1))); echo "$bottom_1" | grep -q "^ gemm_fusion_dot.2: was custom-call.1 in BASE (implemented another way"' \
	"not named" 5
keys q
wait_for "EXIT=" >/dev/null
# Steps of two kinds (the runs of jit_dot against those of jit_matmul):
# their times are not compared, and the view says so, whole, when narrow.
if have_fixtures; then
	start 40 14 "$XTOP" --diff "$FIX/jax-rocm-mi300x-jax08_gemm/tw003.xplane.pb" \
		"$FIX/jax-rocm-mi300x-jax08_attention/tw003.xplane.pb"
	wait_for "[diff]" >/dev/null
	check "diff view at 40 columns: steps of two kinds, their times not compared" \
		'has " steps 17 -> 23" && has " times not compared: steps of two kinds" &&
		 ! has "mean " && has " busy not compared"' "not said" 5
	$T resize-window -t t -x 120 -y 14
	check "diff view at 120 columns: which kinds, in full" \
		'has "times not compared: inferred runs of jit_dot -> inferred runs of jit_matmul"' "not said" 5
	keys q
	wait_for "EXIT=" >/dev/null
else
	skip "diff view at 40 columns" "$NOFIX"
fi
