#!/bin/sh
# The viewer as a user sees it: the real binary in tmux (private socket, fixed
# size, fixed environment), driven by keys, checked on what the screen shows.
# Each wait polls `capture-pane` until a marker shows (at most ~10 s), so the
# script is as fast as the viewer. One line per check, as in lib.sh.
. tests/e2e/lib.sh
. tests/e2e/tui_lib.sh

$GEN --kind tpu --events 20000 --seed 5 -o "$TMP/t.xplane.pb" >/dev/null 2>&1 ||
	fail "generate tpu" "xtop-gen failed"
$GEN --kind gpu --events 20000 --seed 6 -o "$TMP/g.xplane.pb" >/dev/null 2>&1 ||
	fail "generate gpu" "xtop-gen failed"
head -c 4096 /dev/urandom >"$TMP/random.xplane.pb"

# ---------------------------------------------------------------- 80x24 ----
# A logdir's path is long: it gives way in its middle to the whole hint.
LONG="$TMP/a-directory-with-a-rather-long-name-as-logdirs-have/plugins/profile/2026_11_28_09_30_00"
mkdir -p "$LONG" && cp "$TMP/t.xplane.pb" "$LONG/t.xplane.pb"
start 80 24 "$XTOP" "$LONG/t.xplane.pb"
check "status: a long path gives way in its middle, the hint whole" \
	'bottom | grep -q "^/.*t.xplane.pb: ? for help, Tab switches views *$"' "hint cut"
start 80 24 "$XTOP" "$TMP/t.xplane.pb"
if wait_until 'has "[timeline]" && has "/device:TPU:0" && has "XLA Ops" &&
	line 2 | grep -Eq "^ [0-9.]+ (ps|ns|us|ms|s) wide +│[0-9.]+ (ps|ns|us|ms|s) +│"'; then
	ok "timeline: plane headers, XLA Ops tracks, ruler ticks, the window's width said"
else
	fail "timeline: plane headers, XLA Ops tracks, ruler ticks" "not shown; screen: $(shot)"
fi
check "timeline: status line names the file and its events" \
	'line 1 | grep -q "xtop  t.xplane.pb  \[timeline\]  [0-9,]* events  1 host" && bottom | grep -q "? for help"' \
	"no status or hint"

keys 3
check "view 3: op profile with SELF column and convolution.11" \
	'has "[op profile]" && line 2 | grep -q "SELFv" && has "convolution.11"' "op profile not shown"
keys 4
check "view 4: steps with the average and one row per step" \
	'has "[steps]" && has "STEP" && has "average" &&
	 [ "$(grep -Ec "^ +[0-9]+ +[0-9.]+ (ps|ns|us|ms|s) +[0-9.]+ (ps|ns|us|ms|s)" "$TMP/screen")" -ge 5 ]' \
	"no step rows"
keys 5
check "view 5: memory by readable name, the peak split, the allocations live at the peak" \
	'has "[memory]" && line 2 | grep -q "^ HOSTv  *MEMORY" && grep -q "^ [^ ].*TPU:0 HBM" "$TMP/screen" &&
	 has "live at the peak" && has "jit(train_step)" &&
	 joined | grep -qF " peak 4.48 GiB = 7 largest live 2.48 GiB + 0 other live 0 B + unattributed 2.00 GiB"' \
	"memory view incomplete"
keys 2
check "view 2: back to the timeline" 'has "[timeline]" && has "/device:TPU:0"' "not the timeline"

seq=""
for v in "op profile" steps memory kernels devices diff overview timeline; do
	keys Tab
	if wait_for "[$v]" 5; then seq="$seq [$v]"; else seq="$seq (not $v)"; fi
done
case "$seq" in
*"(not"*) fail "Tab cycles the views" "got$seq" ;;
*) ok "Tab cycles the views:$seq" ;;
esac
keys BTab
check "S-Tab goes back a view" 'has "[overview]"' "not the overview after S-Tab from the timeline"

# Op profile: sort, group (Enter folds), filter, Enter jumps to the longest run.
keys 3
wait_for "SELFv" >/dev/null
first0=$(line 3 | awk '{ print $NF }')
keys '>'
check "sort: > moves the mark to %DEV" \
	'line 2 | grep -q "%DEVv" && ! line 2 | grep -q "SELFv" && has "sorted by %DEV"' "mark not moved"
keys '>'
check "sort: > again sorts by TOTAL (mark and rows change)" \
	'line 2 | grep -q "TOTALv" && [ "$(line 3 | awk "{ print \$NF }")" != "$first0" ]' \
	"first row still $first0"
keys '<' '<'
check "sort: < < returns to SELF" 'line 2 | grep -q "SELFv" && has "sorted by SELF"' "mark not on SELF"
keys p
check "group: p groups by program and category" \
	'has "grouped by program, category" && has "▾ jit_train_step" && grep -q "^ .*  ▾ convolution" "$TMP/screen"' \
	"no program/category rows"
