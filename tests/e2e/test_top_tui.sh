#!/bin/sh
# xtop top's screen in tmux (the real binary on a real pty) against a real
# gRPC ProfilerService process: the table, the selection kept by op across
# refreshes while the rows move, pause, save, the viewer and back, help,
# filter, sort, the server dying and coming back (with another profile, so
# the rows change), quitting, and targets refused at the start.
. tests/e2e/lib.sh

if ! $PY -c 'import grpc, google.protobuf' 2>/dev/null; then
	skip "top screen" "python3-grpcio missing (scripts/deps.sh installs it)"
	exit 0
fi
. tests/e2e/tui_lib.sh
trap '$T kill-server >/dev/null 2>&1; [ -n "$SOCK" ] && rm -f "$SOCK"; for p in $PIDS; do kill "$p" 2>/dev/null; done; rm -rf "$TMP"' EXIT

. tests/e2e/server_lib.sh
# Two different profiles: the server is restarted with the second one.
if have_fixtures; then
	cp "$FIX/jax-rocm-mi300x-jax08_attention/tw003.xplane.pb" "$TMP/a.xplane.pb"
	cp "$FIX/jax-rocm-mi300x-jax08_elementwise/tw003.xplane.pb" "$TMP/b.xplane.pb"
else
	# The project's own JAX-on-H100 profiles: two programs whose ops
	# differ (two generated profiles share their op names, and no row
	# would move).
	gzip -dc tests/fixtures/h100/jax-h100-tfm-nocb.xplane.pb.gz >"$TMP/a.xplane.pb"
	gzip -dc tests/fixtures/h100/jax-h100-scan-nocb.xplane.pb.gz >"$TMP/b.xplane.pb"
fi
# sel: the selected table row (reverse video with NO_COLOR), without
# escapes; sel_at: its row on the screen.
sel() {
	$T capture-pane -t t -p -e | sed -n "4,$((H - 1))p" | grep "$ESC\[\(0;\)\?7m" | head -n 1 |
		sed "s/$ESC\[[0-9;]*m//g"
}
sel_at() {
	$T capture-pane -t t -p -e | sed -n "4,$((H - 1))p" | grep -n "$ESC\[\(0;\)\?7m" | head -n 1 |
		cut -d: -f1
}
# captures: how many captures the status line says are averaged.
captures() { line 2 | sed -n 's/.*avg of \([0-9]*\)\/.*/\1/p'; }
# sel_op: the OP cell of the selected row (the numbers change with every
# refresh; the op is what must stay).
sel_op() {
	at=$(line 3 | awk '{ print index($0, " OP") + 1 }')
	sel | cut -c"$at"- | sed 's/ *$//'
}

start_server "$TMP/a.xplane.pb" || exit 0
start 80 24 NO_COLOR=1 "$XTOP top --every 0.5 --duration 100 --logdir $TMP/logs localhost:$PORT"

# 1. The table: a header with the columns, op rows, the status line.
check "top: the table of ops, the status line and the hints" \
	'line 3 | grep -q "LATEST.*AVG.*CHANGE.*CHG%" && [ -n "$(line 4 | tr -d " ")" ] &&
	 line 2 | grep -q "took .* ops, avg of [0-9]*/10; " && bottom | grep -q "p Pause"' \
	"no table" 20
if [ "$(width)" -le 80 ]; then ok "top: every line fits 80 columns"; else fail "top width" "$(width) columns"; fi

# 2. Select the second row; refreshes keep it selected.
keys j
check "top: j selects the second row" '[ "$(sel_at)" = 2 ]' "selection at $(sel_at)"
picked=$(sel_op)
n0=$(captures)
check "top: a refresh keeps the selected op" \
	'[ "$(captures)" -gt "$n0" ] && [ "$(sel_op)" = "$picked" ] && [ "$(sel_at)" = 2 ]' \
	"selection moved from '$picked' to '$(sel_op)'" 10

# 3. Sort: > moves the sort mark to the next column.
keys '>'
check "top: > sorts by the next column (AVG)" 'line 3 | grep -q "AVGv"' "header: $(line 3)"
keys '<'
check "top: < back to LATEST" 'line 3 | grep -q "LATESTv"' "header: $(line 3)"

