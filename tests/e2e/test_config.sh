#!/bin/sh
# Settings: defaults, the config file, XTOP_* variables and the command line,
# in that order of strength; xtop --config shows each with its source; a bad
# file or variable is one line naming where it is.
. tests/e2e/lib.sh

unset XTOP_LOGDIR XTOP_DURATION XTOP_VIEW XTOP_HOST_TRACER XTOP_TOP_EVERY
out=$($XTOP --config 2>&1)
case $out in
*"duration       = 2000"*"(default)"*"view           = overview"*) ok "config: defaults" ;;
*) fail "config: defaults" "$out" ;;
esac

cat >"$TMP/cfg" <<'CFG'
# xtop settings
duration = 750
  view=steps
logdir = /tmp/somewhere
CFG
# shows NAME LINE...: $out (xtop --config's) has each LINE (a pattern) at
# the start of one of its lines.
shows() {
	name=$1
	shift
	for l; do
		echo "$out" | grep -q "^$l" || { fail "$name" "no '$l' in: $out"; return; }
	done
	ok "$name"
}
out=$(XTOP_CONFIG="$TMP/cfg" $XTOP --config 2>&1)
shows "config: the file's settings, with file:line" "duration *= 750 *($TMP/cfg:2)" \
	"view *= steps *($TMP/cfg:3)" "host_tracer *= 2 *(default)"
# The command line is the first source, and --config shows it so.
out=$(XTOP_CONFIG="$TMP/cfg" XTOP_DURATION=1234 $XTOP --config --duration 5 --view timeline --logdir /tmp/z 2>&1)
shows "config: options given with --config show as from the command line" \
	"duration *= 5 *(--duration)" "view *= timeline *(--view)" "logdir *= /tmp/z *(--logdir)"
expect_error "config: --config takes no PATH" 2 "--config takes no PATH, not 'extra'" $XTOP --config extra
# A comment after a value (after a blank; a '#' inside a value stays), and
# a file an editor saved with a byte order mark.
printf '\357\273\277duration = 500 # half a second\nlogdir = /tmp/a#b\n' >"$TMP/cfg2"
out=$(XTOP_CONFIG="$TMP/cfg2" $XTOP --config 2>&1)
shows "config: a comment after a value, a byte order mark" "duration *= 500 *($TMP/cfg2:1)" \
	"logdir *= /tmp/a#b *($TMP/cfg2:2)"
out=$(XTOP_CONFIG="$TMP/cfg" XTOP_DURATION=1234 $XTOP --config 2>&1)
echo "$out" | grep -q "^duration *= 1234 *(XTOP_DURATION)" &&
	ok "config: XTOP_* over the file" || fail "config: XTOP_* over the file" "$out"

mkdir -p "$TMP/xdg/xtop"
echo "top_every = 9" >"$TMP/xdg/xtop/config"
out=$(env -u XTOP_CONFIG XDG_CONFIG_HOME="$TMP/xdg" $XTOP --config 2>&1)
echo "$out" | grep -q "^top_every *= 9 *($TMP/xdg/xtop/config:1)" &&
	ok "config: \$XDG_CONFIG_HOME/xtop/config" || fail "config: \$XDG_CONFIG_HOME/xtop/config" "$out"
mkdir -p "$TMP/home/.config/xtop"
echo "host_tracer = 3" >"$TMP/home/.config/xtop/config"
out=$(env -u XTOP_CONFIG -u XDG_CONFIG_HOME HOME="$TMP/home" $XTOP --config 2>&1)
echo "$out" | grep -q "^host_tracer *= 3 " &&
	ok "config: ~/.config/xtop/config" || fail "config: ~/.config/xtop/config" "$out"

# Bad settings: one line, exit 2, naming the place.
printf 'duration = 10\ndurration = 5\n' >"$TMP/bad1"
expect_error "config: unknown key names file:line" 2 "bad1:2: unknown setting 'durration'" \
	env XTOP_CONFIG="$TMP/bad1" $XTOP --config
printf 'view = flame\n' >"$TMP/bad2"
expect_error "config: bad value" 2 "bad2:1: view needs one of overview, timeline" \
	env XTOP_CONFIG="$TMP/bad2" $XTOP --config