check "group: programs sort by the sort key (jit_train_step, 99.8%, before jit_init_params)" \
	'line 3 | grep -q "▾ jit_train_step"' "groups not in SELF order (alphabetical?)"
check "group: categories sort by it too (convolution 41% before all-reduce 21%, not a-z)" \
	'line 4 | grep -q "▾ convolution" && grep -q "▾ all-reduce" "$TMP/screen"' \
	"categories not in SELF order"
check "group: p keeps the op that was selected selected (the first, by SELF)" \
	'line $((H - 2)) | grep -q "^ $first0 in jit_train_step"' "$(line $((H - 2)))"
keys Home Enter
check "group: Enter folds the program row under the cursor" \
	'has "▸ jit_train_step" && ! has "convolution.11"' "jit_train_step not folded"
keys Enter p
check "group: p again lists flat" 'has "(p: group)" && ! has "▾ jit_"' "still grouped"
keys '\'
text fusion
keys Enter
check "filter: \\ fusion Enter keeps only the fusion ops" \
	'has "filter '"'"'fusion'"'"'" &&
	 n=$(sed -n "s/^ \([0-9]*\) shown of \([0-9]*\) ops.*/\1 \2/p" "$TMP/screen") &&
	 [ -n "$n" ] && [ ${n% *} -gt 0 ] && [ ${n% *} -lt ${n#* } ] &&
	 [ "$(sed -n "3,$((H - 2))p" "$TMP/screen" | grep -c .)" -eq "$(sed -n "3,$((H - 2))p" "$TMP/screen" | grep -c fusion)" ] &&
	 ! has convolution.11' \
	"rows not narrowed to fusion"
keys Escape
check "filter: Esc clears it" 'has "16 shown of 16 ops" && has "convolution.11"' "filter still on"
# A word of any column finds its ops, shown at this width or not: BOUND's.
bound=$(sed -n "3,$((H - 2))p" "$TMP/screen" | grep -Eo " (memory|compute) " | head -1 | tr -d ' ')
keys '\'
text "${bound:-memory}"
keys Enter
check "filter: \\ ${bound:-memory} keeps the ops that column says it of" \
	'n=$(sed -n "s/^ \([0-9]*\) shown of \([0-9]*\) ops.*/\1/p" "$TMP/screen") &&
	 [ -n "$n" ] && [ "$n" -gt 0 ]' "no op found by its BOUND"
keys Escape
keys Home Enter
check "op profile: Enter jumps to the op's longest run in the timeline" \
	'has "[timeline]" && bottom | grep -q "^longest run of convolution.11: "' "no jump"
keys Enter
check "the jumped-to event is selected (details show convolution.11)" \
	'grep -q "^ details" "$TMP/screen" && grep -q "^  convolution.11   start " "$TMP/screen"' \
	"details do not show convolution.11"
# README: the details pane shows "the op's profile row".
check "details show the op's profile row for a TPU XLA op" \
	'grep -q "^  op profile: convolution.11 \[convolution\]" "$TMP/screen"' \
	"no 'op profile: convolution.11 [convolution] ...' row in the details pane" 2 "^ details"
keys u
check "u selects the parent event (depth 0)" \
	'grep -A1 "^ details" "$TMP/screen" | grep -q "depth 0" && ! grep -q "^  convolution.11   start" "$TMP/screen"' \
	"parent not selected"
keys i
check "i selects the first child again (depth 1)" \
	'grep -A1 "^ details" "$TMP/screen" | grep -q "depth 1"' "child not selected"
keys Enter Escape
sleep 0.1
keys 0

# Steps and memory: Enter takes the timeline there.
keys 4
wait_for "[steps]" >/dev/null
dur=$(grep -E '^ +100 ' "$TMP/screen" | awk '{ print $4, $5 }')
keys Enter
# The window is the step and a twentieth of it on each side, its start marked.
check "steps: Enter zooms the timeline to the step ($dur, and 5% each side), marked" \
	'has "[timeline]" && bottom | grep -q "^step 100" && line 2 | grep -q "▼" &&
	 [ "$(ps_of $(label))" -ge "$(ps_of $dur)" ] &&
	 [ "$(ps_of $(label))" -le $(($(ps_of $dur) * 6 / 5)) ]' "no step window"
keys 5
wait_for "[memory]" >/dev/null
keys Enter
check "memory: Enter jumps to the allocator's peak, marked on its thread" \
	'has "[timeline]" && bottom | grep -q "peak at the mark, on py_xla_execute/" &&
	 line 2 | grep -q "▼"' "no jump"
keys 0

# Zoom and pan change the ruler; 0 restores it.
wait_until '[ "$(label)" != "" ] && line 2 | grep -q "│0 "' >/dev/null
w0=$(label)
keys w
check "zoom: w halves the window ($w0 -> something else)" '[ "$(label)" != "$w0" ]' "label still $w0"
w1=$(label)
keys 0
check "zoom: 0 shows the whole profile again ($w0)" '[ "$(label)" = "$w0" ]' "label $(label)"
r0=$(line 2)
keys d
check "pan: d moves the ticks, keeps the width" '[ "$(line 2)" != "$r0" ] && [ "$(label)" = "$w0" ]' \
	"ruler unchanged"
keys 0
# The wheel (xterm mouse, button 4 at column 40, row 10) zooms in too.
wait_until '[ "$(line 2)" = "$r0" ]' 3 >/dev/null
text "$(printf '\033[M`H*')"
check "mouse wheel up zooms the timeline in" '[ "$(label)" = "$w1" ]' "label $(label), want $w1"
keys 0

# Select with '.', details with Enter.
keys g j j j
sleep 0.1
keys .
sleep 0.1
keys Enter
check "'.' selects an event and Enter opens the details pane" \
	'grep -q "^ details" "$TMP/screen" &&
	 grep -A1 "^ details" "$TMP/screen" | tail -n 1 | grep -Eq "^  [A-Za-z][^ ]*   start [0-9.]+ [a-z]+   duration "' \
	"no details row with an event name"
name=$(grep -A1 '^ details' "$TMP/screen" | tail -n 1 | awk '{ print $1 }')
check "the details pane shows the HLO text of $name" 'grep -q "^  %$name = " "$TMP/screen"' "no HLO text"
keys Enter
check "Enter hides the details pane" '! grep -q "^ details" "$TMP/screen"' "pane still shown"
keys g Space
check "Space folds the plane under the cursor" \
	'line 3 | grep -q "^▸ /device:TPU:0" && line 4 | grep -q "^▾ /device:TPU:1"' "not folded"
keys Space
check "Space unfolds it" 'line 3 | grep -q "^▾ /device:TPU:0" && line 4 | grep -q "^  Steps"' "not unfolded"

# Search: the whole profile, not just what is on screen.
keys Escape
sleep 0.1
keys 0 g
wait_until 'line 3 | grep -q "^▾ /device:TPU:0"' >/dev/null
if has "/host:CPU"; then pre=on; else pre=off; fi
keys /
text "tpu::System::Execute"
keys Enter
check "search: / NAME Enter shows match 1 of N" \
	'bottom | grep -Eq "^match 1 of [0-9]+ for '"'"'tpu::System::Execute'"'"'"' "no match line"
total=$(bottom | sed -n 's/^match 1 of \([0-9]*\) .*/\1/p')
check "search: the first match (host CPU only, off screen before) is brought on screen" \
	'[ "$pre" = off ] && has "/host:CPU"' "/host:CPU $pre screen before the search, not shown after"
keys n
check "search: n advances to match 2 of $total" "bottom | grep -q '^match 2 of $total '" "no match 2"
keys N N
check "search: N N goes back and wraps to match $total of $total" \
	"bottom | grep -q '^match $total of $total '" "no wrap"
keys Enter
check "search: the match is selected (details show tpu::System::Execute)" \
	'grep -A1 "^ details" "$TMP/screen" | grep -q "^  tpu::System::Execute   start "' "not selected"
keys Enter /
keys -N 30 BSpace
text zzz-no-such-event
keys Enter
check "search: no match says so" \
	'bottom | grep -q "^no event matches '"'"'zzz-no-such-event'"'"' in the whole profile"' "no message"

# A new search keeps the zoom when the match fits in the window (as n/N do).
# The viewer draws each typed key in turn: wait for the third w's window
# (an eighth of the whole), not just any that differs from the first two.
keys 0 w w w
wait_until '[ "$(ps_of $(label))" -le $(($(ps_of $w0) / 7)) ]' >/dev/null
wz=$(label)
keys /
keys -N 30 BSpace
text "tpu::System::Execute"
keys Enter
if wait_until 'bottom | grep -q "^match 1 of " && [ "$(label)" = "$wz" ]' 2; then
	ok "search: a new search keeps the zoom ($wz) when the match fits"
else
	fail "search: a new search keeps the zoom ($wz) when the match fits" \
		"window width label '$wz' before '/ tpu::System::Execute Enter', '$(label)' after; ruler: $(line 2)"
fi
keys 0

# Help.
keys '?'
check "help: ? lists the keys from the key table" \
	'has "xtop keys  (? or Esc closes" && has "q       quit" && has "/       search event names"' \
	"help incomplete"
keys End
check "help: End shows its last page (the lists' columns explained, the name marks)" \
	'has "HOST-BND    host-bound: idle while its host worked ('"'"'-'"'"': no host activity)" &&
	 has "diff columns" &&
	 has "MATCH       how the two were paired" && has "op profile name marks" &&
	 grep -q "^              removed; \* does other work a run in NEW" "$TMP/screen"' \
	"help's end not shown"
# The help's own find puts the line it finds at the top.
keys /
text "op profile columns"
keys Enter
check "help: further up, the op profile's columns" \
	'has "op profile columns" &&
	 has "%PKF     FLOP rate as a share of the device'"'"'s peak" && has "AI       arithmetic intensity"' \
	"help's middle not shown"
keys /
text "group by program"
keys Enter
check "help: further up, the op profile's keys" \
	'has "p       group by program" && has "Space   show or hide the kernels an op launched"' "op profile keys not shown"
keys /
text "zoom in"
keys Enter
check "help: / finds text in it (zoom in)" 'has "w W + = zoom in"' "not found"
keys n
check "help: n finds the same text again" \
	'has "w W + = zoom in" && ! has "is not in the help"' "n lost the text"
keys '?'
check "help: ? closes it" '! has "xtop keys" && has "[timeline]" && bottom | grep -q "^q Quit"' \
	"help still shown"

# Resize: the screen is redrawn for the new size.
$T resize-window -t t -x 100 -y 30
H=30
check "resize to 100x30: redrawn at the new width and height" \
	'[ "$(width)" -gt 80 ] && [ "$(width)" -le 100 ] && bottom | grep -q "^q Quit  ? Help"' "width $(width), bottom '$(bottom)'"
$T resize-window -t t -x 60 -y 20
H=20
check "resize to 60x20: redrawn at the new size" \
	'[ "$(width)" -le 60 ] && bottom | grep -q "^q Quit  ? Help" && line 1 | grep -q "^ xtop  t.xplane.pb  \[timeline\]"' \
	"bottom '$(bottom)'"
keys 3
check "resize to 60x20: the op profile still fits (NAME column kept)" \
	'line 2 | grep -q "NAME" && has "convolution.11"' "no NAME column"
$T resize-window -t t -x 80 -y 24
H=24
keys 2
wait_until 'bottom | grep -q "^q Quit"' >/dev/null

keys q
check "q quits: the shell's line is back, the tty is restored" \
	'has "EXIT=0 TTY=restored" && ! has "[timeline]"' "not quit cleanly"

# Home and End as tmux sends them (ESC [ 1 ~, ESC [ 4 ~) where TERM says
# xterm, whose entry names others: they were read as an Esc and three keys,
# "1" opening the overview; in a filter prompt the Esc closed it and the
# keys typed after ran as commands.
start 80 24 TERM=xterm-256color "$XTOP" "$TMP/t.xplane.pb"
wait_for "[timeline]" >/dev/null
keys 3
wait_for "SELFv" >/dev/null
keys End
sleep 0.3
check "TERM=xterm in tmux: End stays in the op profile (it opened the steps view)" \
	'has "[op profile]"' "End left the view" 5
keys Home
sleep 0.3
check "TERM=xterm in tmux: Home stays in the op profile (it opened the overview)" \
	'has "[op profile]"' "Home left the view" 5
keys '\'
text "fus"
keys Home
text "x"
check "TERM=xterm in tmux: Home in the filter prompt moves its cursor, and keys after it type" \
	'bottom | grep -q "xfus"' "the prompt closed" 5
keys Escape

# --------------------------------------------------------------- 120x40 ----
start 120 40 "$XTOP" "$TMP/t.xplane.pb"
wait_for "[timeline]" >/dev/null
keys 3
check "120x40: the op profile shows the roofline columns (FLOP/s, HBM/s, %PKF, BOUND)" \
	'line 2 | grep -q "AVG" && line 2 | grep -q "FLOP/s" && line 2 | grep -q "HBM/s" && line 2 | grep -q "%PKF" && line 2 | grep -q "BOUND" && line 2 | grep -q "CATEGORY"' "narrow columns"
keys 2 j j .
sleep 0.1
keys Enter
check "120x40: details name the plane and line of the event" \
	'grep -A1 "^ details" "$TMP/screen" | grep -q "/device:TPU:0 / XLA Ops"' "no plane / line"
keys q
wait_for "EXIT=" >/dev/null

start 120 40 "$XTOP" "$TMP/g.xplane.pb"
if wait_until 'has "[timeline]" && has "/device:GPU:0" && has "Stream #14(Kernel)"'; then
	ok "gpu profile: streams on /device:GPU:0"
else
	fail "gpu profile: streams on /device:GPU:0" "$(shot)"
fi
keys 3
wait_for "[op profile]" >/dev/null
keys Enter
sleep 0.1
keys Enter
check "gpu profile: details of a kernel show its op profile row" \
	'has "[timeline]" && grep -q "^  op profile: " "$TMP/screen"' "no op profile row"
keys q
wait_for "EXIT=" >/dev/null

# ------------------------------------------------- glyphs and colours ----
# ascii_run NAME ARGS...: every view (details, help, grouped ops) must be pure ASCII.
ascii_run() {
	name=$1
	shift
	start 80 24 "$@"
	: >"$TMP/all"
	if ! wait_for "[timeline]"; then
		fail "$name" "viewer did not start: $(shot)"
		return
	fi
	cat "$TMP/screen" >>"$TMP/all"
	keys . Enter
	wait_for " details" 5 && cat "$TMP/screen" >>"$TMP/all"
	keys 3 p
	wait_for "grouped by" 5 && cat "$TMP/screen" >>"$TMP/all"
	keys 4
	wait_for "[steps]" 5 && cat "$TMP/screen" >>"$TMP/all"
	keys 5
	wait_for "[memory]" 5 && cat "$TMP/screen" >>"$TMP/all"
	keys '?'
	wait_for "xtop keys" 5 && cat "$TMP/screen" >>"$TMP/all"
	keys q
	wait_for "EXIT=" 5
	high=$(LC_ALL=C tr -d '\000-\177' <"$TMP/all" | wc -c)
	if [ "$(grep -c '^ xtop  ' "$TMP/all")" -lt 6 ]; then
		fail "$name" "not every view was captured"
	elif [ "$high" -ne 0 ]; then
		fail "$name" "$high bytes >= 0x80 on screen: $(LC_ALL=C grep -n "$(printf '[\200-\377]')" "$TMP/all" | head -n 2 | tr '\n' '|')"
	else
		ok "$name"
	fi
}
ascii_run "--ascii: every view is pure ASCII" "$XTOP" --ascii "$TMP/t.xplane.pb"
ascii_run "LC_ALL=C (not UTF-8): every view is pure ASCII" LC_ALL=C "$XTOP" "$TMP/t.xplane.pb"

# colour_run NAME ARGS...: the SGR escapes of every view (capture-pane -e).
colour_run() {
	start 80 24 "$@"
	: >"$TMP/all"
	wait_for "[timeline]" || return 1
	cap -e
	cat "$TMP/screen" >>"$TMP/all"
	for v in "2 [op profile]" "3 [steps]" "4 [memory]"; do
		keys "${v%% *}"
		wait_for "${v#* }" 5
		cap -e
		cat "$TMP/screen" >>"$TMP/all"
	done
	keys 2 . Enter
	wait_for " details" 5
	cap -e
	cat "$TMP/screen" >>"$TMP/all"
	keys q
	wait_for "EXIT=" 5
	return 0
}
if colour_run NO_COLOR=1 "$XTOP" "$TMP/t.xplane.pb"; then
	c=$(sgr_colours "$TMP/all" | sort | uniq -c | tr '\n' ' ')
	if [ -n "$c" ]; then
		fail "NO_COLOR=1: no colour escapes" "colour SGR parameters seen: $c"
	elif ! grep -q "$ESC\[[0-9;]*7[;m]" "$TMP/all"; then
		fail "NO_COLOR=1: reverse video marks the title and selection" "no reverse video"
	else
		ok "NO_COLOR=1: no colour escapes in any view (reverse video only)"
	fi
	# A full block in reverse video paints the cell in the background colour:
	# the memory chart's bars must not be drawn that way.
	n=$(grep -o "$ESC\[[0-9;]*7m█" "$TMP/all" | wc -l)
	if [ "$n" -eq 0 ]; then
		ok "NO_COLOR=1: the memory chart's bars are visible"
	else
		fail "NO_COLOR=1: the memory chart's bars are visible" \
			"$n bar cells are full blocks in reverse video, which paints them in the background colour (invisible)"
	fi
else
	fail "NO_COLOR=1: no colour escapes" "viewer did not start"
fi
if colour_run TERM=screen "$XTOP" "$TMP/t.xplane.pb"; then
	c=$(sgr_colours "$TMP/all" | sort -u | tr '\n' ' ')
	case " $c" in
	*" 38 "* | *" 48 "*) fail "TERM=screen: 8 colours only" "256-colour escapes: $c" ;;
	*" 4"[0-7]" "*) ok "TERM=screen: 8 colours only ($c)" ;;
	*) fail "TERM=screen: 8 colours only" "no colours at all: $c" ;;
	esac