# 4. p pauses: the title says so and no capture is added; p resumes.
keys p
check "top: p pauses" 'line 1 | grep -q "\[paused\]" && line 2 | grep -q "paused (p resumes)"' "not paused" 5
n1=$(captures)
sleep 1.5
cap
if [ "$(captures)" = "$n1" ]; then
	ok "top: paused, no capture for 1.5 s (still $n1 averaged)"
else
	fail "top: paused" "$n1 then $(captures) captures"
fi

# 5. x saves the newest capture as a run that xtop report opens (paused,
# so that the newest capture is still the same one for the second x).
keys x
check "top: x saves the newest capture in the logdir" "bottom | grep -q 'saved in $TMP/logs/plugins/profile/'" \
	"$(bottom)" 10
# The bottom line may be cut at 80 columns: the run is the one on disk.
run=$(ls -d "$TMP"/logs/plugins/profile/* 2>/dev/null | head -n 1)
if [ -n "$run" ] && $XTOP report --json "$run" >"$TMP/saved.json" 2>"$TMP/err" &&
	$PY -c 'import json,sys; r=json.load(open(sys.argv[1])); sys.exit(0 if r["ops"] and r["events"] > 0 else 1)' "$TMP/saved.json"; then
	ok "top: the saved run opens with xtop report ($(basename "$run"))"
else
	fail "top: saved run" "'$run' $(cat "$TMP/err")"
fi
keys x
check "top: x again says where it already is" "bottom | grep -q 'already saved in'" "$(bottom)" 5

# 6. Enter opens the capture in the full viewer; q there comes back to top.
keys Enter
check "top: Enter opens the viewer" 'line 1 | grep -q "^ xtop  .*events" && ! line 1 | grep -q "xtop top"' \
	"$(line 1)" 15
# (its load done first: the load's last status line would cover x's)
check "top's viewer: loaded" "bottom | grep -q ': ? for hel'" "$(bottom)" 15
keys x
check "top's viewer: x on the capture top saved says where it is" \
	"bottom | grep -q 'already saved in $TMP/logs/plugins/profile/'" "$(bottom)" 5
keys q
check "top: q in the viewer returns to top" \
	'line 1 | grep -q "^ xtop top " && bottom | grep -q "back from the viewer" && line 3 | grep -q LATEST' \
	"$(line 1) / $(bottom)" 10
keys p
check "top: p resumes" '! line 1 | grep -q "\[paused\]" && { [ "$(captures)" -gt "$n1" ] || [ "$(captures)" -eq 10 ]; }' \
	"$(line 1) / $(line 2)" 10
# A capture saved by x in the viewer is known to top: x there says where.
n2=$(captures)
check "top: a newer capture (for x in the viewer)" '[ "$(captures)" -gt "$n2" ]' "$(line 2)" 15
keys p
check "top: paused (for x in the viewer)" 'line 2 | grep -q "paused (p resumes)"' "$(line 2)" 5
# A capture under way when p came ends first: the status line (its time
# and figures) stays.
cap
n3=$(line 2)
k=0
while [ $k -lt 20 ]; do
	sleep 0.4
	cap
	[ "$(line 2)" = "$n3" ] && break
	n3=$(line 2)
	k=$((k + 1))
done
keys Enter
check "top: Enter opens the viewer (for x there)" 'line 1 | grep -q "^ xtop  .*events"' "$(line 1)" 15
check "top's viewer: loaded (for x there)" "bottom | grep -q ': ? for hel'" "$(bottom)" 15
keys x
check "top's viewer: x saves the capture" "bottom | grep -q '^ *saved in $TMP/logs/plugins/profile/'" \
	"$(bottom)" 10
keys q
check "top: back from the viewer (x there)" 'line 1 | grep -q "^ xtop top "' "$(line 1)" 10
keys x
check "top: x after the viewer saved it says where, saves nothing more" \
	"bottom | grep -q 'already saved in' && [ \$(ls -d $TMP/logs/plugins/profile/* | wc -l) -eq 2 ]" \
	"$(bottom); $(ls "$TMP/logs/plugins/profile")" 5
keys p

# 7. Help, generated from the key table; Esc closes it.
keys '?'
check "top: ? shows the keys and the columns" \
	'has "xtop top keys" && has "pause or resume the captures" && has "open the newest capture"' "no help" 5
keys Escape
check "top: Esc closes the help" 'line 3 | grep -q LATEST' "$(line 3)" 5

# 8. The filter: no match says so; Esc clears it.
keys '\'
text "zzz-no-such-op"
keys Enter
check "top: a filter that matches nothing says so" 'has "no op matches the filter"' "$(line 4)" 5
keys Escape
check "top: Esc clears the filter" '[ -n "$(line 4 | tr -d " ")" ] && ! has "no op matches"' "$(line 4)" 5

# 9. The server dies: the status line says the capture failed, when top
# retries and why, and the table stays. It comes back on the same port with
# another profile: top captures again, the new ops come in above the old
# ones (whose latest time is now 0), and the selected op stays selected
# where it moved.
keys g j
check "top: the second row selected again" '[ "$(sel_at)" = 2 ]' "at $(sel_at)" 5
picked=$(sel_op)
kill -9 "$SPID"
check "top: server killed: one error line with the retry time, the table kept" \
	'line 2 | grep -q "capture failed at [0-9:]*, retry" && has "LATEST" && has "$picked"' \
	"$(line 2)" 15
# The error is read whole: broken between words over the rows above the
# table, so the rows joined by blanks give back its phrases.
err_text() {
	sed -n '2,7p' "$TMP/screen" | sed '/LATEST/,$d' | sed 's/^ *//; s/ *$//' | tr '\n' ' '
}
check "top: the failure is read whole, broken between words" \
	'err_text | grep -q "cannot reach it or lost it (nothing listening, connection refused, or the workload exited during the capture)" &&
	 ! err_text | grep -q "…"' "$(shot | sed -n 2,6p)" 5
