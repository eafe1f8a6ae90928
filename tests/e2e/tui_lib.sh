# The viewer in tmux, for the tests that drive it (sourced after lib.sh):
# a private tmux server (its own socket, no config), the viewer started in a
# fixed environment, keys sent, and the screen read back with capture-pane.
# Each wait polls the screen until a condition holds (at most ~10 s), so a
# script is as fast as the viewer. Exits with one skip line without tmux.

if ! command -v tmux >/dev/null 2>&1; then
	skip "viewer in tmux ($(basename "$0"))" "tmux not installed (scripts/deps.sh installs it)"
	exit 0
fi
unset TMUX TMUX_PANE
T="tmux -L xtop-test-$$ -f /dev/null"
SOCK=
trap '$T kill-server >/dev/null 2>&1; [ -n "$SOCK" ] && rm -f "$SOCK"; rm -rf "$TMP"' EXIT
trap 'exit 1' INT TERM HUP
# XTOP_VIEW: the viewer opens on the timeline, which most checks are about
# (start ... XTOP_VIEW=overview for the overview, the default).
ENVV="TZ=UTC LC_ALL=C.UTF-8 TERM=screen-256color XTOP_VIEW=timeline"
ESC=$(printf '\033')

# The pane runs this wrapper: the viewer, then one line with its exit status
# and whether the tty settings are what they were before (curses restored
# them), then it stays so the screen can be read.
cat >"$TMP/run.sh" <<'EOF'
s=$(stty -g)
"$@"
rc=$?
if [ "$(stty -g)" = "$s" ]; then t=restored; else t=changed; fi
echo "EXIT=$rc TTY=$t"
exec sleep 300
EOF

# A session that outlives the others keeps the server up between viewers.
SHELL=/bin/sh $T new-session -d -s keep -x 80 -y 24 "exec sleep 300" ||
	{ fail "tmux server" "cannot start tmux"; exit 1; }
SOCK=$($T display-message -p '#{socket_path}' 2>/dev/null)

W=80 H=24
# start COLS ROWS [VAR=VALUE...] [xtop args...]: a fresh viewer in session "t".
start() {
	W=$1 H=$2
	shift 2
	$T kill-session -t t >/dev/null 2>&1
	$T new-session -d -s t -x "$W" -y "$H" -c "$PWD" "sh $TMP/run.sh env $ENVV $*"
}
keys() { $T send-keys -t t "$@"; }
# too_wide [COLS]: some line of the screen is wider than COLS (default the
# screen's) characters, counted as characters, not bytes.
too_wide() {
	$PY -c 'import sys
sys.exit(0 if any(len(l.rstrip("\n")) > int(sys.argv[2])
                  for l in open(sys.argv[1], encoding="utf-8", errors="replace")) else 1)' \
		"$TMP/screen" "${1:-$W}"
}
text() { $T send-keys -t t -l "$1"; }
cap() { $T capture-pane -t t -p "$@" >"$TMP/screen" 2>/dev/null; }
has() { grep -qF -- "$1" "$TMP/screen"; }
line() { sed -n "${1}p" "$TMP/screen"; }
bottom() { line "$H"; }
# The ruler's window width label: the first characters of line 2.
label() { line 2 | awk '{ print $1, $2 }'; }
# shot [REGEX]: the screen (from the first line matching REGEX) on one line,
# for failure messages.
shot() {
	if [ -n "${1:-}" ] && grep -q -- "$1" "$TMP/screen"; then
		sed -n "/$1/,\$p" "$TMP/screen"
	else
		cat "$TMP/screen"
	fi | sed 's/   */  /g' | tr '\n' '|' | cut -c 1-600
}
# wait_for TEXT [SECONDS]: polls the screen until TEXT shows; 1 on timeout.
wait_for() {
	n=$((${2:-10} * 20))
	while [ $n -gt 0 ]; do
		cap
		has "$1" && return 0
		sleep 0.05
		n=$((n - 1))
	done
	return 1
}
# wait_until 'SHELL CONDITION' [SECONDS]: the same for any condition on the screen.
wait_until() {
	n=$((${2:-10} * 20))
	while [ $n -gt 0 ]; do
		cap
		eval "$1" && return 0
		sleep 0.05
		n=$((n - 1))
	done
	return 1
}
# check NAME 'SHELL CONDITION' WHY [SECONDS] [REGEX]: waits for the condition,
# then one line; a failure shows the screen (from the line matching REGEX).
check() {
	if wait_until "$2" "${4:-10}"; then ok "$1"; else fail "$1" "$3; screen: $(shot "${5:-}")"; fi
}
# width: the widest line of the screen in characters (UTF-8).
width() {
	$PY -c 'import sys; print(max(len(l) for l in open(sys.argv[1], encoding="utf-8").read().split("\n")))' "$TMP/screen"
}
# sgr_colours FILE: the colour parameters (30-38, 40-48, 90-97, 100-107) of
# the SGR escapes in FILE, one a line; 39/49 (default colours) are not colours.
sgr_colours() {
	grep -o "$ESC\[[0-9;:]*m" "$1" | sed "s/^$ESC\[//; s/m\$//" | tr ';:' '\n\n' |
		grep -Ex '3[0-8]|4[0-8]|9[0-7]|10[0-7]'
}