else
	fail "TERM=screen: 8 colours only" "viewer did not start"
fi
if colour_run "$XTOP" "$TMP/t.xplane.pb" && sgr_colours "$TMP/all" | grep -qx 48; then
	ok "screen-256color: 256-colour palette in use"
else
	fail "screen-256color: 256-colour palette in use" "no 48;5;N escapes"
fi

# The memory chart's peak marker (^ in ASCII) must sit under the peak's bar,
# which is as tall as the chart. NO_COLOR + --ascii draws the bars as '#'.
start 80 24 NO_COLOR=1 "$XTOP" --ascii "$TMP/t.xplane.pb"
wait_for "[timeline]" >/dev/null
keys 5
if wait_for "live at the peak"; then
	col=$(grep -E '^ *\^$' "$TMP/screen" | head -n 1 | awk '{ print index($0, "^") }')
	top=$(sed -n '/in use over time/,/live at the peak/p' "$TMP/screen" | grep '#' | head -n 1)
	at=$(printf '%s\n' "$top" | awk -v c="${col:-0}" '{ print substr($0, c, 1) }')
	near=$(printf '%s\n' "$top" | awk -v c="${col:-0}" '{ for (i = c - 2; i <= c + 2; i++) if (substr($0, i, 1) == "#") printf "%d ", i }')
	if [ -z "$col" ]; then
		fail "memory: the peak marker sits under the chart's peak bar" "no ^ marker row"
	elif [ "$at" = "#" ]; then
		ok "memory: the peak marker sits under the chart's peak bar (column $col)"
	else
		fail "memory: the peak marker sits under the chart's peak bar" \
			"^ is in column $col, the tallest bars near it are in column(s) ${near:-none} (view 4, --ascii, NO_COLOR=1, 80x24)"
	fi