start_server "$TMP/b.xplane.pb" --port "$PORT" || exit 0
check "top: server back: captures again" 'line 2 | grep -q "took .* ops, avg of"' "$(line 2)" 30
check "top: after the profile changed, the same op is selected where it moved" \
	'[ "$(sel_op)" = "$picked" ] && [ "$(sel_at)" != 2 ]' \
	"selected '$(sel_op)' at $(sel_at), was '$picked' at 2" 10

# 10. q quits and the terminal is as it was.
keys q
check "top: q quits, the terminal restored" 'has "EXIT=0 TTY=restored"' "$(shot)" 10

# 11. Targets refused at the start: one line after the screen, exit 2.
start 80 24 "$XTOP top localhost:1"
check "top: a target refusing the first capture: one line, exit 2" \
	'has "EXIT=2 TTY=restored" && has "xtop: localhost:1: cannot reach it"' "$(shot)" 20

# 12. The terminal hung up (an SSH session dropped) while top's viewer shows
# a capture: its copy of the capture in TMPDIR goes with top.
mkdir "$TMP/tmpd"
start 80 24 "TMPDIR=$TMP/tmpd $XTOP top --every 0.5 --duration 100 localhost:$PORT"
check "top: captures (for the hangup check)" 'line 2 | grep -q "took .* ops, avg of"' "$(line 2)" 30
keys Enter
check "top: Enter opens the viewer (for the hangup check)" \
	'line 1 | grep -q "^ xtop  .*events" && [ -n "$(ls -A "$TMP/tmpd")" ]' "$(line 1)" 10
$T kill-session -t t
n=0
while [ -n "$(ls -A "$TMP/tmpd")" ] && [ $n -lt 40 ]; do sleep 0.1; n=$((n + 1)); done
if [ -z "$(ls -A "$TMP/tmpd")" ]; then
	ok "top: a hangup while its viewer is open leaves nothing in TMPDIR"
else
	fail "top: hangup leaves files" "$(find "$TMP/tmpd" | head -n 4 | tr '\n' ' ')"
fi