# ruler_labels: the time ruler's tick labels (line 2, after the label
# column), one a line.
ruler_labels() {
	line 2 | grep '│' | sed 's/^[^│]*│//; s/│/\n/g' | sed 's/^ *//; s/ *$//' | grep .
}
# ruler_distinct [MIN]: at least MIN (default 3) tick labels, all different.
ruler_distinct() {
	rn=$(ruler_labels | wc -l)
	[ "$rn" -ge "${1:-3}" ] && [ "$(ruler_labels | sort -u | wc -l)" -eq "$rn" ]
}
# track_labels: checks the timeline's label column on the screen: every
# track row has the separator in one column (printed as SEP=N), and the
# labels under each plane header differ. Prints "SEP=N" or what is wrong.
track_labels() {
	$PY - "$TMP/screen" <<'PYEOF'
import sys
rows = open(sys.argv[1], encoding="utf-8").read().split("\n")[2:-2]
sep, seen, bad = None, {}, []
for r in rows:
    if r[:1] in ("\u25be", "\u25b8", "-", "+") and not r.startswith("  "):
        seen = {}          # a plane header: labels restart
        continue
    if not r.strip() or "\u2502" not in r:
        continue
    if r.startswith(" details") or r.startswith("  "+"no event"):
        break
    c = r.index("\u2502")
    if sep is None:
        sep = c
    if c != sep:
        bad.append("separator at %d, not %d: %r" % (c, sep, r[:c + 1]))
    lab = r[:c].strip()
    if lab:
        if lab in seen:
            bad.append("label %r twice" % lab)
        seen[lab] = 1
print("; ".join(bad[:3]) if bad else "SEP=%s" % sep)
PYEOF
}
# ps_of VALUE UNIT: a shown time in picoseconds ("1.53 ms" -> 1530000000).
ps_of() {
	awk -v v="$1" -v u="$2" 'BEGIN { m["ps"] = 1; m["ns"] = 1e3; m["us"] = 1e6; m["ms"] = 1e9;
		m["s"] = 1e12; printf "%.0f\n", v * m[u] }'
}
# joined: the screen's rows between the first and the last, as one line
# with runs of blanks made one space (wrapped text reads as it was written).
joined() {
	sed -n "2,$((H - 1))p" "$TMP/screen" | tr '\n' ' ' | tr -s ' '
}
# selected_line / selected_at: the row drawn in reverse video (the selection
# with NO_COLOR=1) below the title, without escapes, and its line number.
selected_line() {
	$T capture-pane -t t -p -e | sed -n "2,$((H - 1))p" | grep "$ESC\[7m" | head -n 1 |
		sed "s/$ESC\[[0-9;]*m//g"
}
selected_at() {
	$T capture-pane -t t -p -e | sed -n "2,$((H - 1))p" | grep -n "$ESC\[7m" | head -n 1 | cut -d: -f1
}