else
	fail "memory: the peak marker sits under the chart's peak bar" "no memory view: $(shot)"
fi
keys q
wait_for "EXIT=" >/dev/null

# ------------------------------------------------------------ bad input ----
# bad_run NAME FILE PATTERN: one error line, exit status 2, tty restored.
bad_run() {
	start 80 24 "$XTOP" "$2"
	if ! wait_for "EXIT=" 10; then
		fail "$1" "no exit: $(shot)"
		return
	fi
	cap -J
	if ! has "EXIT=2 TTY=restored"; then
		fail "$1" "$(grep EXIT= "$TMP/screen")"
	elif [ "$(grep -c . "$TMP/screen")" -ne 2 ] || ! line 1 | grep -q "^xtop: .*$3"; then
		fail "$1" "want one error line then the exit line: $(shot)"
	else
		ok "$1"
	fi
}
bad_run "random bytes in a tty: one error line, exit 2, terminal restored" \
	"$TMP/random.xplane.pb" "not a valid XSpace"
if have_fixtures; then
	bad_run "corrupt fixture in a tty: one error line, exit 2, terminal restored" \
		"$FIX/corrupt/tpu_inference_2-utf8-mangled.xplane.pb" "not a valid XSpace"
else
	skip "corrupt fixture in a tty" "$NOFIX"