printf 'just words\n' >"$TMP/bad3"
expect_error "config: not key = value" 2 "bad3:1: expected 'key = value'" \
	env XTOP_CONFIG="$TMP/bad3" $XTOP --config
expect_error "config: bad XTOP_ variable" 2 "XTOP_HOST_TRACER: host_tracer needs a level from 0 to 3, not '7'" \
	env XTOP_HOST_TRACER=7 $XTOP --config
expect_error "config: capture refuses a bad setting too" 2 "XTOP_DURATION" \
	env XTOP_DURATION=-1 $XTOP capture localhost:1
mkdir -p "$TMP/dir-as-config"
expect_error "config: unreadable file" 2 "dir-as-config" env XTOP_CONFIG="$TMP/dir-as-config" $XTOP --config
# A file XTOP_CONFIG names must be there: a typo in it is not "no settings".
expect_error "config: XTOP_CONFIG names a missing file" 2 "XTOP_CONFIG: $TMP/no-such-cfg: No such file" \
	env XTOP_CONFIG="$TMP/no-such-cfg" $XTOP --config
expect_error "config: capture refuses a missing XTOP_CONFIG" 2 "no-such-cfg" \
	env XTOP_CONFIG="$TMP/no-such-cfg" $XTOP capture localhost:1
out=$(env -u XTOP_CONFIG -u XDG_CONFIG_HOME HOME="$TMP/nohome" $XTOP --config 2>&1) &&
	shows "config: a missing default file is no settings" "config file: $TMP/nohome/.config/xtop/config (not there)" ||
	fail "config: a missing default file is no settings" "$out"
# report and diff read no settings: a broken file does not stop them.
$GEN --kind tpu --events 2000 -o "$TMP/p.pb" >/dev/null 2>&1
XTOP_CONFIG="$TMP/bad1" $XTOP report "$TMP/p.pb" >/dev/null 2>&1 &&
	ok "config: report ignores the settings" || fail "config: report ignores the settings" "failed"
expect_error "view: --view takes a view name" 2 "--view needs one of" $XTOP --view flame "$TMP/p.pb"
# Nor when the viewer, its stdout not a terminal, prints the report.
XTOP_CONFIG="$TMP/bad1" XTOP_DURATION=abc $XTOP "$TMP/p.pb" 2>"$TMP/err" | grep -q "^xtop report:" &&
	ok "config: the viewer printing the report ignores the settings" ||
	fail "config: the viewer printing the report ignores the settings" "$(cat "$TMP/err")"
# A FIFO in the file's place: one line, no hang.
mkfifo "$TMP/fifo-config"
expect_error "config: a FIFO is no config file" 2 "fifo-config: not a regular file" \
	env XTOP_CONFIG="$TMP/fifo-config" $XTOP --config
# A value too long to keep whole is refused, not cut (a cut logdir saves elsewhere).
long=$(printf '%01100d' 0 | tr 0 a)
expect_error "config: a setting over 1023 bytes" 2 "XTOP_LOGDIR: logdir is longer than 1023 bytes" \
	env XTOP_LOGDIR="$TMP/$long" $XTOP --config
printf 'logdir = %s\n' "$TMP/$long" >"$TMP/long-config"
expect_error "config: a file's setting over 1023 bytes" 2 "long-config:1: logdir is longer than 1023 bytes" \
	env XTOP_CONFIG="$TMP/long-config" $XTOP --config
expect_error "config: XTOP_CONFIG over 1023 bytes" 2 "config file's path is longer than 1023 bytes" \
	env XTOP_CONFIG="$TMP/$long" $XTOP --config
# top_every takes what --every takes: seconds with decimals, from 0.1.
out=$(XTOP_TOP_EVERY=0.5 $XTOP --config 2>&1)
echo "$out" | grep -q "^top_every *= 0.5 *(XTOP_TOP_EVERY)" &&
	ok "config: top_every 0.5" || fail "config: top_every 0.5" "$out"
expect_error "config: top_every under 0.1" 2 "top_every needs seconds from 0.1 to 86400, not '0.05'" \
	env XTOP_TOP_EVERY=0.05 $XTOP --config
