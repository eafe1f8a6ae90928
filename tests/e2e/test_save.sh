#!/bin/sh
# The viewer's x, in tmux: it saves a profile once, under --logdir, else
# $XTOP_LOGDIR, else ./xtop-logdir of the directory the viewer started in,
# says the absolute directory, and adds what XProf wants when it can
# (hostnames; a Task Environment plane when the profile's times are dates).
. tests/e2e/lib.sh

K=0
T="tmux -L xtop-save-$$-$K -f /dev/null"
trap 'for k in $(seq 0 $K); do tmux -L xtop-save-$$-$k kill-server 2>/dev/null; done; rm -rf "$TMP"' EXIT
if have_fixtures; then
	TPU=$(cd "$FIX/jax-tpu-v6e-4chip" && pwd)/tpu_inference_2.xplane.pb
	V100=$(cd "$FIX/tf-gpu-v100-2host" && pwd)/34.83.195.179_6003.xplane.pb
else
	$GEN --kind tpu --events 2000 --seed 4 -o "$TMP/tpu_inference_2.xplane.pb" >/dev/null 2>&1
	TPU="$TMP/tpu_inference_2.xplane.pb"
	V100=$TPU
fi
XT=$(cd "$(dirname "$XTOP")" && pwd)/$(basename "$XTOP")

tmux_wait() { # tmux_wait TEXT: polls the pane for TEXT (10 s)
	n=200
	while [ $n -gt 0 ]; do
		$T capture-pane -p -J >"$TMP/pane" 2>/dev/null
		grep -qF -- "$1" "$TMP/pane" && return 0
		sleep 0.05
		n=$((n - 1))
	done
	return 1
}
# view DIR ENV ARGS...: the viewer in tmux, started in DIR with ENV.
view() {
	dir=$1 envs=$2
	shift 2
	# A new tmux server each time: one killed a moment ago may still be
	# going away under its socket name.
	$T kill-server 2>/dev/null
	K=$((K + 1))
	T="tmux -L xtop-save-$$-$K -f /dev/null"
	$T new-session -d -x 200 -y 30 -c "$dir" "env LC_ALL=C.UTF-8 TERM=screen-256color $envs $XT $*; echo EXIT=\$?; sleep 30"
	tmux_wait "? for help" || fail "viewer" "did not start: $(cat "$TMP/pane")"
}

# 1. The default: ./xtop-logdir of the directory the viewer started in,
# named in full; a second x does not save a second copy.
mkdir -p "$TMP/cwd"
view "$TMP/cwd" "XTOP_LOGDIR=" "$TPU"
$T send-keys x
if tmux_wait "saved in $TMP/cwd/xtop-logdir/plugins/profile/"; then
	run=$(sed -n 's/.*saved in \([^ ]*\).*/\1/p' "$TMP/pane" | head -n 1)
	ok "x saves under ./xtop-logdir of where the viewer started, named in full"
else
	fail "x default" "$(tail -n 1 "$TMP/pane")"
fi
$T send-keys x
if tmux_wait "already saved in $run" && [ "$(ls "$TMP/cwd/xtop-logdir/plugins/profile" | wc -l)" -eq 1 ]; then
	ok "x again says where it already is, and writes nothing"
else
	fail "x twice" "$(tail -n 1 "$TMP/pane"); $(ls "$TMP/cwd/xtop-logdir/plugins/profile")"
fi
f=$(ls "$run"/*.xplane.pb 2>/dev/null | head -n 1)
# The real TPU profile names no host, so the copy takes its file's name;
# the generated one that stands in without ../shared names its own.
hn=tpu_inference_2
have_fixtures || hn=gen-host
if [ -n "$f" ] && $XTOP report --json "$f" | grep -q "\"hostnames\":\\[\"$hn\"\\]" &&
	[ "$($XTOP report --json "$f" | grep -o '"name":"Task Environment"' | wc -l)" -eq 1 ]; then
	ok "the saved copy gets hostnames and keeps its one Task Environment plane"
else
	fail "saved copy" "$($XTOP report --json "$f" | head -c 300)"
fi

# 2. XTOP_LOGDIR is the default; a profile whose times are not dates gets
# no invented Task Environment, and the status line says so.
view "$TMP/cwd" "XTOP_LOGDIR=$TMP/envlog" "$V100"
$T send-keys x
if tmux_wait "saved in $TMP/envlog/plugins/profile/"; then
	ok "XTOP_LOGDIR is where x saves"
else
	fail "XTOP_LOGDIR" "$(tail -n 1 "$TMP/pane")"
fi
if have_fixtures; then
	if grep -q "no Task Environment plane: the profile does not say when it was taken" "$TMP/pane"; then
		ok "a profile that does not say when it was taken: saved, and the status line says what is missing"
	else
		fail "no Task Environment" "$(tail -n 1 "$TMP/pane")"
	fi
fi

# 3. --logdir wins over XTOP_LOGDIR.
view "$TMP/cwd" "XTOP_LOGDIR=$TMP/envlog" --logdir "$TMP/optlog" "$TPU"
$T send-keys x
if tmux_wait "saved in $TMP/optlog/plugins/profile/"; then
	ok "--logdir wins over XTOP_LOGDIR"
else
	fail "--logdir" "$(tail -n 1 "$TMP/pane")"
fi
$T send-keys q
tmux_wait "EXIT=0" || fail "quit" "$(tail -n 2 "$TMP/pane")"
$T kill-server 2>/dev/null