fi

# ------------------------------------------------------------ loading ----
# A profile that takes a while: the first frame comes at once (the
# timeline as lines arrive, a progress bar), the analyses when they are
# done; q while it loads leaves at once with the terminal restored.
$GEN --kind tpu --events 1500000 --seed 8 -o "$TMP/big.xplane.pb" >/dev/null 2>&1 ||
	fail "generate big tpu" "xtop-gen failed"
start 100 30 XTOP_FRAME_LOG="$TMP/frames" "$XTOP" "$TMP/big.xplane.pb"
if wait_for "[timeline]" 60 && wait_until 'grep -q "^ready " "$TMP/frames" 2>/dev/null' 60; then
	first=$(sed -n 's/^first_frame //p' "$TMP/frames")
	ready=$(sed -n 's/^ready //p' "$TMP/frames")
	if [ -n "$first" ] && awk -v a="$first" -v b="$ready" 'BEGIN { exit !(a <= b) }'; then
		ok "loading: first frame at $first s, before the analyses at $ready s"
	else
		fail "loading: frame log" "$(tr '\n' ' ' <"$TMP/frames")"
	fi
	keys Tab
	if wait_until 'has "[op profile]" && has "convolution.11"' 10; then
		ok "loading: the op profile is there once the analyses are"
	else
		fail "loading: op profile" "$(shot)"
	fi
	# Loaded and left alone, the viewer sleeps: no timer runs, no frame is
	# drawn (its CPU ticks over two seconds, from /proc).
	vpid=$(pgrep -P "$($T display-message -p -t t '#{pane_pid}')" | head -n 1)
	if [ -n "$vpid" ] && [ -r "/proc/$vpid/stat" ]; then
		sleep 0.5
		t0=$(awk '{ print $14 + $15 }' "/proc/$vpid/stat")
		sleep 2
		t1=$(awk '{ print $14 + $15 }' "/proc/$vpid/stat")
		if [ $((t1 - t0)) -le 3 ]; then
			ok "idle: the loaded viewer sleeps ($((t1 - t0)) CPU ticks in 2 s)"
		else
			fail "idle: the loaded viewer sleeps" "$((t1 - t0)) CPU ticks in 2 s"
		fi
	else
		fail "idle: the loaded viewer sleeps" "no viewer process under the pane"
	fi
