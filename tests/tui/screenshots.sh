#!/bin/sh
# Screenshots of the viewer: drives the real binary in tmux (120x36,
# TERM=screen-256color, UTF-8), captures each screen with its colours
# (capture-pane -e) and renders it as a PNG with tests/tui/ansi2png.py.
#   sh tests/tui/screenshots.sh [OUTDIR]     (from the repository root; default screenshots/)
# Needs build/xtop and build/xtop-gen (make), tmux, python3-pil and
# fonts-dejavu-core. Uses the real profiles in ../shared/fixtures (or
# XTOP_FIXTURES=DIR) too when they are there.
OUT=${1:-screenshots}
O=${O:-build}
XTOP=${XTOP:-$O/xtop}
GEN=${GEN:-$O/xtop-gen}
FIX=${XTOP_FIXTURES:-../shared/fixtures}
PY=/usr/bin/python3
COLS=120
ROWS=36

die() {
	echo "screenshots: $*" >&2
	exit 1
}
[ -x "$XTOP" ] && [ -x "$GEN" ] || die "$XTOP or $GEN missing (run make first)"
command -v tmux >/dev/null 2>&1 || die "tmux missing (apt-get install tmux)"
$PY -c 'import PIL' 2>/dev/null || die "python3-pil missing (apt-get install python3-pil)"
[ -r /usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf ] ||
	die "DejaVu Sans Mono missing (apt-get install fonts-dejavu-core)"
mkdir -p "$OUT" || die "cannot create $OUT"

unset TMUX TMUX_PANE
TMP=$(mktemp -d "${TMPDIR:-/tmp}/xtop-shots.XXXXXX")
T="tmux -L xtop-shots-$$ -f /dev/null"
SOCK=
trap '$T kill-server >/dev/null 2>&1; [ -n "$SOCK" ] && rm -f "$SOCK"; rm -rf "$TMP"' EXIT
trap 'exit 1' INT TERM HUP

# The demo profile of `make demo`; a GPU one for the kernels and devices
# views; another run of the demo's workload to compare it with.
$GEN --kind tpu --events 200000 --seed 7 -o "$TMP/demo.xplane.pb" >/dev/null ||
	die "xtop-gen failed"
$GEN --kind gpu --events 100000 --seed 7 -o "$TMP/gpu.xplane.pb" >/dev/null ||
	die "xtop-gen failed"
$GEN --kind tpu --events 200000 --seed 8 -o "$TMP/demo2.xplane.pb" >/dev/null ||
	die "xtop-gen failed"

SHELL=/bin/sh $T new-session -d -s keep -x $COLS -y $ROWS "exec sleep 600" ||
	die "cannot start tmux"
SOCK=$($T display-message -p '#{socket_path}' 2>/dev/null)

# start FILE [xtop args...]: a fresh viewer in session "v"; waits until it
# has loaded, and clears the status line that says so (it names the file
# by its path, here a temporary one), as any key does.
start() {
	$T kill-session -t v >/dev/null 2>&1
	$T new-session -d -s v -x $COLS -y $ROWS -c "$PWD" \
		"env TZ=UTC LC_ALL=C.UTF-8 TERM=screen-256color $XTOP $*; exec sleep 600"
	wait_for "events  " || die "the viewer did not start on $*"
	wait_for "Tab switches views" || die "the viewer did not load $*"
	keys Escape
	n=100
	while [ $n -gt 0 ] && $T capture-pane -t v -p | grep -qF "Tab switches views"; do
		sleep 0.05
		n=$((n - 1))
	done
}
keys() { $T send-keys -t v "$@"; }
# need TEXT: wait_for, or stop with a message.
need() { wait_for "$1" || die "'$1' never showed"; }
text() { $T send-keys -t v -l "$1"; }
# wait_for TEXT: polls the screen (at most ~10 s).
wait_for() {
	n=200
	while [ $n -gt 0 ]; do
		$T capture-pane -t v -p >"$TMP/plain" 2>/dev/null
		grep -qF -- "$1" "$TMP/plain" && return 0
		sleep 0.05
		n=$((n - 1))
	done
	return 1
}
# shot NAME MARKER: once MARKER shows and the screen stops changing, writes
# OUT/NAME.png. -N keeps trailing cells, so bars and title bars keep their
# colour up to the right edge.
shot() {
	wait_for "$2" || die "$1: '$2' never showed"
	n=60
	$T capture-pane -t v -p -e -N >"$TMP/$1.ans"
	while [ $n -gt 0 ]; do
		sleep 0.1
		$T capture-pane -t v -p -e -N >"$TMP/$1.new"
		cmp -s "$TMP/$1.ans" "$TMP/$1.new" && break
		mv "$TMP/$1.new" "$TMP/$1.ans"
		n=$((n - 1))
	done
	$PY tests/tui/ansi2png.py --cols $COLS --rows $ROWS "$TMP/$1.ans" "$OUT/$1.png" ||
		die "$1: ansi2png failed"
	echo "wrote $OUT/$1.png"
}

# The overview, the first view.
start "$TMP/demo.xplane.pb"
shot overview "Findings"

# Timeline, zoomed on the longest convolution.11 with the details pane open.
start "$TMP/demo.xplane.pb"
keys 3
need "[op profile]"
keys Enter
need "longest run of"
keys s s s
sleep 0.2
keys Enter
shot timeline " details"

# Op profile grouped by program and category.
start "$TMP/demo.xplane.pb"
keys 3
need "[op profile]"
keys p
shot ops "grouped by program, category"

# Steps.
start "$TMP/demo.xplane.pb"
keys 4
shot steps "average"

# Memory.
start "$TMP/demo.xplane.pb"
keys 5
shot memory "live at the peak"

# Kernels and devices, on a GPU profile.
start "$TMP/gpu.xplane.pb"
keys 6
shot kernels "KERNEL (OP)"
keys 7
shot devices "HOST-BND"

# Two runs compared (xtop --diff BASE NEW).
start --diff "$TMP/demo.xplane.pb" "$TMP/demo2.xplane.pb"
shot diff "PROGRAM/OP"

# Search: the first match, zoomed in around it (w zooms at the selection),
# then n: the next match in the same zoom, with "match 2 of N".
start "$TMP/demo.xplane.pb"
keys 2
keys /
text convolution.3
keys Enter
need "match 1 of"
keys w w w w w w w w w w
sleep 0.3
keys n
shot search "match 2 of"

# Help.
start "$TMP/demo.xplane.pb"
keys '?'
shot help "xtop keys"

# Real profiles, when the fixtures are there.
if [ -d "$FIX" ]; then
	start "$FIX/jax-tpu-v6e-4chip/tpu_inference_2.xplane.pb"
	keys 2
	shot tpu-fixture "/device:TPU:0"
	# The same, zoomed on the longest broadcast_add_fusion.1 (op profile, filter, Enter).
	keys 3 '\'
	text broadcast_add_fusion.1
	keys Enter
	need "filter 'broadcast_add_fusion.1'"
	keys Enter
	need "longest run of"
	keys s s s s
	shot tpu-fixture-zoom "[timeline]"
	start "$FIX/jax-rocm-mi300x-jax08_gemm/tw003.xplane.pb"
	keys 2
	shot rocm-fixture "Stream #"
else
	echo "screenshots: $FIX not found: no fixture screenshots" >&2
fi