else
	fail "loading: viewer" "$(shot) $(cat "$TMP/frames" 2>/dev/null)"
fi
# Opened on a view that needs the analyses (the overview, the default): the
# timeline shows while they come, then that view, untouched (a resize
# meanwhile is not a choice of view).
start 100 30 XTOP_VIEW=overview XTOP_FRAME_LOG="$TMP/frames2" "$XTOP" "$TMP/big.xplane.pb"
$T resize-window -t t -x 98 -y 30 >/dev/null 2>&1
if wait_until 'grep -q "^ready " "$TMP/frames2" 2>/dev/null' 60 &&
	wait_until 'has "[overview]" && has "Findings"' 10 &&
	[ "$(sed -n 's/^view //p' "$TMP/frames2" | head -n 1)" = timeline ]; then
	ok "loading: the overview asked for, the timeline shows until its analyses are in"
else
	fail "loading: overview after the timeline" "$(shot) $(tr '\n' ' ' <"$TMP/frames2" 2>/dev/null)"
fi
# A view chosen while it loads says what it waits for (not "no ops"), and
# stays chosen when the analyses come.
start 100 30 XTOP_FRAME_LOG="$TMP/frames3" "$XTOP" "$TMP/big.xplane.pb"
keys 3
if wait_until 'grep -q "^ready " "$TMP/frames3" 2>/dev/null' 60 &&
	wait_until 'has "[op profile]" && has "convolution.11"' 10 &&
	grep -q "^view op profile pending" "$TMP/frames3"; then
	ok "loading: the op profile while it loads says it comes when the profile is read"
else
	fail "loading: op profile while loading" "$(shot) $(tr '\n' ' ' <"$TMP/frames3" 2>/dev/null)"
fi
start 100 30 "$XTOP" "$TMP/big.xplane.pb"
keys q
if wait_for "EXIT=0 TTY=restored" 30; then
	ok "loading: q while it loads quits at once, terminal restored"
else
	fail "loading: q while loading" "$(shot)"
fi

# ------------------------------------------------------------- fixtures ----
if have_fixtures; then
	start 120 40 "$XTOP" "$FIX/jax-tpu-v6e-4chip/tpu_inference_2.xplane.pb"
	check "TPU fixture: /device:TPU:0 with XLA Ops and XLA TraceMe" \
		'has "[timeline]" && has "/device:TPU:0" && has "XLA Ops" && has "XLA TraceMe"' "not shown"
	keys 3
	check "TPU fixture: op profile lists copy-done.2 and broadcast_add_fusion.1" \
		'has "copy-done.2" && has "broadcast_add_fusion.1"' "ops missing"
	keys '\'
	text broadcast_add_fusion.1
	keys Enter
	wait_for "filter 'broadcast_add_fusion.1'" 5 >/dev/null
	keys Enter
	sleep 0.1
	keys Enter
	check "TPU fixture: details of broadcast_add_fusion.1 show its op profile row" \
		'grep -q "^  broadcast_add_fusion.1   start" "$TMP/screen" &&
		 grep -q "^  op profile: broadcast_add_fusion.1 \[loop fusion\]" "$TMP/screen"' \
		"no 'op profile: broadcast_add_fusion.1 [loop fusion] ...' row" 2 "^ details"
	keys q
	wait_for "EXIT=" >/dev/null

	start 120 40 "$XTOP" "$FIX/tf-gpu-v100-2host"
	check "tf-gpu-v100-2host directory: two hosts, each labelled" \
		'line 1 | grep -q " 2 hosts " && has "(34.83.195.179_6003, "' "not two hosts"
	keys End
	check "tf-gpu-v100-2host: End reaches the second host's GPU planes" \
		'has "/device:GPU:6  (34.83.195.180_6003, "' "second host not shown"
	keys 5
	check "tf-gpu-v100-2host: memory lists both hosts' GPU:1 HBM (GPU_1_bfc)" \
		'[ "$(grep -c "^ 34\.83\.195\.1[78][09]_6003 GPU:1 HBM " "$TMP/screen")" -eq 2 ]' "not two GPU:1 HBM rows"
	keys q
	wait_for "EXIT=" >/dev/null

	start 120 40 "$XTOP" "$FIX/jax-rocm-mi300x-jax08_gemm/tw003.xplane.pb"
	check "ROCm fixture: /device:GPU:0 with Stream # lines" \
		'has "/device:GPU:0" && has "Stream #16(Kernel)"' "no streams"
	keys 3
	check "ROCm fixture: op profile lists custom-call.1" 'has "custom-call.1"' "no ops"
	keys 4
	check "ROCm fixture: steps inferred from repeated runs, with how to mark them" \
		'has "inferred: runs of jit_dot" && has "StepTraceAnnotation"' "no inferred steps"
	check "steps: the breakdown as columns, those 0 in every step named apart" \
		'has "COMPUTE" && has "BREAKDOWN" && ! grep -q "STEPv.*D2H" "$TMP/screen" && grep -q "STEPv.*COMPUTE.*IDLE" "$TMP/screen" &&
		 has "0 in all: dev->host, collectives"' "no columns"
	keys 5
	check "ROCm fixture: memory lists GPU_0_bfc" 'has "GPU_0_bfc"' "no allocator"
	keys 6
	check "kernels view: the report's kernel table, by total time" \
		'has "[kernels]" && has "TOTALv" && has "KERNEL (OP)" && has "Cijk_Ailk_Blj"' "no kernels"
	keys '>'
	check "kernels view: > sorts by the launch count" 'has "COUNTv"' "not sorted"
	keys Enter
	check "kernels view: Enter shows the kernel's longest launch" \
		'has "[timeline]" && bottom | grep -q "^longest launch of " && line 2 | grep -q "▼"' "no jump"
	keys 7
	check "devices view: busy, idle, host-bound, longest gap per device" \
		'has "[devices]" && has "HOST-BND" && grep -q "63.2%.*/device:GPU:0" "$TMP/screen"' "no devices"
	keys Enter
	check "devices view: Enter goes to the device's longest gap" \
		'has "[timeline]" && bottom | grep -q "^/device:GPU:0: longest gap "' "no jump"
	keys q
	check "ROCm fixture: q quits cleanly" 'has "EXIT=0 TTY=restored"' "no clean exit"

	# PROGRAM takes the room the names leave: at 14 columns it cut
	# "jit__reduce_max" to "jit__reduce_ma" at any width, with no mark.
	start 140 30 "$XTOP" --view ops "$FIX/jax-rocm-mi300x-jax08_attention"
	check "op profile at 140 columns: programs whole in a wider PROGRAM column" \
		'grep -Eq " jit__reduce_max +input_reduce_fusion *$" "$TMP/screen" &&
		 grep -Eq " jit__reduce_sum +input_reduce_fusion *$" "$TMP/screen" &&
		 ! grep -q "jit__reduce_ma " "$TMP/screen"' "programs cut"
	keys q
	wait_for "EXIT=" >/dev/null

	# A device with no events: Enter says which (two hosts) and why no gap.
	start 80 24 "$XTOP" "$FIX/tf-gpu-v100-2host"
	wait_for "[timeline]" >/dev/null
	keys 7
	wait_for "[devices]" >/dev/null
	check "devices view: a device with no events reads '-', not idle, and the footer says why" \
		'grep -Eq "^ +- +- +- .*GPU:0 *$" "$TMP/screen" && ! grep -q " idle " "$TMP/screen" &&
		 grep -q "^ /device:GPU:0: no events from it in the profile: idle, or not traced" "$TMP/screen"' \
		"no reason"
	keys Enter
	check "devices view: Enter on a device with no events says so, with its host" \
		'bottom | grep -q "^34.83.195.179_6003 /device:GPU:0 has no gap: no events"' "no reason"
	keys q
	wait_for "EXIT=" >/dev/null

	# The overview, the default first view, on the TPU fixture at 80x24.
	start 80 24 XTOP_VIEW= "$XTOP" "$FIX/jax-tpu-v6e-4chip/tpu_inference_2.xplane.pb"
	check "overview: the first view, with steps, devices, top ops and findings" \
		'has "[overview]" && has "99 (inferred)  mean 850.9 ms  p50 784.4 ms  p95 978.0 ms" &&
		 has "/device:TPU:3" && has "jit_f/copy-done.2" && has "Findings" &&
		 has "! /device:TPU:0 is idle 13.69 s, 14.8% of its 92.48 s span"' "no overview"
	check "overview: a bar per step under the step line" \
		'sed -n 4p "$TMP/screen" | grep -q "[▁▂▃▄▅▆▇█]\{40\}"' "no bars"
	check "overview: no line wider than the screen" \
		'! too_wide 80' "a line is cut"
	keys Enter
	check "overview: Enter on a device goes to its longest gap, marked" \
		'has "[timeline]" && bottom | grep -q "^/device:TPU:0: longest gap 5.55 s at 13.95 s" &&
		 line 2 | grep -q "▼"' "no jump to the gap"
	keys 1 j j j j
	keys Enter
	check "overview: Enter on a top op shows it in the op profile" \
		'has "[op profile]" && bottom | grep -q "^op jit_f/copy-done.4"' "no op"
	keys q
	wait_for "EXIT=" >/dev/null
	start 80 24 XTOP_VIEW=steps "$XTOP" "$FIX/jax-tpu-v6e-4chip/tpu_inference_2.xplane.pb"
	check "XTOP_VIEW=steps opens on the steps" 'has "[steps]"' "not the steps"
	keys q
	wait_for "EXIT=" >/dev/null
	start 80 24 XTOP_VIEW=steps "$XTOP" --view memory "$FIX/jax-tpu-v6e-4chip/tpu_inference_2.xplane.pb"
	check "--view memory over XTOP_VIEW" 'has "[memory]"' "not the memory view"
	keys q
	wait_for "EXIT=" >/dev/null
else
	skip_n 27 "viewer on the real fixtures" "$NOFIX"
fi
